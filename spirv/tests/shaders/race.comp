// race.comp: the race pass's test module (spirv/tests/test_instrument.c): a store,
// an atomic add and loads of one shared word with barriers between them, as
// gpu/tests/shaders/test_race_atomic.comp, which the GPU test runs. Line numbers
// matter to the test: the atomic is on line 21, the first load on line 24.
//
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
