/* fuzz_case_name.c: fuzz target for the case-name parser (q4_case_parse).
 *
 * Any bytes are a name. A rejected name must say why; an accepted one must be
 * canonical after parsing (formatting it gives its name) and parse again to the
 * same case, so the fuzzer checks the grammar's round trip as well as memory. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_target.h"
#include "q4case.h"

static int same_case(const q4_case *a, const q4_case *b)
{
    return !strcmp(a->name, b->name) && !strcmp(a->op, b->op) && !strcmp(a->family, b->family)
        && a->m == b->m && a->n == b->n && a->k == b->k && a->gs == b->gs && a->nlead == b->nlead
        && !memcmp(a->lead, b->lead, sizeof a->lead) && a->bias == b->bias && a->r == b->r
        && a->v == b->v && a->mask_pct == b->mask_pct && a->numel == b->numel
        && a->step == b->step && a->wd == b->wd && a->seed == b->seed;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *name = q4fuzz_cstring(data, size);
    q4_case c, again;
    q4_error err = {0};
    char canon[Q4_CASE_NAME_MAX];

    if (q4_case_parse(name, 7, &c, &err) == Q4_OK) {
        q4_case_format(&c, canon, sizeof canon);
        q4fuzz_check(!strcmp(canon, c.name), "an accepted name is not canonical after parsing");
        q4fuzz_check(q4_case_parse(c.name, 7, &again, &err) == Q4_OK,
                     "the canonical form of an accepted name is rejected");
        q4fuzz_check(same_case(&c, &again), "the canonical name parses to a different case");
    } else {
        q4fuzz_check_message(err.msg, "a rejected name");
    }
    free(name);
    return 0;
}
