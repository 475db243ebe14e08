/* shown.c: q4h_device_shown_of and q4h_say (shown.h). */
#include "shown.h"

#include <stdio.h>
#include <string.h>

void q4h_device_shown_of(const q4vk_device_info *i, q4h_device_shown *d)
{
    q4_echo(i->name, d->name, sizeof d->name);
    q4_echo(i->type ? i->type : "", d->type, sizeof d->type);
    q4_echo(i->driver_name, d->driver, sizeof d->driver);
    q4_echo(i->driver_version_str, d->version, sizeof d->version);
    q4_echo(i->driver_info, d->info, sizeof d->info);
}

void q4h_say(const char *msg)
{
    char line[1025], shown[Q4_CLEAN_MAX];
    fputs("q4cts: ", stderr);
    for (const char *p = msg;;) {   /* a newline (a validator's list) stays one, indented */
        const char *nl = strchr(p, '\n');
        size_t len = nl ? (size_t)(nl - p) : strlen(p);
        snprintf(line, sizeof line, "%.*s", (int)(len < sizeof line ? len : sizeof line - 1), p);
        fputs(q4_echo(line, shown, sizeof shown), stderr);
        if (!nl)
            break;
        fputs("\n  ", stderr);
        p = nl + 1;
    }
    fputc('\n', stderr);
}
