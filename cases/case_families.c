/* case_families.c: what each family name means (its doc line) and the checker of the
 * family rules (Q4C_R_*) that an op's family rows state.
 *
 * Families mean the same thing for every op that has them (SPEC §4), so the doc and
 * the rule checks live here once; which rules a family puts on an op's names, and
 * which values it gives the inputs, is the op's row (ops/<op>.c). */
#include <string.h>

#include "case_families.h"

/* Thresholds of the "big" families (README.md "Families"). */
#define LARGE_VOCAB 32768           /* a vocabulary no single workgroup holds in shared memory */
#define MANY_ROWS 256               /* more rows than any one dispatch dimension tile */
#define LATE_STEP 1000              /* bias corrections near 1: bc1 = 1 - 0.9^t */
#define LARGE_WORK (1ll << 22)      /* M*N*K of a large linear / dW: many workgroups */
#define LARGE_WEIGHT (1ll << 20)    /* N*K of a large dequantize / requant */
#define LARGE_NUMEL (1ll << 18)     /* numel of a large adamw_step */

static const struct {
    const char *name, *doc;
} docs[] = {
    {"tile_aligned", "M % 8, N % 16 and K % 32 all 0 (the tiles of q4case.h): no partial tile anywhere"},
    {"grouped", "K / gs >= 2: several quantization groups along K"},
    {"odd_n4", "N % 8 != 0: the last W_4X8 block has only its lower half (padding words)"},
    {"partial_m", "M % 8 != 0: a partial M tile (includes M = 1 and the small-M kernels)"},
    {"odd_n4_partial_m", "N % 8 != 0 and M % 8 != 0 together"},
    {"grouped_odd_n4", "K / gs >= 2 and N % 8 != 0 together"},
    {"leading_dims", "an activation with at least two leading dims (d<A>x<B>..), flattened to M"},
    {"bias", "b1: the optional bias is added"},
    {"large",
     "shapes spanning many workgroups: M*N*K >= 2^22 (linear, dW), N*K >= 2^20 "
     "(dequantize, requant), numel >= 2^18 (adamw_step)"},
    {"custom", "any in-contract shape, e.g. the shapes of a user's model"},
    {"random", "s<N>: a legal shape and value class drawn from N, weighted towards the edges"},
    {"zero_scales", "about a quarter of the scales are +0 or -0 (q = 0 there), the rest normal"},
    {"ties", "power-of-two scales; half the latents exactly (j + 0.5) * s, j in [-10, 9]"},
    {"clamp_edges",
     "quotients beyond +-8, exactly -8.5 and 7.5, huge latents and tiny (2^-126) scales "
     "whose fp32 quotients overflow to +-Inf"},
    {"basic", "p0 and V % 4 == 0: no masked row, aligned vocabulary"},
    {"masked", "p masks between 1 and R-1 rows (label -100)"},
    {"all_masked", "p100: every row masked, n_valid = 1, loss 0, dlogits 0"},
    {"unaligned_v", "V % 4 != 0: no vec4 load covers a row exactly"},
    {"large_vocab", "V >= 32768 (e.g. Llama 3's 128256)"},
    {"many_rows", "R >= 256 rows (R above 65535 passes the upstream kernel's limit)"},
    {"wd_on", "w1: weight decay 0.01"},
    {"wd_off", "w0: no weight decay"},
    {"late_step", "t >= 1000: bias corrections near 1"},
    {"unaligned", "numel % 4 != 0: a vec4 kernel's tail"},
    {"linear1", "train: one q4 linear layer K -> V under fused CE, trained T steps (docs/training.md)"},
    {"linear2", "train: two q4 linear layers K -> h -> V, no nonlinearity, under fused CE"},
    {"linear3", "train: three q4 linear layers K -> h -> h -> V, no nonlinearity, under fused CE"},
    {"small_device",
     "any in-contract shape, run with the device limits its groups/binding/shared/invocations "
     "tokens name lowered for this case only: the launchers' paths for a small device (grid "
     "folding, buffer splitting, fallback tiles, shared-memory passes), results unchanged"},
};

const char *q4c_family_doc(const char *family)
{
    for (size_t i = 0; family && i < sizeof docs / sizeof docs[0]; i++)
        if (strcmp(docs[i].name, family) == 0)
            return docs[i].doc;
    return NULL;
}

/* fused_ce: rows masked for R rows at p percent, rounded half up. */
static int64_t masked_rows(const q4_case *c) { return q4c_ce_masked_rows(c->r, c->mask_pct); }

#define NEED(cond, ...) \
    do { if (!(cond)) return q4_fail(err, Q4_ERR_ARG, "family %s needs " __VA_ARGS__); } while (0)

q4_status q4c_family_check(const q4c_family *f, const q4_case *c, q4_error *err)
{
    const unsigned r = f->rules;
    const char *fam = f->name;
    const long long M = c->m, N = c->n, K = c->k;
    const int64_t masked = masked_rows(c);

    if (r & Q4C_R_M_ALIGNED) NEED(M % Q4_CASE_TILE_M == 0, "M %% %d == 0 (M = %lld)", fam, Q4_CASE_TILE_M, M);
    if (r & Q4C_R_M_PARTIAL) NEED(M % Q4_CASE_TILE_M != 0, "M %% %d != 0 (M = %lld)", fam, Q4_CASE_TILE_M, M);
    if (r & Q4C_R_LEAD) NEED(c->nlead >= 2, "at least two leading dims, e.g. d2x3 (got %s)", fam,
                             c->nlead == 1 ? "one" : "none");
    if (r & Q4C_R_N_ALIGNED) NEED(N % Q4_CASE_TILE_N == 0, "N %% %d == 0 (N = %lld)", fam, Q4_CASE_TILE_N, N);
    if (r & Q4C_R_K_ALIGNED) NEED(K % Q4_CASE_TILE_K == 0, "K %% %d == 0 (K = %lld)", fam, Q4_CASE_TILE_K, K);
    if (r & Q4C_R_N_ODD4) NEED(N % 8 != 0, "N %% 8 != 0 (N = %lld)", fam, N);
    if (r & Q4C_R_GROUPED) NEED(K / c->gs >= 2, "K / gs >= 2 (K = %lld, gs = %lld)", fam, K, (long long)c->gs);
    if (r & Q4C_R_BIAS) NEED(c->bias, "b1 (a bias)", fam);
    if (r & Q4C_R_LARGE_MNK)
        NEED((double)M * N * K >= (double)LARGE_WORK, "M*N*K >= 2^22 (M*N*K = %.0f)", fam,
             (double)M * N * K);
    if (r & Q4C_R_LARGE_NK) NEED(N * K >= LARGE_WEIGHT, "N*K >= 2^20 (N*K = %lld)", fam, N * K);
    if (r & Q4C_R_LARGE_NUMEL)
        NEED(c->numel >= LARGE_NUMEL, "numel >= 2^18 (n%lld)", fam, (long long)c->numel);
    if (r & Q4C_R_P_ZERO) NEED(c->mask_pct == 0, "p0 (got p%d)", fam, c->mask_pct);
    if (r & Q4C_R_P_ALL) NEED(c->mask_pct == 100, "p100 (got p%d)", fam, c->mask_pct);
    if (r & Q4C_R_P_SOME)
        NEED(masked >= 1 && masked <= c->r - 1,
             "p to mask between 1 and R-1 rows (p%d masks %lld of %lld rows)", fam, c->mask_pct,
             (long long)masked, (long long)c->r);
    if (r & Q4C_R_V_ALIGNED) NEED(c->v % 4 == 0, "V %% 4 == 0 (V = %lld)", fam, (long long)c->v);
    if (r & Q4C_R_V_UNALIGNED) NEED(c->v % 4 != 0, "V %% 4 != 0 (V = %lld)", fam, (long long)c->v);
    if (r & Q4C_R_V_LARGE) NEED(c->v >= LARGE_VOCAB, "V >= %d (V = %lld)", fam, LARGE_VOCAB, (long long)c->v);
    if (r & Q4C_R_R_MANY) NEED(c->r >= MANY_ROWS, "R >= %d (R = %lld)", fam, MANY_ROWS, (long long)c->r);
    if (r & Q4C_R_W_ON) NEED(c->wd == 1, "w1 (got w%d)", fam, c->wd);
    if (r & Q4C_R_W_OFF) NEED(c->wd == 0, "w0 (got w%d)", fam, c->wd);
    if (r & Q4C_R_T_LATE) NEED(c->step >= LATE_STEP, "t >= %d (got t%lld)", fam, LATE_STEP, (long long)c->step);
    if (r & Q4C_R_NUMEL_UNALIGNED)
        NEED(c->numel % 4 != 0, "numel %% 4 != 0 (n%lld)", fam, (long long)c->numel);
    if (r & Q4C_R_LIMITS)
        NEED(q4_case_has_limits(c), "at least one device limit lowered (groups<G>, binding<B>, "
             "shared<S> or invocations<I>)", fam);
    else
        for (int i = 0; i < Q4_CASE_LIMITS; i++)
            if (c->limit[i])
                return q4_fail(err, Q4_ERR_ARG, "family %s takes no device limit ('%s%lld'); "
                               "lowered limits belong to family small_device", fam,
                               q4_case_limit_key(i), (long long)c->limit[i]);
    return Q4_OK;
}
