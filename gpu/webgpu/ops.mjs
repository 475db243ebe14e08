// ops.mjs: what the WebGPU worker dispatches for each op of SPEC §2: the WGSL kernels,
// their grids, which of the case's buffers (or worker-owned scratch buffers) each
// binding gets, and the params uniform's fields in the kernel's order
// (docs/webgpu.md, "WGSL kernel convention"). plan(p, limits) returns
//   { scratch: [bytes...], dispatches: [{ kernel, groups, bindings: [[binding, ref]], params }] }
// with ref { buffer: i } (the run message's buffer i) or { scratch: j }.

const u = (v) => ['u', v];
const f = (v) => ['f', v];
const buf = (i) => ({ buffer: i });
const ceil = (a, b) => Math.floor((a + b - 1) / b);
const n8 = (N) => ceil(N / 4, 2);

export const OPS = {
    dequantize: {
        plan: (p) => ({
            dispatches: [{
                kernel: 'dequantize', groups: ceil((p.k / 4) * n8(p.n), 256),
                bindings: [[0, buf(0)], [1, buf(1)], [2, buf(2)]],
                params: [u(p.n), u(p.k), u(p.gs), u(n8(p.n))],
            }],
        }),
    },
    adamw_step: {
        plan: (p) => ({
            dispatches: [{
                kernel: 'adamw_step', groups: ceil(Math.floor(p.numel / 4) + 1, 256),
                bindings: [[0, buf(0)], [1, buf(1)], [2, buf(2)], [3, buf(3)]],
                params: [u(p.numel), f(p.lr), f(p.beta1), f(p.beta2), f(p.eps), f(p.wd),
                         f(p.bc1), f(p.bc2)],
            }],
        }),
    },
};
