/* fuzz_worker_frame.c: fuzz target for what the harness reads from the WebGPU worker
 * (harness/backends/webgpu_frame.c): a frame (magic, type, sizes, a JSON header read strictly,
 * blobs) parsed from the bytes, and, when it parses, its header read as a hello
 * (protocol, adapter, limits). Every size is checked before memory is taken: a blob is
 * at most MAX_BLOB bytes here, as a run's largest buffer bounds it in the harness. A
 * rejection must say why; an accepted frame holds a JSON object and its blobs inside
 * the input; an accepted hello has limits in range. */
#include <string.h>

#include "fuzz_target.h"
#include "webgpu_worker.h"

#define MAX_BLOB (1u << 20)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    q4h_wg_frame f;
    char why[Q4_MSG_MAX] = "";
    size_t used = 0;
    q4h_wg_io io = q4h_wg_frame_parse(data, size, MAX_BLOB, &f, &used, why, sizeof why);
    if (io != Q4H_WG_OK) {
        q4fuzz_check(io == Q4H_WG_BAD || io == Q4H_WG_GONE, "a frame failed in another way");
        q4fuzz_check_message(why, "a rejected frame");
        return 0;
    }
    q4fuzz_check(json_object_is_type(f.json, json_type_object), "an accepted header is no object");
    uint64_t total = 16;
    for (uint32_t i = 0; i < f.n_blobs; i++) {
        q4fuzz_check(f.blob_len[i] <= MAX_BLOB, "an accepted blob is longer than allowed");
        total += 8 + f.blob_len[i];
    }
    q4fuzz_check(used <= size && total <= used, "an accepted frame lies outside the input");
    q4h_wg_hello h;
    if (q4h_wg_hello_read(f.json, &h, why, sizeof why) == Q4_OK) {
        q4fuzz_check(h.info.max_group_count[0] >= 1 || !h.info.type,
                     "an accepted hello has no workgroups");
        q4fuzz_check(h.max_binding <= ((uint64_t)1 << 53) && h.max_buffer <= ((uint64_t)1 << 53),
                     "an accepted hello has a limit past 2^53");
    } else {
        q4fuzz_check_message(why, "a rejected hello");
    }
    q4h_wg_frame_free(&f);
    return 0;
}
