// linear_dw.wgsl: dW[N,K] = dout[M,N]^T @ x[M,K], dense fp32, the WebGPU kernel
// (docs/webgpu.md). One 32 (n) x 32 (k) tile of dW per workgroup (gemm_tile.wgsl), M in
// steps of 32: both operands are rows of M, so each staged vec4 (4 n of dout, 4 k of x)
// goes to workgroup memory as it is loaded.
//!include gemm_tile.wgsl

struct Params { M: u32, N: u32, K: u32 }

@group(0) @binding(0) var<storage, read> dout4: array<vec4<f32>>;
@group(0) @binding(1) var<storage, read> x4: array<vec4<f32>>;
@group(0) @binding(2) var<storage, read_write> dw4: array<vec4<f32>>;
@group(0) @binding(8) var<uniform> params: Params;

// r = n, c = k, t = m.
fn stage(r0: u32, c0: u32, t0: u32, lid: u32) {
    let N4 = params.N / 4u;
    let K4 = params.K / 4u;
    for (var i = 0u; i < 4u; i++) {
        let e = lid + 64u * i;
        let ml = e / 8u;
        let q = e % 8u;
        let m = t0 + ml;
        var a = vec4<f32>(0.0);
        var b = vec4<f32>(0.0);
        if (m < params.M && r0 / 4u + q < N4) {
            a = dout4[m * N4 + r0 / 4u + q];
        }
        if (m < params.M && c0 / 4u + q < K4) {
            b = x4[m * K4 + c0 / 4u + q];
        }
        As[ml * 8u + q] = a;
        Bs[ml * 8u + q] = b;
    }
}

@compute @workgroup_size(64)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
        @builtin(local_invocation_index) lid: u32) {
    let tile = tile_of(wid.y * nwg.x + wid.x, params.N, params.K);
    if (tile.z == 0u) {
        return;
    }
    let acc = gemm_tile(tile.x, tile.y, params.M, lid);
    let k = tile.y + 4u * (lid % 8u);
    if (k >= params.K) {
        return;
    }
    for (var i = 0u; i < 4u; i++) {
        let n = tile.x + 4u * (lid / 8u) + i;
        if (n < params.N) {
            dw4[(n * params.K + k) / 4u] = acc[i];
        }
    }
}
