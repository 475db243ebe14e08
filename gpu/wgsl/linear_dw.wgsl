// linear_dw.wgsl: dW[N,K] = dout[M,N]^T @ x[M,K], dense fp32, the WebGPU kernel
// (docs/webgpu.md). One BT (n) x BT (k) tile of dW per workgroup (gemm_tile.wgsl), M in
// steps of 16: both operands are rows of M, so each staged vec4 (4 n of dout, 4 k of x)
// goes to workgroup memory as it is loaded.
//!include gemm_tile.wgsl

struct Params { M: u32, N: u32, K: u32 }

@group(0) @binding(0) var<storage, read> dout4: array<vec4<f32>>;
@group(0) @binding(1) var<storage, read> x4: array<vec4<f32>>;
@group(0) @binding(2) var<storage, read_write> dw4: array<vec4<f32>>;
@group(0) @binding(8) var<uniform> params: Params;

// r = n, c = k, t = m: BK m x BT/4 quads of each, stored as loaded.
var<private> a_reg: array<vec4<f32>, 2>;
var<private> b_reg: array<vec4<f32>, 2>;

fn fetch(r0: u32, c0: u32, t0: u32, lid: u32) {
    let N4 = params.N / 4u;
    let K4 = params.K / 4u;
    let B4 = BT / 4u;
    for (var it = 0u; it < BT / 64u; it++) {
        let e = lid + it * WG;
        let m = t0 + e / B4;
        let q = e % B4;
        var a = vec4<f32>(0.0);
        var b = vec4<f32>(0.0);
        if (m < params.M && r0 / 4u + q < N4) {
            a = dout4[m * N4 + r0 / 4u + q];
        }
        if (m < params.M && c0 / 4u + q < K4) {
            b = x4[m * K4 + c0 / 4u + q];
        }
        a_reg[it] = a;
        b_reg[it] = b;
    }
}

fn put(lid: u32) {
    for (var it = 0u; it < BT / 64u; it++) {
        let e = lid + it * WG;   // As[m][n quad], Bs[m][k quad]: index e itself
        As[e] = a_reg[it];
        Bs[e] = b_reg[it];
    }
}

@compute @workgroup_size(WG)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
        @builtin(local_invocation_index) lid: u32) {
    let tile = tile_of(wid.y * nwg.x + wid.x, params.N, params.K);
    if (tile.z == 0u) {
        return;
    }
    let acc = gemm_tile(tile.x, tile.y, params.M, lid);
    for (var j = 0u; j < TR / 4u; j++) {
        let k = tile.y + tile_col(j, lid);
        if (k >= params.K) {
            continue;
        }
        for (var i = 0u; i < TR / 4u; i++) {
            for (var r = 0u; r < 4u; r++) {
                let n = tile.x + tile_row(i, r, lid);
                if (n < params.N) {
                    dw4[(n * params.K + k) / 4u] = acc[(i * 4u + r) * 2u + j];
                }
            }
        }
    }
}
