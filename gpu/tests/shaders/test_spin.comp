// q4vk: bindings=1 push=8
// test_spin.comp: a long but finite kernel (iters * 1024 dependent steps per
// element), for the real watchdog path: it outlasts a short timeout, then finishes.
// The inner loop is unrolled because llvmpipe ends a loop nest after 65535
// iterations in all (its loop limiter); the test keeps iters below that there.
#version 450
#extension GL_EXT_control_flow_attributes : require

layout(local_size_x = 64) in;

layout(std430, set = 0, binding = 0) buffer Data { uint data[]; };
layout(push_constant) uniform Push { uint n; uint iters; } pc;

void main()
{
    uint i = gl_GlobalInvocationID.x;
    if (i >= pc.n)
        return;
    uint x = data[i];
    for (uint o = 0; o < pc.iters; o++) {
        [[unroll]] for (uint k = 0; k < 1024u; k++)
            x = (x ^ (x >> 7u)) * 0x9E3779B1u + k;   // not a closed-form recurrence
    }
    data[i] = x;
}
