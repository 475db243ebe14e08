/* overrides.c: loading user SPIR-V modules for --kernel (binding interfaces: docs/kernels.md).
 * Each module is validated and its interface reflected (spirv/) before any case runs;
 * one that differs from the built-in kernel it replaces is refused, naming what differs. */
#include "overrides.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "files.h"
#include "op.h"
#include "q4spv_reflect.h"

static q4_status resolve(const char *name, const char **kernel, q4_error *err)
{
    const q4h_op *op = q4h_op_find(name);
    if (q4vk_kernel_find(name)) {
        *kernel = q4vk_kernel_find(name)->name;
        return Q4_OK;
    }
    if (op && op->kernels[0] && !op->kernels[1]) {
        *kernel = op->kernels[0];
        return Q4_OK;
    }
    if (op) {
        char list[256] = "";
        for (int i = 0; op->kernels[i]; i++) {
            size_t len = strlen(list);
            snprintf(list + len, sizeof list - len, "%s%s", i ? ", " : "", op->kernels[i]);
        }
        return q4_fail(err, Q4_ERR_ARG, "--kernel %s: op %s runs several kernels (%s); name the "
                       "one to replace", name, name, list);
    }
    return q4_fail(err, Q4_ERR_ARG, "--kernel %s: no built-in kernel or op has that name (see "
                   "'q4cts kernels')", name);
}

/* The interface of words (parsed, reflected); `what` names the module in errors. */
static q4_status interface_of(const uint32_t *words, size_t n, const char *what,
                              q4spv_interface *f, q4_error *err)
{
    q4spv_module m;
    q4_status st = q4spv_parse(words, n, &m, err);
    if (st == Q4_OK) {
        st = q4spv_reflect(&m, f, err);
        q4spv_module_free(&m);
    }
    if (st != Q4_OK) {
        char why[Q4_MSG_MAX];
        snprintf(why, sizeof why, "%s", err->msg);
        st = q4_fail(err, st, "%s: %.400s", what, why);
    }
    return st;
}

/* Refuses a module that is not valid SPIR-V or whose interface differs from the
 * built-in kernel's (docs/kernels.md: the launcher dispatches it identically). */
static q4_status check_interface(const q4h_override *o, q4_error *err)
{
    const q4vk_kernel *k = q4vk_kernel_find(o->kernel);
    q4spv_interface want, got;
    char what[300], diff[Q4_MSG_MAX];
    snprintf(what, sizeof what, "--kernel %s=%.200s", o->kernel, o->path);
    q4_status st;
    if ((st = q4spv_validate(o->words, o->n_words, what, err)) ||
        (st = interface_of(k->spirv, k->spirv_words, "built-in kernel", &want, err)) ||
        (st = interface_of(o->words, o->n_words, what, &got, err)))
        return st;
    if (q4spv_interface_diff(&want, &got, diff, sizeof diff) > 0)
        return q4_fail(err, Q4_ERR_ARG, "%s: the module's interface differs from the built-in "
                       "%s's: %s", what, o->kernel, diff);
    return Q4_OK;
}

q4_status q4h_overrides_load(const char *const *args, size_t n, q4h_override **out,
                             q4_error *err)
{
    q4h_override *o = calloc(n ? n : 1, sizeof *o);
    q4_status st = o ? Q4_OK : q4_fail(err, Q4_ERR_NOMEM, "out of memory");
    for (size_t i = 0; i < n && st == Q4_OK; i++) {
        const char *eq = strchr(args[i], '=');
        char name[128];
        if (!eq || eq == args[i] || !eq[1] || (size_t)(eq - args[i]) >= sizeof name) {
            char shown[Q4_ECHO_MAX];
            st = q4_fail(err, Q4_ERR_ARG, "--kernel expects OP=FILE.spv, got '%s'",
                         q4_echo(args[i], shown, sizeof shown));
            break;
        }
        memcpy(name, args[i], (size_t)(eq - args[i]));
        name[eq - args[i]] = '\0';
        o[i].path = eq + 1;
        st = resolve(name, &o[i].kernel, err);
        for (size_t k = 0; st == Q4_OK && k < i; k++)
            if (!strcmp(o[k].kernel, o[i].kernel))
                st = q4_fail(err, Q4_ERR_ARG, "--kernel: kernel %s is replaced twice", o[i].kernel);
        if (st == Q4_OK)
            st = q4h_read_spirv(o[i].path, "--kernel", &o[i].words, &o[i].n_words, err);
        if (st == Q4_OK)
            st = check_interface(&o[i], err);
    }
    if (st != Q4_OK) {
        q4h_overrides_free(o, n);
        return st;
    }
    *out = o;
    return Q4_OK;
}

void q4h_overrides_free(q4h_override *o, size_t n)
{
    if (!o)
        return;
    for (size_t i = 0; i < n; i++)
        free(o[i].words);
    free(o);
}
