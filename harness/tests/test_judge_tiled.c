/* test_judge_tiled.c: the judge of a truth made tile by tile (judge_tiled.c) against
 * the whole judge (judge.c). For every op with a tiled truth, on sizes around its cuts
 * (one element; a work item's Q4H_JUDGE_CHUNK columns and a tile's 4096, one less and
 * one more; odd sizes with a last partial chunk; short rows several to an item, rows
 * of more than one block, masked rows), with results that pass, that are wrong at a
 * chunk's or a tile's edge, at the last element, NaN at the first and later, tied
 * worst margins, and biased within every bound: the same q4_result, byte for byte,
 * as the whole judge's, on 1 and 3 threads. The tiles' truth, cut anywhere a tile
 * may be cut, is the whole truth bit for bit; and a tiled truth made whole again
 * (q4h_truth_complete, what a dump reads) is too, its results kept. */
#include <check.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "judge.h"
#include "judge_scan.h"
#include "q4ref.h"
#include "truth.h"

enum { CHUNK = Q4H_JUDGE_CHUNK, SUB = 4096 };

static const char *const cases[] = {
    "q4cts.adamw_step.custom.n1_t3_w1",
    "q4cts.adamw_step.custom.n4095_t3_w1",
    "q4cts.adamw_step.custom.n4097_t3_w1",
    "q4cts.adamw_step.custom.n65535_t7_w1",
    "q4cts.adamw_step.custom.n65536_t7_w1",
    "q4cts.adamw_step.custom.n65537_t7_w1",
    "q4cts.adamw_step.custom.n200003_t7_w1",
    "q4cts.fused_ce.custom.r1_v2_p0",
    "q4cts.fused_ce.custom.r300_v1000_p10",
    "q4cts.fused_ce.custom.r67_v65536_p0",
    "q4cts.fused_ce.custom.r3_v65537_p0",
    "q4cts.fused_ce.custom.r5_v70001_p30",
};

typedef enum variant {
    EXACT,        /* the truth rounded to fp32 */
    EDGES,        /* wrong at chunk and tile edges and at the last element */
    NAN_FIRST,    /* NaN at element 0 of the first output, wrong later too */
    NAN_LATER,    /* a NaN where the truth is finite, after element 0 */
    TIES,         /* the same largest margin twice */
    BIAS,         /* every element half its bound too high: within bounds, biased */
    VARIANTS
} variant;

typedef struct one_case {
    q4_case c;
    q4_inputs in;
    const q4h_op *op;
    q4h_outputs whole, tiled;
} one_case;

/* Changes the inputs before the truth is made (NULL: none). */
typedef void (*poke_fn)(q4_inputs *in);

static void make_poked(const char *name, one_case *k, poke_fn poke)
{
    q4_error err = { 0 };
    memset(k, 0, sizeof *k);
    ck_assert_msg(q4_case_parse(name, 0, &k->c, &err) == Q4_OK, "%s", err.msg);
    k->op = q4h_op_of(&k->c);
    ck_assert_ptr_nonnull(k->op);
    ck_assert_ptr_nonnull(k->op->tiled);
    ck_assert_msg(q4_case_inputs(&k->c, &k->in, &err) == Q4_OK, "%s", err.msg);
    if (poke)
        poke(&k->in);
    ck_assert_msg(q4h_truth_make(k->op, &k->c, &k->in, false, &k->whole, &err) == Q4_OK, "%s",
                  err.msg);
    ck_assert_ptr_null(k->whole.tiles);
    ck_assert_msg(q4h_truth_make(k->op, &k->c, &k->in, true, &k->tiled, &err) == Q4_OK, "%s",
                  err.msg);
    ck_assert_ptr_nonnull(k->tiled.tiles);
    ck_assert_int_eq(k->whole.n, k->tiled.n);
}

static void make(const char *name, one_case *k) { make_poked(name, k, NULL); }

static void drop(one_case *k)
{
    q4h_outputs_free(&k->whole);
    q4h_outputs_free(&k->tiled);
    q4_inputs_free(&k->in);
}

/* Element i of o made wrong by `times` its bound (at least 1e-3 off: a bound may be 0). */
static void wrong(q4h_output *o, int64_t i, double times)
{
    if (i >= 0 && i < o->count)
        o->got[i] = (float)(o->value[i] + times * fmax(o->bound[i], 1e-3));
}

/* The results of variant v into the whole truth's outputs, then copied to the tiled. */
static void results(one_case *k, variant v)
{
    for (int n = 0; n < k->whole.n; n++) {
        q4h_output *o = &k->whole.o[n];
        for (int64_t i = 0; i < o->count; i++)
            o->got[i] = (float)(v == BIAS ? o->value[i] + 0.5 * o->bound[i] : o->value[i]);
        const int64_t last = o->count - 1;
        switch (v) {
        case EDGES: {
            const int64_t at[] = { CHUNK - 1, CHUNK, SUB - 1, SUB, 2 * SUB + 1, last };
            for (size_t j = 0; j < sizeof at / sizeof at[0]; j++)
                wrong(o, at[j], 3 + (double)j / 4);
            if (o->rows > 1)   /* the first and last element of row 1 */
                wrong(o, o->cols, 5), wrong(o, 2 * o->cols - 1, 5);
            break;
        }
        case NAN_FIRST:
            wrong(o, last, 7);
            if (n == 0)
                o->got[0] = NAN;
            break;
        case NAN_LATER:
            if (o->count > 1)
                o->got[o->count / 2] = NAN;
            wrong(o, CHUNK, 2);
            break;
        case TIES:
            wrong(o, SUB + 3, 4);
            wrong(o, last, 4);
            wrong(o, CHUNK + 1, 4);
            break;
        default:
            break;
        }
        memcpy(k->tiled.o[n].got, o->got, (size_t)o->count * sizeof(float));
    }
}

static void judge_whole(one_case *k, int threads, q4_result *r)
{
    memset(r, 0, sizeof *r);   /* padding too: results are compared byte for byte */
    q4_result_init(r);
    q4ref_set_threads(threads);
    q4h_judge(&k->whole, r);
    q4ref_set_threads(0);
}

static void judge_tiled(one_case *k, int threads, q4_result *r)
{
    q4_error err = { 0 };
    double ms = -1;
    memset(r, 0, sizeof *r);
    q4_result_init(r);
    q4ref_set_threads(threads);
    ck_assert_msg(q4h_judge_tiled(&k->tiled, r, &ms, &err) == Q4_OK, "%s", err.msg);
    q4ref_set_threads(0);
    ck_assert(ms >= 0);
}

static void same(const char *name, variant v, const char *how, const q4_result *a,
                 const q4_result *b)
{
    ck_assert_msg(memcmp(a, b, sizeof *a) == 0,
                  "%s, variant %d, %s: %s | %s (margin %.17g, %.17g; stat %.17g, %.17g; index "
                  "%lld, %lld)", name, (int)v, how, a->message, b->message, a->worst_margin,
                  b->worst_margin, a->stat_margin, b->stat_margin, (long long)a->index,
                  (long long)b->index);
}

START_TEST(tiled_judge_is_the_whole_judge)
{
    const char *name = cases[_i];
    one_case k;
    make(name, &k);
    int failing = 0;
    for (variant v = 0; v < VARIANTS; v++) {
        q4_result whole, one, three;
        results(&k, v);
        judge_whole(&k, 1, &whole);
        judge_tiled(&k, 1, &one);
        judge_tiled(&k, 3, &three);
        same(name, v, "whole and tiled, 1 thread", &whole, &one);
        same(name, v, "tiled on 1 and 3 threads", &one, &three);
        failing += whole.verdict == Q4_FAIL;
        if (v == EXACT)
            ck_assert_msg(whole.verdict == Q4_PASS, "%s: %s", name, whole.message);
        if (v == EDGES || v == NAN_FIRST || v == TIES || (v == NAN_LATER && k.c.numel != 1))
            ck_assert_msg(whole.verdict == Q4_FAIL, "%s, variant %d: %s", name, (int)v,
                          whole.message);
        if (v == NAN_FIRST)
            ck_assert_int_eq(whole.index, 0);
    }
    ck_assert_int_ge(failing, k.c.numel == 1 ? 3 : 4);   /* one element: no NaN later */
    drop(&k);
}
END_TEST

/* Every tile of the op's tiled truth, cut at odd places (whole rows where the op
 * makes rows only), into arrays of the whole output: the whole truth, bit for bit. */
START_TEST(tiles_are_the_whole_truth)
{
    const char *name = cases[_i];
    one_case k;
    make(name, &k);
    const q4h_tiled_truth *tt = k.op->tiled;
    q4h_outputs *w = &k.whole;
    const int64_t rows = k.tiled.o[w->n - 1].rows, cols = k.tiled.o[w->n - 1].cols;
    /* the tiled outputs' truth, as the tiles make it, in arrays of the whole shape */
    double *value[Q4H_MAX_OUTPUTS] = { 0 }, *bound[Q4H_MAX_OUTPUTS] = { 0 };
    float *env[Q4H_MAX_OUTPUTS][3] = { { 0 } };
    for (int n = 0; n < w->n; n++) {
        const q4h_output *o = &k.tiled.o[n];
        if (!o->tiled)
            continue;
        value[n] = malloc((size_t)o->count * sizeof(double));
        bound[n] = malloc((size_t)o->count * sizeof(double));
        for (int e = 0; e < 3; e++)
            if (o->tiled_env && (e < 2 || o->tiled_shr))
                env[n][e] = malloc((size_t)o->count * sizeof(float));
    }
    int64_t step = 1;
    for (int64_t r = 0; r < rows; r++)
        for (int64_t j0 = 0, j1; j0 < cols; j0 = j1) {
            step = step * 7 % 5003 + 1;   /* 2, 15, 106, ...: tiles of every length */
            j1 = tt->whole_rows || j0 + step > cols ? cols : j0 + step;
            q4h_truth_tile t = { .row = r, .j0 = j0, .j1 = j1 };
            for (int n = 0; n < w->n; n++)
                if (value[n]) {
                    const int64_t at = r * cols + j0;
                    t.value[n] = value[n] + at;
                    t.bound[n] = bound[n] + at;
                    t.env[n] = (q4ref_envelope){ env[n][0] ? env[n][0] + at : NULL,
                                                 env[n][1] ? env[n][1] + at : NULL,
                                                 env[n][2] ? env[n][2] + at : NULL };
                }
            tt->tile(k.tiled.tiles, &t);
        }
    tt->end(k.tiled.tiles, &k.tiled);
    for (int n = 0; n < w->n; n++) {
        const q4h_output *a = &w->o[n], *b = &k.tiled.o[n];
        const size_t d = (size_t)a->count * sizeof(double), f = d / 2;
        const double *bv = value[n] ? value[n] : b->value, *bb = bound[n] ? bound[n] : b->bound;
        ck_assert_msg(memcmp(a->value, bv, d) == 0 && memcmp(a->bound, bb, d) == 0,
                      "%s: %s's truth differs by tiles", name, a->name);
        const float *be[3] = { env[n][0] ? env[n][0] : b->env.alw,
                               env[n][1] ? env[n][1] : b->env.sd,
                               env[n][2] ? env[n][2] : b->env.shr };
        const float *ae[3] = { a->env.alw, a->env.sd, a->env.shr };
        for (int e = 0; e < 3; e++) {
            ck_assert((ae[e] != NULL) == (be[e] != NULL));
            if (ae[e])
                ck_assert_msg(memcmp(ae[e], be[e], f) == 0, "%s: %s's envelope %d differs",
                              name, a->name, e);
        }
        free(value[n]);
        free(bound[n]);
        for (int e = 0; e < 3; e++)
            free(env[n][e]);
    }
    drop(&k);
}
END_TEST

/* NaN truths (a NaN gradient; its bound is NaN too, so the margin is infinite): over
 * its bound wherever it is, the worst at element 0, the first of the infinite
 * margins. */
static void nan_grad_first(q4_inputs *in)
{
    in->grad[0] = NAN;
    in->grad[CHUNK + 2] = NAN;
}

static void nan_grad_later(q4_inputs *in)
{
    in->grad[SUB] = NAN;
    in->grad[CHUNK] = NAN;
}

START_TEST(nan_truths_judged_alike)
{
    const poke_fn pokes[] = { nan_grad_first, nan_grad_later };
    for (int p = 0; p < 2; p++) {
        one_case k;
        make_poked("q4cts.adamw_step.custom.n200003_t7_w1", &k, pokes[p]);
        for (variant v = EXACT; v <= EDGES; v++) {
            q4_result whole, one, three;
            results(&k, v);
            for (int n = 0; n < k.whole.n; n++)   /* a finite result where the truth is not */
                for (int64_t i = 0; i < k.whole.o[n].count; i++)
                    if (isnan(k.whole.o[n].value[i]))
                        k.whole.o[n].got[i] = k.tiled.o[n].got[i] = 1;
            judge_whole(&k, 1, &whole);
            judge_tiled(&k, 1, &one);
            judge_tiled(&k, 3, &three);
            same("NaN gradient", v, "whole and tiled, 1 thread", &whole, &one);
            same("NaN gradient", v, "tiled on 1 and 3 threads", &one, &three);
            ck_assert_msg(whole.verdict == Q4_FAIL, "%s", whole.message);
            if (p == 0)
                ck_assert_msg(whole.index == 0 && isinf(whole.worst_margin), "%lld %g",
                              (long long)whole.index, whole.worst_margin);
        }
        drop(&k);
    }
}
END_TEST

/* What a dump reads: the tiled truth made whole is the whole truth, bit for bit (a
 * tile's truth is the whole truth's), after judging and before. */
START_TEST(completed_truth_is_the_whole_truth)
{
    const char *name = cases[_i];
    one_case k;
    q4_error err = { 0 };
    make(name, &k);
    for (int judged = 0; judged < 2; judged++) {
        q4h_outputs again = { 0 };
        if (judged) {
            q4_result r;
            results(&k, EDGES);
            judge_tiled(&k, 3, &r);
        } else {
            ck_assert_msg(q4h_truth_make(k.op, &k.c, &k.in, true, &again, &err) == Q4_OK, "%s",
                          err.msg);
        }
        q4h_outputs *t = judged ? &k.tiled : &again;
        ck_assert_msg(q4h_truth_complete(k.op, &k.c, &k.in, t, &err) == Q4_OK, "%s", err.msg);
        ck_assert_ptr_null(t->tiles);
        for (int n = 0; n < k.whole.n; n++) {
            const q4h_output *a = &k.whole.o[n], *b = &t->o[n];
            const size_t d = (size_t)a->count * sizeof(double), f = d / 2;
            ck_assert(!b->tiled);
            ck_assert_str_eq(a->name, b->name);
            ck_assert(memcmp(a->value, b->value, d) == 0 && memcmp(a->bound, b->bound, d) == 0);
            ck_assert((a->env.alw != NULL) == (b->env.alw != NULL));
            ck_assert((a->env.shr != NULL) == (b->env.shr != NULL));
            if (a->env.alw)
                ck_assert(memcmp(a->env.alw, b->env.alw, f) == 0 &&
                          memcmp(a->env.sd, b->env.sd, f) == 0);
            if (a->env.shr)
                ck_assert(memcmp(a->env.shr, b->env.shr, f) == 0);
            if (judged)   /* the results stay */
                ck_assert(memcmp(a->got, b->got, f) == 0);
        }
        if (judged) {   /* and the whole judge of it is the tiled one's */
            q4_result w, c;
            judge_whole(&k, 2, &w);
            memset(&c, 0, sizeof c);
            q4_result_init(&c);
            q4h_judge(&k.tiled, &c);
            same(name, EDGES, "whole and completed", &w, &c);
        }
        q4h_outputs_free(&again);
    }
    drop(&k);
}
END_TEST

int main(void)
{
    const int n = (int)(sizeof cases / sizeof cases[0]);
    Suite *s = suite_create("judge_tiled");
    TCase *tc = tcase_create("tiled");
    tcase_set_timeout(tc, 300);
    tcase_add_loop_test(tc, tiles_are_the_whole_truth, 0, n);
    tcase_add_loop_test(tc, tiled_judge_is_the_whole_judge, 0, n);
    tcase_add_loop_test(tc, completed_truth_is_the_whole_truth, 0, n);
    tcase_add_test(tc, nan_truths_judged_alike);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? 1 : 0;
}
