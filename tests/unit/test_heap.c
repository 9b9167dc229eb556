/*
 * test_heap.c - the heap hints (src/util/heap.c): a reserve stays in the
 * heap as free room for what follows (glibc: the top chunk), and hints on
 * arrays of any size and alignment change nothing that is read back.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#ifdef __GLIBC__
#include <malloc.h>
#endif

#include "tunectl/heap.h"

static void
a_reserve_stays_as_room_in_the_heap(void **state)
{
	(void)state;
	tc_heap_init();
	tc_heap_reserve((size_t)192 << 20);
#if defined(__GLIBC__) && !defined(__SANITIZE_ADDRESS__)
	{
		struct mallinfo2 mi = mallinfo2();

		/* freed to the top of the heap, not given back (above
		 * the trim threshold tc_heap_init() sets) */
		assert_true(mi.keepcost >= ((size_t)192 << 20) - ((size_t)1 << 20));
	}
#endif
	/* and the room is used: arrays of the reserve's size come and go */
	{
		char *a = malloc((size_t)40 << 20), *b = malloc((size_t)20 << 20);

		assert_non_null(a);
		assert_non_null(b);
		memset(a, 1, (size_t)40 << 20);
		memset(b, 2, (size_t)20 << 20);
		assert_int_equal(a[((size_t)40 << 20) - 1] + b[0], 3);
		free(a);
		free(b);
	}
	/* below a piece: nothing to do */
	tc_heap_reserve(4096);
}

static void
hints_leave_the_bytes_as_written(void **state)
{
	static const size_t sizes[] = { 0, 1, 4095, (size_t)2 << 20,
	    ((size_t)5 << 20) + 123 };
	size_t i, k;

	(void)state;
	for (i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		unsigned char *p = malloc(sizes[i] + 7);

		assert_non_null(p);
		for (k = 0; k < sizes[i]; k += 4096)
			p[k] = (unsigned char)(k / 4096 + 1);
		/* unaligned starts too */
		tc_heap_hint(p + 3, sizes[i]);
		for (k = 0; k < sizes[i]; k += 4096)
			assert_int_equal(p[k], (unsigned char)(k / 4096 + 1));
		free(p);
	}
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(a_reserve_stays_as_room_in_the_heap),
		cmocka_unit_test(hints_leave_the_bytes_as_written),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
