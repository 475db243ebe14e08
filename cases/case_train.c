/* case_train.c: the case descriptor of the training cases, q4cts.train.<model>.<params>
 * (docs/training.md): a small q4gsw model of 1 to 3 linear layers (family linear<L>)
 * trained for T steps on a seeded teacher's data. It is a descriptor like an op's, so
 * the names parse, print and list as every other case's do, but no op table lists it:
 * training is not an op (the harness runs it through its training driver). */
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "case_desc.h"
#include "case_values.h"

extern const q4c_op q4c_op_train;

static const q4c_family families[] = {
    {"linear1", 0, NULL},
    {"linear2", 0, NULL},
    {"linear3", 0, NULL},
    {NULL, 0, NULL},
};

static const q4c_class classes[] = {
    {"ordinary", "x uniform in [-1, 1), labels the argmax of a seeded teacher's linear map, "
                 "latent weights about 1/sqrt(K), power-of-two scales fixed at the start", 0},
    {"random_labels", "as ordinary, but labels uniform over the classes (no teacher): nothing to "
                      "learn, so every op of every step is judged but not the loss trajectory; "
                      "widths up to 262144 (a real model's step, as perf times it)", 0},
    {"outlier", "as random_labels, and one element of x in 64 of magnitude 2^20 to 2^24, the "
                "rest in [2^-8, 1): too coarse for the tensor-core forward's digits, whose "
                "fp32 fallback then runs inside the step", 0},
    {NULL, NULL, 0},
};

static const char *const generated[] = {
    "q4cts.train.linear1.m16_k32_v16_g16_t8_l1000",
    "q4cts.train.linear1.m32_k32_v8_g16_t8_l300",
    "q4cts.train.linear2.m32_k32_h16_v8_g16_t8_l300",
    "q4cts.train.linear2.m12_k64_h24_v12_g8_t6_l300",   /* grouped, odd N4 on top */
    "q4cts.train.linear3.m8_k32_h16_v8_g8_t4_l300",
    /* ops judged only; gs 64 takes the tensor-core forward where a device has it, and
     * the outliers send it to its fallback mid-step */
    "q4cts.train.linear1.m16_k128_v40_g64_t2_l300.random_labels",
    "q4cts.train.linear2.m24_k128_h64_v12_g64_t3_l300.outlier",
    NULL,
};

int q4_case_is_train(const q4_case *c)
{
    return c && c->op && strcmp(c->op, q4c_op_train.name) == 0;
}

int q4_case_train_widths(const q4_case *c, int64_t w[5])
{
    int L = c->layers;
    w[0] = c->k;
    for (int l = 1; l < L; l++)
        w[l] = c->h;
    w[L] = c->v;
    return L;
}

static int layers_of(const char *family)
{
    return strncmp(family, "linear", 6) == 0 && family[6] >= '1' && family[6] <= '3' &&
                   !family[7] ? family[6] - '0' : 0;
}

/* Labels uniform, no teacher: the value classes whose trajectory is not judged. */
static bool random_labels(const q4_case *c)
{
    return q4c_values_is(c, "random_labels") || q4c_values_is(c, "outlier");
}

int q4_case_train_judges_trajectory(const q4_case *c)
{
    return !random_labels(c);
}

static q4_status fill(const q4c_params *p, q4_case *c, q4_error *err)
{
    c->layers = layers_of(c->family);
    if (c->layers == 1 && Q4C_HAVE(p, 'h'))
        return q4_fail(err, Q4_ERR_ARG, "family linear1 has no hidden layer: leave h out");
    if (c->layers > 1 && !Q4C_HAVE(p, 'h'))
        return q4_fail(err, Q4_ERR_ARG, "missing parameter h: family %s has hidden layers "
                       "of width h", c->family);
    c->m = Q4C_P(p, 'm');
    c->k = Q4C_P(p, 'k');
    c->h = c->layers > 1 ? Q4C_P(p, 'h') : 0;
    c->v = Q4C_P(p, 'v');
    c->gs = Q4C_P(p, 'g');
    c->step = Q4C_P(p, 't');
    c->lr = Q4C_P(p, 'l');
    return Q4_OK;
}

static void format(const q4_case *c, q4c_text *t)
{
    q4c_put(t, "m%lld_k%lld", (long long)c->m, (long long)c->k);
    if (c->layers > 1)
        q4c_put(t, "_h%lld", (long long)c->h);
    q4c_put(t, "_v%lld_g%lld_t%lld_l%lld", (long long)c->v, (long long)c->gs,
            (long long)c->step, (long long)c->lr);
}

static q4_status check(const q4_case *c, q4_error *err)
{
    int64_t w[5];
    q4_error e = {0};
    if (c->layers != layers_of(c->family))
        return q4_fail(err, Q4_ERR_ARG, "family %s trains %d layers, the case says %d",
                       c->family, layers_of(c->family), c->layers);
    int L = q4_case_train_widths(c, w);
    if (c->step < 1 || c->step > Q4_CASE_TRAIN_MAX_STEPS)
        return q4_fail(err, Q4_ERR_ARG, "t = %lld steps: a training case takes 1..%d steps "
                       "(the nightly's long cases take 200)",
                       (long long)c->step, Q4_CASE_TRAIN_MAX_STEPS);
    if (c->lr < 1 || c->lr > 10000)
        return q4_fail(err, Q4_ERR_ARG, "l = %lld: the learning rate is l * 1e-4 with l in "
                       "1..10000", (long long)c->lr);
    /* An ordinary case's references (a serial fp64 teacher, the fp64 and zoo training
     * runs) are plain loops: it stays a small model. random_labels has none of them, and
     * its per-op truths are the single-op ones, BLAS on every core. */
    const int64_t wmax = random_labels(c) ? 262144 : 65535;
    if (c->m > 65535 || c->v > wmax || c->k > wmax || c->h > wmax)
        return q4_fail(err, Q4_ERR_ARG, "M above 65535 or a width above %lld: a training case "
                       "of value class %s is a %s (m %lld, k %lld, h %lld, v %lld)",
                       (long long)wmax, c->values[0] ? c->values : "ordinary",
                       random_labels(c) ? "real model's layer at most" : "small model (value "
                       "classes random_labels and outlier take widths up to 262144)", (long long)c->m,
                       (long long)c->k, (long long)c->h, (long long)c->v);
    for (int l = 0; l < L; l++)
        if (q4_check_linear(c->m, w[l + 1], w[l], c->gs, &e))
            return q4_fail(err, Q4_ERR_ARG, "layer %d (N = %lld, K = %lld): %s", l + 1,
                           (long long)w[l + 1], (long long)w[l], e.msg);
    return q4_check_ce_shape(c->m, c->v, (double)c->m, err);
}

/* The initial latent's amplitude exponent of a layer of K inputs: 2^-e ~ 1/sqrt(K). */
static int amp_exp(int64_t K)
{
    int e = 0;
    while ((1ll << (2 * e)) < K) e++;
    return e;
}

/* The smallest power of two s with a / s <= 7: the group's codes start unclamped, and
 * a power-of-two scale makes every quotient latent / s exact (SPEC §3). */
static float pow2_scale(float a)
{
    int e;
    if (!(a > 0)) return 1.0f / 1024;
    double f = frexp((double)a / 7.0, &e);   /* a / 7 = f 2^e, f in [0.5, 1) */
    return (float)ldexp(1.0, f == 0.5 ? e - 1 : e);
}

static q4_status inputs(const q4_case *c, q4_inputs *in, q4_error *err)
{
    int64_t w[5], n_lat = 0, n_sc = 0;
    q4_status st;
    const int L = q4_case_train_widths(c, w);
    const int64_t M = c->m, K = c->k, V = c->v, T = c->step;
    for (int l = 0; l < L; l++) {
        n_lat += w[l + 1] * w[l];
        n_sc += (w[l] / c->gs) * w[l + 1];
    }
    Q4C_ALLOC(in, x, T * M * K, "x");
    Q4C_ALLOC(in, labels, T * M, "labels");
    Q4C_ALLOC(in, latent, n_lat, "latent");
    Q4C_ALLOC(in, scales, n_sc, "scales");
    q4c_fill_act(c, "x", in->x, T * M * K);   /* ordinary: [-1, 1) */
    if (random_labels(c)) {
        q4c_rng g = q4c_stream(c, "labels");
        for (int64_t r = 0; r < T * M; r++)
            in->labels[r] = (int32_t)q4c_below(&g, (uint64_t)V);
    }
    float *teacher = random_labels(c) ? NULL
                   : q4c_alloc(V * K, sizeof(float), "teacher", c, &st, err);
    if (!teacher && !random_labels(c))
        return st;
    if (teacher)
        q4c_fill_sym(q4c_stream(c, "teacher"), teacher, V * K, 1 << 23, 23);
    /* The teacher's class of each row: what the student can learn, so the loss falls. */
    for (int64_t r = 0; teacher && r < T * M; r++) {
        double best = -INFINITY;
        for (int64_t v = 0; v < V; v++) {
            double s = 0;
            for (int64_t k = 0; k < K; k++)
                s += (double)in->x[r * K + k] * teacher[v * K + k];
            if (s > best) {
                best = s;
                in->labels[r] = (int32_t)v;
            }
        }
    }
    free(teacher);
    q4c_fill_sym(q4c_stream(c, "latent"), in->latent, n_lat, 1 << 23, 23);
    float *lat = in->latent, *sc = in->scales;
    for (int l = 0; l < L; l++) {
        const int64_t N = w[l + 1], Kl = w[l], G = Kl / c->gs;
        const float amp = ldexpf(1.0f, -amp_exp(Kl));
        for (int64_t i = 0; i < N * Kl; i++)
            lat[i] *= amp;
        for (int64_t g = 0; g < G; g++)
            for (int64_t n = 0; n < N; n++) {
                float a = 0;
                for (int64_t k = g * c->gs; k < (g + 1) * c->gs; k++)
                    a = fmaxf(a, fabsf(lat[n * Kl + k]));
                sc[g * N + n] = pow2_scale(a);
            }
        lat += N * Kl;
        sc += G * N;
    }
    /* AdamW as torch.optim.AdamW's defaults, wd 0.01 on the latent weights; bc1 and bc2
     * are each step's (the training driver sets them). */
    in->lr = (float)c->lr * 1e-4f;
    in->beta1 = 0.9f;
    in->beta2 = 0.999f;
    in->eps = 1e-8f;
    in->wd = 0.01f;
    in->bc1 = in->bc2 = 1.0f;
    in->n_valid = (float)M;
    return Q4_OK;
}

static q4_status check_inputs(const q4_case *c, const q4_inputs *in, q4_error *err)
{
    int64_t w[5], n_sc = 0;
    const int L = q4_case_train_widths(c, w);
    for (int l = 0; l < L; l++)
        n_sc += (w[l] / c->gs) * w[l + 1];
    q4_status st = q4_check_scales(in->scales, n_sc, err);
    return st ? st : q4_check_labels(in->labels, c->step * c->m, c->v, err);
}

const q4c_op q4c_op_train = {
    .name = "train", .keys = "m k [h] v g t l", .allowed = "mkhvgtl", .required = "mkvgtl",
    .families = families, .classes = classes, .generated = generated, .fill = fill,
    .format = format, .check = check, .inputs = inputs, .check_inputs = check_inputs,
    .random = NULL,
};
