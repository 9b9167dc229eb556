/*
 * ledger_final_e2e.c - the ledger's final_e2e record (controller spec
 * docs/spec/controller.md "Final E2E record") computed from two measured run
 * sets, so no worker types a speedup by hand: the clean medians, the
 * improvement percentage and the classification come from the run-set reader
 * and the final promotion gate of the measurement module (bench.h).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "tunectl/bench.h"
#include "tunectl/final.h"
#include "tunectl/ledger.h"

void
tc_final_e2e_opts_init(tc_final_e2e_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->warmup = TC_DEFAULT_WARMUP;
	o->expected_ranks = TC_DEFAULT_EXPECTED_RANKS;
	o->min_improvement_pct = TC_DEFAULT_MIN_IMPROVEMENT_PCT;
	o->max_spread_pct = TC_S0_MAX_SPREAD_PCT;
}

/* A metric set: medians of runs, pooled decode spread, both counts. */
static tc_json *
metrics(const tc_runset *rs)
{
	tc_json *m = tc_json_new_object();

	tc_json_object_set(m, "median_ms",
	    tc_json_new_float(rs->median_run_worst_rank_mean_ms));
	tc_json_object_set(m, "p90_ms", tc_json_new_float(rs->decode.p90_ms));
	tc_json_object_set(m, "stddev_ms",
	    tc_json_new_float(rs->decode.stddev_ms));
	tc_json_object_set_int(m, "sample_count", (int64_t)rs->decode.count);
	tc_json_object_set_int(m, "run_count", (int64_t)rs->run_count);
	return m;
}

static tc_json *
gate_json(const tc_evaluation *ev)
{
	tc_json *g = tc_json_new_object(), *c = tc_json_new_object();

	tc_json_object_set_bool(c, "baseline_stable", ev->baseline_stable);
	tc_json_object_set_bool(c, "baseline_min_runs", ev->baseline_min_runs);
	tc_json_object_set_bool(c, "candidate_min_runs", ev->candidate_min_runs);
	tc_json_object_set_bool(c, "mean_improvement", ev->mean_improvement);
	tc_json_object_set_bool(c, "median_run_direction",
	    ev->median_run_direction);
	tc_json_object_set_bool(c, "p90_no_material_regression",
	    ev->p90_no_material_regression);
	tc_json_object_set_bool(c, "stddev_no_material_regression",
	    ev->stddev_no_material_regression);
	tc_json_object_set(g, "checks", c);
	tc_json_object_set_bool(g, "promoted", ev->passed);
	tc_json_object_set(g, "min_improvement_pct",
	    tc_json_new_float(ev->min_improvement_pct));
	tc_evaluation_set_figures(g, ev);
	return g;
}

static int
measure(const tc_final_e2e_opts *o, tc_json *fe, tc_json **gate,
    tc_error *err)
{
	tc_runset_opts ro = TC_RUNSET_OPTS_INIT;
	tc_gate_policy policy = TC_GATE_POLICY_INIT;
	tc_runset *base = NULL, *cand = NULL;
	tc_evaluation ev;
	double b, c, pct;
	int rc = -1;

	ro.warmup = o->warmup;
	ro.expected_ranks = o->expected_ranks;
	if (tc_runset_load(o->baseline_dir, &ro, &base, err) != TC_BENCH_OK)
		goto out;
	if (tc_runset_load(o->candidate_dir, &ro, &cand, err) != TC_BENCH_OK)
		goto out;
	b = base->median_run_worst_rank_mean_ms;
	c = cand->median_run_worst_rank_mean_ms;
	if (!(b > 0.0) || !isfinite(b) || !(c > 0.0) || !isfinite(c)) {
		tc_error_set(err, "final_e2e needs positive finite clean medians "
		    "(baseline %g ms, candidate %g ms)", b, c);
		goto out;
	}
	pct = (b - c) / b * 100.0;
	policy.min_improvement_pct = o->min_improvement_pct;
	policy.allow_p90_regression_pct = o->allow_p90_regression_pct;
	policy.allow_stddev_regression_pct = o->allow_stddev_regression_pct;
	/* Final clean E2E follows whole-scope or FINAL promotion: no replay. */
	policy.max_spread_pct = o->max_spread_pct;
	tc_evaluate(base, cand, &policy, TC_GATE_FINAL_PROMOTION, true, &ev);
	if (o->decide_by_ci || o->stability_relative) {
		/* the interval gate analyze draws (default resamples, seed;
		 * paired by round when measured interleaved) */
		double lo, hi;
		bool ok = tc_runset_improvement_ci(base, cand,
		    TC_BOOTSTRAP_RESAMPLES, TC_BOOTSTRAP_SEED, &lo, &hi, NULL);

		tc_evaluation_apply_interval(&ev, ok, lo, o->decide_by_ci,
		    o->stability_relative, NULL, NULL);
	}
	tc_json_object_set_string(fe, "classification",
	    ev.passed && pct > 0.0 ? "beneficial" : "no_gain");
	tc_json_object_set(fe, "baseline", metrics(base));
	tc_json_object_set(fe, "candidate", metrics(cand));
	tc_json_object_set(fe, "improvement_pct", tc_json_new_float(pct));
	if (gate != NULL)
		*gate = gate_json(&ev);
	rc = 0;
out:
	if (base != NULL)
		tc_runset_free(base);
	if (cand != NULL)
		tc_runset_free(cand);
	return rc;
}

tc_json *
tc_final_e2e_build(const tc_final_e2e_opts *o, tc_json **gate, tc_error *err)
{
	static const char *const unmeasured[] = {
		"not_run", "failed", "blocked", NULL
	};
	tc_json *fe = tc_json_new_object(), *ev = tc_json_new_array();
	bool measured = o->baseline_dir != NULL || o->candidate_dir != NULL;
	size_t i;

	if (gate != NULL)
		*gate = NULL;
	if (measured == (o->classification != NULL) ||
	    (measured && (o->baseline_dir == NULL || o->candidate_dir == NULL))) {
		tc_error_set(err, "final_e2e needs either both run sets "
		    "(measured) or an unmeasured classification");
		goto fail;
	}
	if (!measured) {
		for (i = 0; unmeasured[i] != NULL; i++)
			if (strcmp(o->classification, unmeasured[i]) == 0)
				break;
		if (unmeasured[i] == NULL) {
			tc_error_set(err, "unmeasured final_e2e classification "
			    "must be not_run, failed or blocked; beneficial and "
			    "no_gain are computed from run sets");
			goto fail;
		}
		tc_json_object_set_string(fe, "classification", o->classification);
	}
	tc_json_object_set_string(fe, "candidate_id",
	    o->candidate_id != NULL ? o->candidate_id : "");
	tc_json_object_set_string(fe, "scope_strategy",
	    o->scope_strategy != NULL ? o->scope_strategy : "");
	tc_json_object_set_string(fe, "reason_zh",
	    o->reason_zh != NULL ? o->reason_zh : "");
	tc_json_object_set(fe, "option_config", o->option_config != NULL ?
	    tc_json_clone(o->option_config) : tc_json_new_null());
	for (i = 0; i < o->nevidence; i++)
		tc_json_array_push(ev, tc_json_new_string(o->evidence[i]));
	tc_json_object_set(fe, "evidence_artifacts", ev);
	ev = NULL;
	if (measured && measure(o, fe, gate, err) != 0)
		goto fail;
	if (tc_final_validate_e2e(fe, err) != 0)
		goto fail;
	return fe;
fail:
	tc_json_free(ev);
	tc_json_free(fe);
	if (gate != NULL && *gate != NULL) {
		tc_json_free(*gate);
		*gate = NULL;
	}
	return NULL;
}

tc_json *
tc_ledger_set_final_e2e(const tc_json *ledger, const tc_json *final_e2e,
    bool replace, tc_error *err)
{
	tc_json *out;

	if (tc_final_check_ledger_shape(ledger, err) != 0)
		return NULL;
	if (tc_json_get(ledger, "final_e2e") != NULL && !replace) {
		tc_error_set(err, "ledger already has final_e2e (use --replace "
		    "to recompute it)");
		return NULL;
	}
	out = tc_json_clone(ledger);
	tc_json_object_set(out, "final_e2e", tc_json_clone(final_e2e));
	return out;
}
