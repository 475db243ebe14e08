// report.js: draws the page `q4cts report` writes, from the JSON the harness inlines
// (#q4-data; layout in docs/reports.md), with Chart.js and chartjs-chart-matrix
// (inlined before this script). Text from the data only ever goes in as textContent.
// When every chart is drawn, <body data-ready="1"> (the browser test waits for it);
// a failure shows on the page and in data-error.
(function () {
  'use strict';
  const data = JSON.parse(document.getElementById('q4-data').textContent);
  const charts = [];

  // ---- small helpers ----
  function el(tag, attrs, ...children) {
    const e = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) {
      if (k === 'class') e.className = v;
      else e.setAttribute(k, v);
    }
    for (const c of children) e.append(c instanceof Node ? c : String(c));
    return e;
  }
  function fmt(v, digits) {
    if (v === null || v === undefined) return '–';
    if (typeof v === 'string') return v;            // NaN, Infinity: named by the harness
    if (v === 0) return '0';
    const a = Math.abs(v);
    return a >= 1e4 || a < 1e-3 ? v.toExponential((digits || 3) - 1) : String(Number(v.toPrecision(digits || 3)));
  }
  function row(table, cells, header) {
    const tr = el('tr');
    for (const c of cells) {
      const td = el(header ? 'th' : 'td');
      if (c && typeof c === 'object' && !(c instanceof Node)) {
        td.append(c.text);
        if (c.cls) td.className = c.cls;
      } else td.append(c instanceof Node ? c : String(c));
      tr.append(td);
    }
    table.append(tr);
  }
  function badge(verdict) {
    const known = ['Pass', 'Fail', 'QualityWarning', 'NotSupported'];
    return el('span', { class: 'badge v-' + (known.includes(verdict) ? verdict : 'other') }, verdict);
  }
  function show(id) { document.getElementById(id).hidden = false; }
  const notPassed = v => v !== 'Pass' && v !== 'NotSupported';

  // ---- header ----
  function header() {
    document.getElementById('sources').textContent =
      'q4cts ' + data.version + ' · from ' + data.sources.join(', ');
    const props = (data.run && data.run.properties) || (data.perf && data.perf.properties) || {};
    const t = document.getElementById('props');
    for (const k of ['device', 'device.type', 'driver', 'driver.version', 'driver.info', 'vulkan.api', 'seed', 'validation', 'shard'])
      if (props[k] !== undefined) row(t, [k, props[k]]);
    if (data.run) {
      const r = data.run, results = r.results;
      const bad = results.filter(x => notPassed(x.verdict)).length;
      const counts = {};
      for (const x of results) counts[x.verdict] = (counts[x.verdict] || 0) + 1;
      const text = Object.entries(counts).map(([v, n]) => n + ' ' + v).join(', ');
      const outcome = document.getElementById('outcome');
      outcome.append(el('strong', {}, results.length + ' cases: ' + (text || 'none')),
        r.strict ? ' · strict' : '', r.started ? ' · started ' + r.started : '',
        r.complete === false ? ' · incomplete run' + (r.stopped ? ' (' + r.stopped + ')' : '') +
          (r.planned !== null && r.planned !== undefined ? ', ' + results.length + ' of ' + r.planned + ' planned' : '') : '',
        bad ? ' · ' + bad + ' not passed' : '');
    }
    const toc = document.getElementById('toc');
    if (data.run) toc.append(el('a', { href: '#ops' }, 'Ops'), el('a', { href: '#times' }, 'Time per case'),
      el('a', { href: '#margins' }, 'Margins'));
    if (data.details.length) toc.append(el('a', { href: '#cases' }, 'Failing and warned (' + data.details.length + ')'));
    if (data.perf) toc.append(el('a', { href: '#perf' }, 'Performance'));
  }

  // ---- per-op summary and margin histograms ----
  function byOp(results) {
    const ops = new Map();
    for (const r of results) {
      if (!ops.has(r.op)) ops.set(r.op, []);
      ops.get(r.op).push(r);
    }
    return ops;
  }
  function maxOf(list, key) {
    let m = null;
    for (const r of list) if (typeof r[key] === 'number' && (m === null || r[key] > m)) m = r[key];
    // null in a failed case is an infinite margin (JSON has no Infinity)
    if (key === 'worst_margin' && list.some(r => r.verdict === 'Fail' && r[key] === null)) m = Infinity;
    return m;
  }
  function opsTable(ops) {
    const t = document.getElementById('ops-table');
    row(t, ['op', 'cases', 'Pass', 'Fail', 'QualityWarning', 'NotSupported', 'other', 'worst margin', 'worst statistical margin', 'seconds'], true);
    for (const [op, list] of ops) {
      const n = v => list.filter(r => r.verdict === v).length;
      const other = list.length - n('Pass') - n('Fail') - n('QualityWarning') - n('NotSupported');
      const wm = maxOf(list, 'worst_margin'), sm = maxOf(list, 'stat_margin');
      const secs = list.reduce((s, r) => s + (typeof r.seconds === 'number' ? r.seconds : 0), 0);
      row(t, [op, list.length, n('Pass'), { text: n('Fail'), cls: n('Fail') ? 'bad' : '' },
        n('QualityWarning'), n('NotSupported'), { text: other, cls: other ? 'bad' : '' },
        { text: wm === Infinity ? '∞' : fmt(wm), cls: wm > 1 ? 'bad' : '' },
        { text: fmt(sm), cls: sm > 1 ? 'bad' : '' }, fmt(secs)]);
    }
  }
  // The slowest cases and their phases' times (ms; '–' where unknown).
  const SLOWEST = 20;
  function timesTable(results) {
    const t = document.getElementById('times-table');
    const secs = r => typeof r.seconds === 'number' ? r.seconds : -1;
    const list = results.filter(r => secs(r) >= 0).sort((a, b) => secs(b) - secs(a)).slice(0, SLOWEST);
    row(t, ['case', 'verdict', 'wall (s)', 'inputs (ms)', 'truth (ms)', 'upload (ms)', 'GPU (ms)',
            'read-back (ms)', 'judge (ms)'], true);
    // marked '*' (by the style, so the cell stays a number): the truth was made while
    // judging (truth_fused), its time holds each element's check
    const truth = r => ({ text: fmt(r.truth_ms),
                          cls: r.truth_fused === true && typeof r.truth_ms === 'number' ? 'fused' : '' });
    for (const r of list)
      row(t, [r.name, badge(r.verdict), fmt(r.seconds), fmt(r.input_ms), truth(r),
              fmt(r.upload_ms), fmt(r.gpu_ms), fmt(r.readback_ms), fmt(r.judge_ms)]);
    return list.length;
  }
  // Decades of the worst margin; 1 itself passes, so (1, 10) is a bin of its own.
  const BINS = ['0', '<1e-5', '1e-5', '1e-4', '1e-3', '0.01', '0.1–1', '>1', '≥10', '≥100'];
  const FIRST_FAILING_BIN = 7;
  function bin(m) {
    if (m === 0) return 0;
    if (m === Infinity) return BINS.length - 1;
    if (m <= 1) return Math.max(1, Math.min(6, Math.floor(Math.log10(m)) + 7));  // 1e-5 <= m < 1e-4: 2
    return Math.min(BINS.length - 1, Math.floor(Math.log10(m)) + 7);
  }
  function histograms(ops) {
    const box = document.getElementById('histograms');
    for (const [op, list] of ops) {
      const counts = new Array(BINS.length).fill(0);
      let unjudged = 0;
      for (const r of list) {
        const m = typeof r.worst_margin === 'number' ? r.worst_margin : r.verdict === 'Fail' ? Infinity : null;
        if (m === null) unjudged++;
        else counts[bin(m)]++;
      }
      const canvas = el('canvas', { width: 380, height: 220, 'data-op': op, class: 'histogram' });
      box.append(el('div', { class: 'chart-box' }, canvas));
      charts.push(new Chart(canvas, {
        type: 'bar',
        data: { labels: BINS, datasets: [{ label: 'cases', data: counts,
          backgroundColor: BINS.map((_, i) => i >= FIRST_FAILING_BIN ? '#c62828' : '#3f6fb5') }] },
        options: { responsive: false, animation: false,
          plugins: { legend: { display: false },
            title: { display: true, text: op + (unjudged ? ' (' + unjudged + ' not judged)' : '') } },
          scales: { x: { title: { display: true, text: 'worst margin' } },
            y: { beginAtZero: true, ticks: { precision: 0 }, title: { display: true, text: 'cases' } } } }
      }));
    }
  }

  // ---- error maps of failing cases ----
  function lerp(a, b, t) { return a.map((x, i) => Math.round(x + (b[i] - x) * t)); }
  function rgb(c) { return 'rgb(' + c.join(',') + ')'; }
  const PASS_LO = [232, 241, 251], PASS_HI = [33, 102, 172], FAIL_LO = [253, 174, 97], FAIL_HI = [165, 0, 38];
  function marginColor(v) {
    if (v === null) return '#3b0014';                 // infinite: not finite, or a wrong code
    if (v < 0) return 'rgba(0,0,0,0)';                // no element (folded vector's tail)
    if (v === 0) return rgb(PASS_LO);
    if (v <= 1) return rgb(lerp(PASS_LO, PASS_HI, Math.max(0, Math.log10(v) + 4) / 4));
    return rgb(lerp(FAIL_LO, FAIL_HI, Math.min(1, Math.log10(v) / 2)));
  }
  function signedColor(v) {
    if (v === null) return '#9e9e9e';
    const t = Math.min(1, Math.abs(v));
    return rgb(v >= 0 ? lerp([247, 247, 247], [178, 24, 43], t) : lerp([247, 247, 247], [33, 102, 172], t));
  }
  function legend(mode) {
    const bar = el('span', { class: 'bar' });
    if (mode === 'max') {
      bar.style.background = 'linear-gradient(to right,' + rgb(PASS_LO) + ',' + rgb(PASS_HI) + ' 66%,' +
        rgb(FAIL_LO) + ' 67%,' + rgb(FAIL_HI) + ')';
      return el('span', { class: 'legend' }, '≤1e-4', bar, '1 · 100+', el('span', { class: 'inf' }, '■'), '∞');
    }
    bar.style.background = 'linear-gradient(to right,rgb(33,102,172),rgb(247,247,247),rgb(178,24,43))';
    return el('span', { class: 'legend' }, '−1', bar, '+1 (err / bound, mean of the cell)');
  }
  // The scale groups along K, where the output has a K axis and the case a group size.
  function groupLines(map, params) {
    const gs = params && params.gs;
    if (!gs || map.fold) return null;
    const axis = map.dims[1] === 'k' ? 'x' : map.dims[0] === 'k' ? 'y' : null;
    if (!axis) return null;
    const size = axis === 'x' ? map.shape[1] : map.shape[0], block = axis === 'x' ? map.block[1] : map.block[0];
    if (gs >= size || gs < block) return null;
    const at = [];
    for (let k = gs; k < size; k += gs) at.push(k / block - 0.5);
    return { axis, at };
  }
  function heatmap(map, params, mode) {
    const [gr, gc] = map.grid, [bh, bw] = map.block;
    const cell = Math.max(3, Math.min(24, Math.floor(900 / gc), Math.floor(600 / gr)));
    const values = mode === 'max' ? map.max : map.mean;
    const cells = [];
    for (let r = 0; r < gr; r++)
      for (let c = 0; c < gc; c++) cells.push({ x: c, y: r, v: values[r * gc + c] });
    const canvas = el('canvas', { width: gc * cell + 70, height: gr * cell + 60, class: 'heatmap',
      'data-output': map.name, 'data-mode': mode });
    const lines = groupLines(map, params);
    const rowName = map.fold ? 'i / ' + map.fold : map.dims[0] === '-' ? '' : map.dims[0];
    const colName = map.fold ? 'i % ' + map.fold : map.dims[1] === '-' ? '' : map.dims[1];
    const elementAt = (r, c) => {
      if (map.fold) return 'i=' + ((r * bh) * map.fold + c * bw);
      const parts = [];
      if (map.dims[0] !== '-') parts.push(map.dims[0] + '=' + r * bh + (bh > 1 ? '..' + (Math.min(map.shape[0], (r + 1) * bh) - 1) : ''));
      if (map.dims[1] !== '-') parts.push(map.dims[1] + '=' + c * bw + (bw > 1 ? '..' + (Math.min(map.shape[1], (c + 1) * bw) - 1) : ''));
      return parts.join(', ') || 'scalar';
    };
    const groupPlugin = {
      id: 'q4groups',
      afterDatasetsDraw(chart) {
        if (!lines) return;
        const { ctx, chartArea: a, scales } = chart;
        ctx.save();
        ctx.strokeStyle = 'rgba(0,0,0,0.55)';
        ctx.lineWidth = 1;
        ctx.setLineDash([3, 2]);
        for (const v of lines.at) {
          ctx.beginPath();
          if (lines.axis === 'x') {
            const x = scales.x.getPixelForValue(v);
            ctx.moveTo(x, a.top); ctx.lineTo(x, a.bottom);
          } else {
            const y = scales.y.getPixelForValue(v);
            ctx.moveTo(a.left, y); ctx.lineTo(a.right, y);
          }
          ctx.stroke();
        }
        ctx.restore();
      }
    };
    const tick = (n, b) => v => Number.isInteger(v) && v >= 0 && v < n ? String(v * b) : '';
    charts.push(new Chart(canvas, {
      type: 'matrix',
      data: { datasets: [{ data: cells,
        backgroundColor: c => (mode === 'max' ? marginColor : signedColor)(c.raw.v),
        borderWidth: 0,
        width: ({ chart }) => Math.max(1, (chart.chartArea || { width: 0 }).width / gc - (cell > 4 ? 1 : 0)),
        height: ({ chart }) => Math.max(1, (chart.chartArea || { height: 0 }).height / gr - (cell > 4 ? 1 : 0)) }] },
      options: { responsive: false, animation: false,
        plugins: { legend: { display: false },
          tooltip: { callbacks: { title: items => map.name + '[' + elementAt(items[0].raw.y, items[0].raw.x) + ']',
            label: item => (mode === 'max' ? 'margin ' : 'mean err / bound ') +
              (item.raw.v === null ? (mode === 'max' ? '∞' : '–') : fmt(item.raw.v)) } } },
        scales: {
          x: { type: 'linear', min: -0.5, max: gc - 0.5, offset: false, grid: { display: false },
            ticks: { callback: tick(gc, bw), autoSkip: true, maxRotation: 0 },
            title: { display: !!colName, text: colName + (bw > 1 ? ' (' + bw + ' per cell)' : '') } },
          y: { type: 'linear', min: -0.5, max: gr - 0.5, reverse: true, offset: false, grid: { display: false },
            ticks: { callback: tick(gr, bh), autoSkip: true },
            title: { display: !!rowName, text: rowName + (bh > 1 ? ' (' + bh + ' per cell)' : '') } } } },
      plugins: [groupPlugin]
    }));
    return canvas;
  }
  function mapBlock(map, params) {
    const shape = map.dims[0] === '-' ? '(' + map.shape[1] + ')' : map.shape[0] + ' × ' + map.shape[1];
    const box = el('div', { class: 'map' });
    const head = el('div', { class: 'map-head' },
      el('strong', { class: 'mono' }, map.name), shape + ' (' + map.kind + '), worst margin ' +
        (map.margin === null ? '∞' : fmt(map.margin)));
    const holder = el('div', { class: 'chart-box' }, heatmap(map, params, 'max'));
    const legendBox = el('span', {}, legend('max'));
    head.append(legendBox);
    if (map.mean) {
      // The signed view shows a bias that stays within every bound (a statistical failure).
      const select = el('select', { 'aria-label': 'map of' },
        el('option', { value: 'max' }, '|err| / bound (worst of the cell)'),
        el('option', { value: 'mean' }, 'err / bound (signed mean of the cell)'));
      select.addEventListener('change', () => {
        const old = holder.querySelector('canvas');
        const chart = Chart.getChart(old);
        if (chart) { charts.splice(charts.indexOf(chart), 1); chart.destroy(); }
        holder.replaceChildren(heatmap(map, params, select.value));
        legendBox.replaceChildren(legend(select.value));
      });
      head.append(select);
    }
    box.append(head, holder);
    return box;
  }
  function worstTable(worst) {
    const t = el('table', { class: 'grid worst' });
    row(t, ['output', 'element', 'got', 'expected', 'bound', '|err|', 'margin'], true);
    for (const w of worst)
      row(t, [w.output, w.where, fmt(w.got, 9), fmt(w.expected, 9),
        w.alt !== undefined ? 'code, or ' + w.alt : fmt(w.bound), fmt(w.err),
        { text: w.margin === null ? '∞' : fmt(w.margin), cls: w.margin === null || w.margin > 1 ? 'bad' : '' }]);
    return t;
  }
  function cases() {
    const byName = new Map(data.run.results.map(r => [r.name, r]));
    const list = document.getElementById('case-list');
    for (const d of data.details) {
      const r = byName.get(d.name);
      const sec = el('section', { class: 'case', id: 'case-' + d.name });
      sec.append(el('h3', {}, badge(r.verdict), d.name));
      if (r.message) sec.append(el('p', {}, r.message));
      if (r.repro) sec.append(el('div', { class: 'repro' }, r.repro));
      if (d.device) sec.append(el('p', { class: 'hint' }, 'dumped on ' + d.device +
        (d.params ? ' · ' + Object.entries(d.params).map(([k, v]) => k + '=' + v).join(', ') : '')));
      if (d.note) sec.append(el('p', { class: 'note' }, d.note));
      if (d.maps) {
        for (const m of d.maps.outputs) sec.append(mapBlock(m, d.params));
        sec.append(el('h4', {}, 'Worst elements'), worstTable(d.maps.worst));
      }
      list.append(sec);
    }
  }

  // ---- perf: roofline against the measured ceilings, PyTorch's ratio ----
  // Log axes: a label at each power of ten only.
  const decade = v => Math.abs(Math.log10(v) - Math.round(Math.log10(v))) < 1e-9 ? fmt(v) : '';
  function perf() {
    const p = data.perf, c = p.ceilings;
    const torch = new Map(((data.torch && data.torch.results) || []).map(t => [t.name, t]));
    const props = p.properties || {};
    document.getElementById('perf-props').textContent = (props.device || 'device') +
      ', driver ' + (props.driver || '?') + '; measured ceilings: copy ' + fmt(c.copy_gbs) + ' GB/s, fp32 FMA ' +
      fmt(c.fma_tflops) + ' TFLOP/s' + (typeof c.dispatch_us === 'number' ? ', one dispatch ' + fmt(c.dispatch_us) + ' µs' : '') +
      (data.torch ? '; PyTorch ' + (data.torch.torch || '') + ' on ' + (data.torch.device || '?') : '');
    const timed = p.results.filter(r => typeof r.gbs === 'number' && r.gbs > 0 && typeof r.tflops === 'number' && r.tflops > 0);
    const intensity = r => r.tflops * 1e3 / r.gbs;     // FLOP per byte
    let lo = 0.01, hi = 100;
    for (const r of timed) { lo = Math.min(lo, intensity(r) / 2); hi = Math.max(hi, intensity(r) * 2); }
    const roof = [];
    for (let e = Math.log10(lo); e <= Math.log10(hi) + 1e-9; e += 0.05) {
      const x = Math.pow(10, e);
      roof.push({ x, y: Math.min(c.fma_tflops, c.copy_gbs * x / 1e3) });
    }
    const palette = ['#1b9e77', '#d95f02', '#7570b3', '#e7298a', '#66a61e', '#e6ab02', '#a6761d', '#666666'];
    const ops = [...new Set(timed.map(r => r.op))];
    const datasets = [{ type: 'line', label: 'ceilings (copy, FMA)', data: roof, borderColor: '#222',
      borderWidth: 2, pointRadius: 0, fill: false }];
    ops.forEach((op, i) => datasets.push({ type: 'scatter', label: op, backgroundColor: palette[i % palette.length],
      pointRadius: 5, data: timed.filter(r => r.op === op).map(r => ({ x: intensity(r), y: r.tflops, r })) }));
    charts.push(new Chart(document.getElementById('roofline'), {
      data: { datasets },
      options: { responsive: false, animation: false,
        plugins: { title: { display: true, text: 'Roofline: achieved rate against the measured ceilings' },
          tooltip: { callbacks: { label: item => item.raw.r ? item.raw.r.name + ': ' + fmt(item.raw.r.median_ms) +
            ' ms, ' + fmt(item.raw.r.tflops) + ' TFLOP/s, ' + fmt(item.raw.r.gbs) + ' GB/s' :
            'ceiling ' + fmt(item.raw.y) + ' TFLOP/s' } } },
        scales: { x: { type: 'logarithmic', min: lo, max: hi, ticks: { callback: decade },
            title: { display: true, text: 'FLOP per byte (the op\'s minimal bytes)' } },
          y: { type: 'logarithmic', ticks: { callback: decade }, title: { display: true, text: 'TFLOP/s' } } } }
    }));
    const t = document.getElementById('perf-table');
    row(t, ['case', 'q4cts ms', 'PyTorch ms', 'q4cts / PyTorch', 'GB/s', 'TFLOP/s', 'FLOP/byte', '% of ceiling (bound by)'], true);
    for (const r of p.results) {
      if (r.error) { row(t, [r.name, 'error: ' + r.error, '', '', '', '', '', '']); continue; }
      const tm = torch.get(r.name), tms = tm && typeof tm.median_ms === 'number' ? tm.median_ms : null;
      const ratio = tms && typeof r.median_ms === 'number' ? r.median_ms / tms : null;
      row(t, [r.name, fmt(r.median_ms, 4), tms ? fmt(tms, 4) : tm && tm.error ? tm.error : 'n/a',
        { text: ratio === null ? 'n/a' : fmt(ratio), cls: ratio > 1 ? 'bad' : '' }, fmt(r.gbs), fmt(r.tflops),
        r.gbs > 0 ? fmt(intensity(r)) : '–', fmt(r.pct_of_ceiling) + ' (' + (r.bound_by || '?') + ')']);
    }
  }

  // ---- training cases: the loss trajectory against fp64, and each op's margin per step ----
  function training(results) {
    const list = results.filter(r => r.train && r.train.steps && r.train.steps.length);
    if (!list.length) return;
    show('training');
    document.getElementById('toc').append(el('a', { href: '#training' }, 'Training (' + list.length + ')'));
    const box = document.getElementById('train-list');
    for (const r of list) {
      const steps = r.train.steps, ops = r.train.ops.filter(op => op);
      const dev = steps.map(x => typeof x.loss_gpu === 'number' && typeof x.loss_ref === 'number' &&
        x.envelope > 0 ? Math.abs(x.loss_gpu - x.loss_ref) / x.envelope : null);
      const canvas = el('canvas', { width: 560, height: 280, class: 'trajectory', 'data-case': r.name });
      const table = el('table', { class: 'grid' });
      row(table, ['step', 'GPU loss', 'fp64 loss', 'envelope', '|Δ| / envelope'].concat(ops), true);
      steps.forEach((x, i) => row(table, [x.step, fmt(x.loss_gpu, 8), fmt(x.loss_ref, 8), fmt(x.envelope),
        { text: fmt(dev[i]), cls: dev[i] === null || dev[i] > 1 ? 'bad' : '' }].concat(ops.map(op => {
        const m = x.margins[op];
        return { text: fmt(m), cls: typeof m === 'number' && m > 1 ? 'bad' : '' };
      }))));
      box.append(el('div', { class: 'case' }, el('h3', {}, badge(r.verdict), r.name),
        r.message ? el('p', { class: 'note' }, r.message) : '',
        el('div', { class: 'chart-box' }, canvas), table));
      const labels = steps.map(x => x.step);
      charts.push(new Chart(canvas, {
        data: { labels, datasets: [
          { type: 'line', label: 'fp64 loss', data: steps.map(x => x.loss_ref), borderColor: '#3f6fb5',
            borderWidth: 2, pointRadius: 0, yAxisID: 'y' },
          { type: 'line', label: 'GPU loss', data: steps.map(x => x.loss_gpu), borderColor: '#1d2330',
            showLine: false, pointRadius: 4, pointStyle: 'crossRot', yAxisID: 'y' },
          { type: 'bar', label: '|Δ| / envelope', data: dev.map(v => v === null ? 2 : v),
            backgroundColor: dev.map(v => v === null || v > 1 ? '#c62828' : 'rgba(63,111,181,0.35)'),
            yAxisID: 'y1' }] },
        options: { responsive: false, animation: false,
          plugins: { title: { display: true, text: 'loss per step (' + (r.train.codes_margin === 0 ?
            'final codes equal the fp64 run\'s' : 'final codes differ') + ')' } },
          scales: { x: { title: { display: true, text: 'step' } },
            y: { position: 'left', title: { display: true, text: 'loss' } },
            y1: { position: 'right', min: 0, suggestedMax: 1.2, grid: { drawOnChartArea: false },
              title: { display: true, text: '|GPU − fp64| / envelope' } } } }
      }));
    }
  }

  try {
    header();
    if (data.run) {
      const ops = byOp(data.run.results);
      show('ops'); opsTable(ops);
      if (timesTable(data.run.results)) show('times');
      show('margins'); histograms(ops);
      if (data.details.length) { show('cases'); cases(); }
      training(data.run.results);
    }
    if (data.perf) { show('perf'); perf(); }
    document.getElementById('footer').textContent = charts.length + ' charts · written by q4cts report';
    document.body.dataset.charts = String(charts.length);
    document.body.dataset.ready = '1';
  } catch (e) {
    document.body.dataset.error = String(e && e.stack || e);
    document.body.prepend(el('pre', { class: 'note' }, 'The page could not be drawn: ' + e));
    throw e;
  }
})();
