/* test_threads.c: the reference's results do not depend on its thread count. Every
 * truth (value, bound, envelope) and every fp32 reference is computed with 1 thread
 * and with 5 (more than this machine's cores, so that rows and elements land on
 * threads in other ways), and the two must be the same bytes. */
#include <string.h>

#include "ref_test_util.h"

/* GEMMs large enough that OpenBLAS splits them over its threads; N and K not multiples
 * of 64 (the shared variances' runs of columns) */
enum { M = 301, N = 264, K = 544, GS = 32, R = 29, V = 1001, NUMEL = 10007 };

static rng g = { 20261201 };
static float x[M * K], dout[M * N], bias[N], scales[(K / GS) * N], latent[N * K];
static float logits[R * V];
static int32_t labels[R];
static float p0[NUMEL], grad[NUMEL], m0[NUMEL], v0[NUMEL];
static uint32_t w[N * K];   /* more than q4_w4x8_words(N, K) */
static q4_error err;

static void setup(void)
{
    rand_floats(&g, x, M * K, -1, 1);
    rand_floats(&g, dout, M * N, -1, 1);
    rand_floats(&g, bias, N, -1, 1);
    rand_scales(&g, scales, (K / GS) * N, 0.1);
    rand_floats(&g, latent, N * K, -1, 1);
    ck_assert_int_eq(q4ref_requant(latent, scales, N, K, GS, w, NULL, &err), Q4_OK);
    rand_floats(&g, logits, R * V, -10, 10);
    for (int r = 0; r < R; r++)
        labels[r] = r % 5 == 3 ? -100 : (int32_t)rng_int(&g, 0, V - 1);
    rand_floats(&g, p0, NUMEL, -1, 1);
    rand_floats(&g, grad, NUMEL, -0.1, 0.1);
    rand_floats(&g, m0, NUMEL, -0.01, 0.01);
    rand_floats(&g, v0, NUMEL, 0, 1e-4);
}

/* Every output of every op, computed with `threads` threads into one buffer each. */
typedef struct results {
    double lin[3][2][M * N > M * K ? M * N : (M * K > N * K ? M * K : N * K)];
    float lin32[3][M * K > N * K ? (M * K > M * N ? M * K : M * N) : N * K];
    double ce_loss[2], ce[2][R * V];
    float ce_env[2][3][R * V], ce_loss_env[2], ce32[R * V + 1];
    double ad[6][NUMEL];
    float ad_env[3][2][NUMEL], ad32[3][NUMEL];
    double sv[2][2][N > K ? N : K];   /* the shared roundings' variances, fwd and bwd */
    double dq[2][N * K];
    uint8_t rq[2][N * K];
} results;

static void compute(int threads, results *o)
{
    memset(o, 0, sizeof *o);
    q4ref_set_threads(threads);
    ck_assert_int_eq(q4ref_linear_fwd_truth(x, w, scales, bias, M, N, K, GS, o->lin[0][0],
                                            o->lin[0][1], &err), Q4_OK);
    ck_assert_int_eq(q4ref_linear_bwd_truth(dout, w, scales, M, N, K, GS, o->lin[1][0],
                                            o->lin[1][1], &err), Q4_OK);
    ck_assert_int_eq(q4ref_linear_dw_truth(dout, x, M, N, K, o->lin[2][0], o->lin[2][1], &err),
                     Q4_OK);
    ck_assert_int_eq(q4ref_linear_fwd(x, w, scales, bias, M, N, K, GS, o->lin32[0], &err), Q4_OK);
    ck_assert_int_eq(q4ref_linear_bwd(dout, w, scales, M, N, K, GS, o->lin32[1], &err), Q4_OK);
    ck_assert_int_eq(q4ref_linear_dw(dout, x, M, N, K, o->lin32[2], &err), Q4_OK);

    q4ref_envelope le = { &o->ce_loss_env[0], &o->ce_loss_env[1], NULL };
    q4ref_envelope de = { o->ce_env[0][0], o->ce_env[0][1], o->ce_env[0][2] };
    ck_assert_int_eq(q4ref_fused_ce_truth_env(logits, labels, R, V, 24, &o->ce_loss[0],
                                              &o->ce_loss[1], o->ce[0], o->ce[1], &le, &de,
                                              &err), Q4_OK);
    ck_assert_int_eq(q4ref_fused_ce(logits, labels, R, V, 24, &o->ce32[R * V], o->ce32, &err),
                     Q4_OK);

    q4ref_adamw_hyper h = { 1e-3f, 0.9f, 0.999f, 1e-8f, 0.01f, 0.271f, 0.0297f };
    q4ref_envelope ae[3];
    for (int i = 0; i < 3; i++)
        ae[i] = (q4ref_envelope){ o->ad_env[i][0], o->ad_env[i][1], NULL };
    ck_assert_int_eq(q4ref_adamw_truth_env(p0, grad, m0, v0, NUMEL, &h, o->ad[0], o->ad[1],
                                           o->ad[2], o->ad[3], o->ad[4], o->ad[5], ae, &err),
                     Q4_OK);
    memcpy(o->ad32[0], p0, sizeof p0);
    memcpy(o->ad32[1], m0, sizeof m0);
    memcpy(o->ad32[2], v0, sizeof v0);
    ck_assert_int_eq(q4ref_adamw_step(o->ad32[0], grad, o->ad32[1], o->ad32[2], NUMEL, &h, &err),
                     Q4_OK);

    ck_assert_int_eq(q4ref_linear_shared_var(1, x, w, scales, M, N, K, GS, o->lin[0][0],
                                             o->lin[0][1], K, o->sv[0][0], o->sv[0][1], &err),
                     Q4_OK);
    ck_assert_int_eq(q4ref_linear_shared_var(0, dout, w, scales, M, N, K, GS, o->lin[1][0],
                                             o->lin[1][1], N, o->sv[1][0], o->sv[1][1], &err),
                     Q4_OK);
    ck_assert_int_eq(q4ref_dequant_truth(w, scales, N, K, GS, o->dq[0], o->dq[1], &err), Q4_OK);
    ck_assert_int_eq(q4ref_requant_truth(latent, scales, N, K, GS, o->rq[0], o->rq[1], &err),
                     Q4_OK);
}

START_TEST(one_thread_and_many_agree_bit_for_bit)
{
    static results one, many;
    compute(1, &one);
    compute(5, &many);
    q4ref_set_threads(0);
    ck_assert(memcmp(one.lin, many.lin, sizeof one.lin) == 0);
    ck_assert(memcmp(one.lin32, many.lin32, sizeof one.lin32) == 0);
    ck_assert(memcmp(one.ce_loss, many.ce_loss, sizeof one.ce_loss) == 0);
    ck_assert(memcmp(one.ce, many.ce, sizeof one.ce) == 0);
    ck_assert(memcmp(one.ce_env, many.ce_env, sizeof one.ce_env) == 0);
    ck_assert(memcmp(one.ce_loss_env, many.ce_loss_env, sizeof one.ce_loss_env) == 0);
    ck_assert(memcmp(one.ce32, many.ce32, sizeof one.ce32) == 0);
    ck_assert(memcmp(one.ad, many.ad, sizeof one.ad) == 0);
    ck_assert(memcmp(one.ad_env, many.ad_env, sizeof one.ad_env) == 0);
    ck_assert(memcmp(one.ad32, many.ad32, sizeof one.ad32) == 0);
    ck_assert(memcmp(one.sv, many.sv, sizeof one.sv) == 0);
    ck_assert(memcmp(one.dq, many.dq, sizeof one.dq) == 0);
    ck_assert(memcmp(one.rq, many.rq, sizeof one.rq) == 0);
    /* and the results are real: not all zero */
    ck_assert(one.ce_loss[0] > 0 && one.ce_loss[1] > 0 && one.lin[0][1][0] > 0);
    ck_assert(one.sv[0][0][N - 1] > 0 && one.sv[1][0][K - 1] > 0);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("ref.threads");
    TCase *tc = tcase_create("threads");
    tcase_add_checked_fixture(tc, setup, NULL);
    tcase_add_test(tc, one_thread_and_many_agree_bit_for_bit);
    suite_add_tcase(s, tc);
    return run_suite(s);
}
