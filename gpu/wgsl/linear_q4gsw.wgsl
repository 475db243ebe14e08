// linear_q4gsw.wgsl: y[M,N] = x[M,K] @ dequant(W)^T (+ bias), the WebGPU kernel
// (docs/webgpu.md). One 32 (m) x 32 (n) tile of y per workgroup (gemm_tile.wgsl), K in
// steps of 32: each step stages 32 x 32 of x (one vec4 along K per load) and the 32
// W_4X8 blocks (8 rows x 4 K) that cover 32 n x 32 k, dequantized once into workgroup
// memory by two invocations per block. Rows n >= N (odd N4's padding) stage 0.
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

// r = m, c = n, t = k.
fn stage(r0: u32, c0: u32, t0: u32, lid: u32) {
    let K4 = params.K / 4u;
    // x: 32 m x 8 k-quads, 4 per invocation, transposed into As[k][m]
    for (var i = 0u; i < 4u; i++) {
        let e = lid + 64u * i;
        let ml = e / 8u;
        let kq = e % 8u;
        let m = r0 + ml;
        let k4 = t0 / 4u + kq;
        var v = vec4<f32>(0.0);
        if (m < params.M && k4 < K4) {
            v = x4[m * K4 + k4];
        }
        for (var j = 0u; j < 4u; j++) {
            As[(kq * 4u + j) * 8u + ml / 4u][ml % 4u] = v[j];
        }
    }
    stage_w(c0, t0, lid, true);
}

@compute @workgroup_size(64)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
        @builtin(local_invocation_index) lid: u32) {
    let tile = tile_of(wid.y * nwg.x + wid.x, params.M, params.N);
    if (tile.z == 0u) {
        return;   // the folded grid's excess: uniform per workgroup
    }
    let acc = gemm_tile(tile.x, tile.y, params.K, lid);
    let n = tile.y + 4u * (lid % 8u);
    if (n >= params.N) {
        return;
    }
    var b = vec4<f32>(0.0);
    if (params.has_bias != 0u) {
        b = bias4[n / 4u];
    }
    for (var i = 0u; i < 4u; i++) {
        let m = tile.x + 4u * (lid / 8u) + i;
        if (m < params.M) {
            if (params.has_bias != 0u) {
                y4[(m * params.N + n) / 4u] = acc[i] + b;
            } else {
                y4[(m * params.N + n) / 4u] = acc[i];
            }
        }
    }
}
