// fused_ce_sum.wgsl: step 2 of fused cross-entropy: the loss, the sum of the rows'
// losses that step 1 (fused_ce_rows.wgsl) left in a scratch buffer. One workgroup:
// each invocation adds a strided share of the rows, then a tree in workgroup memory.
struct Sizes {
  R: u32,
}

@group(0) @binding(0) var<storage, read_write> t_loss: array<f32>;
@group(0) @binding(1) var<storage, read> t_row_loss: array<f32>;
@group(0) @binding(2) var<uniform> sizes: Sizes;

override WG_SIZE: u32 = 64u;

var<workgroup> partial: array<f32, WG_SIZE>;

@compute @workgroup_size(WG_SIZE)
fn main(@builtin(local_invocation_index) lid: u32) {
  var sum = 0.0;
  for (var r = lid; r < sizes.R; r += WG_SIZE) {
    sum += t_row_loss[r];
  }
  partial[lid] = sum;
  for (var w = WG_SIZE / 2u; w > 0u; w /= 2u) {
    workgroupBarrier();
    if (lid < w) {
      partial[lid] += partial[lid + w];
    }
  }
  if (lid == 0u) {
    t_loss[0] = partial[0];
  }
}
