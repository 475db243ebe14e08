/* q4vk_runtime_device.c: instance, device enumeration and selection, context
 * create/destroy.
 *
 * The top of the runtime: it creates and destroys what q4vk_runtime_memory.c,
 * _pipeline.c and _submit.c use; errors and validation messages come from
 * q4vk_runtime_errors.c. Order of things: instance creation; per-device info;
 * selection; q4vk_create / q4vk_destroy. */
#include <ctype.h>
#include <dlfcn.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "q4vk_runtime_cmd.h"
#include "q4vk_runtime_errors.h"
#include "q4vk_runtime_limits.h"
#include "q4vk_runtime_memory.h"
#include "q4vk_runtime_pipeline.h"
#include "q4vk_runtime_probes.h"

/* ---------------- instance ---------------- */

#define NO_DEVICE_MSG \
    "no Vulkan device found (install mesa-vulkan-drivers for the lavapipe CPU device)"

static bool has_extension(const VkExtensionProperties *ext, uint32_t n, const char *name)
{
    for (uint32_t i = 0; i < n; i++)
        if (strcmp(ext[i].extensionName, name) == 0)
            return true;
    return false;
}

/* Instance extensions, those of `layer` included when it is not NULL; caller frees. */
static q4_status instance_extensions(const char *layer, VkExtensionProperties **out,
                                     uint32_t *count, q4_error *err)
{
    uint32_t n = 0;
    VkResult r = vkEnumerateInstanceExtensionProperties(layer, &n, NULL);
    if (r != VK_SUCCESS)
        return q4vk_vk_fail(NULL, err, "vkEnumerateInstanceExtensionProperties", r, NULL);
    *out = calloc(n ? n : 1, sizeof **out);
    if (!*out)
        return q4_fail(err, Q4_ERR_NOMEM, "out of host memory listing instance extensions");
    r = vkEnumerateInstanceExtensionProperties(layer, &n, *out);
    if (r != VK_SUCCESS && r != VK_INCOMPLETE) {
        free(*out);
        *out = NULL;
        return q4vk_vk_fail(NULL, err, "vkEnumerateInstanceExtensionProperties", r, NULL);
    }
    *count = n;
    return Q4_OK;
}

/* Whether `layer` offers instance extension `name`. */
static bool layer_offers(const char *layer, const char *name)
{
    VkExtensionProperties *ext = NULL;
    uint32_t n = 0;
    q4_error ignored = { 0 };
    bool has = instance_extensions(layer, &ext, &n, &ignored) == Q4_OK &&
               has_extension(ext, n, name);
    free(ext);
    return has;
}

static q4_status validation_layer_present(q4_error *err)
{
    uint32_t n = 0;
    VkLayerProperties *layers;
    bool found = false;
    VkResult r = vkEnumerateInstanceLayerProperties(&n, NULL);

    if (r != VK_SUCCESS)
        return q4vk_vk_fail(NULL, err, "vkEnumerateInstanceLayerProperties", r, NULL);
    layers = calloc(n ? n : 1, sizeof *layers);
    if (!layers)
        return q4_fail(err, Q4_ERR_NOMEM, "out of host memory listing instance layers");
    r = vkEnumerateInstanceLayerProperties(&n, layers);
    for (uint32_t i = 0; r == VK_SUCCESS && i < n; i++)
        found |= strcmp(layers[i].layerName, "VK_LAYER_KHRONOS_validation") == 0;
    free(layers);
    if (r != VK_SUCCESS && r != VK_INCOMPLETE)
        return q4vk_vk_fail(NULL, err, "vkEnumerateInstanceLayerProperties", r, NULL);
    if (!found)
        return q4_fail(err, Q4_ERR_UNSUPPORTED,
                       "validation was requested but the layer VK_LAYER_KHRONOS_validation is "
                       "not installed (install vulkan-validationlayers, or run without "
                       "validation)");
    return Q4_OK;
}

/* Creates an instance for API 1.1 or later (the highest of 1.1..1.3 the loader has).
 * With `ctx` validating, enables the Khronos layer and debug utils, and routes the
 * instance's own creation messages to ctx. */
static q4_status instance_create(q4vk_context *ctx, VkInstance *out, uint32_t *api,
                                 q4_error *err)
{
    uint32_t loader = VK_API_VERSION_1_0;
    VkExtensionProperties *ext = NULL;
    uint32_t n_ext = 0;
    const char *enable[4];
    uint32_t n_enable = 0;
    const char *layers[] = { "VK_LAYER_KHRONOS_validation" };
    bool validation = ctx && ctx->validation;
    VkDebugUtilsMessengerCreateInfoEXT dbg;
    static const VkValidationFeatureEnableEXT sync[] = {
        VK_VALIDATION_FEATURE_ENABLE_SYNCHRONIZATION_VALIDATION_EXT };
    VkValidationFeaturesEXT sync_checks = {
        .sType = VK_STRUCTURE_TYPE_VALIDATION_FEATURES_EXT,
        .enabledValidationFeatureCount = 1,
        .pEnabledValidationFeatures = sync,
    };
    VkInstanceCreateFlags flags = 0;
    q4_status st;
    VkResult r;

    r = vkEnumerateInstanceVersion(&loader);
    if (r != VK_SUCCESS)
        return q4vk_vk_fail(NULL, err, "vkEnumerateInstanceVersion", r, NULL);
    if (loader < VK_API_VERSION_1_1)
        return q4_fail(err, Q4_ERR_UNSUPPORTED,
                       "the Vulkan loader supports only Vulkan 1.0; q4vk needs 1.1 or later");
    *api = loader >= VK_API_VERSION_1_3 ? VK_API_VERSION_1_3
         : loader >= VK_API_VERSION_1_2 ? VK_API_VERSION_1_2 : VK_API_VERSION_1_1;

    st = instance_extensions(NULL, &ext, &n_ext, err);
    if (st != Q4_OK)
        return st;
    if (has_extension(ext, n_ext, VK_KHR_PORTABILITY_ENUMERATION_EXTENSION_NAME)) {
        enable[n_enable++] = VK_KHR_PORTABILITY_ENUMERATION_EXTENSION_NAME;
        flags |= VK_INSTANCE_CREATE_ENUMERATE_PORTABILITY_BIT_KHR;
    }
    if (validation) {
        bool debug_utils = has_extension(ext, n_ext, VK_EXT_DEBUG_UTILS_EXTENSION_NAME);
        free(ext);
        ext = NULL;
        st = validation_layer_present(err);
        if (st == Q4_OK && !debug_utils) {
            st = instance_extensions(layers[0], &ext, &n_ext, err);
            debug_utils = st == Q4_OK && has_extension(ext, n_ext,
                                                       VK_EXT_DEBUG_UTILS_EXTENSION_NAME);
            if (st == Q4_OK && !debug_utils)
                st = q4_fail(err, Q4_ERR_UNSUPPORTED,
                             "validation was requested but neither the loader nor the "
                             "validation layer offers VK_EXT_debug_utils");
        }
        if (st != Q4_OK) {
            free(ext);
            return st;
        }
        enable[n_enable++] = VK_EXT_DEBUG_UTILS_EXTENSION_NAME;
        q4vk_messenger_info(ctx, &dbg);
        /* The layer stops repeating a message after 10 (by its MessageID) for the life
         * of the process: a worker's eleventh case with the same defect would pass. The
         * user's own limit stands. */
        setenv("VK_LAYER_DUPLICATE_MESSAGE_LIMIT", "2147483647", 0);
        /* The synchronisation checks too: a hazard between two dispatches that no
         * barrier orders is an error even on a driver that runs them one after another
         * (lavapipe), where the results could not show it. */
        if (layer_offers(layers[0], VK_EXT_VALIDATION_FEATURES_EXTENSION_NAME)) {
            enable[n_enable++] = VK_EXT_VALIDATION_FEATURES_EXTENSION_NAME;
            dbg.pNext = &sync_checks;
        }
    }
    free(ext);

    VkApplicationInfo app = {
        .sType = VK_STRUCTURE_TYPE_APPLICATION_INFO,
        .pApplicationName = "q4cts",
        .applicationVersion = 1,
        .pEngineName = "q4vk",
        .engineVersion = 1,
        .apiVersion = *api,
    };
    VkInstanceCreateInfo ci = {
        .sType = VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO,
        .pNext = validation ? &dbg : NULL,
        .flags = flags,
        .pApplicationInfo = &app,
        .enabledLayerCount = validation ? 1 : 0,
        .ppEnabledLayerNames = validation ? layers : NULL,
        .enabledExtensionCount = n_enable,
        .ppEnabledExtensionNames = n_enable ? enable : NULL,
    };
    r = vkCreateInstance(&ci, NULL, out);
    if (r == VK_ERROR_INCOMPATIBLE_DRIVER)
        return q4_fail(err, Q4_ERR_UNSUPPORTED, NO_DEVICE_MSG);
    if (r != VK_SUCCESS)
        return q4vk_vk_fail(NULL, err, "vkCreateInstance", r, NULL);
    /* The layer stays mapped until the process ends (the loader unloads it with the
     * instance), so that LeakSanitizer can name its module in what it leaks: its
     * synchronisation checks (1.3.239) leak at teardown, which
     * tests/sanitizers/lsan-suppressions.txt suppresses by the module's name; unloaded,
     * the frames are an unknown module that no suppression can match. */
    if (validation)
        (void)dlopen("libVkLayer_khronos_validation.so", RTLD_LAZY | RTLD_NOLOAD);
    return Q4_OK;
}

/* Physical devices of `instance`; *out NULL and Q4_ERR_UNSUPPORTED when none. */
static q4_status physical_devices(VkInstance instance, VkPhysicalDevice **out, uint32_t *count,
                                  q4_error *err)
{
    uint32_t n = 0;
    VkResult r = vkEnumeratePhysicalDevices(instance, &n, NULL);

    *out = NULL;
    if (r == VK_ERROR_INITIALIZATION_FAILED || (r == VK_SUCCESS && n == 0))
        return q4_fail(err, Q4_ERR_UNSUPPORTED, NO_DEVICE_MSG);
    if (r != VK_SUCCESS)
        return q4vk_vk_fail(NULL, err, "vkEnumeratePhysicalDevices", r, NULL);
    *out = calloc(n, sizeof **out);
    if (!*out)
        return q4_fail(err, Q4_ERR_NOMEM, "out of host memory listing Vulkan devices");
    r = vkEnumeratePhysicalDevices(instance, &n, *out);
    if (r != VK_SUCCESS && r != VK_INCOMPLETE) {
        free(*out);
        *out = NULL;
        return q4vk_vk_fail(NULL, err, "vkEnumeratePhysicalDevices", r, NULL);
    }
    if (n == 0) {
        free(*out);
        *out = NULL;
        return q4_fail(err, Q4_ERR_UNSUPPORTED, NO_DEVICE_MSG);
    }
    *count = n;
    return Q4_OK;
}

/* ---------------- device info ---------------- */

/* What a physical device offers beyond q4vk_device_info, needed to create it. */
typedef struct device_caps {
    uint32_t api;                 /* min(device, instance) */
    uint32_t queue_family;
    uint32_t timestamp_bits;
    bool ext_driver_properties, ext_8bit_storage, ext_portability_subset, ext_coopmat_nv;
    bool ext_conditional;
    VkDeviceSize max_alloc_bytes;
    VkPhysicalDeviceLimits limits;
} device_caps;

static const char *device_type_name(VkPhysicalDeviceType t)
{
    switch (t) {
    case VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU: return "discrete";
    case VK_PHYSICAL_DEVICE_TYPE_INTEGRATED_GPU: return "integrated";
    case VK_PHYSICAL_DEVICE_TYPE_VIRTUAL_GPU: return "virtual";
    case VK_PHYSICAL_DEVICE_TYPE_CPU: return "cpu";
    default: return "other";
    }
}

static void decode_driver_version(uint32_t vendor, uint32_t v, char *out, size_t n)
{
    if (vendor == 0x10DE) {
        /* NVIDIA: 10.8.8.6 bits; printed as the driver names itself (580.159.04). */
        unsigned major = (v >> 22) & 0x3ff, minor = (v >> 14) & 0xff;
        unsigned patch = (v >> 6) & 0xff, build = v & 0x3f;
        if (build)
            snprintf(out, n, "%u.%u.%02u.%u", major, minor, patch, build);
        else
            snprintf(out, n, "%u.%u.%02u", major, minor, patch);
    } else {
        snprintf(out, n, "%u.%u.%u", VK_API_VERSION_MAJOR(v), VK_API_VERSION_MINOR(v),
                 VK_API_VERSION_PATCH(v));
    }
}

/* Whether the device offers what linear_q4gsw_mma.comp needs: VK_NV_cooperative_matrix
 * with a subgroup-scope s8 x s8 -> s32 shape of 16 x 16 x 32, int8 arithmetic, the
 * Vulkan memory model (glslang declares it for every cooperative-matrix module) and
 * subgroups of 32 (its workgroup is 8 subgroups over a fixed tile). `features`: the
 * first three, from device_info's one feature query. */
static bool coopmat_s8(VkInstance instance, VkPhysicalDevice pd, bool features,
                       const q4vk_device_info *info)
{
    if (!features || info->subgroup_size != 32)
        return false;
    PFN_vkGetPhysicalDeviceCooperativeMatrixPropertiesNV props =
        (PFN_vkGetPhysicalDeviceCooperativeMatrixPropertiesNV)vkGetInstanceProcAddr(
            instance, "vkGetPhysicalDeviceCooperativeMatrixPropertiesNV");
    if (!props)
        return false;
    VkCooperativeMatrixPropertiesNV list[64];
    uint32_t n = 64;
    for (uint32_t i = 0; i < n; i++)
        list[i] = (VkCooperativeMatrixPropertiesNV){
            .sType = VK_STRUCTURE_TYPE_COOPERATIVE_MATRIX_PROPERTIES_NV};
    VkResult r = props(pd, &n, list);
    if (r != VK_SUCCESS && r != VK_INCOMPLETE)
        return false;
    for (uint32_t i = 0; i < n; i++) {
        const VkCooperativeMatrixPropertiesNV *p = &list[i];
        if (p->MSize == 16 && p->NSize == 16 && p->KSize == 32 &&
            p->AType == VK_COMPONENT_TYPE_SINT8_NV && p->BType == VK_COMPONENT_TYPE_SINT8_NV &&
            p->CType == VK_COMPONENT_TYPE_SINT32_NV && p->DType == VK_COMPONENT_TYPE_SINT32_NV &&
            p->scope == VK_SCOPE_SUBGROUP_NV)
            return true;
    }
    return false;
}

static q4_status device_info(VkInstance instance, VkPhysicalDevice pd, uint32_t instance_api,
                             int index, q4vk_device_info *info, device_caps *caps,
                             q4_error *err)
{
    VkPhysicalDeviceProperties props;
    VkExtensionProperties *ext = NULL;
    uint32_t n_ext = 0;
    VkResult r;

    memset(info, 0, sizeof *info);
    memset(caps, 0, sizeof *caps);
    vkGetPhysicalDeviceProperties(pd, &props);
    caps->api = props.apiVersion < instance_api ? props.apiVersion : instance_api;

    r = vkEnumerateDeviceExtensionProperties(pd, NULL, &n_ext, NULL);
    if (r != VK_SUCCESS)
        return q4vk_vk_fail(NULL, err, "vkEnumerateDeviceExtensionProperties", r, NULL);
    ext = calloc(n_ext ? n_ext : 1, sizeof *ext);
    if (!ext)
        return q4_fail(err, Q4_ERR_NOMEM, "out of host memory listing device extensions");
    r = vkEnumerateDeviceExtensionProperties(pd, NULL, &n_ext, ext);
    if (r != VK_SUCCESS && r != VK_INCOMPLETE) {
        free(ext);
        return q4vk_vk_fail(NULL, err, "vkEnumerateDeviceExtensionProperties", r, NULL);
    }
    caps->ext_driver_properties = caps->api >= VK_API_VERSION_1_2 ||
        has_extension(ext, n_ext, VK_KHR_DRIVER_PROPERTIES_EXTENSION_NAME);
    caps->ext_8bit_storage = has_extension(ext, n_ext, VK_KHR_8BIT_STORAGE_EXTENSION_NAME);
    caps->ext_portability_subset = has_extension(ext, n_ext, "VK_KHR_portability_subset");
    caps->ext_coopmat_nv = has_extension(ext, n_ext, VK_NV_COOPERATIVE_MATRIX_EXTENSION_NAME);
    caps->ext_conditional = has_extension(ext, n_ext,
                                          VK_EXT_CONDITIONAL_RENDERING_EXTENSION_NAME);
    free(ext);

    /* Properties: subgroups, IDs, driver, allocation limit. */
    VkPhysicalDeviceDriverProperties driver = {
        .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_DRIVER_PROPERTIES,
    };
    VkPhysicalDeviceMaintenance3Properties maint3 = {
        .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_MAINTENANCE_3_PROPERTIES,
        .pNext = caps->ext_driver_properties ? &driver : NULL,
    };
    VkPhysicalDeviceIDProperties id = {
        .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_ID_PROPERTIES,
        .pNext = &maint3,
    };
    VkPhysicalDeviceSubgroupProperties subgroup = {
        .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SUBGROUP_PROPERTIES,
        .pNext = &id,
    };
    VkPhysicalDeviceProperties2 props2 = {
        .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2,
        .pNext = &subgroup,
    };
    vkGetPhysicalDeviceProperties2(pd, &props2);

    /* Features: 16- and 8-bit storage; where VK_NV_cooperative_matrix is offered (from
     * Vulkan 1.2, so 8-bit storage is queried too), what coopmat_s8 needs besides. */
    bool query_cm = caps->ext_coopmat_nv && caps->api >= VK_API_VERSION_1_2;
    VkPhysicalDeviceVulkanMemoryModelFeatures mm = {
        .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_MEMORY_MODEL_FEATURES,
    };
    VkPhysicalDeviceCooperativeMatrixFeaturesNV cm = {
        .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_COOPERATIVE_MATRIX_FEATURES_NV,
        .pNext = &mm,
    };
    VkPhysicalDeviceShaderFloat16Int8Features i8 = {
        .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_FLOAT16_INT8_FEATURES,
        .pNext = &cm,
    };
    VkPhysicalDevice8BitStorageFeatures s8 = {
        .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_8BIT_STORAGE_FEATURES,
        .pNext = query_cm ? &i8 : NULL,
    };
    bool query8 = caps->api >= VK_API_VERSION_1_2 || caps->ext_8bit_storage;
    VkPhysicalDevice16BitStorageFeatures s16 = {
        .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_16BIT_STORAGE_FEATURES,
        .pNext = query8 ? &s8 : NULL,
    };
    VkPhysicalDeviceConditionalRenderingFeaturesEXT cond = {
        .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_CONDITIONAL_RENDERING_FEATURES_EXT,
        .pNext = &s16,
    };
    VkPhysicalDeviceFeatures2 feats = {
        .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2,
        .pNext = caps->ext_conditional ? (void *)&cond : (void *)&s16,
    };
    vkGetPhysicalDeviceFeatures2(pd, &feats);

    /* The compute queue family: the first with VK_QUEUE_COMPUTE_BIT. */
    uint32_t n_fam = 0;
    vkGetPhysicalDeviceQueueFamilyProperties(pd, &n_fam, NULL);
    VkQueueFamilyProperties *fam = calloc(n_fam ? n_fam : 1, sizeof *fam);
    if (!fam)
        return q4_fail(err, Q4_ERR_NOMEM, "out of host memory listing queue families");
    vkGetPhysicalDeviceQueueFamilyProperties(pd, &n_fam, fam);
    caps->queue_family = UINT32_MAX;
    for (uint32_t i = 0; i < n_fam; i++) {
        if ((fam[i].queueFlags & VK_QUEUE_COMPUTE_BIT) && fam[i].queueCount > 0) {
            caps->queue_family = i;
            caps->timestamp_bits = fam[i].timestampValidBits;
            break;
        }
    }
    free(fam);

    VkPhysicalDeviceMemoryProperties mem;
    vkGetPhysicalDeviceMemoryProperties(pd, &mem);

    const VkPhysicalDeviceLimits *lim = &props.limits;
    info->index = index;
    snprintf(info->name, sizeof info->name, "%s", props.deviceName);
    if (caps->ext_driver_properties) {
        snprintf(info->driver_name, sizeof info->driver_name, "%s", driver.driverName);
        snprintf(info->driver_info, sizeof info->driver_info, "%s", driver.driverInfo);
    }
    const uint8_t *u = id.deviceUUID;
    snprintf(info->uuid, sizeof info->uuid,
             "%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x",
             u[0], u[1], u[2], u[3], u[4], u[5], u[6], u[7], u[8], u[9], u[10], u[11], u[12],
             u[13], u[14], u[15]);
    info->vendor_id = props.vendorID;
    info->device_id = props.deviceID;
    info->api_version = props.apiVersion;
    info->driver_version = props.driverVersion;
    decode_driver_version(props.vendorID, props.driverVersion, info->driver_version_str,
                          sizeof info->driver_version_str);
    info->type = device_type_name(props.deviceType);
    info->subgroup_size = subgroup.subgroupSize;
    info->subgroup_arithmetic =
        (subgroup.supportedOperations & VK_SUBGROUP_FEATURE_ARITHMETIC_BIT) &&
        (subgroup.supportedStages & VK_SHADER_STAGE_COMPUTE_BIT);
    info->max_shared_bytes = lim->maxComputeSharedMemorySize;
    info->max_invocations = lim->maxComputeWorkGroupInvocations;
    for (int i = 0; i < 3; i++) {
        info->max_group_size[i] = lim->maxComputeWorkGroupSize[i];
        info->max_group_count[i] = lim->maxComputeWorkGroupCount[i];
    }
    info->max_storage_range = lim->maxStorageBufferRange;
    info->min_storage_align = lim->minStorageBufferOffsetAlignment;
    info->max_push_bytes = lim->maxPushConstantsSize;
    info->timestamps = caps->timestamp_bits > 0 && lim->timestampPeriod > 0;
    info->timestamp_period_ns = lim->timestampPeriod;
    info->storage16 = s16.storageBuffer16BitAccess;
    info->storage8 = query8 && s8.storageBuffer8BitAccess;
    for (uint32_t i = 0; i < mem.memoryHeapCount; i++)
        if ((mem.memoryHeaps[i].flags & VK_MEMORY_HEAP_DEVICE_LOCAL_BIT) &&
            mem.memoryHeaps[i].size > info->device_local_bytes)
            info->device_local_bytes = mem.memoryHeaps[i].size;
    caps->max_alloc_bytes = maint3.maxMemoryAllocationSize;
    info->max_alloc_bytes = maint3.maxMemoryAllocationSize;
    info->dense_min_m = Q4VK_DENSE_MIN_M;
    info->coopmat_s8 = coopmat_s8(instance, pd,
                                  query_cm && cm.cooperativeMatrix && i8.shaderInt8 &&
                                      mm.vulkanMemoryModel &&
                                      mm.vulkanMemoryModelDeviceScope, info);
    info->mma_min_m = Q4VK_MMA_MIN_M;
    info->conditional = caps->ext_conditional && cond.conditionalRendering;
    caps->limits = props.limits;
    return Q4_OK;
}

q4_status q4vk_enumerate(q4vk_device_info *infos, int max, int *count, q4_error *err)
{
    VkInstance instance = VK_NULL_HANDLE;
    VkPhysicalDevice *pds = NULL;
    uint32_t api, n = 0;
    q4_status st;

    if (count)
        *count = 0;
    if (!count || max < 0 || (max > 0 && !infos))
        return q4_fail(err, Q4_ERR_ARG, "q4vk_enumerate needs a count and, when max > 0, "
                                        "an array of max infos");
    st = instance_create(NULL, &instance, &api, err);
    if (st != Q4_OK)
        return st;
    st = physical_devices(instance, &pds, &n, err);
    for (uint32_t i = 0; st == Q4_OK && i < n && (int)i < max; i++) {
        device_caps caps;
        st = device_info(instance, pds[i], api, (int)i, &infos[i], &caps, err);
    }
    if (st == Q4_OK)
        *count = (int)n;
    free(pds);
    vkDestroyInstance(instance, NULL);
    return st;
}

/* ---------------- selection ---------------- */

static bool all_digits(const char *s)
{
    if (!*s)
        return false;
    for (; *s; s++)
        if (!isdigit((unsigned char)*s))
            return false;
    return true;
}

static bool looks_like_uuid(const char *s)
{
    if (strlen(s) != 36)
        return false;
    for (int i = 0; i < 36; i++) {
        bool dash = i == 8 || i == 13 || i == 18 || i == 23;
        if (dash ? s[i] != '-' : !isxdigit((unsigned char)s[i]))
            return false;
    }
    return true;
}

static bool contains_nocase(const char *hay, const char *needle)
{
    size_t n = strlen(needle);
    for (; *hay; hay++) {
        size_t i = 0;
        while (i < n && hay[i] &&
               tolower((unsigned char)hay[i]) == tolower((unsigned char)needle[i]))
            i++;
        if (i == n)
            return true;
    }
    return n == 0;
}

static int type_rank(const char *type)
{
    if (strcmp(type, "discrete") == 0) return 0;
    if (strcmp(type, "integrated") == 0) return 1;
    if (strcmp(type, "cpu") == 0) return 2;
    return 3;
}

/* Picks a device for `sel` (see q4vk_options.device); Q4_ERR_ARG lists the devices. */
static q4_status select_device(const q4vk_device_info *infos, int n, const char *sel, int *out,
                               q4_error *err)
{
    *out = -1;
    /* Under ctest -j with the resource spec (harness/resource_spec.cmake), a test runs
     * on the device ctest gave it: CTEST_RESOURCE_GROUP_0_GPUS="id:1,slots:1"; an id
     * that is not a number ("none": no device) leaves the usual choice. */
    const char *given = sel ? NULL : getenv("CTEST_RESOURCE_GROUP_0_GPUS");
    int id = -1, used = 0;
    if (given && sscanf(given, "id:%d%n", &id, &used) == 1 && (!given[used] || given[used] == ',')) {
        if (id >= 0 && id < n) {
            *out = id;
            return Q4_OK;
        }
        return q4_fail(err, Q4_ERR_ARG, "ctest gave this test device %d "
                       "(CTEST_RESOURCE_GROUP_0_GPUS=%.40s) but there are %d devices; build "
                       "again to rewrite the resource spec", id, given, n);
    }
    if (!sel) {
        int best = 0;
        for (int i = 1; i < n; i++)
            if (type_rank(infos[i].type) < type_rank(infos[best].type))
                best = i;
        *out = best;
        return Q4_OK;
    }
    if (all_digits(sel)) {
        long idx = strtol(sel, NULL, 10);
        if (idx < n && strlen(sel) < 10)
            *out = (int)idx;
    } else if (looks_like_uuid(sel)) {
        for (int i = 0; i < n && *out < 0; i++)
            if (strcasecmp(infos[i].uuid, sel) == 0)
                *out = i;
    } else {
        for (int i = 0; i < n && *out < 0; i++)
            if (contains_nocase(infos[i].name, sel))
                *out = i;
    }
    if (*out >= 0)
        return Q4_OK;

    char list[Q4_MSG_MAX - 96] = "";
    size_t len = 0;
    for (int i = 0; i < n && len < sizeof list; i++) {
        int w = snprintf(list + len, sizeof list - len, "%s%d \"%s\" (%s, %s)",
                         i ? "; " : "", i, infos[i].name, infos[i].type, infos[i].uuid);
        if (w < 0)
            break;
        len += (size_t)w;
    }
    return q4_fail(err, Q4_ERR_ARG,
                   "no Vulkan device matches \"%.40s\" (expected an index, a device UUID or "
                   "part of a name); available: %s", sel, list);
}

/* ---------------- context ---------------- */

static q4_status device_create(q4vk_context *ctx, const device_caps *caps, q4_error *err)
{
    const char *ext[6];
    uint32_t n_ext = 0;
    float priority = 1.0f;
    VkResult r;

    if (caps->queue_family == UINT32_MAX)
        return q4_fail(err, Q4_ERR_UNSUPPORTED, "the Vulkan device \"%s\" has no compute queue",
                       ctx->info.name);
    if (caps->ext_portability_subset)
        ext[n_ext++] = "VK_KHR_portability_subset";
    if (ctx->info.storage8 && caps->api < VK_API_VERSION_1_2)
        ext[n_ext++] = VK_KHR_8BIT_STORAGE_EXTENSION_NAME;
    if (ctx->info.coopmat_s8)
        ext[n_ext++] = VK_NV_COOPERATIVE_MATRIX_EXTENSION_NAME;
    if (ctx->info.conditional)
        ext[n_ext++] = VK_EXT_CONDITIONAL_RENDERING_EXTENSION_NAME;
    for (uint32_t i = 0; i < n_ext; i++)
        snprintf(ctx->extensions[ctx->n_extensions++], sizeof ctx->extensions[0], "%s", ext[i]);

    /* Enable exactly the storage features the info reports, and int8 cooperative
     * matrices where the info says the device has them (coopmat_s8). */
    /* Device scope too: with the memory model on, an atomic of Device scope (GLSL's
     * default: the tensor-core forward's slicing pass, the probes) needs it
     * (VUID-RuntimeSpirv-vulkanMemoryModel-06265; the validation layer on the H200). */
    VkPhysicalDeviceVulkanMemoryModelFeatures mm = {
        .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_MEMORY_MODEL_FEATURES,
        .vulkanMemoryModel = VK_TRUE,
        .vulkanMemoryModelDeviceScope = VK_TRUE,
    };
    VkPhysicalDeviceCooperativeMatrixFeaturesNV cm = {
        .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_COOPERATIVE_MATRIX_FEATURES_NV,
        .pNext = &mm,
        .cooperativeMatrix = VK_TRUE,
    };
    VkPhysicalDeviceShaderFloat16Int8Features i8 = {
        .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_FLOAT16_INT8_FEATURES,
        .pNext = &cm,
        .shaderInt8 = VK_TRUE,
    };
    VkPhysicalDevice8BitStorageFeatures s8 = {
        .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_8BIT_STORAGE_FEATURES,
        .storageBuffer8BitAccess = ctx->info.storage8,
    };
    VkPhysicalDevice16BitStorageFeatures s16 = {
        .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_16BIT_STORAGE_FEATURES,
        .pNext = ctx->info.storage8 ? &s8 : NULL,
        .storageBuffer16BitAccess = ctx->info.storage16,
    };
    if (ctx->info.coopmat_s8) {   /* the cooperative-matrix features go first in the chain */
        mm.pNext = s16.pNext;
        s16.pNext = &i8;
    }
    VkPhysicalDeviceConditionalRenderingFeaturesEXT cond = {
        .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_CONDITIONAL_RENDERING_FEATURES_EXT,
        .pNext = s16.pNext,
        .conditionalRendering = VK_TRUE,
    };
    if (ctx->info.conditional)
        s16.pNext = &cond;
    VkPhysicalDeviceFeatures supported;
    vkGetPhysicalDeviceFeatures(ctx->phys, &supported);
    VkPhysicalDeviceFeatures2 feats = {
        .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2,
        .pNext = &s16,
        .features = {
            .shaderInt64 = supported.shaderInt64,
            .shaderInt16 = supported.shaderInt16,
            .shaderFloat64 = supported.shaderFloat64,
        },
    };
    VkDeviceQueueCreateInfo qci = {
        .sType = VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO,
        .queueFamilyIndex = caps->queue_family,
        .queueCount = 1,
        .pQueuePriorities = &priority,
    };
    VkDeviceCreateInfo dci = {
        .sType = VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO,
        .pNext = &feats,
        .queueCreateInfoCount = 1,
        .pQueueCreateInfos = &qci,
        .enabledExtensionCount = n_ext,
        .ppEnabledExtensionNames = n_ext ? ext : NULL,
    };
    r = vkCreateDevice(ctx->phys, &dci, NULL, &ctx->device);
    if (r != VK_SUCCESS) {
        ctx->device = VK_NULL_HANDLE;
        return q4vk_vk_fail(ctx, err, "vkCreateDevice", r, "%s", ctx->info.name);
    }
    vkGetDeviceQueue(ctx->device, caps->queue_family, 0, &ctx->queue);
    if (ctx->info.conditional) {
        ctx->begin_conditional = (PFN_vkCmdBeginConditionalRenderingEXT)vkGetDeviceProcAddr(
            ctx->device, "vkCmdBeginConditionalRenderingEXT");
        ctx->end_conditional = (PFN_vkCmdEndConditionalRenderingEXT)vkGetDeviceProcAddr(
            ctx->device, "vkCmdEndConditionalRenderingEXT");
        if (!ctx->begin_conditional || !ctx->end_conditional)
            ctx->info.conditional = false;   /* what uses it takes its other way */
    }
    ctx->queue_family = caps->queue_family;
    ctx->timestamp_bits = caps->timestamp_bits;
    ctx->limits = caps->limits;
    ctx->max_alloc_bytes = caps->max_alloc_bytes;
    vkGetPhysicalDeviceMemoryProperties(ctx->phys, &ctx->mem);

    VkCommandPoolCreateInfo pci = {
        .sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO,
        .flags = VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT,
        .queueFamilyIndex = ctx->queue_family,
    };
    r = vkCreateCommandPool(ctx->device, &pci, NULL, &ctx->cmd_pool);
    if (r != VK_SUCCESS)
        return q4vk_vk_fail(ctx, err, "vkCreateCommandPool", r, NULL);
    VkCommandBufferAllocateInfo cai = {
        .sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO,
        .commandPool = ctx->cmd_pool,
        .level = VK_COMMAND_BUFFER_LEVEL_PRIMARY,
        .commandBufferCount = 1,
    };
    r = vkAllocateCommandBuffers(ctx->device, &cai, &ctx->cmd);
    if (r != VK_SUCCESS)
        return q4vk_vk_fail(ctx, err, "vkAllocateCommandBuffers", r, NULL);
    VkFenceCreateInfo fci = { .sType = VK_STRUCTURE_TYPE_FENCE_CREATE_INFO };
    r = vkCreateFence(ctx->device, &fci, NULL, &ctx->fence);
    if (r != VK_SUCCESS)
        return q4vk_vk_fail(ctx, err, "vkCreateFence", r, NULL);
    if (ctx->info.timestamps) {
        VkQueryPoolCreateInfo qpi = {
            .sType = VK_STRUCTURE_TYPE_QUERY_POOL_CREATE_INFO,
            .queryType = VK_QUERY_TYPE_TIMESTAMP,
            .queryCount = 2,
        };
        r = vkCreateQueryPool(ctx->device, &qpi, NULL, &ctx->queries);
        if (r != VK_SUCCESS)
            return q4vk_vk_fail(ctx, err, "vkCreateQueryPool", r, NULL);
    }
    VkPipelineCacheCreateInfo cci = { .sType = VK_STRUCTURE_TYPE_PIPELINE_CACHE_CREATE_INFO };
    r = vkCreatePipelineCache(ctx->device, &cci, NULL, &ctx->pipeline_cache);
    if (r != VK_SUCCESS)
        return q4vk_vk_fail(ctx, err, "vkCreatePipelineCache", r, NULL);
    return Q4_OK;
}

static q4_status messenger_create(q4vk_context *ctx, q4_error *err)
{
    VkDebugUtilsMessengerCreateInfoEXT ci;
    PFN_vkCreateDebugUtilsMessengerEXT create = (PFN_vkCreateDebugUtilsMessengerEXT)
        vkGetInstanceProcAddr(ctx->instance, "vkCreateDebugUtilsMessengerEXT");
    ctx->destroy_messenger = (PFN_vkDestroyDebugUtilsMessengerEXT)
        vkGetInstanceProcAddr(ctx->instance, "vkDestroyDebugUtilsMessengerEXT");
    if (!create || !ctx->destroy_messenger)
        return q4_fail(err, Q4_ERR_UNSUPPORTED,
                       "validation was requested but vkCreateDebugUtilsMessengerEXT is missing");
    q4vk_messenger_info(ctx, &ci);
    VkResult r = create(ctx->instance, &ci, NULL, &ctx->messenger);
    if (r != VK_SUCCESS)
        return q4vk_vk_fail(ctx, err, "vkCreateDebugUtilsMessengerEXT", r, NULL);
    return Q4_OK;
}

static bool env_validation(void)
{
    const char *v = getenv("Q4CTS_VALIDATION");
    return v && strcmp(v, "1") == 0;
}

q4_status q4vk_create(const q4vk_options *opt, q4vk_context **out, q4_error *err)
{
    static const q4vk_options defaults;
    q4vk_device_info *infos = NULL;
    VkPhysicalDevice *pds = NULL;
    device_caps caps;
    uint32_t api = 0, n = 0;
    int chosen = -1;
    q4_status st;

    if (!out)
        return q4_fail(err, Q4_ERR_ARG, "q4vk_create needs a place for the context");
    *out = NULL;
    if (!opt)
        opt = &defaults;
    q4vk_context *ctx = calloc(1, sizeof *ctx);
    if (!ctx)
        return q4_fail(err, Q4_ERR_NOMEM, "out of host memory creating the q4vk context");
    pthread_mutex_init(&ctx->msgs.lock, NULL);
    ctx->validation = opt->validation || env_validation();
    ctx->timeout_ns = (opt->timeout_ms ? opt->timeout_ms : 60000) * 1000000ull;
    ctx->faults = opt->faults;
    ctx->probes = opt->probes;
    q4vk_msgs_begin(ctx, "context creation");

    st = instance_create(ctx, &ctx->instance, &api, err);
    if (st != Q4_OK)
        goto fail;
    if (ctx->validation && (st = messenger_create(ctx, err)) != Q4_OK)
        goto fail;
    if ((st = physical_devices(ctx->instance, &pds, &n, err)) != Q4_OK)
        goto fail;
    infos = calloc(n, sizeof *infos);
    if (!infos) {
        st = q4_fail(err, Q4_ERR_NOMEM, "out of host memory listing Vulkan devices");
        goto fail;
    }
    for (uint32_t i = 0; i < n; i++)
        if ((st = device_info(ctx->instance, pds[i], api, (int)i, &infos[i], &caps, err)) != Q4_OK)
            goto fail;
    if ((st = select_device(infos, (int)n, opt->device, &chosen, err)) != Q4_OK)
        goto fail;
    ctx->phys = pds[chosen];
    if ((st = device_info(ctx->instance, ctx->phys, api, chosen, &ctx->info, &caps, err)) != Q4_OK)
        goto fail;
    if (opt->dense_min_m)
        ctx->info.dense_min_m = opt->dense_min_m;
    if (opt->mma_min_m)
        ctx->info.mma_min_m = opt->mma_min_m;
    if ((st = device_create(ctx, &caps, err)) != Q4_OK)
        goto fail;
    if ((st = q4vk_apply_test_limits(ctx, &opt->test_limits, err)) != Q4_OK)
        goto fail;
    if ((st = q4vk_msgs_end(ctx, err)) != Q4_OK)
        goto fail;

    if (opt->log) {
        const q4vk_device_info *d = &ctx->info;
        fprintf(opt->log,
                "q4vk: device %d \"%s\" (vendor 0x%04x, %s), driver %s %s%s%s%s, "
                "Vulkan %u.%u.%u%s%s\n",
                d->index, d->name, d->vendor_id, d->type,
                d->driver_name[0] ? d->driver_name : "(unnamed)", d->driver_version_str,
                d->driver_info[0] ? " (" : "", d->driver_info, d->driver_info[0] ? ")" : "",
                VK_API_VERSION_MAJOR(d->api_version), VK_API_VERSION_MINOR(d->api_version),
                VK_API_VERSION_PATCH(d->api_version), ctx->validation ? ", validation on" : "",
                ctx->limits_lowered ? ", limits lowered for tests (not a conformance run)" : "");
    }
    free(infos);
    free(pds);
    *out = ctx;
    return Q4_OK;

fail:
    free(infos);
    free(pds);
    q4vk_destroy(ctx);
    return st;
}

void q4vk_destroy(q4vk_context *ctx)
{
    bool release = true;

    if (!ctx)
        return;
    if (ctx->faults.crash_at_destroy && ctx->n_submits >= ctx->faults.crash_at_destroy)
        raise(SIGSEGV);   /* fault hook: the worker must report a crash at teardown */
    /* A hung submission may still use every object: after a short grace, leak the
     * device rather than destroy objects it is using. A lost device needs no wait
     * (vkDeviceWaitIdle could hang on it). */
    if (ctx->device) {
        release = q4vk_quiesce(ctx);
        if (ctx->dead == Q4_OK)
            vkDeviceWaitIdle(ctx->device);
    }
    q4vk_sequence_abort(ctx);   /* the buffers destroyed while recording */
    free(ctx->seq.d);
    free(ctx->seq.push_at);
    free(ctx->seq.no_barrier);
    free(ctx->seq.cond);
    free(ctx->seq.push);
    free(ctx->seq.doomed);
    q4vk_pipelines_destroy(ctx, release);
    if (release && ctx->device) {
        q4vk_staging_destroy(ctx);
        q4vk_probes_destroy(ctx);
        if (ctx->desc_pool)
            vkDestroyDescriptorPool(ctx->device, ctx->desc_pool, NULL);
        if (ctx->pipeline_cache)
            vkDestroyPipelineCache(ctx->device, ctx->pipeline_cache, NULL);
        if (ctx->queries)
            vkDestroyQueryPool(ctx->device, ctx->queries, NULL);
        if (ctx->fence)
            vkDestroyFence(ctx->device, ctx->fence, NULL);
        if (ctx->cmd_pool)
            vkDestroyCommandPool(ctx->device, ctx->cmd_pool, NULL);
        vkDestroyDevice(ctx->device, NULL);
    }
    if (release && ctx->instance) {
        if (ctx->messenger)
            ctx->destroy_messenger(ctx->instance, ctx->messenger, NULL);
        vkDestroyInstance(ctx->instance, NULL);
    }
    pthread_mutex_destroy(&ctx->msgs.lock);
    free(ctx);
}

const q4vk_device_info *q4vk_info(const q4vk_context *ctx)
{
    return ctx ? &ctx->info : NULL;
}

bool q4vk_device_extension(const q4vk_context *ctx, const char *name)
{
    for (int i = 0; ctx && name && i < ctx->n_extensions; i++)
        if (strcmp(ctx->extensions[i], name) == 0)
            return true;
    return false;
}
