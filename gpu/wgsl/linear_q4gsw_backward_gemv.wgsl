// linear_q4gsw_backward_gemv.wgsl: dx[M,K] = dout[M,N] @ dequant(W) for M = 1..8, the
// WebGPU kernel of the M <= 8 range (docs/webgpu.md), as GLSL's
// linear_q4gsw_backward_gemv: a stream over the packed weights.
//
// A workgroup owns S consecutive k4 rows (4 S columns of dx; S = 8, or fewer on short
// K so that there are enough workgroups, as GLSL widens its lanes); invocation
// (lane, row) owns k4 row `row` and walks the block columns n8 = lane, lane + L, ...
// (L = 256 / S; consecutive lanes read consecutive blocks of one k4 row). At M <= 4
// each dout is multiplied by its scale (GLSL's DS: 3 operations a weight at M = 1, not
// 4); above, each weight is (code - 8) * scale, shared by the MR rows' FMAs. Either way
// a term is a product of three factors rounded twice, as SPEC §3 counts. The L lanes
// are summed in workgroup memory in a fixed order (deterministic): T invocations per
// output add strided lanes (4 each), then one adds the T partials; one row of dout per
// pass.
//!include q4_w4x8.wgsl

override MR: u32 = 1u;   // M, the rows of dout (1..8): the accumulators' loops unroll
override S: u32 = 8u;    // k4 rows per workgroup: 8, 4, 2 or 1 (ops.mjs)
const WG = 256u;
override L: u32 = WG / S;   // lanes along N8
override O: u32 = 4u * S;   // outputs per pass: S rows x 4 columns
override T: u32 = WG / O;   // invocations per output in a pass
const STRIDE = 257u;     // one column's sums (+ 1: conflict-free stores)

struct Params { M: u32, N: u32, K: u32, gs: u32, N8: u32, strips: u32 }

@group(0) @binding(0) var<storage, read> d4: array<vec4<f32>>;
@group(0) @binding(1) var<storage, read> w4: array<vec4<u32>>;
@group(0) @binding(2) var<storage, read> s4: array<vec4<f32>>;
@group(0) @binding(3) var<storage, read_write> dx1: array<f32>;
@group(0) @binding(8) var<uniform> params: Params;

var<workgroup> red: array<f32, 1028>;   // [column c][tid (+ pad)]
var<workgroup> red2: array<f32, 256>;   // [t][output]: O * T = WG

@compute @workgroup_size(256)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
        @builtin(local_invocation_index) lid: u32) {
    let gid = wid.y * nwg.x + wid.x;
    if (gid >= params.strips) {
        return;   // the folded grid's excess: uniform per workgroup
    }
    let lane = lid % L;
    let row = lid / L;
    let K4 = params.K / 4u;
    let k4 = gid * S + row;

    var acc: array<vec4<f32>, 8>;   // [m]: dx[m][4 k4 .. 4 k4 + 3]
    for (var m = 0u; m < MR; m++) {
        acc[m] = vec4<f32>(0.0);
    }
    if (k4 < K4) {
        let g = (4u * k4) / params.gs;
        for (var n8 = lane; n8 < params.N8; n8 += L) {
            let blk = w4[k4 * params.N8 + n8];
            // The upper half of an odd-N4 block is padding: zero dout and scale there.
            let hi_ok = 8u * n8 + 4u < params.N;
            let sidx = (g * params.N + 8u * n8) / 4u;
            let s_lo = s4[sidx];
            var s_hi = vec4<f32>(0.0);
            if (hi_ok) {
                s_hi = s4[sidx + 1u];
            }
            // DS (M <= 4): the scale goes on dout (8 M multiplies a block), not on each
            // weight (32).
            let DS = MR <= 4u;
            var v: array<vec4<f32>, 8>;   // row i of the block along K (DS: unscaled)
            for (var i = 0u; i < 4u; i++) {
                v[i] = q4_row4(blk[i / 2u], i % 2u);
                v[4u + i] = q4_row4(blk[2u + i / 2u], i % 2u);
                if (!DS) {
                    v[i] *= s_lo[i];
                    v[4u + i] *= s_hi[i];
                }
            }
            for (var m = 0u; m < MR; m++) {
                let di = (m * params.N + 8u * n8) / 4u;
                var d_lo = d4[di];
                var d_hi = vec4<f32>(0.0);
                if (hi_ok) {
                    d_hi = d4[di + 1u];
                }
                if (DS) {
                    d_lo *= s_lo;
                    d_hi *= s_hi;
                }
                for (var i = 0u; i < 4u; i++) {
                    acc[m] = fma(vec4<f32>(d_lo[i]), v[i], acc[m]);
                    acc[m] = fma(vec4<f32>(d_hi[i]), v[4u + i], acc[m]);
                }
            }
        }
    }

    for (var m = 0u; m < MR; m++) {
        // The previous pass read red before its second barrier and red2 after it, so
        // this pass's stores need no barrier of their own.
        for (var c = 0u; c < 4u; c++) {
            red[c * STRIDE + lid] = acc[m][c];
        }
        workgroupBarrier();
        let o = lid % O;   // row o / 4 of the workgroup, column o % 4
        let t = lid / O;
        var part = 0.0;
        for (var ln = t; ln < L; ln += T) {
            part += red[(o % 4u) * STRIDE + (o / 4u) * L + ln];
        }
        red2[lid] = part;
        workgroupBarrier();
        if (lid < O) {
            let k4o = gid * S + lid / 4u;
            if (k4o < K4) {
                var sum = 0.0;
                for (var tt = 0u; tt < T; tt++) {
                    sum += red2[tt * O + lid];
                }
                dx1[m * params.K + 4u * k4o + lid % 4u] = sum;
            }
        }
    }
}
