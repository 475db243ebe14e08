// q4vk: bindings=4 push=20
// linear_q4gsw_backward_gemv.comp: dx[M,K] = dout[M,N] @ dequant(W) for M = 1..8, a
// stream over the packed weights and their scales.
//
// A workgroup owns S*R consecutive k4 rows (4*S*R columns of dx); invocation
// (lane, row) owns the R k4 rows row*R.. of it and walks the block columns
// n8 = lane, lane + L, ... (consecutive lanes read consecutive uvec4 blocks of one
// k4 row). Per block it dequantizes (code - 8) * scale (each row's scale is fixed by
// the k4's group; the reference's order, so a flushed denormal costs at most 2^-126
// per product) and accumulates dout * that into 4 columns of dx per k4 row; R > 1
// reuses the dout loads over R blocks. The L lanes are summed
// with a tree in shared memory, one row of dout at a time.
#version 450
#extension GL_EXT_control_flow_attributes : require
#extension GL_GOOGLE_include_directive : require
#include "q4_w4x8.glsl"

layout(local_size_x_id = 0) in;                // must be L * S
layout(constant_id = 1) const uint L = 32;     // lanes along N8, a power of two
layout(constant_id = 2) const uint S = 8;      // invocations along K per workgroup
layout(constant_id = 3) const uint MR = 1;     // M, the rows of dout (1..8)
layout(constant_id = 4) const uint R = 1;      // k4 rows per invocation
const uint WG = L * S;

layout(set = 0, binding = 0) readonly buffer D { vec4 d4[]; };       // dout [M, N]
layout(set = 0, binding = 1) readonly buffer W { uvec4 w4[]; };      // W_4X8 blocks
layout(set = 0, binding = 2) readonly buffer SC { vec4 s4[]; };      // [K/gs, N]
layout(set = 0, binding = 3) writeonly buffer DX { vec4 dx4[]; };    // [M, K]

layout(push_constant) uniform P {
    uint N, K, gs, N8;
    uint strips;     // workgroups that do work (the grid may be folded)
} pc;

shared vec4 red[WG];

vec4 acc[MR][R];     // dx[m][4*k4 .. 4*k4+3] for this invocation's k4 rows

void main()
{
    uint gid = gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x;
    if (gid >= pc.strips)
        return;
    uint tid = gl_LocalInvocationIndex;
    uint lane = tid % L, row = tid / L;
    uint K4 = pc.K / 4u;
    uint k4_0 = (gid * S + row) * R;

    uint grp[R];
    bool ok[R];
    [[unroll]] for (uint r = 0; r < R; r++) {
        ok[r] = k4_0 + r < K4;
        grp[r] = ok[r] ? (4u * (k4_0 + r)) / pc.gs : 0u;
        [[unroll]] for (uint m = 0; m < MR; m++)
            acc[m][r] = vec4(0.0);
    }

    for (uint n8 = lane; n8 < pc.N8; n8 += L) {
        uint n0 = 8u * n8;
        // The upper half of an odd-N4 block is padding: dout and scale are taken as 0
        // there (never read), so its codes never matter.
        bool hi_ok = n0 + 4u < pc.N;
        uvec4 blk[R];
        [[unroll]] for (uint r = 0; r < R; r++)
            blk[r] = ok[r] ? w4[(k4_0 + r) * pc.N8 + n8] : uvec4(0x88888888u);
        vec4 d_lo[MR], d_hi[MR];
        [[unroll]] for (uint m = 0; m < MR; m++) {
            d_lo[m] = d4[(m * pc.N + n0) / 4u];
            d_hi[m] = hi_ok ? d4[(m * pc.N + n0) / 4u + 1u] : vec4(0.0);
        }
        [[unroll]] for (uint r = 0; r < R; r++) {
            uint sidx = (grp[r] * pc.N + n0) / 4u;
            vec4 s_lo = s4[sidx];
            vec4 s_hi = hi_ok ? s4[sidx + 1u] : vec4(0.0);
            vec4 v[8];   // v[i]: row i of the block along K, dequantized
            [[unroll]] for (uint c = 0; c < 2; c++) {   // words c (rows 0..3), 2+c (rows 4..7)
                v[2u * c] = q4_row4(blk[r][c], 0u) * s_lo[2u * c];
                v[2u * c + 1u] = q4_row4(blk[r][c], 1u) * s_lo[2u * c + 1u];
                v[4u + 2u * c] = q4_row4(blk[r][2u + c], 0u) * s_hi[2u * c];
                v[5u + 2u * c] = q4_row4(blk[r][2u + c], 1u) * s_hi[2u * c + 1u];
            }
            [[unroll]] for (uint m = 0; m < MR; m++) {
                [[unroll]] for (uint i = 0; i < 4; i++) {
                    acc[m][r] += d_lo[m][i] * v[i];
                    acc[m][r] += d_hi[m][i] * v[4u + i];
                }
            }
        }
    }

    // Sum the lanes: a tree over `lane` in shared memory, per row of dout and k4 row.
    [[unroll]] for (uint m = 0; m < MR; m++) {
        [[unroll]] for (uint r = 0; r < R; r++) {
            red[tid] = acc[m][r];
            barrier();
            [[unroll]] for (uint s = L / 2u; s > 0u; s >>= 1) {
                if (lane < s)
                    red[tid] += red[tid + s];
                barrier();
            }
            if (lane == 0u && ok[r])
                dx4[m * K4 + k4_0 + r] = red[tid];
            barrier();   // red is rewritten next
        }
    }
}
