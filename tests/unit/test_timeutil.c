/*
 * test_timeutil.c - ISO-8601 UTC timestamps in the reference's forms and
 * the monotonic clock.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cmocka.h>

#include "tunectl/timeutil.h"

static void
epoch_seconds_format_with_utc_offset(void **state)
{
	char out[TC_TIMESTAMP_LEN + 1];

	(void)state;
	tc_time_iso(0, out);
	assert_string_equal(out, "1970-01-01T00:00:00+00:00");
	/* datetime.fromtimestamp(1788570123, timezone.utc).isoformat() */
	tc_time_iso(1788570123, out);
	assert_string_equal(out, "2026-09-05T01:02:03+00:00");
	tc_time_iso(951782400, out);	/* leap day */
	assert_string_equal(out, "2000-02-29T00:00:00+00:00");
}

static void
micro_form_matches_python_isoformat(void **state)
{
	char out[TC_TIMESTAMP_MICRO_LEN + 1];

	(void)state;
	tc_time_iso_micro(1788570123, 123456, out);
	assert_string_equal(out, "2026-09-05T01:02:03.123456+00:00");
	tc_time_iso_micro(1788570123, 7, out);
	assert_string_equal(out, "2026-09-05T01:02:03.000007+00:00");
	/* Python omits a zero microsecond entirely. */
	tc_time_iso_micro(1788570123, 0, out);
	assert_string_equal(out, "2026-09-05T01:02:03+00:00");
}

static void
now_has_the_documented_shape(void **state)
{
	char a[TC_TIMESTAMP_LEN + 1], m[TC_TIMESTAMP_MICRO_LEN + 1];
	time_t before = time(NULL);

	(void)state;
	tc_now_iso(a);
	assert_int_equal(strlen(a), TC_TIMESTAMP_LEN);
	assert_string_equal(a + 19, "+00:00");
	assert_int_equal(a[10], 'T');
	tc_now_iso_micro(m);
	assert_true(strlen(m) == TC_TIMESTAMP_MICRO_LEN ||
	    strlen(m) == TC_TIMESTAMP_LEN);
	assert_string_equal(m + strlen(m) - 6, "+00:00");
	/* the same UTC date as time() (unless midnight passed in between) */
	{
		char b[TC_TIMESTAMP_LEN + 1];

		tc_time_iso(before, b);
		if (time(NULL) - before < 1)
			assert_memory_equal(a, b, 10);
	}
}

static void
monotonic_clock_never_goes_back(void **state)
{
	uint64_t a = tc_monotonic_ns(), b;
	double s;
	struct timespec ts = { 0, 2000000 };

	(void)state;
	nanosleep(&ts, NULL);
	b = tc_monotonic_ns();
	assert_true(b >= a + 2000000);
	s = tc_monotonic_s();
	assert_true(s * 1e9 >= (double)b - 1e3);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(epoch_seconds_format_with_utc_offset),
		cmocka_unit_test(micro_form_matches_python_isoformat),
		cmocka_unit_test(now_has_the_documented_shape),
		cmocka_unit_test(monotonic_clock_never_goes_back),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
