// ceiling_copy.wgsl: a vec4 copy whose rate is the adapter's measured bandwidth
// ceiling for `q4cts perf --api webgpu` (the worker's ceilings message). One vec4 per
// invocation; the grid may be folded.

struct Params { n4: u32 }

@group(0) @binding(0) var<storage, read> src: array<vec4<f32>>;
@group(0) @binding(1) var<storage, read_write> dst: array<vec4<f32>>;
@group(0) @binding(8) var<uniform> params: Params;

@compute @workgroup_size(256)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
        @builtin(local_invocation_index) lid: u32) {
    let i = (wid.y * nwg.x + wid.x) * 256u + lid;
    if (i < params.n4) {
        dst[i] = src[i];
    }
}
