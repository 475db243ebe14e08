// interface.mjs: third-party WGSL kernels described by an interface file
// (docs/interface-format.md, "WGSL steps"). The harness reads the file, evaluates its
// expressions and sends each step's source, entry point, override constants, bindings
// and grid; here they are compiled into pipelines (layout 'auto', constants by name)
// and bound. checkSteps() is the check before any case: the module compiles, the
// entry point and the overrides exist, and every binding agrees with the pipeline's
// layout (Dawn's validation of a bind group against the auto layout, and the layout
// read from its message for a message that names the binding), and each uniform
// struct's members are the file's fields (names and types, read from the source).

// A refusal of the file: key is the file's key path that is wrong.
export class FileError extends Error {
    constructor(key, message) { super(message); this.key = key; }
}

const firstLine = (m) => String(m).split('\n')[0].trim();

// The step's pipeline, cached per (source, entry, constants).
export async function stepPipeline(device, cache, s) {
    const id = JSON.stringify([s.source, s.entry, s.constants]);
    if (cache.has(id))
        return cache.get(id);
    const module = device.createShaderModule({ code: s.source, label: s.kernel });
    const p = device.createComputePipeline({
        layout: 'auto', label: s.kernel,
        compute: { module, entryPoint: s.entry, constants: s.constants } });
    cache.set(id, p);
    return p;
}

// The run's steps for encodePass: pipelines, bind groups per @group, grid.
export async function interfaceSteps(device, cache, iface, bufs) {
    const steps = [];
    for (const s of iface.steps) {
        const p = await stepPipeline(device, cache, s);
        const groups = [];
        for (const b of s.bindings)
            (groups[b.group] ??= []).push({ binding: b.binding,
                                            resource: { buffer: bufs[b.buffer], offset: 0, size: b.size } });
        const bindGroups = groups.map((entries, g) =>
            device.createBindGroup({ layout: p.getBindGroupLayout(g), entries }));
        steps.push({ p, bindGroups, x: s.groups[0], y: s.groups[1], z: s.groups[2] });
    }
    return steps;
}

// Runs fn inside a validation error scope: the error's message, or null.
async function validation(device, fn) {
    device.pushErrorScope('validation');
    let thrown = null;
    try {
        fn();
    } catch (e) {
        thrown = e.message;
    }
    const e = await device.popErrorScope();
    return thrown ?? (e ? e.message : null);
}

const TYPES = { Uniform: 'uniform buffer', Storage: 'var<storage, read_write>',
                ReadOnlyStorage: 'var<storage, read>' };

// The buffer bindings of the pipeline's @group(g): [{binding, type, min}], [] for none,
// or null when Dawn's message cannot be read (the bind group's own validation decides).
async function layoutOf(device, p, g) {
    const m = await validation(device, () =>
        device.createBindGroup({ layout: p.getBindGroupLayout(g), entries: [] }));
    if (!m)
        return [];
    const count = /expected number of entries \((\d+)\)/.exec(m);
    const found = [...m.matchAll(/\{ binding: (\d+), visibility: [^,]+, buffer: \{type: BufferBindingType::(\w+), minBindingSize: (\d+)/g)]
        .map((x) => ({ binding: Number(x[1]), type: x[2], min: Number(x[3]) }));
    return count && Number(count[1]) === found.length && found.every((l) => TYPES[l.type]) ? found : null;
}

// The file's field types by their WGSL spellings.
const FIELD_TYPES = { i32: 'int', u32: 'uint', f32: 'float' };
for (const n of [2, 3, 4])
    for (const [t, c, file] of [['i32', 'i', 'ivec'], ['u32', 'u', 'uvec'], ['f32', 'f', 'vec']]) {
        FIELD_TYPES[`vec${n}<${t}>`] = `${file}${n}`;   // vec3<f32>
        FIELD_TYPES[`vec${n}${c}`] = `${file}${n}`;     // vec3f
    }

// The members of each uniform struct of the source, by "group:binding": [{name, type}]
// in the file's type names, or null for a struct with a member the file cannot
// describe (another type, an @align or @size), whose size alone is then checked.
export function uniformStructs(source) {
    const text = source.replace(/\/\*[\s\S]*?\*\//g, ' ').replace(/\/\/.*$/gm, '');
    const structs = {};
    for (const m of text.matchAll(/\bstruct\s+(\w+)\s*\{([^}]*)\}/g)) {
        const members = m[2].split(',').map((x) => x.trim()).filter((x) => x);
        const parsed = members.map((x) => /^(\w+)\s*:\s*([\w<>\s]+)$/.exec(x));
        structs[m[1]] = parsed.every((x) => x && FIELD_TYPES[x[2].replace(/\s/g, '')])
            ? parsed.map((x) => ({ name: x[1], type: FIELD_TYPES[x[2].replace(/\s/g, '')] })) : null;
    }
    const vars = {};
    for (const m of text.matchAll(/((?:@\w+\s*(?:\([^)]*\))?\s*)+)var\s*<\s*uniform\s*>\s*\w+\s*:\s*(\w+)\s*;/g)) {
        const g = /@group\s*\(\s*(\d+)\s*\)/.exec(m[1]), b = /@binding\s*\(\s*(\d+)\s*\)/.exec(m[1]);
        if (g && b && m[2] in structs)
            vars[`${g[1]}:${b[1]}`] = { struct: m[2], members: structs[m[2]] };
    }
    return vars;
}

// A uniform binding's fields against its struct's members, when the source has them.
function checkFields(s, b, structs) {
    const decl = structs[`${b.group}:${b.binding}`];
    if (!decl || !decl.members)
        return;
    const m = decl.members, f = b.fields;
    const list = m.map((x) => `${x.name}: ${x.type}`).join(', ');
    if (m.length !== f.length)
        throw new FileError(`${b.key}.uniform`, `the module's struct ${decl.struct} has ${m.length} ` +
                            `members (${list}); the file gives ${f.length} fields`);
    for (let i = 0; i < m.length; i++)
        if (m[i].name !== f[i].name || m[i].type !== f[i].type)
            throw new FileError(`${b.key}.uniform[${i}]`, `the field is "${f[i].name}" (${f[i].type}); ` +
                                `member ${i} of the module's struct ${decl.struct} is "${m[i].name}" ` +
                                `(${m[i].type})`);
}

// One step's bindings of @group(g) against the pipeline's layout.
async function checkGroup(device, s, p, g) {
    const mine = s.bindings.filter((b) => b.group === g);
    const layout = await layoutOf(device, p, g);
    const at = `@group(${g}) @binding(`;
    for (const b of layout ?? []) {
        if (!mine.some((x) => x.binding === b.binding))
            throw new FileError(`${s.key}.bindings`, `the entry point uses ${at}${b.binding}) (a ` +
                                `${TYPES[b.type]}), which the file does not describe`);
    }
    for (const b of mine) {
        const l = layout?.find((x) => x.binding === b.binding);
        if (layout && !l)
            throw new FileError(b.key, `the entry point does not use ${at}${b.binding}) (Dawn's ` +
                                'layout holds only the bindings the entry point uses)');
        if (l && (l.type === 'Uniform') !== (b.kind === 'uniform'))
            throw new FileError(b.key, `${at}${b.binding}) is a ${TYPES[l.type]} in the module; ` +
                                `the file makes it a ${b.kind === 'uniform' ? 'uniform' : 'storage'} buffer`);
        if (l && b.write && l.type === 'ReadOnlyStorage')
            throw new FileError(b.key, `${at}${b.binding}) is var<storage, read> in the module, ` +
                                'but the file writes it');
        if (l && b.kind === 'uniform' && b.bytes < l.min)
            throw new FileError(b.key, `the module's uniform struct at ${at}${b.binding}) is ` +
                                `${l.min} bytes; the file's fields fill ${b.bytes}`);
    }
    // Dawn's own validation, with buffers of the kinds the file gives: a uniform one of
    // the file's size, a storage one as large as the module needs (a case's are sized
    // by the case)
    const owned = [];
    const entries = mine.map((b) => {
        const min = layout?.find((x) => x.binding === b.binding)?.min ?? 0;
        const size = b.kind === 'uniform' ? b.bytes : Math.ceil(Math.max(4096, min) / 4) * 4;
        const buf = device.createBuffer({ size: Math.max(size, 16),
                                          usage: b.kind === 'uniform' ? GPUBufferUsage.UNIFORM
                                                                      : GPUBufferUsage.STORAGE });
        owned.push(buf);
        return { binding: b.binding, resource: { buffer: buf, offset: 0, size } };
    });
    const m = await validation(device, () =>
        device.createBindGroup({ layout: p.getBindGroupLayout(g), entries }));
    for (const b of owned)
        b.destroy();
    if (m)
        throw new FileError(`${s.key}.bindings`, `Dawn refuses the bindings of @group(${g}) ` +
                            `against the module's layout: ${firstLine(m)}`);
}

// The check before any case (the harness's check message); throws FileError.
export async function checkSteps(device, iface) {
    for (const s of iface.steps) {
        const module = device.createShaderModule({ code: s.source, label: s.kernel });
        const errors = (await module.getCompilationInfo()).messages.filter((m) => m.type === 'error');
        if (errors.length)
            throw new FileError(`${s.key}.wgsl`, `the module does not compile: line ` +
                                `${errors[0].lineNum}:${errors[0].linePos}: ${errors[0].message}`);
        let p = null;
        const m = await validation(device, () => {
            p = device.createComputePipeline({
                layout: 'auto', label: s.kernel,
                compute: { module, entryPoint: s.entry, constants: s.constants } });
        });
        if (m)
            throw new FileError(/Entry point/.test(m) ? `${s.key}.entry`
                                : /overridable constant/.test(m) ? `${s.key}.overrides` : s.key,
                                `Dawn cannot make the pipeline: ${firstLine(m)}`);
        for (let g = 0; g < 4; g++)
            await checkGroup(device, s, p, g);
        const structs = uniformStructs(s.source);
        for (const b of s.bindings.filter((x) => x.kind === 'uniform'))
            checkFields(s, b, structs);
    }
}
