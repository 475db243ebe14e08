// q4vk: bindings=5 push=24
// linear_q4gsw_gemv.comp: y[M,N] = x[M,K] @ dequant(W)^T (+ bias) for M = 1..8, where
// the op is a stream over the packed weights and their scales, bound by memory
// latency as much as by bandwidth on small weights.
//
// A workgroup owns NS block columns (8*NS rows of y; NS = 2 makes each k4 row of the
// strip one whole 32-byte sector) and all of K: invocation (lane, slice) takes block
// column n8 = strip*NS + lane and, in rounds of KT*U k4 rows, the U consecutive k4
// rows slice*U.. of each round. All U blocks of a round are loaded before any is
// used, so every invocation keeps U loads in flight. Each element is dequantized as
// (code - 8) * scale (the reference's order, so a flushed denormal costs at most
// 2^-126 per product) and x * that is accumulated in registers; the KT slices are
// summed with a tree in shared memory, one row of x at a time.
#version 450
#extension GL_EXT_control_flow_attributes : require
#extension GL_GOOGLE_include_directive : require
#include "q4_w4x8.glsl"

layout(local_size_x_id = 0) in;                // must be NS * KT
layout(constant_id = 1) const uint NS = 2;     // block columns (lanes) per workgroup
layout(constant_id = 2) const uint KT = 128;   // K slices per workgroup, a power of two
layout(constant_id = 3) const uint MR = 1;     // M, the rows of x (1..8)
layout(constant_id = 4) const uint U = 8;      // blocks in flight per invocation
const uint WG = NS * KT;

layout(set = 0, binding = 0) readonly buffer X { vec4 x4[]; };       // [M, K]
layout(set = 0, binding = 1) readonly buffer W { uvec4 w4[]; };      // W_4X8 blocks
layout(set = 0, binding = 2) readonly buffer S { vec4 s4[]; };       // [K/gs, N]
layout(set = 0, binding = 3) readonly buffer B { vec4 bias4[]; };    // [N] (dummy if !has_bias)
layout(set = 0, binding = 4) writeonly buffer Y { vec4 y4[]; };      // [M, N]

layout(push_constant) uniform P {
    uint N, K, gs, N8;
    uint has_bias;
    uint strips;     // workgroups that do work (the grid may be folded)
} pc;

shared vec4 red[KT * NS * 2];

vec4 acc[MR][2];     // y[m][n0 .. n0+3] and y[m][n0+4 .. n0+7], this slice's part

void main()
{
    uint gid = gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x;
    if (gid >= pc.strips)
        return;
    uint tid = gl_LocalInvocationIndex;
    uint lane = tid % NS, slice = tid / NS;
    uint n8 = gid * NS + lane;
    uint n0 = 8u * n8;
    bool lo_ok = n0 < pc.N;
    // The upper half of an odd-N4 block is padding: its rows get a zero scale and are
    // never written, so its words' contents never matter.
    bool hi_ok = n0 + 4u < pc.N;
    uint K4 = pc.K / 4u, G4 = pc.gs / 4u;

    [[unroll]] for (uint m = 0; m < MR; m++)
        acc[m][0] = acc[m][1] = vec4(0.0);

    if (lo_ok) {
        for (uint base = slice * U; base < K4; base += KT * U) {
            uvec4 blk[U];
            [[unroll]] for (uint u = 0; u < U; u++)
                blk[u] = base + u < K4 ? w4[(base + u) * pc.N8 + n8] : uvec4(0x88888888u);
            [[unroll]] for (uint u = 0; u < U; u++) {
                uint k4 = min(base + u, K4 - 1u);   // past K: a zero block, any group
                uint sidx = (k4 / G4 * pc.N + n0) / 4u;
                vec4 s_lo = s4[sidx];
                vec4 s_hi = hi_ok ? s4[sidx + 1u] : vec4(0.0);
                vec4 xv[MR];   // the same address across a subgroup's lanes of one slice
                [[unroll]] for (uint m = 0; m < MR; m++)
                    xv[m] = x4[m * K4 + k4];
                [[unroll]] for (uint b = 0; b < 4; b++) {
                    vec4 lo = q4_col4(blk[u].xy, b) * s_lo;   // rows 0..3 at K = 4*k4 + b
                    vec4 hi = q4_col4(blk[u].zw, b) * s_hi;   // rows 4..7
                    [[unroll]] for (uint m = 0; m < MR; m++) {
                        acc[m][0] += xv[m][b] * lo;
                        acc[m][1] += xv[m][b] * hi;
                    }
                }
            }
        }
    }

    // Sum the slices: a tree over `slice` in shared memory, one row of x at a time.
    [[unroll]] for (uint m = 0; m < MR; m++) {
        uint base = slice * NS * 2u + lane * 2u;
        red[base] = acc[m][0];
        red[base + 1u] = acc[m][1];
        barrier();
        [[unroll]] for (uint s = KT / 2u; s > 0u; s >>= 1) {
            if (slice < s) {
                red[base] += red[base + s * NS * 2u];
                red[base + 1u] += red[base + 1u + s * NS * 2u];
            }
            barrier();
        }
        if (slice == 0u && lo_ok) {
            uint yi = (m * pc.N + n0) / 4u;
            vec4 b_lo = pc.has_bias != 0u ? bias4[n0 / 4u] : vec4(0.0);
            y4[yi] = red[base] + b_lo;
            if (hi_ok) {
                vec4 b_hi = pc.has_bias != 0u ? bias4[n0 / 4u + 1u] : vec4(0.0);
                y4[yi + 1u] = red[base + 1u] + b_hi;
            }
        }
        barrier();   // red is rewritten for the next row
    }
}
