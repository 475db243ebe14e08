// q4vk: bindings=2 push=8
// test_oob_write.comp: dst[i + shift] = src[i] for i < n (vec4s). With shift = 1 the
// last invocation writes one vec4 past the end of dst: the planted out-of-bounds
// store that the bounds probes must report (gpu/tests/test_gpu_probes.c).
#version 450

layout(local_size_x = 64) in;

layout(std430, set = 0, binding = 0) readonly buffer Src { vec4 src[]; };
layout(std430, set = 0, binding = 1) writeonly buffer Dst { vec4 dst[]; };
layout(push_constant) uniform Push { uint n; uint shift; } pc;

void main()
{
    uint i = gl_GlobalInvocationID.x;
    if (i < pc.n)
        dst[i + pc.shift] = src[i];
}
