/* q4report_internal.h: helpers shared by the sinks of q4report; not installed, not
 * for the harness. A growable text buffer (buf.c), XML and JSON escaping of untrusted
 * strings (escape.c), how a report path is written (report_file.c), the state every
 * file sink keeps (sink.c), and the verdict classes every sink counts by (verdict.c). */
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

/* ---- report_file.c: where a document goes ----
 * open decides, once, how PATH is written: a new path or a regular file (a symbolic
 * link's regular target included) is replaced atomically by each write (unique temp
 * file in the same folder, fsync'd if sync_file, renamed over it; sync_dir fsyncs the
 * folder too), so a reader or a killed run sees the old document or the new one. Any
 * other path (device, FIFO, socket, our own stdout/stderr, a dangling link) is opened
 * now and written through once, by the final write; it is never replaced. A folder is
 * refused. Errors are Q4_ERR_IO naming the path and the reason. */
typedef struct q4rep_file {
    char *path;     /* the file written: PATH, or a symbolic link's target */
    int fd;         /* >= 0: written through at the final write */
    unsigned mode;  /* permissions of a replaced file: the old file's, else 0666 & ~umask */
} q4rep_file;
q4_status q4rep_file_open(q4rep_file *f, const char *path, q4_error *err);
q4_status q4rep_file_write(q4rep_file *f, const char *data, size_t len, int final,
                           int sync_file, int sync_dir, q4_error *err);
void q4rep_file_close(q4rep_file *f);

/* ---- progress.c: how far a run got (planned, complete, stopped) ---- */
typedef struct q4rep_progress {
    long long planned;     /* cases the run means to add; < 0 unknown */
    char stopped[200];     /* why the run ended early, or "" */
} q4rep_progress;
void q4rep_progress_init(q4rep_progress *p);
void q4rep_progress_stop(q4rep_progress *p, const char *why);
/* 1 only for the final write (close) of a run that was not stopped. */
int q4rep_progress_complete(const q4rep_progress *p, int final);
/* `"planned": n|null, "complete": bool, "stopped": "why"|null` */
void q4rep_progress_json(q4rep_buf *b, const q4rep_progress *p, int final);

/* ---- sink.c: what every file sink keeps the same way ----
 * Each sink's struct holds one; open fills progress, file and started, calloc the rest. */
typedef struct q4rep_frag {    /* one rendered result in body, and its place */
    size_t pos, off, len;
} q4rep_frag;
typedef struct q4rep_sink {
    q4rep_file file;
    q4rep_buf body;            /* rendered results, in add order */
    q4rep_frag *frags;         /* where each is in body, sorted by pos (q4rep_sink_place) */
    size_t n_frags, cap_frags;
    q4rep_buf doc;             /* scratch for the whole document, reused per write */
    int nosync;                /* 1: per-add writes skip the fsync of the file */
    int at_close;              /* 1: only open and close write the file */
    q4rep_progress progress;   /* planned count, why stopped early */
    char started[32];          /* local time of open, "%Y-%m-%dT%H:%M:%S" */
} q4rep_sink;
q4_status q4rep_sink_open(q4rep_sink *s, const char *path, q4_error *err);
/* After an add rendered into body from `mark`: 1 if an allocation failed, and then the
 * half-rendered result is gone (so the next write is still well-formed), else 0. */
int q4rep_sink_drop_failed(q4rep_sink *s, size_t mark);
/* After an add rendered one result into body from `mark`: records it at position pos
 * (after those of a lower or equal pos). 0, or -1 out of memory (the result is then
 * dropped from body). */
int q4rep_sink_place(q4rep_sink *s, size_t mark, size_t pos);
/* The position after every result placed so far (plain adds go there). */
size_t q4rep_sink_next_pos(const q4rep_sink *s);
/* Appends the placed results to d in position order, sep between two. */
void q4rep_sink_put_body(const q4rep_sink *s, q4rep_buf *d, const char *sep);
/* Writes doc (built by the sink) to the file; an out-of-memory doc fails naming the
 * kind of report. sync_dir: open and close also fsync the file and its folder. */
q4_status q4rep_sink_write(q4rep_sink *s, const char *kind, int sync_dir, int final,
                           q4_error *err);
void q4rep_sink_free(q4rep_sink *s);

/* ---- props.c: the run's properties in the file sinks ----
 * JUnit: one <property/> line each, appended; JSON: an object, appended. 0, or -1 out
 * of memory (b->failed). */
int q4rep_props_junit(q4rep_buf *b, const q4_prop *props, size_t n);
int q4rep_props_json(q4rep_buf *b, const q4_prop *props, size_t n);

/* ---- kernel_coverage.c: per-kernel shader coverage in the file sinks ----
 * JUnit: one <property/> line per kernel; JSON: the value of "shader_coverage" (an
 * array). Both replace b's contents; 0, or -1 out of memory (b->failed). */
int q4rep_coverage_junit(q4rep_buf *b, const q4_kernel_coverage *k, size_t n);
int q4rep_coverage_json(q4rep_buf *b, const q4_kernel_coverage *k, size_t n);

/* ---- verdict.c: how each sink counts a verdict ---- */
typedef enum q4rep_class {
    Q4REP_PASSED,    /* Pass; QualityWarning unless strict */
    Q4REP_FAILED,    /* Fail; QualityWarning under strict */
    Q4REP_ERRORED,   /* ResourceError, Crash, Timeout, InternalError, out-of-range values */
    Q4REP_SKIPPED    /* NotSupported */
} q4rep_class;
q4rep_class q4rep_classify(q4_verdict v, int strict);

#endif
