// adamw_step.comp: one AdamW step in place (SPEC §2, decoupled weight decay), written
// in the interface of ExecuTorch's et_vk kernels (README.md): param, m and v
// bound read-write first, then grad; numel and the hyper-parameters as push
// constants; local size through constants 0-2; one element per invocation over a
// linear grid of 64 invocations per workgroup, indexed as et_vk's
// linear_idx_from_gid does, which also reads a grid folded over y correctly.
#version 450

layout(std430) buffer;

layout(set = 0, binding = 0) buffer restrict ParamBuf { float t_param[]; };
layout(set = 0, binding = 1) buffer restrict Moment1Buf { float t_exp_avg[]; };
layout(set = 0, binding = 2) buffer restrict Moment2Buf { float t_exp_avg_sq[]; };
layout(set = 0, binding = 3) readonly buffer restrict GradBuf { float t_grad[]; };

layout(push_constant) uniform restrict Params {
    int numel;
    float lr, beta1, beta2, eps;
    float wd;             // 0 when decay is off
    float bc1, bc2;       // 1 - beta1^t, 1 - beta2^t
} pc;

layout(local_size_x_id = 0, local_size_y_id = 1, local_size_z_id = 2) in;

void main()
{
    const uint row_len = gl_NumWorkGroups.x * gl_WorkGroupSize.x;
    const uint idx = gl_GlobalInvocationID.y * row_len + gl_GlobalInvocationID.x;
    if (idx >= uint(pc.numel))
        return;   // the tail of the last group, or a group of a folded grid's excess

    const float grad = t_grad[idx];
    const float decayed = t_param[idx] - pc.lr * pc.wd * t_param[idx];
    const float avg = pc.beta1 * t_exp_avg[idx] + (1.0 - pc.beta1) * grad;
    // SPEC's order, ((1 - beta2) * g) * g, kept by `precise`: without NoContraction a
    // driver may reassociate it into (1 - beta2) * (g * g), which overflows for
    // |g| >= 2^64 (NVIDIA 580.159.04 did: v = inf in adamw_step's huge_grad cases).
    precise const float grad_b2 = (1.0 - pc.beta2) * grad;
    precise const float grad_sq = grad_b2 * grad;
    const float avg_sq = pc.beta2 * t_exp_avg_sq[idx] + grad_sq;
    t_exp_avg[idx] = avg;
    t_exp_avg_sq[idx] = avg_sq;

    const float denom = sqrt(avg_sq / pc.bc2) + pc.eps;
    t_param[idx] = decayed - pc.lr * (avg / pc.bc1) / denom;
}
