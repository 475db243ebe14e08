// q4vk: bindings=3 push=20
// linear_dw_tiled.comp: dW[N,K] = dout[M,N]^T @ x[M,K], dense fp32. The tiled GEMM
// of q4_gemm.glsl with rows = N, cols = K, depth = M: A[n][m] = dout[m][n] and
// B[m][k] = x[m][k] are both fetched as vec4 along their contiguous dimension
// (N and K are multiples of 4) and stored to shared memory as they are
// (q4_gemm_tn.glsl); the depth M may be any size, so each depth row is bounds-checked
// on its own.
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

// A[n][m] = dout[m][n], B[m][k] = x[m][k]: both depth-major.
#define TN_A(i) d4[i]
#define TN_A_LD4 (pc.N / 4u)
#define TN_B(i) x4[i]
#define TN_B_LD4 (pc.K / 4u)
#include "q4_gemm_tn.glsl"

void store_c(uint slice, uint row, uint col, vec4 v)
{
    dw4[(row * pc.K + col) / 4u] = v;
}
