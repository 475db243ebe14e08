/* case_free.h: freeing a case's big arrays on every core. */
#ifndef Q4C_CASE_FREE_H
#define Q4C_CASE_FREE_H

/* free(p) (NULL is fine). A block of at least 64 MiB first hands its whole pages back
 * to the kernel on every core (madvise), so that unmapping the gigabytes of a big
 * case's arrays is not one core's work. */
void q4_free_big(void *p);

#endif
