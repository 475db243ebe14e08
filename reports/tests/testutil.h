/* testutil.h: shared helpers of the reports/ tests: temporary folders, reading files,
 * running xmllint (schema check and XPath queries), sample results, and running a suite. */
#ifndef Q4REPORT_TESTUTIL_H
#define Q4REPORT_TESTUTIL_H

#include <check.h>
#include <stddef.h>

#include "q4report.h"

/* A fresh folder under $TMPDIR (or /tmp); aborts the test on failure. Caller frees. */
char *tu_tmpdir(void);
/* dir + "/" + name, malloc'd. */
char *tu_path(const char *dir, const char *name);
/* The whole file, NUL-terminated (len without the NUL), or NULL. Caller frees. */
char *tu_read(const char *path, size_t *len);
/* Entries in the folder other than . and .., or -1 when it cannot be read: a test
 * that no temp file was left behind, whatever its name. */
int tu_count_entries(const char *dir);
/* Removes the folder's files and the folder (flat folders only). */
void tu_rmdir(const char *dir);
/* The end of a test's scratch folder: tu_rmdir(dir), then frees dir and each further
 * pointer given (its tu_path names), up to a NULL. */
void tu_rmdir_free(char *dir, ...);

/* 1 when xmllint validates path against the committed reports/junit-10.xsd. */
int tu_xml_valid(const char *path);
/* 1 when xmllint finds path well-formed (no schema). */
int tu_xml_wellformed(const char *path);
/* xmllint --xpath expr path: its stdout less the one trailing newline xmllint adds,
 * malloc'd; NULL when xmllint fails. */
char *tu_xpath(const char *path, const char *expr);
/* tu_xpath read as an integer (count(...), string(@tests)); -1 on failure. */
long tu_xpath_long(const char *path, const char *expr);

/* The JSON file at path, parsed strictly (jsoncheck.h); fails the test when it is not
 * valid JSON. Free with jc_free. */
struct jc_value *tu_json_load(const char *path);
/* Member `key` of obj as a number / a string; fails the test when it is missing or of
 * another type. */
double tu_json_num(const struct jc_value *obj, const char *key);
const char *tu_json_str(const struct jc_value *obj, const char *key);

/* A result with every field set, for verdict v; i varies names and figures. */
void tu_result(q4_result *r, q4_verdict v, int i);
/* Case i (0..3) of a run against a baseline: got Fail expecting Fail (as expected),
 * Pass expecting Fail (an unexpected pass), Crash expecting Pass (an unexpected
 * fail), and a Flake of 2 tries expecting Pass (as expected). */
#define TU_BASELINE_CASES 4
void tu_baseline_result(q4_result *r, int i);

/* Runs the suite (Check's normal output) and frees it: a test program's exit status. */
int tu_run_suite(Suite *s);

#endif
