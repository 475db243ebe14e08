/* merge.h: `q4cts merge SHARD.json... [--json FILE] [--junit FILE]`: the reports of
 * the shards of one run (--shard I/N, on one machine or several) joined into the
 * report that one machine running every case would have written. */
#ifndef Q4H_MERGE_H
#define Q4H_MERGE_H

#include <stdbool.h>

#include "cli.h"

/* Exit status: 0 every case ok and every shard there and complete, 1 a case not ok
 * or the merged run incomplete (a shard missing or cut short), 2 a report that cannot
 * be read or reports that are not shards of one run (a case in two, one shard twice,
 * another seed, shard count, q4cts version, validation setting, strictness or API:
 * every report against every other). A report from before reports said whether their
 * run completed makes the merged run incomplete: it cannot vouch for it. Nothing is
 * written until every input is read and checked; the merged reports are then written
 * once. */
int q4h_merge(const q4h_cli *cli);

/* A shard property "I/N" (run --shard): decimal digits only, 1 <= I <= N <= INT_MAX.
 * False for anything else (a sign, a space, a number past INT_MAX). */
bool q4h_shard_parse(const char *text, int *i, int *n);

#endif
