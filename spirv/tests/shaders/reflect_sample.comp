// reflect_sample.comp: an interface with one of everything q4spv_reflect reads
// (spirv/tests/test_spirv.c asserts each).
#version 450
layout(local_size_x_id = 3, local_size_y = 2) in;
layout(constant_id = 0) const uint A = 1;
layout(constant_id = 7) const float B = 2.0;
layout(set = 0, binding = 0) readonly buffer In { float x[]; };
layout(set = 0, binding = 2) writeonly buffer Out { float y[]; };
layout(set = 1, binding = 0) uniform Params { vec4 p; };
layout(push_constant) uniform Push { uint n; float scale; uvec2 pair; } pc;
void main()
{
    uint i = gl_GlobalInvocationID.x;
    if (i < pc.n)
        y[i] = x[i] * pc.scale * B + float(A) + p.x + float(pc.pair.y);
}
