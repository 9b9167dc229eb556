/*
 * test_pypto_select.c - best-version selection (docs/spec/pypto.md
 * "Best-version selection"): the anchor-based tie rule, chains that would be
 * non-transitive if judged pairwise, the baseline kept when nothing is stably
 * better, exact boundaries, relative ranges, weights, non-target cases and
 * candidates that are not rankable.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "tunectl/pypto_select.h"

static const char *const one_case[] = { "p0" };
static const double base120[] = { 120.0 };
static const bool target1[] = { true };

static tc_pypto_selection_rule
rule1(const char *delta, bool relative)
{
	tc_pypto_selection_rule r;

	memset(&r, 0, sizeof(r));
	r.n_cases = 1;
	r.case_ids = one_case;
	r.baseline = base120;
	r.target = target1;
	r.relative = relative;
	r.stability_value = delta;
	return r;
}

static const char *
selected(const tc_json *out)
{
	return tc_json_get_string(tc_json_get(out, "selected"), "candidate_id");
}

static tc_json *
rank_ok(const tc_pypto_selection_rule *r, const tc_pypto_score_in *c, size_t n)
{
	tc_error err = TC_ERROR_INIT;
	tc_json *out = tc_pypto_rank(r, c, n, &err);

	if (out == NULL)
		fail_msg("rank failed: %s", tc_error_msg(&err));
	return out;
}

static bool
in_tie_set(const tc_json *out, const char *id)
{
	const tc_json *t = tc_json_get(out, "tie_set");
	size_t i;

	for (i = 0; i < t->u.arr.len; i++)
		if (strcmp(tc_json_string(t->u.arr.items[i]), id) == 0)
			return true;
	return false;
}

static void
highest_score_wins_when_stably_better(void **st)
{
	double b[] = { 120.0 }, c1[] = { 100.0 }, c2[] = { 60.0 };
	tc_pypto_score_in in[] = {
		{ "baseline", 0, true, b }, { "c1", 1, true, c1 },
		{ "c2", 2, true, c2 }
	};
	tc_pypto_selection_rule r = rule1("0.05", false);
	tc_json *out = rank_ok(&r, in, 3);

	(void)st;
	assert_string_equal(selected(out), "c2");
	assert_string_equal(tc_json_get_string(out, "anchor"), "c2");
	assert_false(tc_json_get(out, "baseline_kept")->u.b);
	assert_string_equal(tc_json_get_string(tc_json_get(out,
	    "candidates")->u.arr.items[2], "score_exact"), "2");
	tc_json_free(out);
}

static void
anchor_tie_picks_the_smallest_evaluation_order(void **st)
{
	/* scores 1.20 (order 1) and 1.22 (order 2): within 0.05 of anchor */
	double b[] = { 120.0 }, c1[] = { 100.0 }, c2[] = { 120.0 / 1.22 };
	tc_pypto_score_in in[] = {
		{ "baseline", 0, true, b }, { "later", 2, true, c2 },
		{ "earlier", 1, true, c1 }
	};
	tc_pypto_selection_rule r = rule1("0.05", false);
	tc_json *out = rank_ok(&r, in, 3);

	(void)st;
	assert_string_equal(tc_json_get_string(out, "anchor"), "later");
	assert_string_equal(selected(out), "earlier");
	assert_true(in_tie_set(out, "later"));
	assert_true(in_tie_set(out, "earlier"));
	assert_false(in_tie_set(out, "baseline"));
	tc_json_free(out);
}

static void
chains_are_judged_against_the_anchor_only(void **st)
{
	/* X=1.00 (order 1), Y=1.04 (order 2), Z=1.08 (order 3), range 0.05:
	 * X~Y and Y~Z pairwise, but only Y is within range of the anchor Z,
	 * so Y wins; a pairwise chain would have reached X. */
	double b[] = { 120.0 }, x[] = { 120.0 }, y[] = { 120.0 / 1.04 },
	    z[] = { 120.0 / 1.08 }, base_slow[] = { 240.0 };
	tc_pypto_score_in in[] = {
		{ "x", 1, true, x }, { "y", 2, true, y }, { "z", 3, true, z },
		{ "baseline", 0, false, base_slow }
	};
	tc_pypto_selection_rule r = rule1("0.05", false);
	tc_json *out;

	(void)st;
	(void)b;
	out = rank_ok(&r, in, 4);
	assert_string_equal(tc_json_get_string(out, "anchor"), "z");
	assert_string_equal(selected(out), "y");
	assert_false(in_tie_set(out, "x"));
	tc_json_free(out);
}

static void
baseline_is_kept_when_nothing_is_stably_better(void **st)
{
	double b[] = { 120.0 }, c1[] = { 120.0 / 1.03 }, c2[] = { 120.0 / 1.04 };
	tc_pypto_score_in in[] = {
		{ "baseline", 0, true, b }, { "c1", 1, true, c1 },
		{ "c2", 2, true, c2 }
	};
	tc_pypto_selection_rule r = rule1("0.05", false);
	tc_json *out = rank_ok(&r, in, 3);

	(void)st;
	assert_string_equal(tc_json_get_string(out, "anchor"), "c2");
	assert_string_equal(selected(out), "baseline");
	assert_true(tc_json_get(out, "baseline_kept")->u.b);
	tc_json_free(out);
}

static void
the_boundary_is_inside_the_range_exactly(void **st)
{
	/* speedups exactly 1.0 and 1.25: a difference of exactly 0.25 */
	double b[] = { 120.0 }, c1[] = { 96.0 };
	tc_pypto_score_in in[] = {
		{ "baseline", 0, true, b }, { "c1", 1, true, c1 }
	};
	tc_pypto_selection_rule r = rule1("0.25", false);
	tc_json *out = rank_ok(&r, in, 2);

	(void)st;
	assert_string_equal(selected(out), "baseline");
	tc_json_free(out);
	r.stability_value = "0.2499999999999999999999";
	out = rank_ok(&r, in, 2);
	assert_string_equal(selected(out), "c1");
	tc_json_free(out);
}

static void
relative_range_scales_with_the_anchor(void **st)
{
	/* anchor 2.0; c1 1.85: 0.15 apart, inside 10% of 2.0 (0.2) */
	double b[] = { 120.0 }, c1[] = { 120.0 / 1.85 }, c2[] = { 60.0 };
	tc_pypto_score_in in[] = {
		{ "baseline", 0, true, b }, { "c1", 1, true, c1 },
		{ "c2", 2, true, c2 }
	};
	tc_pypto_selection_rule r = rule1("0.1", true);
	tc_json *out = rank_ok(&r, in, 3);

	(void)st;
	assert_string_equal(selected(out), "c1");
	tc_json_free(out);
	r.relative = false;	/* absolute 0.1 < 0.15 */
	out = rank_ok(&r, in, 3);
	assert_string_equal(selected(out), "c2");
	tc_json_free(out);
}

static void
candidates_that_are_not_rankable_never_anchor_or_win(void **st)
{
	double b[] = { 120.0 }, fast[] = { 30.0 }, ok[] = { 100.0 };
	tc_pypto_score_in in[] = {
		{ "baseline", 0, true, b }, { "incorrect", 1, false, fast },
		{ "ok", 2, true, ok }
	};
	tc_pypto_selection_rule r = rule1("0", false);
	tc_json *out = rank_ok(&r, in, 3);
	tc_error err = TC_ERROR_INIT;

	(void)st;
	assert_string_equal(tc_json_get_string(out, "anchor"), "ok");
	assert_string_equal(selected(out), "ok");
	assert_false(in_tie_set(out, "incorrect"));
	tc_json_free(out);
	in[0].rankable = in[2].rankable = false;
	assert_null(tc_pypto_rank(&r, in, 3, &err));
	assert_string_equal(tc_error_msg(&err), "no correct and compliant "
	    "candidate completed a formal compare; nothing can be selected");
	tc_error_clear(&err);
}

static void
equal_raw_scores_anchor_on_the_earlier_candidate(void **st)
{
	double b[] = { 120.0 }, c[] = { 100.0 };
	tc_pypto_score_in in[] = {
		{ "baseline", 0, true, b }, { "second", 2, true, c },
		{ "first", 1, true, c }
	};
	tc_pypto_selection_rule r = rule1("0", false);
	tc_json *out = rank_ok(&r, in, 3);

	(void)st;
	assert_string_equal(tc_json_get_string(out, "anchor"), "first");
	assert_string_equal(selected(out), "first");
	assert_true(in_tie_set(out, "second"));
	tc_json_free(out);
}

static void
only_target_cases_score_and_weights_apply(void **st)
{
	static const char *const ids[] = { "a", "b" };
	double base[] = { 100.0, 100.0 };
	bool target_a[] = { true, false };
	bool both[] = { true, true };
	double w[] = { 3.0, 1.0 };
	double ca[] = { 50.0, 400.0 }, cb[] = { 100.0, 25.0 };
	tc_pypto_score_in in[] = {
		{ "baseline", 0, true, base }, { "fast_a", 1, true, ca },
		{ "fast_b", 2, true, cb }
	};
	tc_pypto_selection_rule r;
	tc_json *out;

	(void)st;
	memset(&r, 0, sizeof(r));
	r.n_cases = 2;
	r.case_ids = ids;
	r.baseline = base;
	r.target = target_a;
	r.stability_value = "0";
	/* only case a counts: fast_a scores 2, its regression on b is only
	 * disclosed */
	out = rank_ok(&r, in, 3);
	assert_string_equal(selected(out), "fast_a");
	tc_json_free(out);
	/* equal weights over both: fast_a (2 + 0.25)/2 = 1.125,
	 * fast_b (1 + 4)/2 = 2.5 */
	r.target = both;
	out = rank_ok(&r, in, 3);
	assert_string_equal(selected(out), "fast_b");
	assert_string_equal(tc_json_get_string(tc_json_get(out,
	    "candidates")->u.arr.items[1], "score_exact"), "9/8");
	tc_json_free(out);
	/* weights 3:1: fast_a (3*2 + 0.25)/4 = 1.5625, fast_b (3 + 4)/4 = 1.75 */
	r.weights = w;
	out = rank_ok(&r, in, 3);
	assert_string_equal(tc_json_get_string(tc_json_get(out,
	    "candidates")->u.arr.items[1], "score_exact"), "25/16");
	assert_string_equal(selected(out), "fast_b");
	tc_json_free(out);
}

static void
invalid_inputs_are_refused(void **st)
{
	double b[] = { 120.0 }, bad[] = { 0.0 };
	tc_pypto_score_in in[] = {
		{ "baseline", 0, true, b }, { "zero", 1, true, bad }
	};
	tc_pypto_selection_rule r = rule1("0.05", false);
	tc_error err = TC_ERROR_INIT;

	(void)st;
	assert_null(tc_pypto_rank(&r, in, 2, &err));
	assert_string_equal(tc_error_msg(&err), "candidate zero: duration of case "
	    "p0 is not a finite positive number");
	tc_error_clear(&err);
	r.stability_value = "-0.1";
	assert_null(tc_pypto_rank(&r, in, 1, &err));
	assert_string_equal(tc_error_msg(&err), "the stability range must be a "
	    "non-negative decimal number, got -0.1");
	tc_error_clear(&err);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(highest_score_wins_when_stably_better),
		cmocka_unit_test(anchor_tie_picks_the_smallest_evaluation_order),
		cmocka_unit_test(chains_are_judged_against_the_anchor_only),
		cmocka_unit_test(baseline_is_kept_when_nothing_is_stably_better),
		cmocka_unit_test(the_boundary_is_inside_the_range_exactly),
		cmocka_unit_test(relative_range_scales_with_the_anchor),
		cmocka_unit_test(candidates_that_are_not_rankable_never_anchor_or_win),
		cmocka_unit_test(equal_raw_scores_anchor_on_the_earlier_candidate),
		cmocka_unit_test(only_target_cases_score_and_weights_apply),
		cmocka_unit_test(invalid_inputs_are_refused),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
