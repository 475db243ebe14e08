/* test_reflect.c: q4spv's validation, parsing and reflection on modules compiled from
 * spirv/tests/shaders/ (known interfaces), and on broken copies of them. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "q4spv_module.h"
#include "q4spv_reflect.h"
#include "spv_test_file.h"

static void reflect(const uint32_t *w, size_t n, q4spv_interface *out)
{
    q4spv_module m;
    q4_error err = { 0 };
    ck_assert_msg(q4spv_parse(w, n, &m, &err) == Q4_OK, "%s", err.msg);
    ck_assert_msg(q4spv_reflect(&m, out, &err) == Q4_OK, "%s", err.msg);
    q4spv_module_free(&m);
}

START_TEST(reflects_every_part)
{
    size_t n;
    uint32_t *w = spv_test_load("reflect_sample.spv", &n);
    q4_error err = { 0 };
    q4spv_interface f;
    ck_assert_msg(q4spv_validate(w, n, "sample", &err) == Q4_OK, "%s", err.msg);
    reflect(w, n, &f);
    ck_assert_int_eq(f.n_entries, 1);
    ck_assert_int_eq(f.main_entry, 0);
    ck_assert_str_eq(f.entries[0].name, "main");
    ck_assert_int_eq(f.n_bindings, 3);
    ck_assert_uint_eq(f.bindings[0].set, 0);
    ck_assert_uint_eq(f.bindings[0].binding, 0);
    ck_assert_int_eq(f.bindings[0].type, Q4SPV_DESC_STORAGE_BUFFER);
    ck_assert_uint_eq(f.bindings[1].binding, 2);
    ck_assert_int_eq(f.bindings[1].type, Q4SPV_DESC_STORAGE_BUFFER);
    ck_assert_uint_eq(f.bindings[2].set, 1);
    ck_assert_uint_eq(f.bindings[2].binding, 0);
    ck_assert_int_eq(f.bindings[2].type, Q4SPV_DESC_UNIFORM_BUFFER);
    ck_assert(f.bindings[0].non_writable);    /* readonly */
    ck_assert(!f.bindings[1].non_writable);   /* writeonly */
    ck_assert(!f.bindings[2].non_writable);   /* a uniform block has no such decoration */
    ck_assert_uint_eq(f.bindings[2].block_bytes, 16);   /* vec4 p */
    ck_assert_uint_eq(f.bindings[0].block_bytes, 0);    /* float x[]: unsized */
    ck_assert_uint_eq(f.push_bytes, 16);   /* uint, float, uvec2 at offset 8 */
    ck_assert_int_eq(f.n_spec, 3);
    ck_assert_uint_eq(f.spec_ids[0], 0);
    ck_assert_uint_eq(f.spec_ids[1], 3);
    ck_assert_uint_eq(f.spec_ids[2], 7);
    ck_assert_int_eq(f.local_size_spec[0], 3);
    ck_assert_uint_eq(f.local_size[0], 1);
    ck_assert_int_eq(f.local_size_spec[1], -1);
    ck_assert_uint_eq(f.local_size[1], 2);
    ck_assert_uint_eq(f.local_size[2], 1);
    free(w);
}
END_TEST

START_TEST(truncated_module_is_refused)
{
    size_t n;
    uint32_t *w = spv_test_load("reflect_sample.spv", &n);
    q4_error err = { 0 };
    q4spv_module m;
    ck_assert_int_eq(q4spv_validate(w, n - 3, "sample", &err), Q4_ERR_ARG);
    ck_assert_msg(strstr(err.msg, "sample is not valid SPIR-V for Vulkan") != NULL, "%s", err.msg);
    ck_assert_int_eq(q4spv_parse(w, n - 3, &m, &err), Q4_ERR_ARG);
    ck_assert_msg(strstr(err.msg, "cannot be parsed") != NULL, "%s", err.msg);
    ck_assert_int_eq(q4spv_validate(w, 4, "sample", &err), Q4_ERR_ARG);
    ck_assert_msg(strstr(err.msg, "sample is not a SPIR-V module") != NULL, "%s", err.msg);
    free(w);
}
END_TEST

START_TEST(invalid_module_is_refused)
{
    size_t n;
    uint32_t *w = spv_test_load("reflect_sample.spv", &n);
    q4_error err = { 0 };
    /* The first OpTypePointer's pointee becomes an id nothing defines. */
    q4spv_module m;
    ck_assert(q4spv_parse(w, n, &m, &err) == Q4_OK);
    size_t k = 0;
    while (m.insts[k].opcode != 32 /* OpTypePointer */)
        k++;
    w[m.insts[k].offset + 3] = m.bound - 1;
    q4spv_module_free(&m);
    ck_assert_int_eq(q4spv_validate(w, n, "sample", &err), Q4_ERR_ARG);
    ck_assert_msg(strstr(err.msg, "sample is not valid SPIR-V for Vulkan") != NULL, "%s", err.msg);
    free(w);
}
END_TEST

START_TEST(interface_differences_are_named)
{
    size_t n;
    uint32_t *w = spv_test_load("reflect_sample.spv", &n);
    q4spv_interface want, got;
    char msg[1024];
    reflect(w, n, &want);
    got = want;
    ck_assert_int_eq(q4spv_interface_diff(&want, &got, msg, sizeof msg), 0);
    ck_assert_str_eq(msg, "");

    got.push_bytes = 20;
    got.bindings[1].type = Q4SPV_DESC_UNIFORM_BUFFER;
    got.spec_ids[got.n_spec++] = 9;
    got.local_size_spec[0] = -1;
    got.local_size[0] = 64;
    ck_assert_int_eq(q4spv_interface_diff(&want, &got, msg, sizeof msg), 4);
    ck_assert_msg(strstr(msg, "set 0 binding 2 is a uniform buffer, expected a storage buffer"), "%s", msg);
    ck_assert_msg(strstr(msg, "push-constant block is 20 bytes, expected 16"), "%s", msg);
    ck_assert_msg(strstr(msg, "specialisation constant id 9 is never set"), "%s", msg);
    ck_assert_msg(strstr(msg, "local size x must come from specialisation constant id 3"), "%s", msg);

    got = want;
    got.bindings[0].binding = 5;   /* binding 0 missing, binding 5 extra */
    ck_assert_int_eq(q4spv_interface_diff(&want, &got, msg, sizeof msg), 2);
    ck_assert_msg(strstr(msg, "set 0 binding 0 (a storage buffer) is missing"), "%s", msg);
    ck_assert_msg(strstr(msg, "set 0 binding 5 (a storage buffer) is not in the interface"), "%s", msg);
    free(w);
}
END_TEST

START_TEST(entry_point_other_than_main)
{
    size_t n;
    uint32_t *w = spv_test_load("reflect_sample.spv", &n);
    q4spv_module m;
    q4spv_interface want, got;
    q4_error err = { 0 };
    char msg[512];
    reflect(w, n, &want);
    ck_assert(q4spv_parse(w, n, &m, &err) == Q4_OK);
    for (size_t k = 0; k < m.n_insts; k++)
        if (m.insts[k].opcode == 15 /* OpEntryPoint */)
            memcpy((char *)(w + m.insts[k].offset + 3), "kern", 4);
    q4spv_module_free(&m);
    ck_assert_msg(q4spv_validate(w, n, "sample", &err) == Q4_OK, "%s", err.msg);
    reflect(w, n, &got);
    ck_assert_int_eq(got.main_entry, -1);
    ck_assert_int_eq(q4spv_interface_diff(&want, &got, msg, sizeof msg), 1);
    ck_assert_msg(strstr(msg, "no GLCompute entry point named 'main' (it has 'kern')"), "%s", msg);
    free(w);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("spirv.reflect");
    TCase *tc = tcase_create("reflect");
    tcase_add_test(tc, reflects_every_part);
    tcase_add_test(tc, truncated_module_is_refused);
    tcase_add_test(tc, invalid_module_is_refused);
    tcase_add_test(tc, interface_differences_are_named);
    tcase_add_test(tc, entry_point_other_than_main);
    suite_add_tcase(s, tc);
    return run_suite(s);
}
