// q4vk: bindings=5 push=40
// linear_q4gsw_backward_tiled.comp: dx[M,K] = dout[M,N] @ dequant(W), for M above the
// gemv range. The tiled GEMM of q4_gemm.glsl with rows = M, cols = K, depth = N:
// A = dout (rows m, N contiguous, fetched as vec4 and stored as it is: K-major),
// B[n][k] = W[n][k], fetched as word pairs (2 words = 4 rows x 4 K, with one vec4 of
// their group's scales) and dequantized while being staged. BK must be a multiple
// of 8 (one block of rows). Split over N (splits > 1), each slice writes its partial dx to P[slice]
// and linear_splitk_reduce adds them; P is not touched otherwise.
#version 450
#extension GL_EXT_control_flow_attributes : require
#extension GL_GOOGLE_include_directive : require

layout(set = 0, binding = 0) readonly buffer D { vec4 d4[]; };       // dout [M, N]
layout(set = 0, binding = 1) readonly buffer W { uvec2 w2[]; };      // W_4X8
layout(set = 0, binding = 2) readonly buffer S { vec4 s4[]; };       // [K/gs, N]
layout(set = 0, binding = 3) writeonly buffer DX { vec4 dx4[]; };    // [M, K]
layout(set = 0, binding = 4) writeonly buffer P { vec4 p4[]; };      // [splits, M, K]

layout(push_constant) uniform Push {   // as linear_q4gsw_tiled
    uint M, N, K, gs, N8, unused, tiles_n, tiles_total, splits, split_depth;
} pc;

#define G_ROWS pc.M
#define G_COLS pc.K
#define G_DEPTH pc.N
#define G_TILES_N pc.tiles_n
#define G_TILES_TOTAL pc.tiles_total
#define G_SPLITS pc.splits
#define G_SPLIT_DEPTH pc.split_depth
#define Q4_GEMM_A_KMAJOR
#include "q4_gemm.glsl"
#include "q4_w4x8.glsl"

// A: BM rows x BK/4 vec4 along N.
const uint A_UNITS = BM * BK / 4;
const uint A_IT = (A_UNITS + WG - 1) / WG;
vec4 a_reg[A_IT];

void fetch_a(uint row0, uint d0)
{
    uint N4 = pc.N / 4u;
    [[unroll]] for (uint it = 0; it < A_IT; it++) {
        uint u = gl_LocalInvocationIndex + it * WG;
        uint row = row0 + u / (BK / 4u);
        uint n4 = d0 / 4u + u % (BK / 4u);
        a_reg[it] = (u < A_UNITS && row < pc.M && n4 < N4) ? d4[row * N4 + n4] : vec4(0.0);
    }
}

void stage_a(uint buf)
{
    [[unroll]] for (uint it = 0; it < A_IT; it++) {
        uint u = gl_LocalInvocationIndex + it * WG;
        if (u < A_UNITS)
            as_store_k(buf, u / (BK / 4u), u % (BK / 4u), a_reg[it]);
    }
}

// B: word pairs (comps 2h, 2h+1 of a block: rows n..n+3 x 4 K), BN/4 (k4) x BK/8
// (n8) x 2 (h); consecutive invocations read consecutive word pairs of the tile's
// blocks in one k4 row. Pairs instead of single words: half the units, one vec4 of
// scales each (docs/perf.md, the q4 GEMMs' staging: part of the measured BK 16 kernel).
const uint B_UNITS = BK * BN / 16;
const uint B_IT = (B_UNITS + WG - 1) / WG;
uvec2 b_w[B_IT];
vec4 b_s[B_IT];

void fetch_b(uint col0, uint d0)
{
    uint K4 = pc.K / 4u;
    [[unroll]] for (uint it = 0; it < B_IT; it++) {
        uint u = gl_LocalInvocationIndex + it * WG;
        uint h = u % 2u, n8l = (u / 2u) % (BK / 8u), k4l = u / (BK / 4u);
        uint n = d0 + 8u * n8l + 4u * h;     // first of the 4 rows; N % 4 == 0
        uint k4 = col0 / 4u + k4l;
        // Rows >= N (odd-N4 padding, or past the last step) are never read.
        if (u < B_UNITS && n < pc.N && k4 < K4) {
            uint g = (4u * k4) / pc.gs;
            b_w[it] = w2[2u * (k4 * pc.N8 + n / 8u) + h];
            b_s[it] = s4[(g * pc.N + n) / 4u];
        } else {
            b_w[it] = uvec2(0u);
            b_s[it] = vec4(0.0);
        }
    }
}

void stage_b(uint buf)
{
    [[unroll]] for (uint it = 0; it < B_IT; it++) {
        uint u = gl_LocalInvocationIndex + it * WG;
        if (u < B_UNITS) {
            uint h = u % 2u, n8l = (u / 2u) % (BK / 8u), k4l = u / (BK / 4u);
            uint nn = 8u * n8l + 4u * h;
            uvec2 hw = b_w[it] >> 16u;
            bs_store4(buf, nn, k4l, q4_row4_h(b_w[it].x, hw.x, 0u) * b_s[it].x);
            bs_store4(buf, nn + 1u, k4l, q4_row4_h(b_w[it].x, hw.x, 1u) * b_s[it].y);
            bs_store4(buf, nn + 2u, k4l, q4_row4_h(b_w[it].y, hw.y, 0u) * b_s[it].z);
            bs_store4(buf, nn + 3u, k4l, q4_row4_h(b_w[it].y, hw.y, 1u) * b_s[it].w);
        }
    }
}

void store_c(uint slice, uint row, uint col, vec4 v)
{
    if (pc.splits > 1u)
        p4[((slice * pc.M + row) * pc.K + col) / 4u] = v;
    else
        dx4[(row * pc.K + col) / 4u] = v;
}
