// q4vk: bindings=3 push=28
// q4gsw_requant_flat.comp: fp32 latent weights -> 4-bit codes in the flat layout (SPEC §1a).
//
// The flat layout is the [N][K] codes in row-major order, two per byte, low nibble
// first; with K % 4 == 0 there are no half bytes and N*K/8 whole uint32 words, and
// word i holds codes 8i .. 8i+7 in that order (a word may span two rows when
// K % 8 == 4). One invocation per word: each is written exactly once. The launcher
// may split N into row ranges (multiples of 8 rows, so each range starts on a
// word); this dispatch starts at row n0, its first word at out_off in the binding
// (binding offsets are rounded down to the device's alignment).
#version 450
#extension GL_GOOGLE_include_directive : require
#include "q4_fold.glsl"

layout(local_size_x = 256) in;

layout(std430, set = 0, binding = 0) readonly buffer Latent { vec4 latent4[]; };
layout(std430, set = 0, binding = 1) readonly buffer Scales { float scales[]; };
layout(std430, set = 0, binding = 2) writeonly buffer Flat { uint flat_w[]; };

layout(push_constant) uniform Push {
    uint N, K, gs;
    uint n0;        // first row of this dispatch
    uint lat_off;   // element offset of row n0 in the latent binding (a multiple of 4)
    uint words;     // words this dispatch writes (rows * K / 8)
    uint out_off;   // word offset of row n0's first word in the flat binding
} pc;

#include "q4gsw_requant.glsl"

void main()
{
    const uint i = q4_flat_group() * 256u + gl_LocalInvocationID.x;
    if (i >= pc.words)
        return;
    // row and column of this word's first code (8 | K or the word spans two rows)
    uint n = pc.n0 + (8u * i) / pc.K, k = (8u * i) % pc.K;
    const vec4 x[2] = {latent4[pc.lat_off / 4u + 2u * i], latent4[pc.lat_off / 4u + 2u * i + 1u]};
    // each half word (4 codes from a multiple of 4 in K) lies in one row and one group
    uint word_v = 0u;
    for (uint h = 0u; h < 2u; h++) {
        const q4_scale c = q4_scale_prep(scales[(k / pc.gs) * pc.N + n]);
        for (uint j = 0u; j < 4u; j++)
            word_v |= q4_code_s(x[h][j], c) << (4u * (4u * h + j));
        k += 4u;
        if (k == pc.K) { k = 0u; n++; }
    }
    flat_w[pc.out_off + i] = word_v;
}
