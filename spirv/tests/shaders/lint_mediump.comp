// lint_mediump.comp: a planted mediump accumulator whose sum is stored to a buffer,
// and a mediump value that decides whether a store happens (q4spv_lint's "relaxed"
// check must flag both: fp16 may change the sum, or which way the branch goes).
#version 450
layout(local_size_x = 64) in;
layout(set = 0, binding = 0) readonly buffer In { float x[]; };
layout(set = 0, binding = 1) writeonly buffer Out { float y[]; };
void main()
{
    mediump float acc = 0.0;
    for (uint k = 0u; k < 16u; k++)
        acc += x[16u * gl_GlobalInvocationID.x + k];
    y[gl_GlobalInvocationID.x] = acc;
    mediump float t = x[0];
    if (t > 0.5)
        y[0] = 1.0;
}
