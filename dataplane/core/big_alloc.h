/*
 * big_alloc.h — zeroed memory for the core's large arrays that the packet path
 * reads at random (the per-pair state, 37.5 MB for its ADW_MAX_SLOTS slots, and the
 * packet node pool), on transparent huge pages where the kernel offers them.
 *
 * With 4 KB pages each packet of a pair whose state was not touched lately
 * also misses the TLB, and under virtualisation a TLB miss is a two-level page
 * walk; 2 MB pages cover the whole state with a few TLB entries. Allocated on
 * the control path (create) only; where madvise(MADV_HUGEPAGE) is unknown or
 * refused the memory is ordinary pages and everything works the same.
 */
#ifndef ADW_CORE_BIG_ALLOC_H
#define ADW_CORE_BIG_ALLOC_H

#include <stddef.h>

/* n * size bytes, zeroed, or NULL (overflow or out of memory). Free with adw_big_free. */
void *adw_big_calloc(size_t n, size_t size);
void adw_big_free(void *p);

#endif
