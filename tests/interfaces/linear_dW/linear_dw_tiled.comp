// linear_dw_tiled.comp: dW [N, K] = dout [M, N]^T @ x [M, K], dense fp32, written in
// the interface of ExecuTorch's et_vk kernels (README.md): output first, then
// dout and x; their sizes as uniform buffers of ivec4 in WHCN order; local size
// through constants 0-2. One invocation computes a 4x4 tile of dW (4 rows n x 4
// columns k); the tiles are numbered linearly (k fastest) over a 1-D grid of 64
// invocations per workgroup, which q4cts may fold over y when it exceeds the device's
// group count: the flat index is rebuilt from both dimensions.
#version 450

layout(std430) buffer;

layout(set = 0, binding = 0) writeonly buffer restrict OutBuf { vec4 t_out[]; };
layout(set = 0, binding = 1) readonly buffer restrict DoutBuf { vec4 t_dout[]; };
layout(set = 0, binding = 2) readonly buffer restrict InBuf { vec4 t_in[]; };

layout(set = 0, binding = 3) uniform restrict DoutSizes { ivec4 dout_sizes; };   // (N, M, 1, 1)
layout(set = 0, binding = 4) uniform restrict InSizes { ivec4 in_sizes; };       // (K, M, 1, 1)

layout(local_size_x_id = 0, local_size_y_id = 1, local_size_z_id = 2) in;

void main()
{
    const uint group = gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x;
    const int tile = int(group * gl_WorkGroupSize.x + gl_LocalInvocationID.x);
    const int N4 = dout_sizes.x / 4, K4 = in_sizes.x / 4, M = in_sizes.y;
    if (tile >= N4 * K4)
        return;   // past the last tile, or a group of the folded grid's excess
    const int n4 = tile / K4, k4 = tile % K4;

    vec4 acc[4] = vec4[4](vec4(0.0), vec4(0.0), vec4(0.0), vec4(0.0));   // acc[n] along k
    int m = 0;
    for (; m + 4 <= M; m += 4) {   // four rows of the reduction per step
        for (int r = 0; r < 4; r++) {
            const vec4 d = t_dout[(m + r) * N4 + n4];
            const vec4 xv = t_in[(m + r) * K4 + k4];
            acc[0] += d.x * xv; acc[1] += d.y * xv; acc[2] += d.z * xv; acc[3] += d.w * xv;
        }
    }
    for (; m < M; m++) {           // the last M % 4 rows
        const vec4 d = t_dout[m * N4 + n4];
        const vec4 xv = t_in[m * K4 + k4];
        acc[0] += d.x * xv; acc[1] += d.y * xv; acc[2] += d.z * xv; acc[3] += d.w * xv;
    }
    for (int j = 0; j < 4; j++)
        t_out[(4 * n4 + j) * K4 + k4] = acc[j];
}
