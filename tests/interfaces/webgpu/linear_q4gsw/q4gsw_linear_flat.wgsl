// q4gsw_linear_flat.wgsl: y = x @ dequant(W)^T (+ bias), written the way ExecuTorch's
// WebGPU kernels are (their interface, not their code): the output first, then the
// inputs, a uniform struct of sizes last (vectors of them: a vec3 sits at offset 16,
// as WGSL's uniform layout aligns it); the weight in the flat layout (SPEC §1a:
// [N][K/2] bytes, even k in the low nibble) read as u32 words, a word (8 codes) at a
// time; the scales' rows padded to scales_stride floats; the workgroup size an
// override. One invocation per output element: n on x, m on y.
struct Sizes {
  mn: vec2<u32>,           // M, N
  k_gs_stride: vec3<u32>,  // K, the group size, the scales' row stride
  has_bias: u32,
}

@group(0) @binding(0) var<storage, read_write> t_out: array<f32>;
@group(0) @binding(1) var<storage, read> t_in: array<f32>;
@group(0) @binding(2) var<storage, read> t_weight: array<u32>;
@group(0) @binding(3) var<storage, read> t_scales: array<f32>;
@group(0) @binding(4) var<storage, read> t_bias: array<f32>;
@group(0) @binding(5) var<uniform> sizes: Sizes;

override WG_SIZE: u32 = 64u;

// The 4-bit code of W[n][k] as a signed weight: byte n * K/2 + k/2, high nibble for odd k.
fn weight_q(n: u32, k: u32) -> f32 {
  let b = n * (sizes.k_gs_stride.x / 2u) + k / 2u;
  let code = (t_weight[b / 4u] >> ((b % 4u) * 8u + (k % 2u) * 4u)) & 0xFu;
  return f32(i32(code) - 8);
}

@compute @workgroup_size(WG_SIZE)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
  let n = gid.x;
  let m = gid.y;
  if (n >= sizes.mn.y || m >= sizes.mn.x) {
    return;
  }
  var acc = 0.0;
  for (var k = 0u; k < sizes.k_gs_stride.x; k++) {
    let s = t_scales[(k / sizes.k_gs_stride.y) * sizes.k_gs_stride.z + n];
    acc += t_in[m * sizes.k_gs_stride.x + k] * (weight_q(n, k) * s);
  }
  if (sizes.has_bias != 0u) {
    acc += t_bias[n];
  }
  t_out[m * sizes.mn.y + n] = acc;
}
