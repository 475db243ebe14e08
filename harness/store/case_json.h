/* case_json.h: case.json, the description of one dumped case (json-c).
 *
 * A dump folder holds case.json and one .npy per array; case.json says what the
 * case was (name, seed, op parameters), which files hold its inputs and outputs and
 * in what shape, where it ran (device, driver, replaced kernels) and how it was
 * judged (verdict, worst margin). Layout in docs/dumps.md. The parser takes a buffer
 * and its size, so it can be fed anything (a fuzzer does): every problem is
 * Q4_ERR_ARG with one sentence naming the key, never a crash. */
#ifndef Q4H_CASE_JSON_H
#define Q4H_CASE_JSON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "npy.h"
#include "op.h"
#include "q4report.h"

/* Bumped when a key changes meaning or goes away. */
#define Q4H_DUMP_FORMAT 1
#define Q4H_DUMP_MAX_PARAMS 24
#define Q4H_DUMP_MAX_KERNELS 8
/* More elements than any case has (a shape's product, an output's dot_n): larger ones
 * are refused when case.json is read, so no size computed from them overflows. */
#define Q4H_DUMP_MAX_ELEMENTS (INT64_C(1) << 40)

typedef struct q4h_dump_param {
    char key[24];
    double value;
    bool integer;                      /* written as a JSON integer */
} q4h_dump_param;

typedef struct q4h_dump_array {        /* one .npy of the folder */
    char name[48];                     /* the tensor's name; file is <name>.npy */
    char descr[4];
    int ndim;
    int64_t shape[Q4H_NPY_MAX_DIMS];
} q4h_dump_array;

typedef struct q4h_dump_output {
    char name[32];
    bool code;                         /* code output (value/bound -> code/alt) */
    int ndim;
    int64_t shape[Q4H_NPY_MAX_DIMS];   /* rows (all dimensions but the last) x cols */
    char dims[2][16];                  /* the row and column names ("-": none) */
    bool has_got;                      /* the GPU run got as far as reading it back */
    bool guard_ok, padding_ok;
    int64_t guard_bad_at, padding_bad_at;
    char raw_descr[4];                 /* "" when no <name>.raw.npy */
    int64_t raw_count;
    double margin;                     /* this output's worst err / bound; NAN unknown */
    /* The statistical check's envelope (harness/core/judge.c): per-element arrays in
     * <name>.env_alw/.env_sd(/.env_shr).npy, or derived from the bounds of a dot
     * product of dot_n terms of dot_factors factors. */
    bool env, env_shared;
    int64_t dot_n;
    int dot_factors;
    double stat_margin;                /* statistic / envelope; NAN when none */
} q4h_dump_output;

typedef struct q4h_dump_meta {
    int format;
    char name[128], op[40], family[40];
    char values[24];                   /* the name's value class; "" the op's default */
    char api[16];                      /* the API it ran on: "vulkan" (also when case.json
                                          does not say: dumps were Vulkan's only) or
                                          "webgpu"; replay --rerun runs it there */
    uint64_t seed;
    q4h_dump_param params[Q4H_DUMP_MAX_PARAMS];
    int n_params;
    q4h_dump_array inputs[Q4H_MAX_TENSORS];
    int n_inputs;
    q4h_dump_output outputs[Q4H_MAX_OUTPUTS];
    int n_outputs;
    char device[256], device_type[32], uuid[40], driver[256], driver_version[64];
    char driver_info[256], vulkan[32];
    char kernels[Q4H_DUMP_MAX_KERNELS][2][256];   /* --kernel replacements: kernel, file */
    int n_kernels;
    bool strict;
    q4_result result;                  /* as judged when dumped (name, verdict, margins) */
} q4h_dump_meta;

/* Writes m to path as pretty-printed JSON. */
q4_status q4h_case_json_write(const char *path, const q4h_dump_meta *m, q4_error *err);
/* The same as file `path` of the folder dirfd (a dump's case folder), created anew by
 * q4h_create_at: a symbolic link there is removed, never written through. */
q4_status q4h_case_json_write_at(int dirfd, const char *path, const q4h_dump_meta *m,
                                 q4_error *err);

/* Parses case.json held in buf[0..size) into *m; `what` names the file in messages. */
q4_status q4h_case_json_parse(const char *buf, size_t size, const char *what, q4h_dump_meta *m,
                              q4_error *err);

/* The parameter `key` of m, or NULL. */
const q4h_dump_param *q4h_dump_param_find(const q4h_dump_meta *m, const char *key);

#endif
