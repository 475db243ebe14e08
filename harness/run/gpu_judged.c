/* gpu_judged.c: q4h_gpu_judged (gpu_judged.h). */
#include "gpu_judged.h"

#include <stdio.h>
#include <string.h>

#include "clock.h"
#include "judge.h"
#include "verdict.h"

bool q4h_gpu_judged(q4h_backend *b, const q4h_op *op, const q4_case *c, const q4_inputs *in,
                    q4h_outputs *out, q4_result *r, q4h_tamper tamper, const void *ctx)
{
    q4_error err = { 0 };
    q4h_observations obs = { .gpu_ms = -1, .io = { -1, -1 } };
    q4_status st = b->i->run(b, op, c, in, out, &obs, &err);
    r->gpu_ms = obs.gpu_ms;
    r->upload_ms = obs.io.upload;
    r->readback_ms = obs.io.readback;
    if (st == Q4_OK) {
        if (tamper)
            tamper(out, ctx);
        double t0 = q4h_now_s(), made_ms = 0;
        if (!out->tiles) {
            q4h_judge(out, r);
        } else if (q4h_judge_tiled(out, r, &made_ms, &err) != Q4_OK) {
            r->verdict = q4h_verdict_of_preparing(err.status);
            snprintf(r->message, sizeof r->message, "judging the results failed: %.480s",
                     err.msg);
            return true;
        } else {   /* the truth made while judging: its time is the truth's */
            r->truth_ms = (r->truth_ms > 0 ? r->truth_ms : 0) + made_ms;
        }
        r->judge_ms = 1e3 * (q4h_now_s() - t0) - made_ms;
        q4h_fail_on_probes(&obs, "", r);
        return true;
    }
    r->verdict = q4h_verdict_of_run(st);
    snprintf(r->message, sizeof r->message, "%s", err.msg);
    q4h_reopen_after(b, c, st, r);
    return false;
}

bool q4h_fail_on_probes(const q4h_observations *obs, const char *prefix, q4_result *r)
{
    if (!obs->out_of_bounds && !obs->raced)
        return false;
    r->verdict = Q4_FAIL;
    snprintf(r->message, sizeof r->message, "%s%s: %s", prefix,
             obs->out_of_bounds ? "out-of-bounds access" : "shared-memory race",
             obs->out_of_bounds ? obs->oob : obs->race);
    return true;
}

void q4h_reopen_after(q4h_backend *b, const q4_case *c, q4_status st, q4_result *r)
{
    q4_error again = { 0 };
    if ((st == Q4_ERR_DEVICE_LOST || st == Q4_ERR_TIMEOUT) && b->i->reopen(b, c, &again) != Q4_OK) {
        size_t len = strlen(r->message);
        snprintf(r->message + len, sizeof r->message - len,
                 "; the device could not be reopened: %s", again.msg);
    }
}
