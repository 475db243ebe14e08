// q4vk: bindings=3 push=16
// linear_splitk_reduce.comp: the second pass of a split-K tiled GEMM
// (linear_q4gsw_tiled, linear_q4gsw_backward_tiled; see q4_gemm.glsl):
// out[i] = (P[0][i] + P[1][i] + ... + P[splits-1][i]) (+ bias[i % cols]).
// One invocation per vec4 of out, adding the slices in slice order, so the sum is
// the same bit for bit on every run (no atomics, no scheduling dependence).
#version 450
#extension GL_GOOGLE_include_directive : require
#include "q4_fold.glsl"

layout(local_size_x = 256) in;

layout(set = 0, binding = 0) readonly buffer P { vec4 p4[]; };       // [splits, rows, cols]
layout(set = 0, binding = 1) readonly buffer B { vec4 bias4[]; };    // [cols] (dummy if !has_bias)
layout(set = 0, binding = 2) writeonly buffer O { vec4 o4[]; };      // [rows, cols]

layout(push_constant) uniform Push {
    uint count4;     // rows * cols / 4: vec4 per slice
    uint cols4;      // cols / 4
    uint splits;
    uint has_bias;
} pc;

void main()
{
    uint i = q4_flat_group() * 256u + gl_LocalInvocationIndex;
    if (i >= pc.count4)
        return;
    vec4 v = p4[i];
    for (uint s = 1u; s < pc.splits; s++)
        v += p4[s * pc.count4 + i];
    if (pc.has_bias != 0u)
        v += bias4[i % pc.cols4];
    o4[i] = v;
}
