/*
 * timeutil.c - ISO-8601 UTC timestamps in the reference's form and the
 * monotonic clock used for timeouts and wall times.
 */
#include <stdio.h>
#include <string.h>

#include "tunectl/timeutil.h"

void
tc_time_iso(time_t t, char out[TC_TIMESTAMP_LEN + 1])
{
	struct tm tm;

	if (gmtime_r(&t, &tm) == NULL ||
	    strftime(out, TC_TIMESTAMP_LEN + 1, "%Y-%m-%dT%H:%M:%S+00:00",
	    &tm) != TC_TIMESTAMP_LEN)
		/* Outside what Python's datetime can hold (years 1-9999). */
		snprintf(out, TC_TIMESTAMP_LEN + 1, "%s",
		    "0000-00-00T00:00:00+00:00");
}

void
tc_time_iso_micro(time_t t, long usec, char out[TC_TIMESTAMP_MICRO_LEN + 1])
{
	char base[TC_TIMESTAMP_LEN + 1];

	tc_time_iso(t, base);
	if (usec <= 0 || usec > 999999) {
		memcpy(out, base, sizeof(base));
		return;
	}
	/* "YYYY-MM-DDTHH:MM:SS" + ".ffffff" + "+00:00" */
	snprintf(out, TC_TIMESTAMP_MICRO_LEN + 1, "%.19s.%06ld%s", base, usec,
	    base + 19);
}

void
tc_now_iso(char out[TC_TIMESTAMP_LEN + 1])
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	tc_time_iso(ts.tv_sec, out);
}

void
tc_now_iso_micro(char out[TC_TIMESTAMP_MICRO_LEN + 1])
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	tc_time_iso_micro(ts.tv_sec, ts.tv_nsec / 1000, out);
}

uint64_t
tc_monotonic_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

double
tc_monotonic_s(void)
{
	return (double)tc_monotonic_ns() / 1e9;
}
