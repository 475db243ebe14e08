// adamw_step.wgsl: one AdamW step in place (SPEC §2), written the way ExecuTorch's
// WebGPU kernels are (their interface, not their code): the updated tensors first,
// then the gradient; the hyper-parameters a uniform struct, here in a bind group of
// its own (@group(1)); the workgroup size an override. One invocation per element;
// the grid is 1-D and may be folded over y by the harness.
struct AdamWParams {
  numel: u32,
  lr: f32,
  beta1: f32,
  beta2: f32,
  eps: f32,
  weight_decay: f32,
  bias_correction1: f32,
  bias_correction2: f32,
}

@group(0) @binding(0) var<storage, read_write> t_param: array<f32>;
@group(0) @binding(1) var<storage, read_write> t_exp_avg: array<f32>;
@group(0) @binding(2) var<storage, read_write> t_exp_avg_sq: array<f32>;
@group(0) @binding(3) var<storage, read> t_grad: array<f32>;
@group(1) @binding(0) var<uniform> params: AdamWParams;

override WG_SIZE: u32 = 256u;

@compute @workgroup_size(WG_SIZE)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
        @builtin(local_invocation_index) lid: u32) {
  let i = (wid.y * nwg.x + wid.x) * WG_SIZE + lid;
  if (i >= params.numel) {
    return;
  }
  let g = t_grad[i];
  let decayed = t_param[i] - (params.lr * params.weight_decay) * t_param[i];
  let m = params.beta1 * t_exp_avg[i] + (1.0 - params.beta1) * g;
  let v = params.beta2 * t_exp_avg_sq[i] + (1.0 - params.beta2) * g * g;
  let denom = sqrt(v / params.bias_correction2) + params.eps;
  t_param[i] = decayed - params.lr * (m / params.bias_correction1) / denom;
  t_exp_avg[i] = m;
  t_exp_avg_sq[i] = v;
}
