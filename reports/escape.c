/* escape.c: untrusted strings (case names, driver strings, error text) made safe for
 * XML 1.0 and JSON. Both need valid UTF-8 out, so both walk the input one UTF-8 scalar
 * at a time; bytes that are no valid UTF-8, and characters XML 1.0 cannot hold at all
 * (not even as &#...;), become U+FFFD, visibly, rather than vanish. */
#include <math.h>
#include <string.h>

#include "q4report_internal.h"

static const char replacement[] = "\xEF\xBF\xBD";  /* U+FFFD in UTF-8 */

size_t q4rep_utf8_decode(const unsigned char *s, size_t n, uint32_t *cp)
{
    unsigned c = s[0];
    size_t len;
    uint32_t v, min;
    if (c < 0x80) {
        *cp = c;
        return 1;
    } else if (c >= 0xC2 && c <= 0xDF) {
        len = 2; v = c & 0x1F; min = 0x80;
    } else if (c >= 0xE0 && c <= 0xEF) {
        len = 3; v = c & 0x0F; min = 0x800;
    } else if (c >= 0xF0 && c <= 0xF4) {
        len = 4; v = c & 0x07; min = 0x10000;
    } else {
        return 0;  /* continuation byte, overlong lead (C0, C1) or > U+10FFFF lead */
    }
    if (n < len)
        return 0;
    for (size_t i = 1; i < len; i++) {
        if ((s[i] & 0xC0) != 0x80)
            return 0;
        v = (v << 6) | (s[i] & 0x3F);
    }
    if (v < min || v > 0x10FFFF || (v >= 0xD800 && v <= 0xDFFF))
        return 0;
    *cp = v;
    return len;
}

/* XML 1.0 Char production: #x9 | #xA | #xD | [#x20-#xD7FF] | [#xE000-#xFFFD] |
 * [#x10000-#x10FFFF]. Surrogates never get here (the decoder rejects them). */
static int xml_char(uint32_t cp)
{
    if (cp < 0x20)
        return cp == 0x9 || cp == 0xA || cp == 0xD;
    return cp != 0xFFFE && cp != 0xFFFF;
}

static int xml(q4rep_buf *b, const char *s, size_t max, int attr)
{
    if (!s)
        return 1;
    const unsigned char *p = (const unsigned char *)s;
    size_t n = strnlen(s, max);
    size_t i = 0;
    while (i < n) {
        uint32_t cp;
        size_t len = q4rep_utf8_decode(p + i, n - i, &cp);
        const char *rep = NULL;
        if (len == 0) {
            rep = replacement;
            len = 1;   /* resynchronise on the next byte */
        } else if (!xml_char(cp)) {
            rep = replacement;
        } else {
            switch (cp) {
            case '&': rep = "&amp;"; break;
            case '<': rep = "&lt;"; break;
            case '>': rep = "&gt;"; break;   /* also keeps "]]>" out of text */
            case '"': rep = "&quot;"; break;
            case '\'': rep = "&apos;"; break;
            case '\r': rep = "&#13;"; break; /* a parser turns a raw CR into LF */
            case '\n': rep = attr ? "&#10;" : NULL; break; /* attributes: else a space */
            case '\t': rep = attr ? "&#9;" : NULL; break;
            default: break;
            }
        }
        if (!(rep ? q4rep_buf_puts(b, rep) : q4rep_buf_put(b, (const char *)p + i, len)))
            return 0;
        i += len;
    }
    return 1;
}

int q4rep_xml_text(q4rep_buf *b, const char *s, size_t max) { return xml(b, s, max, 0); }
int q4rep_xml_attr(q4rep_buf *b, const char *s, size_t max) { return xml(b, s, max, 1); }

int q4rep_json_str(q4rep_buf *b, const char *s, size_t max)
{
    if (!q4rep_buf_put(b, "\"", 1))
        return 0;
    const unsigned char *p = (const unsigned char *)(s ? s : "");
    size_t n = strnlen((const char *)p, max);
    size_t i = 0;
    while (i < n) {
        uint32_t cp;
        size_t len = q4rep_utf8_decode(p + i, n - i, &cp);
        int ok;
        if (len == 0) {
            ok = q4rep_buf_puts(b, replacement);
            len = 1;
        } else if (cp == '"') {
            ok = q4rep_buf_puts(b, "\\\"");
        } else if (cp == '\\') {
            ok = q4rep_buf_puts(b, "\\\\");
        } else if (cp == '\n') {
            ok = q4rep_buf_puts(b, "\\n");
        } else if (cp == '\t') {
            ok = q4rep_buf_puts(b, "\\t");
        } else if (cp == '\r') {
            ok = q4rep_buf_puts(b, "\\r");
        } else if (cp < 0x20 || cp == 0x7F) {
            /* JSON can carry any control as \u00XX; DEL too, so a terminal showing
             * the file never receives it raw. */
            ok = q4rep_buf_printf(b, "\\u%04X", (unsigned)cp);
        } else {
            ok = q4rep_buf_put(b, (const char *)p + i, len);
        }
        if (!ok)
            return 0;
        i += len;
    }
    return q4rep_buf_put(b, "\"", 1);
}

int q4rep_json_num(q4rep_buf *b, double v)
{
    return isfinite(v) ? q4rep_buf_printf(b, "%.17g", v) : q4rep_buf_puts(b, "null");
}

int q4rep_json_member_num(q4rep_buf *b, const char *key, double v)
{
    q4rep_buf_puts(b, ", ");
    q4rep_json_str(b, key, Q4REP_NOMAX);
    q4rep_buf_puts(b, ": ");
    return q4rep_json_num(b, v);
}
