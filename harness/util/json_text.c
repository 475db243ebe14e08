/* json_text.c: strict parsing of a JSON buffer and typed member readers (json_text.h).
 *
 * json-c alone is lenient even with JSON_TOKENER_STRICT (0.16 still takes single
 * quotes, NaN and Infinity, numbers out of range, "1.", raw control characters in
 * strings, \u0000 and lone surrogates, and keeps the last of two equal keys), so the
 * text is first checked against RFC 8259's grammar here (scan below); json-c then
 * builds the tree, and a key given twice shows as an object with fewer members than
 * the text has. */
#include "json_text.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Nesting deeper than json-c's default depth is refused by both. */
#define MAX_DEPTH 32

typedef struct scan {
    const unsigned char *s;
    size_t n, at;
    const char *why;           /* the first problem, or NULL */
    size_t why_at;             /* its byte offset */
    size_t *counts;            /* members of each object, in document order (preorder) */
    size_t n_counts, cap_counts;
    int depth;
} scan;

static int problem(scan *p, const char *why)
{
    if (!p->why) {   /* whatever was expected there, these are the news */
        const unsigned char c = p->at < p->n ? p->s[p->at] : 0;
        p->why = p->at >= p->n ? "it ends in the middle of a value"
                 : c == '\0'   ? "it holds a NUL byte"
                 : c == '/'    ? "JSON has no comments"
                 : c == '\''   ? "a string must be in double quotes"
                                : why;
        p->why_at = p->at;
    }
    return 0;
}

static void skip_ws(scan *p)
{
    while (p->at < p->n && (p->s[p->at] == ' ' || p->s[p->at] == '\t' || p->s[p->at] == '\n' ||
                            p->s[p->at] == '\r'))
        p->at++;
}

static int hex4(scan *p, unsigned *v)
{
    *v = 0;
    for (int i = 0; i < 4; i++) {
        unsigned char c = p->at < p->n ? p->s[p->at] : 0;
        unsigned d = c >= '0' && c <= '9'   ? (unsigned)(c - '0')
                     : c >= 'a' && c <= 'f' ? (unsigned)(c - 'a') + 10u
                     : c >= 'A' && c <= 'F' ? (unsigned)(c - 'A') + 10u
                                            : 16u;
        if (d == 16)
            return problem(p, "a \\u escape needs four hex digits");
        *v = *v * 16 + d;
        p->at++;
    }
    return 1;
}

/* One UTF-8 sequence at p->at (its first byte >= 0x80): well-formed, shortest form, no
 * surrogate, at most U+10FFFF. */
static int utf8(scan *p)
{
    const unsigned char *s = p->s + p->at;
    size_t left = p->n - p->at, len;
    unsigned cp;
    if (s[0] >= 0xC2 && s[0] <= 0xDF)
        len = 2, cp = s[0] & 0x1Fu;
    else if (s[0] >= 0xE0 && s[0] <= 0xEF)
        len = 3, cp = s[0] & 0x0Fu;
    else if (s[0] >= 0xF0 && s[0] <= 0xF4)
        len = 4, cp = s[0] & 0x07u;
    else
        return problem(p, "a string holds a byte that is not UTF-8");
    if (left < len)
        return problem(p, "a string holds a byte that is not UTF-8");
    for (size_t i = 1; i < len; i++) {
        if ((s[i] & 0xC0) != 0x80)
            return problem(p, "a string holds a byte that is not UTF-8");
        cp = cp << 6 | (s[i] & 0x3Fu);
    }
    if ((len == 3 && cp < 0x800) || (len == 4 && (cp < 0x10000 || cp > 0x10FFFF)) ||
        (cp >= 0xD800 && cp <= 0xDFFF))
        return problem(p, "a string holds a byte that is not UTF-8");
    p->at += len;
    return 1;
}

static int string(scan *p)
{
    p->at++;   /* the opening quote */
    while (p->at < p->n) {
        unsigned char c = p->s[p->at];
        if (c == '"') {
            p->at++;
            return 1;
        }
        if (c < 0x20)
            return problem(p, "a string holds a control character (write it as \\n, \\t or "
                              "\\u00XX)");
        if (c >= 0x80) {
            if (!utf8(p))
                return 0;
            continue;
        }
        p->at++;
        if (c != '\\')
            continue;
        c = p->at < p->n ? p->s[p->at] : 0;
        if (c && strchr("\"\\/bfnrt", c)) {
            p->at++;
            continue;
        }
        if (c != 'u')
            return problem(p, "a string holds an unknown escape (JSON has \\\" \\\\ \\/ \\b \\f "
                              "\\n \\r \\t \\uXXXX)");
        p->at++;
        unsigned v, w;
        if (!hex4(p, &v))
            return 0;
        if (v == 0)
            return problem(p, "a string holds \\u0000, which would cut it short");
        if (v >= 0xDC00 && v <= 0xDFFF)
            return problem(p, "a string holds a lone low surrogate \\uDC00-\\uDFFF");
        if (v >= 0xD800 && v <= 0xDBFF) {
            if (p->at + 2 > p->n || p->s[p->at] != '\\' || p->s[p->at + 1] != 'u')
                return problem(p, "a string holds a high surrogate without its low one");
            p->at += 2;
            if (!hex4(p, &w))
                return 0;
            if (w < 0xDC00 || w > 0xDFFF)
                return problem(p, "a string holds a high surrogate without its low one");
        }
    }
    return problem(p, "a string is not closed");
}

static int digits(scan *p)
{
    size_t from = p->at;
    while (p->at < p->n && p->s[p->at] >= '0' && p->s[p->at] <= '9')
        p->at++;
    return p->at > from;
}

/* A number by RFC 8259's grammar whose value json-c keeps exactly as written: an
 * integer within 64 bits (signed, or unsigned when positive), any other a finite
 * double. */
static int number(scan *p)
{
    size_t from = p->at;
    bool integer = true;
    if (p->s[p->at] == '-')
        p->at++;
    if (p->at < p->n && p->s[p->at] == '0')
        p->at++;
    else if (!digits(p))
        return problem(p, "a value is not JSON (a number, string, object, array, true, false "
                          "or null; NaN and Infinity are not JSON)");
    if (p->at < p->n && p->s[p->at] >= '0' && p->s[p->at] <= '9')
        return problem(p, "a number has a leading zero");
    if (p->at < p->n && p->s[p->at] == '.') {
        p->at++;
        integer = false;
        if (!digits(p))
            return problem(p, "a number needs a digit after its '.'");
    }
    if (p->at < p->n && (p->s[p->at] == 'e' || p->s[p->at] == 'E')) {
        p->at++;
        integer = false;
        if (p->at < p->n && (p->s[p->at] == '+' || p->s[p->at] == '-'))
            p->at++;
        if (!digits(p))
            return problem(p, "a number needs a digit in its exponent");
    }
    char text[64];
    size_t len = p->at - from;
    if (integer) {
        /* within [-2^63, 2^64 - 1]: at most 20 digits, then compared as text */
        bool neg = p->s[from] == '-';
        size_t nd = len - neg;
        const char *lim = neg ? "9223372036854775808" : "18446744073709551615";
        if (nd > strlen(lim) ||
            (nd == strlen(lim) && memcmp(p->s + from + neg, lim, nd) > 0)) {
            p->at = from;
            return problem(p, "an integer is beyond 64 bits");
        }
        return 1;
    }
    if (len >= sizeof text) {   /* long mantissas: the exponent decides; strtod can read it */
        char *copy = malloc(len + 1);
        if (!copy)
            return problem(p, "out of memory");
        memcpy(copy, p->s + from, len);
        copy[len] = '\0';
        double v = strtod(copy, NULL);
        free(copy);
        if (!isfinite(v)) {
            p->at = from;
            return problem(p, "a number is beyond the range of a double");
        }
        return 1;
    }
    memcpy(text, p->s + from, len);
    text[len] = '\0';
    if (!isfinite(strtod(text, NULL))) {
        p->at = from;
        return problem(p, "a number is beyond the range of a double");
    }
    return 1;
}

static int literal(scan *p, const char *word)
{
    size_t len = strlen(word);
    if (p->n - p->at >= len && !memcmp(p->s + p->at, word, len)) {
        p->at += len;
        return 1;
    }
    return problem(p, "a value is not JSON (a number, string, object, array, true, false or "
                      "null; NaN and Infinity are not JSON)");
}

static int value(scan *p);

static int object(scan *p)
{
    size_t slot = p->n_counts;
    if (p->n_counts == p->cap_counts) {
        size_t cap = p->cap_counts ? 2 * p->cap_counts : 64;
        size_t *c = realloc(p->counts, cap * sizeof *c);
        if (!c)
            return problem(p, "out of memory");
        p->counts = c;
        p->cap_counts = cap;
    }
    p->counts[p->n_counts++] = 0;
    p->at++;
    skip_ws(p);
    if (p->at < p->n && p->s[p->at] == '}') {
        p->at++;
        return 1;
    }
    for (;;) {
        skip_ws(p);
        if (p->at >= p->n || p->s[p->at] != '"')
            return problem(p, p->at < p->n && p->s[p->at] == '}'
                                  ? "an object has a comma after its last member"
                                  : "an object's key must be a string in double quotes");
        if (!string(p))
            return 0;
        skip_ws(p);
        if (p->at >= p->n || p->s[p->at] != ':')
            return problem(p, "a key must be followed by ':'");
        p->at++;
        if (!value(p))
            return 0;
        p->counts[slot]++;
        skip_ws(p);
        if (p->at < p->n && p->s[p->at] == ',') {
            p->at++;
            continue;
        }
        if (p->at < p->n && p->s[p->at] == '}') {
            p->at++;
            return 1;
        }
        return problem(p, "an object's members must be separated by ',' and closed by '}'");
    }
}

static int array(scan *p)
{
    p->at++;
    skip_ws(p);
    if (p->at < p->n && p->s[p->at] == ']') {
        p->at++;
        return 1;
    }
    for (;;) {
        skip_ws(p);
        if (p->at < p->n && p->s[p->at] == ']')
            return problem(p, "an array has a comma after its last element");
        if (!value(p))
            return 0;
        skip_ws(p);
        if (p->at < p->n && p->s[p->at] == ',') {
            p->at++;
            continue;
        }
        if (p->at < p->n && p->s[p->at] == ']') {
            p->at++;
            return 1;
        }
        return problem(p, "an array's elements must be separated by ',' and closed by ']'");
    }
}

static int value(scan *p)
{
    skip_ws(p);
    if (p->at >= p->n)
        return problem(p, "it ends in the middle of a value");
    int ok;
    switch (p->s[p->at]) {
    case '{':
    case '[':
        if (p->depth == MAX_DEPTH)
            return problem(p, "it nests objects and arrays more than 32 deep");
        p->depth++;
        ok = p->s[p->at] == '{' ? object(p) : array(p);
        p->depth--;
        return ok;
    case '"': return string(p);
    case 't': return literal(p, "true");
    case 'f': return literal(p, "false");
    case 'n': return literal(p, "null");
    default:
        if (p->s[p->at] == '-' || (p->s[p->at] >= '0' && p->s[p->at] <= '9'))
            return number(p);
        return problem(p, "a value is not JSON (a number, string, object, array, true, false "
                          "or null; NaN and Infinity are not JSON)");
    }
}

/* Whether the objects of the tree, in preorder, have the member counts the text had:
 * json-c keeps one member per key, so a key given twice makes its object shorter. The
 * first object that differs is the first with a repeated key (every one before it in
 * preorder matches); *i is then its index. */
static int same_counts(json_object *o, const size_t *counts, size_t n, size_t *i)
{
    if (json_object_is_type(o, json_type_array)) {
        size_t len = json_object_array_length(o);
        for (size_t k = 0; k < len; k++)
            if (!same_counts(json_object_array_get_idx(o, k), counts, n, i))
                return 0;
        return 1;
    }
    if (!json_object_is_type(o, json_type_object))
        return 1;
    if (*i >= n || (size_t)json_object_object_length(o) != counts[*i])
        return 0;
    ++*i;
    json_object_object_foreach(o, key, v) {
        (void)key;
        if (!same_counts(v, counts, n, i))
            return 0;
    }
    return 1;
}

/* The byte offset of the index-th object of the text, in order of its '{'. */
static size_t object_offset(const char *buf, size_t size, size_t index)
{
    size_t seen = 0;
    bool in_string = false;
    for (size_t i = 0; i < size; i++) {
        if (in_string) {
            if (buf[i] == '\\')
                i++;
            else if (buf[i] == '"')
                in_string = false;
        } else if (buf[i] == '"') {
            in_string = true;
        } else if (buf[i] == '{' && seen++ == index) {
            return i;
        }
    }
    return size;
}

/* A key that the object at buf[at] (valid JSON, scanned) holds twice, decoded into
 * out; "" when none is found. */
static void repeated_key(const char *buf, size_t size, size_t at, char *out, size_t out_size)
{
    scan p = { .s = (const unsigned char *)buf, .n = size, .at = at + 1 };
    json_object *keys = json_object_new_array();
    out[0] = '\0';
    skip_ws(&p);
    while (keys && p.at < p.n && p.s[p.at] == '"' && !out[0]) {
        size_t from = p.at;
        if (!string(&p))
            break;
        json_tokener *tok = json_tokener_new();
        json_object *k = tok ? json_tokener_parse_ex(tok, buf + from, (int)(p.at - from)) : NULL;
        if (tok)
            json_tokener_free(tok);
        const char *ks = k ? json_object_get_string(k) : NULL;
        for (size_t i = 0; ks && i < json_object_array_length(keys); i++)
            if (!strcmp(json_object_get_string(json_object_array_get_idx(keys, i)), ks))
                q4_echo(ks, out, out_size);
        if (!k || json_object_array_add(keys, k) != 0) {
            json_object_put(k);
            break;
        }
        skip_ws(&p);
        p.at++;   /* ':' */
        if (!value(&p))
            break;
        skip_ws(&p);
        if (p.at < p.n && p.s[p.at] == ',')
            p.at++;
        skip_ws(&p);
    }
    free(p.counts);
    json_object_put(keys);
}

json_object *q4h_json_parse_object(const char *buf, size_t size, const char *what, q4_error *err)
{
    if (size > INT32_MAX) {
        q4_fail(err, Q4_ERR_ARG, "%s is over 2 GiB, larger than any JSON file q4cts reads",
                what);
        return NULL;
    }
    scan p = { .s = (const unsigned char *)buf, .n = size };
    skip_ws(&p);
    const bool object_root = p.at < size && buf[p.at] == '{';
    if (value(&p)) {
        skip_ws(&p);
        if (p.at < p.n)
            problem(&p, p.s[p.at] == '\0' ? "it holds a NUL byte"
                        : object_root ? "text follows the object" : "text follows the value");
    }
    if (p.why) {
        size_t line = 1, col = 1;
        for (size_t i = 0; i < p.why_at && i < size; i++, col++)
            if (buf[i] == '\n')
                line++, col = 0;
        q4_fail(err, !strcmp(p.why, "out of memory") ? Q4_ERR_NOMEM : Q4_ERR_ARG,
                "%s is not valid JSON: %s (line %zu, column %zu)", what, p.why, line, col);
        free(p.counts);
        return NULL;
    }
    json_tokener *tok = json_tokener_new();
    if (!tok) {
        free(p.counts);
        q4_fail(err, Q4_ERR_NOMEM, "out of memory parsing %s", what);
        return NULL;
    }
    json_tokener_set_flags(tok, JSON_TOKENER_STRICT);
    json_object *root = json_tokener_parse_ex(tok, buf, (int)size);
    enum json_tokener_error jerr = json_tokener_get_error(tok);
    json_tokener_free(tok);
    size_t i = 0;
    if (!root || jerr != json_tokener_success) {
        q4_fail(err, Q4_ERR_ARG, "%s is not valid JSON: %s", what,
                json_tokener_error_desc(jerr));
    } else if (!json_object_is_type(root, json_type_object)) {
        q4_fail(err, Q4_ERR_ARG, "%s must hold a JSON object", what);
    } else if (!same_counts(root, p.counts, p.n_counts, &i)) {
        char key[Q4_ECHO_MAX];
        size_t at = object_offset(buf, size, i), line = 1, col = 1;
        for (size_t k = 0; k < at; k++, col++)
            if (buf[k] == '\n')
                line++, col = 0;
        repeated_key(buf, size, at, key, sizeof key);
        q4_fail(err, Q4_ERR_ARG, "%s is not valid JSON here: the object at line %zu, column "
                "%zu has the key \"%s\" twice (which one counts is not defined)", what, line,
                col, key);
    } else {
        free(p.counts);
        return root;
    }
    free(p.counts);
    json_object_put(root);
    return NULL;
}

void q4h_json_drop_nonfinite(json_object *o)
{
    if (json_object_is_type(o, json_type_array)) {
        size_t len = json_object_array_length(o);
        for (size_t k = 0; k < len; k++) {
            json_object *v = json_object_array_get_idx(o, k);
            if (json_object_is_type(v, json_type_double) && !isfinite(json_object_get_double(v)))
                json_object_array_put_idx(o, k, NULL);   /* frees v */
            else
                q4h_json_drop_nonfinite(v);
        }
    } else if (json_object_is_type(o, json_type_object)) {
        json_object_object_foreach(o, key, v) {
            if (json_object_is_type(v, json_type_double) && !isfinite(json_object_get_double(v)))
                json_object_object_add(o, key, NULL);    /* replaces v in place */
            else
                q4h_json_drop_nonfinite(v);
        }
    }
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
