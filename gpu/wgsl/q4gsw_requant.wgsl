// q4gsw_requant.wgsl: the code of one latent weight, shared by the two requant kernels
// (pasted by "//!include"): a port of gpu/shaders/q4gsw_requant.glsl's exact path.
//
// code = clamp(roundEven(x / s), -8, 7) + 8, and 8 where s == 0 (SPEC §2), equal to
// IEEE roundEven of the exact quotient for every input. The inputs arrive as bits: an
// infinite x is decided on its bits, never computed with (WGSL lets an implementation
// assume no infinity occurs). Only +, -, * of exact values and bit operations decide:
//  1. Both operands are rescaled by 2^-e, e the exponent of s, from their bits: s' in
//     +-[1, 2), x' = x / 2^e built exactly as an integer times powers of two.
//  2. The division only proposes q0 (clamped to [-8, 7]); the remainder x' - q0 s'
//     decides: s' = s_hi + s_lo with 12 significant bits each, so q0 s_hi and q0 s_lo
//     are exact (|q0| <= 8), r1 = x' - q0 s_hi is exact near a tie (Sterbenz), and
//     2|r| - |s'| = (2|r1| - |s'|) - 2 sign(r1) q0 s_lo is compared without rounding.
// WGSL has no `precise`: a * b + c may be fused, but every product here is exact, so a
// fused and an unfused evaluation agree. WGSL's round() rounds ties to even.

// 2^k for -126 <= k <= 127, from its bits
fn q4_pow2(k: i32) -> f32 {
    return bitcast<f32>(u32(k + 127) << 23u);
}

// What q4_code needs of a scale, once per scale.
struct q4_scale {
    bits: u32,      // of s
    e: i32,         // unbiased exponent of s
    sp: f32,        // s / 2^e, +-[1, 2)
    s_hi: f32,      // sp with its low 12 mantissa bits cleared
    s_lo: f32,      // sp - s_hi, exact
}

fn q4_scale_prep(bits: u32) -> q4_scale {
    var c: q4_scale;
    c.bits = bits;
    c.e = i32((bits >> 23u) & 0xFFu) - 127;
    c.sp = bitcast<f32>((bits & 0x807FFFFFu) | 0x3F800000u);
    c.s_hi = bitcast<f32>(bitcast<u32>(c.sp) & 0xFFFFF000u);
    c.s_lo = c.sp - c.s_hi;
    return c;
}

// The code (0..15) of the latent whose bits are xb, with scale c.
fn q4_code(xb: u32, c: q4_scale) -> u32 {
    if ((c.bits << 1u) == 0u) {
        return 8u;                 // s == +-0
    }
    let neg = ((xb ^ c.bits) & 0x80000000u) != 0u;    // the quotient's sign
    let xe = (xb >> 23u) & 0xFFu;
    let xm = (xb & 0x007FFFFFu) | select(0u, 0x00800000u, xe != 0u);
    // x = xm * 2^(max(xe, 1) - 150), so x' = x / 2^e = xm * 2^k
    let k = i32(max(xe, 1u)) - 150 - c.e;
    if (xe == 255u || (xm != 0u && k > 100)) {
        return select(15u, 0u, neg);   // infinite x, or |x / s| > 2^100: clamps
    }
    if (xm == 0u || k < -200) {
        return 8u;                 // |x / s| < 2^-176: rounds to 0
    }
    let k1 = max(k, -126);
    var xp = f32(xm) * q4_pow2(k1);                 // exact: normal result
    xp = xp * q4_pow2(k - k1);                      // k - k1 in [-74, 0]
    if ((xb & 0x80000000u) != 0u) {
        xp = -xp;
    }
    var q0 = clamp(round(xp / c.sp), -8.0, 7.0);
    let r1 = xp - q0 * c.s_hi;                      // exact near a tie
    let lo = q0 * c.s_lo;                           // true remainder: r1 - lo
    let e = 2.0 * abs(r1) - abs(c.sp);              // exact near a tie (Sterbenz)
    let f = select(2.0, -2.0, r1 < 0.0) * lo;
    // 2|r| - |s'| = e - f: > 0 the other neighbour is nearer, == 0 a tie
    let dir = select(1.0, -1.0, (r1 < 0.0) != (c.sp < 0.0));   // toward the true quotient
    if (e > f || (e == f && (i32(q0 + dir) & 1) == 0)) {
        q0 += dir;
    }
    return u32(i32(clamp(q0, -8.0, 7.0)) + 8);
}
