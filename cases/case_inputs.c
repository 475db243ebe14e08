/* case_inputs.c: the seeded input generator: a case (name + seed) to host buffers,
 * bit-identical on any machine (README.md "Generator").
 *
 * Each tensor has its own splitmix64 stream, seeded from the canonical name, the
 * user seed and the tensor's name, so adding a tensor or changing one shape never
 * shifts another tensor's values. Every float is i * 2^e with |i| < 2^24, or the
 * exact product of two such values whose significands fit 24 bits together, so no
 * value depends on rounding, contraction or denormal modes. No libm. */
#include <stdlib.h>
#include <string.h>

#include "case_internal.h"

uint64_t q4_case_stream_seed(const q4_case *c, const char *tensor)
{
    char name[Q4_CASE_NAME_MAX];
    q4_case_format(c, name, sizeof name);
    return q4c_mix64(q4c_fnv1a64_str(name) ^ c->seed ^ q4c_fnv1a64_str(tensor));
}

static q4c_rng stream(const q4_case *c, const char *tensor)
{
    q4c_rng g = {q4_case_stream_seed(c, tensor)};
    return g;
}

/* ---------------- AdamW hyper-parameters ---------------- */

/* b^t by binary powering in double: each product is one IEEE rounding, so the result
 * is the same on every machine with IEEE double arithmetic (FLT_EVAL_METHOD 0). */
static double pow_int(double b, int64_t t)
{
    double r = 1.0;
    while (t > 0) {
        if (t & 1) r *= b;
        b *= b;
        t >>= 1;
    }
    return r;
}

void q4c_adamw_hyper(int64_t step, int wd, float *lr, float *beta1, float *beta2, float *eps,
                     float *wdv, float *bc1, float *bc2)
{
    /* torch.optim.AdamW's defaults except wd (0.01, its default, or 0); bias
     * corrections from the double betas, as torch computes them in Python floats. */
    *lr = 1e-3f;
    *beta1 = 0.9f;
    *beta2 = 0.999f;
    *eps = 1e-8f;
    *wdv = wd ? 0.01f : 0.0f;
    *bc1 = (float)(1.0 - pow_int(0.9, step));
    *bc2 = (float)(1.0 - pow_int(0.999, step));
}

/* ---------------- value makers ---------------- */

/* Uniform in [-A, A) * 2^-e, i.e. about [-A/2^e, A/2^e); A <= 2^23. */
static void fill_sym(q4c_rng g, float *a, int64_t n, int64_t A, int e)
{
    for (int64_t i = 0; i < n; i++) a[i] = q4c_exact(q4c_range(&g, -A, A), -e);
}

/* A normal scale +-(1 + m/8) * 2^e, m in 0..7 (4 significant bits), e in [emin, emin+5]. */
static float scale_value(uint64_t r, int pow2_only, int emin)
{
    int64_t sign = (r & 1) ? -1 : 1;
    int64_t m = pow2_only ? 0 : (int64_t)((r >> 1) & 7);
    int e = emin + (int)((r >> 4) % 6);
    return q4c_exact(sign * (8 + m), e - 3);
}

typedef enum scale_mode { SCALES_NORMAL, SCALES_POW2, SCALES_ZERO, SCALES_TINY } scale_mode;

static void fill_scales(q4c_rng g, float *s, int64_t n, scale_mode mode)
{
    for (int64_t i = 0; i < n; i++) {
        uint64_t r = q4c_next(&g);
        int special = ((r >> 8) & 3) == 0;   /* one in four */
        if (mode == SCALES_ZERO && (special || i < 2)) {
            /* Both zeros, and at least one of each: q = 0 must hold for -0 too. */
            int negative = i == 1 || (i > 1 && ((r >> 10) & 1));
            s[i] = q4c_signed_zero(negative);
        }
        else if (mode == SCALES_TINY && (special || i == 0))
            s[i] = scale_value(r, 0, -126);   /* (1 + m/8) * 2^-126: normal, tiny */
        else
            s[i] = scale_value(r, mode == SCALES_POW2, -8);
    }
}

/* ---------------- W_4X8 packing (SPEC §1b, closed form of q4_contract.h) ---------------- */

static void pack_w4x8(const uint8_t *codes, int64_t N, int64_t K, uint32_t *w)
{
    int64_t words = q4_w4x8_words(N, K);
    for (int64_t i = 0; i < words; i++) w[i] = Q4_W4X8_PAD;   /* odd-N4 padding stays so */
    for (int64_t n = 0; n < N; n++)
        for (int64_t k = 0; k < K; k++) {
            int64_t wi = q4_w4x8_word(N, n, k);
            unsigned sh = q4_w4x8_shift(n, k);
            w[wi] = (w[wi] & ~(0xFu << sh)) | ((uint32_t)codes[n * K + k] << sh);
        }
}

/* ---------------- requant latents ---------------- */

typedef enum latent_mode { LATENT_ORDINARY, LATENT_TIES, LATENT_CLAMP } latent_mode;

/* s * u where both are exact and their significands fit 24 bits together: the IEEE
 * product is exact, hence the same everywhere. */
static float exact_mul(float s, float u) { return s * u; }

static int is_tiny(float s) { return s != 0 && s < 1e-30f && s > -1e-30f; }

/* u in [-9.5, 8.5) with 16 fraction bits (20 significant bits): codes span -8..7,
 * a few clamp. For a tiny scale |u| >= 1 keeps s*u normal. */
static float ordinary_u(q4c_rng *g, int tiny)
{
    int64_t i = q4c_range(g, -622592, 557056);
    if (tiny && i > -65536 && i < 65536) i += i < 0 ? -65536 : 65536;
    return q4c_exact(i, -16);
}

static float latent_value(q4c_rng *g, float s, latent_mode mode)
{
    static const int64_t edges2[] = {-17, 15, -15, 13, 17, -19, 16, -16};   /* 2u: -8.5, 7.5, ... */
    if (s == 0)
        return q4c_exact(q4c_range(g, -(1 << 23), 1 << 23), -23);   /* any value: q = 0 */
    if (mode == LATENT_TIES && (q4c_next(g) & 1))
        return exact_mul(s, q4c_exact(2 * q4c_range(g, -10, 10) + 1, -1));   /* (j + 0.5) s */
    if (mode == LATENT_CLAMP) {
        int64_t sign = (q4c_next(g) & 1) ? -1 : 1;
        switch (q4c_below(g, 8)) {
        case 3:   /* beyond the clamp: |u| in [8, 4096) */
            return exact_mul(s, q4c_exact(sign * q4c_range(g, 1 << 11, 1 << 20), -8));
        case 4:   /* exactly at the edges */
            return exact_mul(s, q4c_exact(edges2[q4c_below(g, 8)], -1));
        case 5:   /* huge: 1.5 * 2^127, the quotient overflows to +-Inf */
            return q4c_exact(sign * 3, 126);
        case 6:
            return q4c_signed_zero(sign < 0);
        case 7:   /* |latent| in [8, 2^21): +-Inf over a tiny scale, a clamp otherwise */
            return q4c_exact(sign * (8 + q4c_range(g, 0, 8)), (int)q4c_range(g, 0, 18));
        default:
            break;
        }
    }
    return exact_mul(s, ordinary_u(g, is_tiny(s)));
}

/* ---------------- allocation ---------------- */

/* malloc of count elements; NULL with *st and err set when the size overflows or
 * the allocation fails. */
static void *alloc(int64_t count, size_t elem, const char *what, const q4_case *c,
                   q4_status *st, q4_error *err)
{
    size_t bytes;
    void *p;
    if ((*st = q4_size_bytes(count, 1, 1, elem, what, &bytes, err)))
        return NULL;
    if (!(p = malloc(bytes ? bytes : 1)))
        *st = q4_fail(err, Q4_ERR_NOMEM, "cannot allocate %zu bytes for %s of case %s", bytes,
                      what, c->name);
    return p;
}
#define ALLOC(field, count, what) \
    do { if (!(in->field = alloc((count), sizeof *in->field, (what), c, &st, err))) goto fail; } while (0)

/* ---------------- per op ---------------- */

static int family_is(const q4_case *c, const char *f) { return strcmp(c->family, f) == 0; }

q4_status q4_case_inputs(const q4_case *c, q4_inputs *in, q4_error *err)
{
    q4_status st;
    const q4c_op *op;
    if (!c || !in)
        return q4_fail(err, Q4_ERR_ARG, "q4_case_inputs needs a case and an inputs struct");
    memset(in, 0, sizeof *in);
    if ((st = q4c_validate(c, err))) return st;
    op = q4c_op_find(c->op);
    const int64_t M = c->m, N = c->n, K = c->k;
    const int is_requant = strcmp(op->name, "q4gsw_requant") == 0;

    switch (op->kind) {
    case Q4C_LINEAR:
    case Q4C_WEIGHT: {
        int64_t ns = q4_scales_count(N, K, c->gs);
        scale_mode sm = SCALES_NORMAL;
        if (family_is(c, "zero_scales")) sm = SCALES_ZERO;
        if (family_is(c, "ties")) sm = SCALES_POW2;
        if (family_is(c, "clamp_edges")) sm = SCALES_TINY;
        ALLOC(scales, ns, "scales");
        fill_scales(stream(c, "scales"), in->scales, ns, sm);
        if (is_requant) {
            /* requant's codes and W_4X8 are outputs: only the latent weights are inputs */
            latent_mode lm = sm == SCALES_POW2 ? LATENT_TIES
                           : sm == SCALES_TINY ? LATENT_CLAMP : LATENT_ORDINARY;
            q4c_rng g = stream(c, "latent");
            ALLOC(latent, N * K, "latent");
            for (int64_t n = 0; n < N; n++)
                for (int64_t k = 0; k < K; k++)
                    in->latent[n * K + k] = latent_value(&g, in->scales[(k / c->gs) * N + n], lm);
            break;
        }
        q4c_rng g = stream(c, "codes");
        ALLOC(codes, N * K, "codes");
        ALLOC(w4x8, q4_w4x8_words(N, K), "W_4X8 weights");
        for (int64_t i = 0; i < N * K; i++) in->codes[i] = (uint8_t)(q4c_next(&g) >> 60);
        pack_w4x8(in->codes, N, K, in->w4x8);
        if (op->kind == Q4C_LINEAR && op->has_bias) {   /* forward: x (and bias) */
            ALLOC(x, M * K, "x");
            fill_sym(stream(c, "x"), in->x, M * K, 1 << 23, 23);
            if (c->bias) {
                ALLOC(bias, N, "bias");
                fill_sym(stream(c, "bias"), in->bias, N, 1 << 23, 23);
            }
        } else if (op->kind == Q4C_LINEAR) {            /* backward: dout */
            ALLOC(dout, M * N, "dout");
            fill_sym(stream(c, "dout"), in->dout, M * N, 1 << 23, 23);
        }
        break;
    }
    case Q4C_DW:
        ALLOC(dout, M * N, "dout");
        ALLOC(x, M * K, "x");
        fill_sym(stream(c, "dout"), in->dout, M * N, 1 << 23, 23);
        fill_sym(stream(c, "x"), in->x, M * K, 1 << 23, 23);
        break;
    case Q4C_CE: {
        const int64_t R = c->r, V = c->v, masked = q4c_ce_masked_rows(R, c->mask_pct);
        int64_t *rows = NULL;
        ALLOC(logits, R * V, "logits");
        ALLOC(labels, R, "labels");
        fill_sym(stream(c, "logits"), in->logits, R * V, 10ll << 20, 20);   /* [-10, 10) */
        q4c_rng g = stream(c, "labels");
        for (int64_t r = 0; r < R; r++) in->labels[r] = (int32_t)q4c_below(&g, (uint64_t)V);
        /* The masked rows: the first `masked` of a partial Fisher-Yates shuffle. */
        if (!(rows = alloc(R, sizeof *rows, "row indices", c, &st, err))) goto fail;
        g = stream(c, "mask");
        for (int64_t r = 0; r < R; r++) rows[r] = r;
        for (int64_t i = 0; i < masked; i++) {
            int64_t j = i + (int64_t)q4c_below(&g, (uint64_t)(R - i)), t = rows[i];
            rows[i] = rows[j];
            rows[j] = t;
            in->labels[rows[i]] = Q4_CASE_IGNORE_INDEX;
        }
        free(rows);
        in->n_valid = R - masked > 0 ? (float)(R - masked) : 1.0f;
        break;
    }
    case Q4C_ADAMW: {
        const int64_t n = c->numel;
        ALLOC(param, n, "param");
        ALLOC(grad, n, "grad");
        ALLOC(m, n, "m");
        ALLOC(v, n, "v");
        fill_sym(stream(c, "param"), in->param, n, 1 << 23, 23);         /* [-1, 1) */
        fill_sym(stream(c, "grad"), in->grad, n, 13421772, 27);          /* [-0.1, 0.1) */
        fill_sym(stream(c, "m"), in->m, n, 10737418, 30);                /* [-0.01, 0.01) */
        q4c_rng g = stream(c, "v");
        for (int64_t i = 0; i < n; i++)                                  /* [0, 1e-4) */
            in->v[i] = q4c_exact(q4c_range(&g, 0, 13743895), -37);
        q4c_adamw_hyper(c->step, c->wd, &in->lr, &in->beta1, &in->beta2, &in->eps, &in->wd,
                        &in->bc1, &in->bc2);
        break;
    }
    }
    return Q4_OK;
fail:
    q4_inputs_free(in);
    return st;
}

void q4_inputs_free(q4_inputs *in)
{
    if (!in) return;
    free(in->x); free(in->dout); free(in->bias); free(in->scales); free(in->latent);
    free(in->logits); free(in->param); free(in->grad); free(in->m); free(in->v);
    free(in->codes); free(in->w4x8); free(in->labels);
    memset(in, 0, sizeof *in);
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
