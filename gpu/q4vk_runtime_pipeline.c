/* q4vk_runtime_pipeline.c: the kernel table, user overrides, and compute pipelines.
 *
 * A pipeline is made for a (kernel name, specialisation constants) pair the first
 * time it is asked for and kept in a list on the context until q4vk_destroy, so
 * launchers may call q4vk_pipeline on every launch. Its interface comes from the
 * kernel (n_bindings storage buffers in set 0, push_bytes of push constants at
 * offset 0); its code from the override set for the kernel's name, if any, else
 * the kernel's embedded SPIR-V, rewritten with probes when the context has them
 * on (q4vk_runtime_probes.c; set 1 then holds the probe buffer). All pipelines share
 * one VkPipelineCache. */
#include <stdlib.h>
#include <string.h>

#include "q4vk_runtime_errors.h"
#include "q4vk_runtime_pipeline.h"
#include "q4vk_runtime_probes.h"

/* Uniform where the kernel says so (q4vk_kernel.uniform_mask), else storage. */
VkDescriptorType q4vk_binding_type(const q4vk_pipeline *p, uint32_t b)
{
    return p->uniform_mask >> b & 1 ? VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER
                                    : VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
}

#define SPIRV_MAGIC 0x07230203u

const q4vk_kernel *q4vk_kernel_find(const char *name)
{
    for (int i = 0; name && i < q4vk_builtin_kernels_count; i++)
        if (strcmp(q4vk_builtin_kernels[i].name, name) == 0)
            return &q4vk_builtin_kernels[i];
    return NULL;
}

const q4vk_kernel *q4vk_kernels(int *count)
{
    if (count)
        *count = q4vk_builtin_kernels_count;
    return q4vk_builtin_kernels;
}

static q4vk_override *override_find(q4vk_context *ctx, const char *name)
{
    for (q4vk_override *o = ctx->overrides; o; o = o->next)
        if (strcmp(o->name, name) == 0)
            return o;
    return NULL;
}

q4_status q4vk_set_override(q4vk_context *ctx, const char *name, const uint32_t *spirv,
                            size_t words, q4_error *err)
{
    q4_status st;

    if ((st = q4vk_check_alive(ctx, err)) != Q4_OK)
        return st;
    if (!name || !name[0] || strlen(name) >= sizeof ctx->overrides->name)
        return q4_fail(err, Q4_ERR_ARG, "an override needs a kernel name of 1 to %zu characters",
                       sizeof ctx->overrides->name - 1);
    if (!spirv || words < 5 || spirv[0] != SPIRV_MAGIC)
        return q4_fail(err, Q4_ERR_ARG,
                       "the override of kernel %s is not a SPIR-V module (%zu words, first word "
                       "0x%08x; expected at least 5 words starting with 0x%08x)",
                       name, words, spirv && words ? spirv[0] : 0u, SPIRV_MAGIC);

    uint32_t *copy = malloc(words * sizeof *copy);
    if (!copy)
        return q4_fail(err, Q4_ERR_NOMEM, "out of host memory copying the override of kernel %s",
                       name);
    memcpy(copy, spirv, words * sizeof *copy);
    q4vk_override *o = override_find(ctx, name);
    if (!o) {
        o = calloc(1, sizeof *o);
        if (!o) {
            free(copy);
            return q4_fail(err, Q4_ERR_NOMEM,
                           "out of host memory recording the override of kernel %s", name);
        }
        snprintf(o->name, sizeof o->name, "%s", name);
        o->next = ctx->overrides;
        ctx->overrides = o;
    }
    free(o->words);
    o->words = copy;
    o->n_words = words;
    /* Pipelines already made from the old code stay valid for whoever holds them,
     * but are no longer found. */
    for (q4vk_pipeline *p = ctx->pipelines; p; p = p->next)
        if (strcmp(p->name, name) == 0)
            p->stale = true;
    return Q4_OK;
}

static bool same_spec(const q4vk_spec *a, const q4vk_spec *b)
{
    if (a->count != b->count)
        return false;
    for (uint32_t i = 0; i < a->count; i++)
        if (a->ids[i] != b->ids[i] || a->values[i] != b->values[i])
            return false;
    return true;
}

static void pipeline_free(q4vk_context *ctx, q4vk_pipeline *p, bool release)
{
    if (release && ctx->device) {
        if (p->pipeline)
            vkDestroyPipeline(ctx->device, p->pipeline, NULL);
        if (p->layout)
            vkDestroyPipelineLayout(ctx->device, p->layout, NULL);
        if (p->set_layout)
            vkDestroyDescriptorSetLayout(ctx->device, p->set_layout, NULL);
    }
    q4spv_map_free(p->probe_map);
    free(p);
}

void q4vk_pipelines_destroy(q4vk_context *ctx, bool release)
{
    while (ctx->pipelines) {
        q4vk_pipeline *p = ctx->pipelines;
        ctx->pipelines = p->next;
        pipeline_free(ctx, p, release);
    }
    while (ctx->overrides) {
        q4vk_override *o = ctx->overrides;
        ctx->overrides = o->next;
        free(o->words);
        free(o);
    }
}

static q4_status check_kernel(const q4vk_context *ctx, const q4vk_kernel *k,
                              const q4vk_spec *spec, q4_error *err)
{
    if (!k || !k->name || !k->name[0] || !k->spirv)
        return q4_fail(err, Q4_ERR_ARG, "q4vk_pipeline needs a kernel with a name and SPIR-V");
    if (strlen(k->name) >= sizeof ((q4vk_pipeline *)0)->name)
        return q4_fail(err, Q4_ERR_ARG, "kernel name \"%.40s...\" is longer than %zu characters",
                       k->name, sizeof ((q4vk_pipeline *)0)->name - 1);
    if (k->entry && (!k->entry[0] || strlen(k->entry) >= sizeof ((q4vk_pipeline *)0)->entry))
        return q4_fail(err, Q4_ERR_ARG, "kernel %s: the entry point's name must have 1 to %zu "
                       "characters", k->name, sizeof ((q4vk_pipeline *)0)->entry - 1);
    if (k->spirv_words < 5 || k->spirv[0] != SPIRV_MAGIC)
        return q4_fail(err, Q4_ERR_ARG, "kernel %s: its code is not a SPIR-V module", k->name);
    if (k->n_bindings > Q4VK_MAX_BINDINGS)
        return q4_fail(err, Q4_ERR_ARG, "kernel %s: %u bindings exceed Q4VK_MAX_BINDINGS (%d)",
                       k->name, k->n_bindings, Q4VK_MAX_BINDINGS);
    if (k->push_bytes % 4)
        return q4_fail(err, Q4_ERR_ARG, "kernel %s: push_bytes = %u is not a multiple of 4",
                       k->name, k->push_bytes);
    if (k->push_bytes > ctx->info.max_push_bytes)
        return q4_fail(err, Q4_ERR_UNSUPPORTED,
                       "kernel %s needs %u bytes of push constants; the device allows %u",
                       k->name, k->push_bytes, ctx->info.max_push_bytes);
    if (spec && spec->count > Q4VK_MAX_SPEC)
        return q4_fail(err, Q4_ERR_ARG, "kernel %s: %u specialisation constants exceed "
                                        "Q4VK_MAX_SPEC (%d)", k->name, spec->count, Q4VK_MAX_SPEC);
    for (uint32_t i = 0; spec && i < spec->count; i++)
        for (uint32_t j = 0; j < i; j++)
            if (spec->ids[i] == spec->ids[j])
                return q4_fail(err, Q4_ERR_ARG,
                               "kernel %s: specialisation constant id %u is given twice",
                               k->name, spec->ids[i]);
    return Q4_OK;
}

/* Creates the Vulkan objects of p from `words`; `what` names the code in errors. */
static q4_status pipeline_build(q4vk_context *ctx, q4vk_pipeline *p, const uint32_t *words,
                                size_t n_words, const char *what, q4_error *err)
{
    VkDescriptorSetLayoutBinding b[Q4VK_MAX_BINDINGS];
    VkSpecializationMapEntry map[Q4VK_MAX_SPEC];
    VkShaderModule module = VK_NULL_HANDLE;
    VkDescriptorSetLayout sets[2];
    uint32_t *probed = NULL;
    q4_status st = Q4_OK;
    VkResult r;

    if (q4vk_probing(ctx)) {
        st = q4vk_probes_instrument(ctx, what, words, n_words, &probed, &n_words, &p->probe_map,
                                    err);
        if (st == Q4_OK)
            st = q4vk_probes_set_layout(ctx, &sets[1], err);
        if (st != Q4_OK) {
            free(probed);
            return st;
        }
        words = probed;
    }

    for (uint32_t i = 0; i < p->n_bindings; i++)
        b[i] = (VkDescriptorSetLayoutBinding){
            .binding = i,
            .descriptorType = q4vk_binding_type(p, i),
            .descriptorCount = 1,
            .stageFlags = VK_SHADER_STAGE_COMPUTE_BIT,
        };
    VkDescriptorSetLayoutCreateInfo dci = {
        .sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO,
        .bindingCount = p->n_bindings,
        .pBindings = p->n_bindings ? b : NULL,
    };
    r = vkCreateDescriptorSetLayout(ctx->device, &dci, NULL, &p->set_layout);
    if (r != VK_SUCCESS) {
        p->set_layout = VK_NULL_HANDLE;
        st = q4vk_vk_fail(ctx, err, "vkCreateDescriptorSetLayout", r, "%s", what);
        goto done;
    }
    sets[0] = p->set_layout;
    VkPushConstantRange push = {
        .stageFlags = VK_SHADER_STAGE_COMPUTE_BIT,
        .offset = 0,
        .size = p->push_bytes,
    };
    VkPipelineLayoutCreateInfo lci = {
        .sType = VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO,
        .setLayoutCount = p->probe_map ? 2 : 1,
        .pSetLayouts = sets,
        .pushConstantRangeCount = p->push_bytes ? 1 : 0,
        .pPushConstantRanges = p->push_bytes ? &push : NULL,
    };
    r = vkCreatePipelineLayout(ctx->device, &lci, NULL, &p->layout);
    if (r != VK_SUCCESS) {
        p->layout = VK_NULL_HANDLE;
        st = q4vk_vk_fail(ctx, err, "vkCreatePipelineLayout", r, "%s", what);
        goto done;
    }
    VkShaderModuleCreateInfo mci = {
        .sType = VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO,
        .codeSize = n_words * sizeof(uint32_t),
        .pCode = words,
    };
    r = vkCreateShaderModule(ctx->device, &mci, NULL, &module);
    if (r != VK_SUCCESS) {
        st = q4vk_vk_fail(ctx, err, "vkCreateShaderModule", r, "%s", what);
        goto done;
    }

    for (uint32_t i = 0; i < p->spec.count; i++)
        map[i] = (VkSpecializationMapEntry){
            .constantID = p->spec.ids[i],
            .offset = i * (uint32_t)sizeof(uint32_t),
            .size = sizeof(uint32_t),
        };
    VkSpecializationInfo si = {
        .mapEntryCount = p->spec.count,
        .pMapEntries = map,
        .dataSize = p->spec.count * sizeof(uint32_t),
        .pData = p->spec.values,
    };
    VkComputePipelineCreateInfo pci = {
        .sType = VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO,
        .stage = {
            .sType = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO,
            .stage = VK_SHADER_STAGE_COMPUTE_BIT,
            .module = module,
            .pName = p->entry,
            .pSpecializationInfo = p->spec.count ? &si : NULL,
        },
        .layout = p->layout,
    };
    r = vkCreateComputePipelines(ctx->device, ctx->pipeline_cache, 1, &pci, NULL, &p->pipeline);
    if (r != VK_SUCCESS) {
        p->pipeline = VK_NULL_HANDLE;
        st = q4vk_vk_fail(ctx, err, "vkCreateComputePipelines", r, "%s", what);
    }
    vkDestroyShaderModule(ctx->device, module, NULL);
done:
    free(probed);
    return st;
}

q4_status q4vk_pipeline_get(q4vk_context *ctx, const q4vk_kernel *k, const q4vk_spec *spec,
                            q4vk_pipeline **out, q4_error *err)
{
    static const q4vk_spec no_spec;
    char what[192];
    q4_status st;

    if (out)
        *out = NULL;
    if ((st = q4vk_check_alive(ctx, err)) != Q4_OK || (st = check_kernel(ctx, k, spec, err)) != Q4_OK)
        return st;
    if (!out)
        return q4_fail(err, Q4_ERR_ARG, "q4vk_pipeline needs a place for the pipeline");
    if (!spec)
        spec = &no_spec;

    for (q4vk_pipeline *p = ctx->pipelines; p; p = p->next) {
        if (!p->stale && strcmp(p->name, k->name) == 0 && same_spec(&p->spec, spec)) {
            *out = p;
            return Q4_OK;
        }
    }

    q4vk_pipeline *p = calloc(1, sizeof *p);
    if (!p)
        return q4_fail(err, Q4_ERR_NOMEM, "out of host memory creating the pipeline of kernel %s",
                       k->name);
    snprintf(p->name, sizeof p->name, "%s", k->name);
    p->spec = *spec;
    p->n_bindings = k->n_bindings;
    p->push_bytes = k->push_bytes;
    snprintf(p->entry, sizeof p->entry, "%s", k->entry ? k->entry : "main");
    p->uniform_mask = k->uniform_mask;

    const q4vk_override *o = override_find(ctx, k->name);
    p->overridden = o != NULL;
    if (o)
        snprintf(what, sizeof what, "kernel %s from its override module (%zu words)", k->name,
                 o->n_words);
    else
        snprintf(what, sizeof what, "kernel %s", k->name);
    q4vk_msgs_begin(ctx, "pipeline of %s", what);
    st = pipeline_build(ctx, p, o ? o->words : k->spirv, o ? o->n_words : k->spirv_words, what,
                        err);
    q4_status vst = q4vk_msgs_end(ctx, st == Q4_OK ? err : NULL);
    if (st == Q4_OK)
        st = vst;
    if (st != Q4_OK) {
        pipeline_free(ctx, p, true);
        return st;
    }
    p->next = ctx->pipelines;
    ctx->pipelines = p;
    *out = p;
    return Q4_OK;
}
