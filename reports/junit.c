/* junit.c: the JUnit XML sink. The document is
 *   <testsuites> <testsuite name=...> <properties/> <testcase/>... </testsuite> </testsuites>
 * and validates against reports/junit-10.xsd (Jenkins xUnit's schema).
 *
 * Crash safety: each add renders its <testcase> once into `body`, then the whole
 * document (header with fresh counts + body + footer) replaces the file atomically.
 * That rewrites O(cases) bytes per case, a few hundred bytes each: cheap next to a
 * GPU case, and the price of a file that is complete at every instant. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "q4report_internal.h"

struct q4_junit {
    q4rep_sink s;          /* body: rendered <testcase> elements */
    char *suite;
    int strict;
    int has_strict_prop;   /* the harness passed its own "strict" prop */
    char hostname[256];
    q4rep_buf props;       /* rendered <property/> elements of the harness's props */
    q4rep_buf coverage;    /* rendered shader_coverage.* properties (set_coverage) */
    size_t tests, failures, errors, skipped;
    long long micros;      /* sum of the cases' times as printed, so totals match */
};

/* Seconds as whole microseconds: the schema's SUREFIRE_TIME takes only a plain
 * decimal, so NaN, negatives and absurd values print as 0 or are capped. */
static long long to_micros(double s)
{
    if (!(s >= 0))
        return 0;
    if (s > 1e9)
        s = 1e9;
    return llround(s * 1e6);
}

static int put_time(q4rep_buf *b, long long us)
{
    return q4rep_buf_printf(b, "%lld.%06lld", us / 1000000, us % 1000000);
}

/* Writes the whole document to disk; final: the last write, at close. */
static q4_status flush(q4_junit *j, int sync_dir, int final, q4_error *err)
{
    q4rep_buf *d = &j->s.doc;
    q4rep_buf_reset(d);
    q4rep_buf_puts(d, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites name=\"");
    q4rep_xml_attr(d, j->suite, Q4REP_NOMAX);
    /* testsuites takes no skipped attribute in this schema; testsuite does. */
    q4rep_buf_printf(d, "\" tests=\"%zu\" failures=\"%zu\" errors=\"%zu\" time=\"",
                     j->tests, j->failures, j->errors);
    put_time(d, j->micros);
    q4rep_buf_puts(d, "\">\n  <testsuite name=\"");
    q4rep_xml_attr(d, j->suite, Q4REP_NOMAX);
    q4rep_buf_printf(d, "\" tests=\"%zu\" failures=\"%zu\" errors=\"%zu\" skipped=\"%zu\" time=\"",
                     j->tests, j->failures, j->errors, j->skipped);
    put_time(d, j->micros);
    q4rep_buf_printf(d, "\" timestamp=\"%s\" hostname=\"", j->s.started);
    q4rep_xml_attr(d, j->hostname, sizeof j->hostname);
    q4rep_buf_puts(d, "\">\n    <properties>\n");
    q4rep_buf_put(d, j->props.data ? j->props.data : "", j->props.len);
    q4rep_buf_put(d, j->coverage.data ? j->coverage.data : "", j->coverage.len);
    if (!j->has_strict_prop)
        q4rep_buf_printf(d, "      <property name=\"strict\" value=\"%d\"/>\n", j->strict);
    /* Only the final write of a run that was not stopped says complete: a killed run's
     * file, or a stopped one's, cannot pass for a complete run of fewer cases. */
    const q4rep_progress *pr = &j->s.progress;
    if (pr->planned >= 0)
        q4rep_buf_printf(d, "      <property name=\"planned\" value=\"%lld\"/>\n", pr->planned);
    q4rep_buf_printf(d, "      <property name=\"complete\" value=\"%s\"/>\n",
                     q4rep_progress_complete(pr, final) ? "true" : "false");
    if (final && pr->stopped[0]) {
        q4rep_buf_puts(d, "      <property name=\"stopped\" value=\"");
        q4rep_xml_attr(d, pr->stopped, sizeof pr->stopped);
        q4rep_buf_puts(d, "\"/>\n");
    }
    q4rep_buf_puts(d, "    </properties>\n");
    q4rep_sink_put_body(&j->s, d, "");
    q4rep_buf_puts(d, "  </testsuite>\n</testsuites>\n");
    return q4rep_sink_write(&j->s, "JUnit", sync_dir, final, err);
}

static void destroy(q4_junit *j)
{
    q4rep_buf_free(&j->props);
    q4rep_buf_free(&j->coverage);
    q4rep_sink_free(&j->s);
    free(j->suite);
    free(j);
}

static char *dup_str(const char *s)
{
    size_t n = strlen(s) + 1;
    char *p = malloc(n);
    if (p)
        memcpy(p, s, n);
    return p;
}

q4_status q4_junit_open(const char *path, const char *suite_name, const q4_prop *props,
                        size_t nprops, q4_junit **out, q4_error *err)
{
    if (out)
        *out = NULL;
    if (!path || !path[0] || !out)
        return q4_fail(err, Q4_ERR_ARG, "q4_junit_open needs a report path and an out pointer");
    if (nprops && !props)
        return q4_fail(err, Q4_ERR_ARG, "q4_junit_open: %zu props given but props is NULL", nprops);
    q4_junit *j = calloc(1, sizeof *j);
    if (!j || !(j->suite = dup_str(suite_name && suite_name[0] ? suite_name : "q4cts"))) {
        free(j);
        return q4_fail(err, Q4_ERR_NOMEM, "out of memory opening JUnit report %s", path);
    }
    q4_status st = q4rep_sink_open(&j->s, path, err);
    if (st != Q4_OK) {
        destroy(j);
        return st;
    }
    if (gethostname(j->hostname, sizeof j->hostname - 1) != 0)
        strcpy(j->hostname, "unknown");
    for (size_t i = 0; i < nprops; i++)
        if (props[i].key && strcmp(props[i].key, "strict") == 0)
            j->has_strict_prop = 1;
    st = q4rep_props_junit(&j->props, props, nprops) != 0
        ? q4_fail(err, Q4_ERR_NOMEM, "out of memory opening JUnit report %s", path)
        : flush(j, 1, 0, err);   /* an empty, valid report now: a bad path fails here, early */
    if (st != Q4_OK) {
        destroy(j);
        return st;
    }
    *out = j;
    return Q4_OK;
}

void q4_junit_set_strict(q4_junit *j, int strict)
{
    if (j)
        j->strict = strict != 0;
}

void q4_junit_set_planned(q4_junit *j, size_t planned)
{
    if (j)
        j->s.progress.planned = (long long)planned;
}

void q4_junit_set_stopped(q4_junit *j, const char *why)
{
    if (j)
        q4rep_progress_stop(&j->s.progress, why);
}

q4_status q4_junit_set_coverage(q4_junit *j, const q4_kernel_coverage *k, size_t n,
                                q4_error *err)
{
    if (!j || (n && !k))
        return q4_fail(err, Q4_ERR_ARG, "q4_junit_set_coverage needs a report and %zu kernels", n);
    if (q4rep_coverage_junit(&j->coverage, k, n) != 0) {
        q4rep_buf_reset(&j->coverage);   /* none rather than half */
        return q4_fail(err, Q4_ERR_NOMEM, "out of memory adding shader coverage to JUnit "
                       "report %s", j->s.file.path);
    }
    return Q4_OK;
}

void q4_junit_set_fsync(q4_junit *j, int on)
{
    if (j)
        j->s.nosync = !on;
}

/* classname "q4cts.<op>.<family>"; name the rest of the case name after that prefix
 * and a dot, else the whole name (a consumer shows classname + name, so nothing is lost). */
static void render_names(q4rep_buf *b, const q4_result *r)
{
    char cls[128];
    size_t oplen = strnlen(r->op, sizeof r->op), famlen = strnlen(r->family, sizeof r->family);
    if (oplen == 0)
        snprintf(cls, sizeof cls, "q4cts");
    else if (famlen == 0)
        snprintf(cls, sizeof cls, "q4cts.%.*s", (int)oplen, r->op);
    else
        snprintf(cls, sizeof cls, "q4cts.%.*s.%.*s", (int)oplen, r->op, (int)famlen, r->family);
    size_t clen = strlen(cls), nlen = strnlen(r->name, sizeof r->name);
    const char *name = r->name;
    size_t max = sizeof r->name;
    if (oplen && nlen > clen + 1 && memcmp(r->name, cls, clen) == 0 && r->name[clen] == '.') {
        name = r->name + clen + 1;
        max = nlen - clen - 1;
    }
    q4rep_buf_puts(b, "classname=\"");
    q4rep_xml_attr(b, cls, Q4REP_NOMAX);
    q4rep_buf_puts(b, "\" name=\"");
    q4rep_xml_attr(b, name, max);
    q4rep_buf_puts(b, "\"");
}

/* The figures a reader of CI wants without rerunning: one "key: value" per line. */
static void render_figures(q4rep_buf *b, const q4_result *r, int strict)
{
    char worst[400];
    q4rep_buf_puts(b, "case: ");
    q4rep_xml_text(b, r->name, sizeof r->name);
    q4rep_buf_printf(b, "\nverdict: %s", q4_verdict_name(r->verdict));
    if (r->api[0]) {
        q4rep_buf_puts(b, "\napi: ");
        q4rep_xml_text(b, r->api, sizeof r->api);
    }
    if (r->verdict == Q4_QUALITY_WARNING && !strict)
        q4rep_buf_puts(b, " (counted as a pass: the run is not strict)");
    if (!isnan(r->worst_margin))
        q4rep_buf_printf(b, "\nmargin: %.6g\nworst error: %.6g\nelements judged: %lld",
                         r->worst_margin, r->worst_err, (long long)r->elements);
    if (!isnan(r->stat_margin))
        q4rep_buf_printf(b, "\nstatistical margin: %.6g", r->stat_margin);
    q4rep_buf_puts(b, "\nworst: ");
    q4rep_xml_text(b, q4_result_worst(r, worst, sizeof worst), sizeof worst);
    q4rep_buf_printf(b, "\nwall: %.6f s", r->seconds >= 0 ? r->seconds : 0.0);
    if (r->gpu_ms >= 0)
        q4rep_buf_printf(b, "\ngpu: %.4f ms", r->gpu_ms);
    else
        q4rep_buf_puts(b, "\ngpu: unknown");
    if (r->input_ms >= 0)
        q4rep_buf_printf(b, "\ninputs: %.4f ms", r->input_ms);
    if (r->truth_ms >= 0)
        q4rep_buf_printf(b, "\ntruth: %.4f ms%s", r->truth_ms,
                         r->truth_fused ? " (fused with judging)" : "");
    if (r->upload_ms >= 0)
        q4rep_buf_printf(b, "\nupload: %.4f ms", r->upload_ms);
    if (r->readback_ms >= 0)
        q4rep_buf_printf(b, "\nreadback: %.4f ms", r->readback_ms);
    if (r->judge_ms >= 0)
        q4rep_buf_printf(b, "\njudge: %.4f ms", r->judge_ms);
    if (r->message[0]) {
        q4rep_buf_puts(b, "\nmessage: ");
        q4rep_xml_text(b, r->message, sizeof r->message);
    }
    if (r->repro[0]) {
        q4rep_buf_puts(b, "\nrepro: ");
        q4rep_xml_text(b, r->repro, sizeof r->repro);
    }
    if (r->tries > 1)
        q4rep_buf_printf(b, "\ntries: %d", r->tries);
    if ((unsigned)r->baseline < Q4_VERDICT_COUNT) {
        q4_surprise s = q4_result_surprise(r, strict);
        q4rep_buf_printf(b, "\nbaseline: %s (%s)", q4_verdict_name(r->baseline),
                         s == Q4_AS_EXPECTED ? "as expected" : s == Q4_UNEXPECTED_PASS
                         ? "unexpected pass" : "unexpected fail");
    }
    q4rep_buf_puts(b, "\n");
}

/* <failure>/<error>: message is one line for list views; the body has the rest. */
static void render_problem(q4rep_buf *b, const char *elem, const q4_result *r, int judged)
{
    char worst[400];
    q4_result_worst(r, worst, sizeof worst);
    q4rep_buf_printf(b, "      <%s message=\"", elem);
    if (judged || !r->message[0])
        q4rep_xml_attr(b, worst, sizeof worst);
    else
        q4rep_xml_attr(b, r->message, sizeof r->message);
    q4rep_buf_printf(b, "\" type=\"%s\">", q4_verdict_name(r->verdict));
    q4rep_xml_text(b, r->message, sizeof r->message);
    if (judged) {
        q4rep_buf_puts(b, "\nworst: ");
        q4rep_xml_text(b, worst, sizeof worst);
    }
    if (r->repro[0]) {
        q4rep_buf_puts(b, "\nrepro: ");
        q4rep_xml_text(b, r->repro, sizeof r->repro);
    }
    q4rep_buf_printf(b, "</%s>\n", elem);
}

void q4_junit_set_write_at_close(q4_junit *j, int on)
{
    if (j)
        j->s.at_close = on != 0;
}

q4_status q4_junit_add(q4_junit *j, const q4_result *r, q4_error *err)
{
    return q4_junit_add_at(j, r, j ? q4rep_sink_next_pos(&j->s) : 0, err);
}

q4_status q4_junit_add_at(q4_junit *j, const q4_result *r, size_t position, q4_error *err)
{
    if (!j || !r)
        return q4_fail(err, Q4_ERR_ARG, "q4_junit_add needs a report and a result");
    size_t mark = j->s.body.len;
    q4rep_buf *b = &j->s.body;
    long long us = to_micros(r->seconds);
    q4rep_class cls = q4rep_classify(r->verdict, j->strict);
    /* Against a baseline, a failure it expects is skipped (it is known), and a pass it
     * does not expect fails the run as deqp-runner's UnexpectedPass does. */
    q4_surprise surprise = q4_result_surprise(r, j->strict);
    int with_baseline = (unsigned)r->baseline < Q4_VERDICT_COUNT;
    if (with_baseline && surprise == Q4_AS_EXPECTED && cls != Q4REP_PASSED)
        cls = Q4REP_SKIPPED;

    q4rep_buf_puts(b, "    <testcase ");
    render_names(b, r);
    q4rep_buf_puts(b, " time=\"");
    put_time(b, us);
    q4rep_buf_puts(b, "\">\n");
    switch (cls) {
    case Q4REP_FAILED:
        render_problem(b, "failure", r, !isnan(r->worst_margin));
        break;
    case Q4REP_PASSED:
        if (with_baseline && surprise == Q4_UNEXPECTED_PASS) {
            cls = Q4REP_FAILED;
            q4rep_buf_printf(b, "      <failure message=\"unexpected pass: the baseline expects %s, "
                             "got %s\" type=\"UnexpectedPass\">", q4_verdict_name(r->baseline),
                             q4_verdict_name(r->verdict));
            q4rep_xml_text(b, r->repro, sizeof r->repro);
            q4rep_buf_puts(b, "</failure>\n");
        }
        break;
    case Q4REP_ERRORED:
        render_problem(b, "error", r, 0);
        break;
    case Q4REP_SKIPPED:
        q4rep_buf_puts(b, "      <skipped message=\"");
        if (r->verdict != Q4_NOT_SUPPORTED)
            q4rep_buf_printf(b, "expected %s (baseline): ", q4_verdict_name(r->verdict));
        q4rep_xml_attr(b, r->message, sizeof r->message);
        q4rep_buf_puts(b, "\"/>\n");
        break;
    }
    q4rep_buf_puts(b, "      <system-out>");
    render_figures(b, r, j->strict);
    q4rep_buf_puts(b, "</system-out>\n    </testcase>\n");
    if (q4rep_sink_drop_failed(&j->s, mark) || q4rep_sink_place(&j->s, mark, position) != 0)
        return q4_fail(err, Q4_ERR_NOMEM, "out of memory adding case %.128s to JUnit report %s",
                       r->name, j->s.file.path);
    j->tests++;
    j->failures += cls == Q4REP_FAILED;
    j->errors += cls == Q4REP_ERRORED;
    j->skipped += cls == Q4REP_SKIPPED;
    j->micros += us;
    /* The case stays counted even if this write fails: the next add or close
     * rewrites the whole document, so a passing disk hiccup loses nothing. */
    return j->s.at_close ? Q4_OK : flush(j, 0, 0, err);
}

q4_status q4_junit_close(q4_junit *j, q4_error *err)
{
    if (!j)
        return Q4_OK;
    q4_status st = flush(j, 1, 1, err);   /* again: an earlier failed write is retried here */
    destroy(j);
    return st;
}
