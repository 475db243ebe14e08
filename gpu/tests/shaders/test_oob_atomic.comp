// q4vk: bindings=1 push=8
// test_oob_atomic.comp: atomicAdd(count[i + shift], 1) for i < n. With shift = 1 the
// last invocation adds one past the end of count: the planted out-of-bounds atomic
// that the bounds probes must report (gpu/tests/test_gpu_probes.c).
#version 450

layout(local_size_x = 64) in;

layout(std430, set = 0, binding = 0) buffer Count { uint count[]; };
layout(push_constant) uniform Push { uint n; uint shift; } pc;

void main()
{
    uint i = gl_GlobalInvocationID.x;
    if (i < pc.n)
        atomicAdd(count[i + pc.shift], 1u);
}
