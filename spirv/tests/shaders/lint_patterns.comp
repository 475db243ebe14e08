// lint_patterns.comp: a float mod() and fma(a, b, -(a*b)) (flagged), beside roundEven
// and an ordinary fma (not flagged).
#version 450
layout(local_size_x = 64) in;
layout(set = 0, binding = 0) readonly buffer In { float x[]; };
layout(set = 0, binding = 1) writeonly buffer Out { float y[]; };
void main()
{
    uint i = gl_GlobalInvocationID.x;
    float a = x[i], b = x[i + 1u];
    float p = a * b;
    y[i] = mod(a, b) + fma(a, b, -p) + roundEven(a) + fma(a, b, 1.0);
}
