// linear_dw.wgsl: dW = dout^T @ x, dense fp32 (SPEC §2), written the way ExecuTorch's
// WebGPU kernels are (their interface, not their code): the output first, then the
// inputs, a uniform struct of sizes last; the workgroup size an override (x) with a
// fixed height. Each invocation computes one dW[n][k], k on x and n on y.
struct Sizes {
  M: u32,
  N: u32,
  K: u32,
}

@group(0) @binding(0) var<storage, read_write> t_dw: array<f32>;
@group(0) @binding(1) var<storage, read> t_dout: array<f32>;
@group(0) @binding(2) var<storage, read> t_x: array<f32>;
@group(0) @binding(3) var<uniform> sizes: Sizes;

override WG_X: u32 = 16u;

@compute @workgroup_size(WG_X, 4)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
  let k = gid.x;
  let n = gid.y;
  if (k >= sizes.K || n >= sizes.N) {
    return;
  }
  var acc = 0.0;
  for (var m = 0u; m < sizes.M; m++) {
    acc += t_dout[m * sizes.N + n] * t_x[m * sizes.K + k];
  }
  t_dw[n * sizes.K + k] = acc;
}
