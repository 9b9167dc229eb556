/*
 * decimal.c - Python's decimal arithmetic in the default context (28
 * digits, ROUND_HALF_EVEN) for finite numbers, and correct rounding of
 * exact binary quantities to binary64.  See include/tunectl/decimal.h.
 */
#include <float.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "tunectl/decimal.h"
#include "tunectl/json.h"

/* Any string of this many decimal digits fits in an unsigned long. */
#if ULONG_MAX >= 0xffffffffffffffff
#define ULONG_DIGITS 19
#else
#define ULONG_DIGITS 9
#endif

void
tc_dec_init(tc_dec *d)
{
	d->sign = 0;
	mpz_init(d->coef);
	d->exp = 0;
}

void
tc_dec_clear(tc_dec *d)
{
	mpz_clear(d->coef);
}

void
tc_dec_set(tc_dec *dst, const tc_dec *src)
{
	if (dst == src)
		return;
	dst->sign = src->sign;
	mpz_set(dst->coef, src->coef);
	dst->exp = src->exp;
}

void
tc_dec_set_long(tc_dec *d, long v)
{
	d->sign = v < 0;
	mpz_set_si(d->coef, v);
	mpz_abs(d->coef, d->coef);
	d->exp = 0;
}

bool
tc_dec_is_zero(const tc_dec *d)
{
	return mpz_sgn(d->coef) == 0;
}

/* Decimal digits of v (1 for zero). */
static size_t
ndigits_ul(unsigned long v)
{
	size_t n = 1;

	while (v >= 10) {
		v /= 10;
		n++;
	}
	return n;
}

/* Exact number of decimal digits (1 for zero). */
static size_t
ndigits(const mpz_t z)
{
	size_t n;
	mpz_t p;

	if (mpz_fits_ulong_p(z))
		return ndigits_ul(mpz_get_ui(z));
	n = mpz_sizeinbase(z, 10);
	if (n <= 1)
		return 1;
	/* sizeinbase may be one too large. */
	mpz_init(p);
	mpz_ui_pow_ui(p, 10, n - 1);
	if (mpz_cmpabs(z, p) < 0)
		n--;
	mpz_clear(p);
	return n;
}

/* The digits of a parsed number: the integer part, then the fraction. */
static void
set_coef(mpz_t coef, const char *ip, size_t ni, const char *fp, size_t nf)
{
	char *digits;

	if (ni + nf <= ULONG_DIGITS) {
		unsigned long v = 0;
		size_t k;

		for (k = 0; k < ni; k++)
			v = v * 10 + (unsigned long)(ip[k] - '0');
		for (k = 0; k < nf; k++)
			v = v * 10 + (unsigned long)(fp[k] - '0');
		mpz_set_ui(coef, v);
		return;
	}
	digits = malloc(ni + nf + 1);
	if (digits == NULL)
		abort();
	memcpy(digits, ip, ni);
	if (nf > 0)
		memcpy(digits + ni, fp, nf);
	digits[ni + nf] = '\0';
	mpz_set_str(coef, digits, 10);
	free(digits);
}

bool
tc_dec_parse(tc_dec *d, const char *s, size_t len)
{
	const char *p = s, *end = s + len, *ip, *fp = NULL;
	int sign = 0;
	long exp = 0;
	size_t ni, nf = 0;

	if (p < end && (*p == '+' || *p == '-'))
		sign = *p++ == '-';
	ip = p;
	while (p < end && *p >= '0' && *p <= '9')
		p++;
	ni = (size_t)(p - ip);
	if (p < end && *p == '.') {
		fp = ++p;
		while (p < end && *p >= '0' && *p <= '9')
			p++;
		nf = (size_t)(p - fp);
	}
	if (ni + nf == 0)
		return false;
	if (p < end && (*p == 'e' || *p == 'E')) {
		int esign = 0;
		long e = 0;
		bool any = false;

		p++;
		if (p < end && (*p == '+' || *p == '-'))
			esign = *p++ == '-';
		while (p < end && *p >= '0' && *p <= '9') {
			if (e > (LONG_MAX / 4) / 10)
				return false;
			e = e * 10 + (*p++ - '0');
			any = true;
		}
		if (!any)
			return false;
		exp = esign ? -e : e;
	}
	if (p != end)
		return false;
	set_coef(d->coef, ip, ni, fp, nf);
	d->sign = sign;
	d->exp = exp - (long)nf;
	return true;
}

bool
tc_dec_from_double_repr(tc_dec *d, double x)
{
	tc_buf b = TC_BUF_INIT;
	bool ok;

	if (!isfinite(x))
		return false;
	tc_json_format_double(&b, x);
	ok = tc_dec_parse(d, tc_buf_cstr(&b), b.len);
	tc_buf_free(&b);
	return ok;
}

void
tc_dec_round_context(tc_dec *d)
{
	size_t nd = ndigits(d->coef);
	size_t drop;
	mpz_t q, r, pw;
	int c;

	if (nd <= TC_DEC_PREC)
		return;
	drop = nd - TC_DEC_PREC;
	mpz_inits(q, r, pw, NULL);
	mpz_ui_pow_ui(pw, 10, drop);
	mpz_tdiv_qr(q, r, d->coef, pw);
	/* compare 2r with 10^drop */
	mpz_mul_2exp(r, r, 1);
	c = mpz_cmp(r, pw);
	if (c > 0 || (c == 0 && mpz_odd_p(q)))
		mpz_add_ui(q, q, 1);
	d->exp += (long)drop;
	if (ndigits(q) > TC_DEC_PREC) {
		mpz_tdiv_q_ui(q, q, 10);
		d->exp++;
	}
	mpz_swap(d->coef, q);
	mpz_clears(q, r, pw, NULL);
}

/* coef * 10^shift into out */
static void
scale10(mpz_t out, const mpz_t coef, long shift)
{
	mpz_t pw;

	if (shift == 0) {
		mpz_set(out, coef);
		return;
	}
	mpz_init(pw);
	mpz_ui_pow_ui(pw, 10, (unsigned long)shift);
	mpz_mul(out, coef, pw);
	mpz_clear(pw);
}

/* *v * 10^shift (shift >= 0) when that fits in an unsigned long. */
static bool
scale10_ul(unsigned long *v, long shift)
{
	if (*v == 0)
		return true;
	for (; shift > 0; shift--) {
		if (*v > ULONG_MAX / 10)
			return false;
		*v *= 10;
	}
	return true;
}

/* The sign of an exact sum that is zero: Python gives -0 only when both
 * operands are zeros and both negative (half-even rounding). */
static int
zero_sum_sign(const tc_dec *a, const tc_dec *b, int bsign)
{
	return mpz_sgn(a->coef) == 0 && mpz_sgn(b->coef) == 0 ?
	    (a->sign && bsign) : 0;
}

/*
 * add_signed in unsigned longs when both operands, scaled to the common
 * exponent, and their sum fit in one (the sum then has at most 20
 * digits, under the 28 of the context).  False, r untouched, otherwise.
 */
static bool
add_small(tc_dec *r, const tc_dec *a, const tc_dec *b, int bsign)
{
	long e = a->exp < b->exp ? a->exp : b->exp;
	unsigned long x, y, sum;
	int rsign;

	if (!mpz_fits_ulong_p(a->coef) || !mpz_fits_ulong_p(b->coef))
		return false;
	x = mpz_get_ui(a->coef);
	y = mpz_get_ui(b->coef);
	if (!scale10_ul(&x, a->exp - e) || !scale10_ul(&y, b->exp - e))
		return false;
	if (a->sign == bsign) {
		if (x > ULONG_MAX - y)
			return false;
		sum = x + y;
		rsign = a->sign;
	} else if (x >= y) {
		sum = x - y;
		rsign = a->sign;
	} else {
		sum = y - x;
		rsign = bsign;
	}
	if (sum == 0)
		rsign = zero_sum_sign(a, b, bsign);
	mpz_set_ui(r->coef, sum);
	r->sign = rsign;
	r->exp = e;
	return true;
}

/* a + (negate_b ? -b : b), rounded. */
static void
add_signed(tc_dec *r, const tc_dec *a, const tc_dec *b, bool negate_b)
{
	int bsign = negate_b ? !b->sign : b->sign;
	long e = a->exp < b->exp ? a->exp : b->exp;
	mpz_t x, y;
	int rsign;

	if (add_small(r, a, b, bsign))
		return;
	mpz_inits(x, y, NULL);
	scale10(x, a->coef, a->exp - e);
	scale10(y, b->coef, b->exp - e);
	if (a->sign)
		mpz_neg(x, x);
	if (bsign)
		mpz_neg(y, y);
	mpz_add(x, x, y);
	if (mpz_sgn(x) == 0)
		rsign = zero_sum_sign(a, b, bsign);
	else
		rsign = mpz_sgn(x) < 0;
	mpz_abs(x, x);
	mpz_swap(r->coef, x);
	r->sign = rsign;
	r->exp = e;
	mpz_clears(x, y, NULL);
	tc_dec_round_context(r);
}

void
tc_dec_add(tc_dec *r, const tc_dec *a, const tc_dec *b)
{
	add_signed(r, a, b, false);
}

void
tc_dec_sub(tc_dec *r, const tc_dec *a, const tc_dec *b)
{
	add_signed(r, a, b, true);
}

void
tc_dec_mul(tc_dec *r, const tc_dec *a, const tc_dec *b)
{
	r->sign = a->sign ^ b->sign;
	mpz_mul(r->coef, a->coef, b->coef);
	r->exp = a->exp + b->exp;
	tc_dec_round_context(r);
}

/* Python's Decimal.__truediv__ for finite, nonzero-divisor operands. */
bool
tc_dec_div(tc_dec *r, const tc_dec *a, const tc_dec *b)
{
	int sign;
	long exp;
	mpz_t coeff, rem, pw, t;

	if (mpz_sgn(b->coef) == 0)
		return false;
	sign = a->sign ^ b->sign;
	mpz_inits(coeff, rem, pw, t, NULL);
	if (mpz_sgn(a->coef) == 0) {
		exp = a->exp - b->exp;
	} else {
		long shift = (long)ndigits(b->coef) - (long)ndigits(a->coef) +
		    TC_DEC_PREC + 1;

		exp = a->exp - b->exp - shift;
		if (shift >= 0) {
			mpz_ui_pow_ui(pw, 10, (unsigned long)shift);
			mpz_mul(t, a->coef, pw);
			mpz_tdiv_qr(coeff, rem, t, b->coef);
		} else {
			mpz_ui_pow_ui(pw, 10, (unsigned long)-shift);
			mpz_mul(t, b->coef, pw);
			mpz_tdiv_qr(coeff, rem, a->coef, t);
		}
		if (mpz_sgn(rem) != 0) {
			/* inexact: make the last digit non-0/5 as a sticky bit */
			if (mpz_divisible_ui_p(coeff, 5))
				mpz_add_ui(coeff, coeff, 1);
		} else {
			long ideal = a->exp - b->exp;

			while (exp < ideal && mpz_divisible_ui_p(coeff, 10)) {
				mpz_divexact_ui(coeff, coeff, 10);
				exp++;
			}
		}
	}
	mpz_swap(r->coef, coeff);
	r->sign = sign;
	r->exp = exp;
	mpz_clears(coeff, rem, pw, t, NULL);
	tc_dec_round_context(r);
	return true;
}

/*
 * |a| against |b| (both non-zero) without GMP arithmetic when both
 * coefficients have at most ULONG_DIGITS digits: at equal adjusted
 * exponents the coefficient with fewer digits, scaled up to the other's
 * digit count, still fits.  False when the coefficients are larger.
 */
static bool
cmp_small(const tc_dec *a, const tc_dec *b, int *c)
{
	unsigned long x, y;
	size_t nx, ny;
	long adjx, adjy;

	if (!mpz_fits_ulong_p(a->coef) || !mpz_fits_ulong_p(b->coef))
		return false;
	x = mpz_get_ui(a->coef);
	y = mpz_get_ui(b->coef);
	nx = ndigits_ul(x);
	ny = ndigits_ul(y);
	if (nx > ULONG_DIGITS || ny > ULONG_DIGITS)
		return false;
	adjx = (long)nx + a->exp;
	adjy = (long)ny + b->exp;
	if (adjx != adjy) {
		*c = adjx > adjy ? 1 : -1;
		return true;
	}
	for (; nx < ny; nx++)
		x *= 10;
	for (; ny < nx; ny++)
		y *= 10;
	*c = x > y ? 1 : x < y ? -1 : 0;
	return true;
}

int
tc_dec_cmp(const tc_dec *a, const tc_dec *b)
{
	bool az = mpz_sgn(a->coef) == 0, bz = mpz_sgn(b->coef) == 0;
	long e;
	mpz_t x, y;
	int c;

	if (az && bz)
		return 0;
	if (az)
		return b->sign ? 1 : -1;
	if (bz)
		return a->sign ? -1 : 1;
	if (a->sign != b->sign)
		return a->sign ? -1 : 1;
	if (cmp_small(a, b, &c))
		return a->sign ? -c : c;
	e = a->exp < b->exp ? a->exp : b->exp;
	mpz_inits(x, y, NULL);
	/* avoid huge scalings when the magnitudes obviously differ */
	{
		long adja = (long)ndigits(a->coef) + a->exp;
		long adjb = (long)ndigits(b->coef) + b->exp;

		if (adja != adjb) {
			c = adja > adjb ? 1 : -1;
			mpz_clears(x, y, NULL);
			return a->sign ? -c : c;
		}
	}
	scale10(x, a->coef, a->exp - e);
	scale10(y, b->coef, b->exp - e);
	c = mpz_cmp(x, y);
	c = c > 0 ? 1 : c < 0 ? -1 : 0;
	mpz_clears(x, y, NULL);
	return a->sign ? -c : c;
}

void
tc_dec_str(tc_buf *out, const tc_dec *d)
{
	char small[32], *digits;
	bool heap = false;
	long nd, leftdigits, dotplace;

	/* a coefficient of a few words is written on the stack */
	if (mpz_fits_ulong_p(d->coef)) {
		unsigned long v = mpz_get_ui(d->coef);

		digits = small + sizeof(small) - 1;
		*digits = '\0';
		do {
			*--digits = (char)('0' + v % 10);
			v /= 10;
		} while (v != 0);
	} else {
		heap = mpz_sizeinbase(d->coef, 10) + 2 > sizeof(small);
		digits = mpz_get_str(heap ? NULL : small, 10, d->coef);
	}
	nd = (long)strlen(digits);
	leftdigits = d->exp + nd;

	if (d->sign)
		tc_buf_putc(out, '-');
	if (d->exp <= 0 && leftdigits > -6)
		dotplace = leftdigits;
	else
		dotplace = 1;
	if (dotplace <= 0) {
		tc_buf_puts(out, "0.");
		for (long i = 0; i < -dotplace; i++)
			tc_buf_putc(out, '0');
		tc_buf_puts(out, digits);
	} else if (dotplace >= nd) {
		tc_buf_puts(out, digits);
		for (long i = 0; i < dotplace - nd; i++)
			tc_buf_putc(out, '0');
	} else {
		tc_buf_add(out, digits, (size_t)dotplace);
		tc_buf_putc(out, '.');
		tc_buf_puts(out, digits + dotplace);
	}
	if (leftdigits != dotplace)
		tc_buf_printf(out, "E%+ld", leftdigits - dotplace);
	if (heap)
		free(digits);
}

char *
tc_dec_to_string(const tc_dec *d)
{
	tc_buf b = TC_BUF_INIT;

	tc_dec_str(&b, d);
	return tc_buf_detach(&b, NULL);
}

/*
 * float(Decimal) for a coefficient below 2^53 and an exponent within
 * +-22: both the coefficient and 10^|exp| are exact doubles, so one
 * IEEE multiplication or division (round to nearest even, evaluated in
 * double) is the correctly rounded result.  False when out of range.
 */
static bool
to_double_exact(const tc_dec *d, double *v)
{
#if FLT_EVAL_METHOD == 0 && FLT_RADIX == 2 && DBL_MANT_DIG == 53
	static const double p10[23] = {
		1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10,
		1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20,
		1e21, 1e22
	};
	double c;

	if (d->exp < -22 || d->exp > 22 || !mpz_fits_ulong_p(d->coef) ||
	    mpz_sizeinbase(d->coef, 2) > 53)
		return false;
	c = (double)mpz_get_ui(d->coef);
	*v = d->exp >= 0 ? c * p10[d->exp] : c / p10[-d->exp];
	return true;
#else
	(void)d;
	(void)v;
	return false;
#endif
}

double
tc_dec_to_double(const tc_dec *d)
{
	double v;
	mpz_t num, den;

	if (mpz_sgn(d->coef) == 0)
		return d->sign ? -0.0 : 0.0;
	if (to_double_exact(d, &v))
		return d->sign ? -v : v;
	/* Far outside binary64: decide without building huge powers. */
	{
		long adj = (long)ndigits(d->coef) + d->exp;

		if (adj > 400)
			return d->sign ? -HUGE_VAL : HUGE_VAL;
		if (adj < -400)
			return d->sign ? -0.0 : 0.0;
	}
	mpz_inits(num, den, NULL);
	if (d->exp >= 0) {
		scale10(num, d->coef, d->exp);
		mpz_set_ui(den, 1);
	} else {
		mpz_set(num, d->coef);
		mpz_ui_pow_ui(den, 10, (unsigned long)-d->exp);
	}
	v = tc_mpz_ratio_to_double(num, den, 0);
	mpz_clears(num, den, NULL);
	return d->sign ? -v : v;
}

/* ---- correct rounding to binary64 --------------------------------------- */

/*
 * The nearest double to (R + f) * 2^E where 0 <= f < 1 and f > 0 exactly
 * when sticky.  R must have at least 55 bits (two beyond the 53 kept), so
 * the guard bit and the sticky information are both in hand.
 */
static double
round_to_double(const mpz_t R, bool sticky, long E)
{
	long bits = (long)mpz_sizeinbase(R, 2);
	long top = bits - 1 + E;	/* exponent of the leading bit */
	long drop, scale;
	bool half, lower, up;
	mpz_t m;
	double v;

	if (mpz_sgn(R) == 0)
		return 0.0;
	if (top >= 1024)
		return HUGE_VAL;
	if (top < -1076)
		return 0.0;
	drop = bits - 53;
	if (-1074 - E > drop)
		drop = -1074 - E;	/* subnormal: fewer bits kept */
	mpz_init(m);
	mpz_tdiv_q_2exp(m, R, (mp_bitcnt_t)drop);
	half = mpz_tstbit(R, (mp_bitcnt_t)(drop - 1));
	lower = sticky || (drop >= 2 &&
	    mpz_scan1(R, 0) < (mp_bitcnt_t)(drop - 1));
	up = half && (lower || mpz_odd_p(m));
	if (up)
		mpz_add_ui(m, m, 1);
	scale = E + drop;
	v = ldexp(mpz_get_d(m), (int)scale);
	mpz_clear(m);
	return v;
}

double
tc_mpz_ratio_to_double(const mpz_t num, const mpz_t den, long exp2)
{
	long nb, db, s;
	mpz_t n, d, q, r;
	double v;

	if (mpz_sgn(num) == 0)
		return 0.0;
	nb = (long)mpz_sizeinbase(num, 2);
	db = (long)mpz_sizeinbase(den, 2);
	s = 56 + db - nb;
	mpz_inits(n, d, q, r, NULL);
	if (s >= 0) {
		mpz_mul_2exp(n, num, (mp_bitcnt_t)s);
		mpz_set(d, den);
	} else {
		mpz_set(n, num);
		mpz_mul_2exp(d, den, (mp_bitcnt_t)-s);
	}
	mpz_tdiv_qr(q, r, n, d);
	v = round_to_double(q, mpz_sgn(r) != 0, exp2 - s);
	mpz_clears(n, d, q, r, NULL);
	return v;
}

double
tc_mpz_ratio_sqrt_to_double(const mpz_t num, const mpz_t den, long exp2)
{
	long nb, db, s;
	mpz_t n, d, q, r, root, rem;
	bool sticky;
	double v;

	if (mpz_sgn(num) == 0)
		return 0.0;
	mpz_inits(n, d, q, r, root, rem, NULL);
	mpz_set(n, num);
	mpz_set(d, den);
	if (exp2 % 2 != 0) {		/* make the exponent even */
		mpz_mul_2exp(n, n, 1);
		exp2--;
	}
	nb = (long)mpz_sizeinbase(n, 2);
	db = (long)mpz_sizeinbase(d, 2);
	/* want floor(sqrt(n * 4^s / d)) to have >= 56 bits */
	s = (114 - nb + db) / 2 + 1;
	if (s >= 0)
		mpz_mul_2exp(n, n, (mp_bitcnt_t)(2 * s));
	else
		mpz_mul_2exp(d, d, (mp_bitcnt_t)(-2 * s));
	mpz_tdiv_qr(q, r, n, d);
	mpz_sqrtrem(root, rem, q);
	sticky = mpz_sgn(r) != 0 || mpz_sgn(rem) != 0;
	v = round_to_double(root, sticky, exp2 / 2 - s);
	mpz_clears(n, d, q, r, root, rem, NULL);
	return v;
}
