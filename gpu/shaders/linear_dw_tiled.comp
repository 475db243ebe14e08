// q4vk: bindings=3 push=20
// linear_dw_tiled.comp: dW[N,K] = dout[M,N]^T @ x[M,K], dense fp32. The tiled GEMM
// of q4_gemm.glsl with rows = N, cols = K, depth = M: A[n][m] = dout[m][n] and
// B[m][k] = x[m][k] are both fetched as vec4 along their contiguous dimension
// (N and K are multiples of 4) and stored to shared memory as they are; the depth
// M may be any size, so each depth row is bounds-checked on its own.
#version 450
#extension GL_EXT_control_flow_attributes : require
#extension GL_GOOGLE_include_directive : require

layout(set = 0, binding = 0) readonly buffer D { vec4 d4[]; };       // dout [M, N]
layout(set = 0, binding = 1) readonly buffer X { vec4 x4[]; };       // x [M, K]
layout(set = 0, binding = 2) writeonly buffer DW { vec4 dw4[]; };    // dW [N, K]

layout(push_constant) uniform P {
    uint M, N, K, tiles_n, tiles_total;
} pc;

#define G_ROWS pc.N
#define G_COLS pc.K
#define G_DEPTH pc.M
#define G_TILES_N pc.tiles_n
#define G_TILES_TOTAL pc.tiles_total
#define G_SPLITS 1u                   // dW has depth M and enough tiles: never split
#define G_SPLIT_DEPTH pc.M
#include "q4_gemm.glsl"

// A: BK depth rows (m) x BM/4 vec4 along N.
const uint A_UNITS = BM * BK / 4;
const uint A_IT = (A_UNITS + WG - 1) / WG;
vec4 a_reg[A_IT];

void fetch_a(uint row0, uint d0)
{
    uint N4 = pc.N / 4u;
    [[unroll]] for (uint it = 0; it < A_IT; it++) {
        uint u = gl_LocalInvocationIndex + it * WG;
        uint m = d0 + u / (BM / 4u);
        uint n4 = row0 / 4u + u % (BM / 4u);
        a_reg[it] = (u < A_UNITS && m < pc.M && n4 < N4) ? d4[m * N4 + n4] : vec4(0.0);
    }
}

void stage_a(uint buf)
{
    [[unroll]] for (uint it = 0; it < A_IT; it++) {
        uint u = gl_LocalInvocationIndex + it * WG;
        if (u < A_UNITS)
            as_store4(buf, u / (BM / 4u), u % (BM / 4u), a_reg[it]);
    }
}

// B: BK depth rows (m) x BN/4 vec4 along K.
const uint B_UNITS = BN * BK / 4;
const uint B_IT = (B_UNITS + WG - 1) / WG;
vec4 b_reg[B_IT];

void fetch_b(uint col0, uint d0)
{
    uint K4 = pc.K / 4u;
    [[unroll]] for (uint it = 0; it < B_IT; it++) {
        uint u = gl_LocalInvocationIndex + it * WG;
        uint m = d0 + u / (BN / 4u);
        uint k4 = col0 / 4u + u % (BN / 4u);
        b_reg[it] = (u < B_UNITS && m < pc.M && k4 < K4) ? x4[m * K4 + k4] : vec4(0.0);
    }
}

void stage_b(uint buf)
{
    [[unroll]] for (uint it = 0; it < B_IT; it++) {
        uint u = gl_LocalInvocationIndex + it * WG;
        if (u < B_UNITS)
            bs_store4(buf, u / (BN / 4u), u % (BN / 4u), b_reg[it]);
    }
}

void store_c(uint slice, uint row, uint col, vec4 v)
{
    dw4[(row * pc.K + col) / 4u] = v;
}
