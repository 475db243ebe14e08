/* wg_images.c: the host images of a WebGPU run message (wg_images.h). */
#include "wg_images.h"

#include <stdio.h>
#include <stdlib.h>

#include "device_io.h"

void q4h_wg_images_free(q4h_wg_images *im)
{
    for (int i = 0; i < im->n; i++)
        free(im->image[i]);
    im->n = 0;
}

q4_status q4h_wg_image_add(q4h_wg_images *im, const char *name, const void *init, size_t bytes,
                           size_t guard, bool zero, q4_error *err)
{
    if (im->n == Q4H_WG_MAX_IMAGES)
        return q4_fail(err, Q4_ERR_ARG, "more than %d buffers for one case", Q4H_WG_MAX_IMAGES);
    const int i = im->n;
    if (!(im->image[i] = zero ? calloc(1, bytes + guard ? bytes + guard : 1)
                              : malloc(bytes + guard ? bytes + guard : 1)))
        return q4_fail(err, Q4_ERR_NOMEM, "cannot allocate %zu bytes of host memory",
                       bytes + guard);
    if (!zero)
        q4h_host_image(im->image[i], init, bytes, guard);
    im->data[i] = bytes;
    im->total[i] = bytes + guard;
    im->out[i] = true;
    im->uniform[i] = false;
    snprintf(im->name[i], sizeof im->name[i], "%s", name);
    im->n++;
    return Q4_OK;
}
