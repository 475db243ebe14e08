/* wg_images.h: a case's buffers as a WebGPU run message carries them (docs/webgpu.md,
 * the run message): host images of `data` bytes followed by guard words. Below both
 * what fills them (an interface file's WGSL steps, interface_webgpu.c) and what sends
 * them (the WebGPU backend), so that neither needs the other. */
#ifndef Q4H_WG_IMAGES_H
#define Q4H_WG_IMAGES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "q4_contract.h"

/* Each image is `data` bytes and then the guard words (`total` in all); `out`:
 * returned after the run; `uniform`: a uniform buffer (an interface file's). */
#define Q4H_WG_MAX_IMAGES 32
typedef struct q4h_wg_images {
    int n;
    size_t data[Q4H_WG_MAX_IMAGES];
    uint64_t total[Q4H_WG_MAX_IMAGES];
    void *image[Q4H_WG_MAX_IMAGES];
    char name[Q4H_WG_MAX_IMAGES][48];
    bool out[Q4H_WG_MAX_IMAGES], uniform[Q4H_WG_MAX_IMAGES];
} q4h_wg_images;
void q4h_wg_images_free(q4h_wg_images *im);
/* Adds an image of `bytes` + `guard` bytes, filled as q4h_host_image fills it (init
 * NULL: the sentinel), or zeros when `zero`; Q4_ERR_NOMEM or too many images. */
q4_status q4h_wg_image_add(q4h_wg_images *im, const char *name, const void *init, size_t bytes,
                           size_t guard, bool zero, q4_error *err);

#endif
