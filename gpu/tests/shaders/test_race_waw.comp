// q4vk: bindings=1 push=8
// test_race_waw.comp: write-after-write (gpu/tests/test_gpu_race.c). With
// pc.fixed == 0 two invocations write each word of s in one barrier interval; fixed,
// only the even one does.
#version 450

layout(local_size_x = 64) in;

layout(std430, set = 0, binding = 0) buffer Dst { uint dst[]; };
layout(push_constant) uniform Push { uint fixed_; uint unused; } pc;

shared uint s[32];

void main()
{
    uint l = gl_LocalInvocationIndex;
    if (pc.fixed_ == 0u || l % 2u == 0u)
        s[l / 2u] = l;
    barrier();
    dst[gl_GlobalInvocationID.x] = s[l / 2u];
}
