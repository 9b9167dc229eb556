/*
 * ids.c - device id lists (sorted, unique, non-negative) and the
 * timestamps lease files and manifests record.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "lease_internal.h"
#include "tunectl/buf.h"
#include "tunectl/lease.h"

static int
cmp_long(const void *a, const void *b)
{
	long x = *(const long *)a, y = *(const long *)b;

	return (x > y) - (x < y);
}

int
tc_lease_ids_canonical(const long *ids, size_t n, long **out, tc_error *err)
{
	long *sorted;
	size_t i;

	*out = NULL;
	if (n == 0)
		goto bad;
	sorted = tc_xmalloc(n * sizeof(*sorted));
	memcpy(sorted, ids, n * sizeof(*sorted));
	qsort(sorted, n, sizeof(*sorted), cmp_long);
	for (i = 0; i < n; i++) {
		if (sorted[i] < 0 || (i > 0 && sorted[i] == sorted[i - 1])) {
			free(sorted);
			goto bad;
		}
	}
	*out = sorted;
	return 0;
bad:
	tc_error_set(err, "device_ids must be sorted unique non-negative "
	    "integers");
	return -1;
}

char *
tc_lease_ids_join(const long *ids, size_t n)
{
	tc_buf b = TC_BUF_INIT;
	size_t i;

	for (i = 0; i < n; i++)
		tc_buf_printf(&b, "%s%ld", i > 0 ? "," : "", ids[i]);
	return tc_buf_detach(&b, NULL);
}

char *
tc_lease_lock_path(const char *lease_root, long device_id)
{
	return tc_xasprintf("%s/npu-device-%ld.lock", lease_root, device_id);
}

void
tc_lease__format_time(const struct timespec *ts, char out[40])
{
	struct tm tm;
	time_t secs = ts->tv_sec;
	unsigned usec = (unsigned)(ts->tv_nsec / 1000) % 1000000u;
	char date[32];

	gmtime_r(&secs, &tm);
	strftime(date, sizeof(date), "%Y-%m-%dT%H:%M:%S", &tm);
	if (usec == 0)
		snprintf(out, 40, "%.24sZ", date);
	else
		snprintf(out, 40, "%.24s.%06uZ", date, usec);
}

void
tc_lease_timestamp(char out[40])
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	tc_lease__format_time(&ts, out);
}

double
tc_lease__round_us(double seconds)
{
	return round(seconds * 1e6) / 1e6;
}
