// gemm_tile.wgsl: the tile loop the linear kernels share (pasted by "//!include"):
// a 32 x 32 tile of out[r][c] = sum_t A(r, t) * B(c, t) per workgroup of 64 invocations
// (8 x 8), each holding 4 rows x 4 columns in registers. A and B pass through workgroup
// memory 32 t at a time, as vec4 (4 rows of A, 4 columns of B), so the inner loop does
// two 16-byte loads per 16 multiply-adds. The including kernel defines
//   fn stage(r0: u32, c0: u32, t0: u32, lid: u32)
// which fills As[t][r / 4][r % 4] and Bs[t][c / 4][c % 4] for t in [t0, t0 + 32) (zero
// outside the tensors), and stores what gemm_tile returns. The sum's order is any
// (SPEC §3's bound holds for every order, fused or not).

const TILE = 32u;
var<workgroup> As: array<vec4<f32>, 256>;   // [32 t][8 row quads]
var<workgroup> Bs: array<vec4<f32>, 256>;   // [32 t][8 column quads]

// acc[i] is row 4 * (lid / 8) + i of the tile, columns 4 * (lid % 8) .. + 3.
fn gemm_tile(r0: u32, c0: u32, T: u32, lid: u32) -> array<vec4<f32>, 4> {
    let tr = lid / 8u;
    let tc = lid % 8u;
    var acc = array<vec4<f32>, 4>(vec4<f32>(0.0), vec4<f32>(0.0), vec4<f32>(0.0), vec4<f32>(0.0));
    for (var t0 = 0u; t0 < T; t0 += TILE) {
        stage(r0, c0, t0, lid);
        workgroupBarrier();
        for (var t = 0u; t < TILE; t++) {
            let a = As[t * 8u + tr];
            let b = Bs[t * 8u + tc];
            acc[0] += a.x * b;
            acc[1] += a.y * b;
            acc[2] += a.z * b;
            acc[3] += a.w * b;
        }
        workgroupBarrier();
    }
    return acc;
}

// The tile of a linear workgroup index: (row tile, column tile), or false past the end.
fn tile_of(id: u32, R: u32, C: u32) -> vec3<u32> {
    let ct = (C + TILE - 1u) / TILE;
    let rt = (R + TILE - 1u) / TILE;
    return vec3<u32>((id / ct) * TILE, (id % ct) * TILE, select(0u, 1u, id < rt * ct));
}
