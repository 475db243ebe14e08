// linear_q4gsw_backward.wgsl: dx[M,K] = dout[M,N] @ dequant(W), the WebGPU kernel
// (docs/webgpu.md). One 32 (m) x 32 (k) tile of dx per workgroup (gemm_tile.wgsl), N in
// steps of 32: each step stages 32 x 32 of dout (one vec4 along N per load) and the 32
// W_4X8 blocks covering those 32 n x 32 k, dequantized once, a row's four K values
// being one vec4 of workgroup memory. Rows n >= N (odd N4's padding) stage 0.
//!include q4_w4x8.wgsl
//!include gemm_tile.wgsl
//!include q4_w_tile.wgsl

struct Params { M: u32, N: u32, K: u32, gs: u32, N8: u32 }

@group(0) @binding(0) var<storage, read> dout4: array<vec4<f32>>;
@group(0) @binding(1) var<storage, read> w4: array<vec4<u32>>;
@group(0) @binding(2) var<storage, read> scales: array<f32>;
@group(0) @binding(3) var<storage, read_write> dx4: array<vec4<f32>>;
@group(0) @binding(8) var<uniform> params: Params;

// r = m, c = k, t = n.
fn stage(r0: u32, c0: u32, t0: u32, lid: u32) {
    let N4 = params.N / 4u;
    // dout: 32 m x 8 n-quads, 4 per invocation, transposed into As[n][m]
    for (var i = 0u; i < 4u; i++) {
        let e = lid + 64u * i;
        let ml = e / 8u;
        let nq = e % 8u;
        let m = r0 + ml;
        let n4 = t0 / 4u + nq;
        var v = vec4<f32>(0.0);
        if (m < params.M && n4 < N4) {
            v = dout4[m * N4 + n4];
        }
        for (var j = 0u; j < 4u; j++) {
            As[(nq * 4u + j) * 8u + ml / 4u][ml % 4u] = v[j];
        }
    }
    stage_w(t0, c0, lid, false);
}

@compute @workgroup_size(64)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
        @builtin(local_invocation_index) lid: u32) {
    let tile = tile_of(wid.y * nwg.x + wid.x, params.M, params.K);
    if (tile.z == 0u) {
        return;
    }
    let acc = gemm_tile(tile.x, tile.y, params.N, lid);
    let k = tile.y + 4u * (lid % 8u);
    if (k >= params.K) {
        return;
    }
    for (var i = 0u; i < 4u; i++) {
        let m = tile.x + 4u * (lid / 8u) + i;
        if (m < params.M) {
            dx4[(m * params.K + k) / 4u] = acc[i];
        }
    }
}
