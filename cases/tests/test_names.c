/* test_names.c: the case-name grammar: every generated name round-trips, every
 * family has cases, the upstream names exist, and each kind of bad name is
 * rejected with its exact sentence. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "case_ops.h"
#include "q4case.h"

/* The descriptors whose generated cases the set holds: every op's, then the training
 * cases'. */
static const q4c_op *generating(int i)
{
    if (q4c_op_at(i)) return q4c_op_at(i);
    return q4c_op_at(i - 1) ? q4c_train_desc() : NULL;
}

START_TEST(generated_round_trip)
{
    q4_case *all;
    size_t n;
    q4_error err = {0};
    size_t n_table = 0;
    const q4c_op *op;
    ck_assert_int_eq(q4_case_all(&all, &n, &err), Q4_OK);
    for (int o = 0; (op = generating(o)); o++)
        for (int j = 0; op->generated[j]; j++) {
            /* The tables hold canonical names only (a non-canonical one would not round-trip). */
            q4_case c;
            ck_assert_int_eq(q4_case_parse(op->generated[j], 0, &c, &err), Q4_OK);
            ck_assert_str_eq(c.name, op->generated[j]);
            ck_assert_str_eq(c.op, op->name);
            n_table++;
        }
    ck_assert_uint_eq(n, n_table);
    for (size_t i = 0; i < n; i++) {
        char buf[Q4_CASE_NAME_MAX];
        q4_case again;
        q4_case_format(&all[i], buf, sizeof buf);
        ck_assert_str_eq(buf, all[i].name);
        ck_assert_int_eq(q4_case_parse(buf, 7, &again, &err), Q4_OK);
        ck_assert_str_eq(again.name, buf);
        ck_assert_uint_eq(again.seed, 7);
        ck_assert_int_eq(memcmp(&again.m, &all[i].m, sizeof(int64_t) * 4), 0);
        if (i > 0) ck_assert_int_lt(strcmp(all[i - 1].name, all[i].name), 0);   /* sorted, unique */
    }
    free(all);
}
END_TEST

START_TEST(every_family_has_cases)
{
    int nops = 0, nfam;
    const char *op, *fam;
    q4_case *all;
    size_t n;
    q4_error err = {0};
    ck_assert_int_eq(q4_case_all(&all, &n, &err), Q4_OK);
    for (int o = 0; (op = q4_case_op(o)); o++, nops++) {
        for (nfam = 0; (fam = q4_case_family(op, nfam)); nfam++) {
            int found = 0;
            ck_assert_ptr_nonnull(q4_case_family_doc(op, fam));
            for (size_t i = 0; i < n; i++)
                found += strcmp(all[i].op, op) == 0 && strcmp(all[i].family, fam) == 0;
            ck_assert_msg(found > 0, "no generated case for %s.%s", op, fam);
        }
        ck_assert_int_ge(nfam, 5);
    }
    ck_assert_int_eq(nops, 7);
    ck_assert_ptr_null(q4_case_family("nope", 0));
    ck_assert_ptr_null(q4_case_family_doc("linear_dW", "bias"));   /* forward only */
    free(all);
}
END_TEST

START_TEST(upstream_names)
{
    static const char *const names[] = {
        "q4cts.linear_q4gsw_backward.tile_aligned.m8_n16_k32_g32",
        "q4cts.linear_q4gsw_backward.grouped.m8_n32_k64_g32",
        "q4cts.linear_q4gsw_backward.odd_n4_partial_m.m5_n12_k16_g16",
    };
    q4_case *all;
    size_t n;
    q4_error err = {0};
    ck_assert_int_eq(q4_case_all(&all, &n, &err), Q4_OK);
    for (int j = 0; j < 3; j++) {
        int found = 0;
        for (size_t i = 0; i < n; i++) found += strcmp(all[i].name, names[j]) == 0;
        ck_assert_msg(found == 1, "%s is not generated", names[j]);
    }
    free(all);
}
END_TEST

START_TEST(parsed_fields)
{
    q4_case c;
    q4_error err = {0};
    ck_assert_int_eq(q4_case_parse("q4cts.linear_q4gsw.leading_dims.d2x3x4_n12_k64_g32", 5, &c, &err), Q4_OK);
    ck_assert_str_eq(c.op, "linear_q4gsw");
    ck_assert_str_eq(c.family, "leading_dims");
    ck_assert_int_eq(c.m, 24);
    ck_assert_int_eq(c.nlead, 3);
    ck_assert_int_eq(c.lead[0], 2);
    ck_assert_int_eq(c.lead[2], 4);
    ck_assert_int_eq(c.n, 12);
    ck_assert_int_eq(c.k, 64);
    ck_assert_int_eq(c.gs, 32);
    ck_assert_int_eq(c.bias, 0);
    ck_assert_uint_eq(c.seed, 5);
    ck_assert_int_eq(q4_case_parse("q4cts.fused_ce.masked.r8_v130_p25", 0, &c, &err), Q4_OK);
    ck_assert_int_eq(c.r, 8);
    ck_assert_int_eq(c.v, 130);
    ck_assert_int_eq(c.mask_pct, 25);
    ck_assert_int_eq(q4_case_parse("q4cts.adamw_step.late_step.n1024_t10000_w1", 0, &c, &err), Q4_OK);
    ck_assert_int_eq(c.numel, 1024);
    ck_assert_int_eq(c.step, 10000);
    ck_assert_int_eq(c.wd, 1);
    for (int i = 0; i < Q4_CASE_LIMITS; i++)
        ck_assert_int_eq(c.limit[i], 0);
    ck_assert(!q4_case_has_limits(&c));
    ck_assert_int_eq(q4_case_parse("q4cts.linear_dW.small_device.m4_n4_k4_binding4096_shared16384",
                                   0, &c, &err), Q4_OK);
    ck_assert(q4_case_has_limits(&c));
    ck_assert_int_eq(c.limit[Q4_LIMIT_GROUPS], 0);
    ck_assert_int_eq(c.limit[Q4_LIMIT_BINDING], 4096);
    ck_assert_int_eq(c.limit[Q4_LIMIT_SHARED], 16384);
    ck_assert_int_eq(c.limit[Q4_LIMIT_INVOCATIONS], 0);
    ck_assert_str_eq(q4_case_limit_key(Q4_LIMIT_INVOCATIONS), "invocations");
    ck_assert_ptr_null(q4_case_limit_key(Q4_CASE_LIMITS));
    ck_assert_ptr_null(q4_case_limit_key(-1));
}
END_TEST

/* Accepted spellings that are not canonical: any token order, b0, m with d. */
START_TEST(canonical_form)
{
    static const char *const pairs[][2] = {
        {"q4cts.linear_dW.custom.k4_n4_m1", "q4cts.linear_dW.custom.m1_n4_k4"},
        {"q4cts.linear_q4gsw.custom.g4_b0_m1_n4_k4", "q4cts.linear_q4gsw.custom.m1_n4_k4_g4"},
        {"q4cts.linear_q4gsw.bias.b1_m1_n4_k4_g4", "q4cts.linear_q4gsw.bias.m1_n4_k4_g4_b1"},
        {"q4cts.linear_dW.leading_dims.m6_d2x3_n4_k4", "q4cts.linear_dW.leading_dims.d2x3_n4_k4"},
        {"q4cts.fused_ce.custom.p0_v3_r2", "q4cts.fused_ce.custom.r2_v3_p0"},
        {"q4cts.adamw_step.custom.w0_t3_n5", "q4cts.adamw_step.custom.n5_t3_w0"},
        {"q4cts.adamw_step.custom.w0_t3_n5.ordinary", "q4cts.adamw_step.custom.n5_t3_w0"},
        {"q4cts.adamw_step.custom.w0_t3_n5.lr0", "q4cts.adamw_step.custom.n5_t3_w0.lr0"},
        /* device limits follow the op's keys, in the order groups binding shared invocations */
        {"q4cts.dequantize.small_device.invocations128_groups3_n8_k8_g4_binding64",
         "q4cts.dequantize.small_device.n8_k8_g4_groups3_binding64_invocations128"},
        {"q4cts.fused_ce.small_device.shared16384_r2_v3_p0.big_logits",
         "q4cts.fused_ce.small_device.r2_v3_p0_shared16384.big_logits"},
    };
    for (size_t i = 0; i < sizeof pairs / sizeof pairs[0]; i++) {
        q4_case c;
        q4_error err = {0};
        ck_assert_msg(q4_case_parse(pairs[i][0], 0, &c, &err) == Q4_OK, "%s", err.msg);
        ck_assert_str_eq(c.name, pairs[i][1]);
    }
}
END_TEST

/* Each bad name and the sentence after "case name '<name>': ". */
static const char *const rejected[][2] = {
    {"q4cts.linear_q4gsw.grouped.m5_n10_k16_g16", "N = 10 must be a multiple of 4"},
    {"q4cts.foo.basic.r1_v4_p0",
     "unknown op 'foo' (ops: adamw_step, dequantize, fused_ce, linear_dW, linear_q4gsw, "
     "linear_q4gsw_backward, q4gsw_requant)"},
    {"q4cts.linear_dW.x.m1_n4_k4",
     "unknown family 'x' for op linear_dW (families: tile_aligned, odd_n4, partial_m, "
     "odd_n4_partial_m, leading_dims, large, custom, small_device, random)"},
    {"q4cts.linear_dW.custom.m1_n4", "missing parameter k; op linear_dW takes m|d n k"},
    {"q4cts.linear_q4gsw.custom.n4_k4_g4",
     "missing parameter m (or d<A>x<B>..); op linear_q4gsw takes m|d n k g [b]"},
    {"q4cts.fused_ce.custom.r4_v8", "missing parameter p; op fused_ce takes r v p"},
    {"q4cts.linear_dW.custom.M1_n4_k4",
     "bad parameter 'M1': expected a lowercase key and a number, e.g. m8 or d2x3"},
    {"q4cts.linear_dW.custom.m_n4_k4",
     "bad parameter 'm': expected a lowercase key and a number, e.g. m8 or d2x3"},
    {"q4cts.linear_dW.custom.m1_n4_k4x", "bad parameter 'k4x': expected a number after 'x'"},
    {"q4cts.linear_dW.custom.m1_n4_k4y",
     "bad parameter 'k4y': unexpected 'y'; expected digits or 'x' between leading dims"},
    {"q4cts.linear_q4gsw_backward.custom.m1_n4_k4_g4_b1",
     "unknown parameter 'b' in 'b1' for op linear_q4gsw_backward (parameters: m|d n k g)"},
    {"q4cts.dequantize.custom.n4_k4_g4_mm1",
     "unknown parameter 'mm' in 'mm1' for op dequantize (parameters: n k g)"},
    {"q4cts.linear_dW.custom.m1.5.n4_k4",
     "6 dot-separated levels; expected 4 or 5: q4cts.<op>.<family>.<params>[.<values>] "
     "(parameters are separated by '_', never '.')"},
    {"q4cts.linear_dW.custom.m1.5_n4_k4",
     "unknown value class '5_n4_k4' for op linear_dW (value classes: ordinary, wide, tiny)"},
    {"q4cts.linear_dW.custom",
     "3 dot-separated levels; expected 4 or 5: q4cts.<op>.<family>.<params>[.<values>]"},
    {"dEQP.linear_dW.custom.m1_n4_k4", "starts with 'dEQP'; expected the prefix q4cts"},
    {"q4cts.linear_dW.custom.m1__n4_k4",
     "empty parameter; parameters are separated by a single '_'"},
    {"q4cts.linear_dW.custom.m1_n4_k4_", "empty parameter; parameters are separated by a single '_'"},
    {"q4cts.linear_dW.custom.m1_m2_n4_k4", "parameter m is given twice"},
    {"q4cts.linear_dW.custom.m01_n4_k4",
     "the number '01' in parameter 'm01' has a leading zero"},
    {"q4cts.linear_dW.custom.m2x3_n4_k4", "parameter 'm2x3': only d takes a list (d<A>x<B>..)"},
    {"q4cts.linear_dW.custom.d1x1x1x1x1_n4_k4",
     "parameter 'd1x1x1x1x1' lists more than 4 leading dims"},
    {"q4cts.linear_dW.custom.m99999999999999_n4_k4",
     "the number in parameter 'm99999999999999' is above 2^40"},
    {"q4cts.linear_dW.custom.m6_d2x4_n4_k4",
     "M = 6 must equal the product of the leading dims (8)"},
    {"q4cts.linear_dW.custom.d2x0_n4_k4", "leading dim 0 must be in 1..2^40"},
    {"q4cts.linear_dW.custom.m0_n4_k4", "M = 0 must be at least 1"},
    {"q4cts.dequantize.custom.n4_k24_g16",
     "K = 24 must be a multiple of the group size gs = 16"},
    {"q4cts.dequantize.custom.n4_k6_g2", "K = 6 must be a multiple of 4"},
    {"q4cts.linear_q4gsw.custom.m1_n4_k4_g4_b2", "b2: expected b0 or b1"},
    {"q4cts.fused_ce.custom.r4_v8_p101", "p = 101 must be a percentage in 0..100"},
    {"q4cts.fused_ce.custom.r1_v3000000000_p0",
     "V = 3000000000 must fit an int32 label (at most 2147483647)"},
    {"q4cts.fused_ce.custom.r0_v8_p0", "R = 0 must be at least 1"},
    {"q4cts.adamw_step.custom.n4_t0_w1", "t = 0 must be a step in 1..2^40"},
    {"q4cts.adamw_step.custom.n4_t1_w2", "w2: expected w0 or w1"},
    {"q4cts.adamw_step.custom.n0_t1_w1", "numel = 0 must be at least 1"},
    /* value classes */
    {"q4cts.linear_dW.random.s1.wide",
     "family random decides the values itself; it takes no value class ('wide' given)"},
    {"q4cts.linear_dW.random.m1_n4_k4",
     "unknown parameter 'm' in 'm1' for op linear_dW (parameters: s (family random))"},
    {"q4cts.linear_dW.custom.m1_n4_k4.nope",
     "unknown value class 'nope' for op linear_dW (value classes: ordinary, wide, tiny)"},
    {"q4cts.q4gsw_requant.ties.n16_k32_g32.wide",
     "family ties decides the values itself; it takes no value class ('wide' given)"},
    {"q4cts.dequantize.custom.n16_k32_g32.scale_denormal",
     "scales[14] = 5.87747e-39 is denormal; a scale must be 0 or at least 2^-126"},
    {"q4cts.linear_q4gsw.custom.m2_n16_k32_g32.scale_inf", "scales[2] = -inf must be finite"},
    {"q4cts.linear_q4gsw_backward.custom.m2_n16_k32_g32.scale_nan", "scales[13] = nan must be finite"},
    {"q4cts.fused_ce.custom.r4_v8_p0.label_v",
     "labels[1] = 8 is out of range: expected a class below V = 8 or a negative ignore index"},
    {"q4cts.fused_ce.custom.r4_v8_p0.n_valid_zero", "n_valid = 0 must be a finite number greater than 0"},
    {"q4cts.fused_ce.custom.r4_v8_p0.n_valid_negative", "n_valid = -1 must be a finite number greater than 0"},
    {"q4cts.fused_ce.custom.r4_v8_p0.n_valid_nan", "n_valid = nan must be a finite number greater than 0"},
    {"q4cts.fused_ce.custom.r4_v8_p0.n_valid_inf", "n_valid = inf must be a finite number greater than 0"},
    /* family rules */
    {"q4cts.linear_q4gsw.odd_n4.m8_n16_k32_g32", "family odd_n4 needs N % 8 != 0 (N = 16)"},
    {"q4cts.linear_q4gsw.partial_m.m16_n16_k32_g32", "family partial_m needs M % 8 != 0 (M = 16)"},
    {"q4cts.linear_q4gsw.odd_n4_partial_m.m8_n12_k32_g32",
     "family odd_n4_partial_m needs M % 8 != 0 (M = 8)"},
    {"q4cts.linear_q4gsw.grouped.m8_n16_k32_g32",
     "family grouped needs K / gs >= 2 (K = 32, gs = 32)"},
    {"q4cts.linear_q4gsw.tile_aligned.m5_n16_k32_g32", "family tile_aligned needs M % 8 == 0 (M = 5)"},
    {"q4cts.linear_q4gsw.tile_aligned.m8_n8_k32_g32", "family tile_aligned needs N % 16 == 0 (N = 8)"},
    {"q4cts.dequantize.tile_aligned.n16_k16_g16", "family tile_aligned needs K % 32 == 0 (K = 16)"},
    {"q4cts.linear_q4gsw.bias.m8_n16_k32_g32", "family bias needs b1 (a bias)"},
    {"q4cts.linear_dW.leading_dims.d6_n4_k4",
     "family leading_dims needs at least two leading dims, e.g. d2x3 (got one)"},
    {"q4cts.linear_dW.leading_dims.m6_n4_k4",
     "family leading_dims needs at least two leading dims, e.g. d2x3 (got none)"},
    {"q4cts.linear_dW.large.m8_n16_k32", "family large needs M*N*K >= 2^22 (M*N*K = 4096)"},
    {"q4cts.dequantize.large.n16_k32_g32", "family large needs N*K >= 2^20 (N*K = 512)"},
    {"q4cts.adamw_step.large.n4_t1_w1", "family large needs numel >= 2^18 (n4)"},
    {"q4cts.fused_ce.all_masked.r4_v8_p50", "family all_masked needs p100 (got p50)"},
    {"q4cts.fused_ce.basic.r4_v8_p25", "family basic needs p0 (got p25)"},
    {"q4cts.fused_ce.basic.r4_v9_p0", "family basic needs V % 4 == 0 (V = 9)"},
    {"q4cts.fused_ce.masked.r4_v8_p0",
     "family masked needs p to mask between 1 and R-1 rows (p0 masks 0 of 4 rows)"},
    {"q4cts.fused_ce.masked.r2_v8_p90",
     "family masked needs p to mask between 1 and R-1 rows (p90 masks 2 of 2 rows)"},
    {"q4cts.fused_ce.unaligned_v.r4_v8_p0", "family unaligned_v needs V % 4 != 0 (V = 8)"},
    {"q4cts.fused_ce.large_vocab.r4_v1000_p0", "family large_vocab needs V >= 32768 (V = 1000)"},
    {"q4cts.fused_ce.many_rows.r4_v8_p0", "family many_rows needs R >= 256 (R = 4)"},
    {"q4cts.adamw_step.wd_on.n4_t1_w0", "family wd_on needs w1 (got w0)"},
    {"q4cts.adamw_step.wd_off.n4_t1_w1", "family wd_off needs w0 (got w1)"},
    {"q4cts.adamw_step.late_step.n4_t999_w1", "family late_step needs t >= 1000 (got t999)"},
    {"q4cts.adamw_step.unaligned.n8_t1_w1", "family unaligned needs numel % 4 != 0 (n8)"},
    /* device limits (family small_device) */
    {"q4cts.adamw_step.small_device.n8_t1_w1",
     "family small_device needs at least one device limit lowered (groups<G>, binding<B>, "
     "shared<S> or invocations<I>)"},
    {"q4cts.adamw_step.custom.n8_t1_w1_groups2",
     "family custom takes no device limit ('groups2'); lowered limits belong to family "
     "small_device"},
    {"q4cts.adamw_step.random.s3_binding64",
     "family random takes no device limit ('binding64'); lowered limits belong to family "
     "small_device"},
    {"q4cts.adamw_step.small_device.n8_t1_w1_groups0",
     "device limit 'groups0': 0 is no limit; leave the token out"},
    {"q4cts.adamw_step.small_device.n8_t1_w1_groups02",
     "the number in parameter 'groups02' has a leading zero"},
    {"q4cts.adamw_step.small_device.n8_t1_w1_groups2x2",
     "bad parameter 'groups2x2': a device limit is groups<number>"},
    {"q4cts.adamw_step.small_device.n8_t1_w1_groups2_groups3", "parameter groups is given twice"},
    {"q4cts.adamw_step.small_device.n8_t1_w1_groups9999999999999",
     "the number in parameter 'groups9999999999999' is above 2^40"},
    {"q4cts.adamw_step.small_device.n8_t1_w1_groups4294967296",
     "device limit groups4294967296 must be in 1..4294967295"},
    {"q4cts.adamw_step.small_device.n8_t1_w1_binding8", "device limit binding8 must be in 16..1099511627776"},
    {"q4cts.adamw_step.small_device.n8_t1_w1_shared16383",
     "device limit shared16383 must be in 16384..4294967295"},
    {"q4cts.adamw_step.small_device.n8_t1_w1_invocations64",
     "device limit invocations64 must be in 128..4294967295"},
    /* training cases */
    {"q4cts.train.mlp.m8_k32_v8_g8_t2_l1",
     "unknown family 'mlp' for op train (families: linear1, linear2, linear3)"},
    {"q4cts.train.linear2.m8_k32_v8_g8_t2_l1",
     "missing parameter h: family linear2 has hidden layers of width h"},
    {"q4cts.train.linear1.m8_k32_h8_v8_g8_t2_l1", "family linear1 has no hidden layer: leave h out"},
    {"q4cts.train.linear1.m8_k32_v8_g8_t2", "missing parameter l; op train takes m k [h] v g t l"},
    {"q4cts.train.linear1.m8_k32_v8_g8_t0_l1",
     "t = 0 steps: a training case takes 1..200 steps (the nightly's long cases take 200)"},
    {"q4cts.train.linear1.m8_k32_v8_g8_t201_l1",
     "t = 201 steps: a training case takes 1..200 steps (the nightly's long cases take 200)"},
    {"q4cts.train.linear1.m8_k32_v8_g8_t1_l10001",
     "l = 10001: the learning rate is l * 1e-4 with l in 1..10000"},
    {"q4cts.train.linear1.m8_k32_v8_g8_t1_l1.wide", "unknown value class 'wide' for op train (value classes: ordinary, random_labels, outlier)"},
    {"q4cts.train.linear1.m8_k32_v8_g8_t1_l1_groups4",
     "family linear1 takes no device limit ('groups4'); lowered limits belong to family small_device"},
    {"q4cts.train.linear1.m8_k32_v8_g8_t1_l1_s3", "unknown parameter 's' in 's3' for op train (parameters: m k [h] v g t l)"},
};

/* Training cases (docs/training.md): the fields of a name, the canonical form, each
 * family with cases, the widths of its layers. */
START_TEST(train_names)
{
    q4_case c;
    q4_error err = {0};
    int64_t w[5];
    ck_assert_int_eq(q4_case_parse("q4cts.train.linear2.m32_k64_h16_v12_g8_t5_l300", 3, &c, &err), Q4_OK);
    ck_assert(q4_case_is_train(&c));
    ck_assert_str_eq(c.op, "train");
    ck_assert_int_eq(c.layers, 2);
    ck_assert_int_eq(c.m, 32);
    ck_assert_int_eq(c.k, 64);
    ck_assert_int_eq(c.h, 16);
    ck_assert_int_eq(c.v, 12);
    ck_assert_int_eq(c.gs, 8);
    ck_assert_int_eq(c.step, 5);
    ck_assert_int_eq(c.lr, 300);
    ck_assert_int_eq(q4_case_train_widths(&c, w), 2);
    ck_assert_int_eq(w[0], 64);
    ck_assert_int_eq(w[1], 16);
    ck_assert_int_eq(w[2], 12);
    /* any token order, the default class spelled out: the same canonical name */
    ck_assert_int_eq(q4_case_parse("q4cts.train.linear2.t5_l300_v12_g8_h16_k64_m32.ordinary", 0,
                                   &c, &err), Q4_OK);
    ck_assert_str_eq(c.name, "q4cts.train.linear2.m32_k64_h16_v12_g8_t5_l300");
    ck_assert_int_eq(q4_case_parse("q4cts.train.linear3.m8_k32_h16_v8_g8_t1_l1", 0, &c, &err), Q4_OK);
    ck_assert_int_eq(q4_case_train_widths(&c, w), 3);
    ck_assert_int_eq(w[2], 16);
    ck_assert_int_eq(w[3], 8);
    ck_assert_int_eq(q4_case_parse("q4cts.linear_dW.custom.m3_n4_k8", 0, &c, &err), Q4_OK);
    ck_assert(!q4_case_is_train(&c));
    ck_assert(!q4_case_is_train(NULL));
    /* every model has generated cases */
    q4_case *all;
    size_t n;
    const char *fam;
    ck_assert_int_eq(q4_case_all(&all, &n, &err), Q4_OK);
    for (int f = 0; (fam = q4_case_family("train", f)); f++) {
        int found = 0;
        ck_assert_ptr_nonnull(q4_case_family_doc("train", fam));
        for (size_t i = 0; i < n; i++)
            found += q4_case_is_train(&all[i]) && strcmp(all[i].family, fam) == 0;
        ck_assert_msg(found > 0, "no generated case for train.%s", fam);
    }
    free(all);
}
END_TEST

START_TEST(rejected_names)
{
    for (size_t i = 0; i < sizeof rejected / sizeof rejected[0]; i++) {
        char want[Q4_MSG_MAX];
        q4_case c;
        q4_error err = {0};
        snprintf(want, sizeof want, "case name '%s': %s", rejected[i][0], rejected[i][1]);
        ck_assert_msg(q4_case_parse(rejected[i][0], 0, &c, &err) == Q4_ERR_ARG,
                      "%s was accepted", rejected[i][0]);
        ck_assert_int_eq(err.status, Q4_ERR_ARG);
        ck_assert_str_eq(err.msg, want);
    }
}
END_TEST

START_TEST(long_and_null_names)
{
    char name[300];
    q4_case c;
    q4_error err = {0};
    memset(name, 'a', sizeof name - 1);
    name[sizeof name - 1] = 0;
    ck_assert_int_eq(q4_case_parse(name, 0, &c, &err), Q4_ERR_ARG);
    ck_assert_ptr_nonnull(strstr(err.msg, "299 characters long; a case name has at most 127"));
    ck_assert_int_eq(q4_case_parse(NULL, 0, &c, &err), Q4_ERR_ARG);
    ck_assert_str_eq(err.msg, "case name is NULL; expected q4cts.<op>.<family>.<params>");
}
END_TEST

START_TEST(custom_accepts_any_contract_shape)
{
    q4_case c;
    q4_error err = {0};
    ck_assert_int_eq(q4_case_parse("q4cts.linear_dW.custom.m3000_n44_k96", 0, &c, &err), Q4_OK);
    ck_assert_int_eq(q4_case_parse("q4cts.linear_q4gsw.custom.m1_n4_k4_g4_b1", 0, &c, &err), Q4_OK);
    ck_assert_int_eq(q4_case_parse("q4cts.fused_ce.custom.r1_v1_p100", 0, &c, &err), Q4_OK);
    ck_assert_int_eq(q4_case_parse("q4cts.linear_q4gsw.large.m300_n264_k512_g128_b1", 0, &c, &err), Q4_OK);
}
END_TEST

/* random.s<N>: the shape and class come from N and the op alone, always legal, and
 * the draws reach the edges the README promises. */
/* A parsed case carries its op's descriptor: every generated case, and a copy of it,
 * names its op by index without strings; a hand-built or edited case is found by name. */
START_TEST(resolved_op)
{
    q4_case *all, c;
    size_t n;
    q4_error err = {0};
    ck_assert_int_eq(q4_case_all(&all, &n, &err), Q4_OK);
    for (size_t i = 0; i < n; i++) {
        ck_assert_ptr_nonnull(all[i].desc);
        ck_assert_ptr_eq(all[i].desc, q4c_op_find(all[i].op));
        ck_assert_ptr_eq(q4c_case_op(&all[i]), all[i].desc);
        int k = q4_case_op_index(&all[i]);
        if (q4_case_is_train(&all[i])) {   /* training is no op: no op table lists it */
            ck_assert_int_eq(k, -1);
            ck_assert_ptr_eq(all[i].desc, q4c_train_desc());
            continue;
        }
        ck_assert_int_ge(k, 0);
        ck_assert_str_eq(q4_case_op(k), all[i].op);
    }
    free(all);
    ck_assert_int_eq(q4_case_parse("q4cts.fused_ce.custom.r1_v8_p0", 0, &c, &err), Q4_OK);
    c.op = "adamw_step";                       /* edited: the descriptor no longer names it */
    ck_assert_ptr_eq(q4c_case_op(&c), q4c_op_find("adamw_step"));
    ck_assert_str_eq(q4_case_op(q4_case_op_index(&c)), "adamw_step");
    memset(&c, 0, sizeof c);                   /* hand-built: no descriptor */
    c.op = "linear_dW";
    ck_assert_ptr_eq(q4c_case_op(&c), q4c_op_find("linear_dW"));
    c.op = "nope";
    ck_assert_ptr_null(q4c_case_op(&c));
    ck_assert_int_eq(q4_case_op_index(&c), -1);
    ck_assert_ptr_null(q4c_case_op(NULL));
}
END_TEST

START_TEST(random_sweeps)
{
    q4_case a, b;
    q4_error err = {0};
    int m1 = 0, odd_n4 = 0, k4 = 0, gs4 = 0, gsk = 0, classes = 0, v1 = 0;
    ck_assert_int_eq(q4_case_parse("q4cts.linear_q4gsw.random.s77", 0, &a, &err), Q4_OK);
    ck_assert_int_eq(q4_case_parse("q4cts.linear_q4gsw.random.s77", 9, &b, &err), Q4_OK);
    ck_assert_str_eq(a.name, "q4cts.linear_q4gsw.random.s77");
    ck_assert(a.m == b.m && a.n == b.n && a.k == b.k && a.gs == b.gs && !strcmp(a.values, b.values));
    for (int i = 0; i < 400; i++) {
        char name[64];
        snprintf(name, sizeof name, "q4cts.linear_q4gsw.random.s%d", i);
        ck_assert_msg(q4_case_parse(name, 0, &a, &err) == Q4_OK, "%s", err.msg);
        m1 += a.m == 1, odd_n4 += a.n % 8 == 4, k4 += a.k == 4;
        gs4 += a.gs == 4, gsk += a.gs == a.k, classes += a.values[0] != 0;
        snprintf(name, sizeof name, "q4cts.fused_ce.random.s%d", i);
        ck_assert_msg(q4_case_parse(name, 0, &a, &err) == Q4_OK, "%s", err.msg);
        v1 += a.v == 1;
    }
    ck_assert(m1 > 50 && odd_n4 > 100 && k4 > 50 && gs4 > 100 && gsk > 100 && v1 > 50);
    ck_assert(classes > 100 && classes < 300);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("cases.names");
    TCase *tc = tcase_create("names");
    tcase_add_test(tc, generated_round_trip);
    tcase_add_test(tc, every_family_has_cases);
    tcase_add_test(tc, upstream_names);
    tcase_add_test(tc, parsed_fields);
    tcase_add_test(tc, canonical_form);
    tcase_add_test(tc, rejected_names);
    tcase_add_test(tc, train_names);
    tcase_add_test(tc, long_and_null_names);
    tcase_add_test(tc, custom_accepts_any_contract_shape);
    tcase_add_test(tc, random_sweeps);
    tcase_add_test(tc, resolved_op);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
