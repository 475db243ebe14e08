/* backend.c: opening and closing a backend (backend.h). */
#include "backend.h"

q4_status q4h_backend_open(q4h_backend *b, const q4h_run_options *opt, bool reopen,
                           q4_error *err)
{
    *b = (q4h_backend){ .i = opt->backend, .opt = opt, .state = NULL };
    return b->i->open(b, reopen, err);
}

void q4h_backend_close(q4h_backend *b)
{
    if (b->i)
        b->i->close(b);
    b->state = NULL;
}
