// q4gsw_requant_flat.comp: fp32 latent weights [N, K] -> 4-bit codes in the flat layout
// (SPEC §1a: even k in the low nibble) with each row padded to K rounded up to a
// multiple of 8 codes, as ExecuTorch's packers pad K so that every row starts on a
// word; code = clamp(roundEven(latent / s), -8, 7) + 8 (8 where s == 0). Written in the
// interface of et_vk's kernels (README.md): the packed weight first, then latent and
// scales; the latent's sizes (K, N, 1, 1) and the packed weight's (bytes per row, N,
// 1, 1) as uniform buffers of ivec4 in WHCN order; the group size as specialisation
// constant 3; local size through constants 0-2. One invocation writes one word of a
// row (8 codes), so the grid is (row bytes / 4) x N invocations, 64 per workgroup. The
// codes past K pad the row with code 8 (a zero weight): bytes 0x88, the padding the
// interface file declares, which q4cts checks unchanged.
//
// The rounding is decided in integers, as in q4gsw_requant_w4x8.comp.
#version 450

layout(std430) buffer;

layout(set = 0, binding = 0) writeonly buffer restrict PackedBuf { uint t_packed[]; };
layout(set = 0, binding = 1) readonly buffer restrict LatentBuf { float t_latent[]; };
layout(set = 0, binding = 2) readonly buffer restrict ScalesBuf { float t_scales[]; };

layout(set = 0, binding = 3) uniform restrict LatentSizes { ivec4 latent_sizes; };   // (K, N, 1, 1)
layout(set = 0, binding = 4) uniform restrict PackedSizes { ivec4 packed_sizes; };   // (row bytes, N, 1, 1)

layout(local_size_x_id = 0, local_size_y_id = 1, local_size_z_id = 2) in;

layout(constant_id = 3) const int group_size = 32;

// The 4-bit code of x / s. s is zero or normal (SPEC §1); NaN is out of contract.
uint q4_code(float x, float s)
{
    const uint sb = floatBitsToUint(s), xb = floatBitsToUint(x);
    if ((sb & 0x7FFFFFFFu) == 0u)
        return 8u;
    const bool negative = ((sb ^ xb) & 0x80000000u) != 0u;
    const int se = int((sb >> 23) & 0xFFu), xe = int((xb >> 23) & 0xFFu);
    const uint sm = (sb & 0x7FFFFFu) | 0x800000u;                       // in [2^23, 2^24)
    const uint xm = (xb & 0x7FFFFFu) | (xe != 0 ? 0x800000u : 0u);      // a denormal has no hidden bit
    const int e = max(xe, 1) - se;   // |x / s| = xm / sm * 2^e, and xm / sm < 2
    uint mag;                        // roundEven(|x / s|), or 8 for anything that clamps
    if (xe == 255 || e > 5) {
        mag = 8u;                    // infinite x, or |x / s| >= 2^5
    } else if (xm == 0u || e < -1) {
        mag = 0u;                    // |x / s| < 2^-1: rounds to 0
    } else {
        const uint num = e >= 0 ? xm << e : xm;   // < 2^29
        const uint den = e >= 0 ? sm : sm << 1;   // < 2^25
        mag = num / den;
        const uint twice_rem = 2u * (num - mag * den);
        if (twice_rem > den || (twice_rem == den && (mag & 1u) == 1u))
            mag += 1u;               // past the half, or a tie to the even neighbour
        mag = min(mag, 8u);
    }
    return negative ? 8u - mag : 8u + min(mag, 7u);
}

void main()
{
    const int w = int(gl_GlobalInvocationID.x);   // word w of row n: codes 8w .. 8w + 7
    const int n = int(gl_GlobalInvocationID.y);
    const int K = latent_sizes.x, N = latent_sizes.y;
    const int row_words = packed_sizes.x / 4;
    if (w >= row_words || n >= N)
        return;
    uint word = 0u;
    for (int i = 0; i < 8; i++) {
        const int k = 8 * w + i;
        uint code = 8u;                // past K: the row's padding, a zero weight
        if (k < K)
            code = q4_code(t_latent[n * K + k], t_scales[(k / group_size) * N + n]);
        word |= code << (4 * i);
    }
    t_packed[n * row_words + w] = word;
}
