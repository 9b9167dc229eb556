/*
 * test_buf.c - the growable byte buffer (src/util/buf.c): a buffer that
 * has memory is always a NUL-terminated string, even one grown but never
 * written (the projection's CSV reader copied such a buffer as its first,
 * empty field; fuzz_projection_csv F-P2).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#ifdef __GLIBC__
#include <malloc.h>
#endif

#include "tunectl/buf.h"

static void
a_grown_unwritten_buffer_is_the_empty_string(void **state)
{
	tc_buf b = TC_BUF_INIT;

	(void)state;
#ifdef __GLIBC__
	mallopt(M_PERTURB, 0x5a);	/* fresh memory is never zero */
#endif
	tc_buf_grow(&b, 0);
	assert_non_null(b.data);
	assert_int_equal(strlen(tc_buf_cstr(&b)), 0);
	tc_buf_free(&b);
	tc_buf_grow(&b, 1000);
	assert_int_equal(b.len, 0);
	assert_string_equal(tc_buf_cstr(&b), "");
	tc_buf_puts(&b, "abc");
	tc_buf_grow(&b, 5000);
	assert_string_equal(tc_buf_cstr(&b), "abc");
	tc_buf_reset(&b);
	assert_string_equal(tc_buf_cstr(&b), "");
	tc_buf_free(&b);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(a_grown_unwritten_buffer_is_the_empty_string),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
