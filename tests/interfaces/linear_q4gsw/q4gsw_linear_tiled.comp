// q4gsw_linear_tiled.comp: y [B, S, N] = x [B, S, K] @ dequant(W)^T (+ bias), W in
// W_4X8 (SPEC §1b), written in the interface of ExecuTorch's et_vk kernels
// (README.md): output first, then the inputs (x, W, scales, bias); the sizes
// of y and x as uniform buffers of ivec4 in WHCN order, (N, S, B, 1) and (K, S, B, 1);
// apply_bias, K and the group size as specialisation constants 3-5; local size
// through constants 0-2. One invocation computes a 4x4 tile of one batch's y (4 rows
// s x 4 columns n), so the grid is ceil(N/4) x ceil(S/4) x B invocations, 64 per
// workgroup. Its interface file maps every rank of x onto [B, S, K].
#version 450

layout(std430) buffer;

layout(set = 0, binding = 0) writeonly buffer restrict OutBuf { vec4 t_out[]; };
layout(set = 0, binding = 1) readonly buffer restrict InBuf { vec4 t_in[]; };
layout(set = 0, binding = 2) readonly buffer restrict WeightBuf { uvec4 t_weight[]; };
layout(set = 0, binding = 3) readonly buffer restrict ScalesBuf { vec4 t_scales[]; };
layout(set = 0, binding = 4) readonly buffer restrict BiasBuf { vec4 t_bias[]; };

layout(set = 0, binding = 5) uniform restrict OutSizes { ivec4 out_sizes; };   // (N, S, B, 1)
layout(set = 0, binding = 6) uniform restrict InSizes { ivec4 in_sizes; };     // (K, S, B, 1)

layout(local_size_x_id = 0, local_size_y_id = 1, local_size_z_id = 2) in;

layout(constant_id = 3) const int apply_bias = 0;
layout(constant_id = 4) const int K = 32;
layout(constant_id = 5) const int group_size = 32;

// The four values (code - 8) of word w's row r (0: low nibbles, 1: high) along K.
vec4 row_values(uint w, int r)
{
    const uvec4 sh = uvec4(0u, 8u, 16u, 24u) + 4u * uint(r);
    return vec4((uvec4(w) >> sh) & 0xFu) - 8.0;
}

void main()
{
    const int n4 = int(gl_GlobalInvocationID.x);
    const int s0 = 4 * int(gl_GlobalInvocationID.y);
    const int batch = int(gl_GlobalInvocationID.z);
    const int N4 = out_sizes.x / 4, S = out_sizes.y, B = out_sizes.z;
    if (n4 >= N4 || s0 >= S || batch >= B)
        return;
    const int K4 = K / 4, N8 = (N4 + 1) / 2;
    const int first = batch * S;   // the batch's first row of x and y
    // Rows past S (a partial tile) read the batch's last row and are never stored.
    int rows[4];
    for (int i = 0; i < 4; i++)
        rows[i] = first + min(s0 + i, S - 1);

    vec4 acc[4] = vec4[4](vec4(0.0), vec4(0.0), vec4(0.0), vec4(0.0));   // acc[m][n]
    for (int k4 = 0; k4 < K4; k4++) {
        const uvec4 block = t_weight[k4 * N8 + n4 / 2];
        const uvec2 words = (n4 & 1) == 0 ? block.xy : block.zw;
        const vec4 s = t_scales[((4 * k4) / group_size) * N4 + n4];   // scales of the 4 columns
        vec4 w[4];                                                    // w[n] along k
        for (int j = 0; j < 4; j++)
            w[j] = row_values(words[j >> 1], j & 1) * s[j];
        for (int i = 0; i < 4; i++) {
            const vec4 xv = t_in[rows[i] * K4 + k4];
            acc[i] += vec4(dot(xv, w[0]), dot(xv, w[1]), dot(xv, w[2]), dot(xv, w[3]));
        }
    }
    const vec4 bias = apply_bias != 0 ? t_bias[n4] : vec4(0.0);
    for (int i = 0; i < 4; i++)
        if (s0 + i < S)
            t_out[(first + s0 + i) * N4 + n4] = acc[i] + bias;
}
