/* json.c: the JSON sink, for dashboards and scripts: the same per-case data as JUnit
 * with numbers kept as numbers, plus the run-wide properties and a summary. Layout in
 * q4report.h. One result per line, so the file also greps and diffs well.
 *
 * Crash safety as in junit.c: results are rendered once into `body`, and each add
 * atomically replaces the file with header + body + a freshly counted summary. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "q4report_internal.h"

#ifndef Q4REPORT_VERSION
#define Q4REPORT_VERSION "unknown"
#endif
/* Bumped when a key changes meaning or goes away, so consumers can tell. */
#define Q4REPORT_JSON_FORMAT 1

struct q4_json {
    q4rep_sink s;          /* body: rendered result objects, comma-separated */
    int strict;
    q4rep_buf props;       /* the rendered "properties" object */
    q4rep_buf coverage;    /* the rendered "shader_coverage" array; empty: null */
    size_t count[Q4_VERDICT_COUNT + 1];   /* last slot: verdicts outside the enum */
    size_t total, ok, unexpected_pass, unexpected_fail;
    double seconds;
};

/* Writes the whole document; final: the last write, at close. */
static q4_status flush(q4_json *j, int sync_dir, int final, q4_error *err)
{
    q4rep_buf *d = &j->s.doc;
    q4rep_buf_reset(d);
    q4rep_buf_puts(d, "{\"q4cts\": {\n  \"version\": ");
    q4rep_json_str(d, Q4REPORT_VERSION, Q4REP_NOMAX);
    q4rep_buf_printf(d, ",\n  \"format\": %d,\n  \"strict\": %s,\n  \"started\": \"%s\",\n  ",
                     Q4REPORT_JSON_FORMAT, j->strict ? "true" : "false", j->s.started);
    q4rep_progress_json(d, &j->s.progress, final);
    q4rep_buf_puts(d, ",\n  \"properties\": ");
    q4rep_buf_put(d, j->props.data ? j->props.data : "", j->props.len);
    q4rep_buf_puts(d, ",\n  \"shader_coverage\": ");
    if (j->coverage.len)
        q4rep_buf_put(d, j->coverage.data, j->coverage.len);
    else
        q4rep_buf_puts(d, "null");
    q4rep_buf_puts(d, ",\n  \"results\": [");
    q4rep_sink_put_body(&j->s, d, ",");
    q4rep_buf_puts(d, j->total ? "\n  ],\n" : "],\n");
    q4rep_buf_printf(d, "  \"summary\": {\"total\": %zu, \"ok\": %zu, \"not_ok\": %zu, \"seconds\": ",
                     j->total, j->ok, j->total - j->ok);
    q4rep_json_num(d, j->seconds);
    for (int v = 0; v < Q4_VERDICT_COUNT; v++)
        q4rep_buf_printf(d, ", \"%s\": %zu", q4_verdict_name((q4_verdict)v), j->count[v]);
    if (j->count[Q4_VERDICT_COUNT])
        q4rep_buf_printf(d, ", \"Unknown\": %zu", j->count[Q4_VERDICT_COUNT]);
    q4rep_buf_printf(d, ", \"unexpected_pass\": %zu, \"unexpected_fail\": %zu",
                     j->unexpected_pass, j->unexpected_fail);
    q4rep_buf_puts(d, "}\n}}\n");
    return q4rep_sink_write(&j->s, "JSON", sync_dir, final, err);
}

static void destroy(q4_json *j)
{
    q4rep_buf_free(&j->props);
    q4rep_buf_free(&j->coverage);
    q4rep_sink_free(&j->s);
    free(j);
}

q4_status q4_json_open(const char *path, const q4_prop *props, size_t nprops,
                       q4_json **out, q4_error *err)
{
    if (out)
        *out = NULL;
    if (!path || !path[0] || !out)
        return q4_fail(err, Q4_ERR_ARG, "q4_json_open needs a report path and an out pointer");
    if (nprops && !props)
        return q4_fail(err, Q4_ERR_ARG, "q4_json_open: %zu props given but props is NULL", nprops);
    q4_json *j = calloc(1, sizeof *j);
    if (!j)
        return q4_fail(err, Q4_ERR_NOMEM, "out of memory opening JSON report %s", path);
    q4_status st = q4rep_sink_open(&j->s, path, err);
    if (st != Q4_OK) {
        destroy(j);
        return st;
    }
    st = q4rep_props_json(&j->props, props, nprops) != 0
        ? q4_fail(err, Q4_ERR_NOMEM, "out of memory opening JSON report %s", path)
        : flush(j, 1, 0, err);   /* an empty, valid report now: a bad path fails here, early */
    if (st != Q4_OK) {
        destroy(j);
        return st;
    }
    *out = j;
    return Q4_OK;
}

void q4_json_set_strict(q4_json *j, int strict)
{
    if (j)
        j->strict = strict != 0;
}

void q4_json_set_planned(q4_json *j, size_t planned)
{
    if (j)
        j->s.progress.planned = (long long)planned;
}

void q4_json_set_stopped(q4_json *j, const char *why)
{
    if (j)
        q4rep_progress_stop(&j->s.progress, why);
}

q4_status q4_json_set_coverage(q4_json *j, const q4_kernel_coverage *k, size_t n,
                               q4_error *err)
{
    if (!j || (n && !k))
        return q4_fail(err, Q4_ERR_ARG, "q4_json_set_coverage needs a report and %zu kernels", n);
    if (q4rep_coverage_json(&j->coverage, k, n) != 0) {
        q4rep_buf_reset(&j->coverage);   /* null rather than half an array */
        return q4_fail(err, Q4_ERR_NOMEM, "out of memory adding shader coverage to JSON "
                       "report %s", j->s.file.path);
    }
    return Q4_OK;
}

void q4_json_set_fsync(q4_json *j, int on)
{
    if (j)
        j->s.nosync = !on;
}

/* "key": "string" from a fixed-size field (read at most its size). */
static void put_field(q4rep_buf *b, const char *key, const char *s, size_t max)
{
    q4rep_buf_printf(b, ", \"%s\": ", key);
    q4rep_json_str(b, s, max);
}

void q4_json_set_write_at_close(q4_json *j, int on)
{
    if (j)
        j->s.at_close = on != 0;
}

q4_status q4_json_add(q4_json *j, const q4_result *r, q4_error *err)
{
    return q4_json_add_at(j, r, j ? q4rep_sink_next_pos(&j->s) : 0, err);
}

/* A training case's trajectory: "train": {"ops": [...], "codes_margin": x,
 * "resident_steps": n, "steps":
 * [{"step": 1, "loss_gpu": .., "loss_ref": .., "envelope": .., "margins": {op: x}}]}. */
static void put_train(q4rep_buf *b, const q4_train_trace *t)
{
    int steps = t->steps < Q4_TRAIN_STEPS ? t->steps : Q4_TRAIN_STEPS;
    q4rep_buf_puts(b, ", \"train\": {\"ops\": [");
    for (int o = 0; o < Q4_TRAIN_OPS; o++) {
        q4rep_buf_puts(b, o ? ", " : "");
        q4rep_json_str(b, t->ops[o], sizeof t->ops[o]);
    }
    q4rep_buf_puts(b, "]");
    q4rep_json_member_num(b, "codes_margin", t->codes_margin);
    q4rep_buf_printf(b, ", \"resident_steps\": %d", t->resident_steps);
    q4rep_buf_puts(b, ", \"steps\": [");
    for (int s = 0; s < steps; s++) {
        q4rep_buf_printf(b, "%s{\"step\": %d", s ? ", " : "", t->step[s] ? t->step[s] : s + 1);
        q4rep_json_member_num(b, "loss_gpu", t->loss_gpu[s]);
        q4rep_json_member_num(b, "loss_ref", t->loss_ref[s]);
        q4rep_json_member_num(b, "envelope", t->envelope[s]);
        q4rep_buf_puts(b, ", \"margins\": {");
        for (int o = 0, first = 1; o < Q4_TRAIN_OPS; o++) {
            if (!t->ops[o][0]) continue;
            q4rep_buf_puts(b, first ? "" : ", ");
            first = 0;
            q4rep_json_str(b, t->ops[o], sizeof t->ops[o]);
            q4rep_buf_puts(b, ": ");
            q4rep_json_num(b, t->margin[s][o]);
        }
        q4rep_buf_puts(b, "}}");
    }
    q4rep_buf_puts(b, "]}");
}

q4_status q4_json_add_at(q4_json *j, const q4_result *r, size_t position, q4_error *err)
{
    if (!j || !r)
        return q4_fail(err, Q4_ERR_ARG, "q4_json_add needs a report and a result");
    size_t mark = j->s.body.len;
    q4rep_buf *b = &j->s.body;
    q4_surprise surprise = q4_result_surprise(r, j->strict);
    int ok = surprise == Q4_AS_EXPECTED, with_baseline = (unsigned)r->baseline < Q4_VERDICT_COUNT;

    q4rep_buf_puts(b, "\n    {\"name\": ");   /* the "," between two: flush */
    q4rep_json_str(b, r->name, sizeof r->name);
    put_field(b, "op", r->op, sizeof r->op);
    put_field(b, "family", r->family, sizeof r->family);
    put_field(b, "verdict", q4_verdict_name(r->verdict), Q4REP_NOMAX);
    q4rep_buf_printf(b, ", \"ok\": %s", ok ? "true" : "false");
    q4rep_json_member_num(b, "seconds", r->seconds);
    q4rep_json_member_num(b, "gpu_ms", r->gpu_ms >= 0 ? r->gpu_ms : NAN);   /* < 0: unknown */
    q4rep_json_member_num(b, "truth_ms", r->truth_ms >= 0 ? r->truth_ms : NAN);
    q4rep_json_member_num(b, "input_ms", r->input_ms >= 0 ? r->input_ms : NAN);
    q4rep_json_member_num(b, "upload_ms", r->upload_ms >= 0 ? r->upload_ms : NAN);
    q4rep_json_member_num(b, "readback_ms", r->readback_ms >= 0 ? r->readback_ms : NAN);
    q4rep_json_member_num(b, "judge_ms", r->judge_ms >= 0 ? r->judge_ms : NAN);
    q4rep_buf_printf(b, ", \"truth_fused\": %s", r->truth_fused ? "true" : "false");
    q4rep_json_member_num(b, "worst_err", r->worst_err);
    q4rep_json_member_num(b, "worst_margin", r->worst_margin);
    q4rep_json_member_num(b, "stat_margin", r->stat_margin);
    q4rep_json_member_num(b, "got", r->got);
    q4rep_json_member_num(b, "expected", r->expected);
    q4rep_json_member_num(b, "bound", r->bound);
    put_field(b, "output", r->output, sizeof r->output);
    if (r->index >= 0)
        q4rep_buf_printf(b, ", \"index\": %lld", (long long)r->index);
    else
        q4rep_buf_puts(b, ", \"index\": null");
    put_field(b, "where", r->where, sizeof r->where);
    q4rep_buf_printf(b, ", \"elements\": %lld", (long long)r->elements);
    put_field(b, "message", r->message, sizeof r->message);
    put_field(b, "repro", r->repro, sizeof r->repro);
    if (r->api[0])
        put_field(b, "api", r->api, sizeof r->api);
    if (r->train.steps > 0)
        put_train(b, &r->train);
    q4rep_buf_printf(b, ", \"tries\": %d, \"baseline\": ", r->tries);
    if (with_baseline)
        q4rep_json_str(b, q4_verdict_name(r->baseline), Q4REP_NOMAX);
    else
        q4rep_buf_puts(b, "null");
    q4rep_buf_puts(b, ", \"surprise\": ");
    q4rep_buf_puts(b, !with_baseline || ok ? "null" : surprise == Q4_UNEXPECTED_PASS
                   ? "\"unexpected pass\"" : "\"unexpected fail\"");
    q4rep_buf_puts(b, "}");
    if (q4rep_sink_drop_failed(&j->s, mark) || q4rep_sink_place(&j->s, mark, position) != 0)
        return q4_fail(err, Q4_ERR_NOMEM, "out of memory adding case %.128s to JSON report %s",
                       r->name, j->s.file.path);
    unsigned v = (unsigned)r->verdict;
    j->count[v < Q4_VERDICT_COUNT ? v : Q4_VERDICT_COUNT]++;
    j->total++;
    j->ok += ok != 0;
    j->unexpected_pass += with_baseline && surprise == Q4_UNEXPECTED_PASS;
    j->unexpected_fail += with_baseline && surprise == Q4_UNEXPECTED_FAIL;
    if (isfinite(r->seconds) && r->seconds > 0)
        j->seconds += r->seconds;
    return j->s.at_close ? Q4_OK : flush(j, 0, 0, err);
}

q4_status q4_json_close(q4_json *j, q4_error *err)
{
    if (!j)
        return Q4_OK;
    q4_status st = flush(j, 1, 1, err);   /* again: an earlier failed write is retried here */
    destroy(j);
    return st;
}
