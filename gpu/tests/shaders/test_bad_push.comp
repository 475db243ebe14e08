// q4vk: bindings=1 push=4
// test_bad_push.comp: reads 16 bytes of push constants although its annotation
// declares 4, so its pipeline layout is too small: an error the validation layer
// must report (the runtime test expects Q4_ERR_VALIDATION from q4vk_pipeline_get).
#version 450

layout(local_size_x = 64) in;

layout(std430, set = 0, binding = 0) buffer Data { uint data[]; };
layout(push_constant) uniform Push { uint n; uint a, b, c; } pc;

void main()
{
    uint i = gl_GlobalInvocationID.x;
    if (i < pc.n)
        data[i] += pc.a + pc.b + pc.c;
}
