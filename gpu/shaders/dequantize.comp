// q4vk: bindings=3 push=20
// dequantize.comp: Wf[N,K] = (code - 8) * scale from W_4X8 (SPEC §1). One invocation
// per word = one row pair x 4 K: it writes one vec4 to each of the two rows.
// Invocations run along K fastest, so a subgroup's writes are contiguous in a row;
// its word reads are strided but each 32-byte sector serves four row pairs from
// cache. Rows >= N (odd-N4 padding words) have no invocation.
#version 450
#extension GL_GOOGLE_include_directive : require
#include "q4_w4x8.glsl"

layout(local_size_x = 256) in;

layout(set = 0, binding = 0) readonly buffer W { uint w1[]; };       // W_4X8
layout(set = 0, binding = 1) readonly buffer S { vec2 s2[]; };       // [K/gs, N]
layout(set = 0, binding = 2) writeonly buffer O { vec4 o4[]; };      // [N, K]

layout(push_constant) uniform P {
    uint N, K, gs, N8;
    uint total;      // (N/2) * (K/4) invocations that do work (the grid may be folded)
} pc;

void main()
{
    uint gid = gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x;
    uint i = gid * 256u + gl_LocalInvocationIndex;
    if (i >= pc.total)
        return;
    uint K4 = pc.K / 4u;
    uint k4 = i % K4, n = 2u * (i / K4);   // even row of the pair
    uint word = w1[q4_word_index(k4, n / 8u, (n / 2u) % 4u, pc.N8)];
    uint g = (4u * k4) / pc.gs;
    vec2 s = s2[(g * pc.N + n) / 2u];
    o4[n * K4 + k4] = q4_row4(word, 0u) * s.x;
    o4[(n + 1u) * K4 + k4] = q4_row4(word, 1u) * s.y;
}
