// linear_q4gsw.wgsl: y[M,N] = x[M,K] @ dequant(W)^T (+ bias), the WebGPU kernel
// (docs/webgpu.md), for M above the gemv range. One BT (m) x BT (n) tile of y per
// workgroup (gemm_tile.wgsl), K in steps of 16: each step stages BT x 16 of x (one vec4
// along K per load) and the W_4X8 blocks (8 rows x 4 K) that cover BT n x 16 k,
// dequantized once into workgroup memory. Rows n >= N (odd N4's padding) stage 0.
//!include q4_w4x8.wgsl
//!include gemm_tile.wgsl
//!include q4_w_tile.wgsl

struct Params { M: u32, N: u32, K: u32, gs: u32, N8: u32, has_bias: u32 }

@group(0) @binding(0) var<storage, read> x4: array<vec4<f32>>;
@group(0) @binding(1) var<storage, read> w4: array<vec4<u32>>;
@group(0) @binding(2) var<storage, read> scales: array<f32>;
@group(0) @binding(3) var<storage, read> bias4: array<vec4<f32>>;
@group(0) @binding(4) var<storage, read_write> y4: array<vec4<f32>>;
@group(0) @binding(8) var<uniform> params: Params;

// r = m, c = n, t = k. x: BT m x 4 k-quads (one vec4 along K per unit), transposed
// into As[k][m].
var<private> x_reg: array<vec4<f32>, 2>;

fn fetch(r0: u32, c0: u32, t0: u32, lid: u32) {
    let K4 = params.K / 4u;
    for (var it = 0u; it < BT / 64u; it++) {
        let e = lid + it * WG;
        let m = r0 + e / 4u;
        let k4 = t0 / 4u + e % 4u;
        var v = vec4<f32>(0.0);
        if (m < params.M && k4 < K4) {
            v = x4[m * K4 + k4];
        }
        x_reg[it] = v;
    }
    fetch_w(c0, t0, lid, true);
}

fn put(lid: u32) {
    let B4 = BT / 4u;
    for (var it = 0u; it < BT / 64u; it++) {
        let e = lid + it * WG;
        let ml = e / 4u;
        let kq = e % 4u;
        for (var j = 0u; j < 4u; j++) {
            As[(kq * 4u + j) * B4 + ml / 4u][ml % 4u] = x_reg[it][j];
        }
    }
    put_w(lid, true);
}

@compute @workgroup_size(WG)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
        @builtin(local_invocation_index) lid: u32) {
    let tile = tile_of(wid.y * nwg.x + wid.x, params.M, params.N);
    if (tile.z == 0u) {
        return;   // the folded grid's excess: uniform per workgroup
    }
    let acc = gemm_tile(tile.x, tile.y, params.K, lid);
    for (var j = 0u; j < TR / 4u; j++) {
        let n = tile.y + tile_col(j, lid);
        if (n >= params.N) {
            continue;
        }
        var b = vec4<f32>(0.0);
        if (params.has_bias != 0u) {
            b = bias4[n / 4u];
        }
        for (var i = 0u; i < TR / 4u; i++) {
            for (var r = 0u; r < 4u; r++) {
                let m = tile.x + tile_row(i, r, lid);
                if (m < params.M) {
                    if (params.has_bias != 0u) {
                        y4[(m * params.N + n) / 4u] = acc[(i * 4u + r) * 2u + j] + b;
                    } else {
                        y4[(m * params.N + n) / 4u] = acc[(i * 4u + r) * 2u + j];
                    }
                }
            }
        }
    }
}
