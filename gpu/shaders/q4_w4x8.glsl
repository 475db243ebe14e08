// q4_w4x8.glsl: decode helpers for the W_4X8 weight layout (SPEC §1b), shared by
// every kernel that reads packed weights. Include-only (no annotation line, no main).
//
// A block (k4, n8) is one uvec4 at block index k4 * N8 + n8; it covers K = 4*k4..+3
// and N = 8*n8..+7. Word `comp` holds the row pair n = 8*n8 + 2*comp + {0, 1}:
// byte b is K = 4*k4 + b, its low nibble the even row, its high nibble the odd row.
// In an odd-N4 block the words of comp 2 and 3 are padding (rows >= N); callers
// give those rows a zero scale or skip them, so the padding's value never matters.
#ifndef Q4_W4X8_GLSL
#define Q4_W4X8_GLSL

// Codes (0..15) to values (code - 8) without an int->float conversion (a slow op on
// some GPUs): 0x4B000000 | c is the float 2^23 + c, and 2^23 + 8 is exact, so the
// subtraction is exact whatever the rounding or denormal mode.
vec4 q4_codes_to_values(uvec4 c)
{
    return uintBitsToFloat(c | 0x4B000000u) - 8388616.0;
}

// The four values of one row of a word along K (b = 0..3): the even row (odd = 0)
// or the odd row (odd = 1) of the word's row pair.
vec4 q4_row4(uint word, uint odd)
{
    uvec4 sh = uvec4(0u, 8u, 16u, 24u) + 4u * odd;
    return q4_codes_to_values((uvec4(word) >> sh) & 0xFu);
}

// The four rows of a word pair (w.x: rows 0,1; w.y: rows 2,3 of a half block) at
// byte b (one K): values of rows 0..3.
vec4 q4_col4(uvec2 w, uint b)
{
    uint s = 8u * b;
    uvec4 c = (uvec4(w.x, w.x, w.y, w.y) >> uvec4(s, s + 4u, s, s + 4u)) & 0xFu;
    return q4_codes_to_values(c);
}

// (code - 8) of the nibble at bit o of h (o a multiple of 4, at most 16), exactly:
// OR-ing the nibble into the (zero) mantissa of 2^(23 - o) gives the float
// 2^(23 - o) + code, and subtracting 2^(23 - o) + 8 is exact. One bit operation and
// one subtraction (q4_codes_to_values needs a shift too); o folds once unrolled.
float q4_nibble(uint h, uint o)
{
    const float base = uintBitsToFloat((150u - o) << 23);
    return uintBitsToFloat((h & (0xFu << o)) | floatBitsToUint(base)) - (base + 8.0);
}

// q4_row4 from the word w and its upper half h = w >> 16 (shared by both rows).
vec4 q4_row4_h(uint w, uint h, uint odd)
{
    uint o = 4u * odd;
    return vec4(q4_nibble(w, o), q4_nibble(w, o + 8u), q4_nibble(h, o), q4_nibble(h, o + 8u));
}

// q4_col4 from the word pair w or its upper halves w >> 16 (hw): rows 0..3 at byte b.
vec4 q4_col4_h(uvec2 w, uvec2 hw, uint b)
{
    uvec2 v = b < 2u ? w : hw;
    uint o = 8u * (b & 1u);
    return vec4(q4_nibble(v.x, o), q4_nibble(v.x, o + 4u), q4_nibble(v.y, o), q4_nibble(v.y, o + 4u));
}

#endif
