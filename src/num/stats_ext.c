/*
 * stats_ext.c - the statistics tunectl reports beyond the reference: a
 * seeded percentile-bootstrap interval of the improvement percentage
 * (of two run sets, or of runs paired by round) and of a median, and the
 * Mann-Whitney U test (exact without ties on small samples, normal
 * approximation with tie and continuity corrections otherwise).  They
 * never change a reference verdict unless --significance asks for it.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "tunectl/buf.h"
#include "tunectl/stats.h"

/* ---- xoshiro256** seeded by splitmix64 ---------------------------------- */

typedef struct rng {
	uint64_t s[4];
} rng;

static uint64_t
splitmix64(uint64_t *x)
{
	uint64_t z = (*x += UINT64_C(0x9e3779b97f4a7c15));

	z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
	z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
	return z ^ (z >> 31);
}

static uint64_t
rotl(uint64_t x, int k)
{
	return (x << k) | (x >> (64 - k));
}

static uint64_t
rng_next(rng *r)
{
	uint64_t res = rotl(r->s[1] * 5, 7) * 9, t = r->s[1] << 17;

	r->s[2] ^= r->s[0];
	r->s[3] ^= r->s[1];
	r->s[1] ^= r->s[2];
	r->s[0] ^= r->s[3];
	r->s[2] ^= t;
	r->s[3] = rotl(r->s[3], 45);
	return res;
}

/* Uniform in [0, n) without modulo bias (Lemire). */
static size_t
rng_below(rng *r, size_t n)
{
	__extension__ typedef unsigned __int128 u128;
	uint64_t x = rng_next(r);
	u128 m = (u128)x * n;
	uint64_t l = (uint64_t)m;

	if (l < n) {
		uint64_t t = -(uint64_t)n % n;

		while (l < t) {
			x = rng_next(r);
			m = (u128)x * n;
			l = (uint64_t)m;
		}
	}
	return (size_t)(m >> 64);
}

static int
cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static double
resample_mean(rng *r, const double *v, size_t n)
{
	double s = 0;

	for (size_t i = 0; i < n; i++)
		s += v[rng_below(r, n)];
	return s / (double)n;
}

static double
sorted_quantile(const double *s, size_t n, double p)
{
	double pos, frac;
	size_t lo, hi;

	if (n == 1)
		return s[0];
	pos = (double)(n - 1) * p;
	lo = (size_t)floor(pos);
	hi = lo + 1 < n - 1 ? lo + 1 : n - 1;
	frac = pos - (double)lo;
	return s[lo] + (s[hi] - s[lo]) * frac;
}

/* Seeds the xoshiro256** state from SEED through splitmix64. */
static void
rng_seed(rng *r, uint64_t seed)
{
	uint64_t x = seed;

	for (int i = 0; i < 4; i++)
		r->s[i] = splitmix64(&x);
}

/* The 95 % percentile interval of the K resampled statistics in RES
 * (sorted in place, then freed): false, with LO and HI left NaN, when
 * there are none. */
static bool
percentile_interval(double *res, size_t k, double *lo, double *hi)
{
	if (k > 0) {
		qsort(res, k, sizeof(*res), cmp_double);
		*lo = sorted_quantile(res, k, 0.025);
		*hi = sorted_quantile(res, k, 0.975);
	}
	free(res);
	return k > 0;
}

bool
tc_bootstrap_improvement_ci(const double *base, size_t nb, const double *cand,
    size_t nc, unsigned resamples, uint64_t seed, double *lo, double *hi)
{
	rng r;
	double *res;
	size_t k = 0;

	*lo = *hi = NAN;
	if (nb == 0 || nc == 0 || resamples == 0)
		return false;
	rng_seed(&r, seed);
	res = tc_xmalloc(resamples * sizeof(*res));
	for (unsigned i = 0; i < resamples; i++) {
		double b = resample_mean(&r, base, nb);
		double c = resample_mean(&r, cand, nc);

		if (b == 0.0)
			continue;
		res[k++] = (b - c) / b * 100;
	}
	return percentile_interval(res, k, lo, hi);
}

bool
tc_bootstrap_paired_improvement_ci(const double *base, const double *cand,
    size_t n, unsigned resamples, uint64_t seed, double *lo, double *hi)
{
	rng r;
	double *res;
	size_t k = 0;

	*lo = *hi = NAN;
	if (n == 0 || resamples == 0)
		return false;
	rng_seed(&r, seed);
	res = tc_xmalloc(resamples * sizeof(*res));
	for (unsigned i = 0; i < resamples; i++) {
		double b = 0, c = 0;

		for (size_t j = 0; j < n; j++) {
			size_t round = rng_below(&r, n);

			b += base[round];
			c += cand[round];
		}
		if (b == 0.0)
			continue;
		res[k++] = (b - c) / b * 100;
	}
	return percentile_interval(res, k, lo, hi);
}

double
tc_reciprocal_gain_pct(double pct)
{
	if (isnan(pct))
		return NAN;
	if (pct >= 100.0)
		return INFINITY;
	return pct / (100.0 - pct) * 100.0;
}

/* The median of n values drawn with replacement from v (tmp: n slots). */
static double
resample_median(rng *r, const double *v, size_t n, double *tmp)
{
	for (size_t i = 0; i < n; i++)
		tmp[i] = v[rng_below(r, n)];
	qsort(tmp, n, sizeof(*tmp), cmp_double);
	return n % 2 == 1 ? tmp[n / 2] : (tmp[n / 2 - 1] + tmp[n / 2]) / 2;
}

bool
tc_bootstrap_median_ci(const double *v, size_t n, unsigned resamples,
    uint64_t seed, double *lo, double *hi)
{
	rng r;
	double *res, *tmp;

	*lo = *hi = NAN;
	if (n == 0 || resamples == 0)
		return false;
	rng_seed(&r, seed);
	res = tc_xmalloc(resamples * sizeof(*res));
	tmp = tc_xmalloc(n * sizeof(*tmp));
	for (unsigned i = 0; i < resamples; i++)
		res[i] = resample_median(&r, v, n, tmp);
	free(tmp);
	return percentile_interval(res, resamples, lo, hi);
}

/* ---- Mann-Whitney U --------------------------------------------------------- */

typedef struct tagged {
	double v;
	int group;	/* 0 base, 1 cand */
} tagged;

static int
cmp_tagged(const void *a, const void *b)
{
	return cmp_double(&((const tagged *)a)->v, &((const tagged *)b)->v);
}

/* P(U <= u) and P(U >= u) of the exact null distribution (no ties). */
static void
exact_tails(size_t m, size_t n, double u, double *le, double *ge)
{
	size_t maxu = m * n, i, j, w;
	double *f = tc_xcalloc((m + 1) * (maxu + 1), sizeof(*f));
	double total = 0, cle = 0, cge = 0;

	/* f[i][w]: arrangements of i base and j cand values with U = w;
	 * adding a cand value above all: U unchanged; a base value above
	 * all j cand values: U + j.  Rolled over j. */
	for (i = 0; i <= m; i++)
		f[i * (maxu + 1)] = 1;	/* j = 0: U = 0 */
	for (j = 1; j <= n; j++)
		for (i = 1; i <= m; i++)
			for (w = maxu; ; w--) {
				/* f(i, j, w) = f(i, j-1, w) + f(i-1, j, w-j) */
				if (w >= j)
					f[i * (maxu + 1) + w] +=
					    f[(i - 1) * (maxu + 1) + w - j];
				if (w == 0)
					break;
			}
	for (w = 0; w <= maxu; w++) {
		double c = f[m * (maxu + 1) + w];

		total += c;
		if ((double)w <= u)
			cle += c;
		if ((double)w >= u)
			cge += c;
	}
	*le = cle / total;
	*ge = cge / total;
	free(f);
}

void
tc_mann_whitney(const double *base, size_t nb, const double *cand, size_t nc,
    tc_mwu *out)
{
	size_t n = nb + nc, i, j;
	tagged *t;
	double r1 = 0, ties = 0, mu, sigma2, z;
	bool any_ties = false;

	out->u = 0;
	out->p_value = 1.0;
	out->method = "normal";
	if (nb == 0 || nc == 0)
		return;
	t = tc_xmalloc(n * sizeof(*t));
	for (i = 0; i < nb; i++)
		t[i] = (tagged){ base[i], 0 };
	for (i = 0; i < nc; i++)
		t[nb + i] = (tagged){ cand[i], 1 };
	qsort(t, n, sizeof(*t), cmp_tagged);
	for (i = 0; i < n; i = j) {
		double rank, cnt;
		size_t k;

		for (j = i + 1; j < n && t[j].v == t[i].v; j++)
			;
		cnt = (double)(j - i);
		rank = ((double)i + 1 + (double)j) / 2;	/* average rank */
		if (j - i > 1) {
			any_ties = true;
			ties += cnt * cnt * cnt - cnt;
		}
		for (k = i; k < j; k++)
			if (t[k].group == 0)
				r1 += rank;
	}
	free(t);
	out->u = r1 - (double)nb * ((double)nb + 1) / 2;
	if (!any_ties && nb * nc <= TC_MWU_EXACT_MAX_PAIRS) {
		double le, ge, p;

		exact_tails(nb, nc, out->u, &le, &ge);
		p = 2 * (le < ge ? le : ge);
		out->p_value = p > 1 ? 1 : p;
		out->method = "exact";
		return;
	}
	mu = (double)nb * (double)nc / 2;
	sigma2 = (double)nb * (double)nc / 12 *
	    (((double)n + 1) - ties / ((double)n * ((double)n - 1)));
	if (sigma2 <= 0) {
		out->p_value = 1.0;
		return;
	}
	z = (fabs(out->u - mu) - 0.5) / sqrt(sigma2);
	if (z <= 0) {
		out->p_value = 1.0;
		return;
	}
	out->p_value = erfc(z / sqrt(2.0));
	if (out->p_value > 1)
		out->p_value = 1;
}
