/*
 * final_common.c - predicates the Final-step checks share: the
 * reference's canonical string and relative artifact path, finite and
 * positive numbers, math.isclose, and Python's arithmetic on the clean
 * medians; plus the FINAL_DETAIL_KEYS and SUMMARY_STAGES tables.
 */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "final_internal.h"
#include "tunectl/final.h"

const char *const tc_final_detail_keys[TC_FINAL_DETAIL_KEY_COUNT] = {
	"environment", "s0", "stage_a", "stage_o",
	"base_profile_source_mapping", "optional_experiments", "final_e2e"
};

const struct tc_summary_stage tc_summary_stages[TC_SUMMARY_STAGE_COUNT] = {
	{ "stage_a", "screening", "stage_a_scope_selection", NULL },
	{ "stage_o", "option", "stage_o_option_tuning", NULL },
	{ "base_profile_source_mapping", "profiling",
	  "base_profile_source_mapping", NULL },
	{ "optional_multistream", "optional_clean", "optional_experiments",
	  "multistream" },
	{ "optional_source_range", "optional_clean", "optional_experiments",
	  "source-range" },
	{ "optional_experiments", "optional_clean", "optional_experiments",
	  "none" },
};

/* Python's str.isspace() code points. */
static bool
py_isspace(uint32_t c)
{
	return (c >= 0x09 && c <= 0x0D) || (c >= 0x1C && c <= 0x20) ||
	    c == 0x85 || c == 0xA0 || c == 0x1680 ||
	    (c >= 0x2000 && c <= 0x200A) || c == 0x2028 || c == 0x2029 ||
	    c == 0x202F || c == 0x205F || c == 0x3000;
}

/* Decode one WTF-8 sequence leniently (the reader produced it); an
 * invalid byte counts as one non-space unit. */
static size_t
decode(const unsigned char *s, size_t len, uint32_t *cp)
{
	size_t n, i;
	uint32_t c;

	if (s[0] < 0x80) {
		*cp = s[0];
		return 1;
	}
	if ((s[0] & 0xE0) == 0xC0) {
		n = 2;
		c = s[0] & 0x1F;
	} else if ((s[0] & 0xF0) == 0xE0) {
		n = 3;
		c = s[0] & 0x0F;
	} else if ((s[0] & 0xF8) == 0xF0) {
		n = 4;
		c = s[0] & 0x07;
	} else {
		*cp = 0xFFFD;
		return 1;
	}
	if (n > len) {
		*cp = 0xFFFD;
		return 1;
	}
	for (i = 1; i < n; i++) {
		if ((s[i] & 0xC0) != 0x80) {
			*cp = 0xFFFD;
			return 1;
		}
		c = (c << 6) | (s[i] & 0x3F);
	}
	*cp = c;
	return n;
}

/* Byte offsets of the first and past-the-last non-space code point. */
static void
strip_range(const char *str, size_t len, size_t *first, size_t *end)
{
	const unsigned char *s = (const unsigned char *)str;
	size_t i = 0;

	*first = SIZE_MAX;
	*end = 0;
	while (i < len) {
		uint32_t cp;
		size_t n = decode(s + i, len - i, &cp);

		if (!py_isspace(cp)) {
			if (*first == SIZE_MAX)
				*first = i;
			*end = i + n;
		}
		i += n;
	}
}

bool
tc_final_canonical_bytes(const char *s, size_t len)
{
	size_t first, end;

	strip_range(s, len, &first, &end);
	/* non-empty after strip(), and equal to its strip() */
	return first == 0 && end == len;
}

bool
tc_final_is_canonical_string(const tc_json *v)
{
	return tc_json_is(v, TC_JSON_STRING) &&
	    tc_final_canonical_bytes(v->u.str.ptr, v->u.str.len);
}

bool
tc_final_has_content(const tc_json *v)
{
	size_t first, end;

	if (!tc_json_is(v, TC_JSON_STRING))
		return false;
	strip_range(v->u.str.ptr, v->u.str.len, &first, &end);
	return first != SIZE_MAX;
}

int
tc_final_require_canonical(const tc_json *v, const char *name, tc_error *err)
{
	if (tc_final_is_canonical_string(v))
		return 0;
	tc_error_set(err, "%s must be a non-empty canonical string", name);
	return -1;
}

static bool
has_dotdot_component(const char *s, size_t len)
{
	size_t i = 0;

	while (i <= len) {
		size_t j = i;

		while (j < len && s[j] != '/')
			j++;
		if (j - i == 2 && s[i] == '.' && s[i + 1] == '.')
			return true;
		i = j + 1;
	}
	return false;
}

int
tc_final_require_relative(const tc_json *v, const char *name, tc_error *err)
{
	if (tc_final_require_canonical(v, name, err) != 0)
		return -1;
	if (v->u.str.ptr[0] == '/' ||
	    has_dotdot_component(v->u.str.ptr, v->u.str.len)) {
		tc_error_set(err, "%s must be a relative artifact path", name);
		return -1;
	}
	return 0;
}

const char *
tc_final_str(const tc_json *v)
{
	return tc_final_is_canonical_string(v) ? v->u.str.ptr : NULL;
}

bool
tc_final_finite_number(const tc_json *v, double *out)
{
	double d;

	if (!tc_json_number(v, &d) || !isfinite(d))
		return false;
	if (out != NULL)
		*out = d;
	return true;
}

bool
tc_final_positive_int(const tc_json *v)
{
	const char *t;

	if (!tc_json_is(v, TC_JSON_INT))
		return false;
	t = v->u.int_text;
	return t[0] != '-' && strcmp(t, "0") != 0;
}

bool
tc_final_isclose(double a, double b, double rel, double abs_tol)
{
	double diff;

	/* CPython's math_isclose_impl, step for step. */
	if (a == b)
		return true;
	if (isinf(a) || isinf(b))
		return false;
	diff = fabs(b - a);
	return diff <= fabs(rel * b) || diff <= fabs(rel * a) ||
	    diff <= abs_tol;
}

#define EXACT_LIMIT 9007199254740992LL	/* 2**53 */

/* Both operands integers that fit int64: their exact difference. */
static bool
int_sub(const tc_json *a, const tc_json *b, int64_t *diff)
{
	int64_t x, y;

	if (!tc_json_int64(a, &x) || !tc_json_int64(b, &y))
		return false;
	return !__builtin_sub_overflow(x, y, diff);
}

double
tc_final_delta(const tc_json *b, const tc_json *c)
{
	int64_t d;
	double x = 0, y = 0;

	/* Python subtracts two ints exactly, then '%f' converts the result
	 * with correct rounding -- as the int64 -> double conversion does. */
	if (int_sub(c, b, &d))
		return (double)d;
	(void)tc_json_number(b, &x);
	(void)tc_json_number(c, &y);
	return y - x;
}

double
tc_final_pct_change(const tc_json *b, const tc_json *c)
{
	int64_t d, bi;
	double x = 0, y = 0;

	/* int / int is a correctly rounded true division in Python; with
	 * both operands exact doubles, IEEE division gives the same. */
	if (int_sub(b, c, &d) && tc_json_int64(b, &bi) &&
	    d >= -EXACT_LIMIT && d <= EXACT_LIMIT &&
	    bi >= -EXACT_LIMIT && bi <= EXACT_LIMIT)
		return (double)d / (double)bi;
	(void)tc_json_number(b, &x);
	(void)tc_json_number(c, &y);
	return (x - y) / x;
}

double
tc_final_report_improvement(const tc_json *b, const tc_json *c)
{
	int64_t d, bi;
	double x = 0, y = 0;

	/* The renderer computes delta = c - b first and then (-delta) / b *
	 * 100, so two equal floats give -0.0 ("-0.000000%") while two equal
	 * ints give +0.0: int negation has no signed zero. */
	if (int_sub(c, b, &d) && d != INT64_MIN && tc_json_int64(b, &bi) &&
	    d >= -EXACT_LIMIT && d <= EXACT_LIMIT &&
	    bi >= -EXACT_LIMIT && bi <= EXACT_LIMIT)
		return (double)(-d) / (double)bi * 100;
	(void)tc_json_number(b, &x);
	(void)tc_json_number(c, &y);
	return -(y - x) / x * 100;
}
