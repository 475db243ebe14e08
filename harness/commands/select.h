/* select.h: from the command line's --caselist/--filter/--exclude/--shard to a case list. */
#ifndef Q4H_SELECT_H
#define Q4H_SELECT_H

#include "cli.h"
#include "q4case.h"

/* Case lists give the set (default: every generated case), --filter narrows it,
 * --exclude removes, --shard keeps one deterministic fraction. A selection that is
 * empty before sharding is Q4_ERR_ARG (almost always a typo); a shard that holds none
 * of a non-empty selection is Q4_OK with *count 0 (a CI matrix wider than the list). */
q4_status q4h_select(const q4h_cli *cli, q4_case **out, size_t *count, q4_error *err);

#endif
