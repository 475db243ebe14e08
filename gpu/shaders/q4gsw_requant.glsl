// q4gsw_requant.glsl: the code of one latent weight, shared by the two requant kernels.
//
// code = clamp(roundEven(x / s), -8, 7) + 8, and 8 where s == 0 (SPEC §2), equal to
// IEEE roundEven of the exact quotient for every input, whatever the driver's
// division (2.5 ULP) and denormal mode. Only +, -, * (correctly rounded in Vulkan;
// `precise` forbids fusing or reordering them) and bit operations decide:
//  1. Both operands are rescaled by 2^-e, e the exponent of s, from their bits:
//     s' = s / 2^e in +-[1, 2), x' = x / 2^e = mantissa * 2^k, built as an integer
//     times normal powers of two, so it is exact, a denormal x included; x' / s' is
//     the same quotient, and no intermediate below is a denormal near a tie.
//  2. The division only proposes q0 (clamped to [-8, 7] first); the remainder
//     x' - q0*s' decides, exactly: s' = s_hi + s_lo with 12 significant bits each,
//     so q0*s_hi and q0*s_lo are exact (|q0| <= 8); r1 = x' - q0*s_hi is exact near
//     a tie (Sterbenz) and the true remainder is r1 - q0*s_lo; then
//     2|r| - |s'| = (2|r1| - |s'|) - 2 sign(r1) q0*s_lo, compared without rounding.

// 2^k for -126 <= k <= 127, from its bits
float q4_pow2(int k) { return uintBitsToFloat(uint(k + 127) << 23); }

// What q4_code needs of a scale, computed once per scale (the 4 codes of a W_4X8
// byte lane share one).
struct q4_scale {
    uint bits;      // of s
    int e;          // unbiased exponent of s
    float sp;       // s / 2^e, +-[1, 2)
    float s_hi;     // sp with its low 12 mantissa bits cleared
    float s_lo;     // sp - s_hi, exact
};

q4_scale q4_scale_prep(float s)
{
    q4_scale c;
    c.bits = floatBitsToUint(s);
    c.e = int((c.bits >> 23) & 0xFFu) - 127;
    c.sp = uintBitsToFloat((c.bits & 0x807FFFFFu) | 0x3F800000u);
    c.s_hi = uintBitsToFloat(floatBitsToUint(c.sp) & 0xFFFFF000u);
    c.s_lo = c.sp - c.s_hi;   // exact: the low mantissa bits (no rounding to forbid)
    return c;
}

uint q4_code_s(float x, q4_scale c)
{
    if (c.bits << 1 == 0u)
        return 8u;                 // s == +-0
    const uint xb = floatBitsToUint(x);
    const bool neg = ((xb ^ c.bits) & 0x80000000u) != 0u;     // the quotient's sign
    const uint xe = (xb >> 23) & 0xFFu;
    const uint xm = (xb & 0x007FFFFFu) | (xe != 0u ? 0x00800000u : 0u);
    // x = xm * 2^(max(xe,1) - 150), so x' = x / 2^e = xm * 2^k
    const int k = int(max(xe, 1u)) - 150 - c.e;
    if (xe == 255u || (xm != 0u && k > 100))
        return neg ? 0u : 15u;     // infinite x, or |x / s| > 2^100: clamps (NaN is out of contract)
    if (xm == 0u || k < -200)
        return 8u;                 // |x / s| < 2^-176: rounds to 0
    const int k1 = max(k, -126);
    precise float xp = float(xm) * q4_pow2(k1);                // exact: normal result
    xp = xp * q4_pow2(k - k1);                                 // k - k1 in [-74, 0]
    if ((xb & 0x80000000u) != 0u)
        xp = -xp;

    precise float q0 = clamp(roundEven(xp / c.sp), -8.0, 7.0);
    precise float r1 = xp - q0 * c.s_hi;           // exact near a tie
    precise float lo = q0 * c.s_lo;                // true remainder: r1 - lo
    precise float e = 2.0 * abs(r1) - abs(c.sp);   // exact near a tie (Sterbenz)
    precise float f = (r1 < 0.0 ? -2.0 : 2.0) * lo;
    // 2|r| - |s'| = e - f: > 0 the other neighbour is nearer, == 0 a tie
    const float dir = ((r1 < 0.0) != (c.sp < 0.0)) ? -1.0 : 1.0;   // toward the true quotient
    if (e > f || (e == f && (int(q0 + dir) & 1) == 0))
        q0 += dir;
    return uint(int(clamp(q0, -8.0, 7.0)) + 8);
}

// ---- The fast path: a candidate code that is provably exact, or a flag ----
//
// For a scale s != 0 with exponent e and a normal x whose x' = x / 2^e has biased
// exponent t = exponent(x) - e in [125, 131] (|x'| in [0.25, 32)), x' is x with its
// exponent field lowered by e: one integer subtraction, exact. Outside that window
// the code needs no arithmetic: |x'| < 0.25 gives |q| < 0.25 (code 8) and |x'| >= 32
// gives |q| > 16 (a clamp); a zero scale is given e = 1000 so that t < 125 always.
// Inside, qa = x' * (1/s') with 1/s' in +-(0.5, 1] from an fp32 division (2.5 ULP)
// is within 3.5 * 2^-23 |q| < 2^-16 of the exact quotient q (|q| < 32). Adding
// 1.5 * 2^23 rounds qa to the nearest integer, ties to even (the sum lies in
// [2^23, 2^24), where the spacing is 1), and d = qa - roundEven(qa) is exact. If
// |d| <= 0.5 - 2^-14, the exact q is at least 2^-14 - 2^-16 from every half-integer,
// so roundEven(q) = roundEven(qa), and the clamp to [-8, 7] (whose edges, -8.5 and
// 7.5, are half-integers) commutes with it: the code is exact. Otherwise (near a
// tie or a clamp edge), and for the rare inputs this path does not decode (a
// denormal x that a tiny scale brings into the window, an infinite x), the flag asks
// for q4_code_s, the exact correction above.

struct q4_fscale {
    uint sign;      // sign bit of s
    int e;          // exponent of s; 1000 for s == +-0
    uint e_bits;    // uint(e) << 23: what to subtract from x's bits
    float rcp;      // 1 / s', s' = s / 2^e in +-[1, 2)
};

q4_fscale q4_fscale_prep(float s)
{
    q4_fscale c;
    const uint bits = floatBitsToUint(s);
    const bool zero = (bits << 1) == 0u;
    c.sign = bits & 0x80000000u;
    c.e = zero ? 1000 : int((bits >> 23) & 0xFFu) - 127;
    c.e_bits = uint(c.e) << 23;
    c.rcp = 1.0 / uintBitsToFloat((bits & 0x807FFFFFu) | 0x3F800000u);
    return c;
}

uint q4_code_fast(float x, q4_fscale c, inout bool slow)
{
    const uint xb = floatBitsToUint(x);
    const uint xe = (xb >> 23) & 0xFFu;
    const int t = int(xe) - c.e;
    const bool inside = uint(t - 125) < 7u;
    precise float qa = uintBitsToFloat(xb - c.e_bits) * c.rcp;   // meaningful when inside
    precise float qm = qa + 12582912.0;                          // 1.5 * 2^23 + roundEven(qa)
    precise float qr = qm - 12582912.0;
    slow = slow || xe == 255u || (inside && (xe == 0u || abs(qa - qr) > 0.49993896484375));
    // code = roundEven(q) + 8, clamped to [0, 15], from the integer bits of qm
    const int qi = int(floatBitsToUint(qm)) - 0x4B400000;
    const uint in_code = uint(clamp(qi, -8, 7) + 8);
    const uint out_code = t >= 132 ? (((xb ^ c.sign) & 0x80000000u) != 0u ? 0u : 15u) : 8u;
    return inside ? in_code : out_code;
}
