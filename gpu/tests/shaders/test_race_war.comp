// q4vk: bindings=1 push=8
// test_race_war.comp: write-after-read (gpu/tests/test_gpu_race.c). Each invocation
// reads its neighbour's word of s, then overwrites its own, as a loop's next stage
// overwrites a tile: with pc.fixed == 0 there is no barrier() between the read and
// the write.
#version 450

layout(local_size_x = 64) in;

layout(std430, set = 0, binding = 0) buffer Dst { uint dst[]; };
layout(push_constant) uniform Push { uint fixed_; uint unused; } pc;

shared uint s[64];

void main()
{
    uint l = gl_LocalInvocationIndex;
    s[l] = l + 1u;
    barrier();
    uint v = s[(l + 1u) % 64u];
    if (pc.fixed_ != 0u)
        barrier();
    s[l] = 2u * v;
    barrier();
    dst[gl_GlobalInvocationID.x] = s[l];
}
