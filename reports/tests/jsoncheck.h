/* jsoncheck.h: a strict little JSON (RFC 8259) parser for the tests, so they need no
 * python: it rejects anything malformed (trailing commas, bad escapes, raw control
 * characters, invalid UTF-8, junk after the value) and gives a tree to assert on. */
#ifndef Q4REPORT_JSONCHECK_H
#define Q4REPORT_JSONCHECK_H

#include <stddef.h>

typedef enum jc_type { JC_NULL, JC_BOOL, JC_NUM, JC_STR, JC_ARR, JC_OBJ } jc_type;

typedef struct jc_value {
    jc_type type;
    int boolean;
    double num;
    char *str;                  /* JC_STR: decoded UTF-8, NUL-terminated */
    size_t n;                   /* JC_ARR, JC_OBJ: number of items */
    struct jc_value *items;
    char **keys;                /* JC_OBJ: decoded keys, parallel to items */
} jc_value;

/* The tree of text[0..len), or NULL with a reason (and byte offset) in err. */
jc_value *jc_parse(const char *text, size_t len, char *err, size_t errn);
void jc_free(jc_value *v);
/* Member `key` of an object (the first, if repeated), or NULL. */
const jc_value *jc_get(const jc_value *obj, const char *key);
/* Item i of an array, or NULL. */
const jc_value *jc_at(const jc_value *arr, size_t i);

#endif
