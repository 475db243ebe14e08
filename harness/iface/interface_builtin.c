/* interface_builtin.c: `q4cts kernels --interface NAME`: the interface file of a
 * built-in kernel that its op runs as one dispatch, as its launcher dispatches it
 * (gpu/q4vk_op_<op>.c): the starting point for a user's file, and the proof (ctest
 * label interface) that the format describes our own kernels. The file names the
 * module "NAME.spv" beside it: compile gpu/shaders/NAME.comp there (or copy the
 * build's build/gpu/shaders/NAME.spv). */
#include <string.h>

#include "interface.h"

typedef struct builtin {
    const char *kernel;
    const char *text;          /* the file, from "op" on */
} builtin;

static const builtin builtins[] = {
    { "adamw_step",
      "  \"op\": \"adamw_step\",\n"
      "  \"steps\": [\n"
      "    {\n"
      "      \"name\": \"update\",\n"
      "      \"spirv\": \"adamw_step.spv\",\n"
      "      \"local_size\": [256, 1, 1],\n"
      "      \"bindings\": [\n"
      "        { \"binding\": 0, \"tensor\": \"param\", \"layout\": \"fp32\", \"access\": \"read_write\" },\n"
      "        { \"binding\": 1, \"tensor\": \"grad\", \"layout\": \"fp32\", \"access\": \"read\" },\n"
      "        { \"binding\": 2, \"tensor\": \"m\", \"layout\": \"fp32\", \"access\": \"read_write\" },\n"
      "        { \"binding\": 3, \"tensor\": \"v\", \"layout\": \"fp32\", \"access\": \"read_write\" }\n"
      "      ],\n"
      "      \"push_constants\": [\n"
      "        { \"name\": \"n\", \"type\": \"uint\", \"value\": \"numel\" },\n"
      "        { \"name\": \"lr\", \"type\": \"float\", \"value\": \"lr\" },\n"
      "        { \"name\": \"beta1\", \"type\": \"float\", \"value\": \"beta1\" },\n"
      "        { \"name\": \"beta2\", \"type\": \"float\", \"value\": \"beta2\" },\n"
      "        { \"name\": \"eps\", \"type\": \"float\", \"value\": \"eps\" },\n"
      "        { \"name\": \"wd\", \"type\": \"float\", \"value\": \"wd\" },\n"
      "        { \"name\": \"bc1\", \"type\": \"float\", \"value\": \"bc1\" },\n"
      "        { \"name\": \"bc2\", \"type\": \"float\", \"value\": \"bc2\" }\n"
      "      ],\n"
      "      \"workgroups\": [\"ceil_div(ceil_div(numel, 4), 256)\", 1, 1],\n"
      "      \"fold\": true\n"
      "    }\n"
      "  ]\n" },
    { "dequantize",
      "  \"op\": \"dequantize\",\n"
      "  \"steps\": [\n"
      "    {\n"
      "      \"name\": \"unpack\",\n"
      "      \"spirv\": \"dequantize.spv\",\n"
      "      \"local_size\": [256, 1, 1],\n"
      "      \"bindings\": [\n"
      "        { \"binding\": 0, \"tensor\": \"w\", \"layout\": \"w4x8\", \"access\": \"read\" },\n"
      "        { \"binding\": 1, \"tensor\": \"scales\", \"layout\": \"scales\", \"access\": \"read\" },\n"
      "        { \"binding\": 2, \"tensor\": \"wf\", \"layout\": \"fp32\", \"access\": \"write\" }\n"
      "      ],\n"
      "      \"push_constants\": [\n"
      "        { \"name\": \"N\", \"type\": \"uint\", \"value\": \"N\" },\n"
      "        { \"name\": \"K\", \"type\": \"uint\", \"value\": \"K\" },\n"
      "        { \"name\": \"gs\", \"type\": \"uint\", \"value\": \"gs\" },\n"
      "        { \"name\": \"N8\", \"type\": \"uint\", \"value\": \"N8\" },\n"
      "        { \"name\": \"KT\", \"type\": \"uint\", \"value\": \"ceil_div(K / 4, 16)\" },\n"
      "        { \"name\": \"chunks\", \"type\": \"uint\", \"value\": \"ceil_div(K / 4, 16) * ceil_div(N8, 2)\" }\n"
      "      ],\n"
      "      \"workgroups\": [\"ceil_div(ceil_div(K / 4, 16) * ceil_div(N8, 2), 8)\", 1, 1],\n"
      "      \"fold\": true\n"
      "    }\n"
      "  ]\n" },
    { "q4gsw_requant_w4x8",
      "  \"op\": \"q4gsw_requant\",\n"
      "  \"steps\": [\n"
      "    {\n"
      "      \"name\": \"pack\",\n"
      "      \"spirv\": \"q4gsw_requant_w4x8.spv\",\n"
      "      \"local_size\": [256, 1, 1],\n"
      "      \"local_size_ids\": [0, null, null],\n"
      "      \"spec_constants\": [\n"
      "        { \"id\": 1, \"type\": \"uint\", \"value\": 2 },\n"
      "        { \"id\": 2, \"type\": \"uint\", \"value\": 64 },\n"
      "        { \"id\": 3, \"type\": \"uint\", \"value\": 256 }\n"
      "      ],\n"
      "      \"bindings\": [\n"
      "        { \"binding\": 0, \"tensor\": \"latent\", \"layout\": \"fp32\", \"access\": \"read\" },\n"
      "        { \"binding\": 1, \"tensor\": \"scales\", \"layout\": \"scales\", \"access\": \"read\" },\n"
      "        { \"binding\": 2, \"tensor\": \"w\", \"layout\": \"w4x8\", \"access\": \"write\" },\n"
      "        { \"binding\": 3, \"tensor\": \"w\", \"layout\": \"w4x8\", \"access\": \"write\" }\n"
      "      ],\n"
      "      \"push_constants\": [\n"
      "        { \"name\": \"N\", \"type\": \"uint\", \"value\": \"N\" },\n"
      "        { \"name\": \"K\", \"type\": \"uint\", \"value\": \"K\" },\n"
      "        { \"name\": \"gs\", \"type\": \"uint\", \"value\": \"gs\" },\n"
      "        { \"name\": \"n8_0\", \"type\": \"uint\", \"value\": 0 },\n"
      "        { \"name\": \"n8_count\", \"type\": \"uint\", \"value\": \"N8\" },\n"
      "        { \"name\": \"lat_off\", \"type\": \"uint\", \"value\": 0 },\n"
      "        { \"name\": \"flat_off\", \"type\": \"uint\", \"value\": 0 },\n"
      "        { \"name\": \"tiles_k\", \"type\": \"uint\", \"value\": \"ceil_div(K / 4, 64)\" },\n"
      "        { \"name\": \"tiles\", \"type\": \"uint\", \"value\": \"ceil_div(K / 4, 64) * ceil_div(N8, 2)\" },\n"
      "        { \"name\": \"outputs\", \"type\": \"uint\", \"value\": 1 }\n"
      "      ],\n"
      "      \"workgroups\": [\"ceil_div(K / 4, 64) * ceil_div(N8, 2)\", 1, 1],\n"
      "      \"fold\": true\n"
      "    }\n"
      "  ]\n" },
};

q4_status q4h_iface_print_builtin(const char *name, FILE *f, q4_error *err)
{
    char list[128] = "", shown[Q4_ECHO_MAX];
    for (size_t i = 0; i < sizeof builtins / sizeof builtins[0]; i++) {
        if (!strcmp(builtins[i].kernel, name)) {
            fprintf(f, "{\n  \"format\": \"q4cts-interface-1\",\n%s}\n", builtins[i].text);
            return Q4_OK;
        }
        size_t len = strlen(list);
        snprintf(list + len, sizeof list - len, "%s%s", i ? ", " : "", builtins[i].kernel);
    }
    return q4_fail(err, Q4_ERR_ARG, "kernels --interface %s: no built-in kernel of that name is "
                   "described by an interface file (those that are: %s)",
                   q4_echo(name, shown, sizeof shown), list);
}
