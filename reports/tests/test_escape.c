/* test_escape.c: hostile strings through the XML and JSON escapers, checked by real
 * parsers: xmllint reads back exactly the text put in (less what XML 1.0 cannot hold,
 * which must come back as U+FFFD), and the strict JSON parser likewise. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jsoncheck.h"
#include "q4report_internal.h"
#include "testutil.h"

/* Markup, both quotes, tab/LF/CR, C0 controls (an ANSI escape among them), DEL,
 * "]]>", valid UTF-8 (2 and 4 bytes), invalid bytes, a truncated sequence, a CESU
 * surrogate, an overlong '/', and U+FFFF which XML forbids. */
static const char hostile[] =
    "a<b>&c\"d'e\tf\ng\rh\x01i\x1b[31mj\x7fk \xc3\xa9 \xff\xfe l ]]> m \xef\xbf\xbf n "
    "\xf0\x9f\x98\x80 o \xe2\x82 p \xed\xa0\x80 q \xc0\xaf r&amp;";

#define FFFD "\xef\xbf\xbd"
/* What an XML parser must give back. */
static const char want_xml[] =
    "a<b>&c\"d'e\tf\ng\rh" FFFD "i" FFFD "[31mj\x7fk \xc3\xa9 " FFFD FFFD " l ]]> m " FFFD " n "
    "\xf0\x9f\x98\x80 o " FFFD FFFD " p " FFFD FFFD FFFD " q " FFFD FFFD " r&amp;";
/* What a JSON parser must give back: controls and U+FFFF survive, bad bytes do not. */
static const char want_json[] =
    "a<b>&c\"d'e\tf\ng\rh\x01i\x1b[31mj\x7fk \xc3\xa9 " FFFD FFFD " l ]]> m \xef\xbf\xbf n "
    "\xf0\x9f\x98\x80 o " FFFD FFFD " p " FFFD FFFD FFFD " q " FFFD FFFD " r&amp;";

START_TEST(utf8_decoder)
{
    uint32_t cp = 0;
    ck_assert_uint_eq(q4rep_utf8_decode((const unsigned char *)"A", 1, &cp), 1);
    ck_assert_uint_eq(cp, 'A');
    ck_assert_uint_eq(q4rep_utf8_decode((const unsigned char *)"\xc3\xa9", 2, &cp), 2);
    ck_assert_uint_eq(cp, 0xE9);
    ck_assert_uint_eq(q4rep_utf8_decode((const unsigned char *)"\xe2\x82\xac", 3, &cp), 3);
    ck_assert_uint_eq(cp, 0x20AC);
    ck_assert_uint_eq(q4rep_utf8_decode((const unsigned char *)"\xf4\x8f\xbf\xbf", 4, &cp), 4);
    ck_assert_uint_eq(cp, 0x10FFFF);
    /* invalid: truncated, overlong, surrogate, beyond U+10FFFF, stray continuation */
    ck_assert_uint_eq(q4rep_utf8_decode((const unsigned char *)"\xe2\x82\xac", 2, &cp), 0);
    ck_assert_uint_eq(q4rep_utf8_decode((const unsigned char *)"\xc0\xaf", 2, &cp), 0);
    ck_assert_uint_eq(q4rep_utf8_decode((const unsigned char *)"\xe0\x80\xaf", 3, &cp), 0);
    ck_assert_uint_eq(q4rep_utf8_decode((const unsigned char *)"\xed\xa0\x80", 3, &cp), 0);
    ck_assert_uint_eq(q4rep_utf8_decode((const unsigned char *)"\xf4\x90\x80\x80", 4, &cp), 0);
    ck_assert_uint_eq(q4rep_utf8_decode((const unsigned char *)"\x80", 1, &cp), 0);
}
END_TEST

START_TEST(xml_escapes_exactly)
{
    q4rep_buf b = {0};
    ck_assert(q4rep_xml_attr(&b, "<&>\"'\t\n\r", Q4REP_NOMAX));
    ck_assert_str_eq(b.data, "&lt;&amp;&gt;&quot;&apos;&#9;&#10;&#13;");
    q4rep_buf_reset(&b);
    ck_assert(q4rep_xml_text(&b, "<&>\"'\t\n\r\x02", Q4REP_NOMAX));
    ck_assert_str_eq(b.data, "&lt;&amp;&gt;&quot;&apos;\t\n&#13;" FFFD);
    q4rep_buf_reset(&b);
    /* max bounds the read: a field with no NUL is not overrun */
    char field[4] = {'a', 'b', 'c', 'd'};
    ck_assert(q4rep_xml_text(&b, field, sizeof field));
    ck_assert_str_eq(b.data, "abcd");
    q4rep_buf_reset(&b);
    ck_assert(q4rep_xml_text(&b, NULL, Q4REP_NOMAX));
    ck_assert_uint_eq(b.len, 0);
    q4rep_buf_free(&b);
}
END_TEST

START_TEST(json_escapes_exactly)
{
    q4rep_buf b = {0};
    ck_assert(q4rep_json_str(&b, "q\"b\\n\n\t\r\x01\x1f\x7f/<", Q4REP_NOMAX));
    ck_assert_str_eq(b.data, "\"q\\\"b\\\\n\\n\\t\\r\\u0001\\u001F\\u007F/<\"");
    q4rep_buf_reset(&b);
    ck_assert(q4rep_json_str(&b, NULL, Q4REP_NOMAX));
    ck_assert_str_eq(b.data, "\"\"");
    q4rep_buf_free(&b);
}
END_TEST

/* Element text and attribute, read back by xmllint. */
START_TEST(xml_round_trip_through_xmllint)
{
    char *dir = tu_tmpdir();
    char *path = tu_path(dir, "hostile.xml");
    q4rep_buf b = {0};
    q4rep_buf_puts(&b, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<r a=\"");
    q4rep_xml_attr(&b, hostile, Q4REP_NOMAX);
    q4rep_buf_puts(&b, "\"><t>");
    q4rep_xml_text(&b, hostile, Q4REP_NOMAX);
    q4rep_buf_puts(&b, "</t></r>\n");
    ck_assert(!b.failed);
    FILE *f = fopen(path, "wb");
    ck_assert_ptr_nonnull(f);
    fwrite(b.data, 1, b.len, f);
    fclose(f);
    ck_assert(tu_xml_wellformed(path));
    char *attr = tu_xpath(path, "string(/r/@a)");
    char *text = tu_xpath(path, "string(/r/t)");
    ck_assert_ptr_nonnull(attr);
    ck_assert_ptr_nonnull(text);
    ck_assert_str_eq(attr, want_xml);
    ck_assert_str_eq(text, want_xml);
    free(attr);
    free(text);
    q4rep_buf_free(&b);
    tu_rmdir_free(dir, path, NULL);
}
END_TEST

START_TEST(json_round_trip_through_parser)
{
    q4rep_buf b = {0};
    q4rep_buf_puts(&b, "{\"s\": ");
    q4rep_json_str(&b, hostile, Q4REP_NOMAX);
    q4rep_buf_puts(&b, "}");
    char why[128] = "";
    jc_value *v = jc_parse(b.data, b.len, why, sizeof why);
    ck_assert_msg(v != NULL, "%s", why);
    const jc_value *s = jc_get(v, "s");
    ck_assert_ptr_nonnull(s);
    ck_assert_int_eq(s->type, JC_STR);
    ck_assert_str_eq(s->str, want_json);
    jc_free(v);
    q4rep_buf_free(&b);
}
END_TEST

/* The checker itself must reject what it is there to catch, or the other tests prove
 * nothing. */
START_TEST(json_checker_rejects_malformed)
{
    static const char *const bad[] = {
        "", "{", "{\"a\":1,}", "[1,]", "[01]", "[1.]", "[.5]", "[1e]", "[NaN]", "[Infinity]",
        "[\"a\nb\"]", "[\"\\x\"]", "[\"\\ud800\"]", "[\"\xff\"]", "{\"a\" 1}", "{a:1}",
        "[1] [2]", "[nul]", "[\"abc]", "[-]", "{\"a\":1 \"b\":2}",
    };
    static const char *const good[] = {
        "{}", "[]", "0", "-0.5e+3", "\"\\ud83d\\ude00\"", "[null,true,false,{\"a\":[1,2]}]",
        " {\"a\" : 1 } \n",
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        jc_value *v = jc_parse(bad[i], strlen(bad[i]), NULL, 0);
        ck_assert_msg(v == NULL, "accepted malformed %s", bad[i]);
    }
    for (size_t i = 0; i < sizeof good / sizeof good[0]; i++) {
        char why[128] = "";
        jc_value *v = jc_parse(good[i], strlen(good[i]), why, sizeof why);
        ck_assert_msg(v != NULL, "rejected %s: %s", good[i], why);
        jc_free(v);
    }
}
END_TEST

START_TEST(buf_grows_and_rolls_back)
{
    q4rep_buf b = {0};
    for (int i = 0; i < 10000; i++)
        ck_assert(q4rep_buf_printf(&b, "%d,", i % 10));
    ck_assert_uint_eq(b.len, 20000);
    ck_assert_uint_eq(strlen(b.data), 20000);
    q4rep_buf_truncate(&b, 3);
    ck_assert_str_eq(b.data, "0,1");
    q4rep_buf_truncate(&b, 100);   /* never grows */
    ck_assert_uint_eq(b.len, 3);
    q4rep_buf_free(&b);
    ck_assert_ptr_null(b.data);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("reports.escape");
    TCase *tc = tcase_create("escape");
    tcase_add_test(tc, utf8_decoder);
    tcase_add_test(tc, xml_escapes_exactly);
    tcase_add_test(tc, json_escapes_exactly);
    tcase_add_test(tc, xml_round_trip_through_xmllint);
    tcase_add_test(tc, json_round_trip_through_parser);
    tcase_add_test(tc, json_checker_rejects_malformed);
    tcase_add_test(tc, buf_grows_and_rolls_back);
    suite_add_tcase(s, tc);
    return tu_run_suite(s);
}
