/* shown.h: text from outside q4cts made safe to print (shown.c). A device's strings
 * come from a driver or the WebGPU worker, a dump's from its case.json, an error's
 * from anything it quotes; each goes through q4_echo before it reaches a terminal, so
 * that no escape sequence in them is ever written raw. */
#ifndef Q4H_SHOWN_H
#define Q4H_SHOWN_H

#include "q4vk.h"

/* A device's strings, escaped. */
typedef struct q4h_device_shown {
    char name[4 * 256 + 1], type[4 * 32 + 1], driver[4 * 256 + 1], version[4 * 64 + 1],
        info[4 * 256 + 1];
} q4h_device_shown;
void q4h_device_shown_of(const q4vk_device_info *i, q4h_device_shown *d);

/* "q4cts: MSG" on stderr, msg escaped; a newline in msg continues on an indented line. */
void q4h_say(const char *msg);

#endif
