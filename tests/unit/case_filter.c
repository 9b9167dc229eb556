/*
 * case_filter.c - linked into every unit test binary: TEST_CASE=PATTERN
 * in the environment runs only the cases whose name matches PATTERN
 * (cmocka's wildcards: '*' and '?'), e.g.
 *
 *     TEST_CASE='*timeout*' build/tests/test_lock
 *     TEST_CASE='*timeout*' tests/run.sh test_lock
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include <cmocka.h>

__attribute__((constructor)) static void
select_cases(void)
{
	const char *pattern = getenv("TEST_CASE");

	if (pattern != NULL && *pattern != '\0')
		cmocka_set_test_filter(pattern);
}
