/* q4spv_lcov.c: coverage figures and the lcov tracefile (q4spv_lcov.h). */
#include "q4spv_lcov.h"

#include <stdlib.h>
#include <string.h>

typedef struct line_rec {
    const char *file;
    uint32_t line;
    uint32_t hit;
} line_rec;

typedef struct branch_rec {
    const char *file;
    uint32_t line;
    uint32_t id;                      /* unique over the run: module * 2^20 + branch */
    int ran;                          /* the branching block ran */
    uint32_t taken[2];
} branch_rec;

static int cmp_line(const void *a, const void *b)
{
    const line_rec *x = a, *y = b;
    int c = strcmp(x->file, y->file);
    if (c)
        return c;
    return (x->line > y->line) - (x->line < y->line);
}

static int cmp_branch(const void *a, const void *b)
{
    const branch_rec *x = a, *y = b;
    int c = strcmp(x->file, y->file);
    if (c)
        return c;
    if (x->line != y->line)
        return (x->line > y->line) - (x->line < y->line);
    return (x->id > y->id) - (x->id < y->id);
}

/* Every (file, line, hit) of the module's blocks, sorted, duplicates merged. */
static line_rec *module_lines(const q4spv_cov *c, size_t *n)
{
    const q4spv_map *m = c->map;
    line_rec *r = malloc((m->n_pos ? m->n_pos : 1) * sizeof *r);
    size_t k = 0;
    if (!r)
        return NULL;
    for (uint32_t b = 0; b < m->n_blocks; b++)
        for (uint32_t i = 0; i < m->blocks[b].n_pos; i++) {
            const q4spv_pos *p = &m->pos[m->blocks[b].first_pos + i];
            if (p->line && p->file < m->n_files)
                r[k++] = (line_rec){ m->files[p->file], p->line, c->hit[b] != 0 };
        }
    qsort(r, k, sizeof *r, cmp_line);
    size_t out = 0;
    for (size_t i = 0; i < k; i++) {
        if (out && !cmp_line(&r[out - 1], &r[i]))
            r[out - 1].hit |= r[i].hit;
        else
            r[out++] = r[i];
    }
    *n = out;
    return r;
}

void q4spv_cov_figures_of(const q4spv_cov *c, q4spv_cov_figures *f)
{
    const q4spv_map *m = c->map;
    size_t n = 0;
    *f = (q4spv_cov_figures){ .blocks = m->n_blocks, .branches = 2 * m->n_branches };
    for (uint32_t b = 0; b < m->n_blocks; b++)
        f->blocks_hit += c->hit[b] != 0;
    for (uint32_t e = 0; e < 2 * m->n_branches; e++)
        f->branches_hit += c->hit[m->branch_base + e] != 0;
    line_rec *r = module_lines(c, &n);
    for (size_t i = 0; r && i < n; i++)
        f->lines_hit += r[i].hit != 0;
    f->lines = (uint32_t)n;
    free(r);
}

int q4spv_lcov_write(FILE *f, const q4spv_cov *c, int n)
{
    size_t n_lines = 0, n_br = 0, cap_lines = 0, cap_br = 0;
    for (int i = 0; i < n; i++) {
        cap_lines += c[i].map->n_pos;
        cap_br += c[i].map->n_branches;
    }
    line_rec *lines = malloc((cap_lines ? cap_lines : 1) * sizeof *lines);
    branch_rec *br = malloc((cap_br ? cap_br : 1) * sizeof *br);
    int rc = -1;
    if (!lines || !br)
        goto done;
    for (int i = 0; i < n; i++) {
        size_t k;
        line_rec *r = module_lines(&c[i], &k);
        if (!r)
            goto done;
        memcpy(lines + n_lines, r, k * sizeof *r);
        n_lines += k;
        free(r);
        const q4spv_map *m = c[i].map;
        for (uint32_t b = 0; b < m->n_branches; b++) {
            const q4spv_branch *x = &m->branches[b];
            if (!x->at.line || x->at.file >= m->n_files)
                continue;
            const uint8_t *e = c[i].hit + m->branch_base + 2 * b;
            br[n_br++] = (branch_rec){ m->files[x->at.file], x->at.line,
                                       ((uint32_t)i << 20) | b, c[i].hit[x->block] != 0,
                                       { e[0] != 0, e[1] != 0 } };
        }
    }
    qsort(lines, n_lines, sizeof *lines, cmp_line);
    qsort(br, n_br, sizeof *br, cmp_branch);

    size_t li = 0, bi = 0;
    while (li < n_lines || bi < n_br) {
        const char *file = li < n_lines ? lines[li].file : br[bi].file;
        if (bi < n_br && li < n_lines && strcmp(br[bi].file, file) < 0)
            file = br[bi].file;
        uint32_t lf = 0, lh = 0, brf = 0, brh = 0;
        fprintf(f, "TN:\nSF:%s\n", file);
        for (; bi < n_br && !strcmp(br[bi].file, file); bi++)
            for (int t = 0; t < 2; t++) {
                brf++;
                brh += br[bi].taken[t] != 0;
                if (br[bi].ran)
                    fprintf(f, "BRDA:%u,%u,%d,%u\n", br[bi].line, br[bi].id, t, br[bi].taken[t]);
                else
                    fprintf(f, "BRDA:%u,%u,%d,-\n", br[bi].line, br[bi].id, t);
            }
        if (brf)
            fprintf(f, "BRF:%u\nBRH:%u\n", brf, brh);
        for (; li < n_lines && !strcmp(lines[li].file, file); li++) {
            /* the same line from several modules: hit if any hit it */
            uint32_t hit = lines[li].hit;
            while (li + 1 < n_lines && !cmp_line(&lines[li], &lines[li + 1]))
                hit |= lines[++li].hit;
            fprintf(f, "DA:%u,%u\n", lines[li].line, hit);
            lf++;
            lh += hit != 0;
        }
        fprintf(f, "LF:%u\nLH:%u\nend_of_record\n", lf, lh);
    }
    rc = ferror(f) ? -1 : 0;
done:
    free(lines);
    free(br);
    return rc;
}
