/* cli.h: the q4cts command line, parsed into one struct (cli.c). */
#ifndef Q4H_CLI_H
#define Q4H_CLI_H

#include <stddef.h>
#include <stdint.h>

#include "run_options.h"

#define Q4H_MAX_LIST 64
#define Q4H_MAX_SHARDS 1000000
#define Q4H_MAX_OPERANDS 4096       /* merge's shard reports */

/* --api: which API's kernels run the cases (docs/webgpu.md for WebGPU). */
typedef enum q4h_api { Q4H_API_VULKAN, Q4H_API_WEBGPU } q4h_api;

typedef struct q4h_cli {
    const char *command;            /* devices, list, kernels, run, perf, replay, compare, merge,
                                     * report */
    const char *operand;            /* replay DIR: operands[0] */
    const char *operands[Q4H_MAX_OPERANDS];   /* the arguments after the command */
    size_t n_operands;
    const char *dumps, *output;     /* report --dumps DIR, -o/--output FILE */
    const char *filters[Q4H_MAX_LIST];
    size_t n_filters;
    const char *excludes[Q4H_MAX_LIST];
    size_t n_excludes;
    const char *caselists[Q4H_MAX_LIST];
    size_t n_caselists;
    const char *device;
    uint64_t seed;
    int shard_i, shard_n;           /* 0-based index of n shards */
    int repeat;
    int validation;
    int strict;
    int dump_all, rerun;            /* --dump=all; replay --rerun */
    double timeout_s;
    const char *junit, *json, *dump_dir, *baseline;
    const char *shader_coverage;    /* --shader-coverage FILE.info */
    int bounds_check;               /* --bounds-check */
    int race_check;                 /* --race-check */
    const char *kernel_args[Q4H_MAX_LIST];  /* OP=FILE.spv, resolved by the caller */
    size_t n_kernels;
    const char *interface_args[Q4H_MAX_LIST];  /* --interface FILE (kernels: NAME) */
    size_t n_interfaces;
    q4vk_faults faults;
    int perf_reps, perf_warmup, perf_warmup_ms;
    uint64_t dense_min_m;           /* perf --dense-min-m: q4vk_options.dense_min_m (0: default) */
    uint64_t mma_min_m;             /* run/perf --mma-min-m: q4vk_options.mma_min_m (0: default,
                                       UINT64_MAX: off) */
    double factor;                  /* compare --factor (default 2) */
    q4h_api api;                    /* --api vulkan|webgpu */
    int jobs;                       /* --jobs: worker processes at once (default 1, or one
                                       per --devices entry) */
    const char *devices[Q4H_MAX_LIST];   /* --devices, split at commas (into devices_buf) */
    size_t n_devices;
    const char *devices_arg;        /* as given */
    char devices_buf[1024];
    int flake_retries;              /* --flake-retries */
    int flaky_every;                /* --inject-fault flaky@N */
    q4h_train_fault train_fault;    /* --inject-fault train_<kind>@N */
    int help, version;              /* --help, --version: the caller prints */
    uint64_t given;                 /* bit i: option i of cli.c's table was given */
} q4h_cli;

/* Parses argv[1..argc) into *cli; on a usage error fills err and returns Q4_ERR_ARG.
 * A pure function: it prints nothing, exits never and keeps no state between calls
 * (no getopt), so tests and fuzzers can call it freely. --help and --version set
 * cli->help / cli->version (and Q4_OK, with or without a command; an unknown command
 * is still an error) for the caller to print. Pointers in *cli point into argv. */
q4_status q4h_cli_parse(int argc, char *const *argv, q4h_cli *cli, q4_error *err);
/* The --help text. */
const char *q4h_cli_usage(void);
/* The backend of cli's --api: the one place that maps the API's name to its backend. */
struct q4h_backend_i;
const struct q4h_backend_i *q4h_cli_backend(const q4h_cli *cli);

/* The --inject-fault word of a planted training bug ("train_mv_reset", ...); "" for
 * none. */
const char *q4h_train_fault_name(q4h_train_fault_kind kind);

#endif
