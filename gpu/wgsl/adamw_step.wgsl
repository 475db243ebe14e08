// adamw_step.wgsl: one AdamW step (SPEC §2, torch.optim.AdamW), in place on param, m, v,
// the WebGPU kernel (docs/webgpu.md). Invocation i updates vec4 i of the bindings; the
// invocation just past the last whole vec4 does the 1-3 trailing elements (a masked
// vec4: WGSL has no scalar view of the same binding). The update is SPEC's formula,
// one operation at a time (a * b + c may still be fused; the bound allows either).

struct Params { numel: u32, lr: f32, beta1: f32, beta2: f32, eps: f32, wd: f32, bc1: f32, bc2: f32 }

@group(0) @binding(0) var<storage, read_write> p4: array<vec4<f32>>;
@group(0) @binding(1) var<storage, read> g4: array<vec4<f32>>;
@group(0) @binding(2) var<storage, read_write> m4: array<vec4<f32>>;
@group(0) @binding(3) var<storage, read_write> v4: array<vec4<f32>>;
@group(0) @binding(8) var<uniform> params: Params;

struct State { p: vec4<f32>, m: vec4<f32>, v: vec4<f32> }

fn adamw(p0: vec4<f32>, g: vec4<f32>, m0: vec4<f32>, v0: vec4<f32>) -> State {
    var p = p0 - (params.lr * params.wd) * p0;
    let m = params.beta1 * m0 + (1.0 - params.beta1) * g;
    // ((1 - beta2) * g) * g as SPEC orders it, inside an fma: NVIDIA's compiler turned
    // the plain products into (1 - beta2) * (g * g), and g * g overflows for |g| >= 2^64
    // where SPEC's order stays finite (value class huge_grad: v = inf on the H200). WGSL
    // has no `precise`; a fused multiply-add is one the bound allows anyway.
    let v = fma((1.0 - params.beta2) * g, g, params.beta2 * v0);
    p = p - params.lr * (m / params.bc1) / (sqrt(v / params.bc2) + params.eps);
    return State(p, m, v);
}

@compute @workgroup_size(256)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
        @builtin(local_invocation_index) lid: u32) {
    let i = (wid.y * nwg.x + wid.x) * 256u + lid;
    let n4 = params.numel >> 2u;
    if (i < n4) {
        let s = adamw(p4[i], g4[i], m4[i], v4[i]);
        p4[i] = s.p;
        m4[i] = s.m;
        v4[i] = s.v;
    } else if (i == n4 && (params.numel & 3u) != 0u) {
        // The tail vec4 holds 1-3 elements and then guard words, which must stay as
        // they are: the update runs on the elements (the other lanes zero, so nothing
        // is computed from a guard word) and only lanes below numel are stored.
        let t = params.numel & 3u;
        let live = vec4<u32>(0u, 1u, 2u, 3u) < vec4<u32>(t);
        let z = vec4<f32>(0.0);
        var p = p4[i];
        var m = m4[i];
        var v = v4[i];
        let s = adamw(select(z, p, live), select(z, g4[i], live), select(z, m, live),
                      select(z, v, live));
        p = select(p, s.p, live);
        m = select(m, s.m, live);
        v = select(v, s.v, live);
        p4[i] = p;
        m4[i] = m;
        v4[i] = v;
    }
}
