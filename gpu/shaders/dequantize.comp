// q4vk: bindings=3 push=24
// dequantize.comp: Wf[N,K] = (code - 8) * scale from W_4X8 (SPEC §1). One invocation
// per W_4X8 block (one uvec4: 8 rows x 4 K): it writes one vec4 to each of its rows.
// Lanes 2j and 2j+1 of each 32-invocation chunk take block columns n8 and n8+1 of one
// k4, one whole 32-byte sector of W_4X8 between them, and the 16 pairs take 16
// consecutive k4: a subgroup reads 16 whole sectors (one word per invocation along K
// read 32 sectors for 128 bytes), each store writes 256 contiguous bytes of 2 rows,
// and the index arithmetic (two divisions) is paid once per 32 outputs, not per 8.
// Rows >= N (the upper half of an odd-N4 last block) are neither scaled nor written;
// with an odd number of block columns the last pair's second lane has no block.
#version 450
#extension GL_EXT_control_flow_attributes : require
#extension GL_GOOGLE_include_directive : require
#include "q4_fold.glsl"
#include "q4_w4x8.glsl"

layout(local_size_x = 256) in;

layout(set = 0, binding = 0) readonly buffer W { uvec4 w4[]; };      // W_4X8 blocks
layout(set = 0, binding = 1) readonly buffer S { vec4 s4[]; };       // [K/gs, N]
layout(set = 0, binding = 2) writeonly buffer O { vec4 o4[]; };      // [N, K]

layout(push_constant) uniform P {
    uint N, K, gs, N8;
    uint KT;         // chunks along K: ceil(K / 64), 16 k4 each
    uint chunks;     // KT * ceil(N8 / 2) chunks of 32 invocations (the grid may be folded)
} pc;

void main()
{
    uint gid = q4_flat_group();
    uint c = gid * 8u + gl_LocalInvocationIndex / 32u, l = gl_LocalInvocationIndex % 32u;
    if (c >= pc.chunks)
        return;
    uint K4 = pc.K / 4u;
    uint k4 = (c % pc.KT) * 16u + l / 2u, n8 = (c / pc.KT) * 2u + l % 2u;
    if (k4 >= K4 || n8 >= pc.N8)
        return;
    uvec4 blk = w4[k4 * pc.N8 + n8];
    uint n0 = 8u * n8;                                   // the block's first row
    bool upper = n0 + 4u < pc.N;                         // rows n0+4 .. n0+7 exist
    uint si = (((4u * k4) / pc.gs) * pc.N + n0) / 4u;    // N % 4 == 0: whole vec4
    vec4 sv[2] = {s4[si], upper ? s4[si + 1u] : vec4(0.0)};
    [[unroll]] for (uint p = 0u; p < 4u; p++) {                     // word p: rows n0 + 2p, +1
        if (p >= 2u && !upper)
            break;
        uint word = blk[p];
        vec2 s = (p & 1u) == 0u ? sv[p / 2u].xy : sv[p / 2u].zw;
        uint n = n0 + 2u * p;
        o4[n * K4 + k4] = q4_row4(word, 0u) * s.x;
        o4[(n + 1u) * K4 + k4] = q4_row4(word, 1u) * s.y;
    }
}
