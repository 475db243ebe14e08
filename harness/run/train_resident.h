/* train_resident.h: a training step kept on the device (train_resident.c,
 * docs/training.md, "Device-resident steps").
 *
 * The training driver's tensors (activations, gradients, weights, latents, m, v, the
 * per-step inputs) get device buffers that live across ops and steps, found by their
 * host arrays: a tensor is uploaded once, the first time an op reads it, and from then
 * on the ops hand it on through the device. A step is one submission
 * (q4vk_sequence_begin): every op's launcher records its dispatches, the runtime's
 * barriers order them, and after it the driver reads each op's outputs back, in step
 * order, to judge them and to keep the host's copy of the state (the truth's inputs)
 * equal to the device's. Vulkan only, with the built-in kernels or --kernel overrides;
 * an interface file, a planted host-side fault or a launcher that reads results back
 * mid-op (the tensor-core forward's fallback) keeps the host-staged driver. */
#ifndef Q4H_TRAIN_RESIDENT_H
#define Q4H_TRAIN_RESIDENT_H

#include "backend.h"

typedef struct q4h_resident q4h_resident;

/* Whether b can run training steps device-resident (Vulkan, no interface file for a step
 * op, no host-side planted fault). */
bool q4h_resident_possible(const q4h_backend *b);
/* A new, empty set of device tensors on b's context: Q4_OK or Q4_ERR_NOMEM. */
q4_status q4h_resident_new(q4h_backend *b, q4h_resident **out, q4_error *err);
/* Releases every device tensor; after a lost device (the context replaced) only the
 * host side. NULL: a no-op. */
void q4h_resident_free(q4h_resident *r, bool device_lost);

/* A step begins: its ops are recorded until q4h_resident_submit. */
q4_status q4h_resident_begin(q4h_resident *r, q4_error *err);
/* Whether op case oc's launcher can be recorded (no read-back mid-op). */
bool q4h_resident_recordable(q4h_resident *r, const q4h_op *op, const q4_case *oc);
/* Records op on the device tensors of in's arrays (uploaded the first time), its output
 * buffers those of the host arrays `to` (one per op->output_buffers, poisoned with the
 * sentinel unless an earlier op of the step uses them). barrier false: no barrier before
 * the op's first dispatch (--inject-fault train_no_barrier). */
q4_status q4h_resident_record(q4h_resident *r, const q4h_op *op, const q4_case *oc,
                              const q4_inputs *in, void *const *to, bool barrier,
                              q4_error *err);
/* Submits the step's recorded ops and waits; obs gets its time and the probes' finds. */
q4_status q4h_resident_submit(q4h_resident *r, q4h_observations *obs, q4_error *err);
/* Drops a step's recording (a record failed). */
void q4h_resident_abort(q4h_resident *r);
/* Releases the device tensor of host array `host` (one step's x, labels or loss, which
 * no later step reads), so that a long case holds a fixed number of device buffers;
 * none, or r NULL: a no-op. */
void q4h_resident_drop(q4h_resident *r, const void *host);
/* After the step: op's outputs, as q4h_resident_record bound them, into out->o[].got. */
q4_status q4h_resident_read(q4h_resident *r, const q4h_op *op, const q4_case *oc,
                            const q4_inputs *in, void *const *to, q4h_outputs *out,
                            q4_error *err);

#endif
