/* case_random.h: the draws the ops' random makers share (family random,
 * case_random.c). */
#ifndef Q4C_CASE_RANDOM_H
#define Q4C_CASE_RANDOM_H

#include <stdint.h>

#include "case_desc.h"
#include "case_rng.h"

/* The generator of sweep N of c's op: splitmix64 from N and the op name only, so a
 * sweep's shape never depends on the user seed (the inputs do). */
q4c_rng q4c_sweep_rng(const q4_case *c);
/* One of the op's in-contract value classes into c->values: ordinary half the time. */
void q4c_random_values(const q4c_op *op, q4c_rng *g, q4_case *c);
/* Weighted towards the edges: M = 1 a quarter of the time, else small or up to max. */
int64_t q4c_random_m(q4c_rng *g, int64_t max);
/* N a multiple of 4 up to max4 * 4, with N % 8 == 4 (an odd N4) half the time. */
int64_t q4c_random_n(q4c_rng *g, int64_t max4);
/* K a multiple of 4 up to max4 * 4 (K = 4 a quarter of the time), and a group size
 * dividing it (gs = 4 a third, gs = K a third, else any multiple of 4 dividing K). */
void q4c_random_kg(q4c_rng *g, int64_t max4, int64_t *k, int64_t *gs);
/* The shape of a quantized linear op: M up to 70, N and K up to 192, gs of K. */
void q4c_random_linear(q4c_rng *g, q4_case *c);
/* The shape of a weight op (dequantize, requant): N up to 256, K up to 384, gs of K. */
void q4c_random_weight(q4c_rng *g, q4_case *c);

#endif
