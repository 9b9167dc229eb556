/*
 * float_repr.c - binary64 <-> decimal text, the way Python does it.
 *
 * Output is Python's repr(float): the shortest digit string that reads
 * back as the same double, the closest such string when several have the
 * shortest length (ties to an even last digit), in fixed notation when
 * the decimal exponent is in [-4, 16) and in exponent notation otherwise
 * ("1e-05", "1.5e+16").  The digits come from an exact "round to odd"
 * scaling by a 128-bit power of ten (Giulietti's Schubfach method): the
 * rounding interval of the double is scaled to a width of 1..10 units, so
 * the only candidates are one point of the coarser decimal grid or the
 * two neighbours on the finer one.
 *
 * Input (JSON numbers with a fraction or exponent) is correctly rounded:
 * a fast path for short mantissas where one IEEE multiplication or
 * division is exact (Clinger), the Eisel-Lemire 128-bit product for up to
 * 19 significant digits, and strtod_l() in the C locale for the rest.
 */
#include <locale.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "json_internal.h"

__extension__ typedef unsigned __int128 u128;

/* ---- shared helpers ---------------------------------------------------- */

/* floor(q * log10(2)), exact for |q| <= 1100.  These three fixed-point
 * formulas were checked against exact rational arithmetic over the
 * exponent ranges used here. */
static inline int
floor_log10_pow2(int q)
{
	return (q * 1262611) >> 22;
}

/* floor(log10(3/4 * 2^q)) */
static inline int
floor_log10_three_quarters_pow2(int q)
{
	return (q * 1262611 - 524031) >> 22;
}

/* floor(e * log2(10)), exact for |e| <= 350 */
static inline int
floor_log2_pow10(int e)
{
	return (e * 1741647) >> 19;
}

static const char digit_pairs[201] =
    "00010203040506070809101112131415161718192021222324"
    "25262728293031323334353637383940414243444546474849"
    "50515253545556575859606162636465666768697071727374"
    "75767778798081828384858687888990919293949596979899";

/* ---- double -> shortest decimal ----------------------------------------- */

static inline uint64_t
round_to_odd(uint64_t g_hi, uint64_t g_lo, uint64_t cp)
{
	u128 x = (u128)g_lo * cp;
	u128 y = (u128)g_hi * cp + (uint64_t)(x >> 64);
	uint64_t y1 = (uint64_t)(y >> 64);
	uint64_t y0 = (uint64_t)y;

	return y1 | (y0 > 1);
}

/*
 * Shortest decimal D * 10^*exp10 that rounds to the finite, non-zero,
 * positive double with significand c and binary exponent q (value c*2^q).
 */
static uint64_t
shortest(uint64_t c, int q, bool lower_closer, int *exp10)
{
	bool even = (c & 1) == 0;
	uint64_t cb = c << 2;
	uint64_t cbl = cb - 2 + lower_closer;
	uint64_t cbr = cb + 2;
	int k = lower_closer ? floor_log10_three_quarters_pow2(q)
	    : floor_log10_pow2(q);
	int h = q + floor_log2_pow10(-k) + 1;
	const uint64_t *t = tc_json__pow10_tab[-k - TC_JSON_POW10_MIN];
	uint64_t g_hi = t[0], g_lo = t[1] + 1;
	uint64_t vb, vbl, vbr, lower, upper, s;
	bool u_in, w_in;

	/* g is 10^-k rounded up; the table holds it truncated. */
	if (g_lo == 0)
		g_hi++;
	vb = round_to_odd(g_hi, g_lo, cb << h);
	vbl = round_to_odd(g_hi, g_lo, cbl << h);
	vbr = round_to_odd(g_hi, g_lo, cbr << h);
	lower = vbl + !even;
	upper = vbr - !even;
	s = vb >> 2;
	if (s >= 10) {
		uint64_t sp = s / 10;
		bool up_in = lower <= 40 * sp;
		bool wp_in = 40 * sp + 40 <= upper;

		if (up_in != wp_in) {
			*exp10 = k + 1;
			return sp + wp_in;
		}
	}
	u_in = lower <= 4 * s;
	w_in = 4 * s + 4 <= upper;
	*exp10 = k;
	if (u_in != w_in)
		return s + w_in;
	{
		uint64_t mid = 4 * s + 2;
		bool round_up = vb > mid || (vb == mid && (s & 1) != 0);

		return s + round_up;
	}
}

static size_t
write_u64_digits(char *dst, uint64_t v, int ndigits)
{
	char *p = dst + ndigits;

	while (v >= 100) {
		unsigned r = (unsigned)(v % 100);

		v /= 100;
		p -= 2;
		memcpy(p, digit_pairs + 2 * r, 2);
	}
	if (v >= 10) {
		p -= 2;
		memcpy(p, digit_pairs + 2 * v, 2);
	} else {
		*--p = (char)('0' + v);
	}
	return (size_t)ndigits;
}

static int
count_digits(uint64_t v)
{
	int n = 1;

	while (v >= 10000) {
		v /= 10000;
		n += 4;
	}
	while (v >= 10) {
		v /= 10;
		n++;
	}
	return n;
}

/* repr()'s text of the shortest digits (no trailing zero) times
 * 10^exp10, at p; the end of the text. */
static char *
put_shortest(char *p, uint64_t digits, int exp10)
{
	int n, decpt;
	char buf[24];

	n = count_digits(digits);
	write_u64_digits(buf, digits, n);
	decpt = n + exp10;	/* value = 0.DIGITS * 10^decpt */
	if (decpt > -4 && decpt <= 16) {
		if (decpt <= 0) {
			memcpy(p, "0.", 2);
			p += 2;
			memset(p, '0', (size_t)-decpt);
			p += -decpt;
			memcpy(p, buf, (size_t)n);
			p += n;
		} else if (decpt >= n) {
			memcpy(p, buf, (size_t)n);
			p += n;
			memset(p, '0', (size_t)(decpt - n));
			p += decpt - n;
			memcpy(p, ".0", 2);
			p += 2;
		} else {
			memcpy(p, buf, (size_t)decpt);
			p += decpt;
			*p++ = '.';
			memcpy(p, buf + decpt, (size_t)(n - decpt));
			p += n - decpt;
		}
	} else {
		int x = decpt - 1;

		*p++ = buf[0];
		if (n > 1) {
			*p++ = '.';
			memcpy(p, buf + 1, (size_t)(n - 1));
			p += n - 1;
		}
		*p++ = 'e';
		*p++ = x < 0 ? '-' : '+';
		if (x < 0)
			x = -x;
		if (x >= 100) {
			*p++ = (char)('0' + x / 100);
			x %= 100;
		}
		memcpy(p, digit_pairs + 2 * x, 2);
		p += 2;
	}
	return p;
}

size_t
tc_json__format_double(char *dst, double d, bool json)
{
	uint64_t bits, m, c, digits;
	unsigned e;
	int q, exp10;
	char *p = dst;

	memcpy(&bits, &d, sizeof(bits));
	m = bits & ((UINT64_C(1) << 52) - 1);
	e = (unsigned)(bits >> 52) & 0x7ff;
	if (e == 0x7ff) {
		const char *s;

		if (m != 0)
			s = json ? "NaN" : "nan";
		else if (bits >> 63)
			s = json ? "-Infinity" : "-inf";
		else
			s = json ? "Infinity" : "inf";
		memcpy(dst, s, strlen(s));
		return strlen(s);
	}
	if (bits >> 63)
		*p++ = '-';
	if (e == 0 && m == 0) {
		memcpy(p, "0.0", 3);
		return (size_t)(p - dst) + 3;
	}
	if (e == 0) {
		c = m;
		q = -1074;
	} else {
		c = m | (UINT64_C(1) << 52);
		q = (int)e - 1075;
	}
	digits = shortest(c, q, m == 0 && e > 1, &exp10);
	while (digits % 10 == 0) {
		digits /= 10;
		exp10++;
	}
	return (size_t)(put_shortest(p, digits, exp10) - dst);
}

bool
tc_json_format_decimal(tc_buf *out, uint64_t coef, int exp10)
{
	char tmp[TC_JSON_DOUBLE_MAX];

	/* up to 15 digits: no other decimal of as few digits reads as the
	 * same double, so its shortest repr is these digits; the exponent
	 * keeps the value a normal double */
	if (coef >= UINT64_C(1000000000000000) || exp10 < -280 ||
	    exp10 > 280)
		return false;
	if (coef == 0) {
		tc_buf_add(out, "0.0", 3);
		return true;
	}
	while (coef % 10 == 0) {
		coef /= 10;
		exp10++;
	}
	tc_buf_add(out, tmp, (size_t)(put_shortest(tmp, coef, exp10) - tmp));
	return true;
}

void
tc_json_format_double(tc_buf *out, double d)
{
	char tmp[TC_JSON_DOUBLE_MAX];

	tc_buf_add(out, tmp, tc_json__format_double(tmp, d, false));
}

/* ---- decimal text -> double --------------------------------------------- */

static const double exact_pow10[23] = {
	1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11,
	1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22
};

/*
 * Eisel-Lemire: w * 10^q for 0 < w < 2^64 when the 128-bit truncated
 * product decides the rounding; returns false when it cannot (the caller
 * then uses strtod).  Results that would be subnormal or overflow are
 * left to strtod as well.
 */
static bool
eisel_lemire(uint64_t w, int q, bool neg, double *out)
{
	const uint64_t *t;
	u128 prod;
	uint64_t hi, lo, mant, bits;
	int lz, upper, exp2;

	if (q < TC_JSON_POW10_MIN || q > 308)
		return false;
	t = tc_json__pow10_tab[q - TC_JSON_POW10_MIN];
	lz = __builtin_clzll(w);
	w <<= lz;
	prod = (u128)w * t[0];
	hi = (uint64_t)(prod >> 64);
	lo = (uint64_t)prod;
	if ((hi & 0x1ff) == 0x1ff) {
		/* The low bits may still carry into the kept ones: refine
		 * with the second word of the power. */
		u128 p2 = (u128)w * t[1];
		uint64_t p2hi = (uint64_t)(p2 >> 64);

		lo += p2hi;
		if (lo < p2hi)
			hi++;
		/* What is still left out is below 2 units of lo. */
		if ((hi & 0x1ff) == 0x1ff && lo >= UINT64_MAX - 1)
			return false;
	}
	upper = (int)(hi >> 63);
	mant = hi >> (upper + 9);
	/* exponent of the product's leading bit: floor(log2(10^q)) + 1
	 * + upper - lz, with the 64-bit w counted from its top bit. */
	exp2 = floor_log2_pow10(q) + 63 + upper - lz;
	/* An exact half-way case cannot be decided from the truncated
	 * product when everything below the kept bits is zero. */
	if (lo == 0 && (hi & 0x1ff) == 0 && (mant & 3) == 1)
		return false;
	mant += mant & 1;
	mant >>= 1;
	if (mant >= (UINT64_C(1) << 53)) {
		mant = UINT64_C(1) << 52;
		exp2++;
	}
	/* biased exponent of a normal double with leading bit 2^exp2 */
	if (exp2 + 1023 < 1 || exp2 + 1023 > 2046)
		return false;
	bits = (mant & ((UINT64_C(1) << 52) - 1)) |
	    ((uint64_t)(exp2 + 1023) << 52) | ((uint64_t)neg << 63);
	memcpy(out, &bits, sizeof(*out));
	return true;
}

static locale_t c_loc;

static void
make_c_locale(void)
{
	c_loc = newlocale(LC_ALL_MASK, "C", (locale_t)0);
}

/* strtod() obeys LC_NUMERIC; JSON numbers always use '.'. */
static locale_t
c_locale(void)
{
	static pthread_once_t once = PTHREAD_ONCE_INIT;

	pthread_once(&once, make_c_locale);
	return c_loc;
}

static double
slow_strtod(const char *s, size_t len)
{
	char small[128];
	char *tmp = len < sizeof(small) ? small : tc_xmalloc(len + 1);
	double d;

	memcpy(tmp, s, len);
	tmp[len] = '\0';
	d = strtod_l(tmp, NULL, c_locale());
	if (tmp != small)
		free(tmp);
	return d;
}

double
tc_json__parse_double(const char *s, size_t len)
{
	const char *p = s, *end = s + len;
	bool neg = false;
	uint64_t w = 0;
	int ndigits = 0, dropped_exp = 0, exp10 = 0;
	bool nonzero_dropped = false;
	double d;

	if (p < end && *p == '-') {
		neg = true;
		p++;
	}
	/* Integer and fraction digits: keep the first 19 significant ones. */
	for (; p < end && (unsigned)(*p - '0') < 10; p++) {
		if (w == 0 && *p == '0')
			continue;
		if (ndigits < 19) {
			w = w * 10 + (uint64_t)(*p - '0');
			ndigits++;
		} else {
			dropped_exp++;
			nonzero_dropped |= *p != '0';
		}
	}
	if (p < end && *p == '.') {
		for (p++; p < end && (unsigned)(*p - '0') < 10; p++) {
			if (w == 0 && *p == '0') {
				dropped_exp--;
				continue;
			}
			if (ndigits < 19) {
				w = w * 10 + (uint64_t)(*p - '0');
				ndigits++;
				dropped_exp--;
			} else {
				nonzero_dropped |= *p != '0';
			}
		}
	}
	if (p < end && (*p == 'e' || *p == 'E')) {
		bool eneg = false;

		p++;
		if (p < end && (*p == '+' || *p == '-'))
			eneg = *p++ == '-';
		for (; p < end && (unsigned)(*p - '0') < 10; p++)
			if (exp10 < 100000)
				exp10 = exp10 * 10 + (*p - '0');
		if (eneg)
			exp10 = -exp10;
	}
	if (nonzero_dropped)
		return slow_strtod(s, len);
	if (w == 0)
		return neg ? -0.0 : 0.0;
	exp10 += dropped_exp;
	if (w <= (UINT64_C(1) << 53) && exp10 >= -22 && exp10 <= 22) {
		d = (double)w;
		d = exp10 < 0 ? d / exact_pow10[-exp10] : d * exact_pow10[exp10];
		return neg ? -d : d;
	}
	if (eisel_lemire(w, exp10, neg, &d))
		return d;
	return slow_strtod(s, len);
}

/*
 * Is the numeral s (a JSON number with a fraction and no exponent, as the
 * reader found it) already Python's repr() of the double it reads as?
 * Then the writers can copy it instead of converting twice.  That holds
 * when it has at most 15 significant digits (any such decimal is the only
 * one of that length or shorter that reads back as its double, DBL_DIG),
 * no trailing zero after the point beyond a lone ".0", and repr() would
 * use fixed notation: at most 16 integer digits, or "0." and at most
 * three zeros before the first significant digit.
 */
bool
tc_json__numeral_is_repr(const char *s, size_t len)
{
	const char *end = s + len, *dot = NULL, *p;
	size_t sig = 0, lead_zeros = 0;

	if (s < end && *s == '-')
		s++;
	for (p = s; p < end; p++) {
		if (*p == '.') {
			dot = p;
		} else if (*p < '0' || *p > '9') {
			return false;		/* an exponent */
		} else if (sig > 0 || *p != '0') {
			sig++;			/* from the first non-zero digit */
		} else if (dot != NULL) {
			lead_zeros++;		/* "0.000d" */
		}
	}
	if (dot == NULL || end - dot < 2 || dot - s > 16 || sig > 15)
		return false;
	if (end[-1] == '0' && end - dot != 2)
		return false;			/* "1.50": repr says "1.5" */
	/* "0.0000d" is "de-05" to repr(); zero itself ("0.0") is fine.
	 * (Only "0." can have leading zeros after the point.) */
	return sig == 0 || lead_zeros <= 3;
}
