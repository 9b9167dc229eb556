/*
 * explain.c - a gate report's negative verdict in plain words, with its
 * numbers: which check of which run set refused, the measured value and
 * the threshold it missed ("spread 6.20 % > 5.0 %").  Reads the reports
 * analyze_performance.py writes (docs/spec/gates.md "S0 baseline stability",
 * "Candidate evaluation"), never recomputes them.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "tunectl/bench.h"

static double
number(const tc_json *obj, const char *key)
{
	double d;

	return tc_json_number(tc_json_get(obj, key), &d) ? d : NAN;
}

static bool
check_failed(const tc_json *checks, const char *key)
{
	const tc_json *v = tc_json_get(checks, key);

	return tc_json_is(v, TC_JSON_BOOL) && !v->u.b;
}

static void
pct(tc_buf *out, double v)
{
	if (isnan(v))
		tc_buf_puts(out, "n/a");
	else
		tc_buf_printf(out, "%+.2f %%", v);
}

/* The S0 gate of a run set: appends one line when it is not stable. */
static bool
explain_stability(const tc_json *st, const char *label, tc_buf *out)
{
	const tc_json *checks = tc_json_get(st, "checks");
	const tc_json *runs = tc_json_get(st, "run_worst_rank_means_ms");
	const tc_json *stable = tc_json_get(st, "stable");

	if (!tc_json_is(stable, TC_JSON_BOOL) || stable->u.b)
		return false;
	tc_buf_printf(out, "%s: ", label);
	if (check_failed(checks, "required_run_count"))
		tc_buf_printf(out, "%zu runs where the gate needs %.0f%s",
		    tc_json_is(runs, TC_JSON_ARRAY) ? runs->u.arr.len : 0,
		    number(st, "required_run_count"),
		    check_failed(checks, "max_spread_pct") ? "; " : "");
	if (check_failed(checks, "max_spread_pct")) {
		tc_buf_printf(out, "spread %.2f %% > %.1f %% (per-run worst-rank "
		    "means", number(st, "spread_pct"),
		    number(st, "max_spread_pct"));
		for (size_t i = 0; tc_json_is(runs, TC_JSON_ARRAY) &&
		    i < runs->u.arr.len; i++) {
			double v = NAN;

			tc_json_number(runs->u.arr.items[i], &v);
			tc_buf_printf(out, "%s%.4f", i > 0 ? ", " : " ", v);
		}
		tc_buf_puts(out, " ms)");
	}
	tc_buf_putc(out, '\n');
	return true;
}

/* "<what> regression +x.xx % (allowed y %)" when the check of key failed. */
static const char *
regression(tc_buf *out, const char *sep, const tc_json *ev, const char *key,
    const char *what)
{
	char check[48], value[48], allow[48];

	snprintf(check, sizeof(check), "%s_no_material_regression", key);
	snprintf(value, sizeof(value), "%s_regression_pct", key);
	snprintf(allow, sizeof(allow), "allow_%s_regression_pct", key);
	if (!check_failed(tc_json_get(ev, "checks"), check))
		return sep;
	tc_buf_printf(out, "%s%s regression ", sep, what);
	pct(out, number(ev, value));
	tc_buf_printf(out, " (allowed %.1f %%)", number(ev, allow));
	return "; ";
}

/* One candidate evaluation (docs/spec/gates.md "Candidate evaluation"): the
 * checks it failed, with numbers. */
static bool
explain_evaluation(const tc_json *ev, const char *label, const char *name,
    tc_buf *out)
{
	const tc_json *checks = tc_json_get(ev, "checks");
	const char *rule = tc_json_get_string(ev, "mean_improvement_rule");
	const char *sep = "";
	bool any = false;

	if (!tc_json_is(checks, TC_JSON_OBJECT))
		return false;
	for (size_t i = 0; i < checks->u.obj.len; i++)
		any = any || check_failed(checks, checks->u.obj.members[i].key);
	if (!any)
		return false;
	tc_buf_printf(out, "%s %s: ", label, name);
	if (check_failed(checks, "mean_improvement")) {
		tc_buf_puts(out, "mean improvement ");
		pct(out, number(ev, "mean_improvement_pct"));
		if (rule != NULL && strcmp(rule, "strictly_positive") == 0)
			tc_buf_puts(out, " (must be > 0)");
		else
			tc_buf_printf(out, " (needs >= %.1f %%)",
			    number(ev, "min_improvement_pct"));
		sep = "; ";
	}
	if (check_failed(checks, "ci_improvement")) {
		const tc_json *ci = tc_json_get(ev, "ci95_improvement_pct");
		double lo = 0, hi = 0;

		tc_buf_printf(out, "%simprovement 95%% interval ", sep);
		if (tc_json_is(ci, TC_JSON_ARRAY) && ci->u.arr.len == 2 &&
		    tc_json_number(ci->u.arr.items[0], &lo) &&
		    tc_json_number(ci->u.arr.items[1], &hi)) {
			tc_buf_putc(out, '[');
			pct(out, lo);
			tc_buf_puts(out, ", ");
			pct(out, hi);
			tc_buf_putc(out, ']');
		} else {
			tc_buf_puts(out, "not computed");
		}
		if (rule != NULL && strcmp(rule, "strictly_positive") == 0)
			tc_buf_puts(out, " (lower bound must be > 0)");
		else
			tc_buf_printf(out, " (must exclude 0, lower bound >= "
			    "%.1f %%)", number(ev, "min_improvement_pct"));
		sep = "; ";
	}
	if (check_failed(checks, "median_run_direction")) {
		tc_buf_printf(out, "%smedian run improvement ", sep);
		pct(out, number(ev, "median_run_improvement_pct"));
		tc_buf_puts(out, " (must be > 0)");
		sep = "; ";
	}
	sep = regression(out, sep, ev, "p90", "P90");
	sep = regression(out, sep, ev, "stddev", "stddev");
	if (check_failed(checks, "baseline_stable")) {
		tc_buf_printf(out, "%sthe baseline is not stable", sep);
		sep = "; ";
	}
	if (check_failed(checks, "baseline_min_runs")) {
		tc_buf_printf(out, "%sthe baseline needs %.0f runs", sep,
		    number(ev, "baseline_required_runs"));
		sep = "; ";
	}
	if (check_failed(checks, "candidate_min_runs")) {
		tc_buf_printf(out, "%sat least %.0f candidate runs needed", sep,
		    number(ev, "candidate_min_runs"));
		sep = "; ";
	}
	if (check_failed(checks, "deep_fusion_replay")) {
		const char *why = tc_json_get_string(tc_json_get(ev,
		    "deep_fusion_replay"), "failure_reason");

		tc_buf_printf(out, "%sdeep-fusion replay evidence invalid (%s)",
		    sep, why != NULL ? why : "no reason given");
	}
	tc_buf_putc(out, '\n');
	return true;
}

bool
tc_gate_explain(const tc_json *report, const char *label, tc_buf *out)
{
	static const char *const evals[] = {
		"screening_eligibility", "option_trial_evaluation", "promotion"
	};
	const tc_json *cands = tc_json_get(report, "candidates");
	bool any = false;

	if (!tc_json_is(cands, TC_JSON_OBJECT) || cands->u.obj.len == 0)
		return explain_stability(tc_json_get(report,
		    "baseline_stability"), label, out);
	for (size_t i = 0; i < cands->u.obj.len; i++) {
		const tc_json *c = cands->u.obj.members[i].value;

		for (size_t k = 0; k < sizeof(evals) / sizeof(*evals); k++) {
			const tc_json *ev = tc_json_get(c, evals[k]);

			if (ev != NULL)
				any = explain_evaluation(ev, label,
				    cands->u.obj.members[i].key, out) || any;
		}
	}
	return any;
}
