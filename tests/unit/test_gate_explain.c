/*
 * test_gate_explain.c - tc_gate_explain: a refused gate report in words,
 * with the numbers the gate compared and the thresholds they missed; a
 * report that passed explains nothing.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "tunectl/bench.h"

/* Explain the report in text under label; expect the lines (NULL: the
 * report refused nothing). */
static void
expect_explained(const char *text, const char *label, const char *lines)
{
	tc_json *doc = tc_json_parse(text, strlen(text), NULL);
	tc_buf out = TC_BUF_INIT;

	assert_non_null(doc);
	assert_int_equal(tc_gate_explain(doc, label, &out), lines != NULL);
	if (lines != NULL)
		assert_string_equal(out.data, lines);
	else
		assert_int_equal(out.len, 0);
	tc_buf_free(&out);
	tc_json_free(doc);
}

static void
test_unstable_baseline_names_spread_and_runs(void **state)
{
	(void)state;
	expect_explained("{\"candidates\": {}, \"selection\": {}, "
	    "\"baseline_stability\": {\"stable\": false, \"checks\": "
	    "{\"required_run_count\": true, \"max_spread_pct\": false}, "
	    "\"required_run_count\": 5, \"max_spread_pct\": 5.0, "
	    "\"spread_pct\": 6.2, \"run_worst_rank_means_ms\": "
	    "[1.0, 1.02, 1.04, 1.062, 1.01]}}",
	    "stability gate (s0/stability.json)",
	    "stability gate (s0/stability.json): "
	    "spread 6.20 % > 5.0 % (per-run worst-rank means 1.0000, 1.0200, "
	    "1.0400, 1.0620, 1.0100 ms)\n");
}

static void
test_too_few_runs_is_named(void **state)
{
	(void)state;
	expect_explained("{\"selection\": {}, \"baseline_stability\": "
	    "{\"stable\": false, \"checks\": {\"required_run_count\": false, "
	    "\"max_spread_pct\": true}, \"required_run_count\": 5, "
	    "\"max_spread_pct\": 5.0, \"spread_pct\": 1.0, "
	    "\"run_worst_rank_means_ms\": [1.0, 1.01]}}",
	    "S0",
	    "S0: 2 runs where the gate needs 5\n");
}

static void
test_stable_baseline_explains_nothing(void **state)
{
	(void)state;
	expect_explained("{\"candidates\": {}, \"selection\": {}, "
	    "\"baseline_stability\": {\"stable\": true, \"checks\": "
	    "{\"required_run_count\": true, \"max_spread_pct\": true}, "
	    "\"spread_pct\": 1.0}}",
	    "S0",
	    NULL);
}

static void
test_screening_lists_each_failed_check(void **state)
{
	(void)state;
	expect_explained("{\"selection\": {\"stage\": \"candidate_screening\"}, "
	    "\"baseline_stability\": {\"stable\": true}, \"candidates\": {"
	    "\"S1\": {\"screening_eligibility\": {\"eligible\": false, "
	    "\"checks\": {\"baseline_stable\": true, \"baseline_min_runs\": true, "
	    "\"candidate_min_runs\": true, \"mean_improvement\": false, "
	    "\"median_run_direction\": true, \"p90_no_material_regression\": "
	    "false, \"stddev_no_material_regression\": false}, "
	    "\"mean_improvement_rule\": \"at_least_threshold\", "
	    "\"min_improvement_pct\": 2.0, \"mean_improvement_pct\": 1.5, "
	    "\"p90_regression_pct\": 0.25, \"allow_p90_regression_pct\": 0.0, "
	    "\"stddev_regression_pct\": 89.7, "
	    "\"allow_stddev_regression_pct\": 50.0}}, "
	    "\"S2\": {\"screening_eligibility\": {\"eligible\": true, "
	    "\"checks\": {\"mean_improvement\": true}}}}}",
	    "screening gate",
	    "screening gate S1: mean improvement "
	    "+1.50 % (needs >= 2.0 %); P90 regression +0.25 % (allowed 0.0 %); "
	    "stddev regression +89.70 % (allowed 50.0 %)\n");
}

static void
test_option_trial_needs_a_positive_gain(void **state)
{
	(void)state;
	expect_explained("{\"selection\": {\"stage\": \"winner_option_trial\"}, "
	    "\"baseline_stability\": {\"stable\": true}, \"candidates\": {"
	    "\"O2\": {\"option_trial_evaluation\": {\"accepted\": false, "
	    "\"checks\": {\"mean_improvement\": false, \"median_run_direction\": "
	    "false}, \"mean_improvement_rule\": \"strictly_positive\", "
	    "\"mean_improvement_pct\": -0.8, \"median_run_improvement_pct\": "
	    "-1.1}}}}",
	    "trial",
	    "trial O2: mean improvement -0.80 % "
	    "(must be > 0); median run improvement -1.10 % (must be > 0)\n");
}

static void
test_decide_by_ci_names_the_interval(void **state)
{
	(void)state;
	expect_explained("{\"selection\": {\"stage\": \"final_promotion\"}, "
	    "\"baseline_stability\": {\"stable\": true}, \"candidates\": {"
	    "\"S1\": {\"promotion\": {\"promoted\": false, \"checks\": "
	    "{\"ci_improvement\": false, \"median_run_direction\": true}, "
	    "\"mean_improvement_rule\": \"at_least_threshold\", "
	    "\"decide_by\": \"ci\", \"min_improvement_pct\": 2.0, "
	    "\"ci95_improvement_pct\": [-1.25, 4.5]}}}}",
	    "final gate",
	    "final gate S1: improvement 95% interval [-1.25 %, +4.50 %] "
	    "(must exclude 0, lower bound >= 2.0 %)\n");
	expect_explained("{\"selection\": {}, \"candidates\": {"
	    "\"O1\": {\"option_trial_evaluation\": {\"accepted\": false, "
	    "\"checks\": {\"ci_improvement\": false}, "
	    "\"mean_improvement_rule\": \"strictly_positive\", "
	    "\"ci95_improvement_pct\": [null, null]}}}}",
	    "trial",
	    "trial O1: improvement 95% interval not computed "
	    "(lower bound must be > 0)\n");
}

static void
test_promotion_names_replay_failure(void **state)
{
	(void)state;
	expect_explained("{\"selection\": {\"stage\": \"final_promotion\"}, "
	    "\"baseline_stability\": {\"stable\": true}, \"candidates\": {"
	    "\"Sbest\": {\"promotion\": {\"promoted\": false, \"checks\": "
	    "{\"deep_fusion_replay\": false, \"mean_improvement\": true}, "
	    "\"deep_fusion_replay\": {\"failure_reason\": "
	    "\"replay_evidence_missing\"}}}}}",
	    "promotion",
	    "promotion Sbest: deep-fusion replay "
	    "evidence invalid (replay_evidence_missing)\n");
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_unstable_baseline_names_spread_and_runs),
		cmocka_unit_test(test_too_few_runs_is_named),
		cmocka_unit_test(test_stable_baseline_explains_nothing),
		cmocka_unit_test(test_screening_lists_each_failed_check),
		cmocka_unit_test(test_option_trial_needs_a_positive_gain),
		cmocka_unit_test(test_promotion_names_replay_failure),
		cmocka_unit_test(test_decide_by_ci_names_the_interval),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
