// q4vk: bindings=3 push=16
// dequantize_t.comp: W^T [K, N], W[n][k] = (code - 8) * scale from W_4X8 (SPEC §1),
// written transposed: the weight pass of the dense forward (gpu/q4vk_op_linear_dense.c),
// whose GEMM reads W depth-major. One invocation per W_4X8 block (one uvec4: 8 rows x
// 4 K), in memory order (k4-major, n8 fastest), so a subgroup reads 32 consecutive
// blocks and each of the block's 4 K rows of W^T gets 8 consecutive floats: 32
// invocations write 1 KiB of a row of W^T contiguously. Rows >= N (the upper half of an
// odd-N4 last block) are neither scaled nor written. Workgroups of 64 over a folded grid.
#version 450
#extension GL_EXT_control_flow_attributes : require
#extension GL_GOOGLE_include_directive : require
#include "q4_fold.glsl"
#include "q4_w4x8.glsl"

layout(local_size_x = 64) in;

layout(set = 0, binding = 0) readonly buffer W { uvec4 w4[]; };      // W_4X8 blocks
layout(set = 0, binding = 1) readonly buffer S { vec4 s4[]; };       // [K/gs, N]
layout(set = 0, binding = 2) writeonly buffer O { vec4 o4[]; };      // W^T [K, N]

layout(push_constant) uniform P {
    uint N, K, gs, N8;
} pc;

void main()
{
    uint i = q4_flat_group() * 64u + gl_LocalInvocationIndex;
    if (i >= pc.K / 4u * pc.N8)
        return;
    uint k4 = i / pc.N8, n8 = i % pc.N8;
    uvec4 blk = w4[i];
    uint n0 = 8u * n8;                                   // the block's first row
    bool upper = n0 + 4u < pc.N;                         // rows n0+4 .. n0+7 exist
    uint si = (((4u * k4) / pc.gs) * pc.N + n0) / 4u;    // N % 4 == 0: whole vec4
    vec4 lo = s4[si], hi = upper ? s4[si + 1u] : vec4(0.0);
    uint N4 = pc.N / 4u;
    [[unroll]] for (uint b = 0u; b < 4u; b++) {          // K = 4*k4 + b
        uint row = (4u * k4 + b) * N4 + 2u * n8;
        o4[row] = q4_col4(blk.xy, b) * lo;
        if (upper)
            o4[row + 1u] = q4_col4(blk.zw, b) * hi;
    }
}
