// q4vk: bindings=4 push=32
// adamw_step.comp: one AdamW step (SPEC §2, torch.optim.AdamW), in place on param, m, v.
//
// Invocation i updates the vec4 i of its bindings; the invocation just past the
// last whole vec4 does the 1-3 trailing scalars. The grid is folded (x * y * z,
// q4_fold.glsl), so counts above one dimension's limit fit. A tensor larger than one
// binding allows is split by the launcher into several dispatches over aligned
// sub-ranges; `n` is the element count of this dispatch's range.
#version 450
#extension GL_GOOGLE_include_directive : require
#include "q4_fold.glsl"

layout(local_size_x = 256) in;

layout(std430, set = 0, binding = 0) buffer P4 { vec4 p4[]; };
layout(std430, set = 0, binding = 0) buffer P1 { float p1[]; };
layout(std430, set = 0, binding = 1) readonly buffer G4 { vec4 g4[]; };
layout(std430, set = 0, binding = 1) readonly buffer G1 { float g1[]; };
layout(std430, set = 0, binding = 2) buffer M4 { vec4 m4[]; };
layout(std430, set = 0, binding = 2) buffer M1 { float m1[]; };
layout(std430, set = 0, binding = 3) buffer S4 { vec4 v4[]; };
layout(std430, set = 0, binding = 3) buffer S1 { float v1[]; };

layout(push_constant) uniform Push {
    uint n;
    float lr, beta1, beta2, eps, wd, bc1, bc2;
} pc;

// The update exactly as SPEC §2 writes it, one rounding per operation (a driver may
// still fuse a*b+c; the reference's bound allows either). (1 - beta2) * g is
// `precise`: without NoContraction a Vulkan driver may reassociate it into
// (1 - beta2) * (g * g), which NVIDIA's does, and g * g overflows for |g| >= 2^64
// where SPEC's order stays finite (value class huge_grad; mutant
// adamw_g_squared_first).
#define ADAMW(T, p, g, m, v)                                                   \
    {                                                                          \
        p = p - (pc.lr * pc.wd) * p;                                           \
        m = pc.beta1 * m + (1.0 - pc.beta1) * g;                               \
        precise T g_b2 = (1.0 - pc.beta2) * g;                                 \
        v = fma(g_b2, g, pc.beta2 * v);                                          \
        p = p - pc.lr * (m / pc.bc1) / (sqrt(v / pc.bc2) + pc.eps);            \
    }

void main()
{
    const uint i = q4_flat_group() * 256u + gl_LocalInvocationID.x;
    const uint n4 = pc.n >> 2;
    if (i < n4) {
        vec4 p = p4[i], m = m4[i], v = v4[i];
        const vec4 g = g4[i];
        ADAMW(vec4, p, g, m, v)
        p4[i] = p;
        m4[i] = m;
        v4[i] = v;
    } else if (i == n4) {
        for (uint j = 4u * n4; j < pc.n; j++) {
            float p = p1[j], m = m1[j], v = v1[j];
            const float g = g1[j];
            ADAMW(float, p, g, m, v)
            p1[j] = p;
            m1[j] = m;
            v1[j] = v;
        }
    }
}
