/* test_dump_formats.c: the two file formats of a dump read back from memory: .npy
 * (npy.c) and case.json (case_json.c). Round trips keep every value and shape;
 * every truncation and every damaged header byte is an error or a valid parse,
 * never a crash or a read past the buffer; each malformed case names its problem. */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "case_json.h"
#include "files.h"
#include "npy.h"

static char tmp_path[64];

static void setup(void)
{
    snprintf(tmp_path, sizeof tmp_path, "/tmp/q4cts_test_dump_%ld", (long)getpid());
}

static void teardown(void)
{
    remove(tmp_path);
}

/* Writes an array with q4h_npy_write and returns the file's bytes. */
static char *npy_bytes(const char *descr, const void *data, int ndim, const int64_t *shape,
                       size_t *size)
{
    q4_error err = { 0 };
    ck_assert_int_eq(q4h_npy_write(tmp_path, descr, data, ndim, shape, &err), Q4_OK);
    char *buf = q4h_read_file(tmp_path, size);
    ck_assert_ptr_nonnull(buf);
    return buf;
}

/* A .npy of format `major`.0 holding header `dict` and `data` zero bytes; *size set. */
static char *npy_text(int major, const char *dict, size_t data, size_t *size)
{
    size_t hl = strlen(dict), start = major == 1 ? 10 : 12;
    char *buf = calloc(1, start + hl + data + 1);
    memcpy(buf, "\x93NUMPY", 6);
    buf[6] = (char)major;
    buf[8] = (char)(hl & 0xFF);
    buf[9] = (char)(hl >> 8);
    memcpy(buf + start, dict, hl);
    *size = start + hl + data;
    return buf;
}

START_TEST(npy_round_trip_keeps_dtype_shape_and_data)
{
    const float f[6] = { 1.5f, -2, 0, 3e-38f, INFINITY, -0.0f };
    const double d = 0.1;
    const uint8_t u[3] = { 0, 7, 255 };
    const int64_t s23[2] = { 2, 3 }, s16[2] = { 1, 6 }, s3 = 3;
    struct {
        const char *descr;
        const void *data;
        int ndim;
        const int64_t *shape;
        size_t bytes;
    } cases[] = { { "<f4", f, 2, s23, sizeof f }, { "<f4", f, 2, s16, sizeof f },
                  { "<f8", &d, 0, NULL, sizeof d }, { "|u1", u, 1, &s3, sizeof u },
                  { "<i4", f, 1, &s3, 12 }, { "<u4", f, 2, s23, sizeof f } };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        size_t size;
        char *buf = npy_bytes(cases[i].descr, cases[i].data, cases[i].ndim, cases[i].shape, &size);
        ck_assert_uint_eq((size - cases[i].bytes) % 64, 0); /* header padded to 64 */
        q4h_npy a;
        q4_error err = { 0 };
        ck_assert_int_eq(q4h_npy_parse(buf, size, "t.npy", &a, &err), Q4_OK);
        ck_assert_str_eq(a.descr, cases[i].descr);
        ck_assert_int_eq(a.ndim, cases[i].ndim); /* a one-row matrix stays 2-D */
        for (int k = 0; k < a.ndim; k++)
            ck_assert_int_eq(a.shape[k], cases[i].shape[k]);
        ck_assert_uint_eq((size_t)a.count * a.elem, cases[i].bytes);
        ck_assert_int_eq(memcmp(a.data, cases[i].data, cases[i].bytes), 0);
        free(buf);
    }
}
END_TEST

/* Every prefix of a valid file is refused; every single damaged header byte is
 * refused or read as some valid array within the buffer. */
START_TEST(npy_truncated_or_damaged_never_crashes)
{
    const float f[6] = { 1, 2, 3, 4, 5, 6 };
    const int64_t shape[2] = { 2, 3 };
    size_t size;
    char *buf = npy_bytes("<f4", f, 2, shape, &size);
    q4h_npy a;
    q4_error err = { 0 };
    for (size_t n = 0; n < size; n++) {
        char *copy = malloc(n ? n : 1); /* exact size: a read past it is a heap error */
        memcpy(copy, buf, n);
        ck_assert_int_eq(q4h_npy_parse(copy, n, "t.npy", &a, &err), Q4_ERR_ARG);
        ck_assert_ptr_nonnull(strstr(err.msg, "t.npy"));
        free(copy);
    }
    for (size_t i = 0; i < size - sizeof f; i++)
        for (int v = 0; v < 256; v += 17) {
            char *copy = malloc(size);
            memcpy(copy, buf, size);
            copy[i] = (char)v;
            q4_status st = q4h_npy_parse(copy, size, "t.npy", &a, &err);
            ck_assert(st == Q4_OK || st == Q4_ERR_ARG);
            if (st == Q4_OK)
                ck_assert((const char *)a.data + a.count * (int64_t)a.elem == copy + size);
            free(copy);
        }
    free(buf);
}
END_TEST

START_TEST(npy_malformed_headers_name_the_problem)
{
    static const struct {
        int major;
        const char *dict;
        size_t data;
        const char *message;
    } bad[] = {
        { 9, "{}", 0, "format version 9.0" },
        { 1, "[]", 0, "not a dict" },
        { 1, "{'descr': '<f4'}", 0, "lacks fortran_order" },
        { 1, "{'descr': '>f4', 'fortran_order': False, 'shape': (), }", 4, "dtype '>f4'" },
        { 1, "{'descr': '<f4', 'fortran_order': True, 'shape': (), }", 4, "Fortran-order" },
        { 1, "{'descr': '<f4', 'fortran_order': Maybe, 'shape': (), }", 4,
          "fortran_order is not True or False" },
        { 1, "{'descr': '<f4', 'fortran_order': False, 'shape': (1,1,1,1,1,1), }", 4,
          "at most 5 sizes" },
        { 1, "{'descr': '<f4', 'fortran_order': False, 'shape': (-1,), }", 0,
          "shape is not a tuple" },
        { 1, "{'descr': '<f4', 'fortran_order': False, 'shape': (99999999999999999999,), }", 0,
          "shape is not a tuple" },
        { 1, "{'descr': '<f4', 'fortran_order': False, 'shape': "
             "(9223372036854775807, 9223372036854775807), }", 0, "overflows" },
        { 2, "{'descr': '<f4', 'fortran_order': False, 'shape': (2,), }", 4,
          "holds 4 data bytes; its shape and dtype need 8" },
        { 1, "{'descr': '<f4', 'fortran_order': False, 'shape': (2,), }", 12,
          "holds 12 data bytes" },
        { 1, "{'descr': '<f4', 'descr': '<f4', 'fortran_order': False, 'shape': (), }", 4,
          "repeated key 'descr'" },
        { 1, "{'descr': '<f4', 'fortran_order': False, 'shape': () ", 4, "expected ',' or '}'" },
    };
    q4h_npy a;
    q4_error err = { 0 };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        size_t size;
        char *buf = npy_text(bad[i].major, bad[i].dict, bad[i].data, &size);
        ck_assert_msg(q4h_npy_parse(buf, size, "t.npy", &a, &err) == Q4_ERR_ARG,
                      "case %zu parsed", i);
        ck_assert_msg(strstr(err.msg, bad[i].message), "case %zu: %s", i, err.msg);
        free(buf);
    }
    ck_assert_int_eq(q4h_npy_parse("GIF89a-----", 11, "t.npy", &a, &err), Q4_ERR_ARG);
    ck_assert_ptr_nonnull(strstr(err.msg, "is not a .npy file"));
    /* a header length past the end of the file */
    ck_assert_int_eq(q4h_npy_parse("\x93NUMPY\x01\x00\xff\x00{}", 12, "t.npy", &a, &err),
                     Q4_ERR_ARG);
    ck_assert_ptr_nonnull(strstr(err.msg, "truncated"));
    /* numpy's other spellings of a header still read: keys in any order, double quotes */
    size_t size;
    char *buf = npy_text(1, "{\"shape\": (3,), \"fortran_order\": False, \"descr\": \"<u1\"}",
                         3, &size);
    ck_assert_int_eq(q4h_npy_parse(buf, size, "t.npy", &a, &err), Q4_OK);
    ck_assert_str_eq(a.descr, "|u1");
    ck_assert_int_eq(a.shape[0], 3);
    free(buf);
}
END_TEST

static q4h_dump_meta *sample_meta(void)
{
    q4h_dump_meta *m = calloc(1, sizeof *m);
    m->format = Q4H_DUMP_FORMAT;
    snprintf(m->name, sizeof m->name, "q4cts.fused_ce.basic.r1_v32_p0");
    snprintf(m->op, sizeof m->op, "fused_ce");
    snprintf(m->family, sizeof m->family, "basic");
    snprintf(m->api, sizeof m->api, "webgpu");
    m->seed = UINT64_MAX;
    m->params[m->n_params++] = (q4h_dump_param){ "r", 1, true };
    m->params[m->n_params++] = (q4h_dump_param){ "n_valid", (double)0.1f, false };
    m->inputs[m->n_inputs++] = (q4h_dump_array){ "logits", "<f4", 2, { 1, 32 } };
    m->outputs[m->n_outputs++] = (q4h_dump_output){
        .name = "loss", .ndim = 0, .dims = { "-", "-" }, .has_got = true, .guard_ok = true,
        .padding_ok = true, .guard_bad_at = -1, .padding_bad_at = -1, .margin = INFINITY,
        .env = true, .env_shared = true, .stat_margin = 0.5 };
    m->outputs[m->n_outputs++] = (q4h_dump_output){
        .name = "w4x8", .code = true, .ndim = 2, .shape = { 12, 128 }, .dims = { "n", "k" },
        .guard_ok = false, .guard_bad_at = 3, .padding_ok = true, .padding_bad_at = -1,
        .raw_descr = "<u4", .raw_count = 256, .margin = 0.25, .dot_n = 17, .dot_factors = 3,
        .stat_margin = NAN };
    snprintf(m->device, sizeof m->device, "llvmpipe \"quoted\"");
    m->n_kernels = 1;
    snprintf(m->kernels[0][0], sizeof m->kernels[0][0], "adamw_step");
    snprintf(m->kernels[0][1], sizeof m->kernels[0][1], "/x/y.spv");
    q4_result_init(&m->result);
    m->result.verdict = Q4_QUALITY_WARNING;
    m->result.worst_margin = 1.0000000000000002;
    snprintf(m->result.output, sizeof m->result.output, "w4x8");
    return m;
}

START_TEST(case_json_round_trip)
{
    q4h_dump_meta *m = sample_meta(), *back = calloc(1, sizeof *back);
    q4_error err = { 0 };
    size_t size;
    ck_assert_int_eq(q4h_case_json_write(tmp_path, m, &err), Q4_OK);
    char *text = q4h_read_file(tmp_path, &size);
    ck_assert_int_eq(q4h_case_json_parse(text, size, "case.json", back, &err), Q4_OK);
    ck_assert_str_eq(back->name, m->name);
    ck_assert_str_eq(back->op, "fused_ce");
    ck_assert_str_eq(back->api, "webgpu");
    ck_assert(back->seed == UINT64_MAX);
    ck_assert_int_eq(back->n_params, 2);
    ck_assert(q4h_dump_param_find(back, "r")->integer);
    ck_assert((float)q4h_dump_param_find(back, "n_valid")->value == 0.1f);
    ck_assert_str_eq(back->inputs[0].name, "logits");
    ck_assert_int_eq(back->inputs[0].ndim, 2);
    ck_assert_int_eq(back->outputs[0].ndim, 0);
    ck_assert(isnan(back->outputs[0].margin)); /* infinite: null in JSON */
    ck_assert(back->outputs[0].env && back->outputs[0].env_shared);
    ck_assert(back->outputs[0].stat_margin == 0.5);
    ck_assert(!back->outputs[1].env && isnan(back->outputs[1].stat_margin));
    ck_assert_int_eq(back->outputs[1].dot_n, 17);
    ck_assert_int_eq(back->outputs[1].dot_factors, 3);
    ck_assert(back->outputs[1].code && !back->outputs[1].has_got);
    ck_assert_int_eq(back->outputs[1].guard_bad_at, 3);
    ck_assert_int_eq(back->outputs[1].padding_bad_at, -1);
    ck_assert_str_eq(back->outputs[1].dims[0], "n");
    ck_assert_str_eq(back->outputs[1].raw_descr, "<u4");
    ck_assert_int_eq(back->outputs[1].raw_count, 256);
    ck_assert(back->outputs[1].margin == 0.25);
    ck_assert_str_eq(back->device, "llvmpipe \"quoted\"");
    ck_assert_str_eq(back->kernels[0][1], "/x/y.spv");
    ck_assert_int_eq(back->result.verdict, Q4_QUALITY_WARNING);
    ck_assert(back->result.worst_margin == 1.0000000000000002); /* 17 digits round-trip */

    /* a case.json without "api" (the dumps made before it was recorded) is Vulkan's */
    char *api = strstr(text, "\"api\": \"webgpu\",");
    ck_assert_ptr_nonnull(api);
    char *no_api = strdup(text);
    const size_t at = (size_t)(api - text), cut = strlen("\"api\": \"webgpu\",");
    memmove(no_api + at, no_api + at + cut, size - at - cut + 1);
    ck_assert_int_eq(q4h_case_json_parse(no_api, size - cut, "case.json", back, &err), Q4_OK);
    ck_assert_str_eq(back->api, "vulkan");
    free(no_api);

    /* every prefix is an error, never a crash */
    for (size_t n = 0; n + 1 < size; n++) {
        char *copy = malloc(n ? n : 1);
        memcpy(copy, text, n);
        ck_assert_int_eq(q4h_case_json_parse(copy, n, "case.json", back, &err), Q4_ERR_ARG);
        free(copy);
    }
    free(text);
    free(back);
    free(m);
}
END_TEST

START_TEST(case_json_malformed_names_the_key)
{
    static const struct {
        const char *text, *message;
    } bad[] = {
        { "[1, 2]", "must hold a JSON object" },
        { "{\"format\": 1} trailing", "text follows the object" },
        { "{\"format\": 2}", "format must be an integer from 1 to 1" },
        { "{\"format\": 1, \"name\": 3}", "name must be a string" },
        { "{\"format\": 1, \"name\": \"a\", \"op\": \"b\", \"seed\": -1}", "seed must be" },
        { "{\"format\": 1, \"name\": \"a\", \"op\": \"b\", \"api\": \"metal\", \"seed\": 0}",
          "api must be \"vulkan\" or \"webgpu\"" },
        { "{\"format\": 1, \"name\": \"a\", \"op\": \"b\", \"seed\": 0, \"params\": []}",
          "params must be an object" },
        { "{\"format\": 1, \"name\": \"a\", \"op\": \"b\", \"seed\": 0, "
          "\"params\": {\"lr\": \"x\"}}",
          "params.lr must be a number" },
        { "{\"format\": 1, \"name\": \"a\", \"op\": \"b\", \"seed\": 0, \"params\": {}, "
          "\"inputs\": [{\"name\": \"../x\", \"dtype\": \"<f4\", \"shape\": [1]}]}",
          "inputs[0].name must be letters" },
        { "{\"format\": 1, \"name\": \"a\", \"op\": \"b\", \"seed\": 0, \"params\": {}, "
          "\"inputs\": [{\"name\": \"x\", \"dtype\": \">f2\", \"shape\": [1]}]}",
          "inputs[0].dtype must be one of" },
        { "{\"format\": 1, \"name\": \"a\", \"op\": \"b\", \"seed\": 0, \"params\": {}, "
          "\"inputs\": [{\"name\": \"x\", \"dtype\": \"<f4\", \"shape\": [-1]}]}",
          "inputs[0].shape must be an array of non-negative integers" },
        { "{\"format\": 1, \"name\": \"a\", \"op\": \"b\", \"seed\": 0, \"params\": {}, "
          "\"inputs\": [], \"outputs\": [{\"name\": \"y\", \"kind\": \"odd\"}]}",
          "outputs[0].kind must be \"real\" or \"code\"" },
        { "{\"format\": 1, \"name\": \"a\", \"op\": \"b\", \"seed\": 0, \"params\": {}, "
          "\"inputs\": [], \"outputs\": []}",
          "result must be an object" },
        { "{\"format\": 1, \"name\": \"a\", \"op\": \"b\", \"seed\": 0, \"params\": {}, "
          "\"inputs\": [], \"outputs\": [], \"result\": {\"verdict\": \"Great\"}}",
          "result.verdict must be a verdict name" },
    };
    q4h_dump_meta *m = calloc(1, sizeof *m);
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        q4_error err = { 0 };
        ck_assert_msg(q4h_case_json_parse(bad[i].text, strlen(bad[i].text), "c.json", m, &err) ==
                          Q4_ERR_ARG, "case %zu parsed", i);
        ck_assert_msg(strstr(err.msg, bad[i].message), "case %zu: %s", i, err.msg);
    }
    q4_error err = { 0 };
    ck_assert_int_eq(q4h_case_json_parse("{\"a\":\0}", 7, "c.json", m, &err), Q4_ERR_ARG);
    ck_assert_ptr_nonnull(strstr(err.msg, "NUL"));
    free(m);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("harness.dump_formats");
    TCase *tc = tcase_create("formats");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, npy_round_trip_keeps_dtype_shape_and_data);
    tcase_add_test(tc, npy_truncated_or_damaged_never_crashes);
    tcase_add_test(tc, npy_malformed_headers_name_the_problem);
    tcase_add_test(tc, case_json_round_trip);
    tcase_add_test(tc, case_json_malformed_names_the_key);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
