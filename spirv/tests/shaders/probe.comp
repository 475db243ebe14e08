// probe.comp: a small kernel for the probe pass's tests: loads through a vec4
// array, a struct array behind a leading member, a branch, and a loop.
#version 450

layout(local_size_x = 64) in;

layout(std430, set = 0, binding = 0) readonly buffer A { vec4 a[]; };
layout(std430, set = 0, binding = 1) buffer B { float b[]; };
struct S {
    float x;
    vec2 y;
};
layout(std430, set = 0, binding = 2) readonly buffer C { uint n; S s[]; };

void main()
{
    uint i = gl_GlobalInvocationID.x;
    if (i < 10u) {
        b[i] = a[i].y + s[i].y.x;
    } else {
        float t = 0.0;
        for (uint j = 0u; j < n; j++)
            t += b[j];
        b[i] = t;
    }
}
