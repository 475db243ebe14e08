// q4gsw_requant_w4x8.wgsl: fp32 latent weights -> 4-bit codes in the W_4X8 layout
// (SPEC §1b), the WebGPU kernel (docs/webgpu.md). One invocation per block (8 rows x 4
// K): it reads one vec4 of latent bits per row and one scale per row, writes the
// block's four words; an odd-N4 last block's upper words are 0x88888888 exactly.
//!include q4gsw_requant.wgsl

struct Params { N: u32, K: u32, gs: u32, N8: u32 }

@group(0) @binding(0) var<storage, read> latent4: array<vec4<u32>>;   // fp32 bits [N][K]
@group(0) @binding(1) var<storage, read> scales: array<u32>;          // fp32 bits [K/gs][N]
@group(0) @binding(2) var<storage, read_write> w4: array<vec4<u32>>;
@group(0) @binding(8) var<uniform> params: Params;

@compute @workgroup_size(256)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
        @builtin(local_invocation_index) lid: u32) {
    let i = (wid.y * nwg.x + wid.x) * 256u + lid;
    let K4 = params.K / 4u;
    if (i >= K4 * params.N8) {
        return;
    }
    let n8 = i % params.N8;     // consecutive invocations: consecutive blocks
    let k4 = i / params.N8;
    let g = ((4u * k4) / params.gs) * params.N;
    var blk = vec4<u32>(0x88888888u);
    for (var p = 0u; p < 4u; p++) {              // word p: rows n0 + 2p (low), + 1 (high)
        let n = 8u * n8 + 2u * p;
        if (n >= params.N) {
            break;
        }
        var word = 0u;
        for (var odd = 0u; odd < 2u; odd++) {
            let c = q4_scale_prep(scales[g + n + odd]);
            let x = latent4[(n + odd) * K4 + k4];
            for (var b = 0u; b < 4u; b++) {
                word |= q4_code(x[b], c) << (8u * b + 4u * odd);
            }
        }
        blk[p] = word;
    }
    w4[k4 * params.N8 + n8] = blk;
}
