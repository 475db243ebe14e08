// q4gsw_linear_backward_flat.wgsl: dx = dout @ dequant(W), written the way ExecuTorch's
// WebGPU kernels are (their interface, not their code): the output first, then the
// inputs, a uniform struct of sizes last; the weight in the flat layout (SPEC §1a)
// read as u32 words; the scales' rows padded to scales_stride floats; the workgroup
// size an override. The grid is 1-D (x may be folded over y by the harness): each
// invocation computes one dx[m][k], summing over the N rows of W's column k.
struct Sizes {
  M: u32,
  N: u32,
  K: u32,
  group_size: u32,
  scales_stride: u32,
  total_groups: u32,
}

@group(0) @binding(0) var<storage, read_write> t_dx: array<f32>;
@group(0) @binding(1) var<storage, read> t_dout: array<f32>;
@group(0) @binding(2) var<storage, read> t_weight: array<u32>;
@group(0) @binding(3) var<storage, read> t_scales: array<f32>;
@group(0) @binding(4) var<uniform> sizes: Sizes;

override WG_SIZE: u32 = 64u;

@compute @workgroup_size(WG_SIZE)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
        @builtin(local_invocation_index) lid: u32) {
  let group = wid.y * nwg.x + wid.x;   // the flat group index of a folded grid
  let idx = group * WG_SIZE + lid;
  if (group >= sizes.total_groups || idx >= sizes.M * sizes.K) {
    return;
  }
  let m = idx / sizes.K;
  let k = idx % sizes.K;
  let srow = (k / sizes.group_size) * sizes.scales_stride;
  let shift = (k % 2u) * 4u;
  var acc = 0.0;
  for (var n = 0u; n < sizes.N; n++) {
    let b = n * (sizes.K / 2u) + k / 2u;
    let code = (t_weight[b / 4u] >> ((b % 4u) * 8u + shift)) & 0xFu;
    acc += t_dout[m * sizes.N + n] * (f32(i32(code) - 8) * t_scales[srow + n]);
  }
  t_dx[idx] = acc;
}
