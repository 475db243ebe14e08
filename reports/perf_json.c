/* perf_json.c: the JSON sink of `q4cts perf`: the device's measured ceilings and one
 * timing per case. Layout in q4report.h. One result per line, so a saved run greps
 * and diffs well, and --baseline can look a case up by its line.
 *
 * Crash safety as in json.c: each add atomically replaces the file with the whole
 * document, so a run killed midway leaves every case timed so far. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "q4report_internal.h"

#ifndef Q4REPORT_VERSION
#define Q4REPORT_VERSION "unknown"
#endif
/* Bumped when a key changes meaning or goes away, so consumers can tell. */
#define Q4REPORT_PERF_FORMAT 1

struct q4_perf_json {
    q4rep_sink s;          /* body: rendered result objects, comma-separated */
    q4rep_buf head;        /* everything before the results */
    size_t total;
};

/* Writes the whole document; final: the last write, at close. */
static q4_status flush(q4_perf_json *p, int sync, int final, q4_error *err)
{
    q4rep_buf *d = &p->s.doc;
    q4rep_buf_reset(d);
    q4rep_buf_put(d, p->head.data, p->head.len);
    q4rep_buf_puts(d, "  ");
    q4rep_progress_json(d, &p->s.progress, final);
    q4rep_buf_puts(d, ",\n  \"results\": [");
    q4rep_buf_put(d, p->s.body.data ? p->s.body.data : "", p->s.body.len);
    q4rep_buf_puts(d, p->total ? "\n  ]\n}}\n" : "]\n}}\n");
    return q4rep_sink_write(&p->s, "perf", sync, final, err);
}

static void destroy(q4_perf_json *p)
{
    q4rep_buf_free(&p->head);
    q4rep_sink_free(&p->s);
    free(p);
}

q4_status q4_perf_json_open(const char *path, const q4_prop *props, size_t nprops,
                            double copy_gbs, double fma_tflops, double dispatch_us,
                            q4_perf_json **out, q4_error *err)
{
    if (out)
        *out = NULL;
    if (!path || !path[0] || !out)
        return q4_fail(err, Q4_ERR_ARG, "q4_perf_json_open needs a report path and an out pointer");
    if (nprops && !props)
        return q4_fail(err, Q4_ERR_ARG, "q4_perf_json_open: %zu props given but props is NULL",
                       nprops);
    q4_perf_json *p = calloc(1, sizeof *p);
    if (!p)
        return q4_fail(err, Q4_ERR_NOMEM, "out of memory opening perf report %s", path);
    p->s.nosync = 1;   /* a timing run fsyncs only at open and close */
    q4_status st = q4rep_sink_open(&p->s, path, err);
    if (st != Q4_OK) {
        destroy(p);
        return st;
    }
    q4rep_buf *h = &p->head;
    q4rep_buf_puts(h, "{\"q4cts_perf\": {\n  \"version\": ");
    q4rep_json_str(h, Q4REPORT_VERSION, Q4REP_NOMAX);
    q4rep_buf_printf(h, ",\n  \"format\": %d,\n  \"properties\": ", Q4REPORT_PERF_FORMAT);
    q4rep_props_json(h, props, nprops);
    q4rep_buf_puts(h, ",\n  \"ceilings\": {\"unit\": \"GB/s, TFLOP/s, us\"");
    q4rep_json_member_num(h, "copy_gbs", copy_gbs);
    q4rep_json_member_num(h, "fma_tflops", fma_tflops);
    q4rep_json_member_num(h, "dispatch_us", dispatch_us);
    q4rep_buf_puts(h, "},\n");
    st = h->failed
        ? q4_fail(err, Q4_ERR_NOMEM, "out of memory opening perf report %s", path)
        : flush(p, 1, 0, err);   /* a valid, empty report now: a bad path fails here, early */
    if (st != Q4_OK) {
        destroy(p);
        return st;
    }
    *out = p;
    return Q4_OK;
}

q4_status q4_perf_json_add(q4_perf_json *p, const q4_perf_result *r, q4_error *err)
{
    if (!p || !r)
        return q4_fail(err, Q4_ERR_ARG, "q4_perf_json_add needs a report and a result");
    size_t mark = p->s.body.len;
    q4rep_buf *b = &p->s.body;
    q4rep_buf_puts(b, p->total ? ",\n    {\"name\": " : "\n    {\"name\": ");
    q4rep_json_str(b, r->name, sizeof r->name);
    q4rep_buf_puts(b, ", \"op\": ");
    q4rep_json_str(b, r->op, sizeof r->op);
    if (r->error[0]) {
        q4rep_buf_puts(b, ", \"error\": ");
        q4rep_json_str(b, r->error, sizeof r->error);
    } else {
        q4rep_json_member_num(b, "median_ms", r->median_ms);
        q4rep_json_member_num(b, "p10_ms", r->p10_ms);
        q4rep_json_member_num(b, "p90_ms", r->p90_ms);
        q4rep_json_member_num(b, "gbs", r->gbs);
        q4rep_json_member_num(b, "tflops", r->tflops);
        q4rep_buf_puts(b, ", \"bound_by\": ");
        q4rep_json_str(b, r->bound_by, sizeof r->bound_by);
        q4rep_json_member_num(b, "pct_of_ceiling", r->pct);
    }
    q4rep_buf_puts(b, "}");
    if (q4rep_sink_drop_failed(&p->s, mark))
        return q4_fail(err, Q4_ERR_NOMEM, "out of memory adding %.128s to perf report %s",
                       r->name, p->s.file.path);
    p->total++;
    return flush(p, 0, 0, err);
}

void q4_perf_json_set_planned(q4_perf_json *p, size_t planned)
{
    if (p)
        p->s.progress.planned = (long long)planned;
}

void q4_perf_json_set_stopped(q4_perf_json *p, const char *why)
{
    if (p)
        q4rep_progress_stop(&p->s.progress, why);
}

q4_status q4_perf_json_close(q4_perf_json *p, q4_error *err)
{
    if (!p)
        return Q4_OK;
    q4_status st = flush(p, 1, 1, err);   /* again: an earlier failed write is retried here */
    destroy(p);
    return st;
}
