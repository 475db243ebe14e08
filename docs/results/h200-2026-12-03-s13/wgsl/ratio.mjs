// ratio.mjs: the WGSL / GLSL time table of wgsl2's H200 run. Args: the Vulkan perf JSON,
// then one or more WebGPU perf JSONs (label=FILE); prints each shape's median times and
// ratios, each run's ceilings, and per op how many shapes are within 1.25x.
import fs from 'node:fs';
const load = (f) => { try { return JSON.parse(fs.readFileSync(f, 'utf8')).q4cts_perf; } catch { return null; } };
const [vkFile, ...wg] = process.argv.slice(2);
const vk = load(vkFile);
const runs = wg.map((a) => { const [label, f] = a.split('='); return { label, p: load(f) }; });
const times = (p) => new Map((p?.results ?? []).map((r) => [r.name, r.median_ms]));
const vt = times(vk);
const wts = runs.map((r) => times(r.p));
const fmt = (v, w = 9, d = 3) => (v == null || !isFinite(v) ? '-' : v.toFixed(d)).padStart(w);
for (const [label, p] of [['glsl', vk], ...runs.map((r) => [r.label, r.p])])
    console.log(`ceilings ${label}: ${p ? `copy ${p.ceilings.copy_gbs.toFixed(0)} GB/s, fma ${p.ceilings.fma_tflops.toFixed(2)} TFLOP/s, dispatch ${p.ceilings.dispatch_us.toFixed(1)} us` : 'missing'}`);
console.log('case'.padEnd(52) + 'GLSL ms'.padStart(9) + runs.map((r) => ` ${r.label} ms`.padStart(15) + 'ratio'.padStart(7)).join(''));
const names = [...new Set([...vt.keys(), ...wts.flatMap((m) => [...m.keys()])])].sort();
const within = runs.map(() => new Map());
for (const n of names) {
    const g = vt.get(n);
    let line = n.replace(/^q4cts\./, '').padEnd(52) + fmt(g);
    wts.forEach((m, i) => {
        const w = m.get(n), ratio = g && w ? w / g : null;
        line += fmt(w, 15) + fmt(ratio, 7, 2);
        const op = n.split('.')[1] + (/\.m[1-8]_/.test(n) ? ' (M<=8)' : ' (M>8)');
        const s = within[i].get(op) ?? { ok: 0, n: 0, max: 0 };
        if (ratio != null) { s.n++; s.ok += ratio <= 1.25 ? 1 : 0; s.max = Math.max(s.max, ratio); }
        within[i].set(op, s);
    });
    console.log(line);
}
runs.forEach((r, i) => {
    console.log(`${r.label}: within 1.25x of GLSL, per op:`);
    for (const [op, s] of [...within[i]].sort())
        console.log(`  ${op.padEnd(36)} ${s.ok}/${s.n}  worst ${s.max.toFixed(2)}x`);
});
