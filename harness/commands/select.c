/* select.c: the case selection of one q4cts invocation (see select.h). */
#include "select.h"

#include <fnmatch.h>
#include <stdlib.h>

static int matches_any(const char *name, const char *const *globs, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (fnmatch(globs[i], name, 0) == 0)
            return 1;
    return 0;
}

q4_status q4h_select(const q4h_cli *cli, q4_case **out, size_t *count, q4_error *err)
{
    q4_case *cases = NULL;
    size_t n = 0, kept = 0;
    q4_status st;

    if (cli->n_caselists == 0) {
        st = q4_case_select(cli->filters, cli->n_filters, cli->excludes, cli->n_excludes, 0, 1,
                            cli->seed, &cases, &n, err);
    } else {
        char **all = NULL;
        size_t n_all = 0;
        st = Q4_OK;
        for (size_t i = 0; i < cli->n_caselists && st == Q4_OK; i++) {
            char **pats;
            size_t np;
            st = q4_caselist_load(cli->caselists[i], &pats, &np, err);
            if (st != Q4_OK)
                break;
            char **grown = realloc(all, (n_all + np + 1) * sizeof *all);
            if (!grown) {
                q4_caselist_free(pats, np);
                st = q4_fail(err, Q4_ERR_NOMEM, "out of memory reading %s", cli->caselists[i]);
                break;
            }
            all = grown;
            for (size_t k = 0; k < np; k++)
                all[n_all++] = pats[k];
            free(pats); /* the strings now belong to `all` */
        }
        if (st == Q4_OK)
            st = q4_case_select((const char *const *)all, n_all, cli->excludes, cli->n_excludes,
                                0, 1, cli->seed, &cases, &n, err);
        q4_caselist_free(all, n_all);
        /* --filter narrows the lists' set. */
        for (size_t i = 0; st == Q4_OK && i < n; i++)
            if (cli->n_filters == 0 || matches_any(cases[i].name, cli->filters, cli->n_filters))
                cases[kept++] = cases[i];
        n = kept;
    }
    if (st != Q4_OK) {
        free(cases);
        return st;
    }
    if (n == 0) {
        free(cases);
        return q4_fail(err, Q4_ERR_ARG, "no case matches the selection (see 'q4cts list')");
    }
    /* A shard may hold none of them (shard 200/200 of 162 cases): that is not a usage
     * error, since a CI matrix of N shards does not know the list's size; it runs
     * nothing and passes. */
    kept = 0;
    for (size_t i = 0; i < n; i++)
        if ((int)(i % (size_t)cli->shard_n) == cli->shard_i)
            cases[kept++] = cases[i];
    *out = cases;
    *count = kept;
    return Q4_OK;
}
