/*
 * test_json_float.c - binary64 <-> text as Python does it: repr(float)
 * (shortest round trip, closest of the shortest, ties to even digits,
 * asymmetric intervals at powers of two, the fixed/exponent switch) and
 * float(str) (correct rounding, overflow to inf, underflow to 0, halfway
 * cases, more than 19 digits).
 *
 * Expected values were produced by /usr/bin/python3 (3.11.2).
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "tunectl/buf.h"
#include "tunectl/json.h"

static double
from_bits(uint64_t b)
{
	double d;

	memcpy(&d, &b, sizeof(d));
	return d;
}

static uint64_t
to_bits(double d)
{
	uint64_t b;

	memcpy(&b, &d, sizeof(b));
	return b;
}

static const struct {
	uint64_t bits;
	const char *repr;
} reprs[] = {
	{ UINT64_C(0x0000000000000000), "0.0" },
	{ UINT64_C(0x8000000000000000), "-0.0" },
	{ UINT64_C(0x0000000000000001), "5e-324" },
	{ UINT64_C(0x8000000000000001), "-5e-324" },
	{ UINT64_C(0x0000000000000002), "1e-323" },
	{ UINT64_C(0x0000000000000003), "1.5e-323" },
	{ UINT64_C(0x0010000000000000), "2.2250738585072014e-308" },
	{ UINT64_C(0x000fffffffffffff), "2.225073858507201e-308" },
	{ UINT64_C(0x7fefffffffffffff), "1.7976931348623157e+308" },
	{ UINT64_C(0xffefffffffffffff), "-1.7976931348623157e+308" },
	{ UINT64_C(0x3fb999999999999a), "0.1" },
	{ UINT64_C(0x3fc999999999999a), "0.2" },
	{ UINT64_C(0x3fd3333333333333), "0.3" },
	{ UINT64_C(0x3fd3333333333334), "0.30000000000000004" },
	{ UINT64_C(0x3fd5555555555555), "0.3333333333333333" },
	{ UINT64_C(0x3fe5555555555555), "0.6666666666666666" },
	{ UINT64_C(0x3ff0000000000000), "1.0" },
	{ UINT64_C(0xbff0000000000000), "-1.0" },
	{ UINT64_C(0x4024000000000000), "10.0" },
	{ UINT64_C(0x4059000000000000), "100.0" },
	{ UINT64_C(0x430c6bf526340000), "1000000000000000.0" },
	{ UINT64_C(0x4341c37937e08000), "1e+16" },
	{ UINT64_C(0x4376345785d8a000), "1e+17" },
	{ UINT64_C(0x4341c37937e07fff), "9999999999999998.0" },
	{ UINT64_C(0x434aa535d3d0c000), "1.5e+16" },
	{ UINT64_C(0x4345ee2a2eb5a5c4), "1.2345678901234568e+16" },
	{ UINT64_C(0x3f1a36e2eb1c432d), "0.0001" },
	{ UINT64_C(0x3ee4f8b588e368f1), "1e-05" },
	{ UINT64_C(0x3f202e4b6ce5dc68), "0.00012345" },
	{ UINT64_C(0x3ee9e3abe16fc70d), "1.2345e-05" },
	{ UINT64_C(0x3e7ad7f29abcaf48), "1e-07" },
	{ UINT64_C(0x3ea0c6f7a0b5ed8d), "5e-07" },
	{ UINT64_C(0x444b1ae4d6e2ef50), "1e+21" },
	{ UINT64_C(0x4480f0cf064dd592), "1e+22" },
	{ UINT64_C(0x44b52d02c7e14af6), "1e+23" },
	{ UINT64_C(0x4340000000000000), "9007199254740992.0" },
	{ UINT64_C(0x4340000000000000), "9007199254740992.0" },
	{ UINT64_C(0x4340000000000001), "9007199254740994.0" },
	{ UINT64_C(0x43e0000000000000), "9.223372036854776e+18" },
	{ UINT64_C(0x43f0000000000000), "1.8446744073709552e+19" },
	{ UINT64_C(0x419d6f3454800000), "123456789.125" },
	{ UINT64_C(0x400921fb54442d18), "3.141592653589793" },
	{ UINT64_C(0x4005bf0a8b145769), "2.718281828459045" },
	{ UINT64_C(0x43e56a95319d63e1), "1.2345678901234567e+19" },
	{ UINT64_C(0x4011666666666666), "4.35" },
	{ UINT64_C(0x3feccccccccccccc), "0.8999999999999999" },
	{ UINT64_C(0x7e444ecd0d33972b), "1.7e+300" },
	{ UINT64_C(0x0010000000000000), "2.2250738585072014e-308" },
	{ UINT64_C(0x0008000000000000), "1.1125369292536007e-308" },
	{ UINT64_C(0x3d30000000000000), "5.684341886080802e-14" },
	{ UINT64_C(0x3d40000000000000), "1.1368683772161603e-13" },
	{ UINT64_C(0x3fe0000000000000), "0.5" },
	{ UINT64_C(0x4090000000000000), "1024.0" },
	{ UINT64_C(0x43b0000000000000), "1.152921504606847e+18" },
	{ UINT64_C(0x4450000000000000), "1.1805916207174113e+21" },
	{ UINT64_C(0x39b0000000000000), "7.888609052210118e-31" },
	{ UINT64_C(0x7e70000000000000), "1.0715086071862673e+301" },
	{ UINT64_C(0x7fe0000000000000), "8.98846567431158e+307" },
	{ UINT64_C(0x0000000000000003), "1.5e-323" },
	{ UINT64_C(0x0000000000000007), "3.5e-323" },
	{ UINT64_C(0x000000000001e240), "6.09954e-319" },
	{ UINT64_C(0x4310000000000001), "1125899906842624.2" },
	{ UINT64_C(0x4310000000000003), "1125899906842624.8" },
	{ UINT64_C(0x4320000000000001), "2251799813685248.5" },
	{ UINT64_C(0x4330000000000001), "4503599627370497.0" },
	{ UINT64_C(0x41b1de784a000000), "299792458.0" },
	{ UINT64_C(0x44dfe185ca57c517), "6.02214076e+23" },
	{ UINT64_C(0x3c07a4da290c1653), "1.602176634e-19" },
	{ UINT64_C(0x3fe0000000000000), "0.5" },
	{ UINT64_C(0x3fd0000000000000), "0.25" },
	{ UINT64_C(0x3fc0000000000000), "0.125" },
	{ UINT64_C(0x3ddb7cdfd9d7bdbb), "1e-10" },
	{ UINT64_C(0x2b2bff2ee48e0530), "1e-100" },
	{ UINT64_C(0x54b249ad2594c37d), "1e+100" },
	{ UINT64_C(0x3c36b082c2148b8e), "1.23e-18" },
	{ UINT64_C(0x447c7e83209e90b2), "8.41e+21" },
	{ UINT64_C(0x4830f0cf064dd592), "5.764607523034235e+39" },
	{ UINT64_C(0x0010000000000000), "2.2250738585072014e-308" },
	{ UINT64_C(0x4bdba8493ceb3ffd), "2.7126267136355693e+57" },
	{ UINT64_C(0x10b1b1b48b529b4a), "2.9176505403442687e-228" },
	{ UINT64_C(0x753dadfa5eb561a4), "5.5705027106665415e+256" },
	{ UINT64_C(0x3cadc94f9a9a80fd), "2.0668446752292503e-16" },
	{ UINT64_C(0x4a595c7ea02f34a6), "1.4826236772844953e+50" },
	{ UINT64_C(0x4d84491e10c67fd9), "2.670405756230503e+65" },
	{ UINT64_C(0x7454294f035efa25), "2.3095972247362096e+252" },
	{ UINT64_C(0x3c0fce2cd6645fa9), "2.1552158160265848e-19" },
	{ UINT64_C(0x46801c7642650644), "4.084669271327047e+31" },
	{ UINT64_C(0x188b12133bfd1d33), "1.89867543353284e-190" },
	{ UINT64_C(0x5bcb81c3fee29476), "1.5619592075495646e+134" },
	{ UINT64_C(0x453ea1da78633074), "3.703210565721954e+25" },
	{ UINT64_C(0x465a506bd6225675), "8.339285569756503e+30" },
	{ UINT64_C(0x32d54e4179f248b0), "8.092383615358505e-64" },
	{ UINT64_C(0x6e35f8f0a399f82a), "7.942454533308265e+222" },
	{ UINT64_C(0x1daf9ec3268ecc45), "1.0724487151562167e-165" },
	{ UINT64_C(0x13685ca2a2863a7f), "3.5334869493505085e-215" },
	{ UINT64_C(0x7681c6dade383784), "6.997119006180081e+262" },
	{ UINT64_C(0x31e9724885ef3430), "2.9495629468048806e-68" },
	{ UINT64_C(0x01f05409bdc2ae99), "2.438173398544643e-299" },
	{ UINT64_C(0x637c6d1fabe19f58), "1.7164744666665028e+171" },
	{ UINT64_C(0x1467379210645d51), "2.206889037164534e-210" },
	{ UINT64_C(0x7a8f4391c21b6092), "2.2700200993576141e+282" },
	{ UINT64_C(0x057a1c6997524d6a), "2.809489096561197e-282" },
	{ UINT64_C(0x63d98bec4d1fe09f), "9.872569543527427e+172" },
	{ UINT64_C(0x696ac22107f062ce), "6.40067725527354e+199" },
	{ UINT64_C(0x227cbca6dd933160), "1.472862824289832e-142" },
	{ UINT64_C(0x4c20c08b79061596), "5.257740645155257e+58" },
	{ UINT64_C(0x75c7b127b804d820), "2.2767127185184196e+259" },
	{ UINT64_C(0x319d2877e0f9e038), "1.0561848313607126e-69" },
	{ UINT64_C(0x64e0c038b6d13089), "8.484860439896298e+177" },
	{ UINT64_C(0x36a5cd6debcd1f5e), "1.9094844770358533e-45" },
	{ UINT64_C(0x5d333b59651c5253), "9.160910978862201e+140" },
	{ UINT64_C(0x49d82d02cd085b71), "5.520782241090869e+47" },
	{ UINT64_C(0x7b676c8571d2af72), "2.7865401617620176e+286" },
	{ UINT64_C(0x112bcc4fef829c88), "5.867164912993042e-226" },
	{ UINT64_C(0x2ec95921e0fd67dd), "2.6096236267456295e-83" },
	{ UINT64_C(0x0497eeef18f2c41c), "1.5717641235735652e-286" },
	{ UINT64_C(0x3f5856fa22cedafb), "0.0014855807050772596" },
	{ UINT64_C(0x2105875f378c74dc), "1.3153820747201239e-149" },
	{ UINT64_C(0x0000000000000002), "1e-323" },
	{ UINT64_C(0x0170000000000000), "9.332636185032189e-302" },
	{ UINT64_C(0x20b0000000000000), "3.054936363499605e-151" },
	{ UINT64_C(0x3b40000000000000), "2.6469779601696886e-23" },
	{ UINT64_C(0x3d30000000000000), "5.684341886080802e-14" },
	{ UINT64_C(0x3eb0000000000000), "9.5367431640625e-07" },
	{ UINT64_C(0x3fd0000000000000), "0.25" },
	{ UINT64_C(0x4000000000000000), "2.0" },
	{ UINT64_C(0x4010000000000000), "4.0" },
	{ UINT64_C(0x4020000000000000), "8.0" },
	{ UINT64_C(0x4340000000000000), "9007199254740992.0" },
	{ UINT64_C(0x4350000000000000), "1.8014398509481984e+16" },
	{ UINT64_C(0x4c70000000000000), "1.6069380442589903e+60" },
	{ UINT64_C(0x6570000000000000), "4.149515568880993e+180" },
	{ UINT64_C(0x7e70000000000000), "1.0715086071862673e+301" },
};

static void
format_double_is_python_repr(void **state)
{
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(reprs) / sizeof(reprs[0]); i++) {
		tc_buf b = TC_BUF_INIT;

		tc_json_format_double(&b, from_bits(reprs[i].bits));
		if (strcmp(tc_buf_cstr(&b), reprs[i].repr) != 0)
			print_error("0x%016llx: want %s got %s\n",
			    (unsigned long long)reprs[i].bits, reprs[i].repr,
			    tc_buf_cstr(&b));
		assert_string_equal(tc_buf_cstr(&b), reprs[i].repr);
		tc_buf_free(&b);
	}
}

static void
non_finite_values_print_as_repr_and_as_json(void **state)
{
	tc_buf b = TC_BUF_INIT;
	tc_json *arr = tc_json_new_array();
	char *s;

	(void)state;
	tc_json_format_double(&b, NAN);
	tc_buf_putc(&b, ' ');
	tc_json_format_double(&b, INFINITY);
	tc_buf_putc(&b, ' ');
	tc_json_format_double(&b, -INFINITY);
	assert_string_equal(b.data, "nan inf -inf");
	tc_json_array_push(arr, tc_json_new_float(NAN));
	tc_json_array_push(arr, tc_json_new_float(INFINITY));
	tc_json_array_push(arr, tc_json_new_float(-INFINITY));
	s = tc_json_canonical(arr, NULL, NULL);
	assert_string_equal(s, "[NaN,Infinity,-Infinity]");
	free(s);
	tc_json_free(arr);
	tc_buf_free(&b);
}

/* Every repr reads back to the same double (round trip), and the next
 * shorter digit string would not: checked over a sweep of binades. */
static void
repr_round_trips_across_all_binades(void **state)
{
	unsigned e;

	(void)state;
	for (e = 0; e < 2047; e += 3) {
		static const uint64_t mant[] = { 0, 1, 0x8000000000000u,
		    0xfffffffffffffu, 0x123456789abcdu };
		size_t k;

		for (k = 0; k < 5; k++) {
			double d = from_bits(((uint64_t)e << 52) | mant[k]);
			tc_buf b = TC_BUF_INIT;
			tc_json *v;
			tc_error err = TC_ERROR_INIT;

			if (d == 0)
				continue;
			tc_json_format_double(&b, d);
			v = tc_json_parse(b.data, b.len, &err);
			assert_non_null(v);
			assert_int_equal(v->type, TC_JSON_FLOAT);
			assert_int_equal(to_bits(v->u.f), to_bits(d));
			tc_json_free(v);
			tc_buf_free(&b);
		}
	}
}

static const struct {
	const char *text;
	uint64_t bits;
} parses[] = {
	{ "0.1", UINT64_C(0x3fb999999999999a) },
	{ "1e-400", UINT64_C(0x0000000000000000) },
	{ "-1e-400", UINT64_C(0x8000000000000000) },
	{ "1e400", UINT64_C(0x7ff0000000000000) },
	{ "2.4703282292062327e-324", UINT64_C(0x0000000000000000) },
	{ "2.4703282292062328e-324", UINT64_C(0x0000000000000001) },
	{ "4.9406564584124654e-324", UINT64_C(0x0000000000000001) },
	{ "2.2250738585072011e-308", UINT64_C(0x000fffffffffffff) },
	{ "2.2250738585072012e-308", UINT64_C(0x0010000000000000) },
	{ "1.7976931348623158e308", UINT64_C(0x7fefffffffffffff) },
	{ "1.7976931348623159e308", UINT64_C(0x7ff0000000000000) },
	{ "9007199254740993.0", UINT64_C(0x4340000000000000) },
	{ "9007199254740995.0", UINT64_C(0x4340000000000002) },
	{ "0.30000000000000004", UINT64_C(0x3fd3333333333334) },
	{ "123456789012345678901234567890.0", UINT64_C(0x45f8ee90ff6c373e) },
	{ "10000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000.0", UINT64_C(0x7ff0000000000000) },
	{ "0.00000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000001e400", UINT64_C(0x3fb999999999999a) },
	{ "1.0000000000000000000000000000001", UINT64_C(0x3ff0000000000000) },
	{ "8.41e21", UINT64_C(0x447c7e83209e90b2) },
	{ "7.3177701707893310e15", UINT64_C(0x4339ff792393edd3) },
	{ "9007199254740992.5", UINT64_C(0x4340000000000000) },
	{ "2.0000000000000002", UINT64_C(0x4000000000000000) },
	{ "1e23", UINT64_C(0x44b52d02c7e14af6) },
	{ "1.00000000000000011102230246251565404236316680908203125", UINT64_C(0x3ff0000000000000) },
	{ "1.00000000000000011102230246251565404236316680908203124", UINT64_C(0x3ff0000000000000) },
	{ "1.00000000000000011102230246251565404236316680908203126", UINT64_C(0x3ff0000000000001) },
	{ "0.0e999999999", UINT64_C(0x0000000000000000) },
	{ "1e-99999999", UINT64_C(0x0000000000000000) },
	{ "-0.0", UINT64_C(0x8000000000000000) },
	{ "123.456e-2", UINT64_C(0x3ff3c0c1fc8f3238) },
	{ "4.35", UINT64_C(0x4011666666666666) },
	{ "1.448997445238699e0", UINT64_C(0x3ff72f17f1f49aad) },
	{ "3.0e-324", UINT64_C(0x0000000000000001) },
};

static void
reading_floats_rounds_like_python(void **state)
{
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(parses) / sizeof(parses[0]); i++) {
		tc_error err = TC_ERROR_INIT;
		tc_json *v = tc_json_parse(parses[i].text, strlen(parses[i].text),
		    &err);

		assert_non_null(v);
		assert_int_equal(v->type, TC_JSON_FLOAT);
		if (to_bits(v->u.f) != parses[i].bits)
			print_error("%s: want 0x%016llx got 0x%016llx\n",
			    parses[i].text, (unsigned long long)parses[i].bits,
			    (unsigned long long)to_bits(v->u.f));
		assert_int_equal(to_bits(v->u.f), parses[i].bits);
		tc_json_free(v);
	}
}

static void
integers_convert_to_the_nearest_double(void **state)
{
	static const struct {
		const char *text;
		double want;
	} ints[] = {
		{ "9007199254740993", 9007199254740992.0 },	/* tie: even */
		{ "9007199254740995", 9007199254740996.0 },
		{ "-9223372036854775809", -9223372036854775808.0 },
		{ "123456789012345678901234567890", 1.2345678901234568e+29 },
	};
	size_t i;
	double d;

	(void)state;
	for (i = 0; i < sizeof(ints) / sizeof(ints[0]); i++) {
		tc_json *v = tc_json_new_int_text(ints[i].text);

		assert_true(tc_json_number(v, &d));
		assert_true(d == ints[i].want);
		tc_json_free(v);
	}
}

/* The canonical reader-writer copies a numeral that is already repr() of
 * its double (tc_json_reformat); the tree writer always converts.  Over
 * hand-picked edges and 20 000 random numerals both must agree. */
static void
reformat_copies_only_numerals_that_are_their_repr(void **state)
{
	static const char *const edges[] = {
		"0.0", "-0.0", "5.0", "0.5", "1.50", "100.0", "0.0001",
		"0.00001", "0.00012", "-0.000999", "123456789012345.0",
		"12345678901234.5", "1234567890123456.0", "9999999999999999.0",
		"10000000000000000.0", "0.1", "0.30000000000000004",
		"2.220446049250313e-16", "1e5", "1.0e5", "3.14159265358979",
		"3.141592653589793", "0.10", "7.000", "99999999999999.99",
	};
	tc_buf text = TC_BUF_INIT, a = TC_BUF_INIT, b = TC_BUF_INIT;
	tc_error err = TC_ERROR_INIT;
	uint64_t x = 88172645463325252u;
	size_t i, j;

	(void)state;
	for (i = 0; i < 20000 + sizeof(edges) / sizeof(edges[0]); i++) {
		tc_json *v;

		tc_buf_reset(&text);
		if (i < sizeof(edges) / sizeof(edges[0])) {
			tc_buf_puts(&text, edges[i]);
		} else {
			/* 1-18 digits with the point somewhere inside */
			size_t n, point;

			x ^= x << 13, x ^= x >> 7, x ^= x << 17;
			n = 1 + x % 18;
			point = 1 + (x >> 8) % n;
			if ((x >> 16) & 1)
				tc_buf_putc(&text, '-');
			for (j = 0; j < n; j++) {
				unsigned d = (unsigned)((x >> (20 + 2 * j)) % 10);

				if (j == point)
					tc_buf_putc(&text, '.');
				/* no leading zero before a digit */
				if (j == 0 && point > 1 && d == 0)
					d = 1;
				tc_buf_putc(&text, (char)('0' + d));
			}
			if (point == n)
				tc_buf_puts(&text, ".0");
		}
		tc_buf_reset(&a);
		tc_buf_reset(&b);
		assert_int_equal(tc_json_reformat(text.data, text.len, 0, &a,
		    &err), 0);
		v = tc_json_parse(text.data, text.len, &err);
		assert_non_null(v);
		assert_int_equal(tc_json_write(&b, v, 0, &err), 0);
		tc_json_free(v);
		if (a.len != b.len || memcmp(a.data, b.data, a.len) != 0)
			fail_msg("%s: copied %s, converted %s", text.data,
			    a.data, b.data);
	}
	tc_buf_free(&text);
	tc_buf_free(&a);
	tc_buf_free(&b);
}

/* A decimal of up to 15 digits prints from its own digits exactly as
 * the nearest double prints (repr's fixed and exponent forms, trailing
 * zeros dropped, "0.0"), over the whole exponent range it takes; more
 * digits or a wider exponent are refused with nothing written. */
static void
decimals_print_from_their_digits_as_their_double(void **state)
{
	static const uint64_t coefs[] = { 0, 1, 5, 9, 10, 100, 12345,
	    100000000000000ULL, 123456789012345ULL, 999999999999999ULL,
	    4503599627370497ULL / 10 };
	uint64_t rs = 88172645463325252ULL;
	tc_buf a = TC_BUF_INIT, b = TC_BUF_INIT;
	size_t i;
	int e;

	(void)state;
	for (i = 0; i < sizeof(coefs) / sizeof(coefs[0]); i++)
		for (e = -280; e <= 280; e++) {
			char txt[64];

			snprintf(txt, sizeof(txt), "%llue%d",
			    (unsigned long long)coefs[i], e);
			tc_buf_reset(&a);
			tc_buf_reset(&b);
			assert_true(tc_json_format_decimal(&a, coefs[i], e));
			tc_json_format_double(&b, strtod(txt, NULL));
			assert_string_equal(tc_buf_cstr(&a), tc_buf_cstr(&b));
		}
	for (i = 0; i < 200000; i++) {
		uint64_t lim = 1, coef;
		int nd, k;
		char txt[64];

		rs ^= rs << 13;
		rs ^= rs >> 7;
		rs ^= rs << 17;
		nd = 1 + (int)(rs % 15);
		for (k = 0; k < nd; k++)
			lim *= 10;
		coef = (rs >> 8) % lim;
		e = (int)((rs >> 40) % 61) - 30;
		snprintf(txt, sizeof(txt), "%llue%d", (unsigned long long)coef,
		    e);
		tc_buf_reset(&a);
		tc_buf_reset(&b);
		assert_true(tc_json_format_decimal(&a, coef, e));
		tc_json_format_double(&b, strtod(txt, NULL));
		assert_string_equal(tc_buf_cstr(&a), tc_buf_cstr(&b));
	}
	tc_buf_reset(&a);
	assert_false(tc_json_format_decimal(&a, 1000000000000000ULL, 0));
	assert_false(tc_json_format_decimal(&a, 1, 281));
	assert_false(tc_json_format_decimal(&a, 1, -281));
	assert_int_equal(a.len, 0);
	tc_buf_free(&a);
	tc_buf_free(&b);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(format_double_is_python_repr),
		cmocka_unit_test(non_finite_values_print_as_repr_and_as_json),
		cmocka_unit_test(repr_round_trips_across_all_binades),
		cmocka_unit_test(reading_floats_rounds_like_python),
		cmocka_unit_test(integers_convert_to_the_nearest_double),
		cmocka_unit_test(reformat_copies_only_numerals_that_are_their_repr),
		cmocka_unit_test(decimals_print_from_their_digits_as_their_double),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
