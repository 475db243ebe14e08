/* console.c: the human sink. On a terminal, one live line redrawn per case plus a
 * block for each case that is not ok; elsewhere (CI logs, pipes) one plain line per
 * case and the same blocks. Then a summary table per op and the totals.
 *
 * Text from results is printed with control bytes replaced: an escape sequence in a
 * driver's error string must not repaint the user's terminal. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

#include "q4report_internal.h"

typedef struct op_stat {
    char op[40];
    size_t pass, fail, warn, skip, other;
    double worst_margin;   /* NAN until a judged case arrives */
    double worst_stat;     /* statistical margin, NAN until a case with one arrives */
    double seconds;
} op_stat;

/* A case the summary lists again: not ok (by kind against the baseline), or a flake. */
typedef struct not_ok_case {
    q4_verdict verdict, baseline;
    q4_surprise surprise;      /* Q4_AS_EXPECTED: a flake that is ok */
    char name[128];
} not_ok_case;

struct q4_console {
    FILE *out;
    size_t total;
    int strict;
    int live;              /* redraw one live line (a terminal) */
    int line_shown;        /* the live line is on screen and must be cleared first */
    size_t done, passed, skipped, not_ok;
    size_t with_baseline, expected_failures, unexpected_pass, unexpected_fail;
    size_t count[Q4_VERDICT_COUNT + 1];   /* last slot: verdicts outside the enum */
    struct timespec start;
    op_stat *ops;          /* in order of first appearance */
    size_t nops, capops;
    not_ok_case *bad;      /* listed again at the end of the summary */
    size_t nbad, capbad;
    char outcome[24];      /* q4_console_set_outcome: replaces PASS / FAIL */
    char outcome_why[200];
};

static double elapsed(const q4_console *c)
{
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (double)(now.tv_sec - c->start.tv_sec) + 1e-9 * (double)(now.tv_nsec - c->start.tv_nsec);
}

q4_console *q4_console_new(FILE *out, size_t total, int strict)
{
    q4_console *c = calloc(1, sizeof *c);
    if (!c)
        return NULL;
    c->out = out ? out : stdout;
    c->total = total;
    c->strict = strict != 0;
    c->live = isatty(fileno(c->out));
    clock_gettime(CLOCK_MONOTONIC, &c->start);
    return c;
}

void q4_console_set_live(q4_console *c, int live)
{
    if (c)
        c->live = live != 0;
}

/* Prints s (at most max bytes) with ASCII control bytes as '?', and every run of
 * other bytes as q4_echo shows it: valid UTF-8 as it is, but C1 controls (0x9B is a
 * CSI to some terminals), invisible and direction marks and invalid bytes escaped. A
 * newline, where allowed, continues on a new line under `indent`, so a multi-line
 * message stays in its block. */
static void put_clean(FILE *f, const char *s, size_t max, const char *indent)
{
    size_t n = strnlen(s, max);
    for (size_t i = 0; i < n;) {
        unsigned char ch = (unsigned char)s[i];
        if (ch >= 0x80) {
            char run[256], shown[4 * sizeof run + 1];
            size_t k = 0;
            while (i + k < n && (unsigned char)s[i + k] >= 0x80 && k < sizeof run - 4)
                k++;
            while (i + k < n && k < sizeof run - 1 && ((unsigned char)s[i + k] & 0xC0) == 0x80)
                k++;   /* a cut never splits a character */
            memcpy(run, s + i, k);
            run[k] = '\0';
            fputs(q4_echo(run, shown, sizeof shown), f);
            i += k;
            continue;
        }
        if (ch == '\n' && indent)
            fprintf(f, "\n%s", indent);
        else if (ch == '\t')
            fputc(' ', f);
        else if (ch < 0x20 || ch == 0x7F)
            fputc('?', f);
        else
            fputc(ch, f);
        i++;
    }
}

/* A duration that reads at a glance: 850 us, 12.3 ms, 4.56 s, 812 s. */
static void fmt_dur(char out[32], double s)
{
    if (!(s >= 0) || isinf(s))
        snprintf(out, 32, "-");
    else if (s < 1e-3)
        snprintf(out, 32, "%.0f us", s * 1e6);
    else if (s < 1)
        snprintf(out, 32, "%.1f ms", s * 1e3);
    else if (s < 100)
        snprintf(out, 32, "%.2f s", s);
    else
        snprintf(out, 32, "%.0f s", s);
}

/* Columns of the terminal, so the live line never wraps (a wrapped line cannot be
 * redrawn with \r). */
static int columns(FILE *f)
{
    struct winsize w;
    if (ioctl(fileno(f), TIOCGWINSZ, &w) == 0 && w.ws_col >= 20)
        return w.ws_col;
    const char *env = getenv("COLUMNS");
    int n = env ? atoi(env) : 0;
    return n >= 20 ? n : 80;
}

static void clear_live(q4_console *c)
{
    if (c->line_shown) {
        fputs("\r\033[K", c->out);
        c->line_shown = 0;
    }
}

/* The time left if the cases to come take as long as those done did on average:
 * "ETA 45s", "ETA 3m12s", "ETA 1h05m"; "ETA -" before the first case is done. */
static void fmt_eta(char out[32], const q4_console *c, double spent)
{
    if (c->done == 0 || c->done > c->total) {
        snprintf(out, 32, "ETA -");
        return;
    }
    double left = spent / (double)c->done * (double)(c->total - c->done);
    long s = left < 1e9 ? (long)(left + 0.5) : 999999999L;
    if (s < 60)
        snprintf(out, 32, "ETA %lds", s);
    else if (s < 3600)
        snprintf(out, 32, "ETA %ldm%02lds", s / 60, s % 60);
    else
        snprintf(out, 32, "ETA %ldh%02ldm", s / 3600, s % 3600 / 60);
}

void q4_console_begin(q4_console *c, const char *case_name)
{
    if (!c || !c->live)
        return;
    char head[160], eta[32];
    double spent = elapsed(c);
    fmt_eta(eta, c, spent);
    int k = snprintf(head, sizeof head, "[%zu/%zu] pass %zu fail %zu skip %zu  %.1fs  %s  ",
                     c->done, c->total, c->passed, c->not_ok, c->skipped, spent, eta);
    if (k < 0)
        return;
    int room = columns(c->out) - 1 - k;   /* leave the last column free */
    const char *name = case_name ? case_name : "";
    size_t n = strnlen(name, 1024);
    fputs("\r", c->out);
    fputs(head, c->out);
    if (room > 3 && n > (size_t)room) {
        /* Keep the tail: the params differ from case to case, the prefix rarely. */
        fputs("...", c->out);
        put_clean(c->out, name + n - (size_t)(room - 3), (size_t)(room - 3), NULL);
    } else if (room > 3) {
        put_clean(c->out, name, n, NULL);
    }
    fputs("\033[K", c->out);
    fflush(c->out);
    c->line_shown = 1;
}

static op_stat *op_for(q4_console *c, const char *op)
{
    size_t n = strnlen(op, sizeof ((op_stat *)0)->op - 1);
    for (size_t i = 0; i < c->nops; i++)
        if (strncmp(c->ops[i].op, op, n) == 0 && c->ops[i].op[n] == '\0')
            return &c->ops[i];
    if (c->nops == c->capops) {
        size_t cap = c->capops ? 2 * c->capops : 16;
        op_stat *p = realloc(c->ops, cap * sizeof *p);
        if (!p)
            return NULL;   /* the table then lacks this op; the totals stay right */
        c->ops = p;
        c->capops = cap;
    }
    op_stat *s = &c->ops[c->nops++];
    memset(s, 0, sizeof *s);
    memcpy(s->op, op, n);
    s->worst_margin = NAN;
    s->worst_stat = NAN;
    return s;
}

static void remember_bad(q4_console *c, const q4_result *r, q4_surprise surprise)
{
    if (c->nbad == c->capbad) {
        size_t cap = c->capbad ? 2 * c->capbad : 16;
        not_ok_case *p = realloc(c->bad, cap * sizeof *p);
        if (!p)
            return;        /* only the closing list is shorter; counts stay right */
        c->bad = p;
        c->capbad = cap;
    }
    not_ok_case *b = &c->bad[c->nbad++];
    b->verdict = r->verdict;
    b->baseline = r->baseline;
    b->surprise = surprise;
    snprintf(b->name, sizeof b->name, "%.*s", (int)strnlen(r->name, sizeof r->name), r->name);
}

static void tally(q4_console *c, const q4_result *r, q4_surprise surprise)
{
    unsigned v = (unsigned)r->verdict;
    int ok = surprise == Q4_AS_EXPECTED;
    c->count[v < Q4_VERDICT_COUNT ? v : Q4_VERDICT_COUNT]++;
    c->done++;
    if ((unsigned)r->baseline < Q4_VERDICT_COUNT) {
        c->with_baseline++;
        c->expected_failures += ok && !q4_verdict_ok(r->verdict, c->strict);
        c->unexpected_pass += surprise == Q4_UNEXPECTED_PASS;
        c->unexpected_fail += surprise == Q4_UNEXPECTED_FAIL;
    }
    if (!ok || r->verdict == Q4_FLAKE)
        remember_bad(c, r, surprise);
    if (!ok) {
        c->not_ok++;
    } else if (r->verdict == Q4_NOT_SUPPORTED) {
        c->skipped++;
    } else {
        c->passed++;
    }
    op_stat *s = op_for(c, r->op);
    if (!s)
        return;
    switch (r->verdict) {
    case Q4_PASS: s->pass++; break;
    case Q4_FAIL: s->fail++; break;
    case Q4_QUALITY_WARNING: s->warn++; break;
    case Q4_NOT_SUPPORTED: s->skip++; break;
    default: s->other++; break;
    }
    if (!isnan(r->worst_margin) && (isnan(s->worst_margin) || r->worst_margin > s->worst_margin))
        s->worst_margin = r->worst_margin;
    if (!isnan(r->stat_margin) && (isnan(s->worst_stat) || r->stat_margin > s->worst_stat))
        s->worst_stat = r->stat_margin;
    if (r->seconds > 0 && isfinite(r->seconds))
        s->seconds += r->seconds;
}

/* "Fail            q4cts.op.family.params  margin 3.2  stat 0.5  12.3 ms  gpu 1.1 ms  truth 8 ms" */
static void case_line(q4_console *c, const q4_result *r)
{
    char wall[32], gpu[32];
    fmt_dur(wall, r->seconds);
    fprintf(c->out, "%-14s  ", q4_verdict_name(r->verdict));
    put_clean(c->out, r->name, sizeof r->name, NULL);
    if (!isnan(r->worst_margin))
        fprintf(c->out, "  margin %.3g", r->worst_margin);
    if (!isnan(r->stat_margin))
        fprintf(c->out, "  stat %.3g", r->stat_margin);
    fprintf(c->out, "  %s", wall);
    if (r->gpu_ms >= 0) {
        fmt_dur(gpu, r->gpu_ms * 1e-3);
        fprintf(c->out, "  gpu %s", gpu);
    }
    if (r->input_ms >= 0) {
        fmt_dur(gpu, r->input_ms * 1e-3);
        fprintf(c->out, "  inputs %s", gpu);
    }
    if (r->truth_ms >= 0) {
        fmt_dur(gpu, r->truth_ms * 1e-3);
        fprintf(c->out, "  %s %s", r->truth_fused ? "truth+judge" : "truth", gpu);
    }
    if (r->verdict == Q4_NOT_SUPPORTED && r->message[0]) {
        fputs("  (", c->out);
        put_clean(c->out, r->message, sizeof r->message, NULL);
        fputs(")", c->out);
    }
    if (r->tries > 1)
        fprintf(c->out, "  tries %d", r->tries);
    q4_surprise surprise = q4_result_surprise(r, c->strict);
    if ((unsigned)r->baseline < Q4_VERDICT_COUNT && surprise == Q4_UNEXPECTED_PASS)
        fprintf(c->out, "  UNEXPECTED PASS (baseline: %s)", q4_verdict_name(r->baseline));
    else if ((unsigned)r->baseline < Q4_VERDICT_COUNT && surprise == Q4_UNEXPECTED_FAIL)
        fprintf(c->out, "  UNEXPECTED FAIL (baseline: %s)", q4_verdict_name(r->baseline));
    else if ((unsigned)r->baseline < Q4_VERDICT_COUNT && !q4_verdict_ok(r->verdict, c->strict))
        fputs("  (expected: baseline)", c->out);
    fputc('\n', c->out);
}

static void block_line(FILE *f, const char *label, const char *s, size_t max)
{
    fprintf(f, "    %-8s ", label);
    put_clean(f, s, max, "             ");
    fputc('\n', f);
}

void q4_console_result(q4_console *c, const q4_result *r)
{
    if (!c || !r)
        return;
    q4_surprise surprise = q4_result_surprise(r, c->strict);
    int ok = surprise == Q4_AS_EXPECTED;
    tally(c, r, surprise);
    if (c->live && ok)
        return;            /* the next live line shows it in the counts */
    clear_live(c);
    case_line(c, r);
    if (ok) {
        if (r->verdict == Q4_QUALITY_WARNING || r->verdict == Q4_FLAKE)
            block_line(c->out, "note:", r->message[0] ? r->message : q4_verdict_name(r->verdict),
                       sizeof r->message);
        fflush(c->out);
        return;
    }
    char worst[400];
    block_line(c->out, "message:", r->message[0] ? r->message : "(no message)", sizeof r->message);
    if (!isnan(r->worst_margin))
        block_line(c->out, "worst:", q4_result_worst(r, worst, sizeof worst), sizeof worst);
    if (r->elements > 0)
        fprintf(c->out, "    %-8s %lld\n", "judged:", (long long)r->elements);
    block_line(c->out, "repro:", r->repro[0] ? r->repro : "(none given)", sizeof r->repro);
    fflush(c->out);
}

/* "-" for none, else 4 significant digits. */
static void fmt_margin(char *buf, size_t n, double v)
{
    if (isnan(v))
        snprintf(buf, n, "-");
    else
        snprintf(buf, n, "%.4g", v);
}

/* The remembered cases of one kind under a heading, if any: not ok ones by surprise,
 * or (flakes) the flakes whatever their standing. */
static void list_cases(q4_console *c, const char *heading, q4_surprise kind, int flakes)
{
    int shown = 0;
    for (size_t i = 0; i < c->nbad; i++) {
        const not_ok_case *b = &c->bad[i];
        if (flakes ? b->verdict != Q4_FLAKE : b->surprise != kind)
            continue;
        if (!shown++)
            fprintf(c->out, "%s\n", heading);
        fprintf(c->out, "  %-14s  ", q4_verdict_name(b->verdict));
        put_clean(c->out, b->name, sizeof b->name, NULL);
        if ((unsigned)b->baseline < Q4_VERDICT_COUNT && b->surprise != Q4_AS_EXPECTED)
            fprintf(c->out, "  (baseline: %s)", q4_verdict_name(b->baseline));
        fputc('\n', c->out);
    }
}

void q4_console_summary(q4_console *c)
{
    if (!c)
        return;
    clear_live(c);
    FILE *f = c->out;
    int w = 8;   /* the op column fits the longest op name */
    for (size_t i = 0; i < c->nops; i++) {
        int n = (int)strlen(c->ops[i].op);
        if (n > w)
            w = n;
    }
    char dur[32], m[32], st[32];
    fprintf(f, "\n%-*s  %6s %6s %6s %6s %6s  %12s  %10s  %9s\n", w, "op",
            "pass", "fail", "warn", "n/s", "other", "worst margin", "worst stat", "time");
    size_t tp = 0, tf = 0, tw = 0, ts = 0, to = 0;
    double tmargin = NAN, tstat = NAN, tsec = 0;
    for (size_t i = 0; i < c->nops; i++) {
        const op_stat *s = &c->ops[i];
        fmt_margin(m, sizeof m, s->worst_margin);
        fmt_margin(st, sizeof st, s->worst_stat);
        fmt_dur(dur, s->seconds);
        fprintf(f, "%-*s  %6zu %6zu %6zu %6zu %6zu  %12s  %10s  %9s\n", w,
                s->op[0] ? s->op : "(none)", s->pass, s->fail, s->warn, s->skip, s->other, m, st,
                dur);
        tp += s->pass; tf += s->fail; tw += s->warn; ts += s->skip; to += s->other;
        if (!isnan(s->worst_margin) && (isnan(tmargin) || s->worst_margin > tmargin))
            tmargin = s->worst_margin;
        if (!isnan(s->worst_stat) && (isnan(tstat) || s->worst_stat > tstat))
            tstat = s->worst_stat;
        tsec += s->seconds;
    }
    fmt_margin(m, sizeof m, tmargin);
    fmt_margin(st, sizeof st, tstat);
    fmt_dur(dur, tsec);
    fprintf(f, "%-*s  %6zu %6zu %6zu %6zu %6zu  %12s  %10s  %9s\n", w, "total",
            tp, tf, tw, ts, to, m, st, dur);

    /* Every verdict that occurred, by its CTS name. */
    fprintf(f, "\nverdicts:");
    int any = 0;
    for (int v = 0; v <= Q4_VERDICT_COUNT; v++)
        if (c->count[v]) {
            fprintf(f, "%s %zu %s", any ? "," : "", c->count[v], q4_verdict_name((q4_verdict)v));
            any = 1;
        }
    fprintf(f, "%s\n", any ? "" : " none");
    if (c->with_baseline)
        fprintf(f, "baseline: %zu as expected (%zu expected failures), %zu unexpected pass, "
                "%zu unexpected fail\n", c->with_baseline - c->unexpected_pass -
                c->unexpected_fail, c->expected_failures, c->unexpected_pass, c->unexpected_fail);
    if (c->with_baseline) {
        list_cases(c, "unexpected pass:", Q4_UNEXPECTED_PASS, 0);
        list_cases(c, "unexpected fail:", Q4_UNEXPECTED_FAIL, 0);
    } else {
        list_cases(c, "not ok:", Q4_UNEXPECTED_FAIL, 0);
    }
    list_cases(c, "flaky (failed, then passed on a retry):", Q4_AS_EXPECTED, 1);
    fmt_dur(dur, elapsed(c));
    fputs("result: ", f);
    if (c->outcome[0]) {
        fprintf(f, "%s (", c->outcome);
        put_clean(f, c->outcome_why, sizeof c->outcome_why, NULL);
        fputs(")", f);
    } else {
        fputs(c->not_ok ? "FAIL" : "PASS", f);
    }
    fprintf(f, ", %zu of %zu cases not ok%s%s, %zu run of %zu planned, %s\n", c->not_ok, c->done,
            c->strict ? " (strict: QualityWarning fails)" : "",
            c->with_baseline ? " against the baseline" : "", c->done, c->total, dur);
    fflush(f);
}

void q4_console_set_outcome(q4_console *c, const char *word, const char *why)
{
    if (!c)
        return;
    snprintf(c->outcome, sizeof c->outcome, "%s", word && word[0] ? word : "ERROR");
    snprintf(c->outcome_why, sizeof c->outcome_why, "%s", why ? why : "");
}

size_t q4_console_count(const q4_console *c, q4_verdict v)
{
    if (!c)
        return 0;
    return c->count[(unsigned)v < Q4_VERDICT_COUNT ? (unsigned)v : Q4_VERDICT_COUNT];
}

size_t q4_console_not_ok(const q4_console *c)
{
    return c ? c->not_ok : 0;
}

void q4_console_free(q4_console *c)
{
    if (!c)
        return;
    free(c->ops);
    free(c->bad);
    free(c);
}
