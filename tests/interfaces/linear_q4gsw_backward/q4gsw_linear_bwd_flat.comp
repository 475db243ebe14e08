// q4gsw_linear_bwd_flat.comp: dx [M, K] = dout [M, N] @ dequant(W), W in the flat
// layout (SPEC §1a: uint8 [N][K/2], even k in the low nibble), written in the
// interface of ExecuTorch's et_vk kernels (README.md): output first, then dout,
// W and scales; the sizes of dx and dout as uniform buffers of ivec4 in WHCN order;
// the group size as specialisation constant 3; local size through constants 0-2.
// One invocation computes a 4x4 tile of dx (4 rows m x 4 columns k), so the grid is
// ceil(K/4) x ceil(M/4) invocations, 64 per workgroup.
#version 450

layout(std430) buffer;

layout(set = 0, binding = 0) writeonly buffer restrict OutBuf { vec4 t_out[]; };
layout(set = 0, binding = 1) readonly buffer restrict DoutBuf { vec4 t_dout[]; };
layout(set = 0, binding = 2) readonly buffer restrict WeightBuf { uint t_weight[]; };
layout(set = 0, binding = 3) readonly buffer restrict ScalesBuf { float t_scales[]; };

layout(set = 0, binding = 4) uniform restrict OutSizes { ivec4 out_sizes; };     // (K, M, 1, 1)
layout(set = 0, binding = 5) uniform restrict DoutSizes { ivec4 dout_sizes; };   // (N, M, 1, 1)

layout(local_size_x_id = 0, local_size_y_id = 1, local_size_z_id = 2) in;

layout(constant_id = 3) const int group_size = 32;

// The values (code - 8) of row n at columns 4 * k4 .. + 3: two bytes of the flat
// layout, at byte n * K/2 + 2 * k4 (even, so both lie in one uint32).
vec4 row_values(int n, int k4, int K)
{
    const int byte = n * (K / 2) + 2 * k4;
    const uint h = t_weight[byte >> 2] >> (8 * (byte & 3));
    const uvec4 codes = (uvec4(h) >> uvec4(0u, 4u, 8u, 12u)) & 0xFu;
    return vec4(codes) - 8.0;
}

void main()
{
    const int k4 = int(gl_GlobalInvocationID.x);
    const int m0 = 4 * int(gl_GlobalInvocationID.y);
    const int K = out_sizes.x, M = out_sizes.y, N = dout_sizes.x;
    const int K4 = K / 4, N4 = N / 4;
    if (k4 >= K4 || m0 >= M)
        return;
    // Rows past M (a partial tile) read row M - 1 and are never stored.
    int rows[4];
    for (int i = 0; i < 4; i++)
        rows[i] = min(m0 + i, M - 1);

    const int srow = ((4 * k4) / group_size) * N;
    vec4 acc[4] = vec4[4](vec4(0.0), vec4(0.0), vec4(0.0), vec4(0.0));   // acc[m] along k
    for (int n4 = 0; n4 < N4; n4++) {
        vec4 w[4];                                                       // w[n] along k
        for (int j = 0; j < 4; j++) {
            const int n = 4 * n4 + j;
            w[j] = row_values(n, k4, K) * t_scales[srow + n];
        }
        for (int i = 0; i < 4; i++) {
            const vec4 d = t_dout[rows[i] * N4 + n4];
            acc[i] += d.x * w[0] + d.y * w[1] + d.z * w[2] + d.w * w[3];
        }
    }
    for (int i = 0; i < 4; i++)
        if (m0 + i < M)
            t_out[(m0 + i) * K4 + k4] = acc[i];
}
