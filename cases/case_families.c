/* case_families.c: the tables of q4cases: the ops, each op's families, the rule each
 * family puts on a name, and the generated set (every case the suite ships).
 *
 * Families mean the same thing for every op that has them (SPEC §4); a rule about a
 * dimension an op lacks (M for dequantize) does not apply to it. The generated set
 * is plain data: canonical names, parsed by the same parser as a user's name, so
 * the tests prove that every shipped name is well formed and meets its family. */
#include <stdio.h>
#include <string.h>

#include "case_internal.h"

/* ---------------- ops ---------------- */

static const char *const linear_fwd_families[] = {
    "tile_aligned", "grouped", "odd_n4", "partial_m", "odd_n4_partial_m", "grouped_odd_n4",
    "leading_dims", "bias", "large", "custom", NULL};
static const char *const linear_bwd_families[] = {
    "tile_aligned", "grouped", "odd_n4", "partial_m", "odd_n4_partial_m", "grouped_odd_n4",
    "leading_dims", "large", "custom", NULL};
static const char *const dw_families[] = {
    "tile_aligned", "odd_n4", "partial_m", "odd_n4_partial_m", "leading_dims", "large",
    "custom", NULL};
static const char *const dequant_families[] = {
    "tile_aligned", "grouped", "odd_n4", "large", "custom", NULL};
static const char *const requant_families[] = {
    "tile_aligned", "grouped", "odd_n4", "zero_scales", "ties", "clamp_edges", "large",
    "custom", NULL};
static const char *const ce_families[] = {
    "basic", "masked", "all_masked", "unaligned_v", "large_vocab", "many_rows", "custom", NULL};
static const char *const adamw_families[] = {
    "wd_on", "wd_off", "late_step", "unaligned", "large", "custom", NULL};

/* Sorted by name, as q4_case_ops() promises nothing else. */
static const q4c_op ops[] = {
    {"adamw_step", Q4C_ADAMW, 0, "n t w", adamw_families},
    {"dequantize", Q4C_WEIGHT, 0, "n k g", dequant_families},
    {"fused_ce", Q4C_CE, 0, "r v p", ce_families},
    {"linear_dW", Q4C_DW, 0, "m|d n k", dw_families},
    {"linear_q4gsw", Q4C_LINEAR, 1, "m|d n k g [b]", linear_fwd_families},
    {"linear_q4gsw_backward", Q4C_LINEAR, 0, "m|d n k g", linear_bwd_families},
    {"q4gsw_requant", Q4C_WEIGHT, 0, "n k g", requant_families},
};
#define N_OPS ((int)(sizeof ops / sizeof ops[0]))
static const char *const op_names[N_OPS] = {
    "adamw_step", "dequantize", "fused_ce", "linear_dW", "linear_q4gsw",
    "linear_q4gsw_backward", "q4gsw_requant"};

const char *const *q4_case_ops(int *count)
{
    if (count) *count = N_OPS;
    return op_names;
}

const q4c_op *q4c_op_find(const char *name)
{
    for (int i = 0; name && i < N_OPS; i++)
        if (strcmp(ops[i].name, name) == 0)
            return &ops[i];
    return NULL;
}

const char *const *q4_case_families(const char *op, int *count)
{
    const q4c_op *o = q4c_op_find(op);
    int n = 0;
    if (o)
        while (o->families[n]) n++;
    if (count) *count = n;
    return o ? o->families : NULL;
}

int q4c_op_has_family(const q4c_op *op, const char *family)
{
    for (int i = 0; op->families[i]; i++)
        if (strcmp(op->families[i], family) == 0)
            return 1;
    return 0;
}

/* ---------------- family rules ---------------- */

enum {
    R_M_ALIGNED = 1 << 0,    /* M % TILE_M == 0 */
    R_N_ALIGNED = 1 << 1,    /* N % TILE_N == 0 */
    R_K_ALIGNED = 1 << 2,    /* K % TILE_K == 0 */
    R_M_PARTIAL = 1 << 3,    /* M % TILE_M != 0 */
    R_N_ODD4 = 1 << 4,       /* N % 8 != 0 */
    R_GROUPED = 1 << 5,      /* K / gs >= 2 */
    R_LEAD = 1 << 6,         /* at least two leading dims */
    R_BIAS = 1 << 7,         /* b1 */
    R_LARGE = 1 << 8,        /* per kind, see large_min() */
    R_P_ZERO = 1 << 9,       /* p0 */
    R_P_SOME = 1 << 10,      /* between 1 and R-1 rows masked */
    R_P_ALL = 1 << 11,       /* p100 */
    R_V_ALIGNED = 1 << 12,   /* V % 4 == 0 */
    R_V_UNALIGNED = 1 << 13, /* V % 4 != 0 */
    R_V_LARGE = 1 << 14,     /* V >= Q4C_LARGE_VOCAB */
    R_R_MANY = 1 << 15,      /* R >= Q4C_MANY_ROWS */
    R_W_ON = 1 << 16,        /* w1 */
    R_W_OFF = 1 << 17,       /* w0 */
    R_T_LATE = 1 << 18,      /* t >= Q4C_LATE_STEP */
    R_NUMEL_UNALIGNED = 1 << 19, /* numel % 4 != 0 */
};

/* Thresholds of the "big" families (README.md "Families"). */
#define Q4C_LARGE_VOCAB 32768      /* a vocabulary no single workgroup holds in shared memory */
#define Q4C_MANY_ROWS 256          /* more rows than any one dispatch dimension tile */
#define Q4C_LATE_STEP 1000         /* bias corrections near 1: bc1 = 1 - 0.9^t */
#define Q4C_LARGE_WORK (1ll << 22) /* M*N*K of a large linear / dW: many workgroups */
#define Q4C_LARGE_WEIGHT (1ll << 20) /* N*K of a large dequantize / requant */
#define Q4C_LARGE_NUMEL (1ll << 18)  /* numel of a large adamw_step */

typedef struct family_rule {
    const char *name;
    unsigned rules;
    const char *doc;
} family_rule;

static const family_rule family_rules[] = {
    {"tile_aligned", R_M_ALIGNED | R_N_ALIGNED | R_K_ALIGNED,
     "M % 8, N % 16 and K % 32 all 0 (the tiles of q4case.h): no partial tile anywhere"},
    {"grouped", R_GROUPED, "K / gs >= 2: several quantization groups along K"},
    {"odd_n4", R_N_ODD4, "N % 8 != 0: the last W_4X8 block has only its lower half (padding words)"},
    {"partial_m", R_M_PARTIAL, "M % 8 != 0: a partial M tile (includes M = 1 and the small-M kernels)"},
    {"odd_n4_partial_m", R_N_ODD4 | R_M_PARTIAL, "N % 8 != 0 and M % 8 != 0 together"},
    {"grouped_odd_n4", R_GROUPED | R_N_ODD4, "K / gs >= 2 and N % 8 != 0 together"},
    {"leading_dims", R_LEAD, "an activation with at least two leading dims (d<A>x<B>..), flattened to M"},
    {"bias", R_BIAS, "b1: the optional bias is added"},
    {"large", R_LARGE,
     "shapes spanning many workgroups: M*N*K >= 2^22 (linear, dW), N*K >= 2^20 "
     "(dequantize, requant), numel >= 2^18 (adamw_step)"},
    {"custom", 0, "any in-contract shape, e.g. the shapes of a user's model"},
    {"zero_scales", 0, "about a quarter of the scales are +0 or -0 (q = 0 there), the rest normal"},
    {"ties", 0, "power-of-two scales; half the latents exactly (j + 0.5) * s, j in [-10, 9]"},
    {"clamp_edges", 0,
     "quotients beyond +-8, exactly -8.5 and 7.5, huge latents and tiny (2^-126) scales "
     "whose fp32 quotients overflow to +-Inf"},
    {"basic", R_P_ZERO | R_V_ALIGNED, "p0 and V % 4 == 0: no masked row, aligned vocabulary"},
    {"masked", R_P_SOME, "p masks between 1 and R-1 rows (label -100)"},
    {"all_masked", R_P_ALL, "p100: every row masked, n_valid = 1, loss 0, dlogits 0"},
    {"unaligned_v", R_V_UNALIGNED, "V % 4 != 0: no vec4 load covers a row exactly"},
    {"large_vocab", R_V_LARGE, "V >= 32768 (e.g. Llama 3's 128256)"},
    {"many_rows", R_R_MANY, "R >= 256 rows (R above 65535 passes the upstream kernel's limit)"},
    {"wd_on", R_W_ON, "w1: weight decay 0.01"},
    {"wd_off", R_W_OFF, "w0: no weight decay"},
    {"late_step", R_T_LATE, "t >= 1000: bias corrections near 1"},
    {"unaligned", R_NUMEL_UNALIGNED, "numel % 4 != 0: a vec4 kernel's tail"},
};
#define N_FAMILY_RULES (sizeof family_rules / sizeof family_rules[0])

static const family_rule *rule_find(const char *family)
{
    for (size_t i = 0; i < N_FAMILY_RULES; i++)
        if (strcmp(family_rules[i].name, family) == 0)
            return &family_rules[i];
    return NULL;
}

const char *q4_case_family_doc(const char *op, const char *family)
{
    const q4c_op *o = q4c_op_find(op);
    const family_rule *f = family ? rule_find(family) : NULL;
    return (o && f && q4c_op_has_family(o, family)) ? f->doc : NULL;
}

static int has_m(const q4c_op *op) { return op->kind == Q4C_LINEAR || op->kind == Q4C_DW; }
static int has_nk(const q4c_op *op) { return op->kind != Q4C_CE && op->kind != Q4C_ADAMW; }

#define NEED(cond, ...) \
    do { if (!(cond)) return q4_fail(err, Q4_ERR_ARG, "family %s needs " __VA_ARGS__); } while (0)

q4_status q4c_family_check(const q4c_op *op, const q4_case *c, q4_error *err)
{
    const family_rule *f = rule_find(c->family);
    unsigned r = f ? f->rules : 0;
    const char *fam = c->family;
    const long long M = c->m, N = c->n, K = c->k;

    if (has_m(op)) {
        if (r & R_M_ALIGNED) NEED(M % Q4_CASE_TILE_M == 0, "M %% %d == 0 (M = %lld)", fam, Q4_CASE_TILE_M, M);
        if (r & R_M_PARTIAL) NEED(M % Q4_CASE_TILE_M != 0, "M %% %d != 0 (M = %lld)", fam, Q4_CASE_TILE_M, M);
        if (r & R_LEAD) NEED(c->nlead >= 2, "at least two leading dims, e.g. d2x3 (got %s)", fam,
                             c->nlead == 1 ? "one" : "none");
    }
    if (has_nk(op)) {
        if (r & R_N_ALIGNED) NEED(N % Q4_CASE_TILE_N == 0, "N %% %d == 0 (N = %lld)", fam, Q4_CASE_TILE_N, N);
        if (r & R_K_ALIGNED) NEED(K % Q4_CASE_TILE_K == 0, "K %% %d == 0 (K = %lld)", fam, Q4_CASE_TILE_K, K);
        if (r & R_N_ODD4) NEED(N % 8 != 0, "N %% 8 != 0 (N = %lld)", fam, N);
    }
    if (op->kind == Q4C_LINEAR || op->kind == Q4C_WEIGHT)
        if (r & R_GROUPED) NEED(K / c->gs >= 2, "K / gs >= 2 (K = %lld, gs = %lld)", fam, K, (long long)c->gs);
    if (r & R_BIAS) NEED(c->bias, "b1 (a bias)", fam);
    if (r & R_LARGE) {
        switch (op->kind) {
        case Q4C_LINEAR: case Q4C_DW:
            NEED((double)M * N * K >= (double)Q4C_LARGE_WORK, "M*N*K >= 2^22 (M*N*K = %.0f)", fam,
                 (double)M * N * K);
            break;
        case Q4C_WEIGHT:
            NEED(N * K >= Q4C_LARGE_WEIGHT, "N*K >= 2^20 (N*K = %lld)", fam, N * K);
            break;
        case Q4C_ADAMW:
            NEED(c->numel >= Q4C_LARGE_NUMEL, "numel >= 2^18 (n%lld)", fam, (long long)c->numel);
            break;
        case Q4C_CE:
            break;
        }
    }
    if (op->kind == Q4C_CE) {
        int64_t masked = q4c_ce_masked_rows(c->r, c->mask_pct);
        if (r & R_P_ZERO) NEED(c->mask_pct == 0, "p0 (got p%d)", fam, c->mask_pct);
        if (r & R_P_ALL) NEED(c->mask_pct == 100, "p100 (got p%d)", fam, c->mask_pct);
        if (r & R_P_SOME)
            NEED(masked >= 1 && masked <= c->r - 1,
                 "p to mask between 1 and R-1 rows (p%d masks %lld of %lld rows)", fam,
                 c->mask_pct, (long long)masked, (long long)c->r);
        if (r & R_V_ALIGNED) NEED(c->v % 4 == 0, "V %% 4 == 0 (V = %lld)", fam, (long long)c->v);
        if (r & R_V_UNALIGNED) NEED(c->v % 4 != 0, "V %% 4 != 0 (V = %lld)", fam, (long long)c->v);
        if (r & R_V_LARGE) NEED(c->v >= Q4C_LARGE_VOCAB, "V >= %d (V = %lld)", fam, Q4C_LARGE_VOCAB, (long long)c->v);
        if (r & R_R_MANY) NEED(c->r >= Q4C_MANY_ROWS, "R >= %d (R = %lld)", fam, Q4C_MANY_ROWS, (long long)c->r);
    }
    if (op->kind == Q4C_ADAMW) {
        if (r & R_W_ON) NEED(c->wd == 1, "w1 (got w%d)", fam, c->wd);
        if (r & R_W_OFF) NEED(c->wd == 0, "w0 (got w%d)", fam, c->wd);
        if (r & R_T_LATE) NEED(c->step >= Q4C_LATE_STEP, "t >= %d (got t%lld)", fam, Q4C_LATE_STEP, (long long)c->step);
        if (r & R_NUMEL_UNALIGNED) NEED(c->numel % 4 != 0, "numel %% 4 != 0 (n%lld)", fam, (long long)c->numel);
    }
    return Q4_OK;
}

/* ---------------- the generated set ----------------
 * Sized so that the whole set runs on lavapipe (2 CPU cores) in a few minutes:
 * most shapes are under 64x256x256; "large" ones span many workgroups. */
const char *const q4c_generated[] = {
    /* linear_q4gsw (forward) */
    "q4cts.linear_q4gsw.tile_aligned.m8_n16_k32_g32",
    "q4cts.linear_q4gsw.tile_aligned.m16_n32_k64_g64",
    "q4cts.linear_q4gsw.tile_aligned.m64_n64_k128_g128",
    "q4cts.linear_q4gsw.tile_aligned.m32_n128_k256_g64",
    "q4cts.linear_q4gsw.grouped.m8_n32_k64_g32",
    "q4cts.linear_q4gsw.grouped.m16_n64_k256_g32",
    "q4cts.linear_q4gsw.grouped.m4_n16_k128_g16",
    "q4cts.linear_q4gsw.grouped.m8_n16_k64_g4",
    "q4cts.linear_q4gsw.grouped.m24_n32_k96_g12",
    "q4cts.linear_q4gsw.odd_n4.m8_n12_k32_g32",
    "q4cts.linear_q4gsw.odd_n4.m16_n20_k64_g64",
    "q4cts.linear_q4gsw.odd_n4.m32_n44_k128_g128",
    "q4cts.linear_q4gsw.odd_n4.m8_n4_k16_g16",
    "q4cts.linear_q4gsw.partial_m.m1_n16_k32_g32",
    "q4cts.linear_q4gsw.partial_m.m1_n256_k256_g64",
    "q4cts.linear_q4gsw.partial_m.m2_n32_k64_g64",
    "q4cts.linear_q4gsw.partial_m.m3_n32_k64_g32",
    "q4cts.linear_q4gsw.partial_m.m4_n64_k128_g64",
    "q4cts.linear_q4gsw.partial_m.m5_n32_k64_g64",
    "q4cts.linear_q4gsw.partial_m.m6_n16_k64_g16",
    "q4cts.linear_q4gsw.partial_m.m7_n32_k32_g32",
    "q4cts.linear_q4gsw.partial_m.m9_n32_k64_g64",
    "q4cts.linear_q4gsw.partial_m.m63_n64_k128_g64",
    "q4cts.linear_q4gsw.partial_m.m65_n32_k64_g32",
    "q4cts.linear_q4gsw.odd_n4_partial_m.m5_n12_k16_g16",
    "q4cts.linear_q4gsw.odd_n4_partial_m.m1_n12_k32_g32",
    "q4cts.linear_q4gsw.odd_n4_partial_m.m1_n4_k4_g4",
    "q4cts.linear_q4gsw.odd_n4_partial_m.m3_n20_k64_g32",
    "q4cts.linear_q4gsw.odd_n4_partial_m.m13_n36_k64_g64",
    "q4cts.linear_q4gsw.odd_n4_partial_m.m70_n28_k96_g32",
    "q4cts.linear_q4gsw.grouped_odd_n4.m8_n12_k64_g16",
    "q4cts.linear_q4gsw.grouped_odd_n4.m16_n20_k128_g32",
    "q4cts.linear_q4gsw.grouped_odd_n4.m5_n36_k96_g32",
    "q4cts.linear_q4gsw.leading_dims.d2x3_n16_k32_g32",
    "q4cts.linear_q4gsw.leading_dims.d2x4_n32_k64_g32",
    "q4cts.linear_q4gsw.leading_dims.d3x5x2_n12_k32_g16",
    "q4cts.linear_q4gsw.leading_dims.d1x1_n8_k16_g16",
    "q4cts.linear_q4gsw.leading_dims.d2x2x2x2_n16_k64_g64",
    "q4cts.linear_q4gsw.bias.m8_n16_k32_g32_b1",
    "q4cts.linear_q4gsw.bias.m5_n12_k64_g32_b1",
    "q4cts.linear_q4gsw.bias.m1_n4_k16_g16_b1",
    "q4cts.linear_q4gsw.bias.d2x3_n20_k64_g64_b1",
    "q4cts.linear_q4gsw.large.m300_n264_k512_g128",
    "q4cts.linear_q4gsw.large.m257_n520_k256_g64_b1",
    "q4cts.linear_q4gsw.large.m128_n1028_k128_g32",
    "q4cts.linear_q4gsw.large.m1_n4096_k1024_g128",
    "q4cts.linear_q4gsw.large.m2_n2048_k2048_g64",
    "q4cts.linear_q4gsw.custom.m3_n44_k96_g32",

    /* linear_q4gsw_backward: the upstream change's three cases come first */
    "q4cts.linear_q4gsw_backward.tile_aligned.m8_n16_k32_g32",
    "q4cts.linear_q4gsw_backward.grouped.m8_n32_k64_g32",
    "q4cts.linear_q4gsw_backward.odd_n4_partial_m.m5_n12_k16_g16",
    "q4cts.linear_q4gsw_backward.tile_aligned.m16_n32_k64_g64",
    "q4cts.linear_q4gsw_backward.tile_aligned.m64_n64_k128_g128",
    "q4cts.linear_q4gsw_backward.grouped.m16_n64_k256_g32",
    "q4cts.linear_q4gsw_backward.grouped.m8_n16_k64_g4",
    "q4cts.linear_q4gsw_backward.grouped.m24_n32_k96_g12",
    "q4cts.linear_q4gsw_backward.odd_n4.m8_n12_k32_g32",
    "q4cts.linear_q4gsw_backward.odd_n4.m16_n20_k64_g64",
    "q4cts.linear_q4gsw_backward.odd_n4.m8_n4_k16_g16",
    "q4cts.linear_q4gsw_backward.partial_m.m1_n16_k32_g32",
    "q4cts.linear_q4gsw_backward.partial_m.m1_n256_k256_g64",
    "q4cts.linear_q4gsw_backward.partial_m.m2_n32_k64_g64",
    "q4cts.linear_q4gsw_backward.partial_m.m3_n32_k64_g32",
    "q4cts.linear_q4gsw_backward.partial_m.m4_n64_k128_g64",
    "q4cts.linear_q4gsw_backward.partial_m.m5_n32_k64_g64",
    "q4cts.linear_q4gsw_backward.partial_m.m6_n16_k64_g16",
    "q4cts.linear_q4gsw_backward.partial_m.m7_n32_k32_g32",
    "q4cts.linear_q4gsw_backward.partial_m.m9_n32_k64_g64",
    "q4cts.linear_q4gsw_backward.partial_m.m65_n32_k64_g32",
    "q4cts.linear_q4gsw_backward.odd_n4_partial_m.m1_n12_k32_g32",
    "q4cts.linear_q4gsw_backward.odd_n4_partial_m.m1_n4_k4_g4",
    "q4cts.linear_q4gsw_backward.odd_n4_partial_m.m13_n36_k64_g64",
    "q4cts.linear_q4gsw_backward.odd_n4_partial_m.m70_n28_k96_g32",
    "q4cts.linear_q4gsw_backward.grouped_odd_n4.m8_n12_k64_g16",
    "q4cts.linear_q4gsw_backward.grouped_odd_n4.m5_n36_k96_g32",
    "q4cts.linear_q4gsw_backward.leading_dims.d2x3_n16_k32_g32",
    "q4cts.linear_q4gsw_backward.leading_dims.d3x5x2_n12_k32_g16",
    "q4cts.linear_q4gsw_backward.leading_dims.d2x2x2x2_n16_k64_g64",
    "q4cts.linear_q4gsw_backward.large.m300_n264_k512_g128",
    "q4cts.linear_q4gsw_backward.large.m128_n1028_k128_g32",
    "q4cts.linear_q4gsw_backward.large.m1_n1024_k4096_g128",
    "q4cts.linear_q4gsw_backward.custom.m3_n44_k96_g32",

    /* linear_dW: the reduction runs over M */
    "q4cts.linear_dW.tile_aligned.m8_n16_k32",
    "q4cts.linear_dW.tile_aligned.m64_n64_k64",
    "q4cts.linear_dW.tile_aligned.m16_n32_k128",
    "q4cts.linear_dW.odd_n4.m8_n12_k32",
    "q4cts.linear_dW.odd_n4.m16_n20_k64",
    "q4cts.linear_dW.odd_n4.m8_n4_k16",
    "q4cts.linear_dW.partial_m.m1_n16_k32",
    "q4cts.linear_dW.partial_m.m3_n32_k64",
    "q4cts.linear_dW.partial_m.m5_n16_k32",
    "q4cts.linear_dW.partial_m.m7_n64_k64",
    "q4cts.linear_dW.partial_m.m65_n32_k64",
    "q4cts.linear_dW.odd_n4_partial_m.m5_n12_k16",
    "q4cts.linear_dW.odd_n4_partial_m.m1_n4_k4",
    "q4cts.linear_dW.odd_n4_partial_m.m33_n28_k64",
    "q4cts.linear_dW.leading_dims.d2x3_n16_k32",
    "q4cts.linear_dW.leading_dims.d4x5x3_n12_k64",
    "q4cts.linear_dW.large.m300_n264_k512",
    "q4cts.linear_dW.large.m2048_n64_k64",
    "q4cts.linear_dW.large.m4000_n36_k32",
    "q4cts.linear_dW.custom.m3000_n44_k96",

    /* dequantize */
    "q4cts.dequantize.tile_aligned.n16_k32_g32",
    "q4cts.dequantize.tile_aligned.n64_k256_g64",
    "q4cts.dequantize.grouped.n32_k128_g32",
    "q4cts.dequantize.grouped.n48_k64_g4",
    "q4cts.dequantize.grouped.n16_k96_g12",
    "q4cts.dequantize.odd_n4.n12_k32_g32",
    "q4cts.dequantize.odd_n4.n4_k16_g16",
    "q4cts.dequantize.odd_n4.n20_k128_g32",
    "q4cts.dequantize.large.n4096_k1024_g128",
    "q4cts.dequantize.large.n2052_k512_g32",
    "q4cts.dequantize.custom.n44_k96_g32",

    /* q4gsw_requant */
    "q4cts.q4gsw_requant.tile_aligned.n16_k32_g32",
    "q4cts.q4gsw_requant.tile_aligned.n64_k256_g64",
    "q4cts.q4gsw_requant.grouped.n32_k128_g32",
    "q4cts.q4gsw_requant.grouped.n48_k64_g4",
    "q4cts.q4gsw_requant.grouped.n16_k96_g12",
    "q4cts.q4gsw_requant.odd_n4.n12_k32_g32",
    "q4cts.q4gsw_requant.odd_n4.n4_k16_g16",
    "q4cts.q4gsw_requant.odd_n4.n20_k128_g32",
    "q4cts.q4gsw_requant.zero_scales.n16_k64_g16",
    "q4cts.q4gsw_requant.zero_scales.n12_k32_g32",
    "q4cts.q4gsw_requant.ties.n16_k64_g16",
    "q4cts.q4gsw_requant.ties.n20_k128_g32",
    "q4cts.q4gsw_requant.ties.n256_k256_g64",
    "q4cts.q4gsw_requant.clamp_edges.n16_k64_g16",
    "q4cts.q4gsw_requant.clamp_edges.n12_k128_g32",
    "q4cts.q4gsw_requant.clamp_edges.n256_k256_g32",
    "q4cts.q4gsw_requant.large.n4096_k1024_g128",
    "q4cts.q4gsw_requant.large.n2052_k512_g32",
    "q4cts.q4gsw_requant.custom.n44_k96_g32",

    /* fused_ce */
    "q4cts.fused_ce.basic.r4_v128_p0",
    "q4cts.fused_ce.basic.r16_v1000_p0",
    "q4cts.fused_ce.basic.r1_v32_p0",
    "q4cts.fused_ce.masked.r8_v256_p25",
    "q4cts.fused_ce.masked.r16_v1000_p50",
    "q4cts.fused_ce.masked.r3_v64_p34",
    "q4cts.fused_ce.all_masked.r4_v128_p100",
    "q4cts.fused_ce.all_masked.r1_v64_p100",
    "q4cts.fused_ce.unaligned_v.r4_v1001_p0",
    "q4cts.fused_ce.unaligned_v.r3_v7_p0",
    "q4cts.fused_ce.unaligned_v.r8_v130_p25",
    "q4cts.fused_ce.large_vocab.r4_v128256_p0",
    "q4cts.fused_ce.large_vocab.r4_v128256_p25",
    "q4cts.fused_ce.large_vocab.r2_v50257_p0",
    "q4cts.fused_ce.many_rows.r1024_v256_p0",
    "q4cts.fused_ce.many_rows.r4096_v64_p10",
    "q4cts.fused_ce.many_rows.r65537_v12_p5",
    "q4cts.fused_ce.custom.r2_v32000_p0",

    /* adamw_step */
    "q4cts.adamw_step.wd_on.n1024_t1_w1",
    "q4cts.adamw_step.wd_on.n4096_t10_w1",
    "q4cts.adamw_step.wd_off.n1024_t1_w0",
    "q4cts.adamw_step.wd_off.n4096_t100_w0",
    "q4cts.adamw_step.late_step.n1024_t10000_w1",
    "q4cts.adamw_step.late_step.n1000_t1000000_w0",
    "q4cts.adamw_step.unaligned.n1023_t5_w1",
    "q4cts.adamw_step.unaligned.n1_t1_w1",
    "q4cts.adamw_step.unaligned.n7_t3_w0",
    "q4cts.adamw_step.large.n1048576_t50_w1",
    "q4cts.adamw_step.large.n1048573_t7_w0",
    "q4cts.adamw_step.custom.n4100_t2_w1",
};
const size_t q4c_generated_count = sizeof q4c_generated / sizeof q4c_generated[0];
