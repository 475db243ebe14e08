/* merge.h: `q4cts merge SHARD.json... [--json FILE] [--junit FILE]`: the reports of
 * the shards of one run (--shard I/N, on one machine or several) joined into the
 * report that one machine running every case would have written. */
#ifndef Q4H_MERGE_H
#define Q4H_MERGE_H

#include "cli.h"

/* Exit status: 0 every case ok and every shard there and complete, 1 a case not ok
 * or the merged run incomplete (a shard missing or cut short), 2 a report that cannot
 * be read or reports that are not shards of one run (a case in two, one shard twice,
 * another seed or shard count). */
int q4h_merge(const q4h_cli *cli);

#endif
