/* test_lint.c: q4spv_lint flags each planted portability bug of spirv/tests/shaders/
 * (a mediump accumulator, a mediump comparison deciding a store, a mediump loop
 * bound, round(), a float mod(), fma's error term) and nothing in
 * clean code; and every built-in kernel of gpu/ validates, reflects to the interface
 * its table row states, and is clean. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "q4spv_lint.h"
#include "q4spv_reflect.h"
#include "q4vk.h"
#include "spv_test_file.h"

static void lint_words(const uint32_t *w, size_t n, q4spv_lint_report *r)
{
    q4spv_module m;
    q4_error err = { 0 };
    ck_assert_msg(q4spv_parse(w, n, &m, &err) == Q4_OK, "%s", err.msg);
    ck_assert_msg(q4spv_lint(&m, r, &err) == Q4_OK, "%s", err.msg);
    q4spv_module_free(&m);
}

/* Lints test module name.spv into r and its text; asserts it has `findings` findings. */
static void lint_file(const char *name, int findings, q4spv_lint_report *r, char *text,
                      size_t size)
{
    size_t n;
    char file[128];
    snprintf(file, sizeof file, "%s.spv", name);
    uint32_t *w = spv_test_load(file, &n);
    lint_words(w, n, r);
    free(w);
    q4spv_lint_text(r, text, size);
    ck_assert_msg(r->total == findings, "%s: %d findings: %s", name, r->total, text);
}

START_TEST(mediump_accumulator_is_flagged)
{
    q4spv_lint_report r;
    char text[2048];
    /* Two findings: the accumulator's sum reaches y, and the mediump t decides whether
     * y[0] is stored. */
    lint_file("lint_mediump", 2, &r, text, sizeof text);
    ck_assert_str_eq(r.f[0].check, "relaxed");
    ck_assert_msg(strstr(r.f[0].msg, "RelaxedPrecision (mediump) value") && strstr(r.f[0].msg, "'acc' (OpVariable") &&
                  strstr(r.f[0].msg, "reaches the store to 'Out' at set 0 binding 1") &&
                  strstr(r.f[0].msg, "fp16"), "%s", r.f[0].msg);
    ck_assert_str_eq(r.f[1].check, "relaxed");
    ck_assert_msg(strstr(r.f[1].msg, "RelaxedPrecision (mediump) value") && strstr(r.f[1].msg, "'t' (OpVariable") &&
                  strstr(r.f[1].msg, "decides the branch on") && strstr(r.f[1].msg, "(OpFOrdGreaterThan") &&
                  strstr(r.f[1].msg, "which guards a store to 'Out' at set 0 binding 1"), "%s", r.f[1].msg);
}
END_TEST

/* A mediump loop bound reaches the stored sum through the loop (implicit flow); a
 * mediump branch that only sets an unused local is not a finding. */
START_TEST(mediump_loop_bound_is_flagged)
{
    q4spv_lint_report r;
    char text[2048];
    lint_file("lint_branch", 1, &r, text, sizeof text);
    ck_assert_str_eq(r.f[0].check, "relaxed");
    ck_assert_msg(strstr(r.f[0].msg, "'limit'") &&
                  strstr(r.f[0].msg, "reaches the store to 'Out' at set 0 binding 1"), "%s",
                  r.f[0].msg);
}
END_TEST

START_TEST(round_is_flagged)
{
    q4spv_lint_report r;
    char text[2048];
    lint_file("lint_round", 1, &r, text, sizeof text);
    ck_assert_str_eq(r.f[0].check, "round");
    ck_assert_msg(strstr(r.f[0].msg, "round()") && strstr(r.f[0].msg, "roundEven"), "%s",
                  r.f[0].msg);
}
END_TEST

START_TEST(fmod_and_fma_error_term_are_flagged)
{
    q4spv_lint_report r;
    char text[2048];
    lint_file("lint_patterns", 2, &r, text, sizeof text);
    ck_assert_str_eq(r.f[0].check, "fmod");
    ck_assert_msg(strstr(r.f[0].msg, "OpFMod"), "%s", r.f[0].msg);
    ck_assert_str_eq(r.f[1].check, "fma");
    ck_assert_msg(strstr(text, "fmod: ") && strstr(text, "; fma: "), "%s", text);
}
END_TEST

START_TEST(clean_code_is_clean)
{
    q4spv_lint_report r;
    char text[2048];
    lint_file("lint_clean", 0, &r, text, sizeof text);
    ck_assert_str_eq(text, "");
}
END_TEST

/* Every built-in kernel: valid, its table row's interface, no finding. */
START_TEST(builtin_kernels)
{
    int count;
    const q4vk_kernel *k = q4vk_kernels(&count);
    ck_assert_int_ge(count, 14);
    for (int i = 0; i < count; i++) {
        q4_error err = { 0 };
        q4spv_module m;
        q4spv_interface f;
        q4spv_lint_report r;
        char text[2048];
        ck_assert_msg(q4spv_validate(k[i].spirv, k[i].spirv_words, k[i].name, &err) == Q4_OK, "%s: %s",
                      k[i].name, err.msg);
        ck_assert(q4spv_parse(k[i].spirv, k[i].spirv_words, &m, &err) == Q4_OK);
        ck_assert(q4spv_reflect(&m, &f, &err) == Q4_OK);
        ck_assert_msg(f.main_entry >= 0, "%s has no main", k[i].name);
        ck_assert_msg(f.push_bytes == k[i].push_bytes, "%s: push %u, table %u", k[i].name,
                      f.push_bytes, k[i].push_bytes);
        /* bindings 0..n-1 of set 0, each a storage buffer (aliases allowed) */
        uint32_t next = 0;
        for (int b = 0; b < f.n_bindings; b++) {
            ck_assert_msg(f.bindings[b].set == 0 && f.bindings[b].type == Q4SPV_DESC_STORAGE_BUFFER,
                          "%s: binding %d", k[i].name, b);
            ck_assert_msg(f.bindings[b].binding == next || f.bindings[b].binding + 1 == next,
                          "%s: binding %u out of order", k[i].name, f.bindings[b].binding);
            next = f.bindings[b].binding + 1;
        }
        ck_assert_msg(next == k[i].n_bindings, "%s: %u bindings, table %u", k[i].name, next,
                      k[i].n_bindings);
        ck_assert(q4spv_lint(&m, &r, &err) == Q4_OK);
        q4spv_lint_text(&r, text, sizeof text);
        ck_assert_msg(r.total == 0, "%s: %s", k[i].name, text);
        q4spv_module_free(&m);
    }
}
END_TEST

int main(void)
{
    Suite *s = suite_create("spirv.lint");
    TCase *tc = tcase_create("lint");
    tcase_add_test(tc, mediump_accumulator_is_flagged);
    tcase_add_test(tc, mediump_loop_bound_is_flagged);
    tcase_add_test(tc, round_is_flagged);
    tcase_add_test(tc, fmod_and_fma_error_term_are_flagged);
    tcase_add_test(tc, clean_code_is_clean);
    tcase_add_test(tc, builtin_kernels);
    suite_add_tcase(s, tc);
    return run_suite(s);
}
