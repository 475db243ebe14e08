/* case_random.c: the draws the ops' random makers share (family random: a legal
 * shape and value class from the sweep number N of q4cts.<op>.random.s<N>), weighted
 * towards the edges the kernels branch on: M = 1, N % 8 == 4, K = 4, gs = 4, gs = K
 * (and V = 1, prime V in fused_ce's own maker). */
#include <stdio.h>

#include "case_random.h"

q4c_rng q4c_sweep_rng(const q4_case *c)
{
    q4c_rng g = {q4c_mix64((uint64_t)c->sweep ^ q4c_fnv1a64_str(c->op))};
    return g;
}

void q4c_random_values(const q4c_op *op, q4c_rng *g, q4_case *c)
{
    int n = 0;
    for (const q4c_class *v = op->classes + 1; v->name; v++) n += !v->out_of_contract;
    c->values[0] = 0;
    if (n == 0 || (q4c_next(g) & 1))
        return;   /* ordinary */
    int pick = (int)q4c_below(g, (uint64_t)n);
    for (const q4c_class *v = op->classes + 1; v->name; v++)
        if (!v->out_of_contract && pick-- == 0) {
            snprintf(c->values, sizeof c->values, "%s", v->name);
            return;
        }
}

int64_t q4c_random_m(q4c_rng *g, int64_t max)
{
    switch (q4c_below(g, 4)) {
    case 0: return 1;
    case 1: return q4c_range(g, 2, 10);
    default: return q4c_range(g, 1, max + 1);
    }
}

int64_t q4c_random_n(q4c_rng *g, int64_t max4)
{
    int64_t n4 = q4c_range(g, 1, max4 + 1);
    if ((q4c_next(g) & 1) && n4 % 2 == 0)
        n4 = n4 > 1 ? n4 - 1 : 1;   /* odd N4: N % 8 == 4 */
    return 4 * n4;
}

void q4c_random_kg(q4c_rng *g, int64_t max4, int64_t *k, int64_t *gs)
{
    const int64_t k4 = q4c_below(g, 4) == 0 ? 1 : q4c_range(g, 1, max4 + 1);
    int64_t g4;
    switch (q4c_below(g, 3)) {
    case 0: g4 = 1; break;
    case 1: g4 = k4; break;
    default:   /* a random divisor of k4 */
        do g4 = q4c_range(g, 1, k4 + 1); while (k4 % g4 != 0);
        break;
    }
    *k = 4 * k4;
    *gs = 4 * g4;
}

void q4c_random_linear(q4c_rng *g, q4_case *c)
{
    c->m = q4c_random_m(g, 70);
    c->n = q4c_random_n(g, 48);
    q4c_random_kg(g, 48, &c->k, &c->gs);
}

void q4c_random_weight(q4c_rng *g, q4_case *c)
{
    c->n = q4c_random_n(g, 64);
    q4c_random_kg(g, 96, &c->k, &c->gs);
}
