/* truth.c: q4h_truth_make and q4h_truth_complete (truth.h). */
#include "truth.h"

#include <string.h>

#include "outputs.h"

q4_status q4h_truth_make(const q4h_op *op, const q4_case *c, const q4_inputs *in, bool tiled,
                         q4h_outputs *out, q4_error *err)
{
    void *state = NULL;
    if (!tiled || !op->tiled)
        return op->truth(c, in, out, err);
    q4_status st = op->tiled->plan(c, in, out, &state, err);
    if (st == Q4_OK) {
        out->tiled = op->tiled;
        out->tiles = state;
    }
    return st;
}

/* The truth's arrays of a and b swapped (the results stay). */
static void swap_truth(q4h_output *a, q4h_output *b)
{
    q4h_output t = *a;
    a->value = b->value, b->value = t.value;
    a->bound = b->bound, b->bound = t.bound;
    a->code = b->code, b->code = t.code;
    a->alt = b->alt, b->alt = t.alt;
    a->env = b->env, b->env = t.env;
    a->col_var[0] = b->col_var[0], b->col_var[0] = t.col_var[0];
    a->col_var[1] = b->col_var[1], b->col_var[1] = t.col_var[1];
    a->dot_n = b->dot_n, a->dot_factors = b->dot_factors;
    a->tiled = a->tiled_env = a->tiled_shr = false;
}

q4_status q4h_truth_complete(const q4h_op *op, const q4_case *c, const q4_inputs *in,
                             q4h_outputs *out, q4_error *err)
{
    q4h_outputs whole = { 0 };
    if (!out->tiles)
        return Q4_OK;
    q4_status st = op->truth(c, in, &whole, err);
    for (int k = 0; st == Q4_OK && k < out->n; k++)
        if (whole.n != out->n || strcmp(whole.o[k].name, out->o[k].name) ||
            whole.o[k].count != out->o[k].count)
            st = q4_fail(err, Q4_ERR_ARG, "the whole truth of %s has other outputs than its "
                         "tiled one", c->name);
    for (int k = 0; st == Q4_OK && k < out->n; k++)
        swap_truth(&out->o[k], &whole.o[k]);
    if (st == Q4_OK) {
        out->tiled->free(out->tiles);
        out->tiled = NULL;
        out->tiles = NULL;
    }
    q4h_outputs_free(&whole);   /* its results, and the tiled truth's (few) arrays */
    return st;
}
