/* test_echo.c: q4_echo, the quoting of user text in messages: printable text as it
 * is, control bytes, invalid UTF-8 and invisible characters escaped, and long text cut
 * to head ... tail on whole characters, never past the buffer. */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "q4_contract.h"

static const char *echo(const char *s)
{
    static char buf[Q4_ECHO_MAX];
    return q4_echo(s, buf, sizeof buf);
}

START_TEST(printable_text_is_kept)
{
    ck_assert_str_eq(echo("cases/smoke.txt"), "cases/smoke.txt");
    ck_assert_str_eq(echo(""), "");
    ck_assert_str_eq(echo("caf\xC3\xA9/\xE6\x97\xA5.txt"), "caf\xC3\xA9/\xE6\x97\xA5.txt");
}
END_TEST

START_TEST(unsafe_bytes_are_escaped)
{
    ck_assert_str_eq(echo("a\x1b[31mred\x07"), "a\\x1B[31mred\\x07");
    ck_assert_str_eq(echo("\xEF\xBB\xBFq4cts"), "\\uFEFFq4cts");
    ck_assert_str_eq(echo("bad\xFF\xC3"), "bad\\xFF\\xC3");
    ck_assert_str_eq(echo("\xE2\x80\xAE" "evil"), "\\u202Eevil");   /* right-to-left override */
    ck_assert_str_eq(echo("\xC2\x9B"), "\\u009B");                /* C1 CSI */
    ck_assert_str_eq(echo("tab\there\n"), "tab\\x09here\\x0A");
}
END_TEST

START_TEST(long_text_keeps_head_and_tail)
{
    char *s = malloc(4001);
    ck_assert_ptr_nonnull(s);
    memset(s, 'a', 4000);
    memcpy(s + 3994, "/c.txt", 7);
    const char *e = echo(s);
    size_t n = strlen(e);
    ck_assert_uint_lt(n, Q4_ECHO_MAX);
    ck_assert_uint_gt(n, Q4_ECHO_MAX - 12);   /* the room is used */
    ck_assert_ptr_nonnull(strstr(e, "aaa...aaa"));
    ck_assert_str_eq(e + n - 6, "/c.txt");
    /* multi-byte characters are never split: the result is valid UTF-8 */
    for (int i = 0; i < 4000; i += 2)
        memcpy(s + i, "\xC3\xA9", 2);
    e = echo(s);
    ck_assert_uint_lt(strlen(e), Q4_ECHO_MAX);
    const unsigned char *u = (const unsigned char *)e;
    for (size_t i = 0; u[i]; i++)
        if (u[i] == 0xC3)
            ck_assert_int_eq(u[++i], 0xA9);
        else
            ck_assert(u[i] == '.');
    /* escapes are not split either: every backslash starts a whole \xNN */
    memset(s, 0x01, 4000);
    e = echo(s);
    for (size_t i = 0; e[i]; i++)
        if (e[i] == '\\')
            ck_assert(!strncmp(e + i, "\\x01", 4));
    free(s);
    char tiny[4];
    ck_assert_str_eq(q4_echo("abcdef", tiny, sizeof tiny), "abc");
}
END_TEST

int main(void)
{
    Suite *s = suite_create("contract.echo");
    TCase *tc = tcase_create("echo");
    tcase_add_test(tc, printable_text_is_kept);
    tcase_add_test(tc, unsafe_bytes_are_escaped);
    tcase_add_test(tc, long_text_keeps_head_and_tail);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
