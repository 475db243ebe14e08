/* report_map.c: the error maps and worst elements of one dumped case, for the page
 * `q4cts report` writes: the margins come from the judge (q4h_element_margin), so
 * the map shows exactly what decided the verdict, cell by cell. A map keeps the
 * element grid when it fits in Q4H_MAP_ROWS x Q4H_MAP_COLS cells, so a wrong tail,
 * a wrong group or tile boundary shows as a stripe of cells; a larger output is
 * pooled into blocks (the largest margin of each), and a long vector is folded into
 * rows of Q4H_MAP_FOLD elements. */
#include "report_map.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "judge.h"

json_object *q4h_report_num(double v, int digits)
{
    char text[40];
    if (!isfinite(v))
        return NULL;   /* json-c writes NULL as null */
    snprintf(text, sizeof text, "%.*g", digits, v);
    return json_object_new_double_s(strtod(text, NULL), text);
}

/* A value that may not be finite (a GPU result): a number, or its name as a string. */
static json_object *value(double v)
{
    if (isfinite(v))
        return q4h_report_num(v, 9);
    return json_object_new_string(v != v ? "NaN" : v > 0 ? "Infinity" : "-Infinity");
}

static int add(json_object *obj, const char *key, json_object *v)
{
    return json_object_object_add(obj, key, v) == 0;
}

static json_object *pair(const char *a, const char *b)
{
    json_object *arr = json_object_new_array_ext(2);
    if (arr) {
        json_object_array_add(arr, json_object_new_string(a));
        json_object_array_add(arr, json_object_new_string(b));
    }
    return arr;
}

static json_object *int_pair(int64_t a, int64_t b)
{
    json_object *arr = json_object_new_array_ext(2);
    if (arr) {
        json_object_array_add(arr, json_object_new_int64(a));
        json_object_array_add(arr, json_object_new_int64(b));
    }
    return arr;
}

/* The map of one output. */
static json_object *map_output(const q4h_output *o)
{
    /* The layout: a vector longer than one row of the map is folded. */
    int64_t cols = o->cols, rows = o->rows, fold = 0;
    if (rows == 1 && cols > Q4H_MAP_COLS) {
        fold = Q4H_MAP_FOLD;
        rows = (cols + fold - 1) / fold;
        cols = fold;
    }
    int64_t bh = (rows + Q4H_MAP_ROWS - 1) / Q4H_MAP_ROWS, bw = (cols + Q4H_MAP_COLS - 1) / Q4H_MAP_COLS;
    int64_t gr = (rows + bh - 1) / bh, gc = (cols + bw - 1) / bw, cells = gr * gc;
    double *worst = malloc((size_t)cells * sizeof *worst);
    double *sum = calloc((size_t)cells, sizeof *sum);
    int64_t *n = calloc((size_t)cells, sizeof *n);
    json_object *map = json_object_new_object();
    json_object *jmax = json_object_new_array_ext((int)cells);
    json_object *jmean = o->got ? json_object_new_array_ext((int)cells) : NULL;
    int ok = worst && sum && n && map && jmax && (jmean || !o->got);
    for (int64_t c = 0; ok && c < cells; c++)
        worst[c] = -1;   /* no element (the tail of a folded vector) */
    double top = 0;
    for (int64_t i = 0; ok && i < o->count; i++) {
        int64_t r = fold ? i / fold : i / o->cols, c = fold ? i % fold : i % o->cols;
        int64_t cell = (r / bh) * gc + c / bw;
        double err, margin = q4h_element_margin(o, i, &err);
        if (margin != margin)
            margin = INFINITY;   /* a truth that is not finite: nothing passes it */
        worst[cell] = fmax(worst[cell], margin);
        top = fmax(top, margin);
        if (o->got && o->bound[i] > 0 && isfinite(err)) {
            sum[cell] += ((double)o->got[i] - o->value[i]) / o->bound[i];
            n[cell]++;
        }
    }
    for (int64_t c = 0; ok && c < cells; c++) {
        ok = json_object_array_add(jmax, q4h_report_num(worst[c], 3)) == 0;
        if (ok && jmean)
            ok = json_object_array_add(jmean, n[c] ? q4h_report_num(sum[c] / (double)n[c], 3)
                                                   : NULL) == 0;
    }
    ok = ok && add(map, "name", json_object_new_string(o->name)) &&
         add(map, "kind", json_object_new_string(o->got ? "real" : "code")) &&
         add(map, "shape", int_pair(o->rows, o->cols)) &&
         add(map, "dims", pair(o->row_name, o->col_name)) &&
         add(map, "fold", json_object_new_int64(fold)) &&
         add(map, "block", int_pair(bh, bw)) && add(map, "grid", int_pair(gr, gc)) &&
         add(map, "margin", q4h_report_num(top, 4)) && add(map, "max", jmax);
    if (ok && jmean)
        ok = add(map, "mean", jmean);
    else
        json_object_put(jmean);
    if (!ok && !json_object_object_get_ex(map, "max", NULL))
        json_object_put(jmax);
    free(worst);
    free(sum);
    free(n);
    if (!ok) {
        json_object_put(map);
        return NULL;
    }
    return map;
}

typedef struct worst_elem {
    const q4h_output *o;
    int64_t index;
    double margin, err;
} worst_elem;

/* Keeps the Q4H_MAP_WORST largest margins, largest first; among equal margins the
 * first seen (lowest index) stays, as in the judge. */
static void keep_worst(worst_elem *w, int *n, const q4h_output *o, int64_t i)
{
    double err, margin = q4h_element_margin(o, i, &err);
    if (margin != margin)
        margin = INFINITY;
    if (*n == Q4H_MAP_WORST && !(margin > w[*n - 1].margin))
        return;
    int at = *n < Q4H_MAP_WORST ? (*n)++ : *n - 1;
    while (at > 0 && margin > w[at - 1].margin) {
        w[at] = w[at - 1];
        at--;
    }
    w[at] = (worst_elem){ o, i, margin, err };
}

static json_object *worst_json(const worst_elem *w)
{
    char where[64];
    const q4h_output *o = w->o;
    json_object *e = json_object_new_object();
    q4h_element_where(o, w->index, where, sizeof where);
    int ok = e && add(e, "output", json_object_new_string(o->name)) &&
             add(e, "index", json_object_new_int64(w->index)) &&
             add(e, "where", json_object_new_string(where)) &&
             add(e, "margin", q4h_report_num(w->margin, 4)) &&
             add(e, "err", value(w->err));
    if (ok && o->got)
        ok = add(e, "got", value(o->got[w->index])) &&
             add(e, "expected", value(o->value[w->index])) &&
             add(e, "bound", value(o->bound[w->index]));
    else if (ok)
        ok = add(e, "got", json_object_new_int(o->got_code[w->index])) &&
             add(e, "expected", json_object_new_int(o->code[w->index])) &&
             add(e, "alt", json_object_new_int(o->alt[w->index]));
    if (!ok) {
        json_object_put(e);
        return NULL;
    }
    return e;
}

json_object *q4h_report_maps(const q4h_outputs *out)
{
    worst_elem w[Q4H_MAP_WORST];
    int n_worst = 0;
    json_object *maps = json_object_new_array(), *worst = json_object_new_array();
    json_object *all = json_object_new_object();
    int ok = maps && worst && all;
    for (int k = 0; ok && k < out->n; k++) {
        json_object *m = map_output(&out->o[k]);
        ok = m && json_object_array_add(maps, m) == 0;
        for (int64_t i = 0; ok && i < out->o[k].count; i++)
            keep_worst(w, &n_worst, &out->o[k], i);
    }
    for (int i = 0; ok && i < n_worst; i++) {
        json_object *e = worst_json(&w[i]);
        ok = e && json_object_array_add(worst, e) == 0;
    }
    if (ok && add(all, "outputs", maps)) {
        maps = NULL;
        if (add(all, "worst", worst))
            return all;
    }
    json_object_put(maps);
    json_object_put(worst);
    json_object_put(all);
    return NULL;
}
