// gemm_tile.wgsl: the tile loop the linear kernels share (pasted by "//!include"), the
// staging of GLSL's q4_gemm.glsl: a BT x BT tile of out[r][c] = sum_t A(r, t) * B(c, t)
// per workgroup of 256 invocations (16 x 16), each holding TR x TR outputs in registers
// (TR = 4: 64 x 64 tiles; TR = 8: 128 x 128, where there are enough tiles to fill the
// GPU: ops.mjs picks it). An invocation's rows are TR/4 quads at stride 64 rows and its
// columns TR/4 quads at stride 64, so a subgroup's workgroup-memory reads of A are
// broadcasts and of B contiguous. A and B pass through workgroup memory BK = 16 t at a
// time, as vec4 (4 rows of A, 4 columns of B). As GLSL's, the loads of step t + 1 are
// issued into registers before step t's arithmetic, so that they overlap it; they go
// to workgroup memory after it (single-buffered: 16 KiB, WebGPU's default limit, holds
// one 128 x 128 step). The including kernel defines
//   fn fetch(r0: u32, c0: u32, t0: u32, lid: u32)   global -> its private registers
//   fn put(lid: u32)                                registers -> As, Bs
// which together fill As[t * BT/4 + r / 4][r % 4] and Bs[t * BT/4 + c / 4][c % 4] for t
// in [t0, t0 + BK) (zero outside the tensors), and stores what gemm_tile returns. Each
// output's terms are added in t order, one fma() each, as GLSL's q4_gemm.glsl (WGSL's
// fma may still round the product: SPEC §3's bound counts that rounding, in any order).

override TR: u32 = 4u;          // rows and columns per invocation: 4 or 8
override BT: u32 = 16u * TR;    // the tile's rows and columns
const BK = 16u;                 // t per step: whole W_4X8 blocks along K or N
const WG = 256u;
var<workgroup> As: array<vec4<f32>, 512>;   // [BK t][BT / 4 row quads]
var<workgroup> Bs: array<vec4<f32>, 512>;   // [BK t][BT / 4 column quads]

// acc[(i * 4 + r) * 2 + j] is row tile_row(i, r, lid), columns tile_col(j, lid) .. + 3.
fn tile_row(i: u32, r: u32, lid: u32) -> u32 {
    return (i * 16u + lid / 16u) * 4u + r;
}
fn tile_col(j: u32, lid: u32) -> u32 {
    return (j * 16u + lid % 16u) * 4u;
}

fn gemm_tile(r0: u32, c0: u32, T: u32, lid: u32) -> array<vec4<f32>, 16> {
    let tr = lid / 16u;
    let tc = lid % 16u;
    let Q = TR / 4u;
    let B4 = BT / 4u;
    var acc: array<vec4<f32>, 16>;
    fetch(r0, c0, 0u, lid);
    for (var t0 = 0u; t0 < T; t0 += BK) {
        put(lid);
        workgroupBarrier();
        if (t0 + BK < T) {
            fetch(r0, c0, t0 + BK, lid);
        }
        for (var t = 0u; t < BK; t++) {
            var a: array<vec4<f32>, 2>;
            var b: array<vec4<f32>, 2>;
            for (var i = 0u; i < Q; i++) {
                a[i] = As[t * B4 + i * 16u + tr];
                b[i] = Bs[t * B4 + i * 16u + tc];
            }
            for (var i = 0u; i < Q; i++) {
                for (var j = 0u; j < Q; j++) {
                    let o = i * 8u + j;   // (i * 4 + r) * 2 + j at r = 0
                    acc[o] = fma(vec4<f32>(a[i].x), b[j], acc[o]);
                    acc[o + 2u] = fma(vec4<f32>(a[i].y), b[j], acc[o + 2u]);
                    acc[o + 4u] = fma(vec4<f32>(a[i].z), b[j], acc[o + 4u]);
                    acc[o + 6u] = fma(vec4<f32>(a[i].w), b[j], acc[o + 6u]);
                }
            }
        }
        workgroupBarrier();
    }
    return acc;
}

// The tile of a linear workgroup index: (row 0, column 0, 1), or z = 0 past the end.
fn tile_of(id: u32, R: u32, C: u32) -> vec3<u32> {
    let ct = (C + BT - 1u) / BT;
    let rt = (R + BT - 1u) / BT;
    return vec3<u32>((id / ct) * BT, (id % ct) * BT, select(0u, 1u, id < rt * ct));
}
