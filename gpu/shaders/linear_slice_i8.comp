// q4vk: bindings=4 push=20
// linear_slice_i8.comp: the tensor-core forward's activation pass (linear_q4gsw_mma;
// docs/numerics.md "The sliced int8 path"). Each block of `blk` consecutive K of a
// row of x [M, K] (blk 64 or 128, dividing gs) is written as S = 4 int8 digit
// planes under one power-of-two exponent e, 2^(e-1) <= max |x| < 2^e of the block:
//   x = sum_i d_i 2^(e - 6 - 7i) + r,  d_i in [-64, 64],  |r| <= 2^(e - 28).
// z = x 2^(6 - e) (|z| < 64, exact), d_0 = roundEven(z), z = (z - d_0) 128 (exact:
// |z - d_0| <= 1/2 and both are multiples of ulp(z)), and so on: every step is exact,
// only the last residual is dropped. Rows M .. Mp-1 are written as zeros so that the
// GEMM's 16-row fragments never read past the planes.
// The digits lie in the GEMM's staging order: one chunk of 64 rows x 32 K (2 KiB, row
// after row) per row tile, step of 32 K and plane, the 4 planes of a (tile, step)
// together, steps in order, tiles in order: a workgroup's 8 KiB for one step are
// contiguous (linear_q4gsw_mma's fetch).
// The pass also says whether the digits are exact enough: an element whose dropped
// residual exceeds 2^-26 |x| (a quarter of its own rounding unit; z, the residual in
// units of 2^-28 of the first digit's, above 4 |z_0|) sets `lossy`, and the launcher
// then runs the fp32 path instead (docs/numerics.md, "The sliced int8 path").
// One invocation per vec4 of the padded x; blocks of blk/4 invocations share a
// shared-memory maximum (blk / 4 divides 256: blocks never straddle a workgroup).
#version 450
#extension GL_EXT_control_flow_attributes : require
#extension GL_GOOGLE_include_directive : require
#include "q4_fold.glsl"

layout(local_size_x = 256) in;

layout(set = 0, binding = 0) readonly buffer X { vec4 x4[]; };     // [M, K]
layout(set = 0, binding = 1) writeonly buffer D { uint d[]; };     // chunks, 4 digits a word
layout(set = 0, binding = 2) writeonly buffer E { int e[]; };      // [Mp][K/blk]
layout(set = 0, binding = 3) buffer L { uint lossy; };             // cleared by unpack_w_i8

layout(push_constant) uniform P {
    uint M, K, blk, Mp;
    uint total;      // Mp * K / 4 invocations (the grid may be folded)
} pc;

shared uint s_max[64];
shared uint s_lossy;

void main()
{
    uint gid = q4_flat_group();
    uint l = gl_LocalInvocationIndex, i = gid * 256u + l;
    uint b4 = pc.blk / 4u, K4 = pc.K / 4u;
    if (l < 64u)
        s_max[l] = 0u;
    if (l == 0u)
        s_lossy = 0u;
    barrier();
    bool live = i < pc.total;
    uint m = i / K4;
    vec4 v = live && m < pc.M ? x4[i] : vec4(0.0);
    // |x| as bits: the order of non-negative floats is the order of their bits.
    vec4 a = abs(v);
    atomicMax(s_max[l / b4], floatBitsToUint(max(max(a.x, a.y), max(a.z, a.w))));
    barrier();
    float amax = uintBitsToFloat(s_max[l / b4]);
    int ex;
    frexp(amax, ex);                    // amax = f 2^ex, f in [0.5, 1); 0 for a zero block
    if (amax == 0.0)
        ex = 0;
    if (live && l % b4 == 0u)
        e[i / b4] = ex;
    vec4 z0 = ldexp(v, ivec4(6 - ex)), z = z0;
    uint k4 = i % K4;   // word (m, k4) of plane s: chunk ((m/64) K/32 + k4/8) 4 + s, word (m%64) 8 + k4%8
    uint at = ((m / 64u) * (pc.K / 32u) + k4 / 8u) * 2048u + (m % 64u) * 8u + k4 % 8u;
    [[unroll]] for (uint s = 0u; s < 4u; s++) {
        vec4 q = roundEven(z);
        z = (z - q) * 128.0;
        uvec4 by = uvec4(ivec4(q)) & 0xFFu;
        if (live)
            d[at + s * 512u] = by.x | (by.y << 8) | (by.z << 16) | (by.w << 24);
    }
    // Too coarse: the residual above a quarter ulp of x, x lost to underflow in z_0 (a
    // block spanning more than 2^132), or x not finite (the fp32 path gives Inf and NaN
    // their IEEE meaning). One test of the four, as bits.
    uvec4 bad = uvec4(greaterThan(abs(z), 4.0 * abs(z0))) |
                (uvec4(notEqual(v, vec4(0.0))) & uvec4(equal(z0, vec4(0.0)))) |
                uvec4(isinf(v)) | uvec4(isnan(v));
    if (any(notEqual(bad, uvec4(0u))))
        atomicOr(s_lossy, 1u);   // atomic: many invocations may raise it (--race-check)
    barrier();
    if (l == 0u && s_lossy != 0u)
        atomicOr(lossy, 1u);
}
