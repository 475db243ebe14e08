// q4gsw_requant.glsl: the code of one latent weight, shared by the two requant kernels.
//
// code = clamp(roundEven(x / s), -8, 7) + 8, and 8 where s == 0 (SPEC §2).
// GLSL's x / s may be 2.5 ULP off, which can move the quotient across a rounding
// tie or a clamp edge, so the division only proposes a candidate q0 (clamped to
// [-8, 7] first, so an infinite or huge quotient never makes inf - inf) and the
// remainder x - q0*s decides, computed exactly where it matters from operations
// Vulkan rounds correctly (+, -, *; `precise` forbids fusing or reordering them):
//   s = s_hi + s_lo, each at most 12 significant bits (s_hi: s with its low 12
//   mantissa bits cleared), so q0*s_hi and q0*s_lo are exact (|q0| <= 8: 4 bits);
//   r1 = x - q0*s_hi is exact near a tie (x and q0*s_hi within a factor 2, Sterbenz)
//   and the true remainder is r1 - q0*s_lo;
//   2|r| - |s| = (2|r1| - |s|) - 2 sign(r1) q0*s_lo, compared without rounding.
// So the code equals IEEE roundEven of the exact quotient for every scale, not only
// powers of two, as long as nothing here is a denormal (flushed): a latent below
// 2^-126 with a scale near 2^-126, or a scale below 2^-114 near a tie.

uint q4_code(float x, float s)
{
    if (s == 0.0)
        return 8u;
    precise float q0 = clamp(roundEven(x / s), -8.0, 7.0);
    const float s_hi = uintBitsToFloat(floatBitsToUint(s) & 0xFFFFF000u);
    precise float s_lo = s - s_hi;                 // exact: the low mantissa bits
    precise float r1 = x - q0 * s_hi;              // exact near a tie
    precise float lo = q0 * s_lo;                  // true remainder: r1 - lo
    precise float e = 2.0 * abs(r1) - abs(s);      // exact near a tie (Sterbenz)
    precise float f = (r1 < 0.0 ? -2.0 : 2.0) * lo;
    // 2|r| - |s| = e - f: > 0 the other neighbour is nearer, == 0 a tie
    const float dir = ((r1 < 0.0) != (s < 0.0)) ? -1.0 : 1.0;   // toward the true quotient
    if (e > f || (e == f && (int(q0 + dir) & 1) == 0))
        q0 += dir;
    return uint(int(clamp(q0, -8.0, 7.0)) + 8);
}
