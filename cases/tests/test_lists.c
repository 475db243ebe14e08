/* test_lists.c: selection and case lists: include/exclude globs, custom names,
 * shards (disjoint, union = whole list), case-list files (comments, errors naming
 * file:line), and the shipped lists (mustpass, smoke, perf) resolving. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "q4case.h"

static q4_case *all_cases(size_t *n)
{
    q4_case *all;
    q4_error err = {0};
    ck_assert_int_eq(q4_case_all(&all, n, &err), Q4_OK);
    return all;
}

static size_t count_prefix(const q4_case *c, size_t n, const char *prefix)
{
    size_t k = 0;
    for (size_t i = 0; i < n; i++) k += strncmp(c[i].name, prefix, strlen(prefix)) == 0;
    return k;
}

START_TEST(select_all_and_shards)
{
    size_t n_all, n;
    q4_case *all = all_cases(&n_all), *sel;
    q4_error err = {0};
    ck_assert_int_ge(n_all, 100);
    ck_assert_int_eq(q4_case_select(NULL, 0, NULL, 0, 0, 1, 42, &sel, &n, &err), Q4_OK);
    ck_assert_uint_eq(n, n_all);
    for (size_t i = 0; i < n; i++) {
        ck_assert_str_eq(sel[i].name, all[i].name);
        ck_assert_uint_eq(sel[i].seed, 42);
    }
    free(sel);
    static const int shard_counts[] = {2, 3, 7, 1000};
    for (size_t s = 0; s < sizeof shard_counts / sizeof shard_counts[0]; s++) {
        int sn = shard_counts[s];
        int *seen = calloc(n_all, sizeof *seen);
        size_t total = 0;
        for (int si = 0; si < sn; si++) {
            ck_assert_int_eq(q4_case_select(NULL, 0, NULL, 0, si, sn, 0, &sel, &n, &err), Q4_OK);
            for (size_t i = 0; i < n; i++) {
                size_t j = 0;
                while (j < n_all && strcmp(all[j].name, sel[i].name) != 0) j++;
                ck_assert_uint_lt(j, n_all);
                ck_assert_uint_eq(j % (size_t)sn, (size_t)si);   /* index % n == i */
                seen[j]++;
            }
            total += n;
            free(sel);
        }
        ck_assert_uint_eq(total, n_all);
        for (size_t j = 0; j < n_all; j++) ck_assert_int_eq(seen[j], 1);   /* disjoint, complete */
        free(seen);
    }
    free(all);
}
END_TEST

START_TEST(shard_out_of_range)
{
    q4_case *sel;
    size_t n;
    q4_error err = {0};
    ck_assert_int_eq(q4_case_select(NULL, 0, NULL, 0, 2, 2, 0, &sel, &n, &err), Q4_ERR_ARG);
    ck_assert_str_eq(err.msg, "shard 2 of 2 is out of range; expected 0 <= i < n");
    ck_assert_int_eq(q4_case_select(NULL, 0, NULL, 0, 0, 0, 0, &sel, &n, &err), Q4_ERR_ARG);
    ck_assert_int_eq(q4_case_select(NULL, 0, NULL, 0, -1, 3, 0, &sel, &n, &err), Q4_ERR_ARG);
}
END_TEST

START_TEST(include_exclude)
{
    size_t n_all, n;
    q4_case *all = all_cases(&n_all), *sel;
    q4_error err = {0};
    const char *ce[] = {"q4cts.fused_ce.*"};
    ck_assert_int_eq(q4_case_select(ce, 1, NULL, 0, 0, 1, 0, &sel, &n, &err), Q4_OK);
    ck_assert_uint_eq(n, count_prefix(all, n_all, "q4cts.fused_ce."));
    ck_assert_uint_gt(n, 0);
    free(sel);

    /* "q4cts.linear_q4gsw.*" is the forward op only: the dot keeps backward out. */
    const char *fwd[] = {"q4cts.linear_q4gsw.*"};
    ck_assert_int_eq(q4_case_select(fwd, 1, NULL, 0, 0, 1, 0, &sel, &n, &err), Q4_OK);
    for (size_t i = 0; i < n; i++) ck_assert_str_eq(sel[i].op, "linear_q4gsw");
    free(sel);

    /* Overlapping includes select a case once; excludes win. */
    const char *inc[] = {"q4cts.linear_*", "*.large.*", "q4cts.linear_dW.large.m2048_n64_k64"};
    const char *exc[] = {"*.large.*", "q4cts.linear_q4gsw_backward.*"};
    ck_assert_int_eq(q4_case_select(inc, 3, exc, 2, 0, 1, 0, &sel, &n, &err), Q4_OK);
    size_t want = 0;
    for (size_t i = 0; i < n_all; i++)
        want += strncmp(all[i].name, "q4cts.linear_", 13) == 0 && !strstr(all[i].name, ".large.") &&
                strcmp(all[i].op, "linear_q4gsw_backward") != 0;
    ck_assert_uint_eq(n, want);
    for (size_t i = 0; i + 1 < n; i++) ck_assert_int_lt(strcmp(sel[i].name, sel[i + 1].name), 0);
    free(sel);

    /* An exclude that matches nothing is fine. */
    const char *none[] = {"q4cts.nothing.*"};
    ck_assert_int_eq(q4_case_select(ce, 1, none, 1, 0, 1, 0, &sel, &n, &err), Q4_OK);
    free(sel);
    free(all);
}
END_TEST

START_TEST(custom_names)
{
    q4_case *sel;
    size_t n;
    q4_error err = {0};
    /* A well-formed name outside the generated set runs, with the seed given. */
    const char *custom[] = {"q4cts.linear_dW.custom.m3_n8_k12", "q4cts.fused_ce.*",
                            "q4cts.linear_dW.custom.k12_n8_m3"};
    ck_assert_int_eq(q4_case_select(custom, 3, NULL, 0, 0, 1, 5, &sel, &n, &err), Q4_OK);
    int found = 0;
    for (size_t i = 0; i < n; i++)
        if (strcmp(sel[i].name, "q4cts.linear_dW.custom.m3_n8_k12") == 0) {
            found++;
            ck_assert_int_eq(sel[i].m, 3);
            ck_assert_uint_eq(sel[i].seed, 5);
        }
    ck_assert_int_eq(found, 1);   /* two spellings, one case */
    free(sel);
    /* A non-canonical spelling of a generated case selects that case. */
    const char *alias[] = {"q4cts.linear_dW.tile_aligned.k32_n16_m8"};
    ck_assert_int_eq(q4_case_select(alias, 1, NULL, 0, 0, 1, 0, &sel, &n, &err), Q4_OK);
    ck_assert_uint_eq(n, 1);
    ck_assert_str_eq(sel[0].name, "q4cts.linear_dW.tile_aligned.m8_n16_k32");
    free(sel);
    /* Excludes apply to custom names too. */
    const char *exc[] = {"*.custom.*"};
    ck_assert_int_eq(q4_case_select(custom, 1, exc, 1, 0, 1, 0, &sel, &n, &err), Q4_OK);
    ck_assert_uint_eq(n, 0);
    free(sel);
}
END_TEST

START_TEST(bad_patterns)
{
    q4_case *sel;
    size_t n;
    q4_error err = {0};
    const char *glob[] = {"q4cts.fused_ce.*", "q4cts.nothing.*"};
    ck_assert_int_eq(q4_case_select(glob, 2, NULL, 0, 0, 1, 0, &sel, &n, &err), Q4_ERR_ARG);
    ck_assert_str_eq(err.msg, "pattern 'q4cts.nothing.*' matches no case; expected a glob over "
                     "names q4cts.<op>.<family>.<params> (see cases/README.md)");
    const char *name[] = {"q4cts.linear_q4gsw.grouped.m5_n10_k16_g16"};
    ck_assert_int_eq(q4_case_select(name, 1, NULL, 0, 0, 1, 0, &sel, &n, &err), Q4_ERR_ARG);
    ck_assert_str_eq(err.msg, "case name 'q4cts.linear_q4gsw.grouped.m5_n10_k16_g16': "
                     "N = 10 must be a multiple of 4");
    const char *word[] = {"fused_ce"};
    ck_assert_int_eq(q4_case_select(word, 1, NULL, 0, 0, 1, 0, &sel, &n, &err), Q4_ERR_ARG);
    ck_assert_ptr_nonnull(strstr(err.msg, "case name 'fused_ce': 1 dot-separated levels"));
}
END_TEST

/* A temporary case-list file with the given text; returns its path (static buffer). */
static const char *write_list(const char *text)
{
    static char path[64];
    snprintf(path, sizeof path, "/tmp/q4cases-test-XXXXXX");
    int fd = mkstemp(path);
    ck_assert_int_ge(fd, 0);
    ck_assert_int_eq(write(fd, text, strlen(text)), (ssize_t)strlen(text));
    close(fd);
    return path;
}

START_TEST(caselist_files)
{
    char **pats;
    size_t n;
    q4_error err = {0};
    char want[Q4_MSG_MAX];
    const char *path = write_list("# comment\n\n  q4cts.fused_ce.*   # trailing comment\r\n"
                                  "q4cts.linear_dW.custom.m3_n8_k12\n\tq4cts.adamw_step.wd_on.n1024_t1_w1\n");
    ck_assert_int_eq(q4_caselist_load(path, &pats, &n, &err), Q4_OK);
    ck_assert_uint_eq(n, 3);
    ck_assert_str_eq(pats[0], "q4cts.fused_ce.*");
    ck_assert_str_eq(pats[1], "q4cts.linear_dW.custom.m3_n8_k12");
    ck_assert_str_eq(pats[2], "q4cts.adamw_step.wd_on.n1024_t1_w1");
    q4_caselist_free(pats, n);
    unlink(path);

    path = write_list("q4cts.fused_ce.*\n# ok\nq4cts.fused_ce.bogus.r1_v4_p0\n");
    ck_assert_int_eq(q4_caselist_load(path, &pats, &n, &err), Q4_ERR_ARG);
    snprintf(want, sizeof want, "%s:3: case name 'q4cts.fused_ce.bogus.r1_v4_p0': unknown family "
             "'bogus' for op fused_ce (families: basic, masked, all_masked, unaligned_v, "
             "large_vocab, many_rows, custom, small_device, random)", path);
    ck_assert_str_eq(err.msg, want);
    unlink(path);

    path = write_list("\n\nq4cts.linaer_dW.*\n");
    ck_assert_int_eq(q4_caselist_load(path, &pats, &n, &err), Q4_ERR_ARG);
    snprintf(want, sizeof want, "%s:3: pattern 'q4cts.linaer_dW.*' matches no case; expected a "
             "glob over names q4cts.<op>.<family>.<params> (see cases/README.md)", path);
    ck_assert_str_eq(err.msg, want);
    unlink(path);

    path = write_list("q4cts.fused_ce.* q4cts.adamw_step.*\n");
    ck_assert_int_eq(q4_caselist_load(path, &pats, &n, &err), Q4_ERR_ARG);
    snprintf(want, sizeof want, "%s:1: 'q4cts.fused_ce.* q4cts.adamw_step.*' has blanks inside; "
             "expected one name or glob per line", path);
    ck_assert_str_eq(err.msg, want);
    unlink(path);

    path = write_list("# nothing but comments\n\n");
    ck_assert_int_eq(q4_caselist_load(path, &pats, &n, &err), Q4_ERR_ARG);
    snprintf(want, sizeof want, "case list '%s' names no case; expected one name or glob per line",
             path);
    ck_assert_str_eq(err.msg, want);
    unlink(path);

    ck_assert_int_eq(q4_caselist_load("/nonexistent/q4.txt", &pats, &n, &err), Q4_ERR_IO);
    ck_assert_str_eq(err.msg, "cannot open case list '/nonexistent/q4.txt': No such file or directory");
}
END_TEST

static q4_case *select_list(const char *file, size_t *count)
{
    char path[512], **pats;
    size_t np;
    q4_case *sel;
    q4_error err = {0};
    snprintf(path, sizeof path, "%s/%s", Q4CASES_DIR, file);
    ck_assert_msg(q4_caselist_load(path, &pats, &np, &err) == Q4_OK, "%s", err.msg);
    ck_assert_msg(q4_case_select((const char *const *)pats, np, NULL, 0, 0, 1, 0, &sel, count,
                                 &err) == Q4_OK, "%s", err.msg);
    q4_caselist_free(pats, np);
    return sel;
}

START_TEST(shipped_lists_resolve)
{
    size_t n_all, n;
    q4_case *all = all_cases(&n_all), *sel;

    /* mustpass: every generated case, so every family of every op. */
    sel = select_list("mustpass.txt", &n);
    ck_assert_uint_eq(n, n_all);
    free(sel);

    /* smoke: small, every op, the upstream three. */
    sel = select_list("smoke.txt", &n);
    ck_assert_uint_le(n, 16);
    for (int o = 0; q4_case_op(o); o++) {
        int found = 0;
        for (size_t i = 0; i < n; i++) found += strcmp(sel[i].op, q4_case_op(o)) == 0;
        ck_assert_msg(found > 0, "smoke.txt has no %s case", q4_case_op(o));
    }
    int upstream = 0;
    for (size_t i = 0; i < n; i++)
        upstream += strcmp(sel[i].name, "q4cts.linear_q4gsw_backward.tile_aligned.m8_n16_k32_g32") == 0 ||
                    strcmp(sel[i].name, "q4cts.linear_q4gsw_backward.grouped.m8_n32_k64_g32") == 0 ||
                    strcmp(sel[i].name, "q4cts.linear_q4gsw_backward.odd_n4_partial_m.m5_n12_k16_g16") == 0;
    ck_assert_int_eq(upstream, 3);
    free(sel);

    /* The nightly sweep: at least 10,000 random cases, every op, all well formed. */
    sel = select_list("sweep.txt", &n);
    ck_assert_uint_ge(n, 10000);
    for (int o = 0; q4_case_op(o); o++) {
        int found = 0;
        for (size_t i = 0; i < n; i++) found += strcmp(sel[i].op, q4_case_op(o)) == 0;
        ck_assert_int_ge(found, 1000);
    }
    for (size_t i = 0; i < n; i++) ck_assert_str_eq(sel[i].family, "random");
    free(sel);

    /* The perf lists are custom shapes: each line must still be a valid name. */
    if (access(Q4CASES_DIR "/perf.txt", R_OK) == 0) {
        sel = select_list("perf.txt", &n);
        ck_assert_uint_gt(n, 0);
        free(sel);
    }
    if (access(Q4CASES_DIR "/perf-smoke.txt", R_OK) == 0) {
        sel = select_list("perf-smoke.txt", &n);
        ck_assert_uint_gt(n, 0);
        free(sel);
    }
    free(all);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("cases.lists");
    TCase *tc = tcase_create("lists");
    tcase_set_timeout(tc, 60);   /* sweep.txt holds 10,010 names; a shared 2-core machine is slow */
    tcase_add_test(tc, select_all_and_shards);
    tcase_add_test(tc, shard_out_of_range);
    tcase_add_test(tc, include_exclude);
    tcase_add_test(tc, custom_names);
    tcase_add_test(tc, bad_patterns);
    tcase_add_test(tc, caselist_files);
    tcase_add_test(tc, shipped_lists_resolve);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
