// fused_ce_rows.wgsl: step 1 of fused cross-entropy (SPEC §2), written the way
// ExecuTorch's WebGPU kernels are (their interface, not their code): outputs first,
// then inputs, a uniform struct of sizes last; the workgroup size an override, which
// also sizes the reduction arrays. One workgroup per row (the grid may be folded over
// y): the row's max, then its sum of exp(x - max), then dlogits and the row's loss,
// which goes to a scratch buffer for step 2 (fused_ce_sum.wgsl) to add up.
struct Sizes {
  R: u32,
  V: u32,
  n_valid: f32,
}

@group(0) @binding(0) var<storage, read_write> t_dlogits: array<f32>;
@group(0) @binding(1) var<storage, read_write> t_row_loss: array<f32>;
@group(0) @binding(2) var<storage, read> t_logits: array<f32>;
@group(0) @binding(3) var<storage, read> t_labels: array<i32>;
@group(0) @binding(4) var<uniform> sizes: Sizes;

override WG_SIZE: u32 = 64u;

var<workgroup> partial: array<f32, WG_SIZE>;

// The workgroup's reduction of partial[] by max (use_max) or sum, left in partial[0].
fn reduce(lid: u32, use_max: bool) {
  for (var w = WG_SIZE / 2u; w > 0u; w /= 2u) {
    workgroupBarrier();
    if (lid < w) {
      partial[lid] = select(partial[lid] + partial[lid + w], max(partial[lid], partial[lid + w]),
                            use_max);
    }
  }
  workgroupBarrier();
}

@compute @workgroup_size(WG_SIZE)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
        @builtin(local_invocation_index) lid: u32) {
  let r = wid.y * nwg.x + wid.x;
  if (r >= sizes.R) {
    return;
  }
  let base = r * sizes.V;
  let label = t_labels[r];
  if (label < 0) {   // a masked row
    for (var j = lid; j < sizes.V; j += WG_SIZE) {
      t_dlogits[base + j] = 0.0;
    }
    if (lid == 0u) {
      t_row_loss[r] = 0.0;
    }
    return;
  }
  var mx = t_logits[base];
  for (var j = lid; j < sizes.V; j += WG_SIZE) {
    mx = max(mx, t_logits[base + j]);
  }
  partial[lid] = mx;
  reduce(lid, true);
  mx = partial[0];
  workgroupBarrier();
  var sum = 0.0;
  for (var j = lid; j < sizes.V; j += WG_SIZE) {
    sum += exp(t_logits[base + j] - mx);
  }
  partial[lid] = sum;
  reduce(lid, false);
  sum = partial[0];
  for (var j = lid; j < sizes.V; j += WG_SIZE) {
    let one_hot = select(0.0, 1.0, j == u32(label));
    t_dlogits[base + j] = (exp(t_logits[base + j] - mx) / sum - one_hot) / sizes.n_valid;
  }
  if (lid == 0u) {
    t_row_loss[r] = ((mx - t_logits[base + u32(label)]) + log(sum)) / sizes.n_valid;
  }
}
