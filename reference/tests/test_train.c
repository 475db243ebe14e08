/* test_train.c: the training references (q4ref_train.h, docs/training.md): the fp64
 * run's first loss is the hand-computed CE of the start's quantized model, its first
 * AdamW step moves every latent with a gradient by lr (m/bc1 over sqrt(v/bc2) is
 * +-1 at step 1), every zoo run stays within a few fp32 ulps of it and ends with the
 * same codes where no latent came near a rounding boundary, the tie distance reads the distance to j + 0.5, and bad models are
 * refused. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "q4ref_train.h"
#include "ref_test_util.h"

enum { M = 16, K = 32, H = 16, V = 8, GS = 16, T = 4 };

typedef struct model_data {
    float x[T * M * K], latent[H * K + V * H], scales[(K / GS) * H + (H / GS) * V];
    int32_t labels[T * M];
} model_data;

/* A two-layer model K -> H -> V, latents about 1/sqrt(K) with power-of-two scales. */
static q4ref_train_model make_model(model_data *d, int layers)
{
    rng r = { 7 };
    q4ref_train_model m = { .layers = layers, .M = M, .T = T, .gs = GS, .x = d->x,
                            .labels = d->labels, .latent = d->latent, .scales = d->scales,
                            .lr = 0.03f, .beta1 = 0.9f, .beta2 = 0.999f, .eps = 1e-8f,
                            .wd = 0.01f };
    m.width[0] = K;
    m.width[1] = layers == 1 ? V : H;
    m.width[2] = V;
    rand_floats(&r, d->x, T * M * K, -1, 1);
    for (int i = 0; i < T * M; i++) d->labels[i] = (int32_t)rng_int(&r, 0, V - 1);
    rand_floats(&r, d->latent, q4ref_train_weights(&m), -0.2, 0.2);
    for (int64_t i = 0; i < q4ref_train_scales(&m); i++) d->scales[i] = 0x1p-5f;
    return m;
}

START_TEST(first_loss_by_hand)
{
    model_data d;
    q4ref_train_model m = make_model(&d, 1);
    uint8_t codes[V * K];
    double loss[T], want = 0;
    q4_error err = {0};
    q4ref_train_trace tr = { loss, NULL, NULL, NULL };
    ck_assert_q4ok(q4ref_train_start_codes(&m, codes, &err), err);
    ck_assert_q4ok(q4ref_train_fp64(&m, &tr, &err), err);
    for (int r = 0; r < M; r++) {
        double logit[V], mx = -INFINITY, sum = 0;
        for (int v = 0; v < V; v++) {
            logit[v] = 0;
            for (int k = 0; k < K; k++)
                logit[v] += (double)d.x[r * K + k] * ((int)codes[v * K + k] - 8) * 0x1p-5;
            mx = fmax(mx, logit[v]);
        }
        for (int v = 0; v < V; v++) sum += exp(logit[v] - mx);
        want += (mx + log(sum) - logit[d.labels[r]]) / M;
    }
    ck_assert_double_eq_tol(loss[0], want, 1e-12);
    /* the start codes are roundEven(latent / s) */
    for (int i = 0; i < V * K; i++)
        ck_assert_int_eq(codes[i], (int)nearbyint(d.latent[i] / 0x1p-5f) + 8);
}
END_TEST

START_TEST(first_step_moves_by_lr)
{
    model_data d;
    q4ref_train_model m = make_model(&d, 2);
    const int64_t n = q4ref_train_weights(&m);
    double *lat = xcalloc((size_t)(T * n), sizeof *lat);
    q4_error err = {0};
    q4ref_train_trace tr = { NULL, lat, NULL, NULL };
    ck_assert_q4ok(q4ref_train_fp64(&m, &tr, &err), err);
    int moved = 0;
    for (int64_t i = 0; i < n; i++) {
        double decayed = d.latent[i] * (1 - (double)m.lr * m.wd), step = fabs(lat[i] - decayed);
        /* |m/bc1| / (sqrt(v/bc2) + eps) = |g| / (|g| + eps): lr less eps's share, or 0
         * for a zero gradient (a missing bias correction would move it 3.16 lr) */
        ck_assert_msg(step < 1e-9 || (step > 0.9 * m.lr && step < (1 + 1e-6) * m.lr),
                      "weight %lld moved %g",
                      (long long)i, step);
        moved += step > 1e-9;
    }
    ck_assert_int_gt(moved, n / 2);
    free(lat);
}
END_TEST

START_TEST(zoo_runs_near_fp64)
{
    model_data d;
    q4ref_train_model m = make_model(&d, _i + 1);
    const int64_t n = q4ref_train_weights(&m);
    double loss64[T], lossz[T], tie[T];
    uint8_t *c64 = xcalloc((size_t)n, 1), *cz = xcalloc((size_t)n, 1);
    q4_error err = {0};
    q4ref_train_trace tr64 = { loss64, NULL, c64, tie };
    ck_assert_q4ok(q4ref_train_fp64(&m, &tr64, &err), err);
    for (int z = 0; z < Q4REF_TRAIN_ZOO_RUNS; z++) {
        q4ref_train_trace trz = { lossz, NULL, cz, NULL };
        ck_assert_q4ok(q4ref_train_zoo(&m, z, &trz, &err), err);
        for (int t = 0; t < T; t++)
            ck_assert_msg(fabs(lossz[t] - loss64[t]) < 64 * 0x1p-24 * loss64[t],
                          "zoo run %d step %d: %.9g against %.9g", z, t + 1, lossz[t], loss64[t]);
        /* the tie distance is one to j + 0.5 (at most half a code); where no step's
         * latent came within fp32's reach of a boundary, every final code is the same */
        double least = INFINITY;
        for (int t = 0; t < T; t++) {
            ck_assert(tie[t] >= 0 && tie[t] <= 0.5);
            least = fmin(least, tie[t]);
        }
        if (least > 1e-6)
            ck_assert_int_eq(memcmp(cz, c64, (size_t)n), 0);
    }
    ck_assert_int_eq(q4ref_train_zoo(&m, Q4REF_TRAIN_ZOO_RUNS, &tr64, &err), Q4_ERR_ARG);
    free(c64);
    free(cz);
}
END_TEST

START_TEST(bad_models_refused)
{
    model_data d;
    q4ref_train_model m = make_model(&d, 2);
    double loss[T];
    q4_error err = {0};
    q4ref_train_trace tr = { loss, NULL, NULL, NULL };
    q4ref_train_model bad = m;
    bad.layers = 4;
    ck_assert_int_eq(q4ref_train_fp64(&bad, &tr, &err), Q4_ERR_ARG);
    bad = m;
    bad.width[1] = 10;   /* N = 10: not a multiple of 4 */
    ck_assert_int_eq(q4ref_train_fp64(&bad, &tr, &err), Q4_ERR_ARG);
    d.labels[3] = V;     /* a label past the classes */
    ck_assert_int_eq(q4ref_train_fp64(&m, &tr, &err), Q4_ERR_ARG);
    ck_assert_int_eq(q4ref_train_zoo(&m, 0, &tr, &err), Q4_ERR_ARG);
}
END_TEST

START_TEST(bias_corrections)
{
    model_data d;
    q4ref_train_model m = make_model(&d, 1);
    float bc1, bc2;
    q4ref_train_bias_corrections(&m, 1, &bc1, &bc2);
    ck_assert_float_eq(bc1, (float)(1 - (double)0.9f));
    ck_assert_float_eq(bc2, (float)(1 - (double)0.999f));
    q4ref_train_bias_corrections(&m, 3, &bc1, &bc2);
    ck_assert_float_eq(bc1, (float)(1 - pow((double)0.9f, 3)));
}
END_TEST

int main(void)
{
    Suite *s = suite_create("ref.train");
    TCase *tc = tcase_create("train");
    tcase_add_test(tc, first_loss_by_hand);
    tcase_add_test(tc, first_step_moves_by_lr);
    tcase_add_loop_test(tc, zoo_runs_near_fp64, 0, 2);
    tcase_add_test(tc, bad_models_refused);
    tcase_add_test(tc, bias_corrections);
    suite_add_tcase(s, tc);
    return run_suite(s);
}
