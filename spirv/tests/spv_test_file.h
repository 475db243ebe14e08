/* spv_test_file.h: what the q4spv tests share: reading a test module compiled into
 * Q4SPV_TEST_SPV_DIR (spirv/tests/CMakeLists.txt) as malloc'd words, and running a
 * suite. */
#ifndef Q4SPV_TEST_FILE_H
#define Q4SPV_TEST_FILE_H

#include <check.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

/* Q4SPV_TEST_SPV_DIR/file (e.g. "probe-spv13.spv"); *n is its length in words. */
static inline uint32_t *spv_test_load(const char *file, size_t *n)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s", Q4SPV_TEST_SPV_DIR, file);
    FILE *f = fopen(path, "rb");
    ck_assert_msg(f != NULL, "cannot open %s", path);
    fseek(f, 0, SEEK_END);
    long bytes = ftell(f);
    fseek(f, 0, SEEK_SET);
    uint32_t *w = malloc((size_t)bytes);
    ck_assert(w && fread(w, 1, (size_t)bytes, f) == (size_t)bytes);
    fclose(f);
    *n = (size_t)bytes / 4;
    return w;
}

/* Runs the suite (Check's normal output) and frees it: a test program's exit status. */
static inline int run_suite(Suite *s)
{
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? 1 : 0;
}

#endif
