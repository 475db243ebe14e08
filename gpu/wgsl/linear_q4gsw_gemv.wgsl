// linear_q4gsw_gemv.wgsl: y[M,N] = x[M,K] @ dequant(W)^T (+ bias) for M = 1..8, the
// WebGPU kernel of the M <= 8 range (docs/webgpu.md), as GLSL's linear_q4gsw_gemv: a
// stream over the packed weights, bound by memory, not arithmetic.
//
// A workgroup owns NS = 4 block columns (32 rows of y; a k4 row of the strip is 64
// contiguous bytes) and all of K: invocation (lane, slice) takes block column
// n8 = strip * NS + lane and, in rounds of KT * U k4 rows, the U consecutive rows
// slice * U .. of each round, all U loaded before any is used. At M <= 2 a k4 row's
// four x * (code - 8) are summed and multiplied by the scale once (GLSL's CS: the
// decode, not the memory, bounds M = 1); above, each weight is (code - 8) * scale,
// shared by the MR rows' FMAs. Either way a term meets two multiplies and at most n - 1
// additions on its way to the output, as SPEC §3's bound counts. The KT slices are
// summed in workgroup memory in a fixed order (deterministic): T = 8 invocations per
// output add strided slices, then one adds the 8 partials; one row of x per pass.
//!include q4_w4x8.wgsl

override MR: u32 = 1u;   // M, the rows of x (1..8): the accumulators' loops unroll
const NS = 4u;           // block columns (lanes) per workgroup
const KT = 64u;          // K slices per workgroup
const U = 4u;            // consecutive k4 rows per slice and round (loads in flight)
const WG = 256u;         // NS * KT
const O = 32u;           // outputs per pass: 8 rows of W x NS lanes
const T = 8u;            // invocations per output in a pass: WG / O
const STRIDE = 65u;      // one output's slices (+ 1: conflict-free stores)

struct Params { M: u32, N: u32, K: u32, gs: u32, N8: u32, has_bias: u32, strips: u32 }

@group(0) @binding(0) var<storage, read> x4: array<vec4<f32>>;
@group(0) @binding(1) var<storage, read> w4: array<vec4<u32>>;
@group(0) @binding(2) var<storage, read> s4: array<vec4<f32>>;
@group(0) @binding(3) var<storage, read> bias1: array<f32>;
@group(0) @binding(4) var<storage, read_write> y1: array<f32>;
@group(0) @binding(8) var<uniform> params: Params;

var<workgroup> red: array<f32, 2080>;   // [output o = j * NS + lane][slice (+ pad)]
var<workgroup> red2: array<f32, 256>;   // [t][output]

// Rows 0..3 (w0 = word 0, w1 = word 1) or 4..7 (words 2, 3) of a block at K = 4 k4 + b.
fn q4_col4(w0: u32, w1: u32, b: u32) -> vec4<f32> {
    let s = 8u * b;
    let c = vec4<u32>(w0 >> s, w0 >> (s + 4u), w1 >> s, w1 >> (s + 4u)) & vec4<u32>(0xFu);
    return vec4<f32>(c) - vec4<f32>(8.0);
}

@compute @workgroup_size(256)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
        @builtin(local_invocation_index) lid: u32) {
    let gid = wid.y * nwg.x + wid.x;
    if (gid >= params.strips) {
        return;   // the folded grid's excess: uniform per workgroup
    }
    let lane = lid % NS;
    let slice = lid / NS;
    let n8 = gid * NS + lane;
    let n0 = 8u * n8;
    // The upper half of an odd-N4 block is padding: a zero scale, never written.
    let hi_ok = n0 + 4u < params.N;
    let K4 = params.K / 4u;
    let N4 = params.N / 4u;

    var acc: array<vec4<f32>, 16>;   // [2 m]: rows 0..3 of the block, [2 m + 1]: 4..7
    for (var m = 0u; m < MR; m++) {
        acc[2u * m] = vec4<f32>(0.0);
        acc[2u * m + 1u] = vec4<f32>(0.0);
    }
    if (n0 < params.N) {
        for (var base = slice * U; base < K4; base += KT * U) {
            // Every block of the round is loaded before any is used: U loads in flight.
            var blks: array<vec4<u32>, U>;
            for (var u = 0u; u < U; u++) {
                blks[u] = vec4<u32>(0x88888888u);
                if (base + u < K4) {
                    blks[u] = w4[(base + u) * params.N8 + n8];
                }
            }
            for (var u = 0u; u < U; u++) {
                let k4 = base + u;
                if (k4 >= K4) {
                    break;
                }
                let blk = blks[u];
                let sidx = ((4u * k4) / params.gs) * N4 + 2u * n8;
                let s_lo = s4[sidx];
                var s_hi = vec4<f32>(0.0);
                if (hi_ok) {
                    s_hi = s4[sidx + 1u];
                }
                if (MR <= 2u) {
                    // The row's sum of x * (code - 8), then one multiply by the scale.
                    for (var m = 0u; m < MR; m++) {
                        let xv = x4[m * K4 + k4];
                        var p_lo = vec4<f32>(0.0);
                        var p_hi = vec4<f32>(0.0);
                        for (var b = 0u; b < 4u; b++) {
                            p_lo = fma(vec4<f32>(xv[b]), q4_col4(blk.x, blk.y, b), p_lo);
                            p_hi = fma(vec4<f32>(xv[b]), q4_col4(blk.z, blk.w, b), p_hi);
                        }
                        acc[2u * m] = fma(p_lo, s_lo, acc[2u * m]);
                        acc[2u * m + 1u] = fma(p_hi, s_hi, acc[2u * m + 1u]);
                    }
                } else {
                    for (var b = 0u; b < 4u; b++) {
                        let lo = q4_col4(blk.x, blk.y, b) * s_lo;
                        let hi = q4_col4(blk.z, blk.w, b) * s_hi;
                        for (var m = 0u; m < MR; m++) {
                            let xv = x4[m * K4 + k4][b];
                            acc[2u * m] = fma(vec4<f32>(xv), lo, acc[2u * m]);
                            acc[2u * m + 1u] = fma(vec4<f32>(xv), hi, acc[2u * m + 1u]);
                        }
                    }
                }
            }
        }
    }

    for (var m = 0u; m < MR; m++) {
        // The previous pass read red before its second barrier and red2 after it, so
        // this pass's stores need no barrier of their own.
        for (var j = 0u; j < 8u; j++) {
            red[(j * NS + lane) * STRIDE + slice] = acc[2u * m + j / 4u][j % 4u];
        }
        workgroupBarrier();
        let o = lid % O;
        let t = lid / O;
        var part = 0.0;
        for (var s = t; s < KT; s += T) {
            part += red[o * STRIDE + s];
        }
        red2[lid] = part;
        workgroupBarrier();
        if (lid < O) {
            let n = 8u * (gid * NS + lid % NS) + lid / NS;
            if (n < params.N) {
                var sum = 0.0;
                for (var tt = 0u; tt < T; tt++) {
                    sum += red2[tt * O + lid];
                }
                if (params.has_bias != 0u) {
                    sum += bias1[n];
                }
                y1[m * params.N + n] = sum;
            }
        }
    }
}
