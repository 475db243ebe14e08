/* interface_module.c: one step of an interface file against its SPIR-V module
 * (docs/interface-format.md, "What is checked"): validated by spirv-val, then its
 * reflection (spirv/q4spv_reflect.h) must match the step: entry point, descriptors
 * and their types, readonly bindings, uniform block sizes, push-constant size,
 * specialisation ids and local size. Each refusal names the binding or field. */
#include "interface.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include <spirv/unified1/spirv.h>

#include "q4spv_reflect.h"

static q4_status refuse(const q4h_iface *f, const char *key, q4_error *err, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static q4_status refuse(const q4h_iface *f, const char *key, q4_error *err, const char *fmt, ...)
{
    char shown[Q4_ECHO_MAX], text[Q4_MSG_MAX];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    return q4_fail(err, Q4_ERR_ARG, "%s: %s: the module does not match: %s",
                   q4_echo(f->path, shown, sizeof shown), key, text);
}

/* What a binding of the file is, for messages. */
static void describe(const q4h_iface *f, const q4h_if_binding *b, char *out, size_t size)
{
    if (b->kind == Q4H_BIND_TENSOR)
        snprintf(out, size, "tensor %s", f->op->tensors[f->buffers[b->index].tensor].name);
    else if (b->kind == Q4H_BIND_SCRATCH)
        snprintf(out, size, "scratch %s", f->scratch[b->index].name);
    else
        snprintf(out, size, "a uniform buffer");
}

static q4_status check_bindings(const q4h_iface *f, const q4h_if_step *s, const char *key,
                                const q4spv_interface *in, q4_error *err)
{
    uint32_t declared = 0;
    char what[64];
    for (int i = 0; i < in->n_bindings; i++) {
        const q4spv_binding *mb = &in->bindings[i];
        if (mb->set != 0)
            return refuse(f, key, err, "the module uses descriptor set %u, binding %u; only set 0 "
                          "can be described", mb->set, mb->binding);
        if (mb->binding >= (uint32_t)s->n_bind)
            return refuse(f, key, err, "the module declares binding %u (a %s), which the file "
                          "does not describe", mb->binding, q4spv_desc_name(mb->type));
        const q4h_if_binding *b = &s->bind[mb->binding];
        describe(f, b, what, sizeof what);
        const q4spv_desc want = b->kind == Q4H_BIND_UNIFORM ? Q4SPV_DESC_UNIFORM_BUFFER
                                                            : Q4SPV_DESC_STORAGE_BUFFER;
        if (mb->type != want)
            return refuse(f, b->key, err, "binding %u is a %s in the module; the file makes it %s, "
                          "which needs a %s", mb->binding, q4spv_desc_name(mb->type), what,
                          q4spv_desc_name(want));
        if (mb->non_writable && b->kind == Q4H_BIND_TENSOR && b->access != Q4H_ACCESS_READ)
            return refuse(f, b->key, err, "binding %u (%s) is readonly in the module but the file "
                          "writes it", mb->binding, what);
        if (b->kind == Q4H_BIND_UNIFORM && b->uniform.bytes < mb->block_bytes)
            return refuse(f, b->key, err, "binding %u: the module's uniform block is %llu bytes; "
                          "the file's fields fill %u", mb->binding,
                          (unsigned long long)mb->block_bytes, b->uniform.bytes);
        declared |= 1u << mb->binding;
    }
    for (int b = 0; b < s->n_bind; b++)
        if (!(declared >> b & 1)) {
            describe(f, &s->bind[b], what, sizeof what);
            return refuse(f, s->bind[b].key, err, "binding %d (%s) is not declared by the module",
                          b, what);
        }
    return Q4_OK;
}

static q4_status check_local_size(const q4h_iface *f, const q4h_if_step *s, const char *key,
                                  const q4spv_interface *in, q4_error *err)
{
    static const char axis[3] = { 'x', 'y', 'z' };
    for (int d = 0; d < 3; d++) {
        if (s->local_id[d] >= 0) {
            if (in->local_size_spec[d] != s->local_id[d])
                return refuse(f, key, err, "local_size_ids[%d] is %lld, but the module's local "
                              "size in %c %s", d, (long long)s->local_id[d], axis[d],
                              in->local_size_spec[d] < 0 ? "is a literal"
                              : "comes from another specialisation constant");
            continue;
        }
        q4h_xval v;
        if (in->local_size_spec[d] >= 0)
            return refuse(f, key, err, "the module takes its local size in %c from "
                          "specialisation constant %lld: give its id in local_size_ids", axis[d],
                          (long long)in->local_size_spec[d]);
        if (!q4h_expr_constant_value(s->local[d], &v))
            return refuse(f, key, err, "local_size[%d] must be a constant: the module's local "
                          "size is a literal", d);
        if (v.i != (int64_t)in->local_size[d])
            return refuse(f, key, err, "local_size[%d] is %lld, the module's is %u", d,
                          (long long)v.i, in->local_size[d]);
    }
    return Q4_OK;
}

q4_status q4h_iface_check_module(const q4h_iface *f, const q4h_if_step *s, q4_error *err)
{
    char key[96], what[700], shown[Q4_ECHO_MAX];
    const int index = (int)(s - f->steps);
    snprintf(key, sizeof key, "%ssteps[%d]", f->at, index);
    snprintf(what, sizeof what, "%s: %s.spirv", q4_echo(f->path, shown, sizeof shown), key);
    q4spv_module m;
    q4spv_interface in;
    q4_status st = q4spv_validate(s->words, s->n_words, what, err);
    if (st == Q4_OK && (st = q4spv_parse(s->words, s->n_words, &m, err)) == Q4_OK) {
        st = q4spv_reflect(&m, &in, err);
        int e = 0;
        while (st == Q4_OK && e < in.n_entries &&
               !(in.entries[e].model == SpvExecutionModelGLCompute &&
                 !strcmp(in.entries[e].name, s->entry)))
            e++;
        if (st == Q4_OK && e < in.n_entries)
            q4spv_reflect_local_size(&m, in.entries[e].id, &in);
        q4spv_module_free(&m);
        if (st == Q4_OK && e == in.n_entries) {
            char key_entry[112];
            snprintf(key_entry, sizeof key_entry, "%s.entry", key);
            return refuse(f, key_entry, err, "it has no GLCompute entry point \"%s\"", s->entry);
        }
    }
    if (st != Q4_OK && st != Q4_ERR_NOMEM && !strstr(err->msg, what)) {
        char why[Q4_MSG_MAX];
        snprintf(why, sizeof why, "%s", err->msg);
        return q4_fail(err, Q4_ERR_ARG, "%s: %.400s", what, why);
    }
    if (st != Q4_OK)
        return st;
    if ((st = check_bindings(f, s, key, &in, err)))
        return st;
    if (s->push.bytes != in.push_bytes) {
        snprintf(key, sizeof key, "%ssteps[%d].push_constants", f->at, index);
        return refuse(f, key, err, "the file's push constants fill %u bytes, the module's block "
                      "is %u bytes", s->push.bytes, in.push_bytes);
    }
    for (int i = 0; i < s->n_spec; i++) {
        int j = 0;
        while (j < in.n_spec && in.spec_ids[j] != s->spec[i].id)
            j++;
        if (j == in.n_spec)
            return refuse(f, s->spec[i].key, err, "the module has no specialisation constant %u",
                          s->spec[i].id);
    }
    snprintf(key, sizeof key, "%ssteps[%d].local_size", f->at, index);
    return check_local_size(f, s, key, &in, err);
}
