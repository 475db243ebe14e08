// q4vk: bindings=1 push=8
// test_race_uninit.comp: uninitialized shared memory (gpu/tests/test_gpu_race.c).
// With pc.fixed == 0 the first 32 invocations never write their word of s, which
// every invocation reads after the barrier.
#version 450

layout(local_size_x = 64) in;

layout(std430, set = 0, binding = 0) buffer Dst { uint dst[]; };
layout(push_constant) uniform Push { uint fixed_; uint unused; } pc;

shared uint s[64];

void main()
{
    uint l = gl_LocalInvocationIndex;
    if (pc.fixed_ != 0u || l >= 32u)
        s[l] = l;
    barrier();
    dst[gl_GlobalInvocationID.x] = s[l];
}
