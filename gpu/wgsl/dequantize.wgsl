// dequantize.wgsl: Wf[N,K] = (code - 8) * scale from W_4X8 (SPEC §1), the WebGPU kernel
// (docs/webgpu.md). One invocation per W_4X8 block (8 rows x 4 K): it reads one vec4<u32>
// and writes one vec4 to each of its rows. Consecutive invocations take consecutive k4
// of one block column, so each row's stores are contiguous across the workgroup (the
// writes are 8 times the reads). Rows >= N (the upper half of an odd-N4 last block) are
// neither scaled nor written.
//!include q4_w4x8.wgsl

struct Params { N: u32, K: u32, gs: u32, N8: u32 }

@group(0) @binding(0) var<storage, read> w4: array<vec4<u32>>;
@group(0) @binding(1) var<storage, read> scales: array<f32>;
@group(0) @binding(2) var<storage, read_write> o4: array<vec4<f32>>;
@group(0) @binding(8) var<uniform> params: Params;

@compute @workgroup_size(256)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
        @builtin(local_invocation_index) lid: u32) {
    let i = (wid.y * nwg.x + wid.x) * 256u + lid;
    let K4 = params.K / 4u;
    if (i >= K4 * params.N8) {
        return;
    }
    let k4 = i % K4;
    let n8 = i / K4;
    let blk = w4[k4 * params.N8 + n8];
    let n0 = 8u * n8;
    let g = ((4u * k4) / params.gs) * params.N;
    for (var p = 0u; p < 4u; p++) {           // word p: rows n0 + 2p and n0 + 2p + 1
        let n = n0 + 2u * p;
        if (n >= params.N) {
            break;
        }
        o4[n * K4 + k4] = q4_row4(blk[p], 0u) * scales[g + n];
        o4[(n + 1u) * K4 + k4] = q4_row4(blk[p], 1u) * scales[g + n + 1u];
    }
}
