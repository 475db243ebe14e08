// q4vk: bindings=4 push=40
// q4gsw_requant_w4x8.comp: fp32 latent weights -> 4-bit codes in the W_4X8 layout (SPEC
// §1b) and, in the same pass when K % 8 == 0, the flat layout (§1a): the latent, 4/5
// of the op's bytes, is read once for both.
//
// A workgroup owns a tile of 8*NB rows (NB block columns) x 4*TK4 K. Phase 1: each
// invocation codes IPI = 8*NB*TK4/WG vec4 of latent (4 K of one row each, 16 bits of
// codes), consecutive invocations on consecutive vec4 of a row, so a subgroup reads
// TK4*16 contiguous bytes (512 for TK4 = 32); all its loads are issued first. Codes
// go to shared memory. Phase 2 writes whole output pieces from there: W_4X8 blocks
// as uvec4 (NB consecutive blocks per k4 row, 16*NB contiguous bytes), padding words
// of an odd-N4 last block as 0x88888888; flat words per row, consecutive along K.
// Every word is written exactly once, so no atomics are needed.
//
// Codes come from q4_code_fast (a reciprocal multiply, a clamp and a rounding by
// addition, all in floating point), which is exact except where it raises its flag
// (within 2^-16 of a rounding tie, or a scale outside [2^-124, 2^126), zero included);
// those vec4 are coded again with q4_code_s, the exact remainder correction
// (q4gsw_requant.glsl), in a second loop that reloads them, so that the rare exact
// path keeps no registers live through the common one. This kernel was ALU-bound, not
// memory-bound, with an integer rescale and window test per element and a division
// by gs per vec4; now it is a multiply, a clamp, three adds and a compare per element.
//
// The launcher may split N into ranges of whole block columns (n8) to keep the latent
// binding within maxStorageBufferRange: this dispatch covers n8_0 .. n8_0 + n8_count - 1;
// the latent binding then starts at row 8*n8_0, lat_off elements in (a multiple of 4),
// and the flat binding at that row's first word, flat_off words in.
#version 450
#extension GL_EXT_control_flow_attributes : require
#extension GL_GOOGLE_include_directive : require
#include "q4_fold.glsl"

layout(local_size_x_id = 0) in;                // WG, divides 8 * NB * TK4, a multiple of TK4
layout(constant_id = 1) const uint NB = 2;     // block columns per tile
layout(constant_id = 2) const uint TK4 = 64;   // k4 per tile (even)
layout(constant_id = 3) const uint WG = 256;   // = local_size_x
const uint ROWS = 8u * NB;
const uint IPI = ROWS * TK4 / WG;              // latent vec4 per invocation
const uint RS = WG / TK4;                      // row step between them (TK4 divides WG)
const uint HSTRIDE = TK4 + 1u;                 // shared row stride, padded against bank conflicts

layout(std430, set = 0, binding = 0) readonly buffer Latent { vec4 latent4[]; };
layout(std430, set = 0, binding = 1) readonly buffer Scales { float scales[]; };
layout(std430, set = 0, binding = 2) writeonly buffer W { uvec4 w4[]; };
layout(std430, set = 0, binding = 3) writeonly buffer Flat { uint flat_w[]; };

layout(push_constant) uniform Push {
    uint N, K, gs;
    uint n8_0, n8_count;   // the block columns this dispatch writes
    uint lat_off;          // element offset of row 8*n8_0 in the latent binding
    uint flat_off;         // word offset of row 8*n8_0's first flat word in its binding
    uint tiles_k;          // tiles along K
    uint tiles;            // workgroups that do work (the grid may be folded)
    uint outputs;          // bit 0: write W_4X8; bit 1: write flat (needs K % 8 == 0)
} pc;

#include "q4gsw_requant.glsl"

shared uint hs[ROWS * HSTRIDE];   // [row][k4]: 4 codes, code of K = 4*k4 + j at bits 4j

// Spreads 4 nibbles (bits 0..15) to bits 0, 8, 16, 24 (the even row of a W_4X8 word).
uint spread4(uint v)
{
    v = (v | (v << 8)) & 0x00FF00FFu;
    return (v | (v << 4)) & 0x0F0F0F0Fu;
}

void main()
{
    const uint gid = q4_flat_group();
    if (gid >= pc.tiles)
        return;   // uniform per workgroup: no barrier is skipped by part of a group
    const uint tid = gl_LocalInvocationIndex;
    const uint K4 = pc.K / 4u, N8 = (pc.N / 4u + 1u) / 2u;
    const uint k4_0 = (gid % pc.tiles_k) * TK4;
    const uint n8_t = (gid / pc.tiles_k) * NB;            // first block column, dispatch-relative
    const uint n_end = min(pc.N, 8u * (pc.n8_0 + pc.n8_count));

    // Phase 1: codes of IPI vec4, item tid + WG*j: WG is a multiple of TK4, so all of
    // an invocation's items share one k4 (and one scale group) and take rows r0 + RS*j.
    const uint kl = tid % TK4, k4 = k4_0 + kl, r0 = tid / TK4;
    const uint nrel0 = 8u * n8_t + r0;                    // row r0, relative to 8*n8_0
    const uint n0 = 8u * pc.n8_0 + nrel0;
    const bool k_in = k4 < K4;
    vec4 x[IPI];
    [[unroll]] for (uint j = 0u; j < IPI; j++)
        x[j] = k_in && n0 + RS * j < n_end
             ? latent4[(pc.lat_off + (nrel0 + RS * j) * pc.K) / 4u + k4] : vec4(0.0);
    const uint s0 = k_in ? (4u * k4 / pc.gs) * pc.N + n0 : 0u;   // scale of row n0
    uint h[IPI];
    uint slow = 0u;                                       // bit j: item j needs q4_code_s
    [[unroll]] for (uint j = 0u; j < IPI; j++) {
        h[j] = 0x8888u;                                   // rows >= N: padding codes
        if (k_in && n0 + RS * j < n_end) {
            const float s = scales[s0 + RS * j];
            const float rs = 1.0 / s;
            bool sl = !q4_fast_ok(s);
            uint c[4];
            [[unroll]] for (uint b = 0u; b < 4u; b++)
                c[b] = q4_code_fast(x[j][b], rs, sl);
            h[j] = c[0] + (c[1] << 4) + (c[2] << 8) + (c[3] << 12) - Q4_FAST_BITS * 0x1111u;
            slow |= sl ? 1u << j : 0u;
        }
    }
    if (slow != 0u) {
        [[unroll]] for (uint j = 0u; j < IPI; j++) {
            if ((slow & (1u << j)) != 0u) {
                const vec4 xs = latent4[(pc.lat_off + (nrel0 + RS * j) * pc.K) / 4u + k4];
                const q4_scale ce = q4_scale_prep(scales[s0 + RS * j]);
                h[j] = 0u;
                [[unroll]] for (uint b = 0u; b < 4u; b++)
                    h[j] |= q4_code_s(xs[b], ce) << (4u * b);
            }
        }
    }
    [[unroll]] for (uint j = 0u; j < IPI; j++)
        hs[(r0 + RS * j) * HSTRIDE + kl] = h[j];
    barrier();

    // Phase 2a: W_4X8 blocks (k4, n8), NB consecutive per k4 row.
    if ((pc.outputs & 1u) != 0u) {
        for (uint b = tid; b < TK4 * NB; b += WG) {
            const uint kl = b / NB, nb = b % NB;
            const uint k4 = k4_0 + kl, n8 = pc.n8_0 + n8_t + nb;
            if (k4 >= K4 || n8 >= pc.n8_0 + pc.n8_count)
                continue;
            uvec4 blk;
            [[unroll]] for (uint c = 0u; c < 4u; c++) {   // rows 8nb + 2c (low nibbles), +1 (high)
                const uint r = 8u * nb + 2u * c;
                blk[c] = spread4(hs[r * HSTRIDE + kl]) | (spread4(hs[(r + 1u) * HSTRIDE + kl]) << 4);
            }
            w4[k4 * N8 + n8] = blk;   // an absent upper half (odd N4) is all 8s: 0x88888888
        }
    }
    // Phase 2b: flat words, 8 codes of one row each (K % 8 == 0).
    if ((pc.outputs & 2u) != 0u) {
        for (uint f = tid; f < ROWS * TK4 / 2u; f += WG) {
            const uint r = f / (TK4 / 2u), m = f % (TK4 / 2u);
            const uint k4 = k4_0 + 2u * m, nrel = 8u * n8_t + r;
            if (k4 >= K4 || 8u * pc.n8_0 + nrel >= n_end)
                continue;
            flat_w[pc.flat_off + nrel * (pc.K / 8u) + k4 / 2u] =
                hs[r * HSTRIDE + 2u * m] | (hs[r * HSTRIDE + 2u * m + 1u] << 16);
        }
    }
}
