/* train_case.c: the training driver (train_case.h, docs/training.md).
 *
 * The model's state (each layer's fp32 latent weight, its W_4X8 codes and fixed
 * scales, AdamW's m and v, the step) is kept as the GPU left it: every op's outputs
 * are read back and are the next op's inputs. Each op runs through the backend's own
 * per-op run (backend.h), so it is the same launch, read-back and guard checks as a
 * single-op case, and it is judged by the op's descriptor (truth and judge) on the
 * exact inputs the previous ops produced, so rounding never compounds in judgement
 * (a). Then the loss trajectory is judged against an fp64 run of the same model from
 * the same start, in an envelope calibrated by the zoo's legal fp32 runs (b).
 *
 * On Vulkan a step is kept on the device (train_resident.h): the step's code below
 * runs twice, a pass that records every op into one submission, with the tensors
 * handed on through device buffers and ordered by the runtime's barriers, then, after
 * it ran, a pass that reads each op's outputs back and judges them in step order.
 * Elsewhere (WebGPU, interface files, the host-side planted faults) a step's ops run
 * one by one and the state passes through host memory (each op's run uploads its
 * inputs and reads its outputs back). gpu_in is what the kernel is handed, truth_in
 * what the previous kernels wrote; they differ only under a planted integration bug
 * (--inject-fault train_<kind>@N). */
#include "train_case.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "clock.h"
#include "dump.h"
#include "gpu_judged.h"
#include "judge.h"
#include "plan.h"
#include "q4ref_train.h"
#include "train_resident.h"
#include "verdict.h"

_Static_assert(Q4_CASE_TRAIN_MAX_STEPS <= 999, "a step fits the three digits of a result's where");
/* Every step the driver keeps; the result's trace folds them into its rows (fold). */
#define MAX_STEPS Q4_CASE_TRAIN_MAX_STEPS

_Static_assert(Q4H_STEP_OPS == Q4_TRAIN_OPS, "a trace column per op of a step");

/* The envelope's calibration (docs/training.md, "The envelope"): the zoo's largest
 * deviation from the fp64 run times SAFETY, plus a floor of FLOOR relative to the
 * loss (about 8 to 16 fp32 ulps of it) for steps where every zoo run happens to agree. */
#define SAFETY 8.0
#define FLOOR_REL 0x1p-20
/* The latent's drift allowance in units of its scale, for the same reason. */
#define DRIFT_FLOOR 0x1p-20

/* How run_op treats an op: run it on its own (host-staged), record it into the step's
 * submission, or judge what the submission left. */
typedef enum pass { PASS_HOST, PASS_RECORD, PASS_JUDGE } pass;

typedef struct driver {
    q4h_backend *b;
    const q4_case *c;
    q4_result *r;
    bool stopped;              /* a run failed (not a judged Fail): the case ends */
    pass pass;
    q4h_resident *res;         /* the device tensors; NULL: host-staged */
    bool unrecordable;         /* an op of the step cannot be recorded: host-staged from it on */
    int64_t elements;
    double gpu_ms;
    double truth_ms;           /* the ops' truths, summed (the references' come first) */
    float loss[MAX_STEPS];                 /* each step's GPU loss */
    float margin[MAX_STEPS][Q4_TRAIN_OPS]; /* each op's worst margin per step; NAN: not run */
    bool dumped;                           /* --dump-dir: the first op not ok is saved */
    /* perf (q4h_train_time): step 1 recorded and submitted again and again, unjudged */
    const q4h_perf_ask *ask;
    double *times;             /* [ask->reps]: each timed submission's GPU time */
    double last_ms;            /* the last submission's GPU time; -1: not measured */
} driver;

/* The case of op `col` of a step: its descriptor's fields only. */
static q4_case step_case(int col, const q4_case *c)
{
    return q4h_train_op_case(q4h_train_step_ops[col], c);
}

/* --dump-dir: the first op that is not ok, as a single-op case of its own (its canonical
 * custom name, the inputs it was handed, its truth and the GPU's results), so that
 * `q4cts replay` judges it again and `--rerun` runs that op alone; its folder is
 * DIR/<training case>/<op case>/. Says in the case's message where it went. */
static void dump_op(driver *d, const q4h_op *op, const q4_case *oc, const q4_inputs *gpu_in,
                    const q4h_outputs *out, bool have_got, const q4_result *one)
{
    const q4h_run_options *opt = d->b->opt;
    q4_case named = *oc;
    q4_error err = { 0 };
    char dir[4096], shown[Q4_ECHO_MAX];
    q4h_tensor t[Q4H_MAX_TENSORS];
    named.seed = d->c->seed;
    q4_case_format(&named, named.name, sizeof named.name);
    snprintf(dir, sizeof dir, "%s/%s", opt->dump_dir, d->c->name);
    q4h_dump_source src = { opt, d->b->i->info(d->b), one, have_got };
    q4_status st = mkdir(opt->dump_dir, 0777) == 0 || errno == EEXIST ? Q4_OK
                   : q4_fail(&err, Q4_ERR_IO, "cannot create directory %s: %s",
                             q4_echo(opt->dump_dir, shown, sizeof shown), strerror(errno));
    if (st == Q4_OK)
        st = q4h_dump_case(dir, &named, gpu_in, t, op->inputs(&named, gpu_in, t), out, &src, &err);
    size_t len = strlen(d->r->message);
    if (st == Q4_OK)
        snprintf(d->r->message + len, sizeof d->r->message - len, " (dumped: %.150s/%.120s; "
                 "q4cts replay --rerun runs that op alone)", d->c->name, named.name);
    else
        snprintf(d->r->message + len, sizeof d->r->message - len, " (dump failed: %.300s)",
                 err.msg);
    d->dumped = true;
}

static bool fault_at(const driver *d, q4h_train_fault_kind kind, int64_t t)
{
    const q4h_train_fault *f = &d->b->opt->train_fault;
    return f->kind == kind && f->step == t;
}

/* The case ends at op `op` of step t with verdict v and msg. */
static void stop_at(driver *d, q4_verdict v, int64_t t, int layer, const q4h_op *op,
                    const char *msg)
{
    d->r->verdict = v;
    snprintf(d->r->message, sizeof d->r->message, "step %lld, layer %d, %s: %.900s",
             (long long)t, layer + 1, op->name, msg);
    d->stopped = true;
}

/* After a lost device or a timeout: the device tensors are gone with the context, and
 * the cases left get a new one (as q4h_gpu_judged does for a host-staged op). */
static void after_lost(driver *d, q4_status st)
{
    if (st != Q4_ERR_DEVICE_LOST && st != Q4_ERR_TIMEOUT)
        return;
    q4h_resident_free(d->res, true);
    d->res = NULL;
    q4h_reopen_after(d->b, d->c, st, d->r);
}

/* The step's recorded ops, submitted: its time, and what the probes found (a Fail,
 * whatever the values, as for a single op). A failed submission ends the case; a
 * hazard the validation layer's synchronisation checks report is a Fail: the results
 * depend on how the device schedules the dispatches. */
static void submit_step(driver *d, int64_t t)
{
    q4_error err = { 0 };
    q4h_observations obs = { .gpu_ms = -1 };
    q4_status st = q4h_resident_submit(d->res, &obs, &err);
    q4_result *r = d->r;
    d->last_ms = obs.gpu_ms;
    if (st == Q4_OK) {
        if (obs.gpu_ms > 0)
            d->gpu_ms += obs.gpu_ms;
        char prefix[32];
        snprintf(prefix, sizeof prefix, "step %lld: ", (long long)t);
        if (r->verdict == Q4_PASS)   /* an earlier failing op stays the cause */
            q4h_fail_on_probes(&obs, prefix, r);
        return;
    }
    const bool hazard = st == Q4_ERR_VALIDATION && strstr(err.msg, "SYNC-HAZARD");
    r->verdict = hazard ? Q4_FAIL : q4h_verdict_of_run(st);
    snprintf(r->message, sizeof r->message, "step %lld: %s%.900s", (long long)t,
             hazard ? "a hazard between the step's dispatches: " : "", err.msg);
    d->stopped = true;
    after_lost(d, st);
}

/* PASS_RECORD: op's launch into the step's submission, its output buffers those of the
 * host arrays `to`. An op that cannot be recorded marks the step (it then runs
 * host-staged). */
static void record_op(driver *d, const q4h_op *op, const q4_case *oc, const q4_inputs *gpu_in,
                      int64_t t, int layer, int col, void *const *to)
{
    q4_error err = { 0 };
    char why[Q4_MSG_MAX] = "";
    if (d->unrecordable)
        return;
    q4_status st = d->b->i->begin(d->b, op, oc, why, sizeof why, &err);
    if (st == Q4_OK && why[0]) {
        stop_at(d, Q4_NOT_SUPPORTED, t, layer, op, why);
        return;
    }
    if (st == Q4_OK && !q4h_resident_recordable(d->res, op, oc)) {
        d->unrecordable = true;
        return;
    }
    /* the planted bug: each dW may start before the op that writes its gradient ends */
    const bool barrier = !(col == Q4H_STEP_DW && fault_at(d, Q4H_TRAIN_FAULT_NO_BARRIER, t));
    if (st == Q4_OK)
        st = q4h_resident_record(d->res, op, oc, gpu_in, to, barrier, &err);
    if (st != Q4_OK) {
        char msg[Q4_MSG_MAX];
        snprintf(msg, sizeof msg, "recording the step: %.480s", err.msg);
        stop_at(d, q4h_verdict_of_run(st), t, layer, op, msg);
        after_lost(d, st);
    }
}

/* PASS_JUDGE: op's outputs as the step's submission left them, judged into r. */
static bool resident_judged(driver *d, const q4h_op *op, const q4_case *oc,
                            const q4_inputs *gpu_in, void *const *to, q4h_outputs *out,
                            q4_result *r)
{
    q4_error err = { 0 };
    q4_status st = q4h_resident_read(d->res, op, oc, gpu_in, to, out, &err);
    r->gpu_ms = -1;   /* the step's time is the submission's */
    if (st == Q4_OK) {
        q4h_judge(out, r);
        return true;
    }
    r->verdict = q4h_verdict_of_run(st);
    snprintf(r->message, sizeof r->message, "reading the step's results: %.480s", err.msg);
    return false;
}

/* Runs op on gpu_in (PASS_HOST), or records it (PASS_RECORD) or reads its outputs
 * after the step (PASS_JUDGE) into the buffers of host arrays `to` (one per output
 * buffer of the op), judges it against the truth of truth_in and keeps the worst of
 * the case in d->r; trace column col at step t (1-based). out holds the GPU's results
 * after it. False when there are none: the op was recorded, or the run itself failed
 * (the case's verdict is set). */
static bool run_op(driver *d, const q4_case *oc, const q4_inputs *truth_in,
                   const q4_inputs *gpu_in, int64_t t, int layer, int col, q4h_outputs *out,
                   void *const *to, void (*tamper)(q4h_outputs *out, const void *ctx),
                   const void *ctx)
{
    const q4h_op *op = q4h_train_step_ops[col];
    q4_error err = { 0 };
    q4_result one;
    char why[Q4_MSG_MAX] = "";
    q4_result_init(&one);
    q4h_outputs_free(out);
    if (d->pass == PASS_RECORD) {
        record_op(d, op, oc, gpu_in, t, layer, col, to);
        return false;
    }
    /* The case line's sequence (backend.h) for each op: begin, stage (what the kernel is
     * handed, as the API takes it: WebGPU's buffer images), truth, bind (an interface
     * file's buffers, which follow from the truth), run, end. A judged pass has begun
     * and run the op in its step's submission already. */
    const q4h_backend_i *bi = d->b->i;
    const bool host = d->pass == PASS_HOST;
    q4_status st = host ? bi->begin(d->b, op, oc, why, sizeof why, &err) : Q4_OK;
    if (st == Q4_OK && !why[0] && bi->stage && host)
        st = bi->stage(d->b, op, oc, gpu_in, why, sizeof why, &err);
    const double t_truth = q4h_now_s();
    if (st == Q4_OK && !why[0])
        st = op->truth(oc, truth_in, out, &err);
    d->truth_ms += 1e3 * (q4h_now_s() - t_truth);
    if (st == Q4_OK && !why[0] && bi->bind && host)
        st = bi->bind(d->b, op, oc, gpu_in, out, why, sizeof why, &err);
    if (st == Q4_OK && why[0]) {
        if (bi->end)
            bi->end(d->b);
        stop_at(d, Q4_NOT_SUPPORTED, t, layer, op, why);
        return false;
    }
    if (st != Q4_OK) {
        one.verdict = q4h_verdict_of_run(st);
        snprintf(one.message, sizeof one.message, "%s", err.msg);
    }
    bool ran = st == Q4_OK &&
               (host ? q4h_gpu_judged(d->b, op, oc, gpu_in, out, &one, tamper, ctx)
                     : resident_judged(d, op, oc, gpu_in, to, out, &one));
    if (bi->end && host)   /* what stage and bind kept is this op's alone */
        bi->end(d->b);
    if (!ran && st != Q4_OK && !q4_verdict_ok(d->r->verdict, true)) {
        /* the inputs an earlier failing op handed on are outside this op's contract (a
         * NaN): that op stays the cause, this is what followed */
        size_t len = strlen(d->r->message);
        snprintf(d->r->message + len, sizeof d->r->message - len, "; then step %lld, layer %d, "
                 "%s could not take its inputs: %.300s", (long long)t, layer + 1, op->name,
                 one.message);
        d->stopped = true;
        return false;
    }
    if (!ran) {
        stop_at(d, one.verdict, t, layer, op, one.message);
        if (st == Q4_OK && d->b->opt->dump_dir && !d->dumped)
            dump_op(d, op, oc, gpu_in, out, false, &one);
        return false;
    }
    if (one.gpu_ms > 0)
        d->gpu_ms += one.gpu_ms;
    d->elements += one.elements;
    float *cell = &d->margin[t - 1][col];
    if (!isnan(one.worst_margin) && (isnan(*cell) || one.worst_margin > *cell))
        *cell = (float)one.worst_margin;
    /* The first op that is not ok is the case's cause (what follows it inherits its
     * error); until then the op with the largest margin is the case's worst. */
    bool first_bad = d->r->verdict == Q4_PASS && one.verdict != Q4_PASS;
    bool worse = d->r->verdict == Q4_PASS ? q4h_result_worse(&one, d->r)
                 : q4h_verdict_badness(one.verdict) > q4h_verdict_badness(d->r->verdict);
    if (first_bad || worse) {
        char msg[sizeof one.message];
        snprintf(msg, sizeof msg, "%s", one.message);
        q4_result *r = d->r;
        r->verdict = one.verdict;
        r->worst_err = one.worst_err;
        r->worst_margin = one.worst_margin;
        r->stat_margin = one.stat_margin;
        r->got = one.got, r->expected = one.expected, r->bound = one.bound;
        snprintf(r->output, sizeof r->output, "%s", one.output);
        r->index = one.index;
        /* a step fits 3 digits, a layer 1: 19 bytes before the element's coordinates */
        snprintf(r->where, sizeof r->where, "step=%d, layer=%d, %.40s", (int)t % 1000,
                 (layer + 1) % 10, one.where);
        if (one.verdict == Q4_PASS)
            r->message[0] = 0;
        else
            snprintf(r->message, sizeof r->message, "step %lld, layer %d, %s: %.900s",
                     (long long)t, layer + 1, op->name, msg[0] ? msg : "see the worst element");
    }
    if (d->b->opt->dump_dir && !d->dumped && !q4_verdict_ok(one.verdict, d->b->opt->strict))
        dump_op(d, op, oc, gpu_in, out, true, &one);
    return true;
}

/* ---------------- the planted integration bugs ---------------- */

/* dW not cleared: the kernel's result lands on top of the last step's. */
static void add_previous(q4h_outputs *out, const void *ctx)
{
    const float *prev = ctx;
    q4h_output *o = &out->o[0];
    for (int64_t i = 0; o->got && i < o->count; i++)
        o->got[i] += prev[i];
}

/* ---------------- the trajectory's references ---------------- */

typedef struct refs {
    double loss64[MAX_STEPS], tie[MAX_STEPS];
    double env[MAX_STEPS], drift[MAX_STEPS];   /* drift in units of the scale */
    double *lat64;             /* [T][n] */
    uint8_t *codes64;          /* [n] */
} refs;

static double scale_of(const q4ref_train_model *m, int64_t i)
{
    int l = 0;
    while (l + 1 < m->layers && i >= q4ref_train_weight_at(m, l + 1)) l++;
    const int64_t at = i - q4ref_train_weight_at(m, l), K = m->width[l], N = m->width[l + 1];
    return m->scales[q4ref_train_scale_at(m, l) + ((at % K) / m->gs) * N + at / K];
}

static q4_status make_refs(const q4ref_train_model *m, refs *rf, q4_error *err)
{
    const int64_t n = q4ref_train_weights(m), T = m->T;
    double lossz[MAX_STEPS];
    double *latz = malloc((size_t)(T * n) * sizeof *latz);
    rf->lat64 = malloc((size_t)(T * n) * sizeof *rf->lat64);
    rf->codes64 = malloc((size_t)n);
    if (!latz || !rf->lat64 || !rf->codes64) {
        free(latz);
        return q4_fail(err, Q4_ERR_NOMEM, "cannot allocate the reference trajectories");
    }
    q4ref_train_trace tr64 = { rf->loss64, rf->lat64, rf->codes64, rf->tie };
    q4_status st = q4ref_train_fp64(m, &tr64, err);
    double spread[MAX_STEPS] = { 0 }, dspread[MAX_STEPS] = { 0 };
    for (int z = 0; z < Q4REF_TRAIN_ZOO_RUNS && st == Q4_OK; z++) {
        q4ref_train_trace trz = { lossz, latz, NULL, NULL };
        st = q4ref_train_zoo(m, z, &trz, err);
        for (int64_t t = 0; st == Q4_OK && t < T; t++) {
            spread[t] = fmax(spread[t], fabs(lossz[t] - rf->loss64[t]));
            for (int64_t i = 0; i < n; i++) {
                double s = scale_of(m, i);
                if (s != 0)
                    dspread[t] = fmax(dspread[t],
                                      fabs(latz[t * n + i] - rf->lat64[t * n + i]) / fabs(s));
            }
        }
    }
    for (int64_t t = 0; t < T; t++) {
        rf->env[t] = SAFETY * spread[t] + FLOOR_REL * fmax(1.0, fabs(rf->loss64[t]));
        rf->drift[t] = SAFETY * dspread[t] + DRIFT_FLOOR;
    }
    free(latz);
    return st;
}

/* The result's trace from the driver's steps (q4report.h): one row per step of the n
 * begun when they fit, else Q4_TRAIN_STEPS runs of consecutive steps, each row its
 * run's step furthest from the fp64 loss (relative to the envelope) and each op's worst
 * margin over the run, so a long case's worst step and worst op are both in the trace. */
static void fold(q4_result *r, const driver *d, const refs *rf, int64_t n)
{
    const int64_t rows = n < Q4_TRAIN_STEPS ? n : Q4_TRAIN_STEPS;
    for (int64_t i = 0; i < rows; i++) {
        const int64_t first = i * n / rows, end = (i + 1) * n / rows;
        int64_t worst = first;
        double dev = -1;
        for (int64_t s = first; s < end; s++) {
            double e = rf->env[s] > 0 ? fabs(d->loss[s] - rf->loss64[s]) / rf->env[s] : 0;
            if (!(e <= dev))   /* NaN (an unrun or non-finite step) counts as worst */
                worst = s, dev = isnan(e) ? INFINITY : e;
            for (int o = 0; o < Q4_TRAIN_OPS; o++) {
                float m = d->margin[s][o], *cell = &r->train.margin[i][o];
                if (!isnan(m) && (isnan(*cell) || m > *cell))
                    *cell = m;
            }
        }
        r->train.step[i] = (short)(worst + 1);
        r->train.loss_gpu[i] = d->loss[worst];
        r->train.loss_ref[i] = (float)rf->loss64[worst];
        r->train.envelope[i] = (float)rf->env[worst];
    }
}

/* perf: after submission `rep` (0, 1, ...) of the step, whether the warm-up (at least
 * ask->warmup submissions and ask->warmup_ms since t_warm) and ask->reps timed ones
 * are done; the timed ones' GPU times go to d->times. */
static bool timed_enough(driver *d, int64_t rep, int64_t *first_timed, double t_warm)
{
    const q4h_perf_ask *ask = d->ask;
    if (*first_timed < 0 && rep + 1 >= ask->warmup &&
        (q4h_now_s() - t_warm) * 1e3 >= ask->warmup_ms) {
        *first_timed = rep + 1;
        return false;
    }
    if (*first_timed < 0)
        return false;
    d->times[rep - *first_timed] = d->last_ms;
    return rep - *first_timed + 1 >= ask->reps;
}

/* ---------------- one case ---------------- */

/* Runs training case c (run: ask NULL), or times its first step (perf: ask->reps GPU
 * times into times). */
static void train(q4h_backend *b, const q4_case *c, q4_result *r, const q4h_perf_ask *ask,
                  double *times)
{
    const double t0 = q4h_now_s();
    const q4h_run_options *opt = b->opt;
    q4_inputs in = { 0 };
    q4_error err = { 0 };
    refs rf = { 0 };
    q4h_outputs out = { 0 };
    driver d = { .b = b, .c = c, .r = r, .ask = ask, .times = times };
    const bool perf = ask != NULL;
    /* The trajectory's references: ordinary cases (random_labels has nothing to learn,
     * and perf judges nothing). */
    const bool trajectory = !perf && q4_case_train_judges_trajectory(c);
    for (int s = 0; s < MAX_STEPS; s++)
        for (int o = 0; o < Q4_TRAIN_OPS; o++)
            d.margin[s][o] = NAN;
    float *lat = NULL, *mom = NULL, *vel = NULL, *dw = NULL, *dw_prev = NULL, *zeros = NULL;
    float *act = NULL, *g = NULL;
    uint32_t *w = NULL, *w_prev = NULL;
    uint8_t *codes = NULL, *flat = NULL;   /* flat: the key of the requant's flat output */

    q4h_result_start(opt, c, r);
    for (int o = 0; o < Q4_TRAIN_OPS; o++)
        snprintf(r->train.ops[o], sizeof r->train.ops[o], "%s", q4h_train_step_ops[o]->name);
    for (int s = 0; s < Q4_TRAIN_STEPS; s++)
        for (int o = 0; o < Q4_TRAIN_OPS; o++)
            r->train.margin[s][o] = NAN;
    r->train.codes_margin = NAN;
    /* --kernel overrides and interface files need nothing here: each op's run picks
     * them by its op (the Vulkan context's overrides, q4h_iface_for), so an override of
     * op X replaces X's kernel in every step. */
    if (b->i->no_training) {
        r->verdict = Q4_NOT_SUPPORTED;
        snprintf(r->message, sizeof r->message, "%s", b->i->no_training);
        goto done;
    }
    if (!b->i->info(b)) {
        snprintf(r->message, sizeof r->message, "no device: it was lost and could not be reopened");
        goto done;
    }
    const double t_inputs = q4h_now_s();
    q4_status made = q4_case_inputs(c, &in, &err);
    r->input_ms = 1e3 * (q4h_now_s() - t_inputs);
    if (made != Q4_OK) {
        r->verdict = q4h_verdict_of_preparing(err.status);
        snprintf(r->message, sizeof r->message, "preparing the case failed: %.480s", err.msg);
        goto done;
    }
    int64_t wd[5];
    const int L = q4_case_train_widths(c, wd);
    q4ref_train_model m = { .layers = L, .M = c->m, .T = c->step, .gs = c->gs, .x = in.x,
                            .labels = in.labels, .latent = in.latent, .scales = in.scales,
                            .lr = in.lr, .beta1 = in.beta1, .beta2 = in.beta2, .eps = in.eps,
                            .wd = in.wd };
    int64_t words = 0, widest = 0, flats = 0;
    for (int l = 0; l <= L; l++) {
        m.width[l] = wd[l];
        widest = wd[l] > widest ? wd[l] : widest;
        if (l < L) words += q4_w4x8_words(wd[l + 1], wd[l]);
        if (l < L) flats += q4_flat_bytes(wd[l + 1], wd[l]);
    }
    const int64_t n = q4ref_train_weights(&m), M = c->m, T = c->step, V = c->v;
    double t_truth = q4h_now_s();
    for (int64_t t = 0; !trajectory && t < T; t++)
        rf.loss64[t] = rf.env[t] = NAN;   /* reported as unknown (null) */
    if (trajectory && make_refs(&m, &rf, &err) != Q4_OK) {
        r->verdict = q4h_verdict_of_preparing(err.status);
        snprintf(r->message, sizeof r->message, "the reference runs failed: %.480s", err.msg);
        goto done;
    }
    r->truth_ms = 1e3 * (q4h_now_s() - t_truth);
    lat = malloc((size_t)n * sizeof *lat);
    mom = calloc((size_t)n, sizeof *mom), vel = calloc((size_t)n, sizeof *vel);
    dw = calloc((size_t)n, sizeof *dw), dw_prev = calloc((size_t)n, sizeof *dw_prev);
    zeros = calloc((size_t)n, sizeof *zeros);
    act = calloc((size_t)((L + 1) * M * widest), sizeof *act);
    g = calloc((size_t)((L + 1) * M * widest), sizeof *g);
    flat = malloc((size_t)flats);
    w = calloc((size_t)words, sizeof *w), w_prev = calloc((size_t)words, sizeof *w_prev);
    codes = calloc((size_t)n, 1);
    if (!lat || !mom || !vel || !dw || !dw_prev || !zeros || !act || !g || !w || !w_prev ||
        !codes || !flat) {
        r->verdict = Q4_RESOURCE_ERROR;
        snprintf(r->message, sizeof r->message, "cannot allocate the training state");
        goto done;
    }
    memcpy(lat, in.latent, (size_t)n * sizeof *lat);
    /* The start: the requant of the initial latent, the same codes the references start
     * from. */
    if (q4ref_train_start_codes(&m, codes, &err) == Q4_OK)
        for (int l = 0, wat = 0; l < L && err.status == Q4_OK; l++) {
            q4ref_pack_w4x8(codes + q4ref_train_weight_at(&m, l), wd[l + 1], wd[l], w + wat, &err);
            wat += (int)q4_w4x8_words(wd[l + 1], wd[l]);
        }
    if (err.status != Q4_OK) {
        snprintf(r->message, sizeof r->message, "the start's codes: %.480s", err.msg);
        goto done;
    }
    memcpy(w_prev, w, (size_t)words * sizeof *w);
    r->verdict = Q4_PASS;
    r->worst_margin = 0;

    /* Device-resident where the backend allows it; then an op a launcher cannot record
     * (it reads results back mid-op) sends the case back to the host-staged driver from
     * the step it meets it at, whose recording is dropped unrun. */
    if (perf && !q4h_resident_possible(b)) {
        r->verdict = Q4_NOT_SUPPORTED;
        snprintf(r->message, sizeof r->message, "perf times a training step kept on the device "
                 "(one submission): Vulkan, with the built-in kernels or --kernel overrides "
                 "(docs/training.md)");
        goto done;
    }
    if (q4h_resident_possible(b) &&
        q4h_resident_new(b, &d.res, &err) != Q4_OK) {
        r->verdict = Q4_RESOURCE_ERROR;
        snprintf(r->message, sizeof r->message, "%.480s", err.msg);
        goto done;
    }
    /* perf: step 1 again and again, each a submission of its own (rep counts them) */
    int64_t rep = 0, first_timed = -1;
    const double t_warm = q4h_now_s();
    for (int64_t t = 1; t <= T && !d.stopped; t += perf ? 0 : 1, rep++) {
        r->train.steps = (int)t;   /* the steps begun: a stopped case reports those */
        d.pass = d.res ? PASS_RECORD : PASS_HOST;
        if (d.res && q4h_resident_begin(d.res, &err) != Q4_OK) {
            r->verdict = q4h_verdict_of_run(err.status);
            snprintf(r->message, sizeof r->message, "step %lld: %.480s", (long long)t, err.msg);
            break;
        }
    step_pass:;
        /* forward: act[l+1] = act[l] W_l^T, act[0] the step's x */
        for (int l = 0, wat = 0; l < L && !d.stopped; l++) {
            const int64_t N = wd[l + 1], K = wd[l];
            q4_case oc = step_case(Q4H_STEP_FWD, c);
            oc.m = M, oc.n = N, oc.k = K, oc.gs = c->gs;
            q4_inputs ti = { 0 };
            ti.x = l ? act + l * M * widest : in.x + (t - 1) * M * c->k;
            ti.w4x8 = w + wat;
            ti.scales = in.scales + q4ref_train_scale_at(&m, l);
            q4_inputs gi = ti;
            if (fault_at(&d, Q4H_TRAIN_FAULT_STALE_W, t))
                gi.w4x8 = w_prev + wat;
            float *y = act + (l + 1) * M * widest;
            if (run_op(&d, &oc, &ti, &gi, t, l, Q4H_STEP_FWD, &out, (void *[]){ y }, NULL, NULL))
                memcpy(y, out.o[0].got, (size_t)(M * N) * sizeof(float));
            wat += (int)q4_w4x8_words(N, K);
        }
        /* fused CE on the logits, every row labelled; g[l] is the gradient of act[l] */
        if (!d.stopped) {
            q4_case oc = step_case(Q4H_STEP_CE, c);
            oc.r = M, oc.v = V;
            q4_inputs ti = { 0 };
            ti.logits = act + L * M * widest;
            ti.labels = in.labels + (t - 1) * M;
            ti.n_valid = (float)M;
            float *dlogits = g + L * M * widest;
            if (run_op(&d, &oc, &ti, &ti, t, L - 1, Q4H_STEP_CE, &out,
                       (void *[]){ &d.loss[t - 1], dlogits }, NULL, NULL)) {
                d.loss[t - 1] = out.o[0].got[0];
                memcpy(dlogits, out.o[1].got, (size_t)(M * V) * sizeof(float));
            }
        }
        /* backward, top layer first: dW_l = g[l+1]^T act[l]; g[l] = g[l+1] W_l above layer 0 */
        int wat = (int)words;
        for (int l = L - 1; l >= 0 && !d.stopped; l--) {
            const int64_t N = wd[l + 1], K = wd[l], at = q4ref_train_weight_at(&m, l);
            wat -= (int)q4_w4x8_words(N, K);
            q4_case oc = step_case(Q4H_STEP_DW, c);
            oc.m = M, oc.n = N, oc.k = K;
            q4_inputs ti = { 0 };
            ti.dout = g + (l + 1) * M * widest;
            ti.x = l ? act + l * M * widest : in.x + (t - 1) * M * c->k;
            bool stale = fault_at(&d, Q4H_TRAIN_FAULT_DW_STALE, t);
            if (run_op(&d, &oc, &ti, &ti, t, l, Q4H_STEP_DW, &out, (void *[]){ dw + at },
                       stale ? add_previous : NULL, dw_prev + at))
                memcpy(dw + at, out.o[0].got, (size_t)(N * K) * sizeof(float));
            if (l == 0 || d.stopped)
                continue;
            oc = step_case(Q4H_STEP_BWD, c);
            oc.m = M, oc.n = N, oc.k = K, oc.gs = c->gs;
            memset(&ti, 0, sizeof ti);
            ti.dout = g + (l + 1) * M * widest;
            ti.w4x8 = w + wat;
            ti.scales = in.scales + q4ref_train_scale_at(&m, l);
            q4_inputs gi = ti;
            if (fault_at(&d, Q4H_TRAIN_FAULT_BWD_STALE_W, t))
                gi.w4x8 = w_prev + wat;
            float *dx = g + l * M * widest;
            if (run_op(&d, &oc, &ti, &gi, t, l, Q4H_STEP_BWD, &out, (void *[]){ dx }, NULL, NULL))
                memcpy(dx, out.o[0].got, (size_t)(M * K) * sizeof(float));
        }
        if (d.pass != PASS_RECORD) {
            memcpy(dw_prev, dw, (size_t)n * sizeof *dw);
            memcpy(w_prev, w, (size_t)words * sizeof *w);
        }
        /* AdamW on each layer's latent, then the requant the next forward reads */
        wat = 0;
        for (int l = 0, fat = 0; l < L && !d.stopped; l++) {
            const int64_t N = wd[l + 1], K = wd[l], at = q4ref_train_weight_at(&m, l);
            q4_case oc = step_case(Q4H_STEP_ADAMW, c);
            oc.numel = N * K, oc.step = t, oc.wd = 1;
            q4_inputs ti = { 0 };
            ti.param = lat + at, ti.grad = dw + at, ti.m = mom + at, ti.v = vel + at;
            ti.lr = in.lr, ti.beta1 = in.beta1, ti.beta2 = in.beta2, ti.eps = in.eps;
            ti.wd = in.wd;
            q4ref_train_bias_corrections(&m, t, &ti.bc1, &ti.bc2);
            q4_inputs gi = ti;
            if (fault_at(&d, Q4H_TRAIN_FAULT_MV_RESET, t))
                gi.m = zeros + at, gi.v = zeros + at;
            if (run_op(&d, &oc, &ti, &gi, t, l, Q4H_STEP_ADAMW, &out, NULL, NULL, NULL)) {
                memcpy(lat + at, out.o[0].got, (size_t)(N * K) * sizeof(float));
                memcpy(mom + at, out.o[1].got, (size_t)(N * K) * sizeof(float));
                memcpy(vel + at, out.o[2].got, (size_t)(N * K) * sizeof(float));
            }
            if (d.stopped)
                break;
            oc = step_case(Q4H_STEP_REQUANT, c);
            oc.n = N, oc.k = K, oc.gs = c->gs;
            memset(&ti, 0, sizeof ti);
            ti.latent = lat + at;
            ti.scales = in.scales + q4ref_train_scale_at(&m, l);
            if (run_op(&d, &oc, &ti, &ti, t, l, Q4H_STEP_REQUANT, &out,
                       (void *[]){ w + wat, flat + fat }, NULL, NULL)) {
                /* the W_4X8 words as the GPU wrote them are what the next forward reads;
                 * a requant that writes another layout (an interface file's flat bytes)
                 * hands its codes on in W_4X8, which the forward's own interface file
                 * lays out as its kernel takes them */
                memcpy(codes + at, out.o[0].got_code, (size_t)(N * K));
                if (out.o[0].raw && out.o[0].raw_dtype == 'u' &&
                    out.o[0].raw_bytes == (size_t)q4_w4x8_words(N, K) * 4)
                    memcpy(w + wat, out.o[0].raw, out.o[0].raw_bytes);
                else if (q4ref_pack_w4x8(codes + at, N, K, w + wat, &err) != Q4_OK) {
                    r->verdict = Q4_INTERNAL_ERROR;
                    snprintf(r->message, sizeof r->message, "step %lld, layer %d: packing "
                             "the requant's codes: %.480s", (long long)t, l + 1, err.msg);
                    d.stopped = true;
                }
            }
            wat += (int)q4_w4x8_words(N, K);
            fat += (int)q4_flat_bytes(N, K);
        }
        if (perf && !d.stopped && d.unrecordable) {
            q4h_resident_abort(d.res);
            r->verdict = Q4_NOT_SUPPORTED;
            snprintf(r->message, sizeof r->message, "an op of the step reads its results back "
                     "mid-op (the tensor-core forward's fallback, on a device without "
                     "conditional rendering), so the step is not one submission to time");
            d.stopped = true;
            break;
        }
        if (d.pass == PASS_RECORD && !d.stopped && d.unrecordable) {
            /* back to host-staged ops, this step included; nothing of it has run */
            q4h_resident_abort(d.res);
            q4h_resident_free(d.res, false);
            d.res = NULL;
            d.pass = PASS_HOST;
            goto step_pass;
        }
        if (d.pass == PASS_RECORD && !d.stopped) {
            submit_step(&d, t);
            if (perf) {
                if (!d.stopped && d.last_ms < 0) {
                    r->verdict = Q4_NOT_SUPPORTED;
                    snprintf(r->message, sizeof r->message, "the device has no compute-queue "
                             "timestamps");
                    d.stopped = true;
                }
                if (d.stopped || timed_enough(&d, rep, &first_timed, t_warm))
                    break;
                continue;
            }
            d.pass = PASS_JUDGE;
            if (!d.stopped)
                goto step_pass;
        }
        if (d.pass == PASS_JUDGE && d.res) {   /* (a lost device took the tensors) */
            r->train.resident_steps++;
            /* what only this step read or wrote */
            q4h_resident_drop(d.res, in.x + (t - 1) * M * c->k);
            q4h_resident_drop(d.res, in.labels + (t - 1) * M);
            q4h_resident_drop(d.res, &d.loss[t - 1]);
        }
    }
    if (d.stopped || perf)
        goto done;
    if (!trajectory)   /* random_labels: its ops alone are judged */
        goto checked;

    /* (b) the trajectory: each step's loss against the fp64 run's. A step whose codes
     * came after a requant where the fp64 latent lay within the drift allowance of a
     * rounding boundary may legally differ by whole codes: outside the envelope there it
     * is a QualityWarning, as requant's own near-tie codes are (SPEC §3). */
    bool near_tie = false, traj_noted = false;
    for (int64_t t = 1; t <= T; t++) {
        double got = d.loss[t - 1], want = rf.loss64[t - 1], env = rf.env[t - 1];
        if (t >= 2 && rf.tie[t - 2] <= rf.drift[t - 2])
            near_tie = true;
        double margin = isfinite(got) ? fabs(got - want) / env : INFINITY;
        if (margin <= 1)
            continue;
        q4_verdict v = near_tie ? Q4_QUALITY_WARNING : Q4_FAIL;
        if (q4h_verdict_badness(v) <= q4h_verdict_badness(r->verdict)) {
            if (!traj_noted) {   /* an op failed first: its message stays, this is added */
                size_t len = strlen(r->message);
                snprintf(r->message + len, sizeof r->message - len, "; the loss leaves its "
                         "envelope from step %lld on", (long long)t);
            }
            traj_noted = true;
            continue;
        }
        traj_noted = true;
        r->verdict = v;
        r->worst_margin = margin;
        r->worst_err = fabs(got - want);
        r->got = got, r->expected = want, r->bound = env;
        snprintf(r->output, sizeof r->output, "loss trajectory");
        r->index = t - 1;
        snprintf(r->where, sizeof r->where, "step=%lld", (long long)t);
        snprintf(r->message, sizeof r->message, "step %lld: the loss %.9g is %.3g from the fp64 "
                 "run's %.9g, outside the envelope %.3g%s", (long long)t, got, fabs(got - want),
                 want, env, near_tie ? " (after a requant near a rounding boundary: whole codes "
                 "may legally differ)" : "");
    }
    /* the final codes against the fp64 run's, within the tie rule */
    double cm = 0;
    int64_t bad = -1;
    for (int64_t i = 0; i < n; i++) {
        if (codes[i] == rf.codes64[i])
            continue;
        double s = scale_of(&m, i);
        double q = s != 0 ? rf.lat64[(T - 1) * n + i] / s : 0;
        double dist = q <= -7.5 ? -7.5 - q : q >= 6.5 ? q - 6.5 : fabs(q - floor(q) - 0.5);
        double e = dist <= rf.drift[T - 1] && abs((int)codes[i] - (int)rf.codes64[i]) == 1
                   ? 1 : INFINITY;
        if (e > cm) cm = e, bad = i;
    }
    r->train.codes_margin = (float)cm;
    if (cm > 0) {
        q4_verdict v = cm > 1 ? Q4_FAIL : Q4_QUALITY_WARNING;
        if (q4h_verdict_badness(v) <= q4h_verdict_badness(r->verdict)) {
            size_t len = strlen(r->message);
            snprintf(r->message + len, sizeof r->message - len, "; final codes differ from the "
                     "fp64 run's (e.g. weight %lld)", (long long)bad);
        } else {
            r->verdict = v;
            r->worst_margin = cm;
            r->got = codes[bad], r->expected = rf.codes64[bad], r->bound = NAN;
            r->worst_err = fabs(r->got - r->expected);
            snprintf(r->output, sizeof r->output, "final codes");
            r->index = bad;
            snprintf(r->where, sizeof r->where, "weight %lld", (long long)bad);
            snprintf(r->message, sizeof r->message, "the final code of weight %lld is %d; the "
                     "fp64 run's is %d%s", (long long)bad, codes[bad], rf.codes64[bad],
                     cm > 1 ? "" : " (its latent lies near a rounding boundary)");
        }
    }
checked:
    if (b->i->lint)   /* static checks of the modules its steps ran (Vulkan) */
        b->i->lint(b, c, r);
    /* --dump-dir saves the first op that is not ok (dump_op); a case that fails only
     * in its trajectory or final codes has no such op, and says so */
    if (opt->dump_dir && !d.dumped && (opt->dump_all || !q4_verdict_ok(r->verdict, opt->strict))) {
        size_t len = strlen(r->message);
        snprintf(r->message + len, sizeof r->message - len, "%s(not dumped: a training case's "
                 "dump is its first op that is not ok, and every op passed)", len ? " " : "");
    }
done:
    if (!perf)
        fold(r, &d, &rf, r->train.steps);
    r->elements = d.elements;
    r->gpu_ms = d.gpu_ms > 0 ? d.gpu_ms : -1;
    /* the references' time (make_refs) and every op's truth; unknown if neither ran */
    if (d.truth_ms > 0)
        r->truth_ms = (r->truth_ms > 0 ? r->truth_ms : 0) + d.truth_ms;
    q4h_outputs_free(&out);
    q4_inputs_free(&in);
    free(rf.lat64); free(rf.codes64);
    free(lat); free(mom); free(vel); free(dw); free(dw_prev); free(zeros); free(act); free(g);
    free(w); free(w_prev); free(codes); free(flat);
    q4h_resident_free(d.res, false);
    if (b->i->end)
        b->i->end(b);
    r->seconds = q4h_now_s() - t0;
}

void q4h_train_case(q4h_backend *b, const q4_case *c, q4_result *r)
{
    train(b, c, r, NULL, NULL);
}

q4_status q4h_train_time(q4h_backend *b, const q4h_perf_ask *ask, const q4_case *c,
                         double *times, q4_error *err)
{
    q4_result r;
    q4_result_init(&r);
    train(b, c, &r, ask, times);
    if (r.verdict == Q4_PASS)
        return Q4_OK;
    return q4_fail(err, r.verdict == Q4_NOT_SUPPORTED ? Q4_ERR_UNSUPPORTED : Q4_ERR_DEVICE,
                   "%s", r.message[0] ? r.message : q4_verdict_name(r.verdict));
}
