// q4vk: bindings=4 push=20
// fused_ce.comp: softmax cross-entropy forward + backward, one workgroup per row.
//
// Pass 1 reads the row once with an online (max, sum) per invocation (the sum is
// rescaled whenever the running max grows), then the workgroup combines them in
// shared memory in a fixed order. Pass 2 re-reads the row in the reverse order of
// pass 1, so the elements each invocation read last (most likely still in L2) are
// re-read first, and writes dlogits. Rows are processed as a scalar head (up to 3
// elements, until the row is 16-byte aligned), a vec4 body and a scalar tail, so
// any V gets vec4 accesses. The per-row loss goes to row_loss[]; fused_ce_loss.comp
// sums those in a fixed order, so the scalar loss is deterministic.
//
// Rows short enough (the launcher's choice: V/4 <= CACHE * WG, e.g. V = 32000 at
// WG = 1024) take the cached path instead: each invocation loads its CACHE vec4 into
// registers up front (every load in flight at once), folds them in the same order as
// the stream, and writes dlogits from the registers, so the row is read from memory
// once and pass 2 does not depend on L2. Streaming V = 32000 on the H200 depended on
// it: 264 resident rows of 128 KB sit at the edge of the 60 MB L2, and the time
// ranged from 0.34 to 0.87 ms (p10-p90 spread up to 35%) between runs.
//
// A label outside [0, V) (negative = ignore index; >= V is rejected on the host,
// and treated here as masked so nothing is indexed out of range) gives a row of
// exact zeros and loss 0 without reading the logits.
#version 450
#extension GL_EXT_control_flow_attributes : require
#extension GL_GOOGLE_include_directive : require
#include "q4_fold.glsl"

layout(local_size_x = 512, local_size_x_id = 0) in;   // a power of two, set by the launcher
layout(constant_id = 1) const bool CACHED = false;     // the row fits CACHE vec4 per invocation
layout(constant_id = 2) const uint CACHE = 8;          // vec4 per invocation on the cached path

layout(std430, set = 0, binding = 0) readonly buffer Logits1 { float x1[]; };
layout(std430, set = 0, binding = 0) readonly buffer Logits4 { vec4 x4[]; };
layout(std430, set = 0, binding = 1) readonly buffer Labels { int labels[]; };
layout(std430, set = 0, binding = 2) writeonly buffer Grad1 { float d1[]; };
layout(std430, set = 0, binding = 2) writeonly buffer Grad4 { vec4 d4[]; };
layout(std430, set = 0, binding = 3) writeonly buffer RowLoss { float row_loss[]; };

layout(push_constant) uniform Push {
    uint rows;      // rows in this dispatch
    uint V;
    uint row0;      // first row of this dispatch (index into labels and row_loss)
    uint elem_off;  // element offset of row row0 inside the logits/dlogits bindings
    float n_valid;
} pc;

const uint WG = gl_WorkGroupSize.x;
shared float sh_m[WG];
shared float sh_s[WG];

// Folds one value into the running (m, s): s = sum exp(x_i - m). exp(0) is never
// evaluated, so an element equal to the max contributes exactly 1.
void online_add(inout float m, inout float s, float x)
{
    if (x > m) {
        s = (s == 0.0) ? 1.0 : s * exp(m - x) + 1.0;
        m = x;
    } else {
        s += exp(x - m);
    }
}

// Folds four values: the running max moves once per vec4, and components equal to the
// max contribute exactly 1.
void online_add4(inout float m, inout float s, vec4 v)
{
    const float vm = max(max(v.x, v.y), max(v.z, v.w));
    if (vm > m) {
        s = (s == 0.0) ? 0.0 : s * exp(m - vm);
        m = vm;
    }
    s += (v.x == m ? 1.0 : exp(v.x - m)) + (v.y == m ? 1.0 : exp(v.y - m)) +
         (v.z == m ? 1.0 : exp(v.z - m)) + (v.w == m ? 1.0 : exp(v.w - m));
}

// dlogits of the vec4 at index i (element 4 * i) of the binding, from its logits v.
vec4 grad4(vec4 v, uint i, uint lab, float M, float S, float nv)
{
    const uint e = 4u * i;   // element index of .x
    const vec4 oh = vec4(equal(uvec4(e, e + 1u, e + 2u, e + 3u), uvec4(lab)));
    return (exp(v - M) / S - oh) / nv;
}

void main()
{
    const uint r = q4_flat_group();
    if (r >= pc.rows)
        return;   // the folded grid's excess; uniform per workgroup
    const uint t = gl_LocalInvocationID.x;
    const uint V = pc.V;
    const uint base = pc.elem_off + r * V;
    // head: scalars until base+head is a multiple of 4; body: nb vec4; tail: nt scalars.
    const uint head = min(V, (4u - (base & 3u)) & 3u);
    const uint b4 = (base + head) >> 2;
    const uint nb = (V - head) >> 2;
    const uint tail0 = base + head + 4u * nb;
    const uint nt = V - head - 4u * nb;
    const int label = labels[pc.row0 + r];

    if (label < 0 || uint(label) >= V) {
        const vec4 z = vec4(0.0);
        if (t < head) d1[base + t] = 0.0;
        for (uint i = t; i < nb; i += WG) d4[b4 + i] = z;
        if (t < nt) d1[tail0 + t] = 0.0;
        if (t == 0u) row_loss[pc.row0 + r] = 0.0;
        return;
    }

    // ---- pass 1: per-invocation online max and sum ----
    float m = uintBitsToFloat(0xff800000u), s = 0.0;   // -inf: no element yet
    if (t < head) online_add(m, s, x1[base + t]);
    vec4 cache[CACHE];   // the cached path's row slice: vec4 t, t + WG, t + 2 WG, ...
    if (CACHED) {
        [[unroll]] for (uint u = 0u; u < CACHE; u++)
            if (t + u * WG < nb) cache[u] = x4[b4 + t + u * WG];
        [[unroll]] for (uint u = 0u; u < CACHE; u++)
            if (t + u * WG < nb) online_add4(m, s, cache[u]);
    } else {
        for (uint i = t; i < nb; i += WG)
            online_add4(m, s, x4[b4 + i]);
    }
    if (t < nt) online_add(m, s, x1[tail0 + t]);

    // ---- workgroup max, then each sum rescaled to it, then the workgroup sum ----
    sh_m[t] = m;
    barrier();
    for (uint w = WG >> 1; w > 0u; w >>= 1) {
        if (t < w) sh_m[t] = max(sh_m[t], sh_m[t + w]);
        barrier();
    }
    const float M = sh_m[0];
    sh_s[t] = (s == 0.0 || m == M) ? s : s * exp(m - M);
    barrier();
    for (uint w = WG >> 1; w > 0u; w >>= 1) {
        if (t < w) sh_s[t] += sh_s[t + w];
        barrier();
    }
    const float S = sh_s[0];   // >= 1: the max element contributes exactly 1
    const float nv = pc.n_valid;

    if (t == 0u) {
        // (M - x_l) first: both are logits of this row, so no cancellation against log S.
        const float xl = x1[base + uint(label)];
        row_loss[pc.row0 + r] = ((M - xl) + log(S)) / nv;
    }

    // ---- pass 2, reverse order: dlogits = (softmax - onehot) / n_valid ----
    const uint lab = base + uint(label);   // label's element index in the binding
    if (t < nt) {
        const uint j = tail0 + t;
        d1[j] = (exp(x1[j] - M) / S - (j == lab ? 1.0 : 0.0)) / nv;
    }
    if (CACHED) {
        [[unroll]] for (uint u = 0u; u < CACHE; u++)
            if (t + u * WG < nb)
                d4[b4 + t + u * WG] = grad4(cache[u], b4 + t + u * WG, lab, M, S, nv);
    } else if (t < nb) {
        const uint last = t + ((nb - 1u - t) / WG) * WG;
        for (uint i = last;; i -= WG) {
            d4[b4 + i] = grad4(x4[b4 + i], b4 + i, lab, M, S, nv);
            if (i < WG) break;
        }
    }
    if (t < head) {
        const uint j = base + t;
        d1[j] = (exp(x1[j] - M) / S - (j == lab ? 1.0 : 0.0)) / nv;
    }
}
