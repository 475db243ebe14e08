/* q4spv_lcov.h: what the coverage probes recorded, as line figures per kernel and as
 * an lcov tracefile (SF:/DA:/BRDA:) that genhtml shows beside the C coverage. */
#ifndef Q4SPV_LCOV_H
#define Q4SPV_LCOV_H

#include <stdint.h>
#include <stdio.h>

#include "q4spv_instrument.h"

/* One probed module and what ran: hit[i] != 0 once coverage slot i (a block below
 * map->n_blocks, an edge below map->limit_base) was written by any dispatch. */
typedef struct q4spv_cov {
    const char *kernel;
    const q4spv_map *map;
    const uint8_t *hit;
} q4spv_cov;

typedef struct q4spv_cov_figures {
    uint32_t lines, lines_hit;        /* distinct (file, line) of the module's blocks */
    uint32_t blocks, blocks_hit;
    uint32_t branches, branches_hit;  /* edges: two per conditional branch */
} q4spv_cov_figures;

void q4spv_cov_figures_of(const q4spv_cov *c, q4spv_cov_figures *f);

/* Writes the tracefile of n modules to f: one SF record per source file, lines and
 * branches of every module that includes it merged (a line is hit if any module's
 * block with it ran). Modules without OpLine add nothing. Returns 0, or -1 on a
 * write error or when out of memory. */
int q4spv_lcov_write(FILE *f, const q4spv_cov *c, int n);

#endif
