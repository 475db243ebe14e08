/* run_case.c: one case's straight line, the same for every API (run_case.h); what an
 * API does differently sits behind the backend's functions (backend.h). */
#include "run_case.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "child.h"
#include "clock.h"
#include "dump.h"
#include "gpu_judged.h"
#include "interface.h"
#include "judge.h"
#include "train_case.h"
#include "truth.h"
#include "verdict.h"

/* --inject-fault flaky@N: the harness's stand-in for a kernel that is right only
 * sometimes. Of this worker's GPU runs, those whose number is not a multiple of N get
 * their first output element read back wrong, so flaky@2 fails every other run:
 * deterministic, unlike a real race, so that --flake-retries can be tested. */
static void inject_flaky(q4h_outputs *out, const void *options)
{
    const q4h_run_options *opt = options;
    static long runs;
    if (opt->flaky_every <= 0 || ++runs % opt->flaky_every == 0 || out->n == 0)
        return;
    q4h_output *o = &out->o[0];
    if (o->got && o->count > 0)
        o->got[0] = (float)(o->value[0] + 1e3 * (o->bound[0] + 1));
    else if (o->got_code && o->count > 0)
        o->got_code[0] = (uint8_t)(o->code[0] ^ (o->alt && o->alt[0] == (o->code[0] ^ 0x11)
                                                 ? 0x22 : 0x11));
}

/* Saves the case as it stands (r and the outputs of the run that gave r) when the
 * options ask for it, a tiled truth made whole first; a failed dump is noted in r's
 * message. */
static void dump(q4h_backend *b, const q4h_op *op, const q4_case *c, const q4_inputs *in,
                 q4h_outputs *out, bool have_got, q4_result *r)
{
    const q4h_run_options *opt = b->opt;
    q4h_tensor tensors[Q4H_MAX_TENSORS];
    q4_error err = { 0 };
    if (!opt->dump_dir || (!opt->dump_all && q4_verdict_ok(r->verdict, opt->strict)))
        return;
    /* a dump holds the whole truth: a tiled one is made whole for it */
    if (q4h_truth_complete(op, c, in, out, &err) != Q4_OK) {
        size_t len = strlen(r->message);
        snprintf(r->message + len, sizeof r->message - len, " (dump failed: %s)", err.msg);
        return;
    }
    int n = op->inputs(c, in, tensors);
    q4h_dump_source src = { opt, b->i->info(b), r, have_got };
    if (q4h_dump_case(opt->dump_dir, c, in, tensors, n, out, &src, &err) != Q4_OK) {
        size_t len = strlen(r->message);
        snprintf(r->message + len, sizeof r->message - len, " (dump failed: %s)", err.msg);
    }
}

void q4h_run_case(q4h_backend *b, const q4_case *c, q4_result *r)
{
    q4h_run_case_on(b, c, NULL, r);
}

/* Preparing the case failed with err: the verdict and message, and the status the
 * caller returns. */
static q4_status not_prepared(const q4_error *err, q4_result *r)
{
    r->verdict = q4h_verdict_of_preparing(err->status);
    snprintf(r->message, sizeof r->message, "preparing the case failed: %.480s", err->msg);
    return err->status;
}

/* Whether the case's truth is made tile by tile as it is judged (truth.h), never held
 * whole: where the op has such a truth and nothing of the run reads it whole before
 * the judge (--repeat judges it again, flaky@N plants its bug in it, an interface
 * file's outputs are chosen from it; --dump all dumps every case). Q4CTS_WHOLE_TRUTH=1
 * makes every truth whole, to compare the two. */
static bool truth_tiled(const q4h_run_options *opt, const q4h_op *op, const q4_case *c)
{
    const char *whole = getenv("Q4CTS_WHOLE_TRUTH");
    return op->tiled && !(whole && whole[0] && strcmp(whole, "0")) && !opt->dump_all &&
           opt->repeat <= 1 && opt->flaky_every <= 0 && !q4h_iface_for(opt, c->op);
}

/* A case's size in element operations (the largest product its op uses), for the
 * thread count of its inputs and truth (q4h_threads_for_work). */
static int64_t case_work(const q4_case *c)
{
    double w[] = { (double)c->m * c->n * c->k, (double)c->n * c->k, (double)c->r * c->v,
                   (double)c->numel };
    double most = 0;
    for (size_t i = 0; i < sizeof w / sizeof w[0]; i++)
        most = w[i] > most ? w[i] : most;
    return most > 9e18 ? INT64_MAX : (int64_t)most;
}

q4_status q4h_run_case_on(q4h_backend *b, const q4_case *c, const q4_inputs *given,
                          q4_result *r)
{
    const q4h_op *op = q4h_op_of(c);
    q4_inputs own = { 0 };
    const q4_inputs *in = given ? given : &own;
    q4h_outputs out = { 0 };
    q4_error err = { 0 };
    q4_status prepared = Q4_OK;
    double t0 = q4h_now_s();
    char why[Q4_MSG_MAX] = "";

    if (q4_case_is_train(c)) {   /* a model trained for steps, not one op */
        if (given) {
            q4h_result_start(b->opt, c, r);
            r->verdict = Q4_NOT_SUPPORTED;
            snprintf(r->message, sizeof r->message, "a training case runs from its name and "
                     "seed; it takes no given inputs (docs/training.md)");
        } else {
            q4h_train_case(b, c, r);
        }
        return Q4_OK;
    }
    q4h_result_start(b->opt, c, r);
    if (!op) {
        snprintf(r->message, sizeof r->message, "no descriptor for op %s", c->op);
        goto done;
    }
    if (b->i->begin(b, op, c, why, sizeof why, &err) != Q4_OK) {
        snprintf(r->message, sizeof r->message, "%s", err.msg);   /* InternalError */
        goto done;
    }
    q4h_threads_for_work(case_work(c));
    if (!why[0] && !given) {
        double t_inputs = q4h_now_s();
        if (q4_case_inputs(c, &own, &err) != Q4_OK) {
            prepared = not_prepared(&err, r);
            goto done;
        }
        r->input_ms = 1e3 * (q4h_now_s() - t_inputs);
    }
    if (!why[0] && b->i->stage && b->i->stage(b, op, c, in, why, sizeof why, &err) != Q4_OK) {
        prepared = not_prepared(&err, r);
        goto done;
    }
    if (why[0]) {
        r->verdict = Q4_NOT_SUPPORTED;
        snprintf(r->message, sizeof r->message, "%s", why);
        goto done;
    }
    double t_truth = q4h_now_s();
    if (q4h_truth_make(op, c, in, truth_tiled(b->opt, op, c), &out, &err) != Q4_OK) {
        prepared = not_prepared(&err, r);
        goto done;
    }
    r->truth_ms = 1e3 * (q4h_now_s() - t_truth);   /* a tiled truth's is added as it is made */
    r->truth_fused = out.tiles != NULL;
    if (b->i->bind && b->i->bind(b, op, c, in, &out, why, sizeof why, &err) != Q4_OK) {
        r->verdict = q4h_verdict_of_run(err.status);
        snprintf(r->message, sizeof r->message, "%.500s", err.msg);
        goto done;
    }
    if (why[0]) {
        r->verdict = Q4_NOT_SUPPORTED;
        snprintf(r->message, sizeof r->message, "%s", why);
        goto done;
    }
    for (int rep = 0; rep < (b->opt->repeat > 0 ? b->opt->repeat : 1); rep++) {
        q4_result this_run = *r;
        bool have_got = q4h_gpu_judged(b, op, c, in, &out, &this_run, inject_flaky, b->opt);
        if (rep == 0 || q4h_result_worse(&this_run, r)) {
            *r = this_run;
            /* Now, while the outputs are this run's: the dump holds the repeat whose
             * verdict counts (a later, worse one overwrites it). */
            dump(b, op, c, in, &out, have_got, r);
        }
        if (!b->i->info(b))
            break;   /* the device is gone and could not be reopened */
    }
    if (b->i->lint)   /* static checks of the modules the case ran */
        b->i->lint(b, c, r);
done:
    if (b->i->end)
        b->i->end(b);
    q4h_outputs_free(&out);
    q4_inputs_free(&own);
    r->seconds = q4h_now_s() - t0;
    return prepared;
}
