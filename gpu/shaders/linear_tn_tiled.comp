// q4vk: bindings=5 push=40
// linear_tn_tiled.comp: out[M, C] = P^T @ Q (+ bias) for fp32 P [D, Mp] and Q [D, C],
// both depth-major (Mp = M rounded up to 4; P's columns M..Mp-1 are never stored
// anywhere they matter: they feed rows >= M only). The GEMM of the dense path of
// linear_q4gsw and its backward (gpu/q4vk_op_linear_dense.c) on operands its earlier
// passes prepared: P is x or dout transposed (linear_transpose), Q the weight
// dequantized (dequantize_t: W^T for the forward; dequantize: W for the backward). Staged like linear_dW's
// operands (q4_gemm_tn.glsl: plain vec4 stores). Split over D (splits > 1) as
// linear_q4gsw_tiled: each slice writes its partial out to PT[slice] and
// linear_splitk_reduce adds them and the bias; PT is not touched otherwise.
#version 450
#extension GL_EXT_control_flow_attributes : require
#extension GL_GOOGLE_include_directive : require

layout(set = 0, binding = 0) readonly buffer PA { vec4 pa4[]; };     // P [D, Mp]
layout(set = 0, binding = 1) readonly buffer QB { vec4 qb4[]; };     // Q [D, C]
layout(set = 0, binding = 2) readonly buffer B { vec4 bias4[]; };    // [C] (dummy if !has_bias)
layout(set = 0, binding = 3) writeonly buffer O { vec4 o4[]; };      // out [M, C]
layout(set = 0, binding = 4) writeonly buffer PT { vec4 pt4[]; };    // [splits, M, C]

// The layout of linear_q4gsw_tiled's block (the launcher's q4vk_lin_push: N = C,
// K = D, gs = Mp).
layout(push_constant) uniform Push {
    uint M, C, D, Mp, unused, has_bias, tiles_n, tiles_total, splits, split_depth;
} pc;

#define G_ROWS pc.M
#define G_COLS pc.C
#define G_DEPTH pc.D
#define G_TILES_N pc.tiles_n
#define G_TILES_TOTAL pc.tiles_total
#define G_SPLITS pc.splits
#define G_SPLIT_DEPTH pc.split_depth
#include "q4_gemm.glsl"

#define TN_A(i) pa4[i]
#define TN_A_LD4 (pc.Mp / 4u)
#define TN_B(i) qb4[i]
#define TN_B_LD4 (pc.C / 4u)
#include "q4_gemm_tn.glsl"

void store_c(uint slice, uint row, uint col, vec4 v)
{
    if (pc.splits > 1u) {
        pt4[((slice * pc.M + row) * pc.C + col) / 4u] = v;
        return;
    }
    if (pc.has_bias != 0u)
        v += bias4[col / 4u];
    o4[(row * pc.C + col) / 4u] = v;
}
