// q4vk: bindings=2 push=8
// ceiling_copy.comp: a device-local vec4 copy, dst = src, whose rate is the device's
// measured memory-bandwidth ceiling for perf mode (q4vk_measure_ceilings).
// Folded grid (q4_fold.glsl): flat group = (z * gridY + y) * gridX + x; each invocation
// copies `per` vec4s, strided by the whole grid so that every access of a warp is coalesced.
#version 450
#extension GL_GOOGLE_include_directive : require
#include "q4_fold.glsl"

layout(local_size_x = 256) in;

layout(std430, set = 0, binding = 0) readonly buffer Src { vec4 src[]; };
layout(std430, set = 0, binding = 1) writeonly buffer Dst { vec4 dst[]; };

layout(push_constant) uniform Push {
    uint n4;   // vec4s to copy
    uint per;  // vec4s per invocation
} pc;

void main()
{
    uint group = q4_flat_group();
    uint threads = gl_NumWorkGroups.x * gl_NumWorkGroups.y * gl_NumWorkGroups.z * 256u;
    uint i = group * 256u + gl_LocalInvocationID.x;
    for (uint r = 0u; r < pc.per; r++, i += threads)
        if (i < pc.n4)
            dst[i] = src[i];
}
