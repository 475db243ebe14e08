// ops.mjs: what the WebGPU worker dispatches for each op of SPEC §2: the WGSL kernels,
// their grids, which of the case's buffers (or worker-owned scratch buffers) each
// binding gets, and the params uniform's fields in the kernel's order
// (docs/webgpu.md, "WGSL kernel convention"). plan(p, limits) returns
//   { scratch: [bytes...], dispatches: [{ kernel, groups, bindings: [[binding, ref]], params,
//                                         constants }] }
// with ref { buffer: i } (the run message's buffer i) or { scratch: j }, and constants
// (optional) the kernel's override values.

// A plan the adapter cannot run: the case is NotSupported.
export class Unsupported extends Error {}

const u = (v) => ['u', v];
const f = (v) => ['f', v];
const buf = (i) => ({ buffer: i });
const ceil = (a, b) => Math.floor((a + b - 1) / b);
const n8 = (N) => ceil(N / 4, 2);
// Test-only knobs (docs/webgpu.md, "Linear kernels") that move the variants meant for
// large shapes onto the mustpass's small ones (ctest webgpu.paths). A value that is not a
// whole number is KNOB_ERROR, which the worker's hello reports.
let knobError = '';
const knob = (name, dflt) => {
    const v = process.env[name] ?? '';
    if (v === '')
        return dflt;
    if (/^[0-9]{1,9}$/.test(v))
        return Number(v);
    knobError ||= `${name} '${v.slice(0, 40)}' is not a whole number`;
    return dflt;
};
// The backward gemv's workgroups: k4 rows per workgroup S = 8, halved (more lanes along
// N8) while that leaves fewer than GLSL's 512 workgroups; Q4CTS_WGSL_GEMV_GROUPS_MIN
// lowers the 512.
const GEMV_GROUPS_MIN = knob('Q4CTS_WGSL_GEMV_GROUPS_MIN', 512);
const bwdRows = (K4) => {
    let s = 8;
    while (s > 1 && ceil(K4, s) < GEMV_GROUPS_MIN)
        s /= 2;
    return s;
};
// The tiled GEMMs (gemm_reg.wgsl): 128 x 128 tiles of 8 x 8 outputs per invocation, with
// two workgroup buffers of 8 depths each (16,896 bytes: more than WebGPU's default 16 KiB,
// so the worker asks for the adapter's limit; an adapter below it is NotSupported).
const TILE = 128;
const TILED_WG_BYTES = 2 * 16 * 33 * 16;
const tiles = (R, C) => ceil(R, TILE) * ceil(C, TILE);
const tiledFits = (limits) => {
    if (limits.maxComputeWorkgroupStorageSize < TILED_WG_BYTES)
        throw new Unsupported(`the tiled linear kernels need ${TILED_WG_BYTES} bytes of ` +
            `workgroup memory; the adapter allows ${limits.maxComputeWorkgroupStorageSize}`);
};
export const KNOB_ERROR = knobError;
// M <= 8: the linears stream the weights (the gemv kernels), as the GLSL launchers do.
const GEMV_MAX_M = 8;

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
    linear_q4gsw: {
        // buffers x, w4x8, scales, [bias], y; without bias, binding 3 is a zero scratch
        plan: (p, limits) => ({
            scratch: p.bias ? [] : [16],
            dispatches: [p.m <= GEMV_MAX_M ? {
                // 4 block columns (32 n) per workgroup
                kernel: 'linear_q4gsw_gemv', groups: ceil(n8(p.n), 4), constants: { MR: p.m },
                bindings: [[0, buf(0)], [1, buf(1)], [2, buf(2)],
                           [3, p.bias ? buf(3) : { scratch: 0 }], [4, buf(p.bias ? 4 : 3)]],
                params: [u(p.m), u(p.n), u(p.k), u(p.gs), u(n8(p.n)), u(p.bias ? 1 : 0),
                         u(ceil(n8(p.n), 4))],
            } : tiledFits(limits) ?? {
                kernel: 'linear_q4gsw', groups: tiles(p.m, p.n),
                bindings: [[0, buf(0)], [1, buf(1)], [2, buf(2)],
                           [3, p.bias ? buf(3) : { scratch: 0 }], [4, buf(p.bias ? 4 : 3)]],
                params: [u(p.m), u(p.n), u(p.k), u(p.gs), u(n8(p.n)), u(p.bias ? 1 : 0)],
            }],
        }),
    },
    linear_q4gsw_backward: {
        plan: (p, limits) => ({
            dispatches: [p.m <= GEMV_MAX_M ? {
                // S k4 rows (4 S k) per workgroup
                kernel: 'linear_q4gsw_backward_gemv', groups: ceil(p.k / 4, bwdRows(p.k / 4)),
                constants: { MR: p.m, S: bwdRows(p.k / 4) },
                bindings: [[0, buf(0)], [1, buf(1)], [2, buf(2)], [3, buf(3)]],
                params: [u(p.m), u(p.n), u(p.k), u(p.gs), u(n8(p.n)),
                         u(ceil(p.k / 4, bwdRows(p.k / 4)))],
            } : tiledFits(limits) ?? {
                kernel: 'linear_q4gsw_backward', groups: tiles(p.m, p.k),
                bindings: [[0, buf(0)], [1, buf(1)], [2, buf(2)], [3, buf(3)]],
                params: [u(p.m), u(p.n), u(p.k), u(p.gs), u(n8(p.n))],
            }],
        }),
    },
    linear_dW: {
        plan: (p, limits) => ({
            dispatches: [tiledFits(limits) ?? {
                kernel: 'linear_dw', groups: tiles(p.n, p.k),
                bindings: [[0, buf(0)], [1, buf(1)], [2, buf(2)]],
                params: [u(p.m), u(p.n), u(p.k)],
            }],
        }),
    },
    fused_ce: {
        // buffers logits, labels, loss, dlogits; scratch 0: the rows' losses
        plan: (p) => ({
            scratch: [4 * p.r],
            dispatches: [{
                kernel: 'fused_ce', groups: p.r,
                bindings: [[0, buf(0)], [1, buf(1)], [3, buf(3)], [4, { scratch: 0 }]],
                params: [u(p.r), u(p.v), f(p.n_valid)],
            }, {
                kernel: 'fused_ce_loss', groups: 1,
                bindings: [[2, buf(2)], [4, { scratch: 0 }]],
                params: [u(p.r)],
            }],
        }),
    },
    q4gsw_requant: {
        // buffers latent, scales, w4x8, flat
        plan: (p) => ({
            dispatches: [{
                kernel: 'q4gsw_requant_w4x8', groups: ceil((p.k / 4) * n8(p.n), 256),
                bindings: [[0, buf(0)], [1, buf(1)], [2, buf(2)]],
                params: [u(p.n), u(p.k), u(p.gs), u(n8(p.n))],
            }, {
                kernel: 'q4gsw_requant_flat', groups: ceil((p.n * p.k) / 8, 256),
                bindings: [[0, buf(0)], [1, buf(1)], [3, buf(3)]],
                params: [u(p.n), u(p.k), u(p.gs), u(n8(p.n))],
            }],
        }),
    },
};

// The ceilings of `q4cts perf --api webgpu` (docs/webgpu.md): a copy of `bytes` bytes
// (scratch 0 to scratch 1), an FMA loop, and the smallest copy as one dispatch's floor.
export const CEILINGS = {
    copy: (bytes) => ({
        scratch: [bytes, bytes],
        dispatches: [{
            kernel: 'ceiling_copy', groups: ceil(bytes / 16, 256),
            bindings: [[0, { scratch: 0 }], [1, { scratch: 1 }]], params: [u(bytes / 16)],
        }],
    }),
    fma: (groups, iters) => ({
        scratch: [4 * 256 * groups],
        dispatches: [{
            kernel: 'ceiling_fma', groups,
            bindings: [[0, { scratch: 0 }]], params: [u(iters), f(1.0)],
        }],
    }),
};
