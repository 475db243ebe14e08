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
 *   [site_base, site_base+n_sites)         the smallest byte offset past its binding's
 *                                          limit that access site i touched (atomic min);
 *                                          0xFFFFFFFF = none
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

typedef struct q4spv_options {
    uint32_t set;             /* descriptor set of the probe buffer */
    bool coverage;            /* block and branch probes */
    bool bounds;              /* bounds checks of accesses to set 0's storage buffers */
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

/* The first out-of-bounds access recorded in slots: the lowest site index with a
 * record, -1 if none; *offset gets the smallest byte offset that site touched. */
int q4spv_probe_first_oob(const q4spv_map *map, const uint32_t *slots, uint32_t *offset);

#endif
