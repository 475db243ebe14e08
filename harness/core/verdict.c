/* verdict.c: the verdict rules of verdict.h. */
#include "verdict.h"

#include <stdio.h>

void q4h_result_start(const q4h_run_options *opt, const q4_case *c, q4_result *r)
{
    q4_result_init(r); /* InternalError until judged; gpu_ms -1, figures NAN, index -1 */
    snprintf(r->name, sizeof r->name, "%s", c->name);
    snprintf(r->op, sizeof r->op, "%s", c->op);
    snprintf(r->family, sizeof r->family, "%s", c->family);
    snprintf(r->api, sizeof r->api, "%s", opt->api ? opt->api : "vulkan");
    snprintf(r->repro, sizeof r->repro, "q4cts run --filter %s --seed %llu%s", c->name,
             (unsigned long long)c->seed, opt->repro_flags ? opt->repro_flags : "");
}

int q4h_verdict_badness(q4_verdict v)
{
    switch (v) {
    case Q4_PASS: return 0;
    case Q4_NOT_SUPPORTED: return 1;
    case Q4_QUALITY_WARNING: return 2;
    default: return 3;
    }
}

bool q4h_result_worse(const q4_result *now, const q4_result *so_far)
{
    int a = q4h_verdict_badness(now->verdict), b = q4h_verdict_badness(so_far->verdict);
    return a > b || (a == b && now->worst_margin > so_far->worst_margin);
}

q4_verdict q4h_verdict_of_run(q4_status st)
{
    switch (st) {
    case Q4_ERR_RESOURCE:
    case Q4_ERR_NOMEM: return Q4_RESOURCE_ERROR;
    case Q4_ERR_UNSUPPORTED: return Q4_NOT_SUPPORTED;
    case Q4_ERR_DEVICE_LOST: return Q4_CRASH;
    case Q4_ERR_TIMEOUT: return Q4_TIMEOUT;
    default: return Q4_INTERNAL_ERROR;
    }
}

q4_verdict q4h_verdict_of_preparing(q4_status st)
{
    return st == Q4_ERR_NOMEM ? Q4_RESOURCE_ERROR : Q4_INTERNAL_ERROR;
}
