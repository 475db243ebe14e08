/* q4report_internal.h: helpers shared by the sinks of q4report; not installed, not
 * for the harness. A growable text buffer (buf.c), XML and JSON escaping of untrusted
 * strings (escape.c), whole-file atomic replace (atomic_file.c), and the verdict
 * classes every sink counts by (verdict.c). */
#ifndef Q4REPORT_INTERNAL_H
#define Q4REPORT_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "q4report.h"

/* ---- buf.c: growable byte buffer ----
 * A failed append adds nothing and sets `failed` (sticky until reset), so a caller can
 * append many items, check once, and truncate back to drop a half-built fragment. */
typedef struct q4rep_buf {
    char *data;     /* NUL-terminated when non-NULL */
    size_t len, cap;
    int failed;     /* an allocation failed since the last reset */
} q4rep_buf;

void q4rep_buf_free(q4rep_buf *b);
void q4rep_buf_reset(q4rep_buf *b);              /* len 0, failed 0; keeps the memory */
void q4rep_buf_truncate(q4rep_buf *b, size_t len);
int q4rep_buf_put(q4rep_buf *b, const char *s, size_t n);
int q4rep_buf_puts(q4rep_buf *b, const char *s);
int q4rep_buf_printf(q4rep_buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* ---- escape.c: untrusted text (case names, driver strings, error text) ----
 * `s` is read up to `max` bytes or its NUL, so a fixed char[] field the harness
 * filled to the brim is still safe. Invalid UTF-8 and characters XML 1.0 forbids
 * (C0 controls other than tab, LF, CR; U+FFFE, U+FFFF) become U+FFFD. */
#define Q4REP_NOMAX ((size_t)-1)
/* &, <, >, ", ' as entities; in attributes tab/LF/CR as character references so
 * attribute-value normalisation keeps them; CR always, so it survives parsing. */
int q4rep_xml_text(q4rep_buf *b, const char *s, size_t max);
int q4rep_xml_attr(q4rep_buf *b, const char *s, size_t max);
/* A JSON string literal, quotes included: ", \ and controls escaped. */
int q4rep_json_str(q4rep_buf *b, const char *s, size_t max);
/* A double as a JSON number that reads back bit-exact (%.17g); null when it is not
 * finite, since JSON has no NaN or Inf. */
int q4rep_json_num(q4rep_buf *b, double v);
/* `, "key": ` and the number: one more member of an object being written. */
int q4rep_json_member_num(q4rep_buf *b, const char *key, double v);
/* Decodes one UTF-8 scalar from s[0..n), n >= 1: returns its length (1..4) and sets
 * *cp, or 0 for an invalid sequence (overlong, surrogate, > U+10FFFF, truncated). */
size_t q4rep_utf8_decode(const unsigned char *s, size_t n, uint32_t *cp);

/* ---- atomic_file.c ----
 * Writes data to PATH.tmp, fsyncs it (if sync_file), renames it over PATH, and with
 * sync_dir also fsyncs the folder (so the rename itself is durable): a reader, or a
 * run killed at any instant, sees the old document or the new one, never a mix.
 * Q4_ERR_IO naming the path and the reason on failure (PATH.tmp is then removed). */
q4_status q4rep_write_atomic(const char *path, const char *data, size_t len, int sync_file,
                             int sync_dir, q4_error *err);

/* ---- verdict.c: how each sink counts a verdict ---- */
typedef enum q4rep_class {
    Q4REP_PASSED,    /* Pass; QualityWarning unless strict */
    Q4REP_FAILED,    /* Fail; QualityWarning under strict */
    Q4REP_ERRORED,   /* ResourceError, Crash, Timeout, InternalError, out-of-range values */
    Q4REP_SKIPPED    /* NotSupported */
} q4rep_class;
q4rep_class q4rep_classify(q4_verdict v, int strict);

#endif
