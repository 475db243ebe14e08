// lint_branch.comp: mediump values that only steer control flow. A mediump loop bound
// decides how many terms a full-precision sum gets, and the sum is stored (flagged:
// the trip count reaches the store through the loop). A mediump comparison that
// decides only a local that nothing stores is not flagged.
#version 450
layout(local_size_x = 64) in;
layout(set = 0, binding = 0) readonly buffer In { float x[]; };
layout(set = 0, binding = 1) writeonly buffer Out { float y[]; };
void main()
{
    uint i = gl_GlobalInvocationID.x;
    mediump float limit = x[0] * 4.0;
    float acc = 0.0;
    for (float k = 0.0; k < limit; k += 1.0)
        acc += x[i + uint(k)];
    y[i] = acc;
    mediump float s = x[1];
    float unused = 0.0;
    if (s > 0.25)
        unused = 1.0;
}
