/* q4vk_runtime.h: private to the q4vk runtime files (q4vk_runtime_*.c).
 *
 * The layout of a context, buffer and pipeline, and the helpers the runtime files
 * share: VkResult names and errors, the dead-context check, one-shot command
 * submission, and validation-message scopes. Launchers use q4vk.h only. */
#ifndef Q4VK_RUNTIME_H
#define Q4VK_RUNTIME_H

#include <pthread.h>
#include <vulkan/vulkan.h>

#include "q4vk.h"

/* Uploads and downloads go through a host-visible staging buffer of at most this
 * many bytes; larger transfers are copied in chunks. */
#define Q4VK_STAGING_CHUNK ((size_t)16 << 20)

/* The generated table of gpu/shaders/ *.comp (build/gpu/q4vk_builtin_kernels/). */
extern const q4vk_kernel q4vk_builtin_kernels[];
extern const int q4vk_builtin_kernels_count;

struct q4vk_buffer {
    VkBuffer buffer;
    VkDeviceMemory memory;
    size_t bytes;                 /* as asked */
    VkDeviceSize vk_bytes;        /* rounded up to 4 */
    size_t data_bytes;            /* real data from the start (q4vk_buffer_set_data_bytes) */
};

struct q4vk_pipeline {
    struct q4vk_pipeline *next;
    char name[64];
    q4vk_spec spec;
    bool stale;                   /* replaced by a later override; kept alive for holders */
    bool overridden;
    char origin[192];             /* q4vk_described_step.origin, or "" */
    uint32_t n_bindings, push_bytes;
    char entry[64];               /* the entry point's name */
    uint32_t uniform_mask;        /* bindings that are uniform buffers (q4vk_kernel) */
    VkDescriptorSetLayout set_layout;
    VkPipelineLayout layout;
    VkPipeline pipeline;
    q4spv_map *probe_map;         /* the probes' map; NULL when not probed */
};

typedef struct q4vk_override {
    struct q4vk_override *next;
    char name[64];
    uint32_t *words;
    size_t n_words;
} q4vk_override;

/* Messages from VK_EXT_debug_utils (validation only). The callback may run on any
 * thread, hence the lock. `scope` names what the runtime is doing ("kernel x",
 * "buffer creation", ...) so that a message is attributed to the call that made it. */
typedef struct q4vk_messages {
    pthread_mutex_t lock;
    char scope[96];
    uint64_t errors, warnings;
    char first_error[Q4_MSG_MAX];     /* first error since the last q4vk_msgs_begin */
    char first_scope[96];             /* the scope when it arrived */
    char first_warning[Q4_MSG_MAX];   /* first warning since the context began */
} q4vk_messages;

struct q4vk_context {
    q4vk_device_info info;        /* what q4vk_info shows: limits possibly lowered for tests */
    q4vk_device_info probed;      /* as the device reports it (q4vk_runtime_limits.c) */
    bool limits_lowered;          /* info differs from probed */
    q4vk_test_limits created_limits; /* the lowering of q4vk_create (options or environment) */
    VkInstance instance;
    VkDebugUtilsMessengerEXT messenger;
    PFN_vkDestroyDebugUtilsMessengerEXT destroy_messenger;
    VkPhysicalDevice phys;
    VkDevice device;
    VkQueue queue;
    uint32_t queue_family;
    uint32_t timestamp_bits;
    VkPhysicalDeviceLimits limits;
    VkPhysicalDeviceMemoryProperties mem;
    VkDeviceSize max_alloc_bytes; /* maxMemoryAllocationSize */
    char extensions[8][VK_MAX_EXTENSION_NAME_SIZE]; /* device extensions enabled */
    int n_extensions;

    VkCommandPool cmd_pool;
    VkCommandBuffer cmd;
    VkFence fence;
    VkQueryPool queries;          /* 2 timestamps; VK_NULL_HANDLE when unsupported */
    VkDescriptorPool desc_pool;
    uint32_t desc_pool_sets;      /* capacity of desc_pool in sets */
    VkPipelineCache pipeline_cache;

    /* staging: host-visible, coherent, persistently mapped */
    VkBuffer staging;
    VkDeviceMemory staging_mem;
    void *staging_map;
    size_t staging_bytes;

    q4vk_pipeline *pipelines;
    q4vk_override *overrides;

    uint64_t timeout_ns;
    q4vk_faults faults;
    int64_t n_allocs, n_submits;
    bool in_flight;               /* a submission whose fence we have not seen signalled */

    /* After a device loss or a timeout every call returns `dead` with dead_msg. */
    q4_status dead;
    char dead_msg[Q4_MSG_MAX];

    bool validation;
    q4vk_messages msgs;

    /* probes (q4vk_runtime_probes.c): one host-visible buffer, a region per dispatch */
    q4vk_probes probes;
    VkDescriptorSetLayout probe_set_layout;
    VkBuffer probe_buf;
    VkDeviceMemory probe_mem;
    uint32_t *probe_ptr;          /* persistently mapped */
    VkDeviceSize probe_bytes;
    char oob[Q4_MSG_MAX];         /* first out-of-bounds load not yet taken; "" = none */
    char race[Q4_MSG_MAX];        /* first shared-memory race not yet taken; "" = none */
};

/* The runtime files call each other in one direction only (no circle):
 *   q4vk_runtime_device.c   context create/destroy: uses the four below
 *   q4vk_runtime_limits.c   test-only lowered limits: uses errors
 *   q4vk_runtime_pipeline.c kernels, overrides, pipelines: uses probes and errors
 *   q4vk_runtime_submit.c   recording, submission, watchdog: uses probes and errors
 *   q4vk_runtime_probes.c   coverage/bounds probes' code, buffer, read-back: uses memory
 *   q4vk_runtime_memory.c   buffers, staging: uses submit and errors
 *   q4vk_runtime_errors.c   errors and validation messages: uses none */

/* ---- q4vk_runtime_errors.c ---- */

/* "VK_ERROR_OUT_OF_DEVICE_MEMORY" etc.; never NULL. */
const char *q4vk_result_name(VkResult r);

/* Turns a failed call into a status: DEVICE_LOST marks the context dead; out of
 * memory is Q4_ERR_RESOURCE; the rest Q4_ERR_DEVICE. The message is
 * "<call> failed: <VK_...>" with an optional " (<context>)". */
q4_status q4vk_vk_fail(q4vk_context *ctx, q4_error *err, const char *call, VkResult r,
                       const char *fmt, ...) __attribute__((format(printf, 5, 6)));

/* Q4_OK if the context is usable, else its dead status with a sentence. */
q4_status q4vk_check_alive(const q4vk_context *ctx, q4_error *err);
void q4vk_mark_dead(q4vk_context *ctx, q4_status st, const char *msg);

/* Validation messages: begin a scope (clears the first error), and end it: if an
 * error arrived, Q4_ERR_VALIDATION "validation layer, <scope>: <message>". */
void q4vk_msgs_begin(q4vk_context *ctx, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
q4_status q4vk_msgs_end(q4vk_context *ctx, q4_error *err);
/* Changes only the scope's name (e.g. the kernel now recorded), keeping its errors. */
void q4vk_msgs_rename(q4vk_context *ctx, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* The messenger that routes VK_EXT_debug_utils messages into ctx->msgs (for the
 * instance's own creation messages and for the context's messenger). */
void q4vk_messenger_info(q4vk_context *ctx, VkDebugUtilsMessengerCreateInfoEXT *ci);

/* ---- q4vk_runtime_limits.c ---- */

/* At context creation: records ctx->info as the device's own (ctx->probed), then
 * lowers it by `opt` or, when that is all 0, by Q4CTS_TEST_LIMITS. */
q4_status q4vk_apply_test_limits(q4vk_context *ctx, const q4vk_test_limits *opt, q4_error *err);

/* ---- q4vk_runtime_submit.c ---- */

/* The descriptor type of binding b of pipeline p. */
VkDescriptorType q4vk_binding_type(const q4vk_pipeline *p, uint32_t b);

/* Begins ctx->cmd for a one-shot submission. */
q4_status q4vk_cmd_begin(q4vk_context *ctx, q4_error *err);
/* Ends ctx->cmd, submits it with ctx->fence and waits (watchdog). `what` names the
 * work in a timeout message. */
q4_status q4vk_cmd_submit_wait(q4vk_context *ctx, const char *what, q4_error *err);

/* After a watchdog timeout the submission may still run and use every object it
 * names: waits up to Q4VK_GRACE_NS for it. True when device objects may be freed
 * (always, unless a timed-out submission is still running). */
#define Q4VK_GRACE_NS 2000000000ull
bool q4vk_quiesce(q4vk_context *ctx);

/* ---- q4vk_runtime_probes.c ---- */

/* Whether the context probes its kernels (q4vk_options.probes). */
bool q4vk_probing(const q4vk_context *ctx);
/* The probed code of `words` into *out (*out_n words, malloc'ed) and *map, checked
 * with spirv-val; `what` names the code in errors. */
q4_status q4vk_probes_instrument(q4vk_context *ctx, const char *what, const uint32_t *words,
                                 size_t n, uint32_t **out, size_t *out_n, q4spv_map **map,
                                 q4_error *err);
/* The layout of set 1 (the probe buffer at binding 0), made on first use. */
q4_status q4vk_probes_set_layout(q4vk_context *ctx, VkDescriptorSetLayout *out, q4_error *err);
/* Before a submission: at[i] gets the byte offset of dispatch i's region of the probe
 * buffer (UINT64_MAX for an unprobed pipeline), each region initialised with its
 * bindings' data limits. */
q4_status q4vk_probes_prepare(q4vk_context *ctx, const q4vk_dispatch *d, int n, uint64_t *at,
                              q4_error *err);
/* The probe buffer's range for dispatch i, for its descriptor. */
void q4vk_probes_descriptor(const q4vk_context *ctx, const q4vk_dispatch *d, uint64_t at,
                            VkDescriptorBufferInfo *info);
/* After the submission finished: hands each region to the hook and keeps the first
 * out-of-bounds load for q4vk_take_oob. */
void q4vk_probes_collect(q4vk_context *ctx, const q4vk_dispatch *d, int n, const uint64_t *at);
/* Context teardown. */
void q4vk_probes_destroy(q4vk_context *ctx);

/* ---- q4vk_runtime_memory.c ---- */

/* A buffer with its own memory of a type with `required` (and if possible
 * `preferred`) properties; on failure nothing is left allocated. */
q4_status q4vk_raw_buffer(q4vk_context *ctx, VkDeviceSize bytes, VkBufferUsageFlags usage,
                          VkMemoryPropertyFlags required, VkMemoryPropertyFlags preferred,
                          const char *what, VkBuffer *buffer, VkDeviceMemory *memory,
                          q4_error *err);

/* Destroys the staging buffer (context teardown). */
void q4vk_staging_destroy(q4vk_context *ctx);

/* ---- q4vk_runtime_pipeline.c ---- */

/* Frees every pipeline and override (context teardown); destroys their Vulkan
 * objects only when `release` (false: a hung device keeps them). */
void q4vk_pipelines_destroy(q4vk_context *ctx, bool release);

#endif
