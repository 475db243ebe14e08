/* train_resident.c: a training step kept on the device (train_resident.h). */
#include "train_resident.h"

#include <stdlib.h>
#include <string.h>

#include "backend_vulkan.h"
#include "device_io.h"
#include "interface.h"
#include "plan.h"

/* One device tensor: the device's copy of `bytes` at host array `host`. */
typedef struct tensor {
    const void *host;
    size_t bytes;
    q4vk_buffer *buf;
    int64_t step;              /* the last step whose ops bound it */
} tensor;

struct q4h_resident {
    q4h_backend *b;
    tensor *t;
    int n, cap;
    int64_t step;              /* the step being recorded or read (1, 2, ...) */
};

static q4vk_context *ctx_of(const q4h_resident *r)
{
    return q4h_vk_context(r->b);
}

bool q4h_resident_possible(const q4h_backend *b)
{
    const q4h_run_options *opt = b->opt;
    if (!b->i->vulkan)   /* WebGPU: the worker runs each op on its own */
        return false;
    /* the host-side planted faults hand one op another host array */
    if (opt->train_fault.kind != Q4H_TRAIN_FAULT_NONE &&
        opt->train_fault.kind != Q4H_TRAIN_FAULT_NO_BARRIER)
        return false;
    for (int col = 0; col < Q4H_STEP_OPS; col++)   /* an interface file lays its buffers out */
        if (q4h_iface_for(opt, q4h_train_step_ops[col]->name))
            return false;
    return true;
}

q4_status q4h_resident_new(q4h_backend *b, q4h_resident **out, q4_error *err)
{
    *out = calloc(1, sizeof **out);
    if (!*out)
        return q4_fail(err, Q4_ERR_NOMEM, "out of host memory for the device tensors");
    (*out)->b = b;
    return Q4_OK;
}

void q4h_resident_free(q4h_resident *r, bool device_lost)
{
    if (!r)
        return;
    q4vk_context *ctx = device_lost ? NULL : ctx_of(r);
    q4vk_sequence_abort(ctx);
    for (int i = 0; i < r->n; i++)
        q4vk_buffer_destroy(ctx, r->t[i].buf);   /* NULL context: the host side only */
    free(r->t);
    free(r);
}

q4_status q4h_resident_begin(q4h_resident *r, q4_error *err)
{
    r->step++;
    return q4vk_sequence_begin(ctx_of(r), err);
}

bool q4h_resident_recordable(q4h_resident *r, const q4h_op *op, const q4_case *oc)
{
    q4vk_plan p = { 0 };
    if (op->plan)
        op->plan(oc, q4vk_info(ctx_of(r)), &p);
    /* Tests only: Q4CTS_TEST_UNRECORDABLE=OP treats op OP as the tensor-core forward is
     * treated on a device with int8 cooperative matrices (its kernels read their lossy
     * flag back to choose the fallback), so that the way back to host-staged steps runs
     * on any device (harness.train). */
    const char *forced = getenv("Q4CTS_TEST_UNRECORDABLE");
    /* A launcher whose data picks its path (q4vk_plan.maybe_from) records both ways under
     * conditional rendering, where the device has it; elsewhere it reads back mid-op. */
    return !(forced && !strcmp(forced, op->name)) &&
           (p.maybe_from == 0 || q4vk_info(ctx_of(r))->conditional);
}

/* The device tensor of host array `host` of `bytes`: found, or made (from init, or
 * the sentinel when init is NULL). A host array seen before with another size is an
 * error of the driver. */
static q4_status tensor_of(q4h_resident *r, const void *host, size_t bytes, const void *init,
                           tensor **out, q4_error *err)
{
    for (int i = 0; i < r->n; i++)
        if (r->t[i].host == host) {
            if (r->t[i].bytes != bytes)
                return q4_fail(err, Q4_ERR_ARG, "the device tensor at %p holds %zu bytes, "
                               "asked for %zu", host, r->t[i].bytes, bytes);
            *out = &r->t[i];
            return Q4_OK;
        }
    if (r->n == r->cap) {
        int cap = r->cap ? 2 * r->cap : 32;
        tensor *t = realloc(r->t, (size_t)cap * sizeof *t);
        if (!t)
            return q4_fail(err, Q4_ERR_NOMEM, "out of host memory for the device tensors");
        r->t = t, r->cap = cap;
    }
    tensor *t = &r->t[r->n];
    *t = (tensor){ .host = host, .bytes = bytes, .step = 0 };
    q4_status st = q4h_buffer(ctx_of(r), init, bytes, Q4H_GUARD_BYTES, &t->buf, err);
    if (st == Q4_OK) {
        r->n++;
        *out = t;
    }
    return st;
}

/* The device buffers of op's launch (its inputs, then its output buffers) for in and
 * to; record: the step's ops bind them (made where new; an output that no earlier op
 * of the step binds poisoned, so that an element the kernel leaves unwritten reads
 * NaN rather than the last step's value). */
static q4_status buffers(q4h_resident *r, const q4h_op *op, const q4_case *oc,
                         const q4_inputs *in, void *const *to, bool record,
                         q4vk_buffer **b, q4_error *err)
{
    q4h_tensor t[Q4H_MAX_TENSORS];
    size_t bytes[Q4H_MAX_OUTPUTS];
    const int n_in = op->inputs(oc, in, t), n_out = op->output_buffers(oc, bytes);
    q4_status st = Q4_OK;
    tensor *x = NULL;
    for (int i = 0; i < n_in && st == Q4_OK; i++)
        if ((st = tensor_of(r, t[i].data, q4h_tensor_bytes(&t[i]), t[i].data, &x, err)) == Q4_OK) {
            b[i] = x->buf;
            if (record)
                x->step = r->step;
        }
    for (int i = 0; i < n_out && st == Q4_OK; i++) {
        if (!to || !to[i])
            return q4_fail(err, Q4_ERR_ARG, "%s: output buffer %d has no host array", op->name, i);
        if ((st = tensor_of(r, to[i], bytes[i], NULL, &x, err)) != Q4_OK)
            break;
        if (record && x->step != r->step && bytes[i] % 4 == 0)
            st = q4vk_fill(ctx_of(r), x->buf, 0, bytes[i], Q4H_SENTINEL, err);
        b[n_in + i] = x->buf;
        if (record)
            x->step = r->step;
    }
    return st;
}

q4_status q4h_resident_record(q4h_resident *r, const q4h_op *op, const q4_case *oc,
                              const q4_inputs *in, void *const *to, bool barrier,
                              q4_error *err)
{
    q4vk_buffer *b[Q4H_MAX_TENSORS + Q4H_MAX_OUTPUTS] = { 0 };
    q4_status st = buffers(r, op, oc, in, to, true, b, err);
    if (st != Q4_OK)
        return st;
    q4vk_sequence_op(ctx_of(r), barrier);
    return op->launch(ctx_of(r), oc, in, b, NULL, err);
}

q4_status q4h_resident_submit(q4h_resident *r, q4h_observations *obs, q4_error *err)
{
    q4vk_timing t = { -1 };
    q4vk_context *ctx = ctx_of(r);
    q4_status st = q4vk_sequence_end(ctx, &t, err);
    q4h_vk_take_probes(ctx, obs);
    obs->gpu_ms = t.gpu_ms;
    return st;
}

void q4h_resident_drop(q4h_resident *r, const void *host)
{
    for (int i = 0; r && i < r->n; i++)
        if (r->t[i].host == host) {
            q4vk_buffer_destroy(ctx_of(r), r->t[i].buf);
            r->t[i] = r->t[--r->n];
            return;
        }
}

void q4h_resident_abort(q4h_resident *r)
{
    q4vk_sequence_abort(ctx_of(r));
}

q4_status q4h_resident_read(q4h_resident *r, const q4h_op *op, const q4_case *oc,
                            const q4_inputs *in, void *const *to, q4h_outputs *out,
                            q4_error *err)
{
    q4vk_buffer *b[Q4H_MAX_TENSORS + Q4H_MAX_OUTPUTS] = { 0 };
    q4_status st = buffers(r, op, oc, in, to, false, b, err);
    return st == Q4_OK ? op->read(ctx_of(r), oc, b, out, err) : st;
}
