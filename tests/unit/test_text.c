/*
 * test_text.c - the one text module (tunectl/text.h): UTF-8 under each
 * invalid-byte policy and Python's decode errors, str.isspace() over every
 * code point, strip(), the canonical string and the relative artifact
 * path, math.isclose(), repr() of a str and format(x, ".Nf").  Expected
 * values were computed with Python 3.11 (Debian bookworm's python3).
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
#include "tunectl/error.h"
#include "tunectl/text.h"

#define LIT(s) (s), (sizeof(s) - 1)

/* ---- UTF-8 -------------------------------------------------------------- */

static const struct {
	const char *in;
	size_t len;
	/* lengths and code points under each policy; U+FFFD under
	 * TC_UTF8_REPLACE covers the maximal ill-formed subpart */
	size_t strict_n, escape_n, wtf8_n, replace_n;
	uint32_t strict_cp, escape_cp, wtf8_cp;
} decode_table[] = {
	{ "a", 1, 1, 1, 1, 1, 'a', 'a', 'a' },
	{ "\xc3\xa9", 2, 2, 2, 2, 2, 0xe9, 0xe9, 0xe9 },
	{ "\xe3\x80\x80", 3, 3, 3, 3, 3, 0x3000, 0x3000, 0x3000 },
	{ "\xf0\x9f\x98\x80", 4, 4, 4, 4, 4, 0x1f600, 0x1f600, 0x1f600 },
	/* overlong space: never U+0020 */
	{ "\xc0\xa0", 2, 0, 1, 1, 1, 0, 0xdcc0, 0xdcc0 },
	/* an encoded surrogate: ill-formed, except as WTF-8 */
	{ "\xed\xa0\x80", 3, 0, 1, 3, 1, 0, 0xdced, 0xd800 },
	/* above U+10FFFF */
	{ "\xf4\x90\x80\x80", 4, 0, 1, 1, 1, 0, 0xdcf4, 0xdcf4 },
	/* truncated, and a lone continuation byte (not U+0085) */
	{ "\xe2\x82", 2, 0, 1, 1, 2, 0, 0xdce2, 0xdce2 },
	{ "\xf0\x9f\x98", 3, 0, 1, 1, 3, 0, 0xdcf0, 0xdcf0 },
	{ "\xe2\x82(", 3, 0, 1, 1, 2, 0, 0xdce2, 0xdce2 },
	{ "\x85", 1, 0, 1, 1, 1, 0, 0xdc85, 0xdc85 },
	{ "\xff", 1, 0, 1, 1, 1, 0, 0xdcff, 0xdcff },
};

static void
decode_follows_the_policy_for_ill_formed_bytes(void **state)
{
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(decode_table) / sizeof(decode_table[0]); i++) {
		const char *s = decode_table[i].in;
		size_t n = decode_table[i].len;
		uint32_t cp = 0;

		assert_int_equal(tc_utf8_decode(s, n, &cp, TC_UTF8_STRICT),
		    decode_table[i].strict_n);
		if (decode_table[i].strict_n > 0)
			assert_int_equal(cp, decode_table[i].strict_cp);
		assert_int_equal(tc_utf8_decode(s, n, &cp, TC_UTF8_ESCAPE),
		    decode_table[i].escape_n);
		assert_int_equal(cp, decode_table[i].escape_cp);
		assert_int_equal(tc_utf8_decode(s, n, &cp, TC_UTF8_WTF8),
		    decode_table[i].wtf8_n);
		assert_int_equal(cp, decode_table[i].wtf8_cp);
		assert_int_equal(tc_utf8_decode(s, n, &cp, TC_UTF8_REPLACE),
		    decode_table[i].replace_n);
		if (decode_table[i].strict_n == 0)
			assert_int_equal(cp, 0xfffd);
		assert_int_equal(tc_utf8_valid(s, n),
		    decode_table[i].strict_n == n);
	}
}

static void
encode_round_trips_and_counts_code_points(void **state)
{
	static const uint32_t cps[] = {
		0, 0x7f, 0x80, 0x7ff, 0x800, 0xd800, 0xdfff, 0xffff, 0x10000,
		0x10ffff
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cps) / sizeof(cps[0]); i++) {
		char buf[4];
		uint32_t cp;
		size_t n = tc_utf8_encode(buf, cps[i]);

		assert_int_equal(tc_utf8_decode(buf, n, &cp, TC_UTF8_WTF8), n);
		assert_int_equal(cp, cps[i]);
		assert_int_equal(tc_utf8_has_surrogate(buf, n),
		    cps[i] >= 0xd800 && cps[i] <= 0xdfff);
	}
	/* len(): a, e-acute, a lone surrogate, an escaped byte */
	assert_int_equal(tc_utf8_length(LIT("a\xc3\xa9\xed\xa0\x80\xff")), 4);
	assert_int_equal(tc_utf8_offset(LIT("a\xc3\xa9 b"), 0), 0);
	assert_int_equal(tc_utf8_offset(LIT("a\xc3\xa9 b"), 2), 3);
	assert_int_equal(tc_utf8_offset(LIT("a\xc3\xa9 b"), 9), 5);
}

static void
check_reports_pythons_decode_errors(void **state)
{
	static const struct {
		const char *in;
		size_t len;
		const char *msg;
	} t[] = {
		{ LIT("ab\x80"), "'utf-8' codec can't decode byte 0x80 in "
		  "position 2: invalid start byte" },
		{ LIT("\xe2\x82"), "'utf-8' codec can't decode bytes in "
		  "position 0-1: unexpected end of data" },
		{ LIT("\xe2(\xa1"), "'utf-8' codec can't decode byte 0xe2 in "
		  "position 0: invalid continuation byte" },
		{ LIT("\xed\xa0\x80"), "'utf-8' codec can't decode byte 0xed in "
		  "position 0: invalid continuation byte" },
		{ LIT("\xf4\x90\x80\x80"), "'utf-8' codec can't decode byte 0xf4 "
		  "in position 0: invalid continuation byte" },
		{ LIT("\xc0\xa0"), "'utf-8' codec can't decode byte 0xc0 in "
		  "position 0: invalid start byte" },
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		tc_error err = TC_ERROR_INIT;

		assert_false(tc_utf8_check(t[i].in, t[i].len, &err));
		assert_string_equal(tc_error_msg(&err), t[i].msg);
		tc_error_clear(&err);
	}
	assert_true(tc_utf8_check(LIT("plain \xe4\xb8\xad\xf0\x9f\x98\x80"),
	    NULL));
}

/* ---- whitespace and strip ------------------------------------------------ */

static void
isspace_matches_python_over_every_code_point(void **state)
{
	/* [c for c in range(0x110000) if chr(c).isspace()] */
	static const uint32_t spaces[] = {
		0x9, 0xa, 0xb, 0xc, 0xd, 0x1c, 0x1d, 0x1e, 0x1f, 0x20, 0x85,
		0xa0, 0x1680, 0x2000, 0x2001, 0x2002, 0x2003, 0x2004, 0x2005,
		0x2006, 0x2007, 0x2008, 0x2009, 0x200a, 0x2028, 0x2029, 0x202f,
		0x205f, 0x3000
	};
	size_t k = 0;
	uint32_t cp;

	(void)state;
	for (cp = 0; cp < 0x110000; cp++) {
		bool want = k < sizeof(spaces) / sizeof(spaces[0]) &&
		    spaces[k] == cp;

		if (want)
			k++;
		if (tc_py_isspace(cp) != want)
			fail_msg("isspace(U+%04X) should be %d", (unsigned)cp,
			    want);
	}
}

static void
strip_removes_unicode_whitespace_but_never_an_ill_formed_byte(void **state)
{
	static const struct {
		const char *in;
		size_t len, start, end;
	} t[] = {
		{ LIT("  a b \xe3\x80\x80"), 2, 5 },
		{ LIT("\xc2\x85" "a" "\xc2\xa0"), 2, 3 },
		/* a lone 0x85 byte is not U+0085 (surrogateescape: U+DC85) */
		{ LIT("\x85" "a\x85"), 0, 3 },
		/* nor is an overlong form of a space a space */
		{ LIT("\xc0\xa0" "a"), 0, 3 },
		{ LIT(" \t\n\x1c\x1f"), 5, 5 },
		{ LIT(""), 0, 0 },
		{ LIT(" a\0 "), 1, 3 },
		/* a lone surrogate is text, not space */
		{ LIT(" \xed\xa0\x80 "), 1, 4 },
		/* ASCII ends that are not spaces keep the whole text, spaces
		 * and a truncated sequence inside included */
		{ LIT("x"), 0, 1 },
		{ LIT("a\xe3\x80\x80 \xc2z"), 0, 7 },
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		size_t a, b;

		tc_py_strip(t[i].in, t[i].len, &a, &b);
		assert_int_equal(a, t[i].start);
		assert_int_equal(b, t[i].end);
	}
}

static void
js_trim_uses_javascripts_white_space(void **state)
{
	/* U+0085 is Python's space, not JavaScript's; U+FEFF the other way */
	static const char s[] = "\xc2\x85" "a" "\xef\xbb\xbf";
	size_t a, b;

	(void)state;
	tc_text_strip(s, sizeof(s) - 1, tc_js_isspace, &a, &b);
	assert_int_equal(a, 0);
	assert_int_equal(b, 3);
	tc_py_strip(s, sizeof(s) - 1, &a, &b);
	assert_int_equal(a, 2);
	assert_int_equal(b, 6);
	assert_true(tc_js_isspace(0x2000) && tc_js_isspace(0x3000));
	assert_false(tc_js_isspace(0x1c) || tc_js_isspace(0x180e));
}

static void
strip_dup_returns_null_for_empty_results(void **state)
{
	char *s;

	(void)state;
	assert_null(tc_py_strip_dup(NULL));
	assert_null(tc_py_strip_dup(" \xe2\x80\xa8 "));
	s = tc_py_strip_dup("\t x y \n");
	assert_string_equal(s, "x y");
	free(s);
}

/* ---- canonical strings and relative artifact paths ---------------------- */

static void
canonical_string_is_nonblank_and_its_own_strip(void **state)
{
	(void)state;
	assert_true(tc_text_is_canonical(LIT("a")));
	assert_true(tc_text_is_canonical(LIT("a b")));
	assert_true(tc_text_is_canonical(LIT("\x85")));
	assert_false(tc_text_is_canonical(LIT("")));
	assert_false(tc_text_is_canonical(LIT(" a")));
	assert_false(tc_text_is_canonical(LIT("a\xe2\x80\xa8")));
	assert_false(tc_text_is_canonical(LIT("\xe3\x80\x80")));
	assert_false(tc_text_is_canonical(NULL, 0));
	assert_true(tc_text_has_content(LIT(" a ")));
	assert_false(tc_text_has_content(LIT(" \xc2\xa0 ")));
	assert_false(tc_text_has_content(NULL, 0));
}

/* The canonical and content tests look at the first and last bytes alone
 * when they are ASCII (an ASCII byte is always a code point of its own):
 * the same answer as a full strip() for every mix of ASCII, spaces, multi-byte,
 * ill-formed and lone-surrogate bytes at either end. */
static void
canonical_and_content_agree_with_strip_at_every_edge(void **state)
{
	static const char *const edge[] = {
		"", " ", "\t", "\x1c", "a", "\xc2\xa0", "\xc3\xa9", "\xe3\x80\x80",
		"\xe2\x80\xa8", "\xff", "\xc2", "\xe3\x80", "\xed\xa0\x80", "\x85",
		"\xc2\x85", "\xe1\x9a\x80", "\xe2\x80\x8a", "\xe2\x80\x8b",
		"\xe2\x81\x9f", "\xe2\x80\xaf", "\xf0\x9f\x98\x80", "\x80",
		"\xe4\xb8\xad\xe6\x96\x87", "\xe3\xe3\x80\x80", "\xf0\xe3\x80\x80",
		"\xe2\x80", "\x80\x80", "\xe2\xe3\x80\x80",
	};
	static const char *const middle[] = { "", "x y", "\xc2", "\xe3\x80", " " };
	size_t i, j, k, a, b;
	char text[64];

	(void)state;
	for (i = 0; i < sizeof(edge) / sizeof(edge[0]); i++)
		for (j = 0; j < sizeof(middle) / sizeof(middle[0]); j++)
			for (k = 0; k < sizeof(edge) / sizeof(edge[0]); k++) {
				size_t n = (size_t)snprintf(text, sizeof(text),
				    "%s%s%s", edge[i], middle[j], edge[k]);

				tc_py_strip(text, n, &a, &b);
				if (tc_text_is_canonical(text, n) !=
				    (a == 0 && b == n && n > 0))
					fail_msg("canonical differs from strip for "
					    "edges %zu, %zu, middle %zu", i, k, j);
				if (tc_text_has_content(text, n) != (a < b))
					fail_msg("has_content differs from strip "
					    "for edges %zu, %zu, middle %zu", i, k, j);
			}
}

static void
relative_artifact_follows_posix_path_parts(void **state)
{
	static const struct {
		const char *in;
		bool ok;
	} t[] = {
		{ "a/b", true }, { ".", true }, { "a/./b", true },
		{ "..a", true }, { "a..", true }, { "a\\..\\b", true },
		{ "/a", false }, { "..", false }, { "a/../b", false },
		{ "a//..", false }, { "a/..", false }, { " a", false },
		{ "a ", false }, { "", false },
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(t) / sizeof(t[0]); i++)
		if (tc_text_is_relative_artifact(t[i].in, strlen(t[i].in)) !=
		    t[i].ok)
			fail_msg("relative artifact %s: want %d", t[i].in,
			    t[i].ok);
	/* a NUL byte is an ordinary character of a Python str */
	assert_true(tc_text_is_relative_artifact(LIT("a\0b")));
}

static void
require_functions_use_the_reference_messages(void **state)
{
	tc_error err = TC_ERROR_INIT;

	(void)state;
	assert_int_equal(tc_text_require_canonical(LIT("ok"), "x", &err), 0);
	assert_int_equal(tc_text_require_canonical(LIT(" "), "x", &err), -1);
	assert_string_equal(tc_error_msg(&err),
	    "x must be a non-empty canonical string");
	assert_int_equal(tc_text_require_relative_artifact(NULL, 0, "p", &err),
	    -1);
	assert_string_equal(tc_error_msg(&err),
	    "p must be a non-empty canonical string");
	assert_int_equal(tc_text_require_relative_artifact(LIT("/etc"), "p",
	    &err), -1);
	assert_string_equal(tc_error_msg(&err),
	    "p must be a relative artifact path");
	assert_int_equal(tc_text_require_relative_artifact(LIT("a/b"), "p",
	    &err), 0);
	tc_error_clear(&err);
}

static void
has_cp_in_finds_a_character_class(void **state)
{
	(void)state;
	assert_true(tc_text_has_cp_in(LIT("ok \xe4\xb8\xad"), 0x4e00, 0x9fff));
	assert_false(tc_text_has_cp_in(LIT("ok \xe3\x90\x80"), 0x4e00,
	    0x9fff));
	assert_true(tc_text_has_cp_in(LIT("ok \xe3\x90\x80"), 0x3400, 0x4dbf));
	assert_false(tc_text_has_cp_in(LIT("\xe4\xb8"), 0x4e00, 0x9fff));
}

/* ---- numbers ------------------------------------------------------------ */

static void
isclose_matches_cpython(void **state)
{
	(void)state;
	assert_true(tc_py_isclose(1e9, 1e9 + 999, 1e-6, 1e-6));
	assert_false(tc_py_isclose(1e9, 1e9 + 1001, 1e-6, 1e-6));
	assert_true(tc_py_isclose(0.0, 1e-6, 1e-6, 1e-6));
	assert_false(tc_py_isclose(0.0, 1.1e-6, 1e-6, 1e-6));
	assert_false(tc_py_isclose(NAN, NAN, 1e-6, 1e-6));
	assert_true(tc_py_isclose(INFINITY, INFINITY, 1e-6, 1e-6));
	assert_false(tc_py_isclose(-INFINITY, INFINITY, 1e-6, 1e-6));
	assert_false(tc_py_isclose(INFINITY, 1e308, 1e-6, 1e-6));
}

static void
fixed_spells_non_finite_values_like_python(void **state)
{
	static const struct {
		double x;
		int prec;
		const char *want;
	} t[] = {
		{ NAN, 2, "nan" }, { -NAN, 2, "nan" }, { INFINITY, 4, "inf" },
		{ -INFINITY, 3, "-inf" }, { -0.0, 1, "-0.0" },
		{ 2.675, 2, "2.67" }, { 1.5, 4, "1.5000" },
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		tc_buf b = TC_BUF_INIT;

		tc_py_fixed(&b, t[i].x, t[i].prec);
		assert_string_equal(tc_buf_cstr(&b), t[i].want);
		tc_buf_free(&b);
	}
}

/* ---- repr ---------------------------------------------------------------- */

static void
repr_quotes_and_escapes_like_cpython(void **state)
{
	static const struct {
		const char *in;
		size_t len;
		enum tc_utf8_policy policy;
		const char *want;
	} t[] = {
		{ LIT("a'b"), TC_UTF8_WTF8, "\"a'b\"" },
		{ LIT("a\"b'c"), TC_UTF8_WTF8, "'a\"b\\'c'" },
		{ LIT("\x7f\xc2\xa0\xf0\x9f\x98\x80\xc3\xa9"), TC_UTF8_WTF8,
		  "'\\x7f\\xa0\xf0\x9f\x98\x80\xc3\xa9'" },
		{ LIT("a\xff"), TC_UTF8_ESCAPE, "'a\\udcff'" },
		{ LIT("\xed\xa0\x80"), TC_UTF8_WTF8, "'\\ud800'" },
		{ LIT("\xed\xa0\x80"), TC_UTF8_ESCAPE,
		  "'\\udced\\udca0\\udc80'" },
		{ LIT("\xed\xa0\x80"), TC_UTF8_STRICT,
		  "'\\udced\\udca0\\udc80'" },
		{ LIT("t\tn\nr\r\\"), TC_UTF8_WTF8, "'t\\tn\\nr\\r\\\\'" },
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		tc_buf b = TC_BUF_INIT;

		tc_py_repr_str(&b, t[i].in, t[i].len, t[i].policy);
		assert_string_equal(tc_buf_cstr(&b), t[i].want);
		tc_buf_free(&b);
	}
	assert_true(tc_py_isprintable(0xe9));
	assert_false(tc_py_isprintable(0xa0));
	assert_false(tc_py_isprintable(0xd800));
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(decode_follows_the_policy_for_ill_formed_bytes),
		cmocka_unit_test(encode_round_trips_and_counts_code_points),
		cmocka_unit_test(check_reports_pythons_decode_errors),
		cmocka_unit_test(isspace_matches_python_over_every_code_point),
		cmocka_unit_test(
		    strip_removes_unicode_whitespace_but_never_an_ill_formed_byte),
		cmocka_unit_test(js_trim_uses_javascripts_white_space),
		cmocka_unit_test(strip_dup_returns_null_for_empty_results),
		cmocka_unit_test(canonical_string_is_nonblank_and_its_own_strip),
		cmocka_unit_test(canonical_and_content_agree_with_strip_at_every_edge),
		cmocka_unit_test(relative_artifact_follows_posix_path_parts),
		cmocka_unit_test(require_functions_use_the_reference_messages),
		cmocka_unit_test(has_cp_in_finds_a_character_class),
		cmocka_unit_test(isclose_matches_cpython),
		cmocka_unit_test(fixed_spells_non_finite_values_like_python),
		cmocka_unit_test(repr_quotes_and_escapes_like_cpython),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
