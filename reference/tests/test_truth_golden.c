/* test_truth_golden.c: the AdamW and fused-CE truths (value, bound, envelope) are the
 * same bytes as before they were made faster: hashes pinned from the code before
 * (inlined running-error helpers, AdamW's shared constants made once a step). Inputs
 * span the value classes' ranges (huge, tiny and zero gradients, zero v, lr = 0,
 * wd = 0, a large model's betas, steps 1 to 2^40; logits of small and large spread,
 * V from 1, masked rows). A failure prints the new hash: a change of the truth's bits
 * is a change of every verdict's margins, to be made on purpose only. */
#include <string.h>

#include "ref_test_util.h"

static uint64_t fnv(uint64_t h, const void *p, size_t n)
{
    const unsigned char *b = p;
    for (size_t i = 0; i < n; i++)
        h = (h ^ b[i]) * 0x100000001b3ull;
    return h;
}

/* +-[0.5, 1) * 2^e, e in [emin, emax] (denormals and zeros included at the low end). */
static float rand_binades(rng *r, int emin, int emax)
{
    float f = ldexpf(rng_float(r, 0.5, 1), (int)rng_int(r, emin, emax));
    return rng_u64(r) & 1 ? -f : f;
}

enum { NUMEL = 4099, R = 13 };

START_TEST(adamw_truth_bits)
{
    static float p[NUMEL], g[NUMEL], m[NUMEL], v[NUMEL], alw[3][NUMEL], sd[3][NUMEL];
    static float shr[3][NUMEL];
    static double out[6][NUMEL];
    const float lrs[] = { 1e-3f, 0, 1e-2f }, wds[] = { 0.01f, 0, 0.1f }, b2s[] = { 0.999f, 0.95f };
    const int64_t steps[] = { 1, 7, 10000, 1099511627776 };
    const int grads[][2] = { { -8, -3 }, { -140, -100 }, { 60, 66 }, { -20, 20 } };
    rng r = { 20261203 };
    uint64_t h = 0xcbf29ce484222325ull;
    q4_error err;
    q4ref_envelope env[3];
    for (int i = 0; i < 3; i++)
        env[i] = (q4ref_envelope){ alw[i], sd[i], shr[i] };
    for (int c = 0; c < 4; c++)
        for (int a = 0; a < 3; a++)
            for (int b = 0; b < 2; b++)
                for (int t = 0; t < 4; t++) {
                    for (int64_t i = 0; i < NUMEL; i++) {
                        p[i] = rand_binades(&r, -10, 0);
                        g[i] = i % 17 == 0 ? 0 : rand_binades(&r, grads[c][0], grads[c][1]);
                        m[i] = rand_binades(&r, -12, -4);
                        v[i] = i % 5 == 0 ? 0 : fabsf(rand_binades(&r, -30, -10));
                    }
                    q4ref_adamw_hyper hy = { lrs[a], 0.9f, b2s[b], b ? 1e-6f : 1e-8f, wds[a],
                                             (float)(1 - pow(0.9, (double)steps[t])),
                                             (float)(1 - pow(b2s[b], (double)steps[t])) };
                    ck_assert_int_eq(q4ref_adamw_truth_env(p, g, m, v, NUMEL, &hy, out[0], out[1],
                                                           out[2], out[3], out[4], out[5], env,
                                                           &err), Q4_OK);
                    h = fnv(h, out, sizeof out);
                    h = fnv(fnv(fnv(h, alw, sizeof alw), sd, sizeof sd), shr, sizeof shr);
                }
    ck_assert_msg(h == 0x809f43240617fef7ull, "AdamW truth hash 0x%016llxull", (unsigned long long)h);
}
END_TEST

START_TEST(fused_ce_truth_bits)
{
    const int64_t Vs[] = { 1, 2, 7, 1000, 32001 };
    const int emax[] = { 2, 8, 14 };
    rng r = { 20261204 };
    uint64_t h = 0xcbf29ce484222325ull;
    q4_error err;
    for (int vi = 0; vi < 5; vi++)
        for (int s = 0; s < 3; s++) {
            const int64_t V = Vs[vi], n = R * V;
            float *x = malloc((size_t)n * sizeof *x), le[2];
            float *alw = malloc((size_t)n * sizeof *alw), *sd = malloc((size_t)n * sizeof *sd);
            float *shr = malloc((size_t)n * sizeof *shr);
            double *dv = malloc((size_t)n * sizeof *dv), *db = malloc((size_t)n * sizeof *db);
            double loss[2];
            int32_t labels[R];
            int valid = 0;
            ck_assert(x && alw && sd && shr && dv && db);
            for (int64_t i = 0; i < n; i++)
                x[i] = rand_binades(&r, -20, emax[s]);
            for (int i = 0; i < R; i++) {
                labels[i] = i % 6 == 5 ? -100 : (int32_t)rng_int(&r, 0, V - 1);
                valid += labels[i] >= 0;
            }
            q4ref_envelope loss_env = { &le[0], &le[1], NULL }, d_env = { alw, sd, shr };
            ck_assert_int_eq(q4ref_fused_ce_truth_env(x, labels, R, V, (float)valid, &loss[0],
                                                      &loss[1], dv, db, &loss_env, &d_env, &err),
                             Q4_OK);
            h = fnv(fnv(fnv(h, loss, sizeof loss), le, sizeof le), dv, (size_t)n * sizeof *dv);
            h = fnv(fnv(h, db, (size_t)n * sizeof *db), alw, (size_t)n * sizeof *alw);
            h = fnv(fnv(h, sd, (size_t)n * sizeof *sd), shr, (size_t)n * sizeof *shr);
            free(x), free(alw), free(sd), free(shr), free(dv), free(db);
        }
    ck_assert_msg(h == 0x413a33c342eed3b5ull, "fused CE truth hash 0x%016llxull", (unsigned long long)h);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("ref.truth_golden");
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, adamw_truth_bits);
    tcase_add_test(tc, fused_ce_truth_bits);
    suite_add_tcase(s, tc);
    return run_suite(s);
}
