/* select.h: from the command line's --caselist/--filter/--exclude/--shard to a case list. */
#ifndef Q4H_SELECT_H
#define Q4H_SELECT_H

#include "cli.h"
#include "q4case.h"

/* Case lists give the set (default: every generated case), --filter narrows it,
 * --exclude removes, --shard keeps one deterministic fraction. An empty result is
 * Q4_ERR_ARG: a selection that runs nothing is almost always a typo. */
q4_status q4h_select(const q4h_cli *cli, q4_case **out, size_t *count, q4_error *err);

#endif
