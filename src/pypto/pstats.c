/*
 * pstats.c - the per-case aggregate of the Stage 5 formal compare and the
 * summary statistics of performance.json, with Python's statistics
 * module semantics (mean and median through stats.h, which reproduces
 * them bit for bit).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "pypto_internal.h"
#include "tunectl/buf.h"
#include "tunectl/stats.h"

static int
cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y ? 1 : 0;
}

double
tc_pypto_mean(const double *v, size_t n)
{
	return tc_stat_mean(v, n);
}

double
tc_pypto_median(const double *v, size_t n)
{
	return tc_stat_median(v, n);
}

/* statistics.mean(sorted(v)[1:-1]) for n >= 3, else median. */
double
tc_pypto_aggregate(const double *v, size_t n)
{
	double *s, r;

	if (n < 3)
		return tc_stat_median(v, n);
	s = tc_xmalloc(n * sizeof(*s));
	memcpy(s, v, n * sizeof(*s));
	qsort(s, n, sizeof(*s), cmp_double);
	r = tc_stat_mean(s + 1, n - 2);
	free(s);
	return r;
}

const char *
tc_pypto_aggregation_method(size_t repeats)
{
	return repeats >= 3 ? "trimmed_mean" : "median";
}

/* statistics.geometric_mean: exp(fmean(log(x))), fmean via an exactly
 * rounded sum (Neumaier compensation is enough for the handful of cases
 * a manifest holds). */
double
tc_pypto_geomean(const double *v, size_t n)
{
	double sum = 0, comp = 0;
	size_t i;

	for (i = 0; i < n; i++) {
		double x = log(v[i]), t = sum + x;

		if (fabs(sum) >= fabs(x))
			comp += (sum - t) + x;
		else
			comp += (x - t) + sum;
		sum = t;
	}
	return exp((sum + comp) / (double)n);
}
