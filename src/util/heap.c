/*
 * heap.c - the heap of a command: set up at start (tc_heap_init), grown
 * for transparent huge pages when the first large document is read
 * (tc_heap_expect); a large array marked for them before it is filled
 * (tc_heap_hint: the SK-off rows of a million-row profile, 80 MB, read
 * in 0.26 s instead of 0.48 s on this VM).
 *
 * A command lives milliseconds and reads documents of up to a few
 * megabytes one after another, and on the virtual machines it runs on a
 * fresh page costs about 10 us to fault in: verify of a 10 MB session
 * spent a third of its time faulting.  So freed memory stays in the heap
 * for the next document (glibc would map each large buffer afresh and
 * unmap it on free), and once a document of TC_HEAP_LARGE or more is to
 * be read the heap is grown by 32 MiB, untouched and marked for
 * transparent huge pages: one fault then maps 2 MiB (verify of 10 MB:
 * 1 900 faults -> about 250).
 *
 * Not at start: a command that reads only small documents (every
 * controller command of an ordinary session) would pay for the madvise
 * and the split of the heap's mapping, and, where the randomised heap
 * start puts its first 2 MiB boundary within what it allocates, for
 * clearing a whole huge page (about one status in eight did).  glibc's
 * own glibc.malloc.hugetlb=1 tunable marks the heap from the start, and
 * only from the environment; where the kernel gives no huge pages
 * nothing changes.
 */
#include <malloc.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>

#include "tunectl/heap.h"

#if defined(__SANITIZE_ADDRESS__)
#define TC_UNDER_ASAN	1
#else
#define TC_UNDER_ASAN	0
#endif

static bool grown;

void
tc_heap_init(void)
{
	mallopt(M_MMAP_THRESHOLD, 64 * 1024 * 1024);
	mallopt(M_TRIM_THRESHOLD, 128 * 1024 * 1024);
}

void
tc_heap_expect(size_t bytes)
{
	const size_t huge = (size_t)2 << 20, span = (size_t)32 << 20;
	uintptr_t from, to;
	char *p;

	/* AddressSanitizer's allocator has no heap of this kind */
	if (bytes < TC_HEAP_LARGE || grown || TC_UNDER_ASAN)
		return;
	grown = true;
	if ((p = malloc(span)) == NULL)
		return;
	from = ((uintptr_t)p + huge - 1) & ~(uintptr_t)(huge - 1);
	to = ((uintptr_t)p + span) & ~(uintptr_t)(huge - 1);
	free(p);
	if (to > from)
		(void)madvise((void *)from, to - from, MADV_HUGEPAGE);
}

void
tc_heap_reserve(size_t bytes)
{
	const size_t piece = (size_t)16 << 20, most = (size_t)1 << 30;
	char *p[64];
	size_t k = 0, i;
	uintptr_t lo = UINTPTR_MAX, hi = 0;

	if (TC_UNDER_ASAN || bytes < piece)
		return;
	if (bytes > most)
		bytes = most;
	/* what is reserved stays (the heap is trimmed above this only) */
	mallopt(M_TRIM_THRESHOLD, (int)(bytes + ((size_t)128 << 20)));
	while (k < 64 && k * piece < bytes && (p[k] = malloc(piece)) != NULL) {
		if ((uintptr_t)p[k] < lo)
			lo = (uintptr_t)p[k];
		if ((uintptr_t)p[k] + piece > hi)
			hi = (uintptr_t)p[k] + piece;
		k++;
	}
	if (k > 0)
		tc_heap_hint((void *)lo, hi - lo);
	for (i = k; i-- > 0;)
		free(p[i]);
}

void
tc_heap_hint(void *p, size_t n)
{
	const uintptr_t huge = (uintptr_t)2 << 20;
	uintptr_t from = ((uintptr_t)p + huge - 1) & ~(huge - 1);
	uintptr_t to = ((uintptr_t)p + n) & ~(huge - 1);

	if (!TC_UNDER_ASAN && to > from)
		(void)madvise((void *)from, to - from, MADV_HUGEPAGE);
}
