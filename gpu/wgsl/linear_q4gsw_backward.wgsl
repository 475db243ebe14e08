// linear_q4gsw_backward.wgsl: dx[M,K] = dout[M,N] @ dequant(W), the WebGPU kernel
// (docs/webgpu.md). One 128 (m) x 128 (k) tile of dx per workgroup (gemm_reg.wgsl), N
// in steps of 8: each step stages 128 m x 8 n of dout (one vec4 along N per invocation,
// transposed into As[n][m]) and the 32 W_4X8 blocks covering 8 n x 128 k (one row's four
// K values per invocation, q4_w_tile.wgsl, being one vec4 of Bs[n][k]).
//!include q4_w4x8.wgsl
//!include gemm_reg.wgsl
//!include q4_w_tile.wgsl

struct Params { M: u32, N: u32, K: u32, gs: u32, N8: u32 }

@group(0) @binding(0) var<storage, read> dout4: array<vec4<f32>>;
@group(0) @binding(1) var<storage, read> w4: array<vec4<u32>>;
@group(0) @binding(2) var<storage, read> scales: array<f32>;
@group(0) @binding(3) var<storage, read_write> dx4: array<vec4<f32>>;
@group(0) @binding(8) var<uniform> params: Params;

var<private> da: vec4<f32>;

// r = m, c = k, d = n. Invocation lid: dout row lid / 2, n quad lid % 2; weight row
// n = d0 + lid % 8 of block column k4 = c0 / 4 + lid / 8.
fn fetch(r0: u32, c0: u32, d0: u32, lid: u32) {
    let N4 = params.N / 4u;
    let m = r0 + lid / 2u;
    let n4 = d0 / 4u + lid % 2u;
    da = vec4<f32>(0.0);
    if (m < params.M && n4 < N4) {
        da = dout4[m * N4 + n4];
    }
    fetch_w(d0 + lid % 8u, c0 / 4u + lid / 8u);
}

fn stage(d: u32, lid: u32) {
    let ml = lid / 2u;
    let na = d + 4u * (lid % 2u);
    As[na][ml / 4u][ml % 4u] = da.x;
    As[na + 1u][ml / 4u][ml % 4u] = da.y;
    As[na + 2u][ml / 4u][ml % 4u] = da.z;
    As[na + 3u][ml / 4u][ml % 4u] = da.w;
    Bs[d + lid % 8u][lid / 8u] = w_row4(lid % 8u);
}

fn store_c(m: u32, k: u32, v: vec4<f32>) {
    dx4[(m * params.K + k) / 4u] = v;
}

@compute @workgroup_size(256)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
        @builtin(local_invocation_index) lid: u32) {
    let tile = tile_of(wid.y * nwg.x + wid.x, params.M, params.K);
    if (tile.z == 0u) {
        return;
    }
    gemm_reg(tile.x, tile.y, params.M, params.K, params.N, lid);
}
