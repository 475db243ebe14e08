/* test_errors.c: every argument each q4ref entry point rejects, with the status and
 * the sentence it gives (naming the argument, its value and what was expected), and
 * allocation failures through q4ref_fault_alloc_at. */
#include <string.h>

#include "ref_test_util.h"

static void expect_at(int line, q4_status got, const q4_error *e, q4_status want, const char *text)
{
    ck_assert_msg(got == want, "line %d: status %d, expected %d (%s)", line, (int)got, (int)want,
                  got ? e->msg : "no message");
    ck_assert_msg(strstr(e->msg, text), "line %d: message \"%s\" lacks \"%s\"", line, e->msg, text);
}
#define EXPECT(call, want, text)                                                                  \
    do {                                                                                          \
        memset(&e, 0, sizeof e);                                                                  \
        expect_at(__LINE__, (call), &e, (want), (text));                                          \
    } while (0)
#define ARG Q4_ERR_ARG

/* Buffers big enough for every small call below. */
static uint8_t codes[256], flat[256];
static uint32_t w[256];
static float scales[64], x[256], y[256], bias[16], big[1024];
static double dv[256], db[256];
static const int32_t lab0[4];

static void setup(void)
{
    memset(codes, 8, sizeof codes);
    for (int i = 0; i < 64; i++)
        scales[i] = 0.5f;
    for (int i = 0; i < 256; i++)
        x[i] = 1;
}

START_TEST(shapes)
{
    q4_error e;
    EXPECT(q4ref_linear_fwd(x, w, scales, NULL, 1, 10, 8, 4, y, &e), ARG,
           "N = 10 must be a multiple of 4");
    EXPECT(q4ref_linear_fwd(x, w, scales, NULL, 1, 8, 6, 2, y, &e), ARG,
           "K = 6 must be a multiple of 4");
    EXPECT(q4ref_linear_fwd(x, w, scales, NULL, 1, 8, 8, 6, y, &e), ARG,
           "gs = 6 must be a multiple of 4");
    EXPECT(q4ref_linear_fwd(x, w, scales, NULL, 1, 8, 12, 8, y, &e), ARG,
           "K = 12 must be a multiple of the group size gs = 8");
    EXPECT(q4ref_linear_fwd(x, w, scales, NULL, 0, 8, 8, 4, y, &e), ARG,
           "M = 0 must be at least 1");
    EXPECT(q4ref_linear_bwd(x, w, scales, -3, 8, 8, 4, y, &e), ARG, "M = -3 must be at least 1");
    EXPECT(q4ref_linear_dw(x, x, 1, 6, 8, y, &e), ARG, "N = 6 must be a multiple of 4");
    EXPECT(q4ref_linear_dw(x, x, 0, 8, 8, y, &e), ARG, "M = 0 must be at least 1");
    EXPECT(q4ref_linear_dw_truth(x, x, 2, 8, 10, dv, db, &e), ARG, "K = 10 must be a multiple of 4");
    EXPECT(q4ref_pack_flat(codes, 0, 4, flat, &e), ARG, "N = 0 must be at least 1");
    EXPECT(q4ref_unpack_flat(flat, 4, 2, codes, &e), ARG, "K = 2 must be a multiple of 4");
    EXPECT(q4ref_pack_w4x8(codes, 12, 7, w, &e), ARG, "K = 7 must be a multiple of 4");
    EXPECT(q4ref_unpack_w4x8(w, 2, 4, codes, &e), ARG, "N = 2 must be a multiple of 4");
    EXPECT(q4ref_dequant_w4x8(w, scales, 4, 8, 3, y, &e), ARG, "gs = 3 must be a multiple of 4");
    EXPECT(q4ref_dequant_flat(flat, scales, 4, 8, 16, y, &e), ARG,
           "K = 8 must be a multiple of the group size gs = 16");
    EXPECT(q4ref_dequant_truth(w, scales, 4, 8, 0, dv, db, &e), ARG, "gs = 0 must be at least 1");
    EXPECT(q4ref_requant(x, scales, 4, 12, 8, w, NULL, &e), ARG,
           "K = 12 must be a multiple of the group size gs = 8");
    EXPECT(q4ref_requant_truth(x, scales, 5, 8, 4, codes, flat, &e), ARG,
           "N = 5 must be a multiple of 4");
    EXPECT(q4ref_linear_fwd_truth(x, w, scales, NULL, 1, 8, 8, 12, dv, db, &e), ARG,
           "K = 8 must be a multiple of the group size gs = 12");
    EXPECT(q4ref_linear_bwd_truth(x, w, scales, 1, 4, 0, 4, dv, db, &e), ARG,
           "K = 0 must be at least 1");
}
END_TEST

START_TEST(sizes)
{
    /* Products that overflow the address space are rejected before any memory is read. */
    const int64_t T40 = (int64_t)1 << 40, T62 = (int64_t)1 << 62;
    q4_error e;
    EXPECT(q4ref_pack_w4x8(codes, T40, T40, w, &e), ARG,
           "the weight [N, K] of 1099511627776 x 1099511627776 x 1 elements overflows the address "
           "space");
    EXPECT(q4ref_linear_fwd(x, w, scales, NULL, T62, 8, 8, 4, y, &e), ARG,
           "the activation [M, K] of 4611686018427387904 x 8 x 1 elements overflows");
    EXPECT(q4ref_linear_dw(x, x, 4, T62, 4, y, &e), ARG, "the output gradient [M, N] of 4 x");
    EXPECT(q4ref_fused_ce(x, lab0, T62, 8, 1, y, big, &e), ARG,
           "the logits [R, V] of 4611686018427387904 x 8 x 1 elements overflows");
    EXPECT(q4ref_adamw_step(x, y, big, big + 512, T62,
                            &(q4ref_adamw_hyper){1e-3f, 0.9f, 0.999f, 1e-8f, 0, 0.1f, 0.001f}, &e),
           ARG, "the parameter vector of 4611686018427387904 x 1 x 1 elements overflows");
    /* OpenBLAS indices are 32-bit: a dimension beyond them is out of this reference's
     * reach, said as such (checked before any buffer is touched). */
    EXPECT(q4ref_linear_fwd(x, w, scales, NULL, 1, 4, ((int64_t)1 << 31) + 4, 4, y, &e),
           Q4_ERR_UNSUPPORTED,
           "K = 2147483652 exceeds the BLAS index range; the reference supports at most 2147483647");
    EXPECT(q4ref_linear_dw_truth(x, x, ((int64_t)1 << 31) + 4, 4, 4, dv, db, &e),
           Q4_ERR_UNSUPPORTED, "M = 2147483652 exceeds the BLAS index range");
    EXPECT(q4ref_linear_bwd(x, w, scales, 1, ((int64_t)1 << 32), 4, 4, y, &e), Q4_ERR_UNSUPPORTED,
           "N = 4294967296 exceeds the BLAS index range");
}
END_TEST

START_TEST(null_pointers)
{
    q4_error e;
    EXPECT(q4ref_pack_flat(NULL, 4, 4, flat, &e), ARG, "codes is NULL; expected a buffer");
    EXPECT(q4ref_pack_flat(codes, 4, 4, NULL, &e), ARG, "flat is NULL; expected a buffer");
    EXPECT(q4ref_unpack_flat(NULL, 4, 4, codes, &e), ARG, "flat is NULL");
    EXPECT(q4ref_unpack_flat(flat, 4, 4, NULL, &e), ARG, "codes is NULL");
    EXPECT(q4ref_pack_w4x8(codes, 4, 4, NULL, &e), ARG, "w4x8 is NULL");
    EXPECT(q4ref_unpack_w4x8(NULL, 4, 4, codes, &e), ARG, "w4x8 is NULL");
    EXPECT(q4ref_dequant_w4x8(w, NULL, 4, 4, 4, y, &e), ARG, "scales is NULL");
    EXPECT(q4ref_dequant_flat(flat, scales, 4, 4, 4, NULL, &e), ARG, "wf is NULL");
    EXPECT(q4ref_dequant_truth(w, scales, 4, 4, 4, dv, NULL, &e), ARG, "bound is NULL");
    EXPECT(q4ref_linear_fwd(NULL, w, scales, bias, 1, 4, 4, 4, y, &e), ARG, "x is NULL");
    EXPECT(q4ref_linear_fwd(x, NULL, scales, bias, 1, 4, 4, 4, y, &e), ARG, "w4x8 is NULL");
    EXPECT(q4ref_linear_fwd(x, w, NULL, bias, 1, 4, 4, 4, y, &e), ARG, "scales is NULL");
    EXPECT(q4ref_linear_fwd(x, w, scales, bias, 1, 4, 4, 4, NULL, &e), ARG, "y is NULL");
    EXPECT(q4ref_linear_fwd_truth(x, w, scales, NULL, 1, 4, 4, 4, NULL, db, &e), ARG,
           "value is NULL");
    EXPECT(q4ref_linear_bwd(NULL, w, scales, 1, 4, 4, 4, y, &e), ARG, "dout is NULL");
    EXPECT(q4ref_linear_bwd(x, w, scales, 1, 4, 4, 4, NULL, &e), ARG, "dx is NULL");
    EXPECT(q4ref_linear_bwd_truth(x, w, scales, 1, 4, 4, 4, dv, NULL, &e), ARG, "bound is NULL");
    EXPECT(q4ref_linear_dw(x, NULL, 1, 4, 4, y, &e), ARG, "x is NULL");
    EXPECT(q4ref_linear_dw(x, x, 1, 4, 4, NULL, &e), ARG, "dw is NULL");
    EXPECT(q4ref_linear_dw_truth(NULL, x, 1, 4, 4, dv, db, &e), ARG, "dout is NULL");
    EXPECT(q4ref_fused_ce(NULL, lab0, 1, 4, 1, y, big, &e), ARG,
           "logits is NULL");
    EXPECT(q4ref_fused_ce(x, NULL, 1, 4, 1, y, big, &e), ARG, "labels is NULL");
    EXPECT(q4ref_fused_ce(x, lab0, 1, 4, 1, NULL, big, &e), ARG,
           "loss is NULL");
    EXPECT(q4ref_fused_ce(x, lab0, 1, 4, 1, y, NULL, &e), ARG,
           "dlogits is NULL");
    EXPECT(q4ref_fused_ce_truth(x, lab0, 1, 4, 1, dv, NULL, dv + 8, db, &e),
           ARG, "loss_bound is NULL");
    EXPECT(q4ref_requant(NULL, scales, 4, 4, 4, w, NULL, &e), ARG, "latent is NULL");
    EXPECT(q4ref_requant(x, scales, 4, 4, 4, NULL, NULL, &e), ARG,
           "w4x8 and flat are both NULL; expected at least one output");
    EXPECT(q4ref_requant_truth(x, scales, 4, 4, 4, codes, NULL, &e), ARG, "alt is NULL");
}
END_TEST

START_TEST(aliasing)
{
    q4_error e;
    EXPECT(q4ref_pack_flat(codes, 4, 4, codes + 4, &e), ARG,
           "flat and codes overlap; they must be separate buffers");
    EXPECT(q4ref_unpack_flat(flat, 4, 4, flat, &e), ARG, "codes and flat overlap");
    EXPECT(q4ref_pack_w4x8(codes, 4, 4, (uint32_t *)codes, &e), ARG, "w4x8 and codes overlap");
    EXPECT(q4ref_unpack_w4x8(w, 4, 4, (uint8_t *)w, &e), ARG, "codes and w4x8 overlap");
    EXPECT(q4ref_dequant_w4x8(w, scales, 4, 4, 4, scales, &e), ARG, "wf and scales overlap");
    EXPECT(q4ref_dequant_truth(w, scales, 4, 4, 4, dv, dv + 8, &e), ARG,
           "value and bound overlap");
    EXPECT(q4ref_linear_fwd(x, w, scales, NULL, 1, 4, 4, 4, x + 2, &e), ARG, "y and x overlap");
    EXPECT(q4ref_linear_fwd(x, w, scales, bias, 1, 4, 4, 4, bias, &e), ARG, "y and bias overlap");
    EXPECT(q4ref_linear_bwd(x, w, scales, 1, 4, 4, 4, (float *)w, &e), ARG,
           "dx and w4x8 overlap");
    EXPECT(q4ref_linear_dw(x, y, 1, 4, 4, y, &e), ARG, "dw and x overlap");
    EXPECT(q4ref_linear_fwd_truth(x, w, scales, NULL, 1, 4, 4, 4, dv, (double *)x, &e), ARG,
           "bound and x overlap");
    EXPECT(q4ref_fused_ce(x, lab0, 1, 4, 1, y, x, &e), ARG,
           "dlogits and logits overlap");
    EXPECT(q4ref_fused_ce(x, lab0, 1, 4, 1, x + 3, big, &e), ARG,
           "loss and logits overlap");
    EXPECT(q4ref_fused_ce_truth(x, lab0, 1, 4, 1, dv, db, db, db + 100, &e),
           ARG, "loss_bound and dlogits_value overlap");
    EXPECT(q4ref_requant(x, scales, 4, 4, 4, w, (uint8_t *)w, &e), ARG, "w4x8 and flat overlap");
    EXPECT(q4ref_requant(x, scales, 4, 4, 4, NULL, (uint8_t *)x, &e), ARG,
           "flat and latent overlap");
    EXPECT(q4ref_requant_truth(x, scales, 4, 4, 4, codes, codes + 15, &e), ARG,
           "code and alt overlap");
}
END_TEST

START_TEST(adamw_arguments)
{
    q4ref_adamw_hyper h = {1e-3f, 0.9f, 0.999f, 1e-8f, 0.01f, 0.1f, 0.001f};
    float *p = big, *g = big + 100, *m = big + 200, *v = big + 300;
    q4_error e;
    EXPECT(q4ref_adamw_step(p, g, m, v, 4, NULL, &e), ARG, "h is NULL; expected a buffer");
    EXPECT(q4ref_adamw_step(p, g, m, v, 0, &h, &e), ARG, "numel = 0 must be at least 1");
    EXPECT(q4ref_adamw_step(NULL, g, m, v, 4, &h, &e), ARG, "param is NULL");
    EXPECT(q4ref_adamw_step(p, NULL, m, v, 4, &h, &e), ARG, "grad is NULL");
    EXPECT(q4ref_adamw_step(p, g, m, NULL, 4, &h, &e), ARG, "v is NULL");
    /* In place is the contract, but param, m, v are three buffers, none of them grad. */
    EXPECT(q4ref_adamw_step(p, g, p, v, 4, &h, &e), ARG,
           "param and m overlap; they must be separate buffers");
    EXPECT(q4ref_adamw_step(p, g, m, m + 3, 4, &h, &e), ARG, "m and v overlap");
    EXPECT(q4ref_adamw_step(p, g, g, v, 4, &h, &e), ARG, "m and grad overlap");
    EXPECT(q4ref_adamw_step(g + 2, g, m, v, 4, &h, &e), ARG, "param and grad overlap");
    EXPECT(q4ref_adamw_truth(p, g, m, v, 4, &h, dv, db, dv + 4, db + 4, dv + 8, (double *)m, &e),
           ARG, "v_bound and m overlap");
    EXPECT(q4ref_adamw_truth(p, g, m, v, 4, &h, dv, db, dv + 2, db + 4, dv + 8, db + 8, &e), ARG,
           "param_value and m_value overlap");
    h.bc1 = 0;
    EXPECT(q4ref_adamw_step(p, g, m, v, 4, &h, &e), ARG,
           "bc1 = 1 - beta1^t must be non-zero, got 0");
    h.bc1 = 0.1f;
    h.bc2 = 0;
    EXPECT(q4ref_adamw_truth(p, g, m, v, 4, &h, dv, db, dv + 4, db + 4, dv + 8, db + 8, &e), ARG,
           "bc2 = 1 - beta2^t must be non-zero, got 0");
    h.bc2 = 0.001f;
    h.lr = INFINITY;
    EXPECT(q4ref_adamw_step(p, g, m, v, 4, &h, &e), ARG, "lr = inf must be finite");
    h.lr = 1e-3f;
    h.eps = NAN;
    EXPECT(q4ref_adamw_step(p, g, m, v, 4, &h, &e), ARG, "eps = nan must be finite");
}
END_TEST

START_TEST(values)
{
    const int32_t labels[3] = {0, 5, -1}, bad_label[2] = {-7, 4};
    q4_error e;
    codes[5] = 16;
    EXPECT(q4ref_pack_flat(codes, 4, 4, flat, &e), ARG,
           "codes[5] = 16 is out of range: expected a 4-bit code 0..15");
    EXPECT(q4ref_pack_w4x8(codes, 4, 4, w, &e), ARG, "codes[5] = 16 is out of range");
    codes[5] = 8;
    scales[1] = 0x1p-130f;
    EXPECT(q4ref_dequant_w4x8(w, scales, 4, 4, 4, y, &e), ARG,
           "scales[1] = 7.34684e-40 is denormal; a scale must be 0 or at least 2^-126");
    EXPECT(q4ref_linear_fwd(x, w, scales, NULL, 1, 4, 4, 4, y, &e), ARG,
           "scales[1] = 7.34684e-40 is denormal");
    EXPECT(q4ref_requant(x, scales, 4, 4, 4, w, NULL, &e), ARG, "scales[1] = 7.34684e-40 is denormal");
    scales[1] = 0.5f;
    scales[3] = -INFINITY;
    EXPECT(q4ref_linear_bwd(x, w, scales, 1, 4, 4, 4, y, &e), ARG, "scales[3] = -inf must be finite");
    EXPECT(q4ref_dequant_truth(w, scales, 4, 4, 4, dv, db, &e), ARG,
           "scales[3] = -inf must be finite");
    scales[3] = NAN;
    EXPECT(q4ref_linear_fwd_truth(x, w, scales, NULL, 1, 4, 4, 4, dv, db, &e), ARG,
           "scales[3] = nan must be finite");
    EXPECT(q4ref_dequant_flat(flat, scales, 4, 4, 4, y, &e), ARG, "scales[3] = nan must be finite");
    scales[3] = 0.5f;
    x[3] = NAN;
    EXPECT(q4ref_requant_truth(x, scales, 4, 4, 4, codes, flat, &e), ARG,
           "latent[3] = nan; expected a number (NaN is outside the contract)");
    x[3] = 1;
    EXPECT(q4ref_fused_ce(x, labels, 3, 5, 2, y, big, &e), ARG,
           "labels[1] = 5 is out of range: expected a class below V = 5 or a negative ignore index");
    EXPECT(q4ref_fused_ce_truth(x, bad_label, 2, 4, 1, dv, db, dv + 8, db + 8, &e), ARG,
           "labels[1] = 4 is out of range");
    EXPECT(q4ref_fused_ce(x, labels, 0, 5, 2, y, big, &e), ARG, "R = 0 must be at least 1");
    EXPECT(q4ref_fused_ce(x, labels, 3, 0, 2, y, big, &e), ARG, "V = 0 must be at least 1");
    EXPECT(q4ref_fused_ce(x, labels, 3, 6, 0, y, big, &e), ARG,
           "n_valid = 0 must be a finite number greater than 0");
    EXPECT(q4ref_fused_ce_truth(x, labels, 3, 6, NAN, dv, db, dv + 8, db + 32, &e), ARG,
           "n_valid = nan must be a finite number greater than 0");
}
END_TEST

START_TEST(out_of_memory)
{
    /* Every allocation of every entry point that allocates, failed in turn. */
    q4_error e;
    for (int nth = 1; nth <= 2; nth++) {
        q4ref_fault_alloc_at(nth);
        EXPECT(q4ref_linear_fwd_truth(x, w, scales, NULL, 1, 4, 4, 4, dv, db, &e), Q4_ERR_NOMEM,
               nth == 1 ? "could not allocate 32 bytes for x in fp64"
                        : "could not allocate 128 bytes for the weight in fp64");
        q4ref_fault_alloc_at(nth);
        EXPECT(q4ref_linear_bwd_truth(x, w, scales, 1, 4, 4, 4, dv, db, &e), Q4_ERR_NOMEM,
               nth == 1 ? "for dout in fp64" : "for the weight in fp64");
        q4ref_fault_alloc_at(nth);
        EXPECT(q4ref_linear_dw_truth(x, y, 1, 4, 4, dv, db, &e), Q4_ERR_NOMEM,
               nth == 1 ? "for dout in fp64" : "for x in fp64");
    }
    q4ref_fault_alloc_at(1);
    EXPECT(q4ref_linear_fwd(x, w, scales, NULL, 1, 4, 4, 4, y, &e), Q4_ERR_NOMEM,
           "could not allocate 64 bytes for the dequantized weight");
    q4ref_fault_alloc_at(1);
    EXPECT(q4ref_linear_bwd(x, w, scales, 1, 4, 4, 4, y, &e), Q4_ERR_NOMEM,
           "for the dequantized weight");
    q4ref_fault_alloc_at(1);
    EXPECT(q4ref_fused_ce_truth(x, lab0, 1, 4, 1, dv, db, dv + 8, db + 8, &e),
           Q4_ERR_NOMEM, "could not allocate 40 bytes for the per-row losses");
    q4ref_fault_alloc_at(2);   /* the statistical envelope's scratch rows */
    EXPECT(q4ref_fused_ce_truth(x, lab0, 1, 4, 1, dv, db, dv + 8, db + 8, &e),
           Q4_ERR_NOMEM, "bytes for the envelope");   /* 3 x V floats per thread */
    /* A fault fires once: the next call succeeds. */
    ck_assert_int_eq(q4ref_linear_fwd(x, w, scales, NULL, 1, 4, 4, 4, y, &e), Q4_OK);
}
END_TEST

START_TEST(null_error_record)
{
    /* err may be NULL: the status alone comes back, nothing crashes. */
    ck_assert_int_eq(q4ref_linear_fwd(x, w, scales, NULL, 1, 10, 4, 4, y, NULL), Q4_ERR_ARG);
    ck_assert_int_eq(q4ref_requant(x, scales, 4, 4, 4, NULL, NULL, NULL), Q4_ERR_ARG);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("ref.errors");
    TCase *tc = tcase_create("errors");
    tcase_add_checked_fixture(tc, setup, NULL);
    tcase_add_test(tc, shapes);
    tcase_add_test(tc, sizes);
    tcase_add_test(tc, null_pointers);
    tcase_add_test(tc, aliasing);
    tcase_add_test(tc, adamw_arguments);
    tcase_add_test(tc, values);
    tcase_add_test(tc, out_of_memory);
    tcase_add_test(tc, null_error_record);
    suite_add_tcase(s, tc);
    return run_suite(s);
}
