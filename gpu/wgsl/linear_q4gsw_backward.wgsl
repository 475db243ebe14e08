// linear_q4gsw_backward.wgsl: dx[M,K] = dout[M,N] @ dequant(W), the WebGPU kernel
// (docs/webgpu.md), for M above the gemv range. One BT (m) x BT (k) tile of dx per
// workgroup (gemm_tile.wgsl), N in steps of 16: each step stages BT x 16 of dout (one
// vec4 along N per load) and the W_4X8 blocks covering those 16 n x BT k, dequantized
// once, a row's four K values being one vec4 of workgroup memory. Rows n >= N (odd N4's
// padding) stage 0.
//!include q4_w4x8.wgsl
//!include gemm_tile.wgsl
//!include q4_w_tile.wgsl

struct Params { M: u32, N: u32, K: u32, gs: u32, N8: u32 }

@group(0) @binding(0) var<storage, read> dout4: array<vec4<f32>>;
@group(0) @binding(1) var<storage, read> w4: array<vec4<u32>>;
@group(0) @binding(2) var<storage, read> scales: array<f32>;
@group(0) @binding(3) var<storage, read_write> dx4: array<vec4<f32>>;
@group(0) @binding(8) var<uniform> params: Params;

// r = m, c = k, t = n. dout: BT m x 4 n-quads (one vec4 along N per unit), transposed
// into As[n][m].
var<private> d_reg: array<vec4<f32>, 2>;

fn fetch(r0: u32, c0: u32, t0: u32, lid: u32) {
    let N4 = params.N / 4u;
    for (var it = 0u; it < BT / 64u; it++) {
        let e = lid + it * WG;
        let m = r0 + e / 4u;
        let n4 = t0 / 4u + e % 4u;
        var v = vec4<f32>(0.0);
        if (m < params.M && n4 < N4) {
            v = dout4[m * N4 + n4];
        }
        d_reg[it] = v;
    }
    fetch_w(t0, c0, lid, false);
}

fn put(lid: u32) {
    let B4 = BT / 4u;
    for (var it = 0u; it < BT / 64u; it++) {
        let e = lid + it * WG;
        let ml = e / 4u;
        let nq = e % 4u;
        for (var j = 0u; j < 4u; j++) {
            As[(nq * 4u + j) * B4 + ml / 4u][ml % 4u] = d_reg[it][j];
        }
    }
    put_w(lid, false);
}

@compute @workgroup_size(WG)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
        @builtin(local_invocation_index) lid: u32) {
    let tile = tile_of(wid.y * nwg.x + wid.x, params.M, params.K);
    if (tile.z == 0u) {
        return;
    }
    let acc = gemm_tile(tile.x, tile.y, params.N, lid);
    for (var j = 0u; j < TR / 4u; j++) {
        let k = tile.y + tile_col(j, lid);
        if (k >= params.K) {
            continue;
        }
        for (var i = 0u; i < TR / 4u; i++) {
            for (var r = 0u; r < 4u; r++) {
                let m = tile.x + tile_row(i, r, lid);
                if (m < params.M) {
                    dx4[(m * params.K + k) / 4u] = acc[(i * 4u + r) * 2u + j];
                }
            }
        }
    }
}
