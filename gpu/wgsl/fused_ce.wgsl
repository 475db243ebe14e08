// fused_ce.wgsl: softmax cross-entropy forward and backward, one workgroup of 256 per
// row, the WebGPU kernel (docs/webgpu.md). Pass 1 reads the row once with an online
// (max, sum) per invocation (the sum rescaled whenever its max grows), the workgroup
// combines them in workgroup memory in a fixed order; pass 2 writes dlogits =
// (softmax - onehot) / n_valid. The row's loss goes to row_loss[r]; fused_ce_loss.wgsl
// sums those in a fixed order. A label outside [0, V) (negative: ignore index; >= V is
// rejected on the host) gives a row of exact zeros and loss 0 without reading logits.

struct Params { R: u32, V: u32, n_valid: f32 }

const WG = 256u;
@group(0) @binding(0) var<storage, read> logits: array<f32>;
@group(0) @binding(1) var<storage, read> labels: array<i32>;
@group(0) @binding(3) var<storage, read_write> dlogits: array<f32>;
@group(0) @binding(4) var<storage, read_write> row_loss: array<f32>;
@group(0) @binding(8) var<uniform> params: Params;

var<workgroup> sh_m: array<f32, WG>;
var<workgroup> sh_s: array<f32, WG>;

@compute @workgroup_size(256)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
        @builtin(local_invocation_index) t: u32) {
    let r = wid.y * nwg.x + wid.x;
    if (r >= params.R) {
        return;   // the folded grid's excess: uniform per workgroup
    }
    let V = params.V;
    let base = r * V;
    let label = labels[r];
    if (label < 0 || u32(label) >= V) {
        for (var j = t; j < V; j += WG) {
            dlogits[base + j] = 0.0;
        }
        if (t == 0u) {
            row_loss[r] = 0.0;
        }
        return;
    }

    // ---- pass 1: per-invocation online max and sum; exp(0) is never evaluated, so an
    // element equal to the running max contributes exactly 1 ----
    var m = bitcast<f32>(0xff7fffffu);   // -FLT_MAX: no logit is below it (no -inf: docs/webgpu.md)
    var s = 0.0;
    for (var j = t; j < V; j += WG) {
        let x = logits[base + j];
        if (x > m) {
            // (branches, not select: exp(m - x) of the -FLT_MAX start may overflow)
            if (s == 0.0) {
                s = 1.0;
            } else {
                s = s * exp(m - x) + 1.0;
            }
            m = x;
        } else {
            s += exp(x - m);
        }
    }
    // ---- workgroup max, each sum rescaled to it, then the workgroup sum ----
    sh_m[t] = m;
    workgroupBarrier();
    for (var w = WG / 2u; w > 0u; w >>= 1u) {
        if (t < w) {
            sh_m[t] = max(sh_m[t], sh_m[t + w]);
        }
        workgroupBarrier();
    }
    let M = sh_m[0];
    if (s == 0.0 || m == M) {
        sh_s[t] = s;
    } else {
        sh_s[t] = s * exp(m - M);
    }
    workgroupBarrier();
    for (var w = WG / 2u; w > 0u; w >>= 1u) {
        if (t < w) {
            sh_s[t] += sh_s[t + w];
        }
        workgroupBarrier();
    }
    let S = sh_s[0];   // >= 1: the max element contributes exactly 1
    let nv = params.n_valid;
    if (t == 0u) {
        // (M - x_l) first: both are logits of the row, no cancellation against log S
        row_loss[r] = ((M - logits[base + u32(label)]) + log(S)) / nv;
    }
    // ---- pass 2: dlogits ----
    for (var j = t; j < V; j += WG) {
        let oh = select(0.0, 1.0, j == u32(label));
        dlogits[base + j] = (exp(logits[base + j] - M) / S - oh) / nv;
    }
}
