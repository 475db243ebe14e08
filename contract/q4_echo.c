/* q4_echo.c: q4_echo (q4_contract.h): user text made safe and short to quote in an
 * error message. Messages are one sentence of at most Q4_MSG_MAX bytes: an argument
 * echoed whole (a path of 4000 bytes) pushed the reason ("File name too long") out,
 * and a binary case list wrote raw control bytes to the user's terminal. */
#include <stdio.h>
#include <string.h>

#include "q4_contract.h"

/* Length (2..4) of the valid UTF-8 sequence at s (n bytes left) and its scalar in
 * *cp, or 0 when s does not start one (overlong, surrogate, > U+10FFFF, cut short). */
static size_t utf8_len(const unsigned char *s, size_t n, unsigned *cp)
{
    size_t len = s[0] >= 0xF0 ? 4 : s[0] >= 0xE0 ? 3 : s[0] >= 0xC2 ? 2 : 0;
    if (len == 0 || s[0] > 0xF4 || n < len)
        return 0;
    unsigned v = s[0] & (0x7F >> len);
    for (size_t i = 1; i < len; i++) {
        if ((s[i] & 0xC0) != 0x80)
            return 0;
        v = v << 6 | (s[i] & 0x3F);
    }
    if ((len == 3 && v < 0x800) || (len == 4 && (v < 0x10000 || v > 0x10FFFF)) ||
        (v >= 0xD800 && v <= 0xDFFF))
        return 0;
    *cp = v;
    return len;
}

/* Characters a reader cannot see or that steer a terminal: C1 controls, zero-width
 * and direction marks, the byte-order mark. */
static int invisible(unsigned cp)
{
    return cp < 0xA0 || (cp >= 0x200B && cp <= 0x200F) || (cp >= 0x2028 && cp <= 0x202E) ||
           (cp >= 0x2060 && cp <= 0x206F) || cp == 0xFEFF;
}

/* s[0..n) escaped into out (room bytes, NUL included), as many whole characters as
 * fit; returns the bytes written, and the bytes of s consumed in *used when non-NULL. */
static size_t escape(const char *s, size_t n, char *out, size_t room, size_t *used)
{
    size_t k = 0, i = 0;
    while (i < n) {
        const unsigned char *u = (const unsigned char *)s + i;
        char piece[16];
        size_t plen, step = 1;
        unsigned cp = 0;
        if (u[0] >= 0x20 && u[0] < 0x7F) {
            piece[0] = (char)u[0];
            plen = 1;
        } else if (u[0] >= 0x80 && (step = utf8_len(u, n - i, &cp)) && !invisible(cp)) {
            memcpy(piece, u, step);
            plen = step;
        } else if (step > 1) {
            plen = (size_t)snprintf(piece, sizeof piece, "\\u%04X", cp);
        } else {
            step = 1;
            plen = (size_t)snprintf(piece, sizeof piece, "\\x%02X", u[0]);
        }
        if (k + plen >= room)
            break;
        memcpy(out + k, piece, plen);
        k += plen;
        i += step;
    }
    out[k] = '\0';
    if (used)
        *used = i;
    return k;
}

const char *q4_echo(const char *s, char *buf, size_t size)
{
    if (!buf || size == 0)
        return "";
    if (!s)
        s = "(null)";
    size_t n = strlen(s), used;
    escape(s, n, buf, size, &used);
    if (used == n || size < 16)
        return buf;   /* it fits (escaped) */
    /* Too long: the head and the tail (a path's file name is at its end), "..." between.
     * Cuts fall on whole characters of s, so no escape or UTF-8 sequence is split. */
    size_t head_room = size / 3, tail_room = size - head_room - 4;
    size_t h = escape(s, n, buf, head_room + 1, NULL);
    size_t start = n;
    used = 0;
    while (start > 0) {
        size_t b = start - 1;
        while (b > 0 && ((unsigned char)s[b] & 0xC0) == 0x80 && start - b < 4)
            b--;
        char piece[32];
        size_t plen = escape(s + b, start - b, piece, sizeof piece, NULL);
        if (used + plen >= tail_room)
            break;
        used += plen;
        start = b;
    }
    memcpy(buf + h, "...", 3);
    escape(s + start, n - start, buf + h + 3, size - h - 3, NULL);
    return buf;
}
