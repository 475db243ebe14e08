// q4vk: bindings=1 push=8
// test_race_atomic.comp: atomics (gpu/tests/test_gpu_race.c). Every invocation adds
// to s[0] atomically in one barrier interval: atomics do not race with each other.
// With pc.fixed == 0, invocation 0 also reads s[0] with a plain load in that
// interval: a race between an atomic write and a plain read.
#version 450

layout(local_size_x = 64) in;

layout(std430, set = 0, binding = 0) buffer Dst { uint dst[]; };
layout(push_constant) uniform Push { uint fixed_; uint unused; } pc;

shared uint s[1];

void main()
{
    uint l = gl_LocalInvocationIndex;
    if (l == 0u)
        s[0] = 0u;
    barrier();
    atomicAdd(s[0], 1u);
    if (pc.fixed_ != 0u)
        barrier();
    uint v = l == 0u ? s[0] : 0u;
    barrier();
    dst[gl_GlobalInvocationID.x] = v + s[0];
}
