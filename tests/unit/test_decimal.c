/*
 * test_decimal.c - tunectl's Decimal against Python's decimal module in the
 * default context (expected strings computed with /usr/bin/python3 3.11).
 */
#include <inttypes.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "tunectl/decimal.h"

static void
dec(tc_dec *d, const char *s)
{
	tc_dec_init(d);
	assert_true(tc_dec_parse(d, s, strlen(s)));
}

static void
assert_str(const tc_dec *d, const char *want)
{
	char *s = tc_dec_to_string(d);

	assert_string_equal(s, want);
	free(s);
}

/* str(Decimal(a) OP Decimal(b)) */
static void
check_op(char op, const char *a, const char *b, const char *want)
{
	tc_dec x, y, r;

	dec(&x, a);
	dec(&y, b);
	tc_dec_init(&r);
	switch (op) {
	case '+': tc_dec_add(&r, &x, &y); break;
	case '-': tc_dec_sub(&r, &x, &y); break;
	case '*': tc_dec_mul(&r, &x, &y); break;
	default: assert_true(tc_dec_div(&r, &x, &y)); break;
	}
	assert_str(&r, want);
	tc_dec_clear(&x);
	tc_dec_clear(&y);
	tc_dec_clear(&r);
}

static void
check_str(const char *in, const char *want)
{
	tc_dec d;

	dec(&d, in);
	assert_str(&d, want);
	tc_dec_clear(&d);
}

static void
construction_is_exact_and_keeps_the_exponent(void **state)
{
	(void)state;
	check_str("9.70", "9.70");
	check_str("007.50", "7.50");
	check_str(".5", "0.5");
	check_str("5.", "5");
	check_str("-0", "-0");
	check_str("123.456E-10", "1.23456E-8");
	check_str("1E+1", "1E+1");
	/* a word's coefficient, digits written by hand, and one above */
	check_str("184467440737095516.15", "184467440737095516.15");
	check_str("18446744073709551616E-3", "18446744073709551.616");
	/* 30 digits (the most GMP writes on the stack) and 32 (the heap) */
	check_str("12345678901234567890123456789.5",
	    "12345678901234567890123456789.5");
	check_str("123456789012345678901234567890E-40",
	    "1.23456789012345678901234567890E-11");
	check_str("-9999999999999999999999999999999.9",
	    "-9999999999999999999999999999999.9");
}

static void
str_switches_to_scientific_below_adjusted_exponent_minus_six(void **state)
{
	(void)state;
	check_str("0.000001", "0.000001");
	check_str("0.0000001", "1E-7");
	check_str("0.0000000", "0E-7");
}

static void
parse_rejects_what_decimal_rejects(void **state)
{
	static const char *const bad[] = { ".", "1.2.3", "", "+", "1e", "abc",
	    "1 ", "inf", "NaN" };
	tc_dec d;

	(void)state;
	tc_dec_init(&d);
	for (size_t i = 0; i < sizeof(bad) / sizeof(*bad); i++)
		assert_false(tc_dec_parse(&d, bad[i], strlen(bad[i])));
	tc_dec_clear(&d);
}

static void
division_uses_the_ideal_exponent_when_exact(void **state)
{
	(void)state;
	check_op('/', "97.50", "10", "9.75");
	check_op('/', "100.00", "10", "10.00");
	check_op('/', "98.750", "10", "9.875");
	check_op('/', "100", "10", "10");
	check_op('/', "30", "3", "10");
	check_op('/', "19.75", "2", "9.875");
	check_op('/', "0.00", "4", "0.00");
}

static void
inexact_division_rounds_to_28_digits_half_even(void **state)
{
	(void)state;
	check_op('/', "100", "3", "33.33333333333333333333333333");
	check_op('/', "2", "3", "0.6666666666666666666666666667");
	check_op('/', "1", "7", "0.1428571428571428571428571429");
	check_op('/', "0.5", "9.82", "0.05091649694501018329938900204");
}

static void
division_by_zero_is_refused(void **state)
{
	tc_dec a, z, r;

	(void)state;
	dec(&a, "1");
	dec(&z, "0.0");
	tc_dec_init(&r);
	assert_false(tc_dec_div(&r, &a, &z));
	tc_dec_clear(&a);
	tc_dec_clear(&z);
	tc_dec_clear(&r);
}

static void
add_sub_mul_round_only_beyond_28_digits(void **state)
{
	(void)state;
	check_op('+', "1234567890123456789012345678.9", "0.06",
	    "1234567890123456789012345679");
	check_op('+', "9999999999999999999999999999", "1",
	    "1.000000000000000000000000000E+28");
	check_op('*', "1.1", "2.25", "2.475");
	check_op('*', "12345678901234567890.123456789", "98765432109876543210",
	    "1.219326311370217952249657064E+39");
	check_op('-', "10.0", "10.00", "0.00");
	check_op('+', "0", "0.000", "0.000");
	check_op('-', "10.52", "10.0", "0.52");
	check_op('*', "0.050", "100", "5.000");
}

static void
to_double_is_correctly_rounded(void **state)
{
	tc_dec d;

	(void)state;
	dec(&d, "0.1");
	assert_true(tc_dec_to_double(&d) == 0.1);
	assert_true(tc_dec_parse(&d, "9007199254740993", 16));	/* tie */
	assert_true(tc_dec_to_double(&d) == 9007199254740992.0);
	assert_true(tc_dec_parse(&d, "2.5e-324", 8));
	assert_true(tc_dec_to_double(&d) == 5e-324);
	assert_true(tc_dec_parse(&d, "1e-400", 6));
	assert_true(tc_dec_to_double(&d) == 0.0);
	assert_true(tc_dec_parse(&d, "1e400", 5));
	assert_true(isinf(tc_dec_to_double(&d)));
	assert_true(tc_dec_parse(&d, "5.091649694501018329938900204", 29));
	assert_true(tc_dec_to_double(&d) == 5.091649694501018);
	tc_dec_clear(&d);
}

static void
comparison_is_numeric(void **state)
{
	tc_dec a, b;

	(void)state;
	dec(&a, "0.50");
	dec(&b, "0.5");
	assert_int_equal(tc_dec_cmp(&a, &b), 0);
	assert_true(tc_dec_parse(&b, "0.51", 4));
	assert_int_equal(tc_dec_cmp(&a, &b), -1);
	assert_true(tc_dec_parse(&b, "-7", 2));
	assert_int_equal(tc_dec_cmp(&a, &b), 1);
	assert_true(tc_dec_parse(&b, "1E+3", 4));
	assert_int_equal(tc_dec_cmp(&a, &b), -1);
	tc_dec_clear(&a);
	tc_dec_clear(&b);
}

static void
from_double_uses_the_shortest_repr(void **state)
{
	tc_dec d;

	(void)state;
	tc_dec_init(&d);
	assert_true(tc_dec_from_double_repr(&d, 9.875));
	assert_str(&d, "9.875");
	assert_true(tc_dec_from_double_repr(&d, 1e-05));
	assert_str(&d, "0.00001");
	assert_true(tc_dec_from_double_repr(&d, 10.0));
	assert_str(&d, "10.0");
	assert_false(tc_dec_from_double_repr(&d, INFINITY));
	tc_dec_clear(&d);
}

static void
five_percent_spread_is_exactly_five(void **state)
{
	/* (10.25 - 9.75) / 10.00 * 100 in Decimal is exactly 5 */
	tc_dec spread, mean, hundred, q;

	(void)state;
	dec(&spread, "0.50");
	dec(&mean, "10.00");
	dec(&hundred, "100");
	tc_dec_init(&q);
	assert_true(tc_dec_div(&q, &spread, &mean));
	tc_dec_mul(&q, &q, &hundred);
	assert_str(&q, "5.00");
	assert_true(tc_dec_to_double(&q) == 5.0);
	tc_dec_clear(&spread);
	tc_dec_clear(&mean);
	tc_dec_clear(&hundred);
	tc_dec_clear(&q);
}

/* ---- the fast paths against the general arithmetic ---------------------- */

/* A fixed pseudo-random sequence (64-bit LCG), so failures reproduce. */
static uint64_t
next_rand(uint64_t *s)
{
	*s = *s * 6364136223846793005ULL + 1442695040888963407ULL;
	return *s >> 11 ^ *s << 21;
}

/* A value with exactly bits significant bits (0 for bits 0). */
static uint64_t
rand_bits(uint64_t *s, unsigned bits)
{
	uint64_t v;

	if (bits == 0)
		return 0;
	v = next_rand(s) ^ next_rand(s) << 32;
	if (bits < 64)
		v &= (UINT64_C(1) << bits) - 1;
	return v | UINT64_C(1) << (bits - 1);
}

/* float(coef * 10^exp) by the exact ratio, as the general path
 * computes it, with the sign applied. */
static double
ratio_double(const tc_dec *d)
{
	mpz_t num, den;
	double v;

	if (mpz_sgn(d->coef) == 0)
		return d->sign ? -0.0 : 0.0;
	mpz_init_set(num, d->coef);
	mpz_init(den);
	if (d->exp >= 0) {
		mpz_ui_pow_ui(den, 10, (unsigned long)d->exp);
		mpz_mul(num, num, den);
		mpz_set_ui(den, 1);
	} else {
		mpz_ui_pow_ui(den, 10, (unsigned long)-d->exp);
	}
	v = tc_mpz_ratio_to_double(num, den, 0);
	mpz_clears(num, den, NULL);
	return d->sign ? -v : v;
}

static void
assert_same_double(double got, double want, const char *text)
{
	if (memcmp(&got, &want, sizeof(got)) != 0)
		fail_msg("%s: %.17g, want %.17g", text, got, want);
}

static void
to_double_fast_path_matches_the_exact_ratio(void **state)
{
	static const uint64_t edges[] = {
		1, 9, 10, 4503599627370495, 4503599627370496,
		9007199254740991, 9007199254740992, 9007199254740993,
		9999999999999999, 18446744073709551615ULL
	};
	uint64_t seed = 42, coef;
	char text[64];
	unsigned bits;
	size_t i;
	int e10, k;
	tc_dec d;

	(void)state;
	tc_dec_init(&d);
	for (e10 = -25; e10 <= 25; e10++) {
		for (i = 0; i < sizeof(edges) / sizeof(edges[0]); i++) {
			snprintf(text, sizeof(text), "-%" PRIu64 "E%d", edges[i],
			    e10);
			assert_true(tc_dec_parse(&d, text, strlen(text)));
			assert_same_double(tc_dec_to_double(&d),
			    ratio_double(&d), text);
			assert_same_double(tc_dec_to_double(&d),
			    strtod(text, NULL), text);
		}
		for (bits = 1; bits <= 64; bits++)
			for (k = 0; k < 40; k++) {
				coef = rand_bits(&seed, bits);
				snprintf(text, sizeof(text), "%s%" PRIu64 "E%d",
				    k % 2 ? "-" : "", coef, e10);
				assert_true(tc_dec_parse(&d, text,
				    strlen(text)));
				assert_same_double(tc_dec_to_double(&d),
				    ratio_double(&d), text);
				assert_same_double(tc_dec_to_double(&d),
				    strtod(text, NULL), text);
			}
	}
	tc_dec_clear(&d);
}

static void
parse_of_short_and_long_digit_strings_is_exact(void **state)
{
	static const char *const edges[] = {
		"0", "00000000000000000000000000", "9999999999999999999",
		"18446744073709551615", "18446744073709551616",
		"99999999999999999999", "0.0000000000000000001",
		"1234567890.123456789", "1234567890.1234567890",
		"000000000000000000000000000000001.5"
	};
	uint64_t seed = 7;
	char text[80], digits[80];
	size_t i, n, dot, k, nd;
	mpz_t want;
	tc_dec d;

	(void)state;
	tc_dec_init(&d);
	mpz_init(want);
	for (i = 0; i < sizeof(edges) / sizeof(edges[0]); i++) {
		const char *s = edges[i], *p = strchr(s, '.');

		nd = 0;
		for (k = 0; s[k] != '\0'; k++)
			if (s[k] != '.')
				digits[nd++] = s[k];
		digits[nd] = '\0';
		assert_true(tc_dec_parse(&d, s, strlen(s)));
		assert_int_equal(mpz_set_str(want, digits, 10), 0);
		assert_int_equal(mpz_cmp(d.coef, want), 0);
		assert_int_equal(d.exp, p == NULL ? 0 :
		    -(long)strlen(p + 1));
	}
	for (n = 1; n <= 40; n++)
		for (k = 0; k < 200; k++) {
			/* n digits, a point after dot of them (none at n) */
			dot = (size_t)(next_rand(&seed) % (n + 1));
			for (i = 0, nd = 0; i < n; i++) {
				digits[i] = (char)('0' + next_rand(&seed) % 10);
				if (i == dot)
					text[nd++] = '.';
				text[nd++] = digits[i];
			}
			digits[n] = '\0';
			nd += (size_t)snprintf(text + nd, sizeof(text) - nd,
			    "e%d", (int)(next_rand(&seed) % 21) - 10);
			assert_true(tc_dec_parse(&d, text, nd));
			assert_int_equal(mpz_set_str(want, digits, 10), 0);
			if (mpz_cmp(d.coef, want) != 0)
				fail_msg("%s: coefficient differs", text);
			assert_int_equal(d.exp, atol(strchr(text, 'e') + 1) -
			    (dot < n ? (long)(n - dot) : 0));
		}
	mpz_clear(want);
	tc_dec_clear(&d);
}

/* x = (sign ? -1 : 1) * a's coefficient scaled to exponent e (<= a's). */
static void
scaled(mpz_t x, const tc_dec *a, int sign, long e)
{
	mpz_ui_pow_ui(x, 10, (unsigned long)(a->exp - e));
	mpz_mul(x, x, a->coef);
	if (sign)
		mpz_neg(x, x);
}

/* The sign of a - b, by scaling both to the smaller exponent in GMP. */
static int
exact_cmp(const tc_dec *a, const tc_dec *b)
{
	long e = a->exp < b->exp ? a->exp : b->exp;
	mpz_t x, y;
	int c;

	mpz_inits(x, y, NULL);
	scaled(x, a, a->sign, e);
	scaled(y, b, b->sign, e);
	c = mpz_cmp(x, y);
	mpz_clears(x, y, NULL);
	return c > 0 ? 1 : c < 0 ? -1 : 0;
}

static void
comparison_fast_path_matches_exact_comparison(void **state)
{
	uint64_t seed = 99, u, v;
	char ta[64], tb[64];
	unsigned bits;
	int k, ea, eb;
	tc_dec a, b;

	(void)state;
	tc_dec_init(&a);
	tc_dec_init(&b);
	for (bits = 1; bits <= 64; bits++)
		for (k = 0; k < 300; k++) {
			u = rand_bits(&seed, bits);
			ea = (int)(next_rand(&seed) % 9) - 4;
			eb = (int)(next_rand(&seed) % 9) - 4;
			switch (k % 4) {
			case 0:		/* the same value, another exponent */
				v = u;
				eb = ea;
				while (v % 10 == 0 && eb < 30) {
					v /= 10;
					eb++;
				}
				if (v <= UINT64_MAX / 10) {
					v *= 10;
					eb--;
				}
				break;
			case 1:		/* a near neighbour */
				v = u + (next_rand(&seed) % 3) - 1;
				eb = ea;
				break;
			default:
				v = rand_bits(&seed, (unsigned)(next_rand(
				    &seed) % 64 + 1));
				break;
			}
			snprintf(ta, sizeof(ta), "%s%" PRIu64 "E%d",
			    k % 3 == 0 ? "-" : "", u, ea);
			snprintf(tb, sizeof(tb), "%s%" PRIu64 "E%d",
			    k % 5 == 0 ? "-" : "", v, eb);
			assert_true(tc_dec_parse(&a, ta, strlen(ta)));
			assert_true(tc_dec_parse(&b, tb, strlen(tb)));
			if (tc_dec_cmp(&a, &b) != exact_cmp(&a, &b) ||
			    tc_dec_cmp(&b, &a) != exact_cmp(&b, &a))
				fail_msg("%s vs %s", ta, tb);
		}
	tc_dec_clear(&a);
	tc_dec_clear(&b);
}

/* The exact a + b (sub: a - b) at the smaller exponent, as the general
 * path computes it before rounding; sign by Python's rule for zeros. */
static void
assert_exact_sum(const tc_dec *r, const tc_dec *a, const tc_dec *b,
    bool sub, const char *what)
{
	long e = a->exp < b->exp ? a->exp : b->exp;
	int bsign = sub ? !b->sign : b->sign, want_sign;
	mpz_t x, y;

	mpz_inits(x, y, NULL);
	scaled(x, a, a->sign, e);
	scaled(y, b, bsign, e);
	mpz_add(x, x, y);
	if (mpz_sgn(x) != 0)
		want_sign = mpz_sgn(x) < 0;
	else
		want_sign = mpz_sgn(a->coef) == 0 && mpz_sgn(b->coef) == 0 &&
		    a->sign && bsign;
	mpz_abs(x, x);
	if (mpz_cmp(r->coef, x) != 0 || r->exp != e || r->sign != want_sign)
		fail_msg("%s", what);
	mpz_clears(x, y, NULL);
}

static void
add_sub_fast_path_matches_the_exact_sum(void **state)
{
	static const char *const edges[][2] = {
		{ "-0", "-0" }, { "-0", "0.00" }, { "0", "-0" },
		{ "5", "-5" }, { "-5.0", "5" }, { "-0E+3", "-0.0" },
		{ "18446744073709551615", "1" },
		{ "18446744073709551615", "-1" },
		{ "1844674407370955161.5", "0.1" },
		{ "1844674407370955162", "0.1" },
		{ "9223372036854775808", "9223372036854775808" },
		{ "1E+20", "1" }, { "-1E-5", "18446744073709551615" },
	};
	uint64_t seed = 5, u, v;
	char ta[64], tb[64], what[160];
	unsigned bits;
	size_t i;
	int k, sub;
	tc_dec a, b, r;

	(void)state;
	tc_dec_init(&a);
	tc_dec_init(&b);
	tc_dec_init(&r);
	for (i = 0; i < sizeof(edges) / sizeof(edges[0]); i++)
		for (sub = 0; sub < 2; sub++) {
			assert_true(tc_dec_parse(&a, edges[i][0],
			    strlen(edges[i][0])));
			assert_true(tc_dec_parse(&b, edges[i][1],
			    strlen(edges[i][1])));
			(sub ? tc_dec_sub : tc_dec_add)(&r, &a, &b);
			snprintf(what, sizeof(what), "%s %c %s", edges[i][0],
			    sub ? '-' : '+', edges[i][1]);
			assert_exact_sum(&r, &a, &b, sub, what);
		}
	for (bits = 1; bits <= 64; bits++)
		for (k = 0; k < 200; k++) {
			u = rand_bits(&seed, bits);
			v = k % 4 == 0 ? u : rand_bits(&seed, (unsigned)(
			    next_rand(&seed) % 64 + 1));
			snprintf(ta, sizeof(ta), "%s%" PRIu64 "E%d",
			    k % 3 == 0 ? "-" : "", u,
			    (int)(next_rand(&seed) % 7) - 3);
			snprintf(tb, sizeof(tb), "%s%" PRIu64 "E%d",
			    k % 5 < 2 ? "-" : "", v,
			    k % 4 == 0 ? 0 : (int)(next_rand(&seed) % 7) - 3);
			assert_true(tc_dec_parse(&a, ta, strlen(ta)));
			assert_true(tc_dec_parse(&b, tb, strlen(tb)));
			sub = k % 2;
			snprintf(what, sizeof(what), "%s %c %s", ta,
			    sub ? '-' : '+', tb);
			(sub ? tc_dec_sub : tc_dec_add)(&r, &a, &b);
			assert_exact_sum(&r, &a, &b, sub, what);
			/* the result may be one of the operands */
			tc_dec_set(&r, &a);
			(sub ? tc_dec_sub : tc_dec_add)(&r, &r, &b);
			assert_exact_sum(&r, &a, &b, sub, what);
		}
	tc_dec_clear(&a);
	tc_dec_clear(&b);
	tc_dec_clear(&r);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(construction_is_exact_and_keeps_the_exponent),
		cmocka_unit_test(str_switches_to_scientific_below_adjusted_exponent_minus_six),
		cmocka_unit_test(parse_rejects_what_decimal_rejects),
		cmocka_unit_test(division_uses_the_ideal_exponent_when_exact),
		cmocka_unit_test(inexact_division_rounds_to_28_digits_half_even),
		cmocka_unit_test(division_by_zero_is_refused),
		cmocka_unit_test(add_sub_mul_round_only_beyond_28_digits),
		cmocka_unit_test(to_double_is_correctly_rounded),
		cmocka_unit_test(comparison_is_numeric),
		cmocka_unit_test(from_double_uses_the_shortest_repr),
		cmocka_unit_test(five_percent_spread_is_exactly_five),
		cmocka_unit_test(to_double_fast_path_matches_the_exact_ratio),
		cmocka_unit_test(parse_of_short_and_long_digit_strings_is_exact),
		cmocka_unit_test(comparison_fast_path_matches_exact_comparison),
		cmocka_unit_test(add_sub_fast_path_matches_the_exact_sum),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
