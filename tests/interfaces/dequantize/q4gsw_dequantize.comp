// q4gsw_dequantize.comp: W_4X8 (SPEC §1b) + scales -> Wf [N, K] fp32, written in the
// interface of ExecuTorch's et_vk kernels (README.md): the output binds first,
// tensor sizes come as uniform buffers of ivec4 in WHCN order, the group size is a
// specialisation constant, the local size comes through constants 0-2, and one
// invocation computes a 4x4 output tile (4 rows n x 4 columns k), so the grid is
// ceil(K/4) x ceil(N/4) invocations, 64 per workgroup.
//
// The scales tensor may have a padded row stride (elements per group row >= N): its
// WHCN sizes give the stride as the width.
#version 450

layout(std430) buffer;

layout(set = 0, binding = 0) writeonly buffer restrict OutBuf { vec4 t_out[]; };
layout(set = 0, binding = 1) readonly buffer restrict WeightBuf { uvec4 t_weight[]; };
layout(set = 0, binding = 2) readonly buffer restrict ScalesBuf { float t_scales[]; };

layout(set = 0, binding = 3) uniform restrict OutSizes { ivec4 out_sizes; };        // (K, N, 1, 1)
layout(set = 0, binding = 4) uniform restrict ScalesSizes { ivec4 scales_sizes; };  // (stride, K/gs, 1, 1)

layout(local_size_x_id = 0, local_size_y_id = 1, local_size_z_id = 2) in;

layout(constant_id = 3) const int group_size = 32;

void main()
{
    const int k4 = int(gl_GlobalInvocationID.x);
    const int n4 = int(gl_GlobalInvocationID.y);
    const int K4 = out_sizes.x / 4, N4 = out_sizes.y / 4;
    if (k4 >= K4 || n4 >= N4)
        return;
    const int N8 = (N4 + 1) / 2;

    // The block (k4, n4 / 2) holds rows 8 * (n4 / 2) .. + 7; this tile's four rows are
    // its lower (n4 even) or upper (n4 odd) word pair: word c has rows 2c (low
    // nibbles) and 2c + 1 (high nibbles), byte b is column 4 * k4 + b.
    const uvec4 block = t_weight[k4 * N8 + n4 / 2];
    const uvec2 words = (n4 & 1) == 0 ? block.xy : block.zw;

    const int group = (4 * k4) / group_size;
    const int srow = group * scales_sizes.x;
    for (int i = 0; i < 4; i++) {
        const uint w = words[i >> 1];
        const uvec4 sh = uvec4(0u, 8u, 16u, 24u) + 4u * uint(i & 1);
        const vec4 q = vec4((uvec4(w) >> sh) & 0xFu) - 8.0;
        const int n = 4 * n4 + i;
        t_out[n * K4 + k4] = q * t_scales[srow + n];
    }
}
