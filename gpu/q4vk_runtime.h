/* q4vk_runtime.h: private to the q4vk runtime files (q4vk_runtime_*.c).
 *
 * The layout of a context, buffer and pipeline, which every runtime file fills in or
 * reads; what each file offers the others is in its own header,
 * q4vk_runtime_<file>.h (the order below). Launchers use q4vk.h only. */
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
    uint64_t seq_born;            /* the sequence being recorded when it was made, or 0 */
    uint64_t seq_bound;           /* the last sequence that recorded a dispatch binding it */
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

/* --bounds-check: one binding of one kernel whose accesses went past its data, over
 * the dispatches since the last q4vk_take_oob. */
#define Q4VK_OOB_BINDINGS 8
#define Q4VK_OOB_SITES 3
typedef struct q4vk_oob_binding {
    char who[160];                /* "kernel NAME", "interface kernel FILE:STEP" */
    uint32_t binding;
    uint64_t accesses;            /* out-of-bounds accesses, all its sites together */
    uint32_t sites;               /* distinct access sites (source positions) */
    char first[Q4VK_OOB_SITES][96];   /* the first sites: "load at byte 512 (x.comp:88)" */
} q4vk_oob_binding;

/* A recorded dispatch's condition (q4vk_sequence_when): it runs when the word at the
 * start of flag is nonzero (zero: is zero); flag NULL: always. */
typedef struct q4vk_when {
    q4vk_buffer *flag;
    bool zero;
} q4vk_when;

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
    /* VK_EXT_conditional_rendering's commands, where info.conditional */
    PFN_vkCmdBeginConditionalRenderingEXT begin_conditional;
    PFN_vkCmdEndConditionalRenderingEXT end_conditional;

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
    q4vk_oob_binding oob_by[Q4VK_OOB_BINDINGS];   /* every one since, per binding */
    int n_oob_by;
    uint64_t oob_unlisted;        /* accesses of bindings past oob_by */
    char race[Q4_MSG_MAX];        /* first shared-memory race not yet taken; "" = none */

    /* q4vk_sequence_begin .. end (q4vk_runtime_submit.c): q4vk_run's dispatches kept
     * here and submitted together at end; the buffers destroyed meanwhile are freed
     * after it. */
    struct q4vk_sequence {
        bool recording;
        uint64_t id;              /* of the one recorded now, or the last (1, 2, ...) */
        q4vk_dispatch *d;         /* push: NULL until end, push_at says where */
        size_t *push_at;          /* offset of dispatch i's push constants in push */
        bool *no_barrier;         /* dispatch i follows i - 1 with no barrier */
        q4vk_when *cond;          /* dispatch i runs when cond[i] holds (flag NULL: always) */
        int n, cap;
        unsigned char *push;
        size_t push_used, push_cap;
        bool next_no_barrier;     /* q4vk_sequence_op(ctx, false) */
        q4vk_when when;           /* q4vk_sequence_when: the condition of dispatches kept now */
        q4vk_buffer **doomed;
        int n_doomed, cap_doomed;
    } seq;
};

/* The runtime files call each other in one direction only (no circle), each through
 * the private header of the file it calls (q4vk_runtime_<file>.h), bottom first:
 *   q4vk_runtime_errors.c   errors and validation messages: uses none
 *   q4vk_runtime_cmd.c      one-shot command submission, the watchdog: uses errors
 *   q4vk_runtime_memory.c   buffers, staging: uses cmd and errors
 *   q4vk_runtime_probes.c   coverage/bounds probes' code, buffer, read-back: uses memory
 *   q4vk_runtime_pipeline.c kernels, overrides, pipelines: uses probes and errors
 *   q4vk_runtime_submit.c   recording and submission of q4vk_run: uses pipeline, probes,
 *                           cmd and errors
 *   q4vk_runtime_limits.c   test-only lowered limits: uses errors
 *   q4vk_runtime_device.c   context create/destroy: uses all of the above
 * This header holds what they all share: the layout of a context, buffer and pipeline. */

#endif
