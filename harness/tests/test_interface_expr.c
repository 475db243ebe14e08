/* test_interface_expr.c: the interface-file expressions (interface_expr.c): values and
 * types of the grammar's every form, and each parse or evaluation error with its
 * sentence. */
#include <check.h>
#include <stdio.h>
#include <string.h>

#include "interface_expr.h"

static const q4h_xname names[] = {
    { "M", Q4H_X_INT, NULL }, { "N", Q4H_X_INT, NULL }, { "K", Q4H_X_INT, NULL },
    { "lr", Q4H_X_REAL, NULL },
    { "big", Q4H_X_INT, NULL },
};
static const q4h_xval values[] = {
    { Q4H_X_INT, 7, 0 }, { Q4H_X_INT, 12, 0 }, { Q4H_X_INT, 36, 0 }, { Q4H_X_REAL, 0, 0.5 },
    { Q4H_X_INT, INT64_MAX, 0 },
};
#define N_NAMES (int)(sizeof names / sizeof names[0])

static q4h_xval value_of(const char *text)
{
    q4h_expr *e;
    char msg[256] = "";
    q4h_xval v = { 0 };
    ck_assert_msg(q4h_expr_parse(text, names, N_NAMES, &e, msg, sizeof msg), "%s: %s", text, msg);
    ck_assert_msg(q4h_expr_eval(e, values, &v, msg, sizeof msg), "%s: %s", text, msg);
    ck_assert_int_eq(q4h_expr_type(e), v.type);
    q4h_expr_free(e);
    return v;
}

static void int_is(const char *text, int64_t want)
{
    q4h_xval v = value_of(text);
    ck_assert_msg(v.type == Q4H_X_INT, "%s is not an integer", text);
    ck_assert_msg(v.i == want, "%s = %lld, expected %lld", text, (long long)v.i, (long long)want);
}

static void real_is(const char *text, double want)
{
    q4h_xval v = value_of(text);
    ck_assert_msg(v.type == Q4H_X_REAL, "%s is not a real", text);
    ck_assert_msg(v.r == want, "%s = %.17g, expected %.17g", text, v.r, want);
}

/* text does not parse, with a message containing `part`. */
static void parse_fails(const char *text, const char *part)
{
    q4h_expr *e = (q4h_expr *)1;
    char msg[512] = "";
    ck_assert_msg(!q4h_expr_parse(text, names, N_NAMES, &e, msg, sizeof msg), "%s parsed", text);
    ck_assert_ptr_null(e);
    ck_assert_msg(strstr(msg, part), "%s: message '%s' lacks '%s'", text, msg, part);
}

/* text parses but its evaluation fails, with a message containing `part`. */
static void eval_fails(const char *text, const char *part)
{
    q4h_expr *e;
    char msg[256] = "";
    q4h_xval v;
    ck_assert_msg(q4h_expr_parse(text, names, N_NAMES, &e, msg, sizeof msg), "%s: %s", text, msg);
    ck_assert_msg(!q4h_expr_eval(e, values, &v, msg, sizeof msg), "%s evaluated", text);
    ck_assert_msg(strstr(msg, part), "%s: message '%s' lacks '%s'", text, msg, part);
    q4h_expr_free(e);
}

START_TEST(arithmetic)
{
    int_is("64", 64);
    int_is("M", 7);
    int_is("M + N * K", 7 + 12 * 36);
    int_is("(M + N) * K", (7 + 12) * 36);
    int_is("K - N - M", 36 - 12 - 7);          /* left to right */
    int_is("K / N / 2", 1);
    int_is("-M", -7);
    int_is("--M", 7);
    int_is("-M * -2", 14);
    int_is("M / 2", 3);                         /* truncates */
    int_is("-M / 2", -3);                       /* toward zero */
    int_is("\tM\t+ 1 ", 8);
}
END_TEST

START_TEST(functions)
{
    int_is("ceil_div(M, 4)", 2);
    int_is("ceil_div(8, 4)", 2);
    int_is("ceil_div(0, 4)", 0);
    int_is("ceil_div(-7, 4)", -1);
    int_is("align(M, 4)", 8);
    int_is("align(N, 4)", 12);
    int_is("min(M, N)", 7);
    int_is("max(M, N)", 12);
    int_is("max(min(M, N), ceil_div(K, 8) * 2)", 10);
    int_is("ceil_div ( M , 4 )", 2);
    real_is("min(lr, 1)", 0.5);
    real_is("max(lr, 1)", 1.0);
    real_is("min(2, lr)", 0.5);
    real_is("max(lr, 0.25)", 0.5);
}
END_TEST

START_TEST(reals)
{
    real_is("lr", 0.5);
    real_is("1.5", 1.5);
    real_is("2e3", 2000.0);
    real_is("2.5E-1", 0.25);
    real_is("1e+2", 100.0);
    real_is("lr * 4", 2.0);                     /* real with integer: real */
    real_is("M + lr", 7.5);
    real_is("M - lr", 6.5);
    real_is("M / 2.0", 3.5);                    /* a real divides exactly */
    real_is("-lr", -0.5);
}
END_TEST

START_TEST(constants)
{
    q4h_xval v;
    char msg[64];
    q4h_expr *e = q4h_expr_constant((q4h_xval){ Q4H_X_REAL, 0, 0.125 });
    ck_assert_ptr_nonnull(e);
    ck_assert_int_eq(q4h_expr_type(e), Q4H_X_REAL);
    ck_assert(q4h_expr_eval(e, NULL, &v, msg, sizeof msg));
    ck_assert(v.r == 0.125);
    q4h_expr_free(e);
    ck_assert(q4h_xval_real((q4h_xval){ Q4H_X_INT, -3, 0 }) == -3.0);

    ck_assert(q4h_expr_parse("ceil_div(100, 8) * 4", names, N_NAMES, &e, msg, sizeof msg));
    ck_assert(q4h_expr_constant_value(e, &v));
    ck_assert(v.type == Q4H_X_INT && v.i == 52);
    q4h_expr_free(e);
    ck_assert(q4h_expr_parse("4 + M", names, N_NAMES, &e, msg, sizeof msg));
    ck_assert(!q4h_expr_constant_value(e, &v));    /* names a parameter */
    q4h_expr_free(e);
    ck_assert(q4h_expr_parse("4 / 0", names, N_NAMES, &e, msg, sizeof msg));
    ck_assert(!q4h_expr_constant_value(e, &v));    /* constant, but no value */
    q4h_expr_free(e);
}
END_TEST

START_TEST(parse_errors)
{
    parse_fails("", "at character 1: the expression ends where a value was expected");
    parse_fails("M +", "at character 4: the expression ends");
    parse_fails("numel", "unknown name 'numel' (this op has: M N K lr big;");
    parse_fails("M + Nx", "at character 5: unknown name 'Nx'");
    parse_fails("M N", "at character 3: unexpected 'N' after a complete expression");
    parse_fails("(M + 1", "expected ')'");
    parse_fails("M # 2", "unexpected '#' after");
    parse_fails("* 2", "unexpected '*'; expected a number, a name or '('");
    parse_fails("ceil_div M", "expected '(' after ceil_div");
    parse_fails("ceil_div(M 4)", "expected ',' between the arguments of ceil_div");
    parse_fails("min(M, 4", "expected ')' after the arguments of min");
    parse_fails("ceil_div(lr, 2)", "ceil_div takes integers, not reals");
    parse_fails("align(4, 2.0)", "align takes integers, not reals");
    parse_fails("1.", "expected a digit after '.'");
    parse_fails("1e", "expected the exponent's digits");
    parse_fails("1e-", "expected the exponent's digits");
    parse_fails("1e999", "is not a finite double");
    parse_fails("9223372036854775808", "does not fit in 64 bits");
    int_is("9223372036854775807", INT64_MAX);
    parse_fails("min(ceil_div(M 4), 2)", "expected ','");  /* the first error is kept */

    char deep[2 * Q4H_EXPR_MAX_DEPTH + 8] = "";
    for (int i = 0; i < Q4H_EXPR_MAX_DEPTH + 1; i++)
        strcat(deep, "(");
    strcat(deep, "1");
    parse_fails(deep, "nested deeper than 64 levels");
    char neg[Q4H_EXPR_MAX_DEPTH + 8] = "";
    for (int i = 0; i < Q4H_EXPR_MAX_DEPTH; i++)
        strcat(neg, "-");
    parse_fails(strcat(neg, "1"), "nested deeper");

    char long_text[Q4H_EXPR_MAX_CHARS + 2];
    memset(long_text, '1', sizeof long_text - 1);
    long_text[sizeof long_text - 1] = '\0';
    parse_fails(long_text, "the expression has 4097 characters; at most 4096 are allowed");
}
END_TEST

START_TEST(eval_errors)
{
    eval_fails("M / (N - 12)", "division by zero (7 / 0)");
    eval_fails("lr / 0", "division by zero (0.5 / 0)");
    eval_fails("ceil_div(M, 0)", "ceil_div(7, 0): the divisor must be > 0");
    eval_fails("align(M, -4)", "align(7, -4): the divisor must be > 0");
    eval_fails("big + 1", "overflows 64-bit integers");
    eval_fails("-big - 2", "overflows 64-bit integers");
    eval_fails("big * 2", "overflows 64-bit integers");
    eval_fails("align(big, 2)", "overflows 64-bit integers");
    eval_fails("(-big - 1) / -1", "overflows 64-bit integers");
    eval_fails("-(-big - 1)", "overflows 64-bit integers");
    eval_fails("1e300 * 1e300", "is not finite");
    eval_fails("ceil_div(M / 0, 2)", "division by zero");      /* inside an argument */
    eval_fails("1 + M / 0", "division by zero");
    eval_fails("1 + -(M / 0)", "division by zero");
}
END_TEST

/* Comparisons, logic, % and c ? a : b (docs/interface-format.md, "Expressions"). */
START_TEST(conditionals)
{
    int_is("N % 8", 4);
    int_is("K % 8 == 4", 1);
    int_is("-M % 4", -3);                       /* C's: the sign of the dividend */
    int_is("M % -1", 0);
    int_is("N == 12", 1);
    int_is("N != 12", 0);
    int_is("M < N", 1);
    int_is("M <= 7", 1);
    int_is("M > 7", 0);
    int_is("M >= 8", 0);
    int_is("lr < 1", 1);                        /* a real compared: an integer */
    int_is("lr == 0.5", 1);
    int_is("M + 1 == 8 && N * 3 == K", 1);      /* arithmetic binds tighter */
    int_is("M == 1 || N == 12 && K == 0", 0 || (1 && 0));   /* && before || */
    int_is("(M == 1 || N == 12) && K == 36", 1);
    int_is("!(M == 7)", 0);
    int_is("!0 + !5", 1);
    int_is("!lr", 0);
    int_is("M > 4 ? N : K", 12);
    int_is("M > 8 ? N : K", 36);
    int_is("M == 1 ? 1 : M == 7 ? 2 : 3", 2);  /* right-associative */
    int_is("(M > 4 ? N : K) * 2", 24);
    int_is("min(M > 4 ? 1 : 2, 3)", 1);
    real_is("M > 4 ? lr : 2", 0.5);             /* a real branch makes it real */
    real_is("M > 8 ? lr : 2", 2.0);
    /* only the branch taken, and && and || only as far as they must go */
    int_is("N - 12 == 0 ? 0 : M / (N - 12)", 0);
    int_is("N == 12 || M / 0 == 1", 1);
    int_is("N != 12 && M / 0 == 1", 0);
    eval_fails("N == 12 && M / 0 == 1", "division by zero");
    eval_fails("M % (N - 12)", "division by zero (7 % 0)");
    parse_fails("lr % 2", "% takes integers, not reals");
    parse_fails("M < N < K", "comparisons do not chain");
    parse_fails("M = 7", "'=' is not an operator: compare with ==");
    parse_fails("M & 1", "'&' is not an operator: logic is && and ||");
    parse_fails("M > 4 ? N", "expected ':' after the value of a true condition");
    parse_fails("M ? : N", "unexpected ':'; expected a number");
    char chain[8 * (Q4H_EXPR_MAX_DEPTH + 2)] = "";
    for (int i = 0; i < Q4H_EXPR_MAX_DEPTH + 1; i++)
        strcat(chain, "M ? 1 : ");
    parse_fails(strcat(chain, "0"), "nested deeper than 64 levels");
    /* a real dispatch rule fits: 1,024 characters and more */
    char rule[Q4H_EXPR_MAX_CHARS + 1] = "";
    while (strlen(rule) + 40 < Q4H_EXPR_MAX_CHARS)
        strcat(rule, "(K % 8 == 0 ? ceil_div(N, 64) : 0) + ");
    int_is(strcat(rule, "1"), 1);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("interface_expr");
    TCase *tc = tcase_create("expr");
    tcase_add_test(tc, arithmetic);
    tcase_add_test(tc, functions);
    tcase_add_test(tc, reals);
    tcase_add_test(tc, constants);
    tcase_add_test(tc, parse_errors);
    tcase_add_test(tc, eval_errors);
    tcase_add_test(tc, conditionals);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? 1 : 0;
}
