// q4gsw_requant_w4x8.comp: fp32 latent weights [N, K] -> 4-bit codes in the W_4X8
// layout (SPEC §1b), code = clamp(roundEven(latent / s), -8, 7) + 8 (8 where s == 0),
// written in the interface of ExecuTorch's et_vk kernels (README.md): the
// packed weight first, then latent and scales; the latent's sizes (K, N, 1, 1) as a
// uniform buffer of ivec4 in WHCN order; the group size as specialisation constant
// 3; local size through constants 0-2. One invocation writes one block (4 columns k
// x 8 rows n: 4 uint32), so the grid is ceil(N/8) x K/4 invocations, 64 per
// workgroup. The upper half of an odd-N4 last block is padding: 0x88888888.
//
// The rounding is decided in integers, on the operands' significands, so no rounding
// of a division (Vulkan allows 2.5 ULP) can move a quotient across a tie or a clamp
// edge: |latent / s| = xm / sm * 2^e exactly, and only e in [-1, 5] needs a division.
#version 450

layout(std430) buffer;

layout(set = 0, binding = 0) writeonly buffer restrict WeightBuf { uvec4 t_weight[]; };
layout(set = 0, binding = 1) readonly buffer restrict LatentBuf { vec4 t_latent[]; };
layout(set = 0, binding = 2) readonly buffer restrict ScalesBuf { float t_scales[]; };

layout(set = 0, binding = 3) uniform restrict LatentSizes { ivec4 latent_sizes; };   // (K, N, 1, 1)

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
    const int n8 = int(gl_GlobalInvocationID.x);
    const int k4 = int(gl_GlobalInvocationID.y);
    const int K = latent_sizes.x, N = latent_sizes.y;
    const int N8 = (N / 4 + 1) / 2, K4 = K / 4;
    if (n8 >= N8 || k4 >= K4)
        return;
    const int srow = ((4 * k4) / group_size) * N;
    uvec4 block;
    for (int c = 0; c < 4; c++) {
        const int n = 8 * n8 + 2 * c;   // word c: rows n (low nibbles) and n + 1 (high)
        if (n >= N) {
            block[c] = 0x88888888u;     // rows past N: every code 8
            continue;
        }
        const vec4 lo = t_latent[n * K4 + k4], hi = t_latent[(n + 1) * K4 + k4];
        const float s_lo = t_scales[srow + n], s_hi = t_scales[srow + n + 1];
        uint word = 0u;
        for (int b = 0; b < 4; b++)
            word |= (q4_code(lo[b], s_lo) | (q4_code(hi[b], s_hi) << 4)) << (8 * b);
        block[c] = word;
    }
    t_weight[k4 * N8 + n8] = block;
}
