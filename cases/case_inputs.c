/* case_inputs.c: q4_case_inputs (validate, then the op's input maker and the
 * contract's value checks) and the inputs' fingerprint. What each op's
 * inputs are is its descriptor's (ops/<op>.c); the makers they share are
 * case_values.c. */
#include <stdlib.h>
#include <string.h>

#include "case_check.h"
#include "case_ops.h"
#include "case_rng.h"

q4_status q4_case_inputs(const q4_case *c, q4_inputs *in, q4_error *err)
{
    q4_status st;
    if (!c || !in)
        return q4_fail(err, Q4_ERR_ARG, "q4_case_inputs needs a case and an inputs struct");
    memset(in, 0, sizeof *in);
    /* The op the parser resolved, or by name for a hand-built case; validated like a
     * name (a case edited after parsing is held to the same rules). */
    const q4c_op *op = q4c_case_op(c);
    if ((st = q4c_validate(op, c, err)))
        return st;
    q4_case r = *c;
    r.desc = op;
    if ((st = op->inputs(&r, in, err)) || (st = op->check_inputs(&r, in, err)))
        q4_inputs_free(in);
    return st;
}

/* ---------------- fingerprint ---------------- */

static uint64_t hash_words(uint64_t h, const void *p, int64_t count, size_t elem)
{
    /* Each element as little-endian bytes, so the hash is the same on any machine. */
    const unsigned char *b = p;
    for (int64_t i = 0; p && i < count; i++) {
        unsigned char le[4];
        uint32_t w = b[i];
        if (elem == 4) memcpy(&w, b + (size_t)i * 4, 4);   /* elem is 1 or 4 */
        for (size_t j = 0; j < elem; j++) le[j] = (unsigned char)(w >> (8 * j));
        h = q4c_fnv1a64(le, elem, h);
    }
    return h;
}

uint64_t q4_inputs_hash(const q4_case *c, const q4_inputs *in)
{
    const int64_t M = c->m, N = c->n, K = c->k;
    const int64_t ns = c->gs > 0 ? q4_scales_count(N, K, c->gs) : 0;
    uint64_t h = Q4C_FNV_OFFSET;
    float scalars[8] = {in->n_valid, in->lr, in->beta1, in->beta2, in->eps, in->wd, in->bc1, in->bc2};
    h = hash_words(h, in->x, M * K, 4);
    h = hash_words(h, in->dout, M * N, 4);
    h = hash_words(h, in->bias, N, 4);
    h = hash_words(h, in->scales, ns, 4);
    h = hash_words(h, in->latent, N * K, 4);
    h = hash_words(h, in->logits, c->r * c->v, 4);
    h = hash_words(h, in->param, c->numel, 4);
    h = hash_words(h, in->grad, c->numel, 4);
    h = hash_words(h, in->m, c->numel, 4);
    h = hash_words(h, in->v, c->numel, 4);
    h = hash_words(h, in->codes, N * K, 1);
    h = hash_words(h, in->w4x8, in->w4x8 ? q4_w4x8_words(N, K) : 0, 4);
    h = hash_words(h, in->labels, c->r, 4);
    return hash_words(h, scalars, 8, 4);
}
