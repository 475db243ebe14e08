// q4vk: bindings=2 push=16
// linear_transpose.comp: out[c][r] = in[r][c] for fp32 in [R, C] and out [C, ld]
// (ld >= R): a pass of the dense linear path (gpu/q4vk_op_linear_dense.c), which
// turns x or dout depth-major for linear_tn_tiled. Columns R..ld-1 of out are not written: linear_tn_tiled reads them
// (whole vec4) but they feed only output rows it never stores. One workgroup moves a
// 32 x 32 tile through shared memory (row stride 33: the column reads of the second
// half fall in 32 different banks), so that 32 invocations read, and write, 128
// contiguous bytes. Tiles row-major over a folded grid (gpu/shaders/README.md).
#version 450
#extension GL_GOOGLE_include_directive : require
#include "q4_fold.glsl"

layout(local_size_x = 32, local_size_y = 8) in;

layout(set = 0, binding = 0) readonly buffer I { float in1[]; };     // [R, C]
layout(set = 0, binding = 1) writeonly buffer O { float out1[]; };   // [C, ld]

layout(push_constant) uniform Push {
    uint R, C, ld, tiles_c;    // tiles_c = ceil(C / 32); ceil(R / 32) * tiles_c tiles
} pc;

shared float t[32][33];

void main()
{
    uint tile = q4_flat_group();
    if (tile >= (pc.R + 31u) / 32u * pc.tiles_c)
        return;
    uint r0 = tile / pc.tiles_c * 32u, c0 = tile % pc.tiles_c * 32u;
    uint tx = gl_LocalInvocationID.x, ty = gl_LocalInvocationID.y;
    for (uint i = 0u; i < 32u; i += 8u) {
        uint r = r0 + ty + i, c = c0 + tx;
        if (r < pc.R && c < pc.C)
            t[ty + i][tx] = in1[r * pc.C + c];
    }
    barrier();
    for (uint i = 0u; i < 32u; i += 8u) {
        uint c = c0 + ty + i, r = r0 + tx;
        if (c < pc.C && r < pc.R)
            out1[c * pc.ld + r] = t[tx][ty + i];
    }
}
