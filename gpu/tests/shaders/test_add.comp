// q4vk: bindings=1 push=4
// test_add.comp: data[i] += INC for i < n (runtime test kernel). The grid is folded
// (q4vk_fold_groups): the flat group index is (z * num_groups.y + y) * num_groups.x + x.
#version 450

layout(local_size_x = 64) in;
layout(constant_id = 0) const uint INC = 1;

layout(std430, set = 0, binding = 0) buffer Data { uint data[]; };
layout(push_constant) uniform Push { uint n; } pc;

void main()
{
    uint group = (gl_WorkGroupID.z * gl_NumWorkGroups.y + gl_WorkGroupID.y) * gl_NumWorkGroups.x +
                 gl_WorkGroupID.x;
    uint i = group * gl_WorkGroupSize.x + gl_LocalInvocationID.x;
    if (i < pc.n)
        data[i] += INC;
}
