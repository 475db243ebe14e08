/* gpu_test_util.h: helpers for the GPU op tests (test_gpu_elementwise, test_gpu_linear):
 * a fixed-seed generator, device buffers prefilled with a sentinel and followed by
 * guard words, the err/bound judge, Check macros, and opening the device and running
 * the suites. Every buffer helper takes the context explicitly (a test may swap in a
 * context of its own). */
#ifndef GPU_TEST_UTIL_H
#define GPU_TEST_UTIL_H

#include <check.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "q4vk.h"

#define GUARD_WORDS 16
#define GUARD 0xC0FFEE11u
#define SENTINEL 0x7FBADBADu   /* a NaN: any element left unwritten fails its bound */

/* splitmix64 over one process-wide state: rng_seed(s) starts the sequence s. */
void rng_seed(uint64_t seed);
uint64_t rng_next(void);
/* uniform in [lo, hi) */
float rng_uniform(float lo, float hi);

/* A device buffer holding `bytes` of data (uploaded when src != NULL, else the
 * sentinel) followed by GUARD_WORDS guard words. */
q4vk_buffer *dev_buf(q4vk_context *ctx, const void *src, size_t bytes);
/* A buffer of exactly `bytes` (no guard words), zeroed, for the argument checks. */
q4vk_buffer *raw_buf(q4vk_context *ctx, size_t bytes);
/* Downloads `bytes` of data into dst and checks that the guard words are intact. */
void dev_get(q4vk_context *ctx, q4vk_buffer *b, void *dst, size_t bytes, const char *what);

/* |got - value| <= bound for every element; returns the worst err/bound (margin).
 * judge names a failing element what[i], judge_matrix (a rows x cols output)
 * what[row][col]. */
double judge(const char *what, const float *got, const double *value, const double *bound,
             int64_t n);
double judge_matrix(const char *what, const float *got, const double *value,
                    const double *bound, int64_t rows, int64_t cols);

/* Opens a context on the default device (log to stdout). Returns 0, or the exit
 * code to end with: 77 when there is no Vulkan device at all, 1 when creation fails. */
int gpu_test_open(q4vk_context **ctx);
/* Runs every suite of sr in this process (one Vulkan context for every test: a
 * forked child must not inherit it), frees sr and ctx; returns the exit code. */
int gpu_test_run(SRunner *sr, q4vk_context *ctx);

#define CK_OK(call)                                                                 \
    do {                                                                            \
        q4_error err_ = {0};                                                        \
        q4_status st_ = (call);                                                     \
        ck_assert_msg(st_ == Q4_OK, "%s: %s", q4_status_name(st_), err_.msg);       \
    } while (0)

/* Expects status `want` and a message containing `needle`. */
#define CK_FAILS(want, needle, call)                                                \
    do {                                                                            \
        q4_error err_ = {0};                                                        \
        q4_status st_ = (call);                                                     \
        ck_assert_msg(st_ == (want), "expected %s, got %s (%s)", q4_status_name(want), \
                      q4_status_name(st_), err_.msg);                               \
        ck_assert_msg(strstr(err_.msg, (needle)) != NULL, "message \"%s\" lacks \"%s\"", \
                      err_.msg, (needle));                                          \
    } while (0)

/* One test case per test, so that CK_RUN_CASE=<test name> runs just one. */
#define ADD(s, fn)                                                                  \
    do {                                                                            \
        TCase *tc_ = tcase_create(#fn);                                             \
        tcase_set_timeout(tc_, 120);                                                \
        tcase_add_test(tc_, fn);                                                    \
        suite_add_tcase(s, tc_);                                                    \
    } while (0)

#endif
