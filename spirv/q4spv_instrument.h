/* q4spv_instrument.h: the probe pass: rewrites a compute module so that it records
 * which of its basic blocks and branch edges ran (shader coverage), and the smallest
 * out-of-bounds byte offset each storage-buffer access site (load, store, atomic)
 * touched (bounds checks).
 *
 * The probes write into one extra storage buffer, binding 0 of descriptor set
 * `set` (a set the module does not use), a flat array of uint32 "slots":
 *
 *   [0, n_blocks)                          1 once block i ran (plain stores; every
 *                                          writer writes the same value, no atomics)
 *   [branch_base, branch_base+2*n_branches) 1 once conditional branch i went to its
 *                                          true (2i) or false (2i+1) target
 *   [limit_base, limit_base+Q4SPV_MAX_BINDINGS) set by the host: the bytes of real
 *                                          data binding b of set 0 holds from its
 *                                          offset (0xFFFFFFFF: do not check)
 *   [site_base, site_base+2*n_sites)       two words per access site i: the smallest
 *                                          byte offset past its binding's limit that
 *                                          it touched (atomic min; 0xFFFFFFFF = none),
 *                                          then how many of its accesses were out of
 *                                          bounds (atomic add)
 *
 * q4spv_probe_init fills a fresh buffer. The rest of the module is unchanged: no
 * existing instruction is removed or altered (entry points gain the buffer in their
 * interface from SPIR-V 1.4 on), so results are bit-identical. */
#ifndef Q4SPV_INSTRUMENT_H
#define Q4SPV_INSTRUMENT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "q4_contract.h"

#define Q4SPV_MAX_BINDINGS 8
#define Q4SPV_NONE 0xFFFFFFFFu
#define Q4SPV_SITE_WORDS 2    /* probe words per access site: smallest offset, count */

typedef struct q4spv_options {
    uint32_t set;             /* descriptor set of the probe buffer */
    bool coverage;            /* block and branch probes */
    bool bounds;              /* bounds checks of accesses to set 0's storage buffers */
    bool race;                /* shared-memory race checks (docs/race-check.md) */
    /* The race probe of a wide access (a vec4: 4 words) as one call that loops over its
     * words, not one call per word: a quarter of the code for the driver to compile.
     * Off for a driver whose loops share one iteration budget per shader (llvmpipe
     * before Mesa 25: 65535 in all, past which every loop ends early), where the loop's
     * iterations would spend it (docs/race-check.md, Cost). */
    bool race_word_loop;
} q4spv_options;

/* A source position; file indexes q4spv_map.files. line 0 = none known. */
typedef struct q4spv_pos {
    uint32_t file, line;
} q4spv_pos;

typedef struct q4spv_block {
    uint32_t label;           /* the block's OpLabel id */
    uint32_t first_pos, n_pos;  /* its OpLine positions: pos[first_pos .. +n_pos) */
} q4spv_block;

typedef struct q4spv_branch {
    uint32_t block;           /* index of the block that branches */
    q4spv_pos at;             /* the last line before the branch (line 0: none) */
} q4spv_branch;

typedef enum q4spv_access {
    Q4SPV_LOAD, Q4SPV_STORE, Q4SPV_ATOMIC
} q4spv_access;

typedef struct q4spv_site {
    uint32_t binding;         /* of set 0 */
    uint32_t bytes;           /* bytes one access touches (16 for a vec4) */
    q4spv_access access;
    q4spv_pos at;
} q4spv_site;

/* Race checks: the classes of shared-memory access the shadow records. */
typedef enum q4spv_race_class {
    Q4SPV_RACE_READ,          /* OpLoad */
    Q4SPV_RACE_WRITE,         /* OpStore */
    Q4SPV_RACE_ATOMIC_WRITE,  /* an atomic that writes (read-modify-write or store) */
    Q4SPV_RACE_ATOMIC_READ    /* OpAtomicLoad */
} q4spv_race_class;

typedef struct q4spv_race_site {
    uint32_t var;             /* index into map->race_vars */
    q4spv_race_class cls;
    q4spv_pos at;
} q4spv_race_site;

/* What a race site recorded (q4spv_race_first). */
typedef struct q4spv_race_finding {
    uint32_t site;            /* this access, index into map->sites of races */
    bool uninitialized;       /* a read of a word no invocation of the workgroup wrote */
    q4spv_race_class other_cls;   /* the conflicting access's class (not uninitialized) */
    uint32_t word;            /* word index within the variable */
    uint32_t inv, other_inv;  /* gl_LocalInvocationIndex of the two */
    uint32_t pos, other_pos;  /* their shared accesses since their last barrier */
    int other_site;           /* the conflicting access's site if known, else -1 */
    uint32_t n_sites;         /* race sites with a finding in this dispatch */
} q4spv_race_finding;

#define Q4SPV_RACE_RECORD 10u /* shadow words per shared word */
#define Q4SPV_RACE_REPORT 5u  /* slots per race site */

typedef struct q4spv_map {
    uint32_t n_slots;         /* uint32 words of the probe buffer */
    uint32_t n_blocks;        /* block slots start at 0 */
    uint32_t branch_base, n_branches;
    uint32_t limit_base;
    uint32_t site_base, n_sites;
    uint32_t unchecked;       /* set-0 storage-buffer accesses the pass could not check */
    char **files;             /* OpString names of the files OpLine refers to */
    uint32_t n_files;
    q4spv_pos *pos;
    uint32_t n_pos;
    q4spv_block *blocks;
    q4spv_branch *branches;
    q4spv_site *sites;
    /* race checks: [race_base, +4) header (shadow words per workgroup, workgroup
     * slots, 0, the dynamic part's start: set by the host), then
     * Q4SPV_RACE_REPORT slots per race site; the dynamic part, after n_slots, holds
     * the slots' owners, their invocation counts and one shadow region each. */
    uint32_t race_base, n_race_sites;
    q4spv_race_site *race_sites;
    char **race_vars;         /* OpName of each Workgroup variable ("" if none) */
    uint32_t n_race_vars;
    uint32_t race_words;      /* shared words the shadow must cover; 0: they depend on
                                 specialisation constants (cover the device's limit) */
    uint32_t race_unchecked;  /* shared-memory accesses the pass could not follow */
} q4spv_map;

/* Instruments words[0 .. n): *out (malloc'ed, *out_n words) and *map. Errors:
 * Q4_ERR_ARG for a module that cannot be parsed or already uses `set`, Q4_ERR_NOMEM. */
q4_status q4spv_instrument(const uint32_t *words, size_t n, const q4spv_options *opt,
                           uint32_t **out, size_t *out_n, q4spv_map **map, q4_error *err);
void q4spv_map_free(q4spv_map *map);

/* A probe buffer's initial contents (map->n_slots words): zero slots, limits[b] for
 * binding b (Q4SPV_NONE where there is no binding), no bad site. */
void q4spv_probe_init(const q4spv_map *map, const uint32_t limits[Q4SPV_MAX_BINDINGS],
                      uint32_t *slots);

/* The first word of access site `site`'s record in the probe buffer. */
uint32_t q4spv_site_slot(const q4spv_map *map, uint32_t site);
/* How many out-of-bounds accesses site `site` made (0: none); *offset gets the
 * smallest byte offset past the data it touched (Q4SPV_NONE when none). */
uint32_t q4spv_probe_oob(const q4spv_map *map, const uint32_t *slots, uint32_t site,
                         uint32_t *offset);
/* The first out-of-bounds access recorded in slots: the lowest site index with a
 * record, -1 if none; *offset gets the smallest byte offset that site touched. */
int q4spv_probe_first_oob(const q4spv_map *map, const uint32_t *slots, uint32_t *offset);

/* Race checks: the probe buffer's words for `wg_slots` workgroups in flight of
 * `words` shared words each (map->n_slots plus the dynamic part), and their initial
 * contents (after q4spv_probe_init). 0 when the module has no race probes. */
size_t q4spv_race_buffer_words(const q4spv_map *map, uint32_t wg_slots, uint32_t words);
void q4spv_race_init(const q4spv_map *map, uint32_t wg_slots, uint32_t words, uint32_t *slots);
/* The first race site with a finding: its index into map->race_sites and *f, or -1. */
int q4spv_race_first(const q4spv_map *map, const uint32_t *slots, q4spv_race_finding *f);
/* A finding as one sentence naming the variable, word, kind (read-after-write,
 * write-after-read, write-after-write, uninitialized read), lines and invocations. */
void q4spv_race_message(const q4spv_map *map, const q4spv_race_finding *f, char *out,
                        size_t size);

#endif
