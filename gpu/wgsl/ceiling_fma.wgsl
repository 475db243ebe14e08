// ceiling_fma.wgsl: an fp32 FMA loop whose rate is the adapter's measured arithmetic
// ceiling for `q4cts perf --api webgpu`. Eight independent vec4 chains per invocation
// hide the FMA latency; each iteration is 8 * 4 FMAs = 64 flops. The result is stored
// so that the compiler cannot drop the loop.

struct Params { iters: u32, seed: f32 }

@group(0) @binding(0) var<storage, read_write> outv: array<f32>;
@group(0) @binding(8) var<uniform> params: Params;

@compute @workgroup_size(256)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
        @builtin(local_invocation_index) lid: u32) {
    let i = (wid.y * nwg.x + wid.x) * 256u + lid;
    var a0 = vec4<f32>(params.seed + f32(i & 7u));
    var a1 = a0 + 1.0;
    var a2 = a0 + 2.0;
    var a3 = a0 + 3.0;
    var a4 = a0 + 4.0;
    var a5 = a0 + 5.0;
    var a6 = a0 + 6.0;
    var a7 = a0 + 7.0;
    let b = vec4<f32>(0.999999);
    let c = vec4<f32>(1e-7);
    for (var r = 0u; r < params.iters; r++) {
        a0 = fma(a0, b, c); a1 = fma(a1, b, c); a2 = fma(a2, b, c); a3 = fma(a3, b, c);
        a4 = fma(a4, b, c); a5 = fma(a5, b, c); a6 = fma(a6, b, c); a7 = fma(a7, b, c);
    }
    let s = ((a0 + a1) + (a2 + a3)) + ((a4 + a5) + (a6 + a7));
    outv[i] = s.x + s.y + s.z + s.w;
}
