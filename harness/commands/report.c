/* report.c: `q4cts report FILE.json... [--dumps DIR] -o PAGE.html`.
 *
 * Reads the JSON reports it is given, each known by its top-level key: a run's
 * ("q4cts", from run or replay --json), a perf run's ("q4cts_perf") and PyTorch's
 * timings of the same cases ("torch_perf", scripts/bench-torch.py). For every case of
 * the run that is neither Pass nor NotSupported it looks for the case's dump in
 * --dumps DIR (`run --dump-dir DIR`) and turns its arrays into error maps
 * (report_map.c). All of it becomes one JSON document that the page's script
 * (reports/html/report.js) draws with Chart.js; the page, the script, the libraries
 * (installed by scripts/setup with npm ci) and the data are written as one file
 * (q4_html_page_write). Inputs are untrusted: every problem is one sentence and exit
 * status 2, checked before the page is drawn, so the page's script sees only the
 * shapes it expects. */
#include "report.h"

#include <errno.h>
#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "dump_load.h"
#include "files.h"
#include "json_text.h"
#include "q4report.h"
#include "report_map.h"

#define EXIT_USAGE 2

#ifndef Q4CTS_REPORT_ASSETS
#define Q4CTS_REPORT_ASSETS "reports/html"
#endif

/* The libraries the page draws with, in load order (reports/html/package.json). */
static const char *const libraries[] = {
    "node_modules/chart.js/dist/chart.umd.min.js",
    "node_modules/chartjs-chart-matrix/dist/chartjs-chart-matrix.min.js",
};
#define N_LIBRARIES (sizeof libraries / sizeof libraries[0])

enum { DOC_RUN = Q4H_REPORT_RUN, DOC_PERF = Q4H_REPORT_PERF, DOC_TORCH = Q4H_REPORT_TORCH,
       DOC_KINDS = Q4H_REPORT_KINDS };
#define doc_keys q4h_report_keys

static json_object *member(json_object *obj, const char *key, json_type type)
{
    json_object *v = NULL;
    if (!json_object_object_get_ex(obj, key, &v) || !json_object_is_type(v, type))
        return NULL;
    return v;
}

/* Each input into docs[kind] (a new reference to the object under the key). */
static q4_status read_inputs(const q4h_cli *cli, json_object *docs[DOC_KINDS], q4_error *err)
{
    for (size_t i = 0; i < cli->n_operands; i++) {
        char shown[Q4_ECHO_MAX];
        size_t len = 0;
        q4_echo(cli->operands[i], shown, sizeof shown);
        char *text = q4h_read_file(cli->operands[i], &len);
        if (!text)
            return q4_fail(err, Q4_ERR_ARG, "cannot read %s: %s", shown, q4_file_strerror(errno));
        q4h_report_kind kind = Q4H_REPORT_RUN;
        json_object *body = NULL;
        q4_status st = q4h_report_input_parse(text, len, shown, &kind, &body, err);
        free(text);
        if (st == Q4_OK && docs[kind])
            st = q4_fail(err, Q4_ERR_ARG, "%s is the second \"%s\" report given; a page shows "
                         "one run, one perf run and one PyTorch run", shown, doc_keys[kind]);
        if (st != Q4_OK) {
            json_object_put(body);
            return st;
        }
        docs[kind] = body;
    }
    if (docs[DOC_TORCH] && !docs[DOC_PERF])
        return q4_fail(err, Q4_ERR_ARG, "PyTorch's timings are compared with a perf run: give "
                       "the --json of q4cts perf too");
    if (!docs[DOC_RUN] && !docs[DOC_PERF])
        return q4_fail(err, Q4_ERR_ARG, "report needs the --json of a run or of a perf run");
    return Q4_OK;
}

/* --dumps DIR: a folder (a typo is an error, not a page without maps). */
static q4_status check_dumps(const char *dir, q4_error *err)
{
    struct stat st;
    char shown[Q4_ECHO_MAX];
    if (!dir)
        return Q4_OK;
    if (stat(dir, &st) != 0)
        return q4_fail(err, Q4_ERR_ARG, "--dumps %s: %s (give the --dump-dir of the run)",
                       q4_echo(dir, shown, sizeof shown), q4_file_strerror(errno));
    if (!S_ISDIR(st.st_mode))
        return q4_fail(err, Q4_ERR_ARG, "--dumps %s is not a folder (give the --dump-dir of "
                       "the run)", q4_echo(dir, shown, sizeof shown));
    return Q4_OK;
}

/* A case name used as a folder name under --dumps: one plain path component. */
static int plain_name(const char *s)
{
    if (!*s || !strcmp(s, ".") || !strcmp(s, ".."))
        return 0;
    for (; *s; s++)
        if (*s == '/' || (unsigned char)*s < 0x21 || (unsigned char)*s >= 0x7F)
            return 0;
    return 1;
}

static json_object *dump_params(const q4h_dump_meta *m)
{
    json_object *params = json_object_new_object();
    for (int i = 0; params && i < m->n_params; i++)
        json_object_object_add(params, m->params[i].key,
                               m->params[i].integer ? json_object_new_int64((int64_t)m->params[i].value)
                                                    : q4h_report_num(m->params[i].value, 9));
    return params;
}

/* What the page shows of one failing case's dump: its error maps, or a note saying
 * why there are none. NULL with err set when the dump is malformed. */
static json_object *case_detail(const char *dumps, const char *name, q4_error *err)
{
    char dir[1200], path[1300];
    struct stat st_buf;
    json_object *d = json_object_new_object();
    if (!d) {
        q4_fail(err, Q4_ERR_NOMEM, "out of memory");
        return NULL;
    }
    json_object_object_add(d, "name", json_object_new_string(name));
    snprintf(dir, sizeof dir, "%s/%s", dumps ? dumps : "", name);
    snprintf(path, sizeof path, "%s/case.json", dir);
    const char *note = !dumps ? "no error map: give --dumps DIR, the --dump-dir of the run"
                       : !plain_name(name) || stat(path, &st_buf) != 0
                           ? "no error map: --dumps holds no dump of this case"
                           : NULL;
    if (note) {
        json_object_object_add(d, "note", json_object_new_string(note));
        return d;
    }
    q4h_dump_meta *m = calloc(1, sizeof *m);
    q4h_outputs out = { 0 };
    q4_status st = m ? q4h_dump_read_meta(dir, m, err) : q4_fail(err, Q4_ERR_NOMEM, "out of memory");
    if (st == Q4_OK && strcmp(m->name, name))
        st = q4_fail(err, Q4_ERR_ARG, "%s holds the case %s, not %s", path, m->name, name);
    int have_got = 1;
    for (int k = 0; st == Q4_OK && k < m->n_outputs; k++)
        have_got &= m->outputs[k].has_got;
    if (st == Q4_OK) {
        json_object_object_add(d, "params", dump_params(m));
        json_object_object_add(d, "device", json_object_new_string(m->device));
        json_object_object_add(d, "dumped_verdict",
                               json_object_new_string(q4_verdict_name(m->result.verdict)));
    }
    if (st == Q4_OK && !have_got)
        json_object_object_add(d, "note", json_object_new_string(
            "no error map: the case ended before its outputs were read back"));
    else if (st == Q4_OK && (st = q4h_dump_load_outputs(dir, m, &out, err)) == Q4_OK) {
        json_object *maps = q4h_report_maps(&out);
        if (!maps)
            st = q4_fail(err, Q4_ERR_NOMEM, "out of memory drawing the maps of %s", name);
        json_object_object_add(d, "maps", maps);
    }
    q4h_outputs_free(&out);
    free(m);
    if (st != Q4_OK) {
        json_object_put(d);
        return NULL;
    }
    return d;
}

/* The details of every case that is neither Pass nor NotSupported, in run order. */
static q4_status details(json_object *run, const char *dumps, json_object *out, int *maps,
                         q4_error *err)
{
    json_object *results = member(run, "results", json_type_array);
    for (size_t i = 0; i < json_object_array_length(results); i++) {
        json_object *r = json_object_array_get_idx(results, i);
        const char *verdict = json_object_get_string(member(r, "verdict", json_type_string));
        if (!strcmp(verdict, "Pass") || !strcmp(verdict, "NotSupported"))
            continue;
        json_object *d = case_detail(dumps, json_object_get_string(member(r, "name",
                                                                           json_type_string)), err);
        if (!d)
            return err->status;
        *maps += json_object_object_get_ex(d, "maps", NULL);
        json_object_array_add(out, d);
    }
    return Q4_OK;
}

/* One file of reports/html, whole; NULL with err naming it. */
static char *asset(const char *dir, const char *name, int library, q4_error *err)
{
    char path[1200], shown[Q4_ECHO_MAX];
    size_t len = 0;
    snprintf(path, sizeof path, "%s/%s", dir, name);
    char *text = q4h_read_file(path, &len);
    if (text && len > 0)
        return text;
    int e = text ? ENODATA : errno;
    free(text);
    q4_echo(path, shown, sizeof shown);
    if (library)
        q4_fail(err, Q4_ERR_ARG, "the chart library %s is missing (%s): run scripts/setup, "
                "which installs reports/html/package-lock.json with npm ci", shown, strerror(e));
    else
        q4_fail(err, Q4_ERR_ARG, "cannot read the page's %s (%s): Q4CTS_REPORT_ASSETS must name "
                "the reports/html folder of the q4cts source", shown, strerror(e));
    return NULL;
}

/* The folders above path, made where missing (-o DIR/index.html with a new DIR); a
 * folder that cannot be made shows as the page's file failing to open. */
static void make_parents(const char *path)
{
    char *dir = strdup(path);
    for (char *p = dir ? strchr(dir + 1, '/') : NULL; p; p = strchr(p + 1, '/')) {
        *p = '\0';
        mkdir(dir, 0777);
        *p = '/';
    }
    free(dir);
}

static q4_status write_page(const char *path, const char *data, q4_error *err)
{
    const char *dir = getenv("Q4CTS_REPORT_ASSETS");
    char *body = NULL, *style = NULL, *scripts[N_LIBRARIES + 1] = { 0 };
    if (!dir || !*dir)
        dir = Q4CTS_REPORT_ASSETS;
    q4_status st = Q4_ERR_ARG;
    size_t n = 0;
    while (n < N_LIBRARIES && (scripts[n] = asset(dir, libraries[n], 1, err)) != NULL)
        n++;
    if (n == N_LIBRARIES && (scripts[n] = asset(dir, "report.js", 0, err)) != NULL &&
        (style = asset(dir, "report.css", 0, err)) != NULL &&
        (body = asset(dir, "report.html", 0, err)) != NULL) {
        q4_html_page page = { .title = "q4cts report", .style = style, .body = body,
                              .data_id = "q4-data", .data_json = data,
                              .scripts = (const char *const *)scripts,
                              .n_scripts = N_LIBRARIES + 1 };
        make_parents(path);
        st = q4_html_page_write(path, &page, err);
    }
    for (size_t i = 0; i <= N_LIBRARIES; i++)
        free(scripts[i]);
    free(style);
    free(body);
    return st;
}

int q4h_report(const q4h_cli *cli)
{
    q4_error err = { 0 };
    json_object *docs[DOC_KINDS] = { 0 };
    json_object *data = json_object_new_object(), *list = json_object_new_array();
    int maps = 0, perf = 0, torch = 0;
    size_t cases = 0;
    q4_status st = data && list ? Q4_OK : q4_fail(&err, Q4_ERR_NOMEM, "out of memory");
    if (st == Q4_OK)
        st = check_dumps(cli->dumps, &err);
    if (st == Q4_OK)
        st = read_inputs(cli, docs, &err);
    if (st == Q4_OK && docs[DOC_RUN])
        st = details(docs[DOC_RUN], cli->dumps, list, &maps, &err);
    if (st == Q4_OK) {
        json_object *results = docs[DOC_RUN] ? member(docs[DOC_RUN], "results", json_type_array) : NULL;
        cases = results ? json_object_array_length(results) : 0;
        perf = docs[DOC_PERF] != NULL;
        torch = docs[DOC_TORCH] != NULL;
        json_object *sources = json_object_new_array();
        for (size_t i = 0; i < cli->n_operands; i++)
            json_object_array_add(sources, json_object_new_string(cli->operands[i]));
        json_object_object_add(data, "sources", sources);
        json_object_object_add(data, "version", json_object_new_string(Q4CTS_VERSION));
        json_object_object_add(data, "run", docs[DOC_RUN]);
        json_object_object_add(data, "details", list);
        json_object_object_add(data, "perf", docs[DOC_PERF]);
        json_object_object_add(data, "torch", docs[DOC_TORCH]);
        list = NULL;
        q4h_json_drop_nonfinite(data);   /* JSON.parse takes no NaN: the page would stay blank */
        const char *text = json_object_to_json_string_ext(data, JSON_C_TO_STRING_PLAIN |
                                                                JSON_C_TO_STRING_NOSLASHESCAPE);
        st = text ? write_page(cli->output, text, &err)
                  : q4_fail(&err, Q4_ERR_NOMEM, "out of memory writing the page's data");
    } else {
        for (int k = 0; k < DOC_KINDS; k++)
            json_object_put(docs[k]);
    }
    json_object_put(list);
    json_object_put(data);
    if (st != Q4_OK) {
        fprintf(stderr, "q4cts: %s\n", err.msg);
        return EXIT_USAGE;
    }
    printf("report: %s", cli->output);
    if (cases)
        printf(", %zu cases, %d with an error map", cases, maps);
    if (perf)
        printf(", perf%s", torch ? " with PyTorch's timings" : "");
    printf("\n");
    return 0;
}
