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

// ---- The fast path: a code that is provably exact, or a flag ----
//
// For a scale with |s| in [2^-124, 2^126) (q4_fast_ok), r = 1/s from the fp32 division
// (2.5 ULP: s is in its accurate range) and qa = x * r (0.5 ULP) give |qa - q| <
// 3.01 * 2^-23 |q| for the exact q = x / s, whatever x: an infinite x or an overflow
// gives an infinity of the right sign; a denormal x, flushed or not, has |q| <
// 2^-126 / 2^-124 = 1/4 and gives code 8 either way. qc = clamp(qa, -8, 7) (the clamp edges are integers, so it
// commutes with rounding); adding 1.5 * 2^23 + 8 rounds qc + 8 to an integer, ties to
// even (the sum lies in [2^23, 2^24), spacing 1, and the added constant is even), so
// the sum's low mantissa bits are the code; d = qc - roundEven(qc) is exact. If qc is
// a clamp edge (7 or -8), qa is at or beyond it, so q is beyond 6.5 or -7.5 and its
// code is that edge's: exact. Otherwise |q| < 8.0001, |qa - q| < 2^-18.4, and if |d| <=
// 0.5 - 2^-16 the exact q is more than 2^-16 - 2^-18.4 from every half-integer:
// roundEven(q) = roundEven(qa), the code is exact. Else (within 2^-16 of a tie) the
// flag asks for q4_code_s. Per element: a multiply, a clamp, three adds, a compare,
// all in floating point (the integer rescale of x that the division avoids cost more).

// Whether s suits q4_code_fast: |s| in [2^-124, 2^126) (so not zero).
bool q4_fast_ok(float s)
{
    return (floatBitsToUint(s) & 0x7F800000u) - 0x01800000u < 0x7D000000u;
}

// The bits of the float 1.5 * 2^23 + code: Q4_FAST_BITS + code.
const uint Q4_FAST_BITS = 0x4B400000u;

// Q4_FAST_BITS + code of x with r = 1 / s (q4_fast_ok(s)); raises slow near a tie.
uint q4_code_fast(float x, float r, inout bool slow)
{
    precise float qc = clamp(x * r, -8.0, 7.0);
    precise float qm = qc + 12582920.0;               // 1.5 * 2^23 + 8 + roundEven(qc)
    precise float d = qc - (qm - 12582920.0);         // qc - roundEven(qc), exact
    slow = slow || abs(d) > 0.4999847412109375;       // 0.5 - 2^-16
    return floatBitsToUint(qm);
}
