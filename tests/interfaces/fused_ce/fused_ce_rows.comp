// fused_ce_rows.comp: step 1 of 2 of fused cross-entropy (SPEC §2), written in the
// interface of ExecuTorch's et_vk kernels (README.md): the scratch output
// first, then logits and labels; the logits' sizes (V, R, 1, 1) and n_valid as
// uniform buffers; local size through constants 0-2 (64 invocations).
//
// One workgroup per row (a 1-D grid of R groups, which q4cts may fold over y): each
// invocation folds its strided share of the row into a running (max, sum of
// exp(x - max)), rescaling the sum when the max grows; the 64 pairs are merged by a
// tree in shared memory. The row's statistics go to the scratch buffer as
// vec4(max, sum, loss_r, 0), loss_r = (lse - x[label]) / n_valid, for step 2
// (fused_ce_grad.comp), which writes dlogits and sums the loss. A masked row (label
// < 0; a label >= V is rejected on the host and treated as masked here, so nothing
// is read out of range) gets loss_r = 0 and is not read.
#version 450

layout(std430) buffer;

layout(set = 0, binding = 0) writeonly buffer restrict StatsBuf { vec4 t_stats[]; };
layout(set = 0, binding = 1) readonly buffer restrict LogitsBuf { float t_logits[]; };
layout(set = 0, binding = 2) readonly buffer restrict LabelsBuf { int t_labels[]; };

layout(set = 0, binding = 3) uniform restrict LogitsSizes { ivec4 logits_sizes; };   // (V, R, 1, 1)
layout(set = 0, binding = 4) uniform restrict Params { float n_valid; };

layout(local_size_x_id = 0, local_size_y_id = 1, local_size_z_id = 2) in;

const uint NWORKERS = 64u;   // the local size this kernel is written for (64, 1, 1)
shared float sh_max[NWORKERS];
shared float sh_sum[NWORKERS];

void main()
{
    const int V = logits_sizes.x, R = logits_sizes.y;
    const int row = int(gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x);
    if (row >= R)
        return;   // a group of a folded grid's excess: the whole group leaves
    const uint tid = gl_LocalInvocationID.x;
    const int label = t_labels[row];
    if (label < 0 || label >= V) {
        if (tid == 0u)
            t_stats[row] = vec4(0.0, 1.0, 0.0, 0.0);
        return;   // the whole group leaves: the label is the same for all of it
    }
    const int base = row * V;

    // This invocation's share: columns tid, tid + 64, ... (none when tid >= V). An
    // empty share has sum 0 and is skipped by the merge, so no exp of a sentinel.
    float mx = 0.0, sum = 0.0;
    for (int j = int(tid); j < V; j += int(NWORKERS)) {
        const float x = t_logits[base + j];
        if (sum == 0.0) {
            mx = x;
            sum = 1.0;
        } else if (x > mx) {
            sum = sum * exp(mx - x) + 1.0;
            mx = x;
        } else {
            sum += exp(x - mx);
        }
    }
    sh_max[tid] = mx;
    sh_sum[tid] = sum;
    barrier();
    // A lower invocation's share is never shorter than a higher one's, so where the
    // upper pair is non-empty the lower one is too.
    for (uint half_n = NWORKERS / 2u; half_n > 0u; half_n /= 2u) {
        if (tid < half_n && sh_sum[tid + half_n] != 0.0) {
            const float m2 = sh_max[tid + half_n], s2 = sh_sum[tid + half_n];
            const float m1 = sh_max[tid], s1 = sh_sum[tid];
            if (m2 > m1) {
                sh_max[tid] = m2;
                sh_sum[tid] = s1 * exp(m1 - m2) + s2;
            } else {
                sh_sum[tid] = s1 + s2 * exp(m2 - m1);
            }
        }
        barrier();
    }
    if (tid == 0u) {
        const float row_max = sh_max[0], row_sum = sh_sum[0];
        const float lse = row_max + log(row_sum);
        t_stats[row] = vec4(row_max, row_sum, (lse - t_logits[base + label]) / n_valid, 0.0);
    }
}
