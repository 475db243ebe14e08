/* judge_scan.h: the judge in two steps, for the judge of a tiled truth (judge_tiled.c).
 *
 * First each output's elements are scanned, in pieces on any thread: per chunk of
 * elements its counts and the first of its largest margins, per block of a row's
 * columns its statistical sums. Then the pieces are joined in index order, output by
 * output (judge.c). A scan may be cut into any chunks (the worst is the first of the
 * largest margins whatever the cut), but its blocks are fixed: row r's columns
 * [b * Q4H_JUDGE_CHUNK, (b + 1) * Q4H_JUDGE_CHUNK), each summed in index order. So
 * the whole judge and the tiled one give the same bits. */
#ifndef Q4H_JUDGE_SCAN_H
#define Q4H_JUDGE_SCAN_H

#include "op.h"
#include "q4report.h"

/* Columns per block of a row's statistical sums (and elements per chunk of the
 * whole judge's scan): fixed, so that the work is cut the same way on any thread
 * count and any tiling. */
enum { Q4H_JUDGE_CHUNK = 1 << 16 };

/* Where a real output's truth is: arrays that hold element `at` at their index 0 (the
 * output's own, at 0, or a tile's). */
typedef struct q4h_truth_view {
    const double *value, *bound;
    const float *alw, *sd, *shr;   /* alw NULL: no per-element envelope */
    int64_t at;
} q4h_truth_view;

/* Sums over one group of elements (a row block, a row, or a whole output). */
typedef struct q4h_stat_sums {
    double se, s0;            /* sum sgn(value) err, sum err */
    double ee, ew, ww;        /* sum err^2, err shr, shr^2: the row's residual norm */
    double res2;              /* squared norm of the errors with the shared factor out */
    double shared, a1, a2;    /* sum |shr|, alw, alw^2 */
    double q2, q4, qmax;      /* sum sd^2, sd^4, max sd^2 */
    double var_v, var_0;      /* shared roundings' variance in se and s0 (o->col_var) */
} q4h_stat_sums;

/* One chunk's counts and its worst element: the first of its largest margins, NaN
 * margins left out, with that element's got, expected and bound. index -1: none. */
typedef struct q4h_chunk_worst {
    int64_t index, over, warned;
    double margin, err, got, expected, bound;
} q4h_chunk_worst;

/* An output scanned, before the join. Element 0 is kept alone (first), out of the
 * chunks' candidates though in no count of theirs: as the first element judged it is
 * the worst so far whatever its margin, a NaN too. */
typedef struct q4h_output_scan {
    q4h_chunk_worst first;
    q4h_chunk_worst *chunks;  /* in index order */
    int64_t n_chunks;
    q4h_stat_sums *blocks;    /* row r's block b at r * per_row + b; NULL: no statistic */
    int64_t per_row;
} q4h_output_scan;

#define Q4H_NO_WORST ((q4h_chunk_worst){ -1, 0, 0, 0, 0, 0, 0, 0 })

/* Whether real output o has a statistical check (an envelope of either kind). */
bool q4h_judge_has_stat(const q4h_output *o);
/* Elements [a, b) of o, whose truth is in v, into c (counts added, the worst kept):
 * element 0, where a is 0, into *first instead. */
void q4h_scan_elements(const q4h_output *o, const q4h_truth_view *v, int64_t a, int64_t b,
                       q4h_chunk_worst *c, q4h_chunk_worst *first);
/* Row r's elements in columns [j0, j1) of real output o, in order, added to g. */
void q4h_scan_stat(const q4h_output *o, const q4h_truth_view *v, int64_t r, int64_t j0,
                   int64_t j1, q4h_stat_sums *g);

/* The join, output by output in order: q4h_judge is a zeroed q4h_judging, then
 * q4h_judging_output of each output (scan NULL: scanned from its arrays now), then
 * q4h_judging_end. */
typedef struct q4h_judging {
    struct {                  /* the worst element so far */
        double margin, err, got, expected, bound;
        const q4h_output *o;
        int64_t index;
    } w;
    struct {                  /* the worst statistic: output, row (-1: the whole output,
                               * -2 - j: column j), which test */
        double margin, stat, env;
        const q4h_output *o;
        int64_t row;
        const char *test;
    } sw;
    int64_t over, warned, elements;
    char problem[512];        /* the first guard or padding problem */
} q4h_judging;
void q4h_judging_output(q4h_judging *j, const q4h_output *o, const q4h_output_scan *scan);
void q4h_judging_end(const q4h_judging *j, q4_result *r);

#endif
