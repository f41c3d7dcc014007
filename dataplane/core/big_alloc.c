/* big_alloc.c — see big_alloc.h. */
#include "big_alloc.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#define HUGE_PAGE ((size_t)2 << 20)

void *adw_big_calloc(size_t n, size_t size)
{
    if (size != 0 && n > SIZE_MAX / size)
        return NULL;
    size_t bytes = n * size;
    if (bytes < HUGE_PAGE) /* not worth a huge page */
        return calloc(n ? n : 1, size ? size : 1);
    size_t rounded = (bytes + HUGE_PAGE - 1) / HUGE_PAGE * HUGE_PAGE;
    void *p = aligned_alloc(HUGE_PAGE, rounded);
    if (p == NULL)
        return NULL;
#ifdef MADV_HUGEPAGE
    (void)madvise(p, rounded, MADV_HUGEPAGE); /* advice only: refused, the pages stay 4 KB */
#endif
    memset(p, 0, rounded);
    return p;
}

void adw_big_free(void *p) { free(p); }
