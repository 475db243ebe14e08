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
// 2^-126 per product) and x * that is accumulated in registers. The KT slices are
// summed by subgroupAdd (one per lane: a subgroup holds slices of all NS lanes), then
// across the subgroups through shared memory. Subgroups are taken to be runs of SG
// consecutive invocations, as on every implementation we know; the launcher uses
// this kernel only where subgroup arithmetic is supported in compute.
#version 450
#extension GL_EXT_control_flow_attributes : require
#extension GL_GOOGLE_include_directive : require
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_KHR_shader_subgroup_arithmetic : require
#include "q4_w4x8.glsl"

layout(local_size_x_id = 0) in;                // must be NS * KT
layout(constant_id = 1) const uint NS = 2;     // block columns (lanes) per workgroup
layout(constant_id = 2) const uint KT = 128;   // K slices per workgroup, a power of two
layout(constant_id = 3) const uint MR = 1;     // M, the rows of x (1..8)
layout(constant_id = 4) const uint U = 8;      // blocks in flight per invocation
layout(constant_id = 5) const uint SG = 32;    // subgroup size; WG is a multiple of it
const uint WG = NS * KT;
const uint NSG = WG / SG;                      // subgroups per workgroup

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

shared vec4 red[NSG * NS * MR * 2];   // [subgroup][lane][m][half]

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
                if (base + u >= K4)
                    break;
                uint k4 = base + u;
                uvec4 bh = blk[u] >> 16u;
                uint sidx = (k4 / G4 * pc.N + n0) / 4u;
                vec4 s_lo = s4[sidx];
                vec4 s_hi = hi_ok ? s4[sidx + 1u] : vec4(0.0);
                vec4 xv[MR];   // the same address across a subgroup's lanes of one slice
                [[unroll]] for (uint m = 0; m < MR; m++)
                    xv[m] = x4[m * K4 + k4];
                [[unroll]] for (uint b = 0; b < 4; b++) {
                    vec4 lo = q4_col4_h(blk[u].xy, bh.xy, b) * s_lo;   // rows 0..3 at K = 4*k4 + b
                    vec4 hi = q4_col4_h(blk[u].zw, bh.zw, b) * s_hi;   // rows 4..7
                    [[unroll]] for (uint m = 0; m < MR; m++) {
                        acc[m][0] += xv[m][b] * lo;
                        acc[m][1] += xv[m][b] * hi;
                    }
                }
            }
        }
    }

    // Sum the slices: within each subgroup, one subgroupAdd per lane (the others add
    // zero), then across the subgroups in shared memory.
    uint sg = tid / SG;
    [[unroll]] for (uint m = 0; m < MR; m++)
        [[unroll]] for (uint h = 0; h < 2; h++)
            [[unroll]] for (uint l = 0; l < NS; l++) {
                vec4 t = subgroupAdd(lane == l ? acc[m][h] : vec4(0.0));
                if (gl_SubgroupInvocationID == 0u)
                    red[((sg * NS + l) * MR + m) * 2u + h] = t;
            }
    barrier();
    if (tid < NS * MR * 2u) {
        uint l = tid % NS, h = (tid / NS) % 2u, m = tid / (2u * NS);
        uint n = 8u * (gid * NS + l) + 4u * h;   // first of the 4 rows
        if (n < pc.N) {
            vec4 sum = vec4(0.0);
            for (uint q = 0u; q < NSG; q++)
                sum += red[((q * NS + l) * MR + m) * 2u + h];
            if (pc.has_bias != 0u)
                sum += bias4[n / 4u];
            y4[(m * pc.N + n) / 4u] = sum;
        }
    }
}
