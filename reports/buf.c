/* buf.c: a growable, NUL-terminated byte buffer for building documents in memory.
 * A failed append adds nothing and sets `failed`, so a caller appends a whole fragment,
 * checks once, and truncates back to where it began: never half an element kept. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "q4report_internal.h"

void q4rep_buf_free(q4rep_buf *b)
{
    free(b->data);
    memset(b, 0, sizeof *b);
}

void q4rep_buf_reset(q4rep_buf *b)
{
    q4rep_buf_truncate(b, 0);
    b->failed = 0;
}

void q4rep_buf_truncate(q4rep_buf *b, size_t len)
{
    if (len < b->len) {
        b->len = len;
        b->data[len] = '\0';
    }
}

/* Room for `extra` more bytes plus the NUL; doubles so appends are amortised O(1). */
static int reserve(q4rep_buf *b, size_t extra)
{
    if (extra > (size_t)-1 - b->len - 1) {
        b->failed = 1;
        return 0;
    }
    size_t need = b->len + extra + 1;
    if (need <= b->cap)
        return 1;
    size_t cap = b->cap ? b->cap : 256;
    while (cap < need)
        cap = cap > (size_t)-1 / 2 ? need : cap * 2;
    char *p = realloc(b->data, cap);
    if (!p) {
        b->failed = 1;
        return 0;
    }
    b->data = p;
    b->cap = cap;
    return 1;
}

int q4rep_buf_put(q4rep_buf *b, const char *s, size_t n)
{
    if (!reserve(b, n))
        return 0;
    memcpy(b->data + b->len, s, n);
    b->len += n;
    b->data[b->len] = '\0';
    return 1;
}

int q4rep_buf_puts(q4rep_buf *b, const char *s)
{
    return q4rep_buf_put(b, s, strlen(s));
}

int q4rep_buf_printf(q4rep_buf *b, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (n < 0 || !reserve(b, (size_t)n)) {
        b->failed = 1;
        return 0;
    }
    va_start(ap, fmt);
    vsnprintf(b->data + b->len, (size_t)n + 1, fmt, ap);
    va_end(ap);
    b->len += (size_t)n;
    return 1;
}
