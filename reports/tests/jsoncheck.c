/* jsoncheck.c: strict recursive-descent JSON parser for the tests (see jsoncheck.h).
 * Depth is capped so a hostile file cannot overflow the stack. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jsoncheck.h"

typedef struct parser {
    const unsigned char *s;
    size_t len, pos;
    char *err;
    size_t errn;
    int failed;
} parser;

static int fail(parser *p, const char *why)
{
    if (!p->failed && p->err && p->errn)
        snprintf(p->err, p->errn, "%s at byte %zu", why, p->pos);
    p->failed = 1;
    return 0;
}

static void ws(parser *p)
{
    while (p->pos < p->len && (p->s[p->pos] == ' ' || p->s[p->pos] == '\t' ||
                               p->s[p->pos] == '\n' || p->s[p->pos] == '\r'))
        p->pos++;
}

static int lit(parser *p, const char *word)
{
    size_t n = strlen(word);
    if (p->len - p->pos < n || memcmp(p->s + p->pos, word, n) != 0)
        return fail(p, "bad literal");
    p->pos += n;
    return 1;
}

static int digits(parser *p)
{
    size_t start = p->pos;
    while (p->pos < p->len && p->s[p->pos] >= '0' && p->s[p->pos] <= '9')
        p->pos++;
    return p->pos > start;
}

static int number(parser *p, jc_value *v)
{
    size_t start = p->pos;
    if (p->pos < p->len && p->s[p->pos] == '-')
        p->pos++;
    if (p->pos < p->len && p->s[p->pos] == '0')
        p->pos++;               /* no leading zeros */
    else if (!digits(p))
        return fail(p, "bad number");
    if (p->pos < p->len && p->s[p->pos] == '.') {
        p->pos++;
        if (!digits(p))
            return fail(p, "bad fraction");
    }
    if (p->pos < p->len && (p->s[p->pos] == 'e' || p->s[p->pos] == 'E')) {
        p->pos++;
        if (p->pos < p->len && (p->s[p->pos] == '+' || p->s[p->pos] == '-'))
            p->pos++;
        if (!digits(p))
            return fail(p, "bad exponent");
    }
    char buf[64];
    size_t n = p->pos - start;
    if (n >= sizeof buf)
        return fail(p, "number too long");
    memcpy(buf, p->s + start, n);
    buf[n] = '\0';
    v->type = JC_NUM;
    v->num = strtod(buf, NULL);
    return 1;
}

static int put_utf8(char *out, size_t *o, uint32_t cp)
{
    if (cp < 0x80) {
        out[(*o)++] = (char)cp;
    } else if (cp < 0x800) {
        out[(*o)++] = (char)(0xC0 | (cp >> 6));
        out[(*o)++] = (char)(0x80 | (cp & 0x3F));
    } else if (cp < 0x10000) {
        out[(*o)++] = (char)(0xE0 | (cp >> 12));
        out[(*o)++] = (char)(0x80 | ((cp >> 6) & 0x3F));
        out[(*o)++] = (char)(0x80 | (cp & 0x3F));
    } else {
        out[(*o)++] = (char)(0xF0 | (cp >> 18));
        out[(*o)++] = (char)(0x80 | ((cp >> 12) & 0x3F));
        out[(*o)++] = (char)(0x80 | ((cp >> 6) & 0x3F));
        out[(*o)++] = (char)(0x80 | (cp & 0x3F));
    }
    return 1;
}

static int hex4(parser *p, uint32_t *cp)
{
    if (p->len - p->pos < 4)
        return fail(p, "short \\u escape");
    uint32_t v = 0;
    for (int i = 0; i < 4; i++) {
        unsigned char c = p->s[p->pos++];
        v <<= 4;
        if (c >= '0' && c <= '9') v |= c - '0';
        else if (c >= 'a' && c <= 'f') v |= c - 'a' + 10;
        else if (c >= 'A' && c <= 'F') v |= c - 'A' + 10;
        else return fail(p, "bad hex digit");
    }
    *cp = v;
    return 1;
}

/* Length of the valid UTF-8 sequence at s[0..n), or 0 (same rules as escape.c,
 * written again here so the test does not trust the code it tests). */
static size_t utf8_len(const unsigned char *s, size_t n)
{
    unsigned c = s[0];
    size_t len;
    uint32_t v, min;
    if (c < 0x80) return 1;
    if (c >= 0xC2 && c <= 0xDF) { len = 2; v = c & 0x1F; min = 0x80; }
    else if (c >= 0xE0 && c <= 0xEF) { len = 3; v = c & 0x0F; min = 0x800; }
    else if (c >= 0xF0 && c <= 0xF4) { len = 4; v = c & 0x07; min = 0x10000; }
    else return 0;
    if (n < len) return 0;
    for (size_t i = 1; i < len; i++) {
        if ((s[i] & 0xC0) != 0x80) return 0;
        v = (v << 6) | (s[i] & 0x3F);
    }
    if (v < min || v > 0x10FFFF || (v >= 0xD800 && v <= 0xDFFF)) return 0;
    return len;
}

static int string(parser *p, char **out)
{
    p->pos++;   /* the opening quote */
    /* Decoded text is never longer than the source, so one buffer of the rest fits. */
    char *buf = malloc(p->len - p->pos + 1);
    if (!buf)
        return fail(p, "out of memory");
    size_t o = 0;
    for (;;) {
        if (p->pos >= p->len) {
            free(buf);
            return fail(p, "unterminated string");
        }
        unsigned char c = p->s[p->pos];
        if (c == '"') {
            p->pos++;
            break;
        }
        if (c < 0x20) {
            free(buf);
            return fail(p, "raw control character in string");
        }
        if (c == '\\') {
            p->pos++;
            if (p->pos >= p->len) {
                free(buf);
                return fail(p, "unterminated escape");
            }
            unsigned char e = p->s[p->pos++];
            uint32_t cp;
            switch (e) {
            case '"': buf[o++] = '"'; break;
            case '\\': buf[o++] = '\\'; break;
            case '/': buf[o++] = '/'; break;
            case 'b': buf[o++] = '\b'; break;
            case 'f': buf[o++] = '\f'; break;
            case 'n': buf[o++] = '\n'; break;
            case 'r': buf[o++] = '\r'; break;
            case 't': buf[o++] = '\t'; break;
            case 'u':
                if (!hex4(p, &cp)) {
                    free(buf);
                    return 0;
                }
                if (cp >= 0xD800 && cp <= 0xDBFF) {
                    uint32_t lo;
                    if (p->len - p->pos < 2 || p->s[p->pos] != '\\' || p->s[p->pos + 1] != 'u') {
                        free(buf);
                        return fail(p, "lone high surrogate");
                    }
                    p->pos += 2;
                    if (!hex4(p, &lo) || lo < 0xDC00 || lo > 0xDFFF) {
                        free(buf);
                        return fail(p, "bad low surrogate");
                    }
                    cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
                } else if (cp >= 0xDC00 && cp <= 0xDFFF) {
                    free(buf);
                    return fail(p, "lone low surrogate");
                }
                /* \u0000 would end the C string early; the sinks never emit it. */
                if (cp == 0) {
                    free(buf);
                    return fail(p, "\\u0000 in string");
                }
                put_utf8(buf, &o, cp);
                break;
            default:
                free(buf);
                return fail(p, "bad escape");
            }
            continue;
        }
        size_t n = utf8_len(p->s + p->pos, p->len - p->pos);
        if (n == 0) {
            free(buf);
            return fail(p, "invalid UTF-8");
        }
        memcpy(buf + o, p->s + p->pos, n);
        o += n;
        p->pos += n;
    }
    buf[o] = '\0';
    *out = buf;
    return 1;
}

static int value(parser *p, jc_value *v, int depth);

static int push(parser *p, jc_value *v, size_t *cap)
{
    if (v->n < *cap)
        return 1;
    size_t c = *cap ? *cap * 2 : 8;
    jc_value *items = realloc(v->items, c * sizeof *items);
    if (!items)
        return fail(p, "out of memory");
    v->items = items;
    if (v->type == JC_OBJ) {
        char **keys = realloc(v->keys, c * sizeof *keys);
        if (!keys)
            return fail(p, "out of memory");
        v->keys = keys;
    }
    *cap = c;
    return 1;
}

static int container(parser *p, jc_value *v, int depth, int obj)
{
    v->type = obj ? JC_OBJ : JC_ARR;
    size_t cap = 0;
    p->pos++;
    ws(p);
    if (p->pos < p->len && p->s[p->pos] == (obj ? '}' : ']')) {
        p->pos++;
        return 1;
    }
    for (;;) {
        if (!push(p, v, &cap))
            return 0;
        jc_value *item = &v->items[v->n];
        memset(item, 0, sizeof *item);
        if (obj) {
            v->keys[v->n] = NULL;
            ws(p);
            if (p->pos >= p->len || p->s[p->pos] != '"')
                return fail(p, "expected a key");
            if (!string(p, &v->keys[v->n]))
                return 0;
            v->n++;   /* counted now so that jc_free frees the key on failure */
            ws(p);
            if (p->pos >= p->len || p->s[p->pos] != ':')
                return fail(p, "expected ':'");
            p->pos++;
            if (!value(p, item, depth + 1))
                return 0;
        } else {
            v->n++;
            if (!value(p, item, depth + 1))
                return 0;
        }
        ws(p);
        if (p->pos < p->len && p->s[p->pos] == ',') {
            p->pos++;
            continue;
        }
        if (p->pos < p->len && p->s[p->pos] == (obj ? '}' : ']')) {
            p->pos++;
            return 1;
        }
        return fail(p, obj ? "expected ',' or '}'" : "expected ',' or ']'");
    }
}

static int value(parser *p, jc_value *v, int depth)
{
    if (depth > 64)
        return fail(p, "nested too deep");
    ws(p);
    if (p->pos >= p->len)
        return fail(p, "unexpected end");
    switch (p->s[p->pos]) {
    case '{': return container(p, v, depth, 1);
    case '[': return container(p, v, depth, 0);
    case '"': v->type = JC_STR; return string(p, &v->str);
    case 't': v->type = JC_BOOL; v->boolean = 1; return lit(p, "true");
    case 'f': v->type = JC_BOOL; v->boolean = 0; return lit(p, "false");
    case 'n': v->type = JC_NULL; return lit(p, "null");
    default: return number(p, v);
    }
}

static void free_inner(jc_value *v)
{
    for (size_t i = 0; i < v->n; i++) {
        free_inner(&v->items[i]);
        if (v->keys)
            free(v->keys[i]);
    }
    free(v->items);
    free(v->keys);
    free(v->str);
}

void jc_free(jc_value *v)
{
    if (v) {
        free_inner(v);
        free(v);
    }
}

jc_value *jc_parse(const char *text, size_t len, char *err, size_t errn)
{
    parser p = {(const unsigned char *)text, len, 0, err, errn, 0};
    jc_value *v = calloc(1, sizeof *v);
    if (!v)
        return NULL;
    if (value(&p, v, 0)) {
        ws(&p);
        if (p.pos != p.len)
            fail(&p, "junk after the value");
    }
    if (p.failed) {
        jc_free(v);
        return NULL;
    }
    return v;
}

const jc_value *jc_get(const jc_value *obj, const char *key)
{
    if (!obj || obj->type != JC_OBJ)
        return NULL;
    for (size_t i = 0; i < obj->n; i++)
        if (obj->keys[i] && strcmp(obj->keys[i], key) == 0)
            return &obj->items[i];
    return NULL;
}

const jc_value *jc_at(const jc_value *arr, size_t i)
{
    return arr && arr->type == JC_ARR && i < arr->n ? &arr->items[i] : NULL;
}
