// q4vk: bindings=6 push=40
// linear_q4gsw_tiled.comp: y[M,N] = x[M,K] @ dequant(W)^T (+ bias), for M above the
// gemv range. The tiled GEMM of q4_gemm.glsl with rows = M, cols = N, depth = K:
// A = x (rows m, K contiguous, fetched as vec4 and stored as it is: K-major),
// B[k][n] = W[n][k], fetched as half blocks (two words = 4 rows x 4 K) and
// dequantized with their group's scales while being staged. Split over K (splits > 1),
// each slice writes its partial y to P[slice] and linear_splitk_reduce adds them and
// the bias; P is not touched otherwise (the launcher binds any buffer there).
#version 450
#extension GL_EXT_control_flow_attributes : require
#extension GL_GOOGLE_include_directive : require

layout(set = 0, binding = 0) readonly buffer X { vec4 x4[]; };       // [M, K]
layout(set = 0, binding = 1) readonly buffer W { uvec2 w2[]; };      // W_4X8
layout(set = 0, binding = 2) readonly buffer S { vec4 s4[]; };       // [K/gs, N]
layout(set = 0, binding = 3) readonly buffer B { vec4 bias4[]; };    // [N] (dummy if !has_bias)
layout(set = 0, binding = 4) writeonly buffer Y { vec4 y4[]; };      // [M, N]
layout(set = 0, binding = 5) writeonly buffer P { vec4 p4[]; };      // [splits, M, N]

layout(push_constant) uniform Push {
    uint M, N, K, gs, N8, has_bias, tiles_n, tiles_total, splits, split_depth;
} pc;

#define G_ROWS pc.M
#define G_COLS pc.N
#define G_DEPTH pc.K
#define G_TILES_N pc.tiles_n
#define G_TILES_TOTAL pc.tiles_total
#define G_SPLITS pc.splits
#define G_SPLIT_DEPTH pc.split_depth
#define Q4_GEMM_A_KMAJOR
#include "q4_gemm.glsl"
#include "q4_w4x8.glsl"

// A: BM rows x BK/4 vec4 along K.
const uint A_UNITS = BM * BK / 4;
const uint A_IT = (A_UNITS + WG - 1) / WG;
vec4 a_reg[A_IT];

void fetch_a(uint row0, uint d0)
{
    uint K4 = pc.K / 4u;
    [[unroll]] for (uint it = 0; it < A_IT; it++) {
        uint u = gl_LocalInvocationIndex + it * WG;
        uint row = row0 + u / (BK / 4u);
        uint k4 = d0 / 4u + u % (BK / 4u);
        a_reg[it] = (u < A_UNITS && row < pc.M && k4 < K4) ? x4[row * K4 + k4] : vec4(0.0);
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

// B: half blocks, BK/4 (k4) x BN/8 (n8) x 2 (halves); consecutive invocations read
// consecutive words of one k4 row of blocks.
const uint B_UNITS = BK * BN / 16;
const uint B_IT = (B_UNITS + WG - 1) / WG;
uvec2 b_w[B_IT];
vec4 b_s[B_IT];

void fetch_b(uint col0, uint d0)
{
    uint K4 = pc.K / 4u;
    [[unroll]] for (uint it = 0; it < B_IT; it++) {
        uint u = gl_LocalInvocationIndex + it * WG;
        uint h = u % 2u, n8l = (u / 2u) % (BN / 8u), k4l = u / (BN / 4u);
        uint n = col0 + 8u * n8l + 4u * h;   // first of the 4 rows; N % 4 == 0
        uint k4 = d0 / 4u + k4l;
        // Rows >= N (the padding half of an odd-N4 block, or past the tile) are never
        // read: zero scale and zero codes instead.
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
            uint h = u % 2u, n8l = (u / 2u) % (BN / 8u), k4l = u / (BN / 4u);
            [[unroll]] for (uint b = 0; b < 4; b++)
                bs_store4(buf, 4u * k4l + b, 2u * n8l + h, q4_col4(b_w[it], b) * b_s[it]);
        }
    }
}

void store_c(uint slice, uint row, uint col, vec4 v)
{
    if (pc.splits > 1u) {
        p4[((slice * pc.M + row) * pc.N + col) / 4u] = v;
        return;
    }
    if (pc.has_bias != 0u)
        v += bias4[col / 4u];
    y4[(row * pc.N + col) / 4u] = v;
}
