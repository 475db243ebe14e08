// q4vk: bindings=2 push=4
// fused_ce_loss.comp: loss = sum of the per-row losses that fused_ce.comp wrote.
//
// One workgroup; invocation t sums rows t, t+256, ... in order, then a fixed tree
// in shared memory. The order depends on nothing but R, so the loss is the same
// bit for bit on every run (no atomics, no scheduling dependence).
#version 450

layout(local_size_x = 256) in;

layout(std430, set = 0, binding = 0) readonly buffer RowLoss { float row_loss[]; };
layout(std430, set = 0, binding = 1) writeonly buffer Loss { float loss; };

layout(push_constant) uniform Push { uint rows; } pc;

shared float sh[256];

void main()
{
    const uint t = gl_LocalInvocationID.x;
    float acc = 0.0;
    for (uint r = t; r < pc.rows; r += 256u)
        acc += row_loss[r];
    sh[t] = acc;
    barrier();
    for (uint w = 128u; w > 0u; w >>= 1) {
        if (t < w) sh[t] += sh[t + w];
        barrier();
    }
    if (t == 0u)
        loss = sh[0];
}
