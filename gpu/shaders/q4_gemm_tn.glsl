// q4_gemm_tn.glsl: the fetch_a / stage_a / fetch_b / stage_b hooks of q4_gemm.glsl for
// two fp32 operands that both lie depth-major: A[row][d] = PA[d][row] and
// B[d][col] = PB[d][col]. Each is fetched as vec4 along its contiguous (non-depth)
// dimension and stored to shared memory as it is: no transpose, no decode, every
// store a whole vec4 (linear_dw_tiled, linear_tn_tiled). Include-only, after
// q4_gemm.glsl. The kernel defines before the include:
//   TN_A(i), TN_B(i)       vec4 i of PA / PB
//   TN_A_LD4, TN_B_LD4     vec4 per depth row of PA / PB (every one of them is read;
//                          rows, cols and depth past the ends give zero)
#ifndef Q4_GEMM_TN_GLSL
#define Q4_GEMM_TN_GLSL

// A: BK depth rows x BM/4 vec4 along the rows.
const uint A_UNITS = BM * BK / 4;
const uint A_IT = (A_UNITS + WG - 1) / WG;
vec4 a_reg[A_IT];

void fetch_a(uint row0, uint d0)
{
    [[unroll]] for (uint it = 0; it < A_IT; it++) {
        uint u = gl_LocalInvocationIndex + it * WG;
        uint d = d0 + u / (BM / 4u);
        uint r4 = row0 / 4u + u % (BM / 4u);
        a_reg[it] = (u < A_UNITS && d < G_DEPTH && r4 < TN_A_LD4) ? TN_A(d * TN_A_LD4 + r4)
                                                                   : vec4(0.0);
    }
}

void stage_a(uint buf)
{
    [[unroll]] for (uint it = 0; it < A_IT; it++) {
        uint u = gl_LocalInvocationIndex + it * WG;
        if (u < A_UNITS)
            as_store4(buf, u / (BM / 4u), u % (BM / 4u), a_reg[it]);
    }
}

// B: BK depth rows x BN/4 vec4 along the cols.
const uint B_UNITS = BN * BK / 4;
const uint B_IT = (B_UNITS + WG - 1) / WG;
vec4 b_reg[B_IT];

void fetch_b(uint col0, uint d0)
{
    [[unroll]] for (uint it = 0; it < B_IT; it++) {
        uint u = gl_LocalInvocationIndex + it * WG;
        uint d = d0 + u / (BN / 4u);
        uint c4 = col0 / 4u + u % (BN / 4u);
        b_reg[it] = (u < B_UNITS && d < G_DEPTH && c4 < TN_B_LD4) ? TN_B(d * TN_B_LD4 + c4)
                                                                   : vec4(0.0);
    }
}

void stage_b(uint buf)
{
    [[unroll]] for (uint it = 0; it < B_IT; it++) {
        uint u = gl_LocalInvocationIndex + it * WG;
        if (u < B_UNITS)
            bs_store4(buf, u / (BN / 4u), u % (BN / 4u), b_reg[it]);
    }
}

#endif
