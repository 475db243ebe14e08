// q4vk: bindings=1 push=4
// test_mul.comp: data[i] *= 3 for i < n. Same interface as test_add: the runtime
// test installs it as test_add's override.
#version 450

layout(local_size_x = 64) in;

layout(std430, set = 0, binding = 0) buffer Data { uint data[]; };
layout(push_constant) uniform Push { uint n; } pc;

void main()
{
    uint group = (gl_WorkGroupID.z * gl_NumWorkGroups.y + gl_WorkGroupID.y) * gl_NumWorkGroups.x +
                 gl_WorkGroupID.x;
    uint i = group * gl_WorkGroupSize.x + gl_LocalInvocationID.x;
    if (i < pc.n)
        data[i] *= 3u;
}
