// fused_ce_grad.comp: step 2 of 2 of fused cross-entropy (SPEC §2), written in the
// interface of ExecuTorch's et_vk kernels (README.md): the outputs first
// (dlogits, loss), then the scratch statistics of step 1 (fused_ce_rows.comp), the
// logits and the labels; the logits' sizes (V, R, 1, 1) and n_valid as uniform
// buffers; local size through constants 0-2. One invocation computes a 4x4 tile of
// dlogits (4 rows x 4 columns), so the grid is ceil(V/4) x ceil(R/4) invocations,
// 64 per workgroup:
//   dlogits[r][j] = (exp(x[r][j] - max_r) / sum_r - [j == label_r]) / n_valid,
// 0 on a masked row. Workgroup (0, 0) also sums the rows' losses into loss, in an
// order that depends on R alone.
#version 450

layout(std430) buffer;

layout(set = 0, binding = 0) writeonly buffer restrict DlogitsBuf { float t_dlogits[]; };
layout(set = 0, binding = 1) writeonly buffer restrict LossBuf { float t_loss; };
layout(set = 0, binding = 2) readonly buffer restrict StatsBuf { vec4 t_stats[]; };
layout(set = 0, binding = 3) readonly buffer restrict LogitsBuf { float t_logits[]; };
layout(set = 0, binding = 4) readonly buffer restrict LabelsBuf { int t_labels[]; };

layout(set = 0, binding = 5) uniform restrict LogitsSizes { ivec4 logits_sizes; };   // (V, R, 1, 1)
layout(set = 0, binding = 6) uniform restrict Params { float n_valid; };

layout(local_size_x_id = 0, local_size_y_id = 1, local_size_z_id = 2) in;

const uint NWORKERS = 64u;   // the local size this kernel is written for (8, 8, 1)
shared float sh_loss[NWORKERS];

// loss = sum of the rows' losses: strided partial sums, then a tree. Run by every
// invocation of workgroup (0, 0) (a condition uniform over the group, so its
// barriers are reached by all of it).
void sum_loss(int R)
{
    const uint tid = gl_LocalInvocationIndex;
    float acc = 0.0;
    for (int r = int(tid); r < R; r += int(NWORKERS))
        acc += t_stats[r].z;
    sh_loss[tid] = acc;
    barrier();
    for (uint half_n = NWORKERS / 2u; half_n > 0u; half_n /= 2u) {
        if (tid < half_n)
            sh_loss[tid] += sh_loss[tid + half_n];
        barrier();
    }
    if (tid == 0u)
        t_loss = sh_loss[0];
}

void main()
{
    const int V = logits_sizes.x, R = logits_sizes.y;
    if (gl_WorkGroupID.x == 0u && gl_WorkGroupID.y == 0u)
        sum_loss(R);

    const int j0 = 4 * int(gl_GlobalInvocationID.x);
    const int r0 = 4 * int(gl_GlobalInvocationID.y);
    for (int i = 0; i < 4 && r0 + i < R; i++) {
        const int r = r0 + i;
        const int label = t_labels[r];
        const bool masked = label < 0 || label >= V;
        const vec4 st = t_stats[r];   // (max, sum, loss_r, 0)
        for (int j = j0; j < j0 + 4 && j < V; j++) {
            float g = 0.0;
            if (!masked) {
                const float p = exp(t_logits[r * V + j] - st.x) / st.y;
                g = (p - (j == label ? 1.0 : 0.0)) / n_valid;
            }
            t_dlogits[r * V + j] = g;
        }
    }
}
