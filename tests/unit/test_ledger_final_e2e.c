/*
 * test_ledger_final_e2e.c - the ledger's final_e2e record computed from
 * two measured run sets (docs/spec/controller.md "Final E2E record"): metrics,
 * improvement and classification come from the logs, and the record always
 * passes the controller's own final_e2e validation.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tunectl/fileio.h"
#include "tunectl/final.h"
#include "tunectl/ledger.h"
#include "unit_fixture.h"

struct world {
	char root[128];
	char base[192], cand_fast[192], cand_same[192];
	tc_json *config;
};

/* DIR/run-k/log_0.log with one decode sample per run. */
static void
write_runset(const char *dir, const double *ms, size_t n)
{
	size_t k;

	for (k = 0; k < n; k++) {
		char *path = tc_xasprintf("%s/run-%zu/log_0.log", dir, k + 1);
		char *text = tc_xasprintf("warmup\nInference time (decode): %.3f ms\n",
		    ms[k]);
		tc_error err = TC_ERROR_INIT;

		assert_int_equal(tc_write_atomic(path, text, strlen(text),
		    TC_WRITE_MKDIRS, &err), 0);
		free(path);
		free(text);
	}
}

static int
setup(void **state)
{
	static const double base[] = { 10.0, 10.1, 10.0, 10.1, 10.0 };
	static const double fast[] = { 9.0, 9.1, 9.0 };
	static const double same[] = { 10.0, 10.1, 10.0 };
	struct world *w = tc_xcalloc(1, sizeof(*w));
	tc_error err = TC_ERROR_INIT;

	unit_tmpdir_into(w->root, sizeof(w->root), "final-e2e");
	snprintf(w->base, sizeof(w->base), "%s/s0", w->root);
	snprintf(w->cand_fast, sizeof(w->cand_fast), "%s/fast", w->root);
	snprintf(w->cand_same, sizeof(w->cand_same), "%s/same", w->root);
	write_runset(w->base, base, 5);
	write_runset(w->cand_fast, fast, 3);
	write_runset(w->cand_same, same, 3);
	{
		const char *cfg = "{\"super_kernel_optimize_options\": {}}";

		w->config = tc_json_parse(cfg, strlen(cfg), &err);
	}
	assert_non_null(w->config);
	*state = w;
	return 0;
}

static int
teardown(void **state)
{
	struct world *w = *state;

	assert_int_equal(unit_rmtree(w->root), 0);
	tc_json_free(w->config);
	free(w);
	return 0;
}

static void
opts_for(struct world *w, tc_final_e2e_opts *o, const char *cand)
{
	static const char *const evidence[] = { "final/clean-e2e.json" };

	tc_final_e2e_opts_init(o);
	o->candidate_id = "Sbest-BASE";
	o->scope_strategy = "whole-scope";
	o->reason_zh = "依据最终 clean E2E 结算。";
	o->option_config = w->config;
	o->evidence = evidence;
	o->nevidence = 1;
	o->baseline_dir = w->base;
	o->candidate_dir = cand;
	o->warmup = 0;
	o->expected_ranks = 1;
}

static double
num(const tc_json *v)
{
	double d = NAN;

	assert_true(tc_json_number(v, &d));
	return d;
}

static void
test_faster_candidate_is_classified_beneficial_from_the_logs(void **state)
{
	struct world *w = *state;
	tc_final_e2e_opts o;
	tc_error err = TC_ERROR_INIT;
	tc_json *gate = NULL, *fe;

	opts_for(w, &o, w->cand_fast);
	fe = tc_final_e2e_build(&o, &gate, &err);
	if (fe == NULL)
		fprintf(stderr, "# %s\n", tc_error_msg(&err));
	assert_non_null(fe);
	assert_string_equal(tc_json_get_string(fe, "classification"), "beneficial");
	assert_true(fabs(num(tc_json_pointer(fe, "/baseline/median_ms", NULL)) -
	    10.0) < 1e-12);
	assert_true(fabs(num(tc_json_pointer(fe, "/candidate/median_ms", NULL)) -
	    9.0) < 1e-12);
	assert_true(fabs(num(tc_json_get(fe, "improvement_pct")) - 10.0) < 1e-9);
	assert_int_equal(num(tc_json_pointer(fe, "/baseline/run_count", NULL)), 5);
	assert_int_equal(num(tc_json_pointer(fe, "/candidate/run_count", NULL)), 3);
	assert_int_equal(num(tc_json_pointer(fe, "/candidate/sample_count",
	    NULL)), 3);
	assert_true(tc_json_is(tc_json_pointer(fe, "/baseline/run_count", NULL),
	    TC_JSON_INT));
	assert_true(tc_json_get(gate, "promoted")->u.b);
	assert_int_equal(tc_final_validate_e2e(fe, &err), 0);
	assert_string_equal(tc_final_status_for(fe), "accepted");
	tc_json_free(gate);
	tc_json_free(fe);
}

static void
test_candidate_without_gain_is_classified_no_gain(void **state)
{
	struct world *w = *state;
	tc_final_e2e_opts o;
	tc_error err = TC_ERROR_INIT;
	tc_json *gate = NULL, *fe;

	opts_for(w, &o, w->cand_same);
	fe = tc_final_e2e_build(&o, &gate, &err);
	assert_non_null(fe);
	assert_string_equal(tc_json_get_string(fe, "classification"), "no_gain");
	assert_false(tc_json_get(gate, "promoted")->u.b);
	assert_false(tc_json_pointer(gate, "/checks/mean_improvement", NULL)->u.b);
	assert_int_equal(tc_final_validate_e2e(fe, &err), 0);
	tc_json_free(gate);
	tc_json_free(fe);
}

static void
test_baseline_with_too_few_runs_cannot_be_beneficial(void **state)
{
	struct world *w = *state;
	tc_final_e2e_opts o;
	tc_error err = TC_ERROR_INIT;
	tc_json *gate = NULL, *fe;

	/* The fast set as "baseline" has 3 runs: not a frozen 5-run S0. */
	opts_for(w, &o, w->cand_fast);
	o.baseline_dir = w->cand_fast;
	o.candidate_dir = w->cand_fast;
	fe = tc_final_e2e_build(&o, &gate, &err);
	assert_non_null(fe);
	assert_string_equal(tc_json_get_string(fe, "classification"), "no_gain");
	assert_false(tc_json_pointer(gate, "/checks/baseline_min_runs", NULL)->u.b);
	tc_json_free(gate);
	tc_json_free(fe);
}

static void
test_unmeasured_outcomes_take_an_explicit_classification(void **state)
{
	struct world *w = *state;
	tc_final_e2e_opts o;
	tc_error err = TC_ERROR_INIT;
	tc_json *fe;

	opts_for(w, &o, NULL);
	o.baseline_dir = NULL;
	o.classification = "blocked";
	fe = tc_final_e2e_build(&o, NULL, &err);
	assert_non_null(fe);
	assert_string_equal(tc_json_get_string(fe, "classification"), "blocked");
	assert_null(tc_json_get(fe, "improvement_pct"));
	tc_json_free(fe);
	o.classification = "beneficial";
	assert_null(tc_final_e2e_build(&o, NULL, &err));
	assert_non_null(strstr(tc_error_msg(&err), "computed from run sets"));
	tc_error_clear(&err);
}

static void
test_record_is_refused_when_the_controller_would_refuse_it(void **state)
{
	struct world *w = *state;
	static const char *const bad_evidence[] = { "../outside.json" };
	tc_final_e2e_opts o;
	tc_error err = TC_ERROR_INIT;

	opts_for(w, &o, w->cand_fast);
	o.evidence = bad_evidence;
	assert_null(tc_final_e2e_build(&o, NULL, &err));
	assert_non_null(strstr(tc_error_msg(&err), "evidence_artifacts[0]"));
	opts_for(w, &o, w->cand_fast);
	o.reason_zh = " padded";
	assert_null(tc_final_e2e_build(&o, NULL, &err));
	assert_non_null(strstr(tc_error_msg(&err), "reason_zh"));
	opts_for(w, &o, w->cand_fast);
	o.candidate_dir = "/nonexistent/runs";
	assert_null(tc_final_e2e_build(&o, NULL, &err));
	assert_non_null(strstr(tc_error_msg(&err), "no run-* directories"));
	tc_error_clear(&err);
}

static void
test_final_e2e_is_stored_once_unless_replaced(void **state)
{
	struct world *w = *state;
	tc_final_e2e_opts o;
	tc_error err = TC_ERROR_INIT;
	tc_json *fe, *ledger, *first, *second;

	opts_for(w, &o, w->cand_fast);
	fe = tc_final_e2e_build(&o, NULL, &err);
	{
		const char *text = "{\"schema_version\": 2, \"experiments\": {}}";

		ledger = tc_json_parse(text, strlen(text), &err);
	}
	assert_non_null(ledger);
	first = tc_ledger_set_final_e2e(ledger, fe, false, &err);
	assert_non_null(first);
	assert_true(tc_json_equal(tc_json_get(first, "final_e2e"), fe));
	assert_null(tc_ledger_set_final_e2e(first, fe, false, &err));
	assert_non_null(strstr(tc_error_msg(&err), "already has final_e2e"));
	second = tc_ledger_set_final_e2e(first, fe, true, &err);
	assert_non_null(second);
	tc_json_object_set_int(ledger, "schema_version", 1);
	assert_null(tc_ledger_set_final_e2e(ledger, fe, false, &err));
	assert_non_null(strstr(tc_error_msg(&err), "schema 2"));
	tc_error_clear(&err);
	tc_json_free(second);
	tc_json_free(first);
	tc_json_free(ledger);
	tc_json_free(fe);
}

static void
test_measured_and_unmeasured_inputs_do_not_mix(void **state)
{
	struct world *w = *state;
	static const double zero[] = { 0.0, 0.0, 0.0 };
	char *zdir = tc_xasprintf("%s/zero", w->root);
	tc_final_e2e_opts o;
	tc_error err = TC_ERROR_INIT;

	opts_for(w, &o, w->cand_fast);
	o.classification = "failed";
	assert_null(tc_final_e2e_build(&o, NULL, &err));
	assert_string_equal(tc_error_msg(&err), "final_e2e needs either both run "
	    "sets (measured) or an unmeasured classification");
	opts_for(w, &o, NULL);
	assert_null(tc_final_e2e_build(&o, NULL, &err));
	assert_string_equal(tc_error_msg(&err), "final_e2e needs either both run "
	    "sets (measured) or an unmeasured classification");
	write_runset(zdir, zero, 3);
	opts_for(w, &o, zdir);
	assert_null(tc_final_e2e_build(&o, NULL, &err));
	assert_string_equal(tc_error_msg(&err), "final_e2e needs positive finite "
	    "clean medians (baseline 10 ms, candidate 0 ms)");
	tc_error_clear(&err);
	free(zdir);
}

/* The gate rules beyond the reference (--stability relative, --decide-by
 * ci) decide the final record as they decide gate analyze, and the
 * provenance carries them so the recomputation agrees. */
static void
test_relaxed_rules_decide_and_travel_in_the_provenance(void **state)
{
	static const double wild[] = { 8.0, 10.0, 12.0, 9.0, 11.0 };
	static const double half[] = { 5.0, 5.1, 5.2 };
	struct world *w = *state;
	char *wdir = tc_xasprintf("%s/wild", w->root);
	char *hdir = tc_xasprintf("%s/half", w->root);
	tc_final_e2e_opts o;
	tc_error err = TC_ERROR_INIT;
	tc_json *fe, *prov;

	write_runset(wdir, wild, 5);
	write_runset(hdir, half, 3);
	opts_for(w, &o, hdir);
	o.baseline_dir = wdir;
	fe = tc_final_e2e_build(&o, NULL, &err);
	assert_non_null(fe);
	assert_string_equal(tc_json_get_string(fe, "classification"), "no_gain");
	tc_json_free(fe);
	o.decide_by_ci = true;
	o.stability_relative = true;
	fe = tc_final_e2e_build(&o, NULL, &err);
	assert_non_null(fe);
	assert_string_equal(tc_json_get_string(fe, "classification"),
	    "beneficial");
	prov = tc_final_e2e_provenance(&o);
	assert_string_equal(tc_json_get_string(prov, "decide_by"), "ci");
	assert_string_equal(tc_json_get_string(prov, "stability_rule"),
	    "relative");
	assert_int_equal(tc_final_e2e_recheck(prov, fe, &err), 0);
	tc_json_object_set_string(prov, "stability_rule", "reference");
	assert_int_not_equal(tc_final_e2e_recheck(prov, fe, &err), 0);
	tc_error_clear(&err);
	tc_json_object_set_string(prov, "stability_rule", "loose");
	assert_int_not_equal(tc_final_e2e_recheck(prov, fe, &err), 0);
	assert_string_equal(tc_error_msg(&err),
	    "final_e2e provenance is malformed");
	tc_error_clear(&err);
	/* a record without the keys is the reference's rules */
	tc_json_free(prov);
	o.decide_by_ci = o.stability_relative = false;
	prov = tc_final_e2e_provenance(&o);
	tc_json_object_remove(prov, "decide_by");
	tc_json_object_remove(prov, "stability_rule");
	tc_json_object_remove(prov, "max_spread_pct");
	assert_int_not_equal(tc_final_e2e_recheck(prov, fe, &err), 0);
	tc_error_clear(&err);
	tc_json_free(prov);
	tc_json_free(fe);
	free(wdir);
	free(hdir);
}

#define T(f) cmocka_unit_test_setup_teardown(f, setup, teardown)

int
main(void)
{
	const struct CMUnitTest tests[] = {
		T(test_faster_candidate_is_classified_beneficial_from_the_logs),
		T(test_candidate_without_gain_is_classified_no_gain),
		T(test_baseline_with_too_few_runs_cannot_be_beneficial),
		T(test_unmeasured_outcomes_take_an_explicit_classification),
		T(test_record_is_refused_when_the_controller_would_refuse_it),
		T(test_final_e2e_is_stored_once_unless_replaced),
		T(test_measured_and_unmeasured_inputs_do_not_mix),
		T(test_relaxed_rules_decide_and_travel_in_the_provenance),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
