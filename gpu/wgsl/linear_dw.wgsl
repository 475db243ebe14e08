// linear_dw.wgsl: dW[N,K] = dout[M,N]^T @ x[M,K], dense fp32, the WebGPU kernel
// (docs/webgpu.md). One 128 (n) x 128 (k) tile of dW per workgroup (gemm_reg.wgsl), M
// in steps of 8: both operands are rows of M, so each invocation's vec4 (4 n of dout,
// 4 k of x) goes to workgroup memory as it was loaded.
//!include gemm_reg.wgsl

struct Params { M: u32, N: u32, K: u32 }

@group(0) @binding(0) var<storage, read> dout4: array<vec4<f32>>;
@group(0) @binding(1) var<storage, read> x4: array<vec4<f32>>;
@group(0) @binding(2) var<storage, read_write> dw4: array<vec4<f32>>;
@group(0) @binding(8) var<uniform> params: Params;

var<private> pa: vec4<f32>;
var<private> pb: vec4<f32>;

// r = n, c = k, d = m. Invocation lid: depth row lid / 32, quad lid % 32 of both.
fn fetch(r0: u32, c0: u32, d0: u32, lid: u32) {
    let N4 = params.N / 4u;
    let K4 = params.K / 4u;
    let m = d0 + lid / 32u;
    let q = lid % 32u;
    pa = vec4<f32>(0.0);
    pb = vec4<f32>(0.0);
    if (m < params.M && r0 / 4u + q < N4) {
        pa = dout4[m * N4 + r0 / 4u + q];
    }
    if (m < params.M && c0 / 4u + q < K4) {
        pb = x4[m * K4 + c0 / 4u + q];
    }
}

fn stage(d: u32, lid: u32) {
    As[d + lid / 32u][lid % 32u] = pa;
    Bs[d + lid / 32u][lid % 32u] = pb;
}

fn store_c(n: u32, k: u32, v: vec4<f32>) {
    dw4[(n * params.K + k) / 4u] = v;
}

@compute @workgroup_size(256)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
        @builtin(local_invocation_index) lid: u32) {
    let tile = tile_of(wid.y * nwg.x + wid.x, params.N, params.K);
    if (tile.z == 0u) {
        return;
    }
    gemm_reg(tile.x, tile.y, params.N, params.K, params.M, lid);
}
