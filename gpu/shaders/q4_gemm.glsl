// q4_gemm.glsl: the tiled fp32 GEMM core shared by linear_q4gsw_tiled,
// linear_q4gsw_backward_tiled, linear_dw_tiled and linear_tn_tiled. Include-only.
//
// C[rows, cols] = A[rows, depth] @ B[depth, cols]. One workgroup computes one BM x BN
// tile of C; each invocation keeps a TM x TN block of it in registers. The depth runs
// in steps of BK through two shared-memory buffers: while the tile of step t is
// multiplied out of one buffer, the invocations fetch step t+1 from global memory
// into registers and then store it, dequantized where B is a packed weight, into the
// other buffer, so one barrier per step suffices.
//
// An invocation's rows are TM/4 groups of 4 at stride 4*WM and its columns TN/4
// groups of 4 at stride 4*WN, so a subgroup's shared-memory reads of A are
// broadcasts and its reads of B are contiguous (no bank conflicts). The products are
// accumulated with fma(): one rounding per term, which the dot-product bound allows
// (SPEC §3), and a single instruction however the driver treats a*b+c.
//
// Split-K: with few output tiles (M = 512 gives 4 rows of 128-row tiles) a large GPU
// runs out of workgroups long before it runs out of depth. The depth is then cut
// into G_SPLITS slices of G_SPLIT_DEPTH (a multiple of BK, so no step straddles two
// slices); the grid holds G_TILES_TOTAL tiles per slice, slice-major, and store_c
// gets the slice so that the kernel writes each slice's partial tile to a scratch
// buffer. A second pass (linear_splitk_reduce) adds the slices in slice order, so
// the result does not depend on scheduling. With G_SPLITS = 1 it is the plain GEMM.
//
// Two layouts of A in shared memory, chosen by the including kernel:
//   default            [depth][rows]: A's tile as dW and linear_tn_tiled read it from
//                      memory (depth-major), stored by as_store4; the inner loop takes
//                      one depth per A load (a vec4 of 4 rows).
//   Q4_GEMM_A_KMAJOR   [rows][depth] ("K-major", the depth being the GEMM's K): A's
//                      tile as the q4 forward and backward read it (x and dout are
//                      depth-contiguous), stored by as_store_k as it is, with no
//                      transpose; the inner loop loads 4 depths of B, then one vec4 of
//                      A per row (4 depths). Against the transposed staging (4 scalar
//                      stores per vec4, 2-way bank conflicts) it took the H200's
//                      M = 512..4096 shapes from 58-67% to 68-70% of the FMA rate
//                      (forward) and from 49-65% to 69-70% (backward at BK 16;
//                      docs/perf.md, the q4 GEMMs' staging). Its row stride BK/4 + 1 is odd, so
//                      rows 4 apart (one subgroup's) fall in other banks.
// Both sum each output's terms in the same order (depth ascending, one fma each), so
// the layout changes no result.
//
// The including kernel defines, before #include:
//   G_ROWS, G_COLS, G_DEPTH     the GEMM shape (cols a multiple of 4)
//   G_TILES_N, G_TILES_TOTAL    tiles along cols, and in all (per slice; the grid,
//                               G_TILES_TOTAL * G_SPLITS groups, may be folded)
//   G_SPLITS, G_SPLIT_DEPTH     depth slices and depth per slice (1 and G_DEPTH: no split)
//   Q4_GEMM_A_KMAJOR            (optional) A's K-major layout, above
// and, after, these hooks (prototypes below):
//   fetch_a(row0, d0) / fetch_b(col0, d0): global -> registers for the step at d0,
//       zero where out of bounds, never reading past a buffer;
//   stage_a(buf) / stage_b(buf): registers -> shared buffer `buf` with as_store4 (or
//       as_store_k) and bs_store4;
//   store_c(slice, row, col, v): writes slice `slice`'s C[row][col..col+3] (in bounds,
//       called exactly once per slice).
#ifndef Q4_GEMM_GLSL
#define Q4_GEMM_GLSL

#include "q4_fold.glsl"

// Tile shape, chosen by the launcher from the device limits. The workgroup size
// (local_size_x_id = 0) must be set to WG = (BM/TM) * (BN/TN).
layout(local_size_x_id = 0) in;
layout(constant_id = 1) const uint BM = 64;   // rows of C per workgroup
layout(constant_id = 2) const uint BN = 64;   // cols of C per workgroup
layout(constant_id = 3) const uint BK = 16;   // depth per step (a multiple of 8)
layout(constant_id = 4) const uint TM = 4;    // rows per invocation (a multiple of 4)
layout(constant_id = 5) const uint TN = 4;    // cols per invocation (a multiple of 4)

const uint WM = BM / TM;          // invocations along rows
const uint WN = BN / TN;          // invocations along cols
const uint WG = WM * WN;
// Rows of the shared tiles are padded by one vec4 so that column-wise stores by
// consecutive invocations fall in different banks.
const uint BMP4 = BM / 4 + 1;
const uint BNP4 = BN / 4 + 1;

#ifdef Q4_GEMM_A_KMAJOR
const uint AKP = BK / 4 + 1;      // vec4 per row of A (BK/4 along the depth, padded)
shared vec4 As[2 * BM * AKP];     // [buf][rows][depth]
#else
shared vec4 As[2 * BK * BMP4];    // [buf][depth][rows]
#endif
shared vec4 Bs[2 * BK * BNP4];    // [buf][depth][cols]

void fetch_a(uint row0, uint d0);
void fetch_b(uint col0, uint d0);
void stage_a(uint buf);
void stage_b(uint buf);
void store_c(uint slice, uint row, uint col, vec4 v);

#ifdef Q4_GEMM_A_KMAJOR
void as_store_k(uint buf, uint mm, uint k4, vec4 v)   // A[mm][4*k4 .. 4*k4+3]
{
    As[(buf * BM + mm) * AKP + k4] = v;
}
#else
void as_store4(uint buf, uint kk, uint mm4, vec4 v)   // A[4*mm4 .. 4*mm4+3][kk]
{
    As[(buf * BK + kk) * BMP4 + mm4] = v;
}
#endif
void bs_store4(uint buf, uint kk, uint nn4, vec4 v)
{
    Bs[(buf * BK + kk) * BNP4 + nn4] = v;
}

void main()
{
    // Folded grid (q4_fold.glsl): the flat tile index; the excess groups do nothing.
    uint gid = q4_flat_group();
    if (gid >= G_TILES_TOTAL * G_SPLITS)
        return;
    uint slice = gid / G_TILES_TOTAL;
    gid -= slice * G_TILES_TOTAL;
    uint row0 = (gid / G_TILES_N) * BM;
    uint col0 = (gid % G_TILES_N) * BN;
    uint tid = gl_LocalInvocationIndex;
    uint tx = tid % WN, ty = tid / WN;

    vec4 acc[TM][TN / 4];
    [[unroll]] for (uint i = 0; i < TM; i++)
        [[unroll]] for (uint j = 0; j < TN / 4; j++)
            acc[i][j] = vec4(0.0);

    // This slice's depth [d_first, d_first + steps * BK), the last step clamped by the
    // fetches' bounds checks against G_DEPTH.
    uint d_first = slice * G_SPLIT_DEPTH;
    uint steps = (min(G_DEPTH - d_first, G_SPLIT_DEPTH) + BK - 1u) / BK;
    fetch_a(row0, d_first);
    fetch_b(col0, d_first);
    stage_a(0u);
    stage_b(0u);
    barrier();

    for (uint t = 0u; t < steps; t++) {
        uint cur = t & 1u;
        bool more = t + 1u < steps;
        if (more) {
            // Issued before the arithmetic so that the loads overlap it.
            fetch_a(row0, d_first + (t + 1u) * BK);
            fetch_b(col0, d_first + (t + 1u) * BK);
        }
#ifdef Q4_GEMM_A_KMAJOR
        [[unroll]] for (uint kq = 0; kq < BK / 4u; kq++) {
            vec4 b[4][TN / 4];
            [[unroll]] for (uint e = 0; e < 4; e++)
                [[unroll]] for (uint j = 0; j < TN / 4; j++)
                    b[e][j] = Bs[(cur * BK + 4u * kq + e) * BNP4 + j * WN + tx];
            [[unroll]] for (uint i = 0; i < TM / 4; i++)
                [[unroll]] for (uint r = 0; r < 4; r++) {
                    vec4 a = As[(cur * BM + (i * WM + ty) * 4u + r) * AKP + kq];
                    [[unroll]] for (uint e = 0; e < 4; e++)
                        [[unroll]] for (uint j = 0; j < TN / 4; j++)
                            acc[i * 4 + r][j] = fma(vec4(a[e]), b[e][j], acc[i * 4 + r][j]);
                }
        }
#else
        [[unroll]] for (uint kk = 0; kk < BK; kk++) {
            vec4 a[TM / 4];
            vec4 b[TN / 4];
            [[unroll]] for (uint i = 0; i < TM / 4; i++)
                a[i] = As[(cur * BK + kk) * BMP4 + i * WM + ty];
            [[unroll]] for (uint j = 0; j < TN / 4; j++)
                b[j] = Bs[(cur * BK + kk) * BNP4 + j * WN + tx];
            [[unroll]] for (uint i = 0; i < TM / 4; i++)
                [[unroll]] for (uint r = 0; r < 4; r++)
                    [[unroll]] for (uint j = 0; j < TN / 4; j++)
                        acc[i * 4 + r][j] = fma(vec4(a[i][r]), b[j], acc[i * 4 + r][j]);
        }
#endif
        // The other buffer was last read in step t-1, which every invocation has
        // finished (barrier at the end of t-1); the barrier below publishes it.
        if (more) {
            stage_a(cur ^ 1u);
            stage_b(cur ^ 1u);
        }
        barrier();
    }

    [[unroll]] for (uint i = 0; i < TM / 4; i++) {
        [[unroll]] for (uint r = 0; r < 4; r++) {
            uint row = row0 + (i * WM + ty) * 4u + r;
            if (row >= G_ROWS)
                continue;
            [[unroll]] for (uint j = 0; j < TN / 4; j++) {
                uint col = col0 + (j * WN + tx) * 4u;
                if (col < G_COLS)
                    store_c(slice, row, col, acc[i * 4 + r][j]);
            }
        }
    }
}

#endif
