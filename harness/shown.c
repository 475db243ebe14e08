/* shown.c: q4h_device_shown_of and q4h_say (shown.h). */
#include "shown.h"

#include <stdio.h>

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
    char shown[Q4_CLEAN_MAX];
    fprintf(stderr, "q4cts: %s\n", q4_echo(msg, shown, sizeof shown));
}
