/*
 * stats.c - Python's statistics.mean / median / pstdev on binary64 input,
 * bit for bit, the reference's quantile, and the Stats block.
 *
 * mean and pstdev are exact: each double is m * 2^e with integer m, so
 * sums of x and x^2 are accumulated exactly in fixed-point limb arrays
 * (offsets from the smallest subnormal exponent) and converted to GMP
 * integers once, then rounded a single time (decimal.c's correct
 * rounding).  Order statistics use selection on one copy, not a sort.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <gmp.h>

#include "tunectl/buf.h"
#include "tunectl/decimal.h"
#include "tunectl/stats.h"
#include "stats_acc.h"

/* ---- exact accumulation ------------------------------------------------- */

__extension__ typedef unsigned __int128 u128;

static void
limbs_add(uint64_t *l, size_t nlimbs, size_t idx, uint64_t v)
{
	while (v != 0 && idx < nlimbs) {
		uint64_t old = l[idx];

		l[idx] = old + v;
		v = l[idx] < old;	/* carry */
		idx++;
	}
}

void
tc_acc_init(tc_acc *a)
{
	memset(a, 0, sizeof(*a));
	a->cur_ex = -1;
}

static void
add_u128(uint64_t *l, size_t nlimbs, u128 v, unsigned off)
{
	/* v < 2^127; shifted by off % 64 it spans at most three limbs */
	uint64_t hi = (uint64_t)(v >> 64), lo = (uint64_t)v;
	size_t idx = off / 64;
	unsigned bit = off % 64;

	if (bit == 0) {
		limbs_add(l, nlimbs, idx, lo);
		limbs_add(l, nlimbs, idx + 1, hi);
	} else {
		limbs_add(l, nlimbs, idx, lo << bit);
		limbs_add(l, nlimbs, idx + 1, (lo >> (64 - bit)) | (hi << bit));
		limbs_add(l, nlimbs, idx + 2, hi >> (64 - bit));
	}
}

void
tc_acc_flush(tc_acc *a)
{
	unsigned off;

	if (a->cur_ex < 0)
		return;
	/* x = m * 2^(max(ex, 1) - 1075): offset from 2^-1074 */
	off = (unsigned)(a->cur_ex != 0 ? a->cur_ex : 1) - 1;
	add_u128(a->pos, TC_ACC_SUM_LIMBS, a->cur_pos, off);
	add_u128(a->neg, TC_ACC_SUM_LIMBS, a->cur_neg, off);
	add_u128(a->sq, TC_ACC_SQ_LIMBS, a->cur_sq, 2 * off);
	a->cur_pos = a->cur_neg = a->cur_sq = 0;
	a->cur_n = 0;
	a->cur_ex = -1;
}

void
tc_acc_add(tc_acc *a, double x)
{
	uint64_t bits, m;
	int ex;

	memcpy(&bits, &x, sizeof(bits));
	ex = (int)((bits >> 52) & 0x7ff);
	m = bits & ((UINT64_C(1) << 52) - 1);
	if (ex != 0)
		m |= UINT64_C(1) << 52;
	a->count++;
	if (ex != a->cur_ex || a->cur_n >= (UINT32_C(1) << 20)) {
		tc_acc_flush(a);
		a->cur_ex = ex;
	}
	a->cur_n++;
	if (bits >> 63)
		a->cur_neg += m;
	else
		a->cur_pos += m;
	a->cur_sq += (u128)m * m;
}

void
tc_acc_merge(tc_acc *dst, const tc_acc *src_in)
{
	tc_acc copy;
	const tc_acc *src = src_in;
	size_t i;

	if (src_in->cur_ex >= 0) {
		copy = *src_in;
		tc_acc_flush(&copy);
		src = &copy;
	}
	tc_acc_flush(dst);
	dst->count += src->count;
	for (i = 0; i < TC_ACC_SUM_LIMBS; i++) {
		limbs_add(dst->pos, TC_ACC_SUM_LIMBS, i, src->pos[i]);
		limbs_add(dst->neg, TC_ACC_SUM_LIMBS, i, src->neg[i]);
	}
	for (i = 0; i < TC_ACC_SQ_LIMBS; i++)
		limbs_add(dst->sq, TC_ACC_SQ_LIMBS, i, src->sq[i]);
}

static void
limbs_to_mpz(mpz_t z, const uint64_t *l, size_t n)
{
	while (n > 0 && l[n - 1] == 0)
		n--;
	mpz_import(z, n, -1, sizeof(uint64_t), 0, 0, l);
}

/* Sum as a signed integer S with sum = S * 2^-1074. */
static void
acc_sum(const tc_acc *a, mpz_t s)
{
	mpz_t t;

	mpz_init(t);
	limbs_to_mpz(s, a->pos, TC_ACC_SUM_LIMBS);
	limbs_to_mpz(t, a->neg, TC_ACC_SUM_LIMBS);
	mpz_sub(s, s, t);
	mpz_clear(t);
}

/* a with nothing pending (a copy when needed). */
static const tc_acc *
flushed(const tc_acc *a, tc_acc *copy)
{
	if (a->cur_ex < 0)
		return a;
	*copy = *a;
	tc_acc_flush(copy);
	return copy;
}

double
tc_acc_mean(const tc_acc *a_in)
{
	tc_acc copy;
	const tc_acc *a = flushed(a_in, &copy);
	mpz_t s, n;
	double v;
	int neg;

	if (a->count == 0)
		return NAN;
	mpz_inits(s, n, NULL);
	acc_sum(a, s);
	neg = mpz_sgn(s) < 0;
	mpz_abs(s, s);
	mpz_set_ui(n, a->count);
	v = tc_mpz_ratio_to_double(s, n, -1074);
	mpz_clears(s, n, NULL);
	return neg ? -v : v;
}

double
tc_acc_pstdev(const tc_acc *a_in)
{
	tc_acc copy;
	const tc_acc *a = flushed(a_in, &copy);
	mpz_t s, q, n2, num;
	double v;

	if (a->count == 0)
		return NAN;
	mpz_inits(s, q, n2, num, NULL);
	acc_sum(a, s);
	limbs_to_mpz(q, a->sq, TC_ACC_SQ_LIMBS);
	/* var = (n*Q - S^2) / n^2 * 2^-2148 */
	mpz_mul_ui(num, q, a->count);
	mpz_mul(s, s, s);
	mpz_sub(num, num, s);
	mpz_set_ui(n2, a->count);
	mpz_mul(n2, n2, n2);
	v = tc_mpz_ratio_sqrt_to_double(num, n2, -2148);
	mpz_clears(s, q, n2, num, NULL);
	return v;
}

/* ---- order statistics --------------------------------------------------- */

static void
swapd(double *a, double *b)
{
	double t = *a;

	*a = *b;
	*b = t;
}

/* Rearrange v[lo..hi] so v[k] is the k-th smallest, smaller left. */
static void
select_kth(double *v, size_t lo, size_t hi, size_t k)
{
	while (hi > lo) {
		size_t mid = lo + (hi - lo) / 2, i, j;
		double pivot;

		/* median of three into v[lo] */
		if (v[mid] < v[lo])
			swapd(&v[mid], &v[lo]);
		if (v[hi] < v[lo])
			swapd(&v[hi], &v[lo]);
		if (v[hi] < v[mid])
			swapd(&v[hi], &v[mid]);
		pivot = v[mid];
		i = lo;
		j = hi;
		while (i <= j) {
			while (v[i] < pivot)
				i++;
			while (v[j] > pivot)
				j--;
			if (i <= j) {
				swapd(&v[i], &v[j]);
				i++;
				if (j == 0)
					break;
				j--;
			}
		}
		if (k <= j)
			hi = j;
		else if (k >= i)
			lo = i;
		else
			return;
	}
}

static double
min_of(const double *v, size_t lo, size_t hi)	/* [lo, hi) nonempty */
{
	double m = v[lo];

	for (size_t i = lo + 1; i < hi; i++)
		if (v[i] < m)
			m = v[i];
	return m;
}

static double
max_of(const double *v, size_t lo, size_t hi)
{
	double m = v[lo];

	for (size_t i = lo + 1; i < hi; i++)
		if (v[i] > m)
			m = v[i];
	return m;
}

/* Median and q(0.9) from one scratch copy. */
static void
order_stats(double *w, size_t n, double *median, double *p90)
{
	size_t k = n / 2, lo, hi;
	double pos, frac, a, b, vlo, vhi;

	if (n == 1) {
		*median = *p90 = w[0];
		return;
	}
	select_kth(w, 0, n - 1, k);
	if (n % 2 == 1) {
		*median = w[k];
	} else {
		a = max_of(w, 0, k);
		b = w[k];
		*median = (a + b) / 2;
	}
	pos = (double)(n - 1) * 0.9;
	lo = (size_t)floor(pos);
	hi = lo + 1 < n - 1 ? lo + 1 : n - 1;
	frac = pos - (double)lo;
	if (lo > k)
		select_kth(w, k + 1, n - 1, lo);
	else if (lo < k)
		select_kth(w, 0, k - 1, lo);
	vlo = w[lo];
	vhi = hi == lo ? vlo : min_of(w, lo + 1, n);
	*p90 = vlo + (vhi - vlo) * frac;
}

/*
 * Order statistics of a large array without copying or sorting it: one
 * pass for the key range, one for a 65536-bucket histogram on the 16 bits
 * below the highest bit in which the keys differ, then selection inside
 * the (small) buckets that hold the wanted ranks.  Keys map doubles to
 * unsigned integers in numeric order.
 */
#define RADIX_MIN 65536
#define RADIX_BUCKETS 65536

static uint64_t
order_key(double d)
{
	uint64_t u;

	memcpy(&u, &d, sizeof(u));
	return (u >> 63) ? ~u : (u | (UINT64_C(1) << 63));
}

static void
radix_order_stats(const double *v, size_t n, double *median, double *p90)
{
	uint64_t kmin = UINT64_MAX, kmax = 0, diff;
	unsigned shift = 0;
	size_t *start, k = n / 2, lo, hi, want[4], nw = 0;
	double got[4], pos, frac, *bucket = NULL;
	long cur = -1;
	size_t cur_n = 0;

	for (size_t i = 0; i < n; i++) {
		uint64_t key = order_key(v[i]);

		if (key < kmin)
			kmin = key;
		if (key > kmax)
			kmax = key;
	}
	pos = (double)(n - 1) * 0.9;
	lo = (size_t)floor(pos);
	hi = lo + 1 < n - 1 ? lo + 1 : n - 1;
	frac = pos - (double)lo;
	if (kmin == kmax) {
		*median = v[0];
		*p90 = v[0] + (v[0] - v[0]) * frac;
		return;
	}
	diff = kmin ^ kmax;
	{
		unsigned top = 63 - (unsigned)__builtin_clzll(diff);

		shift = top >= 15 ? top - 15 : 0;
	}
	start = tc_xcalloc(RADIX_BUCKETS + 1, sizeof(*start));
	for (size_t i = 0; i < n; i++)
		start[((order_key(v[i]) >> shift) & (RADIX_BUCKETS - 1)) + 1]++;
	for (size_t b = 1; b <= RADIX_BUCKETS; b++)
		start[b] += start[b - 1];	/* start[b]: ranks before bucket b */
	if (n % 2 == 0)
		want[nw++] = k - 1;
	want[nw++] = k;
	want[nw++] = lo;
	want[nw++] = hi;
	for (size_t w = 0; w < nw; w++) {
		size_t t = want[w], b = 0, a = 0, z = RADIX_BUCKETS;

		/* the bucket b with start[b] <= t < start[b + 1] */
		while (a < z) {
			size_t mid = a + (z - a) / 2;

			if (start[mid + 1] <= t)
				a = mid + 1;
			else
				z = mid;
		}
		b = a;
		if ((long)b != cur) {
			size_t m = 0;

			cur_n = start[b + 1] - start[b];
			bucket = tc_xrealloc(bucket, cur_n * sizeof(*bucket));
			for (size_t i = 0; i < n; i++)
				if (((order_key(v[i]) >> shift) &
				    (RADIX_BUCKETS - 1)) == b)
					bucket[m++] = v[i];
			cur = (long)b;
		}
		select_kth(bucket, 0, cur_n - 1, t - start[b]);
		got[w] = bucket[t - start[b]];
	}
	free(bucket);
	free(start);
	if (n % 2 == 0) {
		*median = (got[0] + got[1]) / 2;
		*p90 = got[2] + (got[3] - got[2]) * frac;
	} else {
		*median = got[0];
		*p90 = got[1] + (got[2] - got[1]) * frac;
	}
}

/* An accumulator that has seen v[0..n-1]. */
static void
acc_of(tc_acc *a, const double *v, size_t n)
{
	tc_acc_init(a);
	for (size_t i = 0; i < n; i++)
		tc_acc_add(a, v[i]);
}

double
tc_stat_mean(const double *v, size_t n)
{
	tc_acc a;

	acc_of(&a, v, n);
	return tc_acc_mean(&a);
}

double
tc_stat_pstdev(const double *v, size_t n)
{
	tc_acc a;

	acc_of(&a, v, n);
	return tc_acc_pstdev(&a);
}

static double *
scratch_copy(const double *v, size_t n)
{
	double *w = tc_xmalloc(n * sizeof(*w));

	memcpy(w, v, n * sizeof(*w));
	return w;
}

double
tc_stat_median(const double *v, size_t n)
{
	double *w = scratch_copy(v, n), m;
	size_t k = n / 2;

	select_kth(w, 0, n - 1, k);
	m = n % 2 == 1 ? w[k] : (max_of(w, 0, k) + w[k]) / 2;
	free(w);
	return m;
}

double
tc_stat_quantile(const double *v, size_t n, double p)
{
	double *w, pos, frac, vlo, vhi;
	size_t lo, hi;

	if (n == 1)
		return v[0];
	w = scratch_copy(v, n);
	pos = (double)(n - 1) * p;
	lo = (size_t)floor(pos);
	hi = lo + 1 < n - 1 ? lo + 1 : n - 1;
	frac = pos - (double)lo;
	select_kth(w, 0, n - 1, lo);
	vlo = w[lo];
	vhi = hi == lo ? vlo : min_of(w, lo + 1, n);
	free(w);
	return vlo + (vhi - vlo) * frac;
}

double
tc_stat_min(const double *v, size_t n)
{
	return min_of(v, 0, n);
}

double
tc_stat_max(const double *v, size_t n)
{
	return max_of(v, 0, n);
}

void
tc_stats_from_acc(const tc_acc *a, const double *v, size_t n, double *scratch,
    tc_stats *out)
{
	double *w;

	out->count = n;
	out->mean_ms = tc_acc_mean(a);
	out->stddev_ms = tc_acc_pstdev(a);
	out->min_ms = min_of(v, 0, n);
	out->max_ms = max_of(v, 0, n);
	if (n >= RADIX_MIN) {
		radix_order_stats(v, n, &out->p50_ms, &out->p90_ms);
		return;
	}
	w = scratch != NULL ? scratch : scratch_copy(v, n);
	if (scratch != NULL)
		memcpy(w, v, n * sizeof(*w));
	order_stats(w, n, &out->p50_ms, &out->p90_ms);
	if (scratch == NULL)
		free(w);
}

void
tc_stats_compute(const double *v, size_t n, tc_stats *out)
{
	tc_acc a;

	tc_acc_init(&a);
	for (size_t i = 0; i < n; i++)
		tc_acc_add(&a, v[i]);
	tc_stats_from_acc(&a, v, n, NULL, out);
}
