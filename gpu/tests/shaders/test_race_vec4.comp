// q4vk: bindings=1 push=8
// test_race_vec4.comp: read-after-write through vec4 accesses (gpu/tests/test_gpu_race.c),
// the width of the GEMMs' tile stores: each of 16 invocations writes one uvec4 of s,
// then every invocation reads a neighbour's; with pc.fixed == 0 there is no barrier()
// between, a race --race-check must report in either form of the probe (one loop over
// the 4 words, or a call per word).
#version 450

layout(local_size_x = 64) in;

layout(std430, set = 0, binding = 0) buffer Dst { uint dst[]; };
layout(push_constant) uniform Push { uint fixed_; uint unused; } pc;

shared uvec4 s[16];

void main()
{
    uint l = gl_LocalInvocationIndex;
    if (l < 16u)
        s[l] = uvec4(l + 1u, l + 2u, l + 3u, l + 4u);
    if (pc.fixed_ != 0u)
        barrier();
    uvec4 v = s[(l / 4u + 1u) % 16u];
    dst[gl_GlobalInvocationID.x] = v.x + v.y + v.z + v.w;
}
