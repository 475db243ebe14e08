// q4_fold.glsl: the flat workgroup index of a grid folded over x, y and z
// (q4vk_fold_groups, gpu/shaders/README.md "The folded grid"): x varies fastest, then
// y, then z. Groups at or past the kernel's total do nothing; the launcher keeps the
// index below 2^32 (q4vk_fold_fits).
#ifndef Q4_FOLD_GLSL
#define Q4_FOLD_GLSL

uint q4_flat_group()
{
    return (gl_WorkGroupID.z * gl_NumWorkGroups.y + gl_WorkGroupID.y) * gl_NumWorkGroups.x +
           gl_WorkGroupID.x;
}

#endif
