// q4gsw_dequantize_flat.wgsl: Wf[n][k] = (code(n, k) - 8) * scales[k / gs][n], written
// the way ExecuTorch's WebGPU kernels are (their interface, not their code): the
// output first, then the inputs, a uniform struct of sizes last; the weight in the
// flat layout (SPEC §1a: [N][K/2] bytes, even k in the low nibble) read as u32 words;
// the scales' rows padded to scales_stride floats; the workgroup size an override.
// One invocation per weight byte (two elements of one row, in one scale group since
// gs is a multiple of 4).
struct Sizes {
  N: u32,
  K: u32,
  group_size: u32,
  scales_stride: u32,
}

@group(0) @binding(0) var<storage, read_write> t_out: array<f32>;
@group(0) @binding(1) var<storage, read> t_weight: array<u32>;
@group(0) @binding(2) var<storage, read> t_scales: array<f32>;
@group(0) @binding(3) var<uniform> sizes: Sizes;

override WG_SIZE: u32 = 64u;

@compute @workgroup_size(WG_SIZE)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
  let j = gid.x;
  let n = gid.y;
  let row_bytes = sizes.K / 2u;
  if (j >= row_bytes || n >= sizes.N) {
    return;
  }
  let b = n * row_bytes + j;
  let pair = (t_weight[b / 4u] >> ((b % 4u) * 8u)) & 0xFFu;
  let s = t_scales[(2u * j / sizes.group_size) * sizes.scales_stride + n];
  t_out[n * sizes.K + 2u * j] = f32(i32(pair & 0xFu) - 8) * s;
  t_out[n * sizes.K + 2u * j + 1u] = f32(i32(pair >> 4u) - 8) * s;
}
