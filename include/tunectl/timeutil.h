/*
 * timeutil.h - timestamps in the reference's form and monotonic clocks.
 */
#ifndef TUNECTL_TIMEUTIL_H
#define TUNECTL_TIMEUTIL_H

#include <stdint.h>
#include <time.h>

#define TC_TIMESTAMP_LEN 25	/* "2026-09-05T01:02:03+00:00" */
#define TC_TIMESTAMP_MICRO_LEN 32	/* "2026-09-05T01:02:03.123456+00:00" */

/* UTC now, microseconds dropped: "2026-09-05T01:02:03+00:00" (the
 * controller's _now()). */
void tc_now_iso(char out[TC_TIMESTAMP_LEN + 1]);
/* Same for a given epoch second. */
void tc_time_iso(time_t t, char out[TC_TIMESTAMP_LEN + 1]);
/* UTC with microseconds: "2026-09-05T01:02:03.123456+00:00", exactly
 * Python's datetime.now(timezone.utc).isoformat() -- which, like Python,
 * omits the fraction when the microsecond is 0. */
void tc_now_iso_micro(char out[TC_TIMESTAMP_MICRO_LEN + 1]);
/* Same for epoch second t plus usec microseconds (0..999999). */
void tc_time_iso_micro(time_t t, long usec,
    char out[TC_TIMESTAMP_MICRO_LEN + 1]);

/* Monotonic clock in nanoseconds / seconds. */
uint64_t tc_monotonic_ns(void);
double tc_monotonic_s(void);

#endif
