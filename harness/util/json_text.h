/* json_text.h: a whole buffer parsed as one JSON value (json-c), strictly (RFC 8259):
 * a NUL byte, a value cut short or text after the value is an error, not a partial
 * parse; so are single quotes, comments, trailing commas, a key given twice in one
 * object, \u0000 or a lone surrogate in a string, invalid UTF-8, raw control
 * characters, NaN and Infinity, numbers beyond a double or integers beyond 64 bits.
 * For every JSON input of the harness: replay's case.json, the reports compare, merge
 * and report read, interface files and the WebGPU worker's frames. */
#ifndef Q4H_JSON_TEXT_H
#define Q4H_JSON_TEXT_H

#include <json-c/json.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "q4_contract.h"

/* The value in buf[0..size), which must be an object; NULL with Q4_ERR_ARG and one
 * sentence beginning with `what` (e.g. "case.json", "the report a.json") that says what
 * is wrong and where (line and column). Caller puts. */
json_object *q4h_json_parse_object(const char *buf, size_t size, const char *what, q4_error *err);

/* Every number of o's tree that is not finite becomes null (JSON has no NaN or
 * Infinity: json-c would write them as bare words no JSON reader takes). For trees
 * about to be written. */
void q4h_json_drop_nonfinite(json_object *o);


/* ---- reading members with their types checked ----
 * Each reader records the first problem only (later ones follow from it), as one
 * sentence "<what>: <where>.<key> must be <expected>"; member names from the file are
 * escaped (q4_echo). Check p.st once after reading everything. */
typedef struct q4h_jparser {
    const char *what;   /* names the file in messages */
    q4_error *err;
    q4_status st;       /* Q4_OK until the first problem */
} q4h_jparser;

void q4h_jp_bad(q4h_jparser *p, const char *where, const char *key, const char *expected);
/* The member key of o; NULL (and a problem unless optional) when missing or of another
 * type (json_type_double accepts an integer too). */
json_object *q4h_jp_member(q4h_jparser *p, json_object *o, const char *where, const char *key,
                           json_type type, bool optional, const char *expected);
/* A string member into buf (size bytes, NUL included); too long or holding a NUL is a
 * problem. */
void q4h_jp_str(q4h_jparser *p, json_object *o, const char *where, const char *key, char *buf,
                size_t size, bool optional);
/* A number or null (NAN); a missing key reads as NAN too. */
double q4h_jp_num(q4h_jparser *p, json_object *o, const char *where, const char *key);
/* An integer in [lo, hi], or -1 for null or a missing key when nullable. */
int64_t q4h_jp_int(q4h_jparser *p, json_object *o, const char *where, const char *key,
                   int64_t lo, int64_t hi, bool nullable);
bool q4h_jp_bool(q4h_jparser *p, json_object *o, const char *where, const char *key);

#endif
