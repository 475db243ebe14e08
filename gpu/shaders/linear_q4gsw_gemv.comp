// q4vk: bindings=5 push=24
// linear_q4gsw_gemv.comp: y[M,N] = x[M,K] @ dequant(W)^T (+ bias) for M = 1..8, where
// the op is a stream over the packed weights and their scales, bound by memory
// latency and, at M = 1, by the decode's ALU work as much as by bandwidth.
//
// A workgroup owns NS block columns (8*NS rows of y; the launcher's NS = 4 makes each
// k4 row of the strip 64 contiguous bytes, two whole 32-byte sectors) and all of K:
// invocation (lane, slice) takes block column n8 = strip*NS + lane and, in rounds of
// KT*U k4 rows, the U consecutive k4 rows slice*U.. of each round. All U blocks of a
// round are loaded before any is used, so every invocation keeps U loads in flight. A
// round is cut into chunks of UG rows (UG divides gs/4, so a chunk is in one group):
// one group index, one scale load per chunk, no per-row division. With CS (small M) a
// chunk sums x*(code - 8) and multiplies by the scale once (one multiply per chunk and
// row instead of one per weight); otherwise each element is (code - 8) * scale, shared
// by the M FMAs. Both orders stay within SPEC §3's bound: a term meets at most 2
// multiplies and, for a chunk of t terms among P partial sums, (t - 1) + (P - 1) <=
// n - 1 additions. The KT slices are summed in shared memory in a fixed order
// (deterministic): every invocation stores its sums, then T invocations per output add
// strided slices, then one adds the T partials (MP rows of x per pass, so the buffer
// stays small).
#version 450
#extension GL_EXT_control_flow_attributes : require
#extension GL_GOOGLE_include_directive : require
#include "q4_fold.glsl"
#include "q4_w4x8.glsl"

layout(local_size_x_id = 0) in;                // must be NS * KT
layout(constant_id = 1) const uint NS = 4;     // block columns (lanes) per workgroup
layout(constant_id = 2) const uint KT = 128;   // K slices per workgroup
layout(constant_id = 3) const uint MR = 1;     // M, the rows of x (1..8)
layout(constant_id = 4) const uint U = 8;      // blocks in flight per invocation
layout(constant_id = 5) const uint UG = 1;     // rows per chunk: divides U and gs/4
layout(constant_id = 6) const bool CS = true;  // scale per chunk (else per element)
layout(constant_id = 7) const uint MP0 = 1;    // rows of x per pass of the sum (shared size)
const uint WG = NS * KT;
const uint NV = 8u * NS;                       // sums per row of x: (lane, row of W)
const uint MP = MR < MP0 ? MR : MP0;
const uint O = NV * MP;                        // outputs per pass
const uint T = WG / O > 0u ? WG / O : 1u;      // invocations per output in a pass
const uint STRIDE = WG + NS;                   // one sum's row: conflict-free reads

layout(set = 0, binding = 0) readonly buffer X { vec4 x4[]; };       // [M, K]
layout(set = 0, binding = 1) readonly buffer W { uvec4 w4[]; };      // W_4X8 blocks
layout(set = 0, binding = 2) readonly buffer S { vec4 s4[]; };       // [K/gs, N]
layout(set = 0, binding = 3) readonly buffer B { float bias1[]; };   // [N] (dummy if !has_bias)
layout(set = 0, binding = 4) writeonly buffer Y { float y1[]; };     // [M, N]

layout(push_constant) uniform P {
    uint N, K, gs, N8;
    uint has_bias;
    uint strips;     // workgroups that do work (the grid may be folded)
} pc;

shared float red[MP * 8u * STRIDE];   // [m of the pass][row j][tid (+ pad)]
shared float red2[O * T];             // [t][output]

vec4 acc[MR][2];     // y[m][n0 .. n0+3] and y[m][n0+4 .. n0+7], this slice's part

void main()
{
    uint gid = q4_flat_group();
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
    uint K4 = pc.K / 4u, G4 = pc.gs / 4u, N4 = pc.N / 4u;

    [[unroll]] for (uint m = 0; m < MR; m++)
        acc[m][0] = acc[m][1] = vec4(0.0);

    if (lo_ok) {
        for (uint base = slice * U; base < K4; base += KT * U) {
            uvec4 blk[U];
            [[unroll]] for (uint u = 0; u < U; u++)
                blk[u] = base + u < K4 ? w4[(base + u) * pc.N8 + n8] : uvec4(0x88888888u);
            // A chunk never straddles K4 (UG divides gs/4, which divides K/4).
            [[unroll]] for (uint c = 0; c < U / UG; c++) {
                uint k4c = base + c * UG;
                if (k4c >= K4)
                    break;
                uint sidx = k4c / G4 * N4 + 2u * n8;
                vec4 s_lo = s4[sidx];
                vec4 s_hi = hi_ok ? s4[sidx + 1u] : vec4(0.0);
                vec4 p[MR][2];   // CS: this chunk's sum of x * (code - 8)
                [[unroll]] for (uint m = 0; m < MR; m++)
                    p[m][0] = p[m][1] = vec4(0.0);
                [[unroll]] for (uint r = 0; r < UG; r++) {
                    uint u = c * UG + r, k4 = k4c + r;
                    uvec4 bh = blk[u] >> 16u;
                    vec4 xv[MR];   // the same address across a subgroup's lanes of one slice
                    [[unroll]] for (uint m = 0; m < MR; m++)
                        xv[m] = x4[m * K4 + k4];
                    [[unroll]] for (uint b = 0; b < 4; b++) {
                        vec4 lo = q4_col4_h(blk[u].xy, bh.xy, b);   // rows 0..3 at K = 4*k4 + b
                        vec4 hi = q4_col4_h(blk[u].zw, bh.zw, b);   // rows 4..7
                        if (CS) {
                            [[unroll]] for (uint m = 0; m < MR; m++) {
                                p[m][0] += xv[m][b] * lo;
                                p[m][1] += xv[m][b] * hi;
                            }
                        } else {
                            lo *= s_lo;
                            hi *= s_hi;
                            [[unroll]] for (uint m = 0; m < MR; m++) {
                                acc[m][0] += xv[m][b] * lo;
                                acc[m][1] += xv[m][b] * hi;
                            }
                        }
                    }
                }
                if (CS) {
                    [[unroll]] for (uint m = 0; m < MR; m++) {
                        acc[m][0] += p[m][0] * s_lo;
                        acc[m][1] += p[m][1] * s_hi;
                    }
                }
            }
        }
    }

    // Sum the KT slices, MP rows of x per pass. Sum v = (mm * 8 + j) * NS + lane of
    // slice s lives at red[(mm * 8 + j) * STRIDE + s * NS + lane]; output o (= v of
    // the pass) is added by T invocations over slices t, t + T, ..., then one adds
    // the T partials in order t = 0, 1, ...
    [[unroll]] for (uint m0 = 0; m0 < MR; m0 += MP) {
        if (m0 > 0u)
            barrier();   // the previous pass's reads are done
        [[unroll]] for (uint mm = 0; mm < MP; mm++) {
            if (m0 + mm < MR) {
                [[unroll]] for (uint j = 0; j < 8; j++)
                    red[(mm * 8u + j) * STRIDE + tid] = acc[m0 + mm][j / 4u][j % 4u];
            }
        }
        barrier();
        for (uint q = tid; q < O * T; q += WG) {
            uint o = q % O, t = q / O;
            uint v = o / NS, l = o % NS;
            float sum = 0.0;
            for (uint s = t; s < KT; s += T)
                sum += red[v * STRIDE + s * NS + l];
            red2[q] = sum;
        }
        barrier();
        for (uint o = tid; o < O; o += WG) {
            uint v = o / NS, l = o % NS;
            uint m = m0 + v / 8u, n = 8u * (gid * NS + l) + v % 8u;
            if (m < MR && n < pc.N) {
                float sum = 0.0;
                for (uint t = 0u; t < T; t++)
                    sum += red2[t * O + o];
                if (pc.has_bias != 0u)
                    sum += bias1[n];
                y1[m * pc.N + n] = sum;
            }
        }
    }
}
