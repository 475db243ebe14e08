// lint_clean.comp: highp arithmetic, roundEven, a function with an inout parameter;
// q4spv_lint must find nothing.
#version 450
layout(local_size_x = 64) in;
layout(set = 0, binding = 0) readonly buffer In { float x[]; };
layout(set = 0, binding = 1) writeonly buffer Out { float y[]; };
void scale(inout float v, float s) { v = v * s; }
void main()
{
    uint i = gl_GlobalInvocationID.x;
    float v = roundEven(x[i] / 3.0);
    scale(v, 2.0);
    y[i] = v;
}
