/* json_text.c: strict parsing of a JSON buffer and typed member readers (json_text.h). */
#include "json_text.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

json_object *q4h_json_parse_object(const char *buf, size_t size, const char *what, q4_error *err)
{
    if (size > INT32_MAX || memchr(buf, '\0', size)) {
        q4_fail(err, Q4_ERR_ARG, "%s is not JSON text (it holds a NUL byte or is over 2 GiB)",
                what);
        return NULL;
    }
    json_tokener *tok = json_tokener_new();
    if (!tok) {
        q4_fail(err, Q4_ERR_NOMEM, "out of memory parsing %s", what);
        return NULL;
    }
    json_object *root = json_tokener_parse_ex(tok, buf, (int)size);
    enum json_tokener_error jerr = json_tokener_get_error(tok);
    size_t end = json_tokener_get_parse_end(tok);
    json_tokener_free(tok);
    if (!root || jerr != json_tokener_success)
        q4_fail(err, Q4_ERR_ARG, "%s is not valid JSON: %s", what,
                jerr == json_tokener_continue ? "it ends in the middle of a value"
                                              : json_tokener_error_desc(jerr));
    else if (end < size && strspn(buf + end, " \t\r\n") != size - end)
        q4_fail(err, Q4_ERR_ARG, "%s is not valid JSON: text follows the object", what);
    else if (!json_object_is_type(root, json_type_object))
        q4_fail(err, Q4_ERR_ARG, "%s must hold a JSON object", what);
    else
        return root;
    json_object_put(root);
    return NULL;
}

void q4h_jp_bad(q4h_jparser *p, const char *where, const char *key, const char *expected)
{
    char where_echo[96], key_echo[96];   /* member names come from the file: escaped */
    if (p->st == Q4_OK)
        p->st = q4_fail(p->err, Q4_ERR_ARG, "%s: %s%s%s must be %s", p->what,
                        q4_echo(where, where_echo, sizeof where_echo), where[0] ? "." : "",
                        q4_echo(key, key_echo, sizeof key_echo), expected);
}

json_object *q4h_jp_member(q4h_jparser *p, json_object *o, const char *where, const char *key,
                           json_type type, bool optional, const char *expected)
{
    json_object *v = NULL;
    if (!json_object_object_get_ex(o, key, &v) || !v) {
        if (!optional)
            q4h_jp_bad(p, where, key, expected);
        return NULL;
    }
    if (!json_object_is_type(v, type) &&
        !(type == json_type_double && json_object_is_type(v, json_type_int))) {
        q4h_jp_bad(p, where, key, expected);
        return NULL;
    }
    return v;
}

void q4h_jp_str(q4h_jparser *p, json_object *o, const char *where, const char *key, char *buf,
                size_t size, bool optional)
{
    json_object *v = q4h_jp_member(p, o, where, key, json_type_string, optional, "a string");
    if (!v)
        return;
    int len = json_object_get_string_len(v);
    const char *s = json_object_get_string(v);
    if ((size_t)len >= size || memchr(s, '\0', (size_t)len))
        q4h_jp_bad(p, where, key, "a shorter string without NUL characters");
    else
        memcpy(buf, s, (size_t)len + 1);
}

double q4h_jp_num(q4h_jparser *p, json_object *o, const char *where, const char *key)
{
    json_object *v = NULL;
    if (!json_object_object_get_ex(o, key, &v) || !v)
        return NAN;
    if (!json_object_is_type(v, json_type_double) && !json_object_is_type(v, json_type_int)) {
        q4h_jp_bad(p, where, key, "a number or null");
        return NAN;
    }
    return json_object_get_double(v);
}

int64_t q4h_jp_int(q4h_jparser *p, json_object *o, const char *where, const char *key,
                   int64_t lo, int64_t hi, bool nullable)
{
    json_object *v = NULL;
    char expected[96];
    snprintf(expected, sizeof expected, "an integer from %lld to %lld%s", (long long)lo,
             (long long)hi, nullable ? " or null" : "");
    json_object_object_get_ex(o, key, &v);
    if (!v && nullable)
        return -1;
    if (!v || !json_object_is_type(v, json_type_int)) {
        q4h_jp_bad(p, where, key, expected);
        return lo;
    }
    errno = 0;
    int64_t x = json_object_get_int64(v);
    if (errno || x < lo || x > hi) {
        q4h_jp_bad(p, where, key, expected);
        return lo;
    }
    return x;
}

bool q4h_jp_bool(q4h_jparser *p, json_object *o, const char *where, const char *key)
{
    json_object *v = q4h_jp_member(p, o, where, key, json_type_boolean, false, "true or false");
    return v && json_object_get_boolean(v);
}
