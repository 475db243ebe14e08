/* progress.c: how far a run got, as every file sink records it: the cases planned,
 * and whether the document is the final one of a run that was not stopped. Only that
 * document says complete, so a killed run's report (any earlier write) or a stopped
 * one's cannot pass for a complete run of fewer cases. */
#include <stdio.h>

#include "q4report_internal.h"

void q4rep_progress_init(q4rep_progress *p)
{
    p->planned = -1;
    p->stopped[0] = '\0';
}

void q4rep_progress_stop(q4rep_progress *p, const char *why)
{
    snprintf(p->stopped, sizeof p->stopped, "%s", why && why[0] ? why : "stopped early");
}

int q4rep_progress_complete(const q4rep_progress *p, int final)
{
    return final && !p->stopped[0];
}

void q4rep_progress_json(q4rep_buf *b, const q4rep_progress *p, int final)
{
    if (p->planned >= 0)
        q4rep_buf_printf(b, "\"planned\": %lld, ", p->planned);
    else
        q4rep_buf_puts(b, "\"planned\": null, ");
    q4rep_buf_printf(b, "\"complete\": %s, \"stopped\": ",
                     q4rep_progress_complete(p, final) ? "true" : "false");
    if (final && p->stopped[0])
        q4rep_json_str(b, p->stopped, sizeof p->stopped);
    else
        q4rep_buf_puts(b, "null");
}
