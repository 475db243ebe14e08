/* case_free.c: q4_free_big (case_free.h).
 *
 * free() of a block of gigabytes unmaps it on one core: the kernel frees each of its
 * pages in turn (about 10 ns an element of a big AdamW case's 84 bytes of truth and
 * results, 2.9 s of one core at n = 2^28). MADV_DONTNEED on disjoint pieces of the
 * block, one thread each, frees the same pages side by side; what free() then unmaps
 * has no pages left. Only whole pages inside the block's usable bytes are handed
 * back: the allocator's own words lie outside them, and nothing reads them again. */
#define _DEFAULT_SOURCE /* madvise, malloc_usable_size */
#include "case_free.h"

#include <malloc.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

enum { BIG = 64 << 20, PIECE = 4 << 20 };

void q4_free_big(void *p)
{
    const size_t bytes = p ? malloc_usable_size(p) : 0;
    const uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE);
    const uintptr_t a = ((uintptr_t)p + page - 1) & ~(page - 1);
    const uintptr_t e = ((uintptr_t)p + bytes) & ~(page - 1);
    if (p && bytes >= BIG && e > a) {
        const int64_t pieces = (int64_t)((e - a + PIECE - 1) / PIECE);
#pragma omp parallel for schedule(static)
        for (int64_t i = 0; i < pieces; i++) {
            uintptr_t s = a + (uintptr_t)i * PIECE, t = e - s < PIECE ? e : s + PIECE;
            (void)madvise((void *)s, t - s, MADV_DONTNEED);   /* a failure: free() does it */
        }
    }
    free(p);
}
