// q4gsw_requant_flat.wgsl: fp32 latent weights -> 4-bit codes in the flat layout (SPEC
// §1a), the WebGPU kernel (docs/webgpu.md). The flat layout is the [N][K] codes in
// row-major order, two per byte, low nibble first; with K % 4 == 0 word i holds codes
// 8i .. 8i+7 (a word may span two rows when K % 8 == 4). One invocation per word.
//!include q4gsw_requant.wgsl

struct Params { N: u32, K: u32, gs: u32, N8: u32 }

@group(0) @binding(0) var<storage, read> latent4: array<vec4<u32>>;   // fp32 bits [N][K]
@group(0) @binding(1) var<storage, read> scales: array<u32>;
@group(0) @binding(3) var<storage, read_write> flat: array<u32>;
@group(0) @binding(8) var<uniform> params: Params;

@compute @workgroup_size(256)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
        @builtin(local_invocation_index) lid: u32) {
    let i = (wid.y * nwg.x + wid.x) * 256u + lid;
    if (i >= (params.N * params.K) / 8u) {
        return;
    }
    var n = (8u * i) / params.K;
    var k = (8u * i) % params.K;
    var word = 0u;
    for (var h = 0u; h < 2u; h++) {             // each half: 4 codes of one row and group
        let c = q4_scale_prep(scales[(k / params.gs) * params.N + n]);
        let x = latent4[2u * i + h];
        for (var j = 0u; j < 4u; j++) {
            word |= q4_code(x[j], c) << (4u * (4u * h + j));
        }
        k += 4u;
        if (k == params.K) {
            k = 0u;
            n++;
        }
    }
    flat[i] = word;
}
