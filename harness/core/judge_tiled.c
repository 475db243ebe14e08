/* judge_tiled.c: judging a truth that is made tile by tile (q4h_tiled_truth, op.h).
 *
 * The whole truth of a big case is written to fresh memory (for AdamW about 84 bytes
 * an element: values, bounds, envelopes) and read again by the judge; faulting those
 * pages in was most of its time. Here each thread makes a small tile of the truth in
 * memory of its own, which stays in its cache, scans it at once as the whole judge
 * scans its arrays (judge_scan.h), and goes on to the next. Work items are row blocks
 * of Q4H_JUDGE_CHUNK columns (whole rows where the op makes rows only, several short
 * rows together), so each statistical block is summed by one thread in index order
 * exactly as the whole judge sums it; the join is the whole judge's. A tile is at
 * most SUB elements of one row, so that it stays in the cache, unless the op makes
 * whole rows. */
#include "judge.h"
#include "judge_scan.h"

#include <omp.h>

#include <stdlib.h>

#include "clock.h"

enum { CHUNK = Q4H_JUDGE_CHUNK, SUB = 4096 };

/* The tiling of a case: the tiled outputs (of one shape) and how rows and columns are
 * cut into work items. */
typedef struct tiling {
    const q4h_tiled_truth *tt;
    void *state;
    q4h_outputs *out;
    int tiled[Q4H_MAX_OUTPUTS], nt;   /* the tiled outputs' indexes */
    int64_t rows, cols, per_row;
    int64_t rows_per_item;            /* cols <= CHUNK: rows of each item; else 1 */
    int64_t items, sub;               /* work items; elements of a tile's arrays */
    q4h_output_scan *scans;           /* per output index */
} tiling;

/* One thread's arrays for a tile's truth: per tiled output, sub elements each. */
typedef struct scratch {
    double *value[Q4H_MAX_OUTPUTS], *bound[Q4H_MAX_OUTPUTS];
    float *alw[Q4H_MAX_OUTPUTS], *sd[Q4H_MAX_OUTPUTS], *shr[Q4H_MAX_OUTPUTS];
    void *mem;
} scratch;

static bool scratch_new(const tiling *t, scratch *s)
{
    /* each output's arrays from a cache line of their own: doubles aligned */
    const size_t per = ((size_t)t->sub * (2 * sizeof(double) + 3 * sizeof(float)) + 63) / 64 * 64;
    char *p = aligned_alloc(64, per * (size_t)t->nt + 64);
    *s = (scratch){ .mem = p };
    if (!p)
        return false;
    for (int i = 0; i < t->nt; i++) {
        const q4h_output *o = &t->out->o[t->tiled[i]];
        const size_t n = (size_t)t->sub;
        s->value[i] = (double *)p;
        s->bound[i] = (double *)(p + n * sizeof(double));
        float *f = (float *)(p + 2 * n * sizeof(double));
        s->alw[i] = o->tiled_env ? f : NULL;
        s->sd[i] = o->tiled_env ? f + n : NULL;
        s->shr[i] = o->tiled_shr ? f + 2 * n : NULL;
        p += per;
    }
    return true;
}

/* Columns [j0, j1) of row r: the tile's truth made, then scanned into item's chunk
 * and the row's blocks. */
static void tile(const tiling *t, const scratch *s, int64_t item, int64_t r, int64_t j0,
                 int64_t j1)
{
    q4h_truth_tile x = { .row = r, .j0 = j0, .j1 = j1 };
    for (int i = 0; i < t->nt; i++) {
        const int k = t->tiled[i];
        x.value[k] = s->value[i];
        x.bound[k] = s->bound[i];
        x.env[k] = (q4ref_envelope){ s->alw[i], s->sd[i], s->shr[i] };
    }
    t->tt->tile(t->state, &x);
    const int64_t at = r * t->cols + j0;
    for (int i = 0; i < t->nt; i++) {
        const int k = t->tiled[i];
        const q4h_output *o = &t->out->o[k];
        q4h_output_scan *sc = &t->scans[k];
        const q4h_truth_view v = { s->value[i], s->bound[i], s->alw[i], s->sd[i], s->shr[i],
                                   at };
        /* counted and summed in copies of this thread's own: the shared arrays'
         * neighbours are other threads' (no cache line passed to and fro each element) */
        q4h_chunk_worst c = sc->chunks[item], first = Q4H_NO_WORST;
        q4h_scan_elements(o, &v, at, at + (j1 - j0), &c, &first);
        sc->chunks[item] = c;
        if (at == 0)
            sc->first = first;
        for (int64_t a = j0, b; sc->blocks && a < j1; a = b) {   /* block by block */
            b = (a / CHUNK + 1) * CHUNK < j1 ? (a / CHUNK + 1) * CHUNK : j1;
            q4h_stat_sums g = sc->blocks[r * t->per_row + a / CHUNK];
            q4h_scan_stat(o, &v, r, a, b, &g);
            sc->blocks[r * t->per_row + a / CHUNK] = g;
        }
    }
}

/* Work item `item`: its rows and columns, tile by tile in index order. */
static void run_item(const tiling *t, const scratch *s, int64_t item)
{
    int64_t r0, r1, j0 = 0, j1 = t->cols;
    if (t->cols > CHUNK && !t->tt->whole_rows) {
        r0 = item / t->per_row;
        r1 = r0 + 1;
        j0 = item % t->per_row * CHUNK;
        j1 = j0 + CHUNK < t->cols ? j0 + CHUNK : t->cols;
    } else {
        r0 = item * t->rows_per_item;
        r1 = r0 + t->rows_per_item < t->rows ? r0 + t->rows_per_item : t->rows;
    }
    for (int64_t r = r0; r < r1; r++)
        for (int64_t a = j0, b; a < j1; a = b) {
            b = t->tt->whole_rows || a + SUB > j1 ? j1 : a + SUB;
            tile(t, s, item, r, a, b);
        }
}

/* The tiled outputs and their tiling; each one's scan ready to be filled. */
static q4_status plan(q4h_outputs *out, q4h_output_scan *scans, tiling *t, q4_error *err)
{
    *t = (tiling){ .tt = out->tiled, .state = out->tiles, .out = out, .scans = scans };
    for (int k = 0; k < out->n; k++) {
        const q4h_output *o = &out->o[k];
        if (!o->tiled)
            continue;
        if (t->nt > 0 && (o->rows != t->rows || o->cols != t->cols))
            return q4_fail(err, Q4_ERR_ARG, "tiled outputs of two shapes (%s)", o->name);
        if (!o->got || o->col_var[0])
            return q4_fail(err, Q4_ERR_ARG, "output %s cannot be tiled", o->name);
        t->tiled[t->nt++] = k;
        t->rows = o->rows;
        t->cols = o->cols;
    }
    const int64_t cols = t->cols > 0 ? t->cols : 1;
    t->per_row = t->cols > 0 ? (t->cols + CHUNK - 1) / CHUNK : 0;
    t->rows_per_item = t->cols > CHUNK ? 1 : CHUNK / cols;
    if (t->cols > CHUNK && !t->tt->whole_rows)
        t->items = t->rows * t->per_row;
    else
        t->items = (t->rows + t->rows_per_item - 1) / t->rows_per_item;
    t->sub = t->tt->whole_rows || cols < SUB ? cols : SUB;
    for (int i = 0; i < t->nt; i++) {
        const q4h_output *o = &out->o[t->tiled[i]];
        q4h_output_scan *sc = &scans[t->tiled[i]];
        sc->first = Q4H_NO_WORST;
        sc->n_chunks = t->items;
        sc->chunks = malloc((size_t)(t->items > 0 ? t->items : 1) * sizeof *sc->chunks);
        for (int64_t c = 0; sc->chunks && c < t->items; c++)
            sc->chunks[c] = Q4H_NO_WORST;
        if (q4h_judge_has_stat(o)) {
            const int64_t n_blocks = t->rows * t->per_row;
            sc->per_row = t->per_row;
            sc->blocks = calloc((size_t)(n_blocks > 0 ? n_blocks : 1), sizeof *sc->blocks);
        }
        if (!sc->chunks || (q4h_judge_has_stat(o) && !sc->blocks))
            return q4_fail(err, Q4_ERR_NOMEM, "cannot allocate the judge's sums of output %s "
                           "(%lld work items)", o->name, (long long)t->items);
    }
    return Q4_OK;
}

/* Every work item on every core, each thread with its own tile arrays. */
static q4_status run_items(const tiling *t, q4_error *err)
{
    const int threads = omp_get_max_threads();
    scratch *s = calloc((size_t)threads, sizeof *s);
    bool ok = s != NULL;
    for (int i = 0; ok && i < threads; i++)
        ok = scratch_new(t, &s[i]);
    if (ok) {
#pragma omp parallel for schedule(dynamic, 1) if (t->items > 1)
        for (int64_t item = 0; item < t->items; item++)
            run_item(t, &s[omp_get_thread_num()], item);
    }
    for (int i = 0; s && i < threads; i++)
        free(s[i].mem);
    free(s);
    if (!ok)
        return q4_fail(err, Q4_ERR_NOMEM, "cannot allocate %d threads' tiles of the truth "
                       "(%lld elements each)", threads, (long long)t->sub);
    return Q4_OK;
}

q4_status q4h_judge_tiled(q4h_outputs *out, q4_result *r, double *truth_ms, q4_error *err)
{
    q4h_output_scan scans[Q4H_MAX_OUTPUTS] = { 0 };
    tiling t;
    double t0 = q4h_now_s();
    q4_status st = plan(out, scans, &t, err);
    if (st == Q4_OK)
        st = run_items(&t, err);
    if (st == Q4_OK) {
        out->tiled->end(out->tiles, out);
        *truth_ms = 1e3 * (q4h_now_s() - t0);
        q4h_judging j = { 0 };
        for (int k = 0; k < out->n; k++)
            q4h_judging_output(&j, &out->o[k], out->o[k].tiled ? &scans[k] : NULL);
        q4h_judging_end(&j, r);
    }
    for (int k = 0; k < Q4H_MAX_OUTPUTS; k++) {
        free(scans[k].chunks);
        free(scans[k].blocks);
    }
    return st;
}
