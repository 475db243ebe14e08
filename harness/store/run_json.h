/* run_json.h: a `q4cts run --json` report read back (json-c), for compare and merge.
 *
 * Every key the report sink writes (reports/q4report.h) is read with its type checked;
 * a problem is Q4_ERR_ARG with one sentence naming the file, the result's number and
 * the key. The results come back as the q4_result values they were written from
 * (numbers round-trip: %.17g), so a report rendered from them again is the same. */
#ifndef Q4H_RUN_JSON_H
#define Q4H_RUN_JSON_H

#include <stdbool.h>
#include <stddef.h>

#include "q4report.h"

typedef struct q4h_run_doc {
    char shown[Q4_ECHO_MAX];      /* the path, escaped for messages */
    bool strict;
    long long planned;            /* -1: null, or a report from before "planned" */
    bool complete;                /* "complete": the run ended normally */
    bool complete_known;          /* false: a report from before "complete" (q4cts 0.1.0's
                                   * first reports, same format 1), which cannot say */
    char stopped[200];            /* "" when null */
    q4_prop *props;               /* in the file's order; strings owned by the doc */
    size_t n_props;
    q4_result *results;           /* in the file's order */
    size_t n;
    size_t *by_name;              /* indices of results sorted by name (q4h_run_doc_find) */
} q4h_run_doc;

/* Reads the report at path. Two results with one name are an error too: a report
 * holds each case once. On error *doc is empty (free is still safe). */
q4_status q4h_run_doc_load(const char *path, q4h_run_doc *doc, q4_error *err);
/* The same from a buffer; path only names it in messages. */
q4_status q4h_run_doc_parse(const char *buf, size_t size, const char *path, q4h_run_doc *doc,
                            q4_error *err);
void q4h_run_doc_free(q4h_run_doc *doc);

/* The value of property key, or NULL. */
const char *q4h_run_doc_prop(const q4h_run_doc *doc, const char *key);
/* The result named name, or NULL (a binary search over an index built at load). */
const q4_result *q4h_run_doc_find(const q4h_run_doc *doc, const char *name);

#endif
