/* test_json_text.c: the harness reads JSON strictly (json_text.c, RFC 8259). Every
 * leniency of json-c is refused with a sentence that says what and where (single
 * quotes, comments, trailing commas, a key twice, \u0000, NaN and Infinity, numbers out
 * of range, control characters, bad UTF-8, lone surrogates, text after the value), and
 * the readers built on it refuse them too: case.json, a run report, a WebGPU worker
 * frame. Valid JSON, escapes and all, still parses. */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "case_json.h"
#include "json_text.h"
#include "run_json.h"
#include "webgpu_worker.h"

/* Parses text; returns the message ("" when accepted). */
static const char *parse(const char *text, size_t len)
{
    static q4_error err;
    memset(&err, 0, sizeof err);
    json_object *o = q4h_json_parse_object(text, len, "t.json", &err);
    if (o) {
        json_object_put(o);
        return "";
    }
    ck_assert_int_ne(err.status, Q4_OK);
    return err.msg;
}

static void refused(const char *text, const char *why)
{
    const char *msg = parse(text, strlen(text));
    ck_assert_msg(strstr(msg, "t.json is not valid JSON") && strstr(msg, why),
                  "%s: got \"%s\", expected a refusal saying \"%s\"", text, msg, why);
}

static void accepted(const char *text)
{
    const char *msg = parse(text, strlen(text));
    ck_assert_msg(!msg[0], "%s: refused: %s", text, msg);
}

START_TEST(lenient_json_is_refused)
{
    refused("{'a': 1}", "double quotes");
    refused("{\"a\": 'x'}", "double quotes");
    refused("{\"a\": 1 /* c */}", "no comments (line 1, column 9)");
    refused("{\"a\": /* c */ 1}", "no comments");
    refused("// c\n{\"a\": 1}", "no comments");
    refused("{\"a\": 1,}", "comma after its last member");
    refused("{\"a\": [1, 2,]}", "comma after its last element");
    refused("{\"a\": 1, \"a\": 2}", "the key \"a\" twice");
    refused("{\"x\": {\"b\": 1, \"c\": {}, \"b\": {\"d\": 1}}}", "the key \"b\" twice");
    refused("{\"r\": [{\"n\": 1}, {\"n\": 2, \"n\": 3}]}", "line 1, column 18");
    refused("{\"a\": 1, \"\\u0061\": 2}", "the key \"a\" twice");
    refused("{\"a\": \"x\\u0000y\"}", "\\u0000");
    refused("{\"a\\u0000b\": 1}", "\\u0000");
    refused("{\"a\": NaN}", "NaN and Infinity are not JSON");
    refused("{\"a\": Infinity}", "NaN and Infinity are not JSON");
    refused("{\"a\": -Infinity}", "NaN and Infinity");
    refused("{\"a\": nan}", "not JSON");
    refused("{\"a\": 1e400}", "beyond the range of a double");
    refused("{\"a\": -1e400}", "beyond the range of a double");
    refused("{\"a\": 99999999999999999999}", "beyond 64 bits");
    refused("{\"a\": -9223372036854775809}", "beyond 64 bits");
    refused("{\"a\": 01}", "leading zero");
    refused("{\"a\": 1.}", "digit after its '.'");
    refused("{\"a\": .5}", "not JSON");
    refused("{\"a\": +1}", "not JSON");
    refused("{\"a\": 1e}", "exponent");
    refused("{\"a\": \"tab\there\"}", "control character");
    refused("{\"a\": \"\\x41\"}", "unknown escape");
    refused("{\"a\": \"\\ud800\"}", "high surrogate");
    refused("{\"a\": \"\\udc00\"}", "low surrogate");
    refused("{\"a\": \"\xc3\x28\"}", "not UTF-8");
    refused("{\"a\": \"\xc0\xaf\"}", "not UTF-8");
    refused("{\"a\": \"\xed\xa0\x80\"}", "not UTF-8");
    refused("{\"a\": TRUE}", "not JSON");
    refused("{\"a\": 1}x", "text follows the object");
    refused("{\"a\": 1} {}", "text follows the object");
    refused("\xef\xbb\xbf{\"a\": 1}", "not JSON");
    refused("{\"a\": [", "ends in the middle of a value");
    refused("{\"a\": \"x", "ends in the middle of a value");
    refused("", "ends in the middle");
    ck_assert_ptr_nonnull(strstr(parse("{\"a\": 1}\0", 9), "NUL byte"));
    char deep[80] = "";
    for (int i = 0; i < 33; i++)
        strcat(deep, "[");
    char doc[120];
    snprintf(doc, sizeof doc, "{\"a\": %s}", deep);
    refused(doc, "more than 32 deep");
    ck_assert_ptr_nonnull(strstr(parse("[1]", 3), "must hold a JSON object"));
    refused("{\"a\":\n  NaN}", "(line 2, column 3)");
}
END_TEST

START_TEST(valid_json_is_read)
{
    accepted("{}");
    accepted(" \t\r\n{\"a\": [1, -0, 0.5, -1.25e-3, 1E+2, 18446744073709551615, "
             "-9223372036854775808, true, false, null, \"\\\"\\\\\\/\\b\\f\\n\\r\\t\\u00e9"
             "\\ud83d\\ude00\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80\"], \"b\": {\"a\": {}}, "
             "\"c\": [{\"a\": 1}, {\"a\": 2}]} \n");
    accepted("{\"a\": 1, \"A\": 2, \"a \": 3}");
    accepted("{\"a\": 1e308, \"b\": 4.9e-324, \"c\": 123456789012345678901234567890.5}");
    char deep[80] = "";
    for (int i = 0; i < 31; i++)
        strcat(deep, "[");
    char doc[160];
    snprintf(doc, sizeof doc, "{\"a\": %s", deep);
    for (int i = 0; i < 31; i++)
        strcat(doc, "]");
    strcat(doc, "}");
    accepted(doc);
}
END_TEST

/* Numbers that are not finite never reach an output: they become null. */
START_TEST(nonfinite_numbers_are_dropped_before_writing)
{
    json_object *o = json_object_new_object(), *a = json_object_new_array();
    json_object_object_add(o, "nan", json_object_new_double(NAN));
    json_object_object_add(o, "one", json_object_new_double(1));
    json_object_array_add(a, json_object_new_double(-INFINITY));
    json_object_array_add(a, json_object_new_double(2.5));
    json_object_object_add(o, "a", a);
    q4h_json_drop_nonfinite(o);
    ck_assert_str_eq(json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN),
                     "{\"nan\":null,\"one\":1.0,\"a\":[null,2.5]}");
    json_object_put(o);
}
END_TEST

/* The readers that take JSON refuse it too; case.json's sizes are capped. */
START_TEST(readers_refuse_lenient_json)
{
    static const char *const report =
        "{\"q4cts\": {\"format\": 1, \"strict\": false, \"planned\": 0, \"complete\": true, "
        "\"properties\": {}, \"results\": [], \"summary\": {}, \"summary\": {}}}";
    q4h_run_doc doc;
    q4_error err = { 0 };
    ck_assert_int_eq(q4h_run_doc_parse(report, strlen(report), "r.json", &doc, &err), Q4_ERR_ARG);
    ck_assert_ptr_nonnull(strstr(err.msg, "\"summary\" twice"));
    q4h_run_doc_free(&doc);

    static const char *const case_json = "{\"format\": 1, \"name\": 'x'}";
    q4h_dump_meta *m = calloc(1, sizeof *m);
    ck_assert_int_eq(q4h_case_json_parse(case_json, strlen(case_json), "case.json", m, &err),
                     Q4_ERR_ARG);
    ck_assert_ptr_nonnull(strstr(err.msg, "case.json is not valid JSON"));
    /* sizes from case.json: no shape of more than 2^40 elements (overflow-safe), no
     * dot product of more terms, no integer parameter a double cannot hold */
    static const struct { const char *text, *message; } big[] = {
        { "{\"format\": 1, \"name\": \"a\", \"op\": \"b\", \"seed\": 0, \"params\": {}, "
          "\"inputs\": [{\"name\": \"x\", \"dtype\": \"<f4\", \"shape\": [2097152, 1048576]}]}",
          "inputs[0].shape must be a shape of at most 2^40 elements" },
        { "{\"format\": 1, \"name\": \"a\", \"op\": \"b\", \"seed\": 0, \"params\": {}, "
          "\"inputs\": [{\"name\": \"x\", \"dtype\": \"<f4\", "
          "\"shape\": [4294967296, 4294967296, 4294967296, 4294967296]}]}",
          "inputs[0].shape must be a shape of at most 2^40 elements" },
        { "{\"format\": 1, \"name\": \"a\", \"op\": \"b\", \"seed\": 0, \"params\": {}, "
          "\"inputs\": [], \"outputs\": [{\"name\": \"y\", \"kind\": \"real\", \"shape\": [4], "
          "\"dims\": [\"n\"], \"got\": true, \"guard_ok\": true, \"padding_ok\": true, "
          "\"dot_n\": 4611686018427387904}]}",
          "outputs[0].dot_n must be an integer from 0 to 1099511627776" },
        { "{\"format\": 1, \"name\": \"a\", \"op\": \"b\", \"seed\": 0, "
          "\"params\": {\"m\": 18446744073709551615}}",
          "params.m must be an integer from -2^53 to 2^53" },
    };
    for (size_t i = 0; i < sizeof big / sizeof big[0]; i++) {
        ck_assert_int_eq(q4h_case_json_parse(big[i].text, strlen(big[i].text), "case.json", m,
                                             &err), Q4_ERR_ARG);
        ck_assert_msg(strstr(err.msg, big[i].message), "%zu: %s", i, err.msg);
    }
    free(m);

    /* a worker frame: magic, type 3, JSON bytes, no blob; then {"status": NaN} */
    static const char json[] = "{\"status\": NaN}";
    uint8_t frame[16 + sizeof json] = { 0x51, 0x34, 0x57, 0x47, 3, 0, 0, 0,
                                        (uint8_t)(sizeof json - 1), 0, 0, 0, 0, 0, 0, 0 };
    memcpy(frame + 16, json, sizeof json - 1);
    q4h_wg_frame f;
    char why[Q4_MSG_MAX] = "";
    ck_assert_int_eq(q4h_wg_frame_parse(frame, 16 + sizeof json - 1, 0, &f, NULL, why,
                                        sizeof why), Q4H_WG_BAD);
    ck_assert_ptr_nonnull(strstr(why, "NaN and Infinity are not JSON"));
}
END_TEST

int main(void)
{
    Suite *s = suite_create("json_text");
    TCase *tc = tcase_create("strict");
    tcase_add_test(tc, lenient_json_is_refused);
    tcase_add_test(tc, valid_json_is_read);
    tcase_add_test(tc, nonfinite_numbers_are_dropped_before_writing);
    tcase_add_test(tc, readers_refuse_lenient_json);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? 1 : 0;
}
