/* q4ref_train.h: the reference trajectories of a training case (q4ref_train.c,
 * docs/training.md): the model trained in fp64 from the case's start, and the same
 * training through the zoo's legal fp32 evaluations (q4ref_zoo.h), whose spread
 * around the fp64 run calibrates the envelope the GPU's trajectory is judged in. */
#ifndef Q4REF_TRAIN_H
#define Q4REF_TRAIN_H

#include <stdint.h>

#include "q4ref.h"

#define Q4REF_TRAIN_MAX_LAYERS 3
/* The zoo's training runs: each a different legal fp32 evaluation of every op. */
#define Q4REF_TRAIN_ZOO_RUNS 4

/* A model of `layers` q4 linears (layer l: N = width[l+1], K = width[l], no bias, no
 * nonlinearity) under fused CE (every row labelled, n_valid = M), AdamW on each
 * layer's fp32 latent weight with the scales fixed, and the STE requant the next
 * step's forward reads. Step t (1-based) trains on batch t-1 of x and labels. */
typedef struct q4ref_train_model {
    int layers;
    int64_t M, T, gs;
    int64_t width[Q4REF_TRAIN_MAX_LAYERS + 1];
    const float *x;                /* [T][M][width[0]] */
    const int32_t *labels;         /* [T][M], each in [0, width[layers]) */
    const float *latent;           /* the start: each layer's [N][K], concatenated */
    const float *scales;           /* each layer's [K/gs][N], concatenated (fixed) */
    float lr, beta1, beta2, eps, wd;
} q4ref_train_model;

/* What one reference run records. Arrays the caller allocates (NULL: not wanted). */
typedef struct q4ref_train_trace {
    double *loss;                  /* [T]: the loss of step t's forward */
    double *latent;                /* [T][q4ref_train_weights(m)]: each step's latent after
                                      its AdamW, every layer's concatenated */
    uint8_t *codes;                /* [q4ref_train_weights(m)]: the codes of the last requant */
    double *tie;                   /* [T]: the least distance, in units of its scale, of a
                                      step's latent / s from a rounding boundary whose two
                                      sides give different codes (INFINITY: none) */
} q4ref_train_trace;

/* Elements of every layer's weight together; and of every layer's scales. */
int64_t q4ref_train_weights(const q4ref_train_model *m);
int64_t q4ref_train_scales(const q4ref_train_model *m);
/* Offsets of layer l's weight and scales in the concatenations. */
int64_t q4ref_train_weight_at(const q4ref_train_model *m, int l);
int64_t q4ref_train_scale_at(const q4ref_train_model *m, int l);
/* AdamW's bias corrections of step t (1-based), as every run (the GPU's too) uses them:
 * 1 - beta^t in double from the fp32 betas, rounded to fp32. */
void q4ref_train_bias_corrections(const q4ref_train_model *m, int64_t t, float *bc1, float *bc2);
/* The initial codes: the requant of the start (exact: power-of-two scales need not be,
 * q4ref_requant is exact for any). */
q4_status q4ref_train_start_codes(const q4ref_train_model *m, uint8_t *codes, q4_error *err);

/* The model trained in fp64 (every op evaluated in double; requant of the double
 * latent); the zoo's run `variant` (0 .. Q4REF_TRAIN_ZOO_RUNS-1) in fp32. */
q4_status q4ref_train_fp64(const q4ref_train_model *m, q4ref_train_trace *tr, q4_error *err);
q4_status q4ref_train_zoo(const q4ref_train_model *m, int variant, q4ref_train_trace *tr,
                          q4_error *err);

#endif
