// q4vk: bindings=4 push=20
// linear_q4gsw_backward_gemv.comp: dx[M,K] = dout[M,N] @ dequant(W) for M = 1..8, a
// stream over the packed weights and their scales, bound by memory latency as much
// as by bandwidth on small weights.
//
// A workgroup owns S*R consecutive k4 rows (4*S*R columns of dx); invocation
// (lane, row) owns the R k4 rows row*R.. of it and walks the block columns in rounds
// of L*U: n8 = lane + u*L (consecutive lanes read consecutive uvec4 blocks of one k4
// row). All R*U blocks of a round are loaded before any is used, so every invocation
// keeps R*U loads in flight; R > 1 also shares the dout loads (and, when the R rows
// are in one group, the scale loads). At small M (DS) each dout is multiplied by its
// scale once per block column and scale group (ds = dout * scale, shared by the R
// rows when they are in one group) and ds * (code - 8) is accumulated: 3 operations a
// weight at M = 1 instead of 4. Otherwise each element is (code - 8) * scale, shared
// by the M FMAs. Either way a term is a product of 3 factors rounded twice, which is
// what SPEC §3's bound counts. The L lanes of a row are summed in shared memory in a
// fixed order (deterministic): every invocation stores its sums, T invocations per
// output add strided lanes, then one adds the T partials (VP sums per pass, so the
// buffer fits the device's shared memory).
#version 450
#extension GL_EXT_control_flow_attributes : require
#extension GL_GOOGLE_include_directive : require
#include "q4_fold.glsl"
#include "q4_w4x8.glsl"

layout(local_size_x_id = 0) in;                // must be L * S
layout(constant_id = 1) const uint L = 32;     // lanes along N8
layout(constant_id = 2) const uint S = 8;      // rows of invocations per workgroup
layout(constant_id = 3) const uint MR = 1;     // M, the rows of dout (1..8)
layout(constant_id = 4) const uint R = 1;      // k4 rows per invocation
layout(constant_id = 5) const uint U = 1;      // block columns per invocation per round
layout(constant_id = 6) const bool DS = true;  // scale dout (else each element)
layout(constant_id = 7) const uint VP0 = 4;    // sums per pass of the sum (shared size)
const uint WG = L * S;
const uint V = MR * R * 4u;                    // sums per invocation
const uint VP = V < VP0 ? V : VP0;
const uint O = S * VP;                         // outputs per pass
const uint T = WG / O > 0u ? WG / O : 1u;      // invocations per output
const uint STRIDE = WG + 1u;                   // one sum's row: conflict-free reads

layout(set = 0, binding = 0) readonly buffer D { vec4 d4[]; };       // dout [M, N]
layout(set = 0, binding = 1) readonly buffer W { uvec4 w4[]; };      // W_4X8 blocks
layout(set = 0, binding = 2) readonly buffer SC { vec4 s4[]; };      // [K/gs, N]
layout(set = 0, binding = 3) writeonly buffer DX { float dx1[]; };   // [M, K]

layout(push_constant) uniform P {
    uint N, K, gs, N8;
    uint strips;     // workgroups that do work (the grid may be folded)
} pc;

shared float red[VP * STRIDE];  // [sum of the pass][tid (+ pad)]
shared float red2[O * T];       // [t][output]

vec4 acc[MR][R];     // dx[m][4*k4 .. 4*k4+3] for this invocation's k4 rows

void main()
{
    uint gid = q4_flat_group();
    if (gid >= pc.strips)
        return;
    uint tid = gl_LocalInvocationIndex;
    uint lane = tid % L, row = tid / L;
    uint K4 = pc.K / 4u;
    uint k4_0 = (gid * S + row) * R;
    // k4_0 is a multiple of R: the R rows share one group when gs/4 is a multiple of R.
    bool one_group = (pc.gs / 4u) % R == 0u;

    uint grp[R];
    bool ok[R];
    [[unroll]] for (uint r = 0; r < R; r++) {
        ok[r] = k4_0 + r < K4;
        grp[r] = ok[r] ? (4u * (k4_0 + r)) / pc.gs : 0u;
        [[unroll]] for (uint m = 0; m < MR; m++)
            acc[m][r] = vec4(0.0);
    }

    for (uint nb = lane; nb < pc.N8; nb += L * U) {
        uvec4 blk[U][R];
        vec4 d_lo[U][MR], d_hi[U][MR];
        // Issue every load of the round first. Past N8, a zero block with zero dout.
        [[unroll]] for (uint u = 0; u < U; u++) {
            uint n8 = nb + u * L;
            bool in_n = n8 < pc.N8;
            // The upper half of an odd-N4 block is padding: dout and scale are taken as 0
            // there (never read), so its codes never matter.
            bool hi_ok = 8u * n8 + 4u < pc.N;
            [[unroll]] for (uint r = 0; r < R; r++)
                blk[u][r] = in_n && ok[r] ? w4[(k4_0 + r) * pc.N8 + n8] : uvec4(0x88888888u);
            [[unroll]] for (uint m = 0; m < MR; m++) {
                uint di = (m * pc.N + 8u * n8) / 4u;
                d_lo[u][m] = in_n ? d4[di] : vec4(0.0);
                d_hi[u][m] = in_n && hi_ok ? d4[di + 1u] : vec4(0.0);
            }
        }
        [[unroll]] for (uint u = 0; u < U; u++) {
            uint n8 = min(nb + u * L, pc.N8 - 1u);   // past N8: zero dout, any scale
            bool hi_ok = 8u * n8 + 4u < pc.N;
            vec4 s_lo, s_hi;
            vec4 ds_lo[MR], ds_hi[MR];   // DS: dout * scale of this block column
            [[unroll]] for (uint r = 0; r < R; r++) {
                if (r == 0u || !one_group) {
                    uint sidx = (grp[r] * pc.N + 8u * n8) / 4u;
                    s_lo = s4[sidx];
                    s_hi = hi_ok ? s4[sidx + 1u] : vec4(0.0);
                    if (DS) {
                        [[unroll]] for (uint m = 0; m < MR; m++) {
                            ds_lo[m] = d_lo[u][m] * s_lo;
                            ds_hi[m] = d_hi[u][m] * s_hi;
                        }
                    }
                }
                vec4 v[8];   // v[i]: row i of the block along K, dequantized (DS: unscaled)
                uvec4 bw = blk[u][r], bh = bw >> 16u;
                [[unroll]] for (uint c = 0; c < 2; c++) {   // words c (rows 0..3), 2+c (rows 4..7)
                    v[2u * c] = q4_row4_h(bw[c], bh[c], 0u);
                    v[2u * c + 1u] = q4_row4_h(bw[c], bh[c], 1u);
                    v[4u + 2u * c] = q4_row4_h(bw[2u + c], bh[2u + c], 0u);
                    v[5u + 2u * c] = q4_row4_h(bw[2u + c], bh[2u + c], 1u);
                }
                if (DS) {
                    [[unroll]] for (uint m = 0; m < MR; m++) {
                        [[unroll]] for (uint i = 0; i < 4; i++) {
                            acc[m][r] += ds_lo[m][i] * v[i];
                            acc[m][r] += ds_hi[m][i] * v[4u + i];
                        }
                    }
                } else {
                    [[unroll]] for (uint i = 0; i < 4; i++) {
                        v[i] *= s_lo[i];
                        v[4u + i] *= s_hi[i];
                    }
                    [[unroll]] for (uint m = 0; m < MR; m++) {
                        [[unroll]] for (uint i = 0; i < 4; i++) {
                            acc[m][r] += d_lo[u][m][i] * v[i];
                            acc[m][r] += d_hi[u][m][i] * v[4u + i];
                        }
                    }
                }
            }
        }
    }

    // Sum the lanes, VP sums per pass. Sum vv = (m * R + r) * 4 + column of
    // invocation (row, lane) lives at red[(vv - v0) * STRIDE + row * L + lane];
    // output o = row * VP + vv - v0 is added by T invocations over lanes t, t + T, ...,
    // then one adds the T partials in order.
    [[unroll]] for (uint v0 = 0; v0 < V; v0 += VP) {
        if (v0 > 0u)
            barrier();   // the previous pass's reads are done
        [[unroll]] for (uint m = 0; m < MR; m++)
            [[unroll]] for (uint r = 0; r < R; r++)
                [[unroll]] for (uint c = 0; c < 4; c++) {
                    uint vv = (m * R + r) * 4u + c;
                    if (vv >= v0 && vv < v0 + VP)
                        red[(vv - v0) * STRIDE + tid] = acc[m][r][c];
                }
        barrier();
        for (uint q = tid; q < O * T; q += WG) {
            uint o = q % O, t = q / O;
            uint orow = o / VP, w = o % VP;
            float sum = 0.0;
            for (uint ln = t; ln < L; ln += T)
                sum += red[w * STRIDE + orow * L + ln];
            red2[q] = sum;
        }
        barrier();
        for (uint o = tid; o < O; o += WG) {
            uint orow = o / VP, vv = v0 + o % VP;
            uint c = vv % 4u, r = (vv / 4u) % R, m = vv / (4u * R);
            uint k4 = (gid * S + orow) * R + r;
            if (vv < V && k4 < K4) {
                float sum = 0.0;
                for (uint t = 0u; t < T; t++)
                    sum += red2[t * O + o];
                dx1[m * pc.K + 4u * k4 + c] = sum;
            }
        }
    }
}
