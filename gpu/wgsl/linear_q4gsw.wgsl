// linear_q4gsw.wgsl: y[M,N] = x[M,K] @ dequant(W)^T (+ bias), the WebGPU kernel
// (docs/webgpu.md). One 128 (m) x 128 (n) tile of y per workgroup (gemm_reg.wgsl), K in
// steps of 8: each step stages 128 m x 8 k of x (one vec4 along K per invocation,
// transposed into As[k][m]) and the 32 W_4X8 blocks covering 128 n x 8 k (one row's
// four K values per invocation, q4_w_tile.wgsl, transposed into Bs[k][n]).
//!include q4_w4x8.wgsl
//!include gemm_reg.wgsl
//!include q4_w_tile.wgsl

struct Params { M: u32, N: u32, K: u32, gs: u32, N8: u32, has_bias: u32 }

@group(0) @binding(0) var<storage, read> x4: array<vec4<f32>>;
@group(0) @binding(1) var<storage, read> w4: array<vec4<u32>>;
@group(0) @binding(2) var<storage, read> scales: array<f32>;
@group(0) @binding(3) var<storage, read> bias4: array<vec4<f32>>;
@group(0) @binding(4) var<storage, read_write> y4: array<vec4<f32>>;
@group(0) @binding(8) var<uniform> params: Params;

var<private> xa: vec4<f32>;

// r = m, c = n, d = k. Invocation lid: x row lid / 2, k quad lid % 2; weight block
// (n8, k4) = (lid / 16, (lid / 8) % 2), its row lid % 8.
fn fetch(r0: u32, c0: u32, d0: u32, lid: u32) {
    let K4 = params.K / 4u;
    let m = r0 + lid / 2u;
    let k4 = d0 / 4u + lid % 2u;
    xa = vec4<f32>(0.0);
    if (m < params.M && k4 < K4) {
        xa = x4[m * K4 + k4];
    }
    fetch_w(c0 + (lid / 16u) * 8u + lid % 8u, d0 / 4u + (lid / 8u) % 2u);
}

fn stage(d: u32, lid: u32) {
    let ml = lid / 2u;
    let ka = d + 4u * (lid % 2u);
    As[ka][ml / 4u][ml % 4u] = xa.x;
    As[ka + 1u][ml / 4u][ml % 4u] = xa.y;
    As[ka + 2u][ml / 4u][ml % 4u] = xa.z;
    As[ka + 3u][ml / 4u][ml % 4u] = xa.w;
    let nl = (lid / 16u) * 8u + lid % 8u;
    let v = w_row4(nl);
    let kb = d + 4u * ((lid / 8u) % 2u);
    Bs[kb][nl / 4u][nl % 4u] = v.x;
    Bs[kb + 1u][nl / 4u][nl % 4u] = v.y;
    Bs[kb + 2u][nl / 4u][nl % 4u] = v.z;
    Bs[kb + 3u][nl / 4u][nl % 4u] = v.w;
}

fn store_c(m: u32, n: u32, v: vec4<f32>) {
    if (params.has_bias != 0u) {
        y4[(m * params.N + n) / 4u] = v + bias4[n / 4u];
    } else {
        y4[(m * params.N + n) / 4u] = v;
    }
}

@compute @workgroup_size(256)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
        @builtin(local_invocation_index) lid: u32) {
    let tile = tile_of(wid.y * nwg.x + wid.x, params.M, params.N);
    if (tile.z == 0u) {
        return;   // the folded grid's excess: uniform per workgroup
    }
    gemm_reg(tile.x, tile.y, params.M, params.N, params.K, lid);
}
