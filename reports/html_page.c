/* html_page.c: one self-contained HTML page: style, body markup, scripts and the
 * page's data all inline, so the file opens anywhere with nothing fetched (no CDN,
 * no network at view time). The harness (`q4cts report`) reads the pieces from
 * reports/html/ and hands them over; this file only assembles and writes them.
 *
 * What is inlined must not end its element early: "</script" and "</style" inside
 * one become "<\/script", "<\/style" (the same text in a JavaScript string), and the
 * data, JSON, gets every '<' as \u003c, which JSON.parse reads back as '<'. The page is
 * written like the other reports (report_file.c): replaced atomically. */
#include <string.h>
#include <strings.h>

#include "q4report_internal.h"

/* s with each "</script" and "</style" (any case) written "<\/...": the only text
 * that ends a <script> or <style> element; to JavaScript "<\/" inside a string is
 * "</". */
static int put_inline(q4rep_buf *b, const char *s)
{
    const char *start = s;
    for (const char *p = s; (p = strstr(p, "</")) != NULL; p += 2)
        if (!strncasecmp(p + 2, "script", 6) || !strncasecmp(p + 2, "style", 5)) {
            if (!q4rep_buf_put(b, start, (size_t)(p - start)) || !q4rep_buf_puts(b, "<\\/"))
                return 0;
            start = p + 2;
        }
    return q4rep_buf_puts(b, start);
}

/* JSON text with '<' as \u003c: inside a JSON string that is the same character;
 * outside strings JSON has no '<'. */
static int put_json(q4rep_buf *b, const char *s)
{
    for (const char *p; (p = strchr(s, '<')) != NULL; s = p + 1)
        if (!q4rep_buf_put(b, s, (size_t)(p - s)) || !q4rep_buf_puts(b, "\\u003c"))
            return 0;
    return q4rep_buf_puts(b, s);
}

q4_status q4_html_page_write(const char *path, const q4_html_page *page, q4_error *err)
{
    q4rep_buf b = { 0 };
    q4rep_file file = { 0 };
    q4rep_buf_puts(&b, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
                       "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
                       "<title>");
    q4rep_xml_text(&b, page->title, Q4REP_NOMAX);
    q4rep_buf_puts(&b, "</title>\n<style>\n");
    put_inline(&b, page->style);
    q4rep_buf_puts(&b, "</style>\n</head>\n<body>\n");
    q4rep_buf_puts(&b, page->body);
    q4rep_buf_puts(&b, "\n<script type=\"application/json\" id=\"");
    q4rep_xml_attr(&b, page->data_id, Q4REP_NOMAX);
    q4rep_buf_puts(&b, "\">");
    put_json(&b, page->data_json);
    q4rep_buf_puts(&b, "</script>\n");
    for (size_t i = 0; i < page->n_scripts; i++) {
        q4rep_buf_puts(&b, "<script>\n");
        put_inline(&b, page->scripts[i]);
        q4rep_buf_puts(&b, "\n</script>\n");
    }
    q4rep_buf_puts(&b, "</body>\n</html>\n");
    q4_status st = b.failed ? q4_fail(err, Q4_ERR_NOMEM, "out of memory building the page")
                            : q4rep_file_open(&file, path, err);
    if (st == Q4_OK)
        st = q4rep_file_write(&file, b.data, b.len, 1, 1, 1, err);
    q4rep_file_close(&file);
    q4rep_buf_free(&b);
    return st;
}
