// lint_round.comp: a planted round() (q4spv_lint's "round" check must flag it).
#version 450
layout(local_size_x = 64) in;
layout(set = 0, binding = 0) readonly buffer In { float x[]; };
layout(set = 0, binding = 1) writeonly buffer Out { float y[]; };
void main()
{
    uint i = gl_GlobalInvocationID.x;
    y[i] = round(x[i]);
}
