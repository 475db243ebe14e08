/* q4report.h: q4report, the result sinks of q4cts (console, JUnit XML, JSON).
 *
 * reports/ only formats results: it knows nothing of ops, Vulkan or cases. The
 * harness fills one q4_result per case and hands it to every sink in turn.
 *
 * Verdicts follow Khronos VK-GL-CTS. A case is "ok" when it does not fail the run:
 * Pass, NotSupported, and QualityWarning unless the run is strict.
 *
 * File sinks (JUnit, JSON) are crash-safe: after open and after every add, the file
 * on disk is a complete, well-formed document holding every finished case (the whole
 * document is written to a unique temp file in PATH's folder, fsync'd, and renamed
 * over PATH), so a run killed midway (GPU hang, watchdog, OOM killer) still leaves a
 * report CI can read, and says it is not complete: "complete" is true only in the
 * document that close writes for a run that was not stopped (set_stopped), beside the
 * planned count (set_planned). A PATH that is not a regular file (/dev/null, a FIFO,
 * the process's own stdout) is never replaced: it gets the final document once, at
 * close; a symbolic link to a regular file is followed (report_file.c).
 * Errors come back as values (q4_status + one sentence in q4_error), as elsewhere. */
#ifndef Q4REPORT_H
#define Q4REPORT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "q4_contract.h"

/* ---- verdicts (verdict.c) ---- */

typedef enum q4_verdict {
    Q4_PASS, Q4_FAIL, Q4_QUALITY_WARNING, Q4_NOT_SUPPORTED, Q4_RESOURCE_ERROR,
    Q4_CRASH, Q4_TIMEOUT, Q4_INTERNAL_ERROR,
    Q4_FLAKE,      /* failed, then passed when --flake-retries ran it again (deqp-runner's Flake) */
    Q4_VERDICT_COUNT
} q4_verdict;

/* "Pass", "Fail", "QualityWarning", "NotSupported", "ResourceError", "Crash",
 * "Timeout", "InternalError", "Flake"; "Unknown" for a value outside the enum. */
const char *q4_verdict_name(q4_verdict v);
/* 1 for Pass, NotSupported, and QualityWarning and Flake unless strict; else 0. */
int q4_verdict_ok(q4_verdict v, int strict);
/* Addition: the inverse of q4_verdict_name (exact, case-sensitive); 0 and *out
 * untouched when name is no verdict's name. For case lists of expected verdicts. */
int q4_verdict_parse(const char *name, q4_verdict *out);

/* ---- one case's result (result.c) ---- */

/* A training case's trajectory (docs/training.md): per step, the loss on the GPU and in
 * the fp64 reference run, the envelope it must keep to, and the worst margin of each op
 * the step ran (over layers). Every number fits one result message (runner.c), so the
 * trace holds Q4_TRAIN_STEPS rows: one per step of a case of at most that many steps;
 * a longer case's steps are split into Q4_TRAIN_STEPS runs of consecutive steps, and
 * each row holds its run's worst step (step[] says which: its loss, fp64 loss and
 * envelope) and each op's worst margin over the run. */
#define Q4_TRAIN_STEPS 16
#define Q4_TRAIN_OPS 6
typedef struct q4_train_trace {
    int steps;                     /* 0: not a training case (JSON has no "train" then) */
    char ops[Q4_TRAIN_OPS][24];    /* the op of each margin column, in the step's order */
    float loss_gpu[Q4_TRAIN_STEPS], loss_ref[Q4_TRAIN_STEPS], envelope[Q4_TRAIN_STEPS];
    float margin[Q4_TRAIN_STEPS][Q4_TRAIN_OPS];   /* NAN: that op did not run that step */
    short step[Q4_TRAIN_STEPS];    /* each row's step (1-based); 0: row + 1 */
    float codes_margin;            /* final codes against the fp64 run's: 0 equal, 1 only
                                      near a rounding boundary, INFINITY a wrong code */
    short resident_steps;          /* the steps run device-resident, each one submission
                                      (docs/training.md); the rest ran host-staged */
} q4_train_trace;

/* The options of a case's repro line (--kernel and --interface paths, ...) are at most
 * this long: q4cts refuses a command line whose repro would be longer rather than
 * print one that does not reproduce; the name, seed and device fit in what is left.
 * (A result travels from a case's process in one atomic pipe write: runner.c.) */
#define Q4_REPRO_FLAGS_MAX 1280

typedef struct q4_result {
    char name[128];        /* q4cts.<op>.<family>.<params> */
    char op[40], family[40];
    q4_verdict verdict;
    double seconds;        /* wall time of the case */
    double gpu_ms;         /* < 0 if unknown */
    double truth_ms;       /* wall time of the reference's truth (fp64 and bounds); < 0 if unknown */
    double input_ms;       /* wall time of making the case's inputs (q4_case_inputs: the seeded
                              values and the contract's checks of them); < 0 if unknown (replay's
                              inputs come from a dump, or the case ended before them) */
    double upload_ms;      /* wall time of the GPU run's uploads: its buffers made and filled
                              (the last --repeat run's); < 0 if unknown (WebGPU, --interface, a
                              case that never ran) */
    double readback_ms;    /* the same of its read-backs: results and guard words to the host */
    double judge_ms;       /* wall time of judging the run's results (the last --repeat run's);
                              < 0 if unknown */
    int truth_fused;       /* 1: the truth was made tile by tile while the results were
                              judged (docs/reports.md): truth_ms holds that pass, each
                              element's truth and check, and judge_ms the rest */
    double worst_err;      /* |got - expected| at the worst-margin element; NAN if not judged */
    double worst_margin;   /* max over elements of err / bound (<= 1 passes); NAN if not judged */
    double stat_margin;    /* max over outputs and rows of statistic / envelope (<= 1 passes,
                              docs/numerics.md); NAN if no output has an envelope */
    double got, expected, bound;   /* at that element */
    char output[32];       /* which output tensor, e.g. "y", "dlogits", "loss", "w4x8" */
    int64_t index;         /* flat element index, -1 if none */
    char where[64];        /* coordinates, e.g. "m=3, n=17" */
    int64_t elements;      /* number of elements judged */
    char message[1024];    /* reason: failure summary, NotSupported reason, error text
                              (every out-of-bounds binding of a --bounds-check failure) */
    char repro[Q4_REPRO_FLAGS_MAX + 512];   /* one shell line that reproduces the case
                                                alone: never cut short (Q4_REPRO_FLAGS_MAX) */
    char api[16];          /* the API whose kernels ran it: "vulkan", "webgpu"; "" unknown
                              (JSON's "api", JUnit's "api:" line; omitted when "") */
    int tries;             /* runs the verdict took: 1, more when --flake-retries ran a
                              failing case again (a Flake passed on the last of them) */
    q4_train_trace train;  /* a training case's trajectory; train.steps 0 otherwise */
    q4_verdict baseline;   /* what --baseline expects: its listed verdict, Pass for a case
                              it does not list; Q4_VERDICT_COUNT: the run has no baseline */
} q4_result;

/* How a result stands against its baseline (deqp-runner's model): as expected (the
 * listed verdict, or any ok verdict where the baseline expects an ok one; a listed
 * Flake also accepts Pass), an unexpected pass (ok where the baseline expects a
 * failure) or an unexpected fail (anything else). Without a baseline: as expected
 * when the verdict is ok, else an unexpected fail. */
typedef enum q4_surprise { Q4_AS_EXPECTED, Q4_UNEXPECTED_PASS, Q4_UNEXPECTED_FAIL } q4_surprise;
q4_surprise q4_result_surprise(const q4_result *r, int strict);
/* Whether the result lets the run pass: as expected (q4_result_surprise). Every sink
 * counts "ok" and "not ok" by it. */
int q4_result_ok(const q4_result *r, int strict);

/* Addition: an empty result with the "unknown" markers set (gpu_ms -1, the judged
 * figures NAN, index -1, strings empty, verdict InternalError until the harness sets
 * one, tries 1, no baseline), so a field the harness forgets never reads as a judged
 * zero. */
void q4_result_init(q4_result *r);
/* Addition: one line naming the worst element, e.g.
 * "y[137] (m=3, n=17): got 1.25, expected 1, |err| 0.25, bound 0.078, margin 3.2";
 * "not judged" when worst_margin is NAN. Always NUL-terminates (n > 0); returns buf.
 * The console and the JUnit failure message share it, so they read the same. */
char *q4_result_worst(const q4_result *r, char *buf, size_t n);

typedef struct q4_prop { const char *key; const char *value; } q4_prop;  /* run-wide facts: device, driver, api, seed, version, ... */

/* Addition: the shader coverage of one kernel a run executed (harness --shader-coverage):
 * the file sinks report it beside the cases (kernel_coverage.c). lines counts distinct
 * source lines (0 when the code has no line information: blocks only). */
typedef struct q4_kernel_coverage {
    const char *kernel;     /* the kernel's name */
    int overridden;         /* its code came from --kernel */
    uint32_t lines, lines_hit;
    uint32_t branches, branches_hit;   /* edges: two per conditional branch */
    uint32_t blocks, blocks_hit;
} q4_kernel_coverage;

/* ---- JUnit XML (junit.c) ----
 * One <testsuites> holding one <testsuite name=suite_name> with <properties> (the
 * props, plus "strict" unless a prop has that key) and one <testcase> per add:
 * classname "q4cts.<op>.<family>", name the <params> part of the case name (the full
 * name when it does not start with that prefix). NotSupported -> <skipped>; Fail and
 * (strict) QualityWarning -> <failure>; ResourceError, Crash, Timeout, InternalError
 * -> <error>. Every case's figures are in its <system-out>. Validates against the
 * committed reports/junit-10.xsd (reports/validate-junit checks a file). */
typedef struct q4_junit q4_junit;
q4_status q4_junit_open(const char *path, const char *suite_name, const q4_prop *props, size_t nprops, q4_junit **out, q4_error *err);
/* Addition: strict mode (default 0): QualityWarning becomes a <failure>. It applies to
 * cases added after the call (earlier ones are already on disk), so call it right
 * after open; the "strict" property shows the latest value. */
void q4_junit_set_strict(q4_junit *j, int strict);
/* Addition: fsync each add's rewrite (on, the default) or not. Off, the file is still
 * replaced atomically after every add, so a killed process leaves a complete report;
 * only a power cut or kernel crash may then leave an empty file instead of the last
 * document (open and close always fsync). Each fsync costs milliseconds on a real disk
 * (about 8 ms here), so turn it off for runs of many short cases (perf mode). */
void q4_junit_set_fsync(q4_junit *j, int on);
/* Addition: the number of cases the run means to add: the "planned" property. */
void q4_junit_set_planned(q4_junit *j, size_t planned);
/* Addition: the run ended early or not cleanly (why: "interrupted by SIGINT", "the
 * worker died of signal 11 ... after the last case"): close writes the
 * property "complete" false and "stopped" with why. Without it, only close's document
 * says complete true; every earlier one (what a killed run leaves) says false. */
void q4_junit_set_stopped(q4_junit *j, const char *why);
/* Addition: the run's shader coverage (replacing any earlier call's): one property per
 * kernel, named "shader_coverage.<kernel>" (".<kernel>.override" for --kernel code),
 * valued "lines H/T, branches H/T, blocks H/T". In every later write. */
q4_status q4_junit_set_coverage(q4_junit *j, const q4_kernel_coverage *k, size_t n,
                                q4_error *err);
/* Addition: only open and close write the file, not every add: for a program that
 * adds a finished run's results at once (merge), where a rewrite per add makes n adds
 * cost n^2. A process killed meanwhile leaves the empty document of open. */
void q4_junit_set_write_at_close(q4_junit *j, int on);
q4_status q4_junit_add(q4_junit *j, const q4_result *r, q4_error *err);
/* Addition: as add, but the result takes its place in the document by position
 * (ascending; equal positions in the order added), whatever the order of the adds: a
 * run whose workers finish cases out of order writes each result as soon as it has
 * it, and each document lists the results it holds in case order. add places a
 * result after every one so far. */
q4_status q4_junit_add_at(q4_junit *j, const q4_result *r, size_t position, q4_error *err);
q4_status q4_junit_close(q4_junit *j, q4_error *err);   /* final write; frees (even on error); NULL is fine */

/* ---- JSON (json.c) ----
 * {"q4cts": {"version": "<q4cts version>", "format": 1, "strict": false,
 *            "started": "<local time>", "planned": n or null, "complete": bool,
 *            "stopped": "<why the run ended early>" or null,
 *            "properties": {key: value, ...},
 *            "shader_coverage": null (not measured) or [ {kernel, override, lines,
 *                 lines_hit, branches, branches_hit, blocks, blocks_hit}, ... ],
 *            "results": [ {name, op, family, verdict, ok, seconds, gpu_ms, truth_ms,
 *                          input_ms, upload_ms, readback_ms, judge_ms, truth_fused,
 *                          worst_err,
 *                          worst_margin, got, expected, bound, output, index, where,
 *                          elements, message, repro, api (when set), tries, baseline,
 *                          surprise}, ... ],
 *            "summary": {"total": n, "ok": n, "not_ok": n, "seconds": s,
 *                        "Pass": n, "Fail": n, ... one key per verdict,
 *                        "unexpected_pass": n, "unexpected_fail": n}}}
 * ok is q4_result_ok; baseline the verdict --baseline expects (null without one);
 * surprise "unexpected pass" or "unexpected fail" against it, else null.
 * Numbers are JSON numbers (%.17g, so doubles round-trip); NaN, Inf, the times
 * (gpu_ms, truth_ms, input_ms, upload_ms, readback_ms, judge_ms) < 0 (unknown) and index < 0 are null (docs/reports.md, "Time
 * per case", says what the times measure). Strings are valid UTF-8 (bad bytes become U+FFFD). */
typedef struct q4_json q4_json;
q4_status q4_json_open(const char *path, const q4_prop *props, size_t nprops, q4_json **out, q4_error *err);
/* Addition: strict mode (default 0), recorded in "strict" and in each result's "ok"
 * (as of its add). Call it right after open, as for JUnit. */
void q4_json_set_strict(q4_json *j, int strict);
/* Addition: as q4_junit_set_fsync. */
void q4_json_set_fsync(q4_json *j, int on);
/* Additions: "planned" and "complete"/"stopped", as for JUnit. */
void q4_json_set_planned(q4_json *j, size_t planned);
void q4_json_set_stopped(q4_json *j, const char *why);
/* Addition: "shader_coverage", as q4_junit_set_coverage. */
q4_status q4_json_set_coverage(q4_json *j, const q4_kernel_coverage *k, size_t n,
                               q4_error *err);
/* Additions: as q4_junit_set_write_at_close and q4_junit_add_at. */
void q4_json_set_write_at_close(q4_json *j, int on);
q4_status q4_json_add(q4_json *j, const q4_result *r, q4_error *err);
q4_status q4_json_add_at(q4_json *j, const q4_result *r, size_t position, q4_error *err);
q4_status q4_json_close(q4_json *j, q4_error *err);   /* final write; frees (even on error); NULL is fine */

/* ---- perf timings as JSON (perf_json.c) ----
 * {"q4cts_perf": {"version": "<q4cts version>", "format": 1,
 *                 "properties": {key: value, ...},
 *                 "ceilings": {"copy_gbs": x, "fma_tflops": y, "dispatch_us": z},
 *                 "planned": n or null, "complete": bool, "stopped": "why" or null,
 *                 "results": [ {name, op, median_ms, p10_ms, p90_ms, gbs, tflops,
 *                               bound_by, pct_of_ceiling} or {name, op, error}, ... ]}}
 * One result per line; numbers round-trip (%.17g), non-finite ones are null. Crash-safe
 * like the other file sinks (a complete document after open and after every add). */
typedef struct q4_perf_result {
    char name[128];
    char op[40];
    double median_ms, p10_ms, p90_ms;   /* GPU time of one run of the op */
    double gbs, tflops;                 /* the op's minimal bytes and its flops over median_ms */
    char bound_by[16];                  /* "bandwidth" or "fma": the ceiling pct is against */
    double pct;                         /* percent of that ceiling */
    char error[200];                    /* non-empty: the case could not be timed, and why */
} q4_perf_result;
typedef struct q4_perf_json q4_perf_json;
q4_status q4_perf_json_open(const char *path, const q4_prop *props, size_t nprops,
                            double copy_gbs, double fma_tflops, double dispatch_us,
                            q4_perf_json **out, q4_error *err);
q4_status q4_perf_json_add(q4_perf_json *p, const q4_perf_result *r, q4_error *err);
/* Additions: "planned" and "complete"/"stopped", as for JUnit. */
void q4_perf_json_set_planned(q4_perf_json *p, size_t planned);
void q4_perf_json_set_stopped(q4_perf_json *p, const char *why);
q4_status q4_perf_json_close(q4_perf_json *p, q4_error *err);   /* final write; frees (even on error); NULL is fine */

/* ---- a self-contained HTML page (html_page.c) ----
 * <!DOCTYPE html> with the title, the style in <style>, the body markup as given, the
 * data as <script type="application/json" id=data_id> (read it with
 * JSON.parse(document.getElementById(data_id).textContent)) and the scripts in order,
 * each in its own <script>: nothing is fetched when the page is viewed. "</script"
 * and "</style" in the style and scripts are written "<\/...", '<' in the data
 * \u003c, so nothing ends its element early. PATH is replaced atomically, as the other file sinks do. */
typedef struct q4_html_page {
    const char *title;              /* text, escaped here */
    const char *style;              /* CSS */
    const char *body;               /* trusted markup (the page's own template) */
    const char *data_id;
    const char *data_json;          /* any JSON text */
    const char *const *scripts;     /* JavaScript sources, in order */
    size_t n_scripts;
} q4_html_page;
q4_status q4_html_page_write(const char *path, const q4_html_page *page, q4_error *err);

/* ---- console (console.c) ----
 * Progress and summary for people. Every function accepts NULL (what q4_console_new
 * returns when out of memory) and then does nothing. */
typedef struct q4_console q4_console;
q4_console *q4_console_new(FILE *out, size_t total, int strict);  /* live line when isatty(fileno(out)), else plain lines */
/* Addition: force the live line on (1) or off (0) regardless of isatty; for tests,
 * and for a harness flag such as --no-progress. */
void q4_console_set_live(q4_console *c, int live);
/* tty: redraw the live line "[done/total] pass N fail N skip N  12.3s  ETA 1m05s  <case>"
 * (fail: the cases not ok so far; ETA: the time left at the average pace so far) */
void q4_console_begin(q4_console *c, const char *case_name);
void q4_console_result(q4_console *c, const q4_result *r);    /* non-tty: one line per case "Pass  q4cts....  margin 0.031  1.2 ms"; any not-ok case (tty or not): a block with the message, the worst element (output, index, where, got, expected, bound, margin) and the repro line */
void q4_console_summary(q4_console *c);                        /* table per op: pass / fail / warn / not supported / other, worst margin, time; then totals */
/* Addition: the run did not end as its verdicts say, and the summary's result line
 * must not read PASS or FAIL: word "INCOMPLETE" (interrupted) or "ERROR" (a report
 * could not be written), why in parentheses after it. Call before the summary. */
void q4_console_set_outcome(q4_console *c, const char *word, const char *why);
/* Additions: counts so far, for the harness's exit code and tests. */
size_t q4_console_count(const q4_console *c, q4_verdict v);
size_t q4_console_not_ok(const q4_console *c);
void q4_console_free(q4_console *c);

#endif
