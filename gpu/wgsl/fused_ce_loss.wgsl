// fused_ce_loss.wgsl: loss = sum of row_loss[0..R), one workgroup of 256, the WebGPU
// kernel (docs/webgpu.md): each invocation sums rows t, t + 256, ..., then a tree in
// workgroup memory; the order is fixed, so the loss is the same on every run.

struct Params { R: u32 }

const WG = 256u;
@group(0) @binding(2) var<storage, read_write> loss: array<f32>;
@group(0) @binding(4) var<storage, read> row_loss: array<f32>;
@group(0) @binding(8) var<uniform> params: Params;

var<workgroup> sh: array<f32, WG>;

@compute @workgroup_size(256)
fn main(@builtin(local_invocation_index) t: u32) {
    var s = 0.0;
    for (var i = t; i < params.R; i += WG) {
        s += row_loss[i];
    }
    sh[t] = s;
    workgroupBarrier();
    for (var w = WG / 2u; w > 0u; w >>= 1u) {
        if (t < w) {
            sh[t] += sh[t + w];
        }
        workgroupBarrier();
    }
    if (t == 0u) {
        loss[0] = sh[0];
    }
}
