/* sink.c: the part every file sink (junit.c, json.c, perf_json.c) keeps the same way:
 * the report file, the results rendered so far, the scratch buffer each write builds
 * the whole document in, the per-add fsync switch, the run's progress and when it
 * started. Each sink renders a result once into `body`; each write puts its header,
 * the results in the order of their positions and its footer into `doc` and replaces
 * the file with it. */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "q4report_internal.h"

q4_status q4rep_sink_open(q4rep_sink *s, const char *path, q4_error *err)
{
    q4rep_progress_init(&s->progress);
    q4_status st = q4rep_file_open(&s->file, path, err);
    if (st != Q4_OK)
        return st;
    time_t now = time(NULL);
    struct tm tm;
    if (localtime_r(&now, &tm))
        strftime(s->started, sizeof s->started, "%Y-%m-%dT%H:%M:%S", &tm);
    return Q4_OK;
}

int q4rep_sink_drop_failed(q4rep_sink *s, size_t mark)
{
    if (!s->body.failed)
        return 0;
    q4rep_buf_truncate(&s->body, mark);   /* no half result: the next write stays valid */
    s->body.failed = 0;
    return 1;
}

q4_status q4rep_sink_write(q4rep_sink *s, const char *kind, int sync_dir, int final,
                           q4_error *err)
{
    if (s->doc.failed)
        return q4_fail(err, Q4_ERR_NOMEM, "out of memory writing %s report %s", kind,
                       s->file.path);
    return q4rep_file_write(&s->file, s->doc.data, s->doc.len, final, !s->nosync || sync_dir,
                            sync_dir, err);
}

int q4rep_sink_place(q4rep_sink *s, size_t mark, size_t pos)
{
    if (s->n_frags == s->cap_frags) {
        size_t cap = s->cap_frags ? 2 * s->cap_frags : 64;
        q4rep_frag *f = realloc(s->frags, cap * sizeof *f);
        if (!f) {
            q4rep_buf_truncate(&s->body, mark);
            return -1;
        }
        s->frags = f;
        s->cap_frags = cap;
    }
    /* after every fragment of a position <= pos: in order of the adds for equal ones;
     * a run adds mostly in order, so the search starts from the end */
    size_t at = s->n_frags;
    while (at > 0 && s->frags[at - 1].pos > pos)
        at--;
    memmove(s->frags + at + 1, s->frags + at, (s->n_frags - at) * sizeof *s->frags);
    s->frags[at] = (q4rep_frag){ pos, mark, s->body.len - mark };
    s->n_frags++;
    return 0;
}

size_t q4rep_sink_next_pos(const q4rep_sink *s)
{
    return s->n_frags ? s->frags[s->n_frags - 1].pos + 1 : 0;
}

void q4rep_sink_put_body(const q4rep_sink *s, q4rep_buf *d, const char *sep)
{
    for (size_t i = 0; i < s->n_frags; i++) {
        if (i)
            q4rep_buf_puts(d, sep);
        q4rep_buf_put(d, s->body.data + s->frags[i].off, s->frags[i].len);
    }
}

void q4rep_sink_free(q4rep_sink *s)
{
    free(s->frags);
    q4rep_buf_free(&s->body);
    q4rep_buf_free(&s->doc);
    q4rep_file_close(&s->file);
}
