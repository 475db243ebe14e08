/* outputs.h: allocating the outputs of one case (real: truth, bound, got; code: code, alt, got). */
#ifndef Q4H_OUTPUTS_H
#define Q4H_OUTPUTS_H

#include "op.h"

q4_status q4h_real_output(q4h_outputs *out, const char *name, int64_t rows, int64_t cols,
                          const char *row_name, const char *col_name, q4h_output **o,
                          q4_error *err);
/* A real output of a tiled truth (q4h_tiled_truth): got alone, the truth is made by
 * tiles. */
q4_status q4h_tiled_output(q4h_outputs *out, const char *name, int64_t rows, int64_t cols,
                           const char *row_name, const char *col_name, q4h_output **o,
                           q4_error *err);
/* Allocates o's envelope arrays (alw, sd, and shr when `shared`); a tiled output's
 * tiles get them instead. */
q4_status q4h_output_envelope(q4h_output *o, bool shared, q4_error *err);
/* Allocates o's col_var arrays (one double per column each). */
q4_status q4h_output_col_var(q4h_output *o, q4_error *err);
q4_status q4h_code_output(q4h_outputs *out, const char *name, int64_t rows, int64_t cols,
                          const char *row_name, const char *col_name, q4h_output **o,
                          q4_error *err);

#endif
