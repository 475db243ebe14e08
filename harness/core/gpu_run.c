/* gpu_run.c: the GPU leg of a case, common to every op: guarded buffers for the
 * inputs and outputs, the op's launch, and the op's read-back. */
#include "device_io.h"
#include "op.h"

#include "clock.h"

q4_status q4h_gpu_prepare(q4vk_context *ctx, const q4h_op *op, const q4_case *c,
                          const q4_inputs *in, size_t guard_bytes, q4h_gpu_buffers *bufs,
                          q4_error *err)
{
    q4h_tensor t[Q4H_MAX_TENSORS];
    size_t bytes[Q4H_MAX_OUTPUTS];
    int n_in = op->inputs(c, in, t), n_out = op->output_buffers(c, bytes);
    q4_status st = q4h_upload_inputs(ctx, t, n_in, guard_bytes, bufs->b, err);
    bufs->n = st == Q4_OK ? n_in : 0;
    for (int i = 0; i < n_out && st == Q4_OK; i++) {
        st = q4h_buffer(ctx, NULL, bytes[i], guard_bytes, &bufs->b[n_in + i], err);
        if (st == Q4_OK)
            bufs->n++;
    }
    if (st != Q4_OK)
        q4h_gpu_release(ctx, bufs);
    return st;
}

void q4h_gpu_release(q4vk_context *ctx, q4h_gpu_buffers *bufs)
{
    q4h_buffers_free(ctx, bufs->b, bufs->n);
    bufs->n = 0;
}

q4_status q4h_gpu_run(q4vk_context *ctx, const q4h_op *op, const q4_case *c,
                      const q4_inputs *in, q4h_outputs *out, q4vk_timing *t,
                      q4h_transfer_ms *io, q4_error *err)
{
    q4h_gpu_buffers bufs = { 0 };
    q4h_transfer_ms ms = { -1, -1 };
    double t0 = q4h_now_s();
    q4_status st = q4h_gpu_prepare(ctx, op, c, in, Q4H_GUARD_BYTES, &bufs, err);
    ms.upload = 1e3 * (q4h_now_s() - t0);
    if (st == Q4_OK)
        st = op->launch(ctx, c, in, bufs.b, t, err);
    if (st == Q4_OK) {
        t0 = q4h_now_s();
        st = op->read(ctx, c, bufs.b, out, err);
        ms.readback = 1e3 * (q4h_now_s() - t0);
    }
    if (io)
        *io = ms;
    q4h_gpu_release(ctx, &bufs);
    return st;
}
