/*
 * final_common.c - predicates the Final-step checks share: finite and
 * positive numbers and Python's arithmetic on the clean medians; plus
 * the FINAL_DETAIL_KEYS and SUMMARY_STAGES tables.  (Canonical strings,
 * relative artifact paths and isclose are tunectl/text.h's.)
 */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "final_internal.h"
#include "tunectl/canon.h"
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

const char *
tc_final_str(const tc_json *v)
{
	return tc_is_canonical_string(v) ? v->u.str.ptr : NULL;
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
