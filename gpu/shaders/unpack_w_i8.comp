// q4vk: bindings=3 push=20
// unpack_w_i8.comp: the tensor-core forward's weight pass (linear_q4gsw_mma): W_4X8 codes to
// int8 values (code - 8), 4 per word along K, rows N .. Np-1 zero, so that the GEMM's
// 16-column fragments never read past them. In the GEMM's staging order: one chunk of
// 128 rows x 32 K (4 KiB, row after row) per column tile and step of 32 K, steps in
// order, tiles in order (a workgroup's 4 KiB for one step are contiguous). One invocation per row
// pair and k4: it reads one word of W_4X8 (rows 2p, 2p+1 at K 4k4..+3) and writes a
// word of each row. A nibble v = c ^ 8 is (c - 8) in 4-bit two's complement; OR-ing
// 0xF0 into the bytes whose bit 3 is set sign-extends it to 8 bits (0x08 * 0x1E =
// 0xF0: no carry leaves a byte). It runs before linear_slice_i8 in the same
// submission, so it also clears that pass's `lossy` flag.
#version 450
#extension GL_GOOGLE_include_directive : require
#include "q4_fold.glsl"

layout(local_size_x = 256) in;

layout(set = 0, binding = 0) readonly buffer W { uint w[]; };      // W_4X8
layout(set = 0, binding = 1) writeonly buffer O { uint o[]; };     // chunks of [128][8] words
layout(set = 0, binding = 2) writeonly buffer L { uint lossy; };   // linear_slice_i8's flag

layout(push_constant) uniform P {
    uint N, K, N8, Np;
    uint total;      // Np / 2 * K / 4 invocations (the grid may be folded)
} pc;

uint widen(uint v)
{
    v = (v & 0x0F0F0F0Fu) ^ 0x08080808u;
    return v | ((v & 0x08080808u) * 0x1Eu);
}

void main()
{
    uint gid = q4_flat_group();
    uint i = gid * 256u + gl_LocalInvocationIndex;
    if (i == 0u)
        lossy = 0u;
    if (i >= pc.total)
        return;
    uint K4 = pc.K / 4u, k4 = i % K4, n = (i / K4) * 2u;
    uint lo = 0u, hi = 0u;
    if (n < pc.N) {
        uint n4 = n / 4u, comp = (n4 & 1u) * 2u + ((n & 3u) >> 1);
        uint word = w[4u * (k4 * pc.N8 + n4 / 2u) + comp];
        lo = widen(word);
        hi = widen(word >> 4);
    }
    uint at = ((n / 128u) * (pc.K / 32u) + k4 / 8u) * 1024u + (n % 128u) * 8u + k4 % 8u;
    o[at] = lo;
    o[at + 8u] = hi;
}
