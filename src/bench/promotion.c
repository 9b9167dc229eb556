/*
 * promotion.c - evaluate_promotion (docs/spec/gates.md "Candidate evaluation"):
 * the per-candidate checks of final promotion, Stage-A screening and the winner
 * option trial, and their JSON forms in each mode.
 */
#include <string.h>

#include "tunectl/bench.h"
#include "bench_internal.h"

/* (b - c) / b * 100, or no value when b == 0. */
static bool
gain_pct(double b, double c, double *out)
{
	if (b == 0.0)
		return false;
	*out = (b - c) / b * 100;
	return true;
}

static bool
regression_pct(double b, double c, double *out)
{
	if (b == 0.0)
		return false;
	*out = (c - b) / b * 100;
	return true;
}

void
tc_evaluate(const tc_runset *baseline, const tc_runset *cand,
    const tc_gate_policy *policy, tc_gate_mode mode, bool replay_valid,
    tc_evaluation *out)
{
	tc_stability st;

	memset(out, 0, sizeof(*out));
	tc_stability_eval_runset(baseline, &st);
	tc_stability_set_limit(&st, policy->max_spread_pct);
	out->strict_gain = mode == TC_GATE_OPTION_TRIAL;
	out->min_improvement_pct = out->strict_gain ?
	    TC_OPTION_TRIAL_MIN_IMPROVEMENT_PCT : policy->min_improvement_pct;
	out->has_mean = gain_pct(baseline->worst_rank_mean_ms,
	    cand->worst_rank_mean_ms, &out->mean_improvement_pct);
	out->has_median = gain_pct(baseline->median_run_worst_rank_mean_ms,
	    cand->median_run_worst_rank_mean_ms,
	    &out->median_run_improvement_pct);
	out->has_p90 = regression_pct(baseline->decode.p90_ms,
	    cand->decode.p90_ms, &out->p90_regression_pct);
	out->has_stddev = regression_pct(baseline->decode.stddev_ms,
	    cand->decode.stddev_ms, &out->stddev_regression_pct);

	out->baseline_stable = st.stable;
	out->baseline_min_runs = baseline->run_count == TC_S0_REQUIRED_RUNS;
	out->candidate_min_runs = cand->run_count >= TC_CANDIDATE_MIN_RUNS;
	out->deep_fusion_replay = replay_valid;
	out->mean_improvement = out->has_mean && (out->strict_gain ?
	    out->mean_improvement_pct > 0.0 :
	    out->mean_improvement_pct >= out->min_improvement_pct);
	out->median_run_direction = out->has_median &&
	    out->median_run_improvement_pct > 0;
	out->p90_no_material_regression = out->has_p90 &&
	    out->p90_regression_pct <= policy->allow_p90_regression_pct;
	out->stddev_no_material_regression = out->has_stddev &&
	    out->stddev_regression_pct <= policy->allow_stddev_regression_pct;
	out->passed = tc_evaluation_passes(out, out->mean_improvement);
	tc_stability_free(&st);
}

bool
tc_evaluation_passes(const tc_evaluation *e, bool improvement)
{
	return e->baseline_stable && e->baseline_min_runs &&
	    e->candidate_min_runs && e->deep_fusion_replay && improvement &&
	    e->median_run_direction && e->p90_no_material_regression &&
	    e->stddev_no_material_regression;
}

bool
tc_evaluation_apply_interval(tc_evaluation *e, bool ci_ok, double ci_lo,
    bool decide_by_ci, bool relative, bool *waived_stable,
    bool *waived_stddev)
{
	bool pass = ci_ok && ci_lo > 0 && (e->strict_gain ||
	    ci_lo >= e->min_improvement_pct);

	if (relative && pass) {
		/* a win the interval establishes is not refused for the
		 * spread: the figures stay in the report */
		if (waived_stable != NULL)
			*waived_stable = !e->baseline_stable;
		if (waived_stddev != NULL)
			*waived_stddev = !e->stddev_no_material_regression;
		e->baseline_stable = true;
		e->stddev_no_material_regression = true;
	}
	if (decide_by_ci || relative)
		e->passed = tc_evaluation_passes(e, decide_by_ci ? pass :
		    e->mean_improvement);
	return pass;
}

static tc_json *
num_or_null(bool has, double v)
{
	return has ? tc_json_new_float(v) : tc_json_new_null();
}

void
tc_evaluation_set_figures(tc_json *o, const tc_evaluation *e)
{
	tc_json_object_set(o, "mean_improvement_pct",
	    num_or_null(e->has_mean, e->mean_improvement_pct));
	tc_json_object_set(o, "median_run_improvement_pct",
	    num_or_null(e->has_median, e->median_run_improvement_pct));
	tc_json_object_set(o, "p90_regression_pct",
	    num_or_null(e->has_p90, e->p90_regression_pct));
	tc_json_object_set(o, "stddev_regression_pct",
	    num_or_null(e->has_stddev, e->stddev_regression_pct));
}

tc_json *
tc_replay_not_required(void)
{
	tc_json *o = tc_json_new_object();

	tc_json_object_set_bool(o, "valid", true);
	tc_json_object_set_bool(o, "required", false);
	tc_json_object_set_string(o, "status", "not_required");
	tc_json_object_set_null(o, "failure_reason");
	return o;
}

tc_json *
tc_evaluation_to_json(const tc_evaluation *e, const tc_gate_policy *policy,
    tc_gate_mode mode, const char *promotion_mode, tc_json *replay)
{
	tc_json *o = tc_json_new_object(), *c = tc_json_new_object();
	const char *decision = mode == TC_GATE_SELECTION_ONLY ? "eligible" :
	    mode == TC_GATE_OPTION_TRIAL ? "accepted" : "promoted";

	tc_json_object_set_bool(c, "baseline_stable", e->baseline_stable);
	tc_json_object_set_bool(c, "baseline_min_runs", e->baseline_min_runs);
	tc_json_object_set_bool(c, "candidate_min_runs", e->candidate_min_runs);
	if (mode == TC_GATE_FINAL_PROMOTION)
		tc_json_object_set_bool(c, "deep_fusion_replay",
		    e->deep_fusion_replay);
	tc_json_object_set_bool(c, "mean_improvement", e->mean_improvement);
	tc_json_object_set_bool(c, "median_run_direction",
	    e->median_run_direction);
	tc_json_object_set_bool(c, "p90_no_material_regression",
	    e->p90_no_material_regression);
	tc_json_object_set_bool(c, "stddev_no_material_regression",
	    e->stddev_no_material_regression);
	tc_json_object_set_bool(o, decision, e->passed);
	tc_json_object_set(o, "checks", c);
	tc_json_object_set_int(o, "baseline_required_runs",
	    TC_S0_REQUIRED_RUNS);
	tc_json_object_set_int(o, "candidate_min_runs", TC_CANDIDATE_MIN_RUNS);
	tc_json_object_set(o, "min_improvement_pct",
	    tc_json_new_float(e->min_improvement_pct));
	tc_json_object_set_string(o, "mean_improvement_rule", e->strict_gain ?
	    "strictly_positive" : "at_least_threshold");
	tc_json_object_set(o, "allow_p90_regression_pct",
	    tc_json_new_float(policy->allow_p90_regression_pct));
	tc_json_object_set(o, "allow_stddev_regression_pct",
	    tc_json_new_float(policy->allow_stddev_regression_pct));
	tc_evaluation_set_figures(o, e);
	if (mode == TC_GATE_FINAL_PROMOTION) {
		tc_json_object_set_string(o, "promotion_mode", promotion_mode);
		tc_json_object_set(o, "deep_fusion_replay", replay != NULL ?
		    replay : tc_replay_not_required());
	} else {
		tc_json_free(replay);
	}
	return o;
}
