// q4vk: bindings=1 push=8
// test_race_raw.comp: read-after-write (gpu/tests/test_gpu_race.c). Each invocation
// writes its word of s, then reads its neighbour's: with pc.fixed == 0 there is no
// barrier() between the write and the read, a race --race-check must report.
#version 450

layout(local_size_x = 64) in;

layout(std430, set = 0, binding = 0) buffer Dst { uint dst[]; };
layout(push_constant) uniform Push { uint fixed_; uint unused; } pc;

shared uint s[64];

void main()
{
    uint l = gl_LocalInvocationIndex;
    s[l] = l + 1u;
    if (pc.fixed_ != 0u)
        barrier();
    dst[gl_GlobalInvocationID.x] = s[(l + 1u) % 64u];
}
