// q4vk: bindings=3 push=28
// q4gsw_requant_w4x8.comp: fp32 latent weights -> 4-bit codes in the W_4X8 layout (SPEC §1b).
//
// One invocation per output uint32 (4 K x 2 N codes), so every word, including the
// 0x88888888 padding words of an odd-N4 last block, is written exactly once and
// no atomics are needed. Invocations are ordered so that memory is read whole:
// the 4 words of a block (comp) vary fastest, then 8 consecutive k4 (a tile), so
// 32 invocations read 8 rows x 128 contiguous bytes with vec4 loads and write 8 x
// 16 contiguous bytes; then tiles along K, then blocks along N. The launcher may
// split N into ranges of whole 8-row blocks (n8) to keep the latent binding within
// maxStorageBufferRange: this dispatch covers blocks n8_0 .. n8_0 + n8_count - 1;
// the latent binding then starts at row 8*n8_0, lat_off elements in (a multiple
// of 4: rows are 16-byte aligned).
#version 450
#extension GL_GOOGLE_include_directive : require

layout(local_size_x = 256) in;

layout(std430, set = 0, binding = 0) readonly buffer Latent { vec4 latent4[]; };
layout(std430, set = 0, binding = 1) readonly buffer Scales { float scales[]; };
layout(std430, set = 0, binding = 2) writeonly buffer W { uint w[]; };

layout(push_constant) uniform Push {
    uint N, K, gs;
    uint n8_0, n8_count;   // the block columns this dispatch writes
    uint lat_off;          // element offset of row 8*n8_0 in the latent binding
    uint invocations;      // n8_count * ceil(K/32) tiles of 32; the excess k4 of a tile return
} pc;

#include "q4gsw_requant.glsl"

const uint TILE_K4 = 8u;

void main()
{
    const uint i = (gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x) * 256u +
                   gl_LocalInvocationID.x;
    if (i >= pc.invocations)
        return;
    const uint K4 = pc.K / 4u, n_tiles = (K4 + TILE_K4 - 1u) / TILE_K4;
    const uint comp = i & 3u, j = i >> 2;
    const uint tile = (j / TILE_K4) % n_tiles, n8_rel = (j / TILE_K4) / n_tiles;
    const uint k4 = tile * TILE_K4 + j % TILE_K4;
    if (k4 >= K4)
        return;   // a partial tile at the end of K
    const uint n8 = pc.n8_0 + n8_rel;
    const uint N8 = (pc.N / 4u + 1u) / 2u;
    const uint word = 4u * (k4 * N8 + n8) + comp;
    // comp = (n4 & 1) * 2 + (ni >> 1): the word holds rows n, n+1 of row quad n4
    const uint n4 = 2u * n8 + (comp >> 1);
    if (n4 >= pc.N / 4u) {
        w[word] = 0x88888888u;   // missing upper half of an odd-N4 block (SPEC §1b)
        return;
    }
    const uint n = 4u * n4 + 2u * (comp & 1u);
    // vec4 index of (n, 4*k4) in the latent window; row n+1 is K/4 vec4 further
    const uint v = (pc.lat_off + (n - 8u * pc.n8_0) * pc.K) / 4u + k4;
    const vec4 x0 = latent4[v], x1 = latent4[v + K4];
    // gs % 4 == 0: the 4 K of a word share one group, so one scale per row
    const uint si = (4u * k4 / pc.gs) * pc.N + n;
    const q4_scale c0 = q4_scale_prep(scales[si]), c1 = q4_scale_prep(scales[si + 1u]);
    uint word_v = 0u;
    for (uint b = 0u; b < 4u; b++)
        word_v |= (q4_code_s(x0[b], c0) | (q4_code_s(x1[b], c1) << 4)) << (8u * b);
    w[word] = word_v;
}
