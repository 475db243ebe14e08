// worker.mjs: q4cts's WebGPU worker. Runs WGSL kernels through Dawn (npm package
// webgpu) for the C harness, which sends one case's buffers and gets the outputs back
// over a framed binary protocol on file descriptors 3 (requests) and 4 (replies).
// The kernels are ours (ops.mjs) or an interface file's, checked and run as
// interface.mjs says.
// The protocol and the kernel convention: docs/webgpu.md.
//   node worker.mjs [--wgsl DIR] [--kernel NAME=FILE.wgsl ...]
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createRequire } from 'node:module';
import { create, globals } from 'webgpu';
import { CEILINGS, KNOB_ERROR, OPS, Unsupported } from './ops.mjs';
import { FileError, checkSteps, interfaceSteps } from './interface.mjs';

Object.assign(globalThis, globals);

const MAGIC = 0x47573451;
const T_HELLO = 1, T_RUN = 2, T_RESULT = 3, T_BYE = 4, T_CHECK = 5;
const IN_FD = 3, OUT_FD = 4;
const here = path.dirname(fileURLToPath(import.meta.url));

// ---- frames ----

function readExact(n) {
    const buf = Buffer.alloc(n);
    let got = 0;
    while (got < n) {
        const k = fs.readSync(IN_FD, buf, got, n - got, null);
        if (k === 0)
            process.exit(0);   // the harness is gone
        got += k;
    }
    return buf;
}

function readFrame() {
    const head = readExact(16);
    if (head.readUInt32LE(0) !== MAGIC)
        throw new Error('bad frame magic');
    const type = head.readUInt32LE(4), jsonBytes = head.readUInt32LE(8), nBlobs = head.readUInt32LE(12);
    const json = JSON.parse(readExact(jsonBytes).toString('utf8'));
    const blobs = [];
    for (let i = 0; i < nBlobs; i++) {
        const len = Number(readExact(8).readBigUInt64LE(0));
        blobs.push(readExact(len));
    }
    return { type, json, blobs };
}

function writeAll(buf) {
    let off = 0;
    while (off < buf.length)
        off += fs.writeSync(OUT_FD, buf, off, buf.length - off);
}

function writeFrame(type, json, blobs = []) {
    const body = Buffer.from(JSON.stringify(json), 'utf8');
    const head = Buffer.alloc(16);
    head.writeUInt32LE(MAGIC, 0);
    head.writeUInt32LE(type, 4);
    head.writeUInt32LE(body.length, 8);
    head.writeUInt32LE(blobs.length, 12);
    writeAll(head);
    writeAll(body);
    for (const b of blobs) {
        const len = Buffer.alloc(8);
        len.writeBigUInt64LE(BigInt(b.byteLength), 0);
        writeAll(len);
        writeAll(Buffer.from(b.buffer, b.byteOffset, b.byteLength));
    }
}

// ---- arguments ----

function parseArgs(argv) {
    const a = { wgsl: path.join(here, '..', 'wgsl'), kernels: {} };
    for (let i = 0; i < argv.length; i++) {
        if (argv[i] === '--wgsl')
            a.wgsl = argv[++i];
        else if (argv[i] === '--kernel') {
            const v = argv[++i], eq = v.indexOf('=');
            a.kernels[v.slice(0, eq)] = v.slice(eq + 1);
        }
    }
    return a;
}

// ---- the device ----

class Failure extends Error {
    constructor(kind, message) { super(message); this.kind = kind; }
}

const args = parseArgs(process.argv.slice(2));
const require = createRequire(import.meta.url);
// gpu (Dawn's instance) must stay referenced: once collected, the device it made is
// freed under our feet (a crash a few allocations later).
let gpu = null, device = null, adapter = null, lost = null, timestamps = false;
const pipelines = new Map(), stepPipelines = new Map();

async function openDevice() {
    // Dawn rounds timestamps down to 2^16 ns by default (a browser's guard against
    // timing attacks): perf then read 0.065536 ms steps and a 0 us dispatch floor on
    // the H200. A test suite times its own kernels: ask for the device's resolution.
    // Q4CTS_DAWN_DISABLE (a perf study's knob, docs/webgpu.md "Perf"): more Dawn toggles
    // to turn off, comma-separated, e.g. use_spirv_reconvergence_mode.
    const more = process.env.Q4CTS_DAWN_DISABLE ?? '';
    if (!/^[a-z0-9_,]*$/.test(more))
        throw new Error(`Q4CTS_DAWN_DISABLE '${more.slice(0, 40)}' is not a list of Dawn toggle names`);
    gpu = create([`disable-dawn-features=${['timestamp_quantization', ...more.split(',').filter(Boolean)].join(',')}`]);
    adapter = await gpu.requestAdapter({ powerPreference: 'high-performance' });
    if (!adapter)
        throw new Error('Dawn found no WebGPU adapter');
    timestamps = adapter.features.has('timestamp-query');
    const lim = adapter.limits;
    device = await adapter.requestDevice({
        requiredFeatures: timestamps ? ['timestamp-query'] : [],
        requiredLimits: {
            maxStorageBufferBindingSize: lim.maxStorageBufferBindingSize,
            maxBufferSize: lim.maxBufferSize,
            maxComputeWorkgroupStorageSize: lim.maxComputeWorkgroupStorageSize,
            maxComputeInvocationsPerWorkgroup: lim.maxComputeInvocationsPerWorkgroup,
            maxComputeWorkgroupSizeX: lim.maxComputeWorkgroupSizeX,
            maxStorageBuffersPerShaderStage: lim.maxStorageBuffersPerShaderStage,
        },
    });
    device.lost.then((info) => { lost = info.message || String(info.reason); });
}

// A kernel's WGSL with each "//!include FILE" line replaced by FILE from the kernel
// folder (WGSL has no include; the W_4X8 reader and the GEMM tile are shared this way).
function kernelSource(name) {
    const file = args.kernels[name] ?? path.join(args.wgsl, `${name}.wgsl`);
    return fs.readFileSync(file, 'utf8').replace(/^\/\/!include (\S+)$/gm,
        (_, inc) => fs.readFileSync(path.join(args.wgsl, inc), 'utf8'));
}

// Compiles a kernel; a WGSL error is an Error naming the kernel, line and message.
// constants: the kernel's override values (ops.mjs's `constants`, e.g. a gemv's M), one
// pipeline per kernel and values.
async function pipeline(name, constants = {}) {
    const key = `${name}|${JSON.stringify(constants)}`;
    if (pipelines.has(key))
        return pipelines.get(key);
    device.pushErrorScope('validation');
    const module = device.createShaderModule({ code: kernelSource(name), label: name });
    const info = await module.getCompilationInfo();
    const errors = info.messages.filter((m) => m.type === 'error');
    const p = device.createComputePipeline({ layout: 'auto', compute: { module, entryPoint: 'main', constants },
                                             label: name });
    const e = await device.popErrorScope();
    if (errors.length || e) {
        const m = errors.length ? `line ${errors[0].lineNum}: ${errors[0].message}` : e.message;
        throw new Failure('compile', `kernel ${name} does not compile: ${m}`);
    }
    pipelines.set(key, p);
    return p;
}

function hello() {
    const info = adapter.info;
    const lim = device.limits;
    const pkg = require('webgpu/package.json');
    return {
        protocol: 1, node: process.version, webgpu: pkg.version,
        adapter: { vendor: info.vendor, architecture: info.architecture, device: info.device,
                   description: info.description },
        features: [...adapter.features].sort(),
        limits: {
            maxStorageBufferBindingSize: lim.maxStorageBufferBindingSize,
            maxBufferSize: lim.maxBufferSize,
            maxComputeWorkgroupsPerDimension: lim.maxComputeWorkgroupsPerDimension,
            maxComputeWorkgroupStorageSize: lim.maxComputeWorkgroupStorageSize,
            maxComputeInvocationsPerWorkgroup: lim.maxComputeInvocationsPerWorkgroup,
        },
        timestamps,
    };
}

// ---- one case ----

const ceil16 = (n) => Math.max(16, Math.ceil(n / 16) * 16);
const USAGE = () => GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_SRC | GPUBufferUsage.COPY_DST;

// The params uniform: fields in order, u32 unless the op's table marks them f32.
function paramsBuffer(fields) {
    const words = Math.max(4, Math.ceil(fields.length / 4) * 4);
    const data = new ArrayBuffer(4 * words), u = new Uint32Array(data), f = new Float32Array(data);
    fields.forEach(([kind, v], i) => { if (kind === 'f') f[i] = v; else u[i] = v >>> 0; });
    const b = device.createBuffer({ size: data.byteLength,
                                    usage: GPUBufferUsage.UNIFORM | GPUBufferUsage.COPY_DST });
    device.queue.writeBuffer(b, 0, data);
    return b;
}

const kernelsOf = (plan) => [...new Set(plan.dispatches.map((d) => d.kernel))];

// The pipelines, bind groups and grids of a plan's dispatches (owned gets the params).
async function prepare(plan, bufs, scratch, owned) {
    const steps = [];
    for (const d of plan.dispatches) {
        const p = await pipeline(d.kernel, d.constants);
        const params = paramsBuffer(d.params);
        owned.push(params);
        const entries = d.bindings.map(([binding, ref]) => ({
            binding, resource: { buffer: ref.scratch !== undefined ? scratch[ref.scratch]
                                                                   : bufs[ref.buffer] } }));
        entries.push({ binding: 8, resource: { buffer: params } });
        const maxX = device.limits.maxComputeWorkgroupsPerDimension;
        const x = Math.max(1, Math.min(d.groups, maxX)), y = Math.ceil(d.groups / x);
        steps.push({ p, bindGroups: [device.createBindGroup({ layout: p.getBindGroupLayout(0), entries })],
                     x, y, z: 1 });
    }
    return steps;
}

// One compute pass of every dispatch, timestamps at query slots at, at + 1 (if query).
function encodePass(enc, steps, query, at) {
    const pass = enc.beginComputePass(query ? { timestampWrites: {
        querySet: query, beginningOfPassWriteIndex: at, endOfPassWriteIndex: at + 1 } } : {});
    for (const s of steps) {
        pass.setPipeline(s.p);
        s.bindGroups.forEach((g, i) => pass.setBindGroup(i, g));
        pass.dispatchWorkgroups(s.x, s.y, s.z);
    }
    pass.end();
}

// perf: warm-up runs (at least req.warmup and req.warmup_ms of wall time), then req.reps
// runs, one submission each, timed by GPU timestamps around the pass: their ms.
async function timeReps(plan, bufs, scratch, req) {
    if (!timestamps)
        throw new Failure('unsupported', 'the adapter has no timestamp-query feature');
    const owned = [];
    try {
        const steps = await prepare(plan, bufs, scratch, owned);
        const t0 = performance.now();
        for (let i = 0; i < (req.warmup ?? 0) || performance.now() - t0 < (req.warmup_ms ?? 0); i++) {
            const enc = device.createCommandEncoder();
            encodePass(enc, steps, null, 0);
            device.queue.submit([enc.finish()]);
            await device.queue.onSubmittedWorkDone();
        }
        const n = req.reps;
        const query = device.createQuerySet({ type: 'timestamp', count: 2 * n });
        const resolve = device.createBuffer({ size: 16 * n,
                                              usage: GPUBufferUsage.QUERY_RESOLVE | GPUBufferUsage.COPY_SRC });
        const stage = device.createBuffer({ size: 16 * n,
                                            usage: GPUBufferUsage.MAP_READ | GPUBufferUsage.COPY_DST });
        owned.push(resolve, stage);
        for (let i = 0; i < n; i++) {
            const enc = device.createCommandEncoder();
            encodePass(enc, steps, query, 2 * i);
            device.queue.submit([enc.finish()]);
            await device.queue.onSubmittedWorkDone();
        }
        const enc = device.createCommandEncoder();
        enc.resolveQuerySet(query, 0, 2 * n, resolve, 0);
        enc.copyBufferToBuffer(resolve, 0, stage, 0, 16 * n);
        device.queue.submit([enc.finish()]);
        await stage.mapAsync(GPUMapMode.READ);
        const t = new BigUint64Array(stage.getMappedRange().slice(0));
        stage.unmap();
        query.destroy();
        const ms = [];
        for (let i = 0; i < n; i++)
            ms.push(t[2 * i + 1] > t[2 * i] ? Number(t[2 * i + 1] - t[2 * i]) / 1e6 : 0);
        return ms;
    } finally {
        for (const g of owned)
            g.destroy();
    }
}

const median = (a) => [...a].sort((x, y) => x - y)[Math.floor(a.length / 2)];

// The ceilings message: copy bandwidth, FMA rate and one small dispatch's floor.
async function ceilings(req) {
    const p = req.params;
    const timed = async (plan) => {
        const scratch = plan.scratch.map((size) => device.createBuffer({ size: ceil16(size), usage: USAGE() }));
        try {
            return median(await timeReps(plan, [], scratch, req));
        } finally {
            for (const g of scratch)
                g.destroy();
        }
    };
    const bytes = Math.min(p.copy_bytes, Math.floor(device.limits.maxStorageBufferBindingSize / 16) * 16);
    const copy = await timed(CEILINGS.copy(bytes));
    const fma = await timed(CEILINGS.fma(p.fma_groups, p.fma_iters));
    const floor = await timed(CEILINGS.copy(4096));
    if (!(floor > 0))
        throw new Failure('unsupported', 'GPU timestamps are too coarse to time one small ' +
                          'dispatch (0 ns apart): perf cannot measure on this adapter');
    return { status: 'ok', copy_gbs: (2 * bytes) / (copy * 1e6), copy_bytes: 2 * bytes,
             fma_tflops: (p.fma_groups * 256 * p.fma_iters * 64) / (fma * 1e9),
             dispatch_us: 1e3 * floor };
}

async function runCase(req, blobs) {
    if (req.op === 'ceilings')
        return { json: await ceilings(req), blobs: [] };
    // an interface file's steps (interface.mjs), or our own kernels' plan (ops.mjs)
    const iface = req.interface;
    const op = OPS[req.op];
    if (!op && !iface)
        throw new Failure('unsupported', `the WebGPU worker has no kernels for op ${req.op}`);
    if (req.fault === 'crash')
        process.kill(process.pid, 'SIGSEGV');
    if (req.fault === 'hang')
        for (;;) {}
    if (req.fault === 'lost')
        device.destroy();
    if (lost)
        throw new Failure('lost', `device lost: ${lost}`);
    const owned = [];
    const scopes = ['out-of-memory', 'validation', 'internal'];
    for (const s of scopes)
        device.pushErrorScope(s);
    try {
        if (req.fault === 'alloc')
            throw new Failure('oom', 'injected: the first buffer allocation of the case failed ' +
                                     'as out of memory');
        const bufs = req.buffers.map((b, i) => {
            // rounded up to 16 bytes, so that a kernel's vec4 access to a tensor's last
            // elements stays inside the buffer when there are no guard words (perf)
            const g = device.createBuffer({ size: ceil16(b.bytes), mappedAtCreation: true, label: b.name,
                                            usage: b.uniform ? GPUBufferUsage.UNIFORM : USAGE() });
            new Uint8Array(g.getMappedRange()).set(blobs[i]);
            g.unmap();
            owned.push(g);
            return g;
        });
        const plan = iface ? { scratch: [], dispatches: iface.steps.map((st) => ({ kernel: st.kernel })) }
                           : op.plan(req.params, device.limits);
        const mk = (size) => {
            const g = device.createBuffer({ size: ceil16(size), usage: USAGE() });
            owned.push(g);
            return g;
        };
        const scratch = (plan.scratch ?? []).map(mk);
        if (req.reps)   // perf: timed repetitions, nothing read back
            return { json: { status: 'ok', times_ms: await timeReps(plan, bufs, scratch, req),
                             kernels: kernelsOf(plan) }, blobs: [] };
        const query = timestamps ? device.createQuerySet({ type: 'timestamp', count: 2 }) : null;
        const resolve = timestamps ? device.createBuffer({ size: 16, usage: GPUBufferUsage.QUERY_RESOLVE | GPUBufferUsage.COPY_SRC }) : null;
        if (resolve)
            owned.push(resolve);
        const enc = device.createCommandEncoder();
        const steps = iface ? await interfaceSteps(device, stepPipelines, iface, bufs)
                            : await prepare(plan, bufs, scratch, owned);
        encodePass(enc, steps, query, 0);
        if (timestamps)
            enc.resolveQuerySet(query, 0, 2, resolve, 0);
        const outs = req.buffers.map((b, i) => [b, i]).filter(([b]) => b.out);
        const staging = outs.map(([b, i]) => {
            const s = device.createBuffer({ size: b.bytes,
                                            usage: GPUBufferUsage.MAP_READ | GPUBufferUsage.COPY_DST });
            owned.push(s);
            enc.copyBufferToBuffer(bufs[i], 0, s, 0, b.bytes);
            return s;
        });
        let tsStage = null;
        if (timestamps) {
            tsStage = device.createBuffer({ size: 16,
                                            usage: GPUBufferUsage.MAP_READ | GPUBufferUsage.COPY_DST });
            owned.push(tsStage);
            enc.copyBufferToBuffer(resolve, 0, tsStage, 0, 16);
        }
        device.queue.submit([enc.finish()]);
        await device.queue.onSubmittedWorkDone();
        const result = [];
        for (const s of staging) {
            await s.mapAsync(GPUMapMode.READ);
            result.push(new Uint8Array(s.getMappedRange().slice(0)));
            s.unmap();
        }
        let gpu_ms = -1;
        if (tsStage) {
            await tsStage.mapAsync(GPUMapMode.READ);
            const t = new BigUint64Array(tsStage.getMappedRange());
            gpu_ms = t[1] > t[0] ? Number(t[1] - t[0]) / 1e6 : 0;
            tsStage.unmap();
        }
        if (query)
            query.destroy();
        return { json: { status: 'ok', gpu_ms, kernels: kernelsOf(plan) },
                 blobs: result };
    } finally {
        const errors = [];
        for (let i = scopes.length - 1; i >= 0; i--)
            errors[i] = await device.popErrorScope();
        for (const g of owned)
            g.destroy();
        if (lost)
            throw new Failure('lost', `device lost: ${lost}`);
        if (errors[0])
            throw new Failure('oom', errors[0].message);
        if (errors[1])
            throw new Failure('validation', errors[1].message);
        if (errors[2])
            throw new Failure('internal', errors[2].message);
    }
}

// The check message of an interface file: ok, or the key and why (interface.mjs).
async function check(req) {
    try {
        await checkSteps(device, req.interface);
        return { status: 'ok' };
    } catch (e) {
        if (e instanceof FileError)
            return { status: 'error', kind: 'interface', key: e.key, message: e.message };
        return { status: 'error', kind: 'internal', key: '', message: e.message };
    }
}

// ---- main loop ----

async function main() {
    try {
        if (KNOB_ERROR)
            throw new Error(KNOB_ERROR);
        await openDevice();
        for (const name of Object.keys(args.kernels))
            await pipeline(name);
    } catch (e) {
        writeFrame(T_HELLO, { protocol: 1, error: e.message });
        process.exit(0);
    }
    writeFrame(T_HELLO, hello());
    for (;;) {
        const f = readFrame();
        if (f.type === T_BYE)
            process.exit(0);
        if (f.type === T_CHECK) {
            writeFrame(T_RESULT, await check(f.json));
            continue;
        }
        if (f.type !== T_RUN)
            throw new Error(`unexpected frame type ${f.type}`);
        try {
            const r = await runCase(f.json, f.blobs);
            writeFrame(T_RESULT, r.json, r.blobs);
        } catch (e) {
            const kind = e instanceof Failure ? e.kind : e instanceof Unsupported ? 'unsupported' : 'internal';
            writeFrame(T_RESULT, { status: 'error', kind, message: e.message });
            if (kind === 'lost')
                process.exit(0);   // a new worker, with a new device, takes the next case
        }
    }
}

main();
