// q4vk: bindings=1 push=8
// ceiling_fma.comp: an fp32 FMA loop whose rate is the device's measured arithmetic
// ceiling for perf mode (q4vk_measure_ceilings). Eight independent vec4 chains per
// invocation hide the FMA latency; each iteration is 8 * 4 FMAs = 64 flops. The
// result is stored so that the compiler cannot drop the loop.
#version 450
#extension GL_GOOGLE_include_directive : require
#include "q4_fold.glsl"

layout(local_size_x = 256) in;

layout(std430, set = 0, binding = 0) writeonly buffer Out { float outv[]; };

layout(push_constant) uniform Push {
    uint iters;
    float seed;
} pc;

void main()
{
    uint group = q4_flat_group();
    uint i = group * 256u + gl_LocalInvocationID.x;
    vec4 a0 = vec4(pc.seed + float(i & 7u)), a1 = a0 + 1.0, a2 = a0 + 2.0, a3 = a0 + 3.0;
    vec4 a4 = a0 + 4.0, a5 = a0 + 5.0, a6 = a0 + 6.0, a7 = a0 + 7.0;
    const vec4 b = vec4(0.999999), c = vec4(1e-7);
    for (uint r = 0u; r < pc.iters; r++) {
        a0 = fma(a0, b, c); a1 = fma(a1, b, c); a2 = fma(a2, b, c); a3 = fma(a3, b, c);
        a4 = fma(a4, b, c); a5 = fma(a5, b, c); a6 = fma(a6, b, c); a7 = fma(a7, b, c);
    }
    vec4 s = ((a0 + a1) + (a2 + a3)) + ((a4 + a5) + (a6 + a7));
    outv[i] = s.x + s.y + s.z + s.w;
}
