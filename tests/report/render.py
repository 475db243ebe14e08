#!/usr/bin/env python3
"""render.py: opens a page `q4cts report` wrote in headless Chromium, through
chromedriver's WebDriver HTTP API (Python's standard library only: Debian's
chromium and chromium-driver, installed by scripts/setup), and checks that it is
drawn: the page's script finished (body[data-ready]), every chart canvas has
pixels drawn in more than one colour, the counts of heat maps, histograms, training
trajectories and roofline plots are as expected, nothing was fetched (the page is self-contained),
and the browser logged no console error. Saves a screenshot of the page and,
with --case, one of that case's section.

Usage: render.py PAGE.html OUT_DIR [--heatmaps N] [--histograms N] [--trajectories N]
                 [--roofline] [--times N] [--case NAME] [--screenshot FILE]
Exit status 0 when every check holds, 1 when one fails (each printed), 2 for a
set-up problem (no chromium or chromedriver, the browser did not start)."""
import argparse
import base64
import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request

# Every wait below only turns a hang into a failure; none judges speed. A loaded
# machine can take minutes to start Chromium or draw the page, so each waits this long.
HANG_S = 600

# What the page says about itself once drawn: per canvas its class, whether it has
# pixels of more than one colour, and every resource the page fetched.
PROBE = """
const out = {ready: document.body.dataset.ready || null, error: document.body.dataset.error || null,
             charts: Number(document.body.dataset.charts || 0), canvases: [],
             resources: performance.getEntriesByType('resource').map(r => r.name)};
for (const c of document.querySelectorAll('canvas')) {
  if (c.closest('[hidden]')) continue;   // a section the data does not fill
  const d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
  const colours = new Set();
  let painted = 0;
  for (let i = 0; i < d.length; i += 4 * 7) {
    if (d[i + 3] === 0) continue;
    painted++;
    if (colours.size < 64) colours.add((d[i] << 16) | (d[i + 1] << 8) | d[i + 2]);
  }
  out.canvases.push({cls: c.className, id: c.id, painted: painted, colours: colours.size,
                     output: c.dataset.output || null});
}
// The time-per-case table's rows (header row first), cell texts.
const times = document.getElementById('times-table');
out.times = times && !times.closest('[hidden]')
  ? Array.from(times.rows).map(r => Array.from(r.cells).map(c => c.textContent)) : [];
return out;
"""


# Switches every heat map with a signed view to it (as a reader's click does).
TOGGLE = """
let n = 0;
for (const s of document.querySelectorAll('.map select')) {
  s.value = 'mean';
  s.dispatchEvent(new Event('change'));
  n++;
}
return n;
"""


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Driver:
    def __init__(self, chromedriver, chromium, profile):
        self.port = free_port()
        self.base = f"http://127.0.0.1:{self.port}"
        # The browser is a tool here, not under test: no sanitizer or preloaded driver
        # library of the ASan stage (scripts/test) reaches it.
        env = {k: v for k, v in os.environ.items()
               if k not in ("LD_PRELOAD", "ASAN_OPTIONS", "UBSAN_OPTIONS", "LSAN_OPTIONS")}
        self.proc = subprocess.Popen([chromedriver, f"--port={self.port}"], env=env,
                                     stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        self.session = None
        deadline = time.time() + HANG_S
        while True:
            try:
                if self.call("GET", "/status").get("ready"):
                    break
            except (urllib.error.URLError, ConnectionError):
                pass
            if time.time() > deadline or self.proc.poll() is not None:
                raise RuntimeError("chromedriver did not start")
            time.sleep(0.1)
        caps = {"capabilities": {"alwaysMatch": {
            "browserName": "chrome",
            "goog:loggingPrefs": {"browser": "ALL"},
            "goog:chromeOptions": {"binary": chromium, "args": [
                "--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                "--window-size=1400,1800", "--hide-scrollbars", f"--user-data-dir={profile}",
                # No network at all: a page that needs any would show it.
                "--host-resolver-rules=MAP * ~NOTFOUND"]}}}}
        self.session = self.call("POST", "/session", caps)["sessionId"]

    def call(self, method, path, body=None):
        data = json.dumps(body).encode() if body is not None else None
        req = urllib.request.Request(self.base + path, data=data, method=method,
                                     headers={"Content-Type": "application/json"})
        try:
            with urllib.request.urlopen(req, timeout=HANG_S) as r:
                return json.loads(r.read() or b"{}").get("value")
        except urllib.error.HTTPError as e:
            raise RuntimeError(f"WebDriver {method} {path}: {e.read().decode(errors='replace')[:500]}")

    def s(self, method, path, body=None):
        return self.call(method, f"/session/{self.session}{path}", body)

    def close(self):
        try:
            if self.session:
                self.s("DELETE", "")
        finally:
            self.proc.terminate()
            self.proc.wait(timeout=HANG_S)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("page")
    ap.add_argument("out_dir")
    ap.add_argument("--heatmaps", type=int, default=0, help="at least this many heat maps")
    ap.add_argument("--histograms", type=int, default=0, help="exactly this many histograms")
    ap.add_argument("--trajectories", type=int, default=0,
                    help="exactly this many training trajectories (docs/training.md)")
    ap.add_argument("--roofline", action="store_true", help="a roofline plot is drawn")
    ap.add_argument("--times", type=int, default=0,
                    help="the time-per-case table has this many cases, each with its input and "
                         "truth time a number")
    ap.add_argument("--case", help="screenshot this case's section")
    ap.add_argument("--screenshot", help="the case's screenshot file (default OUT_DIR/case.png)")
    a = ap.parse_args()
    chromedriver = shutil.which("chromedriver") or "/usr/bin/chromedriver"
    chromium = shutil.which("chromium") or "/usr/bin/chromium"
    for exe in (chromedriver, chromium):
        if not os.access(exe, os.X_OK):
            print(f"render.py: {exe} not found; scripts/setup installs chromium and chromium-driver")
            return 2
    os.makedirs(a.out_dir, exist_ok=True)
    problems, state, state2, logs, toggled = [], {}, {}, [], 0
    with tempfile.TemporaryDirectory() as profile:
        try:
            d = Driver(chromedriver, chromium, profile)
        except RuntimeError as e:
            print(f"render.py: {e}")
            return 2
        try:
            d.s("POST", "/url", {"url": "file://" + os.path.abspath(a.page)})
            deadline = time.time() + HANG_S
            while time.time() < deadline:
                state = d.s("POST", "/execute/sync", {"script": PROBE, "args": []})
                if state["ready"] or state["error"]:
                    break
                time.sleep(0.2)
            shot = d.s("GET", "/screenshot")
            with open(os.path.join(a.out_dir, "page.png"), "wb") as f:
                f.write(base64.b64decode(shot))
            if a.case:
                found = d.s("POST", "/execute/sync", {
                    "script": "return document.getElementById(arguments[0])",
                    "args": ["case-" + a.case]})
                if not found:
                    raise RuntimeError(f"the page has no section for the case {a.case}")
                eid = list(found.values())[0]
                d.s("POST", "/execute/sync", {"script": "arguments[0].scrollIntoView()",
                                              "args": [found]})
                png = base64.b64decode(d.s("GET", f"/element/{eid}/screenshot"))
                path = a.screenshot or os.path.join(a.out_dir, "case.png")
                with open(path, "wb") as f:
                    f.write(png)
                if not png.startswith(b"\x89PNG") or len(png) < 10000:
                    problems.append(f"the screenshot of {a.case} is not a picture ({len(png)} bytes)")
            # Every map's other view (the signed mean), drawn in place of the first.
            toggled = d.s("POST", "/execute/sync", {"script": TOGGLE, "args": []})
            state2 = d.s("POST", "/execute/sync", {"script": PROBE, "args": []})
            # Console errors and uncaught exceptions: chromedriver's browser log.
            logs = d.s("POST", "/se/log", {"type": "browser"}) or []
        except RuntimeError as e:
            problems.append(str(e))
        finally:
            d.close()
    if not state.get("ready"):
        problems.append(f"the page's script did not finish: {state.get('error') or 'timed out'}")
    for e in logs:
        # The one warning the probe itself causes (its getImageData readbacks) is not the page's.
        if e.get("level") in ("SEVERE", "ERROR", "WARNING") and "willReadFrequently" not in e.get("message", ""):
            problems.append(f"console {e.get('level')}: {e.get('message')}")
    if state.get("resources"):
        problems.append(f"the page fetched {state['resources']}; it must be self-contained")
    canvases = state.get("canvases", [])
    for c in canvases:
        if c["painted"] == 0 or c["colours"] < 2:
            problems.append(f"canvas {c['cls'] or c['id']} {c['output'] or ''} is blank "
                            f"({c['painted']} painted samples, {c['colours']} colours)")
    signed = [c for c in state2.get("canvases", []) if c["cls"] == "heatmap"]
    if toggled and (len(signed) != sum(c["cls"] == "heatmap" for c in canvases) or
                    any(c["painted"] == 0 or c["colours"] < 2 for c in signed)):
        problems.append(f"the signed views of {toggled} maps are not all drawn: {signed}")
    count = lambda cls: sum(1 for c in canvases if c["cls"] == cls)
    if count("heatmap") < a.heatmaps:
        problems.append(f"{count('heatmap')} heat maps drawn; expected at least {a.heatmaps}")
    if count("histogram") != a.histograms:
        problems.append(f"{count('histogram')} histograms drawn; expected {a.histograms}")
    if count("trajectory") != a.trajectories:
        problems.append(f"{count('trajectory')} training trajectories drawn; expected {a.trajectories}")
    roof = sum(1 for c in canvases if c["id"] == "roofline" and c["painted"])
    if a.roofline and not roof:
        problems.append("no roofline plot drawn")
    times = state.get("times", [])
    if a.times:
        head = times[0] if times else []
        rows = times[1:]
        if head[3:5] != ["inputs (ms)", "truth (ms)"]:
            problems.append(f"the time-per-case table has no inputs and truth columns: {head}")
        elif len(rows) != a.times:
            problems.append(f"the time-per-case table has {len(rows)} cases; expected {a.times}")
        else:
            for r in rows:
                try:
                    float(r[3]), float(r[4])
                except ValueError:
                    problems.append(f"case {r[0]} has no input or truth time: {r}")
    if state.get("charts") != len(canvases):
        problems.append(f"the page made {state.get('charts')} charts for {len(canvases)} canvases")
    print(json.dumps({"canvases": len(canvases), "heatmaps": count("heatmap"),
                      "histograms": count("histogram"), "trajectories": count("trajectory"),
                      "roofline": bool(roof),
                      "signed_views": toggled, "timed_cases": max(len(times) - 1, 0),
                      "console": len(logs)}))
    for p in problems:
        print("FAIL:", p)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
