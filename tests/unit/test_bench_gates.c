/*
 * test_bench_gates.c - the reference's PerformanceAnalysisTest cases
 * (docs/spec/gates.md "Reference tests") ported to tunectl, plus the run-set
 * layout rules of docs/spec/gates.md "Run-set layout" and the S0 / promotion
 * boundaries.  Run sets are written to a temporary directory the way the
 * reference fixture _write_performance_runs does (8 ranks, config.yaml with
 * both option maps set to {}).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "tunectl/bench.h"
#include "unit_fixture.h"

static char root[4096];

static const char empty_config[] =
    "model_config:\n"
    "  custom_params:\n"
    "    super_kernel_optimize_options: {}\n"
    "    super_kernel_debug_options: {}\n";

static char *
path_of(const char *rel)
{
	char *p;

	assert_true(asprintf(&p, "%s/%s", root, rel) > 0);
	return p;
}

static void
write_file(const char *path, const char *text)
{
	FILE *fp = fopen(path, "w");

	assert_non_null(fp);
	fputs(text, fp);
	fclose(fp);
}

static void
mkdir_p(const char *p)
{
	char buf[4096];

	snprintf(buf, sizeof(buf), "%s", p);
	for (char *s = buf + 1; *s != '\0'; s++)
		if (*s == '/') {
			*s = '\0';
			mkdir(buf, 0777);
			*s = '/';
		}
	mkdir(buf, 0777);
}

/*
 * _write_performance_runs: one run per entry of runs[]; an entry is either
 * one value (written 9 times, so one sample survives warmup 8) or a
 * space-separated list of samples.  Every run gets 8 rank logs.
 */
static char *
write_runs(const char *name, const char *const *runs, size_t n)
{
	char *dir = path_of(name);

	for (size_t r = 0; r < n; r++) {
		char *rd, *cfg;

		assert_true(asprintf(&rd, "%s/run-%zu", dir, r + 1) > 0);
		mkdir_p(rd);
		assert_true(asprintf(&cfg, "%s/config.yaml", rd) > 0);
		write_file(cfg, empty_config);
		free(cfg);
		for (int k = 0; k < 8; k++) {
			char *log, *text = NULL;
			size_t len = 0;
			FILE *fp = open_memstream(&text, &len);

			if (strchr(runs[r], ' ') == NULL) {
				for (int s = 0; s < 9; s++)
					fprintf(fp, "Inference time (decode): %s ms\n",
					    runs[r]);
			} else {
				char *copy = strdup(runs[r]), *save, *tok;

				for (tok = strtok_r(copy, " ", &save); tok != NULL;
				    tok = strtok_r(NULL, " ", &save))
					fprintf(fp, "Inference time (decode): %s ms\n",
					    tok);
				free(copy);
			}
			fclose(fp);
			assert_true(asprintf(&log, "%s/log_%d.log", rd, k) > 0);
			write_file(log, text);
			free(log);
			free(text);
		}
		free(rd);
	}
	return dir;
}

static const char *const stable_runs[] = {
	"10.0", "10.1", "10.2", "10.3", "10.4"
};

static int
setup(void **state)
{
	(void)state;
	unit_tmpdir_into(root, sizeof(root), "gates-test");
	return 0;
}

static int
teardown(void **state)
{
	(void)state;
	return unit_rmtree(root);
}

/* The S1-S4 screening matrix of the reference fixture. */
static tc_json *
screening_matrix(const char *executed, const char *s4_code,
    const char *s4_reason)
{
	static const char *const ids[] = { "S1", "S2", "S3", "S4" };
	static const char *const kinds[] = { "automatic_aot", "broad_decode",
	    "per_block", "semantic_segment" };
	tc_json *doc = tc_json_new_object(), *list = tc_json_new_array();

	tc_json_object_set_string(doc, "schema_version",
	    "superkernel-screening-matrix-v2");
	tc_json_object_set_bool(doc, "candidate_set_frozen_before_execution",
	    true);
	for (int i = 0; i < 4; i++) {
		tc_json *c = tc_json_new_object();

		tc_json_object_set_string(c, "id", ids[i]);
		tc_json_object_set_string(c, "strategy_kind", kinds[i]);
		tc_json_object_set_string(c, "only_change", "scope change");
		if (strstr(executed, ids[i]) != NULL) {
			tc_json_object_set_string(c, "status", "executed");
		} else {
			tc_json *b = tc_json_new_object();

			tc_json_object_set_string(c, "status", "blocked");
			tc_json_object_set_string(b, "code", i == 3 && s4_code ?
			    s4_code : "semantic_boundary_unavailable");
			tc_json_object_set_string(b, "reason_zh", i == 3 &&
			    s4_reason ? s4_reason :
			    "源码无法建立保持依赖的语义分段边界。");
			tc_json_object_set_string(b, "evidence",
			    "intake/S4-BLOCKER.md");
			tc_json_object_set(c, "blocker", b);
		}
		tc_json_array_push(list, c);
	}
	tc_json_object_set(doc, "candidates", list);
	return doc;
}

static tc_runset *
load(const char *dir)
{
	tc_runset_opts o = TC_RUNSET_OPTS_INIT;
	tc_error err = TC_ERROR_INIT;
	tc_runset *rs = NULL;

	if (tc_runset_load(dir, &o, &rs, &err) != 0)
		fail_msg("load %s: %s", dir, tc_error_msg(&err));
	return rs;
}

static const tc_json *
at(const tc_json *v, const char *a, const char *b, const char *c)
{
	v = tc_json_get(v, a);
	if (b != NULL)
		v = tc_json_get(v, b);
	if (c != NULL)
		v = tc_json_get(v, c);
	assert_non_null(v);
	return v;
}

static bool
flag(const tc_json *v, const char *a, const char *b, const char *c)
{
	const tc_json *x = at(v, a, b, c);

	assert_int_equal(x->type, TC_JSON_BOOL);
	return x->u.b;
}

static void
assert_names(const tc_json *arr, const char *const *names, size_t n)
{
	assert_int_equal(arr->type, TC_JSON_ARRAY);
	assert_int_equal(arr->u.arr.len, n);
	for (size_t i = 0; i < n; i++)
		assert_string_equal(tc_json_string(arr->u.arr.items[i]), names[i]);
}

/* ---- docs/spec/gates.md "Reference tests" ------------------------------- */

static void
stage_a_config_requires_explicit_empty_option_maps(void **state)
{
	const char *const one[] = { "9.0" };
	char *dir = write_runs("cfg", one, 1), *cfg;
	tc_name_path c = { "S1", dir };
	tc_error err = TC_ERROR_INIT;
	tc_json *out;

	(void)state;
	out = tc_stage_a_controls(&c, 1, &err);
	assert_non_null(out);
	assert_true(flag(out, "all_explicitly_empty", NULL, NULL));
	assert_true(flag(out, "candidates", "S1", "explicitly_empty"));
	tc_json_free(out);

	assert_true(asprintf(&cfg, "%s/run-1/config.yaml", dir) > 0);
	write_file(cfg, "model_config:\n  custom_params:\n"
	    "    super_kernel_debug_options: {}\n");
	assert_null(tc_stage_a_controls(&c, 1, &err));
	{
		char *want;

		assert_true(asprintf(&want, "Stage-A config must explicitly "
		    "define super_kernel_optimize_options: {}: %s", cfg) > 0);
		assert_string_equal(tc_error_msg(&err), want);
		free(want);
	}
	write_file(cfg, "model_config:\n  custom_params:\n"
	    "    super_kernel_optimize_options: {}\n");
	assert_null(tc_stage_a_controls(&c, 1, &err));
	assert_non_null(strstr(tc_error_msg(&err),
	    "explicitly define super_kernel_debug_options"));
	write_file(cfg, "model_config:\n  custom_params:\n"
	    "    super_kernel_optimize_options: {a: 1}\n"
	    "    super_kernel_debug_options: {}\n");
	assert_null(tc_stage_a_controls(&c, 1, &err));
	assert_non_null(strstr(tc_error_msg(&err),
	    "super_kernel_optimize_options must be an explicitly empty mapping"));
	tc_error_clear(&err);
	free(cfg);
	free(dir);
}

static void
decimal_five_percent_baseline_spread_is_stable(void **state)
{
	const double v[] = { 9.75, 9.875, 10.0, 10.125, 10.25 };
	tc_stability s;

	(void)state;
	tc_stability_eval(v, NULL, 5, &s);
	assert_true(s.stable);
	assert_true(s.spread_ms == 0.5);
	assert_true(s.mean_ms == 10.0);
	assert_true(s.spread_pct == 5.0);
	tc_stability_free(&s);
}

static void
absolute_half_ms_spread_can_be_unstable_when_relative_spread_exceeds_five_percent(void **state)
{
	const double v[] = { 9.6, 9.7, 9.8, 9.9, 10.1 };
	tc_stability s;
	tc_json *j;

	(void)state;
	tc_stability_eval(v, NULL, 5, &s);
	assert_false(s.stable);
	assert_true(s.check_required_run_count);
	assert_false(s.check_max_spread_pct);
	assert_true(s.spread_ms == 0.5);
	assert_true(s.spread_pct == 5.091649694501018);
	j = tc_stability_to_json(&s);
	assert_int_equal(at(j, "required_run_count", NULL, NULL)->type,
	    TC_JSON_INT);
	assert_int_equal(at(j, "run_worst_rank_means_ms", NULL, NULL)->u.arr.len,
	    5);
	tc_json_free(j);
	tc_stability_free(&s);
}

static void
raw_log_decimal_five_percent_spread_is_stable(void **state)
{
	/* after warmup 8 each rank keeps two samples whose exact means are
	 * 9.75, 9.875, 10.00, 10.125, 10.25 */
	static const char *const runs[] = {
		"1 1 1 1 1 1 1 1 9.5 10.0",
		"1 1 1 1 1 1 1 1 9.75 10.0",
		"1 1 1 1 1 1 1 1 10.00 10.00",
		"1 1 1 1 1 1 1 1 10.0 10.25",
		"1 1 1 1 1 1 1 1 10.0 10.5",
	};
	static const char *const exact[] = { "9.75", "9.875", "10.00",
	    "10.125", "10.25" };
	char *dir = write_runs("raw", runs, 5);
	tc_runset *rs = load(dir);
	tc_stability s;

	(void)state;
	for (int i = 0; i < 5; i++)
		assert_string_equal(rs->run_worst_rank_means_exact_ms[i],
		    exact[i]);
	tc_stability_eval_runset(rs, &s);
	assert_true(s.stable);
	assert_true(s.spread_ms == 0.5);
	assert_true(s.spread_pct == 5.0);
	tc_stability_free(&s);
	tc_runset_free(rs);
	free(dir);
}

static void
baseline_spread_over_five_percent_is_unstable(void **state)
{
	const double v[] = { 10.0, 10.1, 10.2, 10.3, 10.52 };
	tc_stability s;

	(void)state;
	tc_stability_eval(v, NULL, 5, &s);
	assert_false(s.stable);
	assert_true(s.spread_pct == 5.086071987480438);
	tc_stability_free(&s);
}

static void
forged_baseline_stability_cannot_promote_unstable_baseline(void **state)
{
	const char *const base[] = { "10.0", "10.1", "10.2", "10.3", "10.52" };
	const char *const fast[] = { "8", "8", "8" };
	char *bd = write_runs("ub", base, 5), *cd = write_runs("uc", fast, 3);
	tc_runset *b = load(bd), *c = load(cd);
	tc_gate_policy p = TC_GATE_POLICY_INIT;
	tc_evaluation e;

	(void)state;
	/* nothing stored can vouch for the baseline: stability is recomputed */
	tc_evaluate(b, c, &p, TC_GATE_FINAL_PROMOTION, true, &e);
	assert_false(e.baseline_stable);
	assert_false(e.passed);
	assert_true(e.mean_improvement);
	tc_runset_free(b);
	tc_runset_free(c);
	free(bd);
	free(cd);
}

static void
single_run_candidate_cannot_promote_and_missing_replay_is_reported(void **state)
{
	const char *const one[] = { "8" };
	char *bd = write_runs("sb", stable_runs, 5), *cd = write_runs("sc", one, 1);
	tc_name_path cand = { "S1", cd };
	tc_analyze_opts o;
	tc_error err = TC_ERROR_INIT;
	tc_json *rep = NULL;
	tc_runset *b, *c;
	tc_gate_policy p = TC_GATE_POLICY_INIT;
	tc_evaluation e;

	(void)state;
	tc_analyze_opts_init(&o);
	o.baseline = bd;
	o.candidates = &cand;
	o.ncandidates = 1;
	assert_int_equal(tc_analyze(&o, &rep, NULL, NULL, &err),
	    TC_BENCH_VALUE_ERROR);
	assert_string_equal(tc_error_msg(&err),
	    "replay evidence mapping mismatch (missing: S1)");
	tc_error_clear(&err);
	b = load(bd);
	c = load(cd);
	tc_evaluate(b, c, &p, TC_GATE_FINAL_PROMOTION, false, &e);
	assert_false(e.candidate_min_runs);
	assert_false(e.deep_fusion_replay);
	assert_false(e.passed);
	tc_runset_free(b);
	tc_runset_free(c);
	free(bd);
	free(cd);
}

static tc_json *
analyze_ok(tc_analyze_opts *o)
{
	tc_error err = TC_ERROR_INIT;
	tc_json *rep = NULL;

	if (tc_analyze(o, &rep, NULL, NULL, &err) != 0)
		fail_msg("analyze: %s", tc_error_msg(&err));
	return rep;
}

static void
whole_scope_clean_promotion_does_not_require_replay_evidence(void **state)
{
	const char *const fast[] = { "8", "8", "8" };
	char *bd = write_runs("wb", stable_runs, 5), *cd = write_runs("wc", fast, 3);
	tc_name_path cand = { "S1", cd }, mode = { "S1", "whole_scope" };
	tc_analyze_opts o;
	tc_json *rep, *s1;

	(void)state;
	tc_analyze_opts_init(&o);
	o.baseline = bd;
	o.candidates = &cand;
	o.ncandidates = 1;
	o.modes = &mode;
	o.nmodes = 1;
	rep = analyze_ok(&o);
	s1 = tc_json_get(tc_json_get(rep, "candidates"), "S1");
	assert_string_equal(tc_json_get_string(s1, "promotion_mode"),
	    "whole_scope");
	assert_string_equal(tc_json_string(at(s1, "deep_fusion_replay",
	    "status", NULL)), "not_required");
	assert_true(flag(s1, "promotion", "checks", "deep_fusion_replay"));
	assert_true(flag(s1, "promotion", "promoted", NULL));
	assert_string_equal(tc_json_string(at(rep, "selection",
	    "final_promotion_decision", NULL)), "promoted");
	tc_json_free(rep);
	free(bd);
	free(cd);
}

static void
selection_only_ranks_clean_candidates_without_promoting_them(void **state)
{
	const char *const s1[] = { "9.4", "9.4", "9.4" };
	const char *const s2[] = { "8.0", "8.0", "8.0" };
	const char *const s3[] = { "10.3", "10.3", "10.3" };
	char *bd = write_runs("qb", stable_runs, 5);
	char *d1 = write_runs("q1", s1, 3), *d2 = write_runs("q2", s2, 3);
	char *d3 = write_runs("q3", s3, 3);
	tc_name_path cands[] = { { "S1", d1 }, { "S2", d2 }, { "S3", d3 } };
	tc_json *matrix = screening_matrix("S1 S2 S3", NULL, NULL);
	static const char *const ranked[] = { "S2", "S1", "S3" };
	static const char *const eligible[] = { "S2", "S1" };
	static const char *const executed[] = { "S1", "S2", "S3" };
	tc_analyze_opts o;
	tc_json *rep, *sel, *c;

	(void)state;
	tc_analyze_opts_init(&o);
	o.baseline = bd;
	o.candidates = cands;
	o.ncandidates = 3;
	o.selection_only = true;
	o.screening_matrix = matrix;
	rep = analyze_ok(&o);
	sel = tc_json_get(rep, "selection");
	assert_string_equal(tc_json_get_string(sel, "stage"),
	    "candidate_screening");
	assert_string_equal(tc_json_get_string(sel, "selected_for_deep_analysis"),
	    "S2");
	assert_string_equal(tc_json_get_string(sel, "recommended"), "S2");
	assert_int_equal(at(sel, "promoted_candidates", NULL, NULL)->u.arr.len, 0);
	assert_string_equal(tc_json_get_string(sel, "final_promotion_decision"),
	    "deferred_until_winner_profiling");
	assert_names(at(sel, "ranked_candidates", NULL, NULL), ranked, 3);
	assert_names(at(sel, "ranked_eligible_candidates", NULL, NULL),
	    eligible, 2);
	c = tc_json_get(tc_json_get(rep, "candidates"), "S1");
	assert_null(tc_json_get(c, "promotion"));
	assert_null(tc_json_get(c, "deep_fusion_replay"));
	assert_null(tc_json_get(tc_json_get(c, "screening_eligibility"),
	    "promotion_mode"));
	assert_null(tc_json_get(at(c, "screening_eligibility", "checks", NULL),
	    "deep_fusion_replay"));
	assert_true(flag(rep, "screening_matrix", "settlement_complete", NULL));
	assert_true(flag(rep, "stage_a_option_controls", "all_explicitly_empty",
	    NULL));
	assert_names(at(rep, "screening_matrix", "executed_candidate_ids", NULL),
	    executed, 3);
	assert_string_equal(tc_json_get_string(at(rep, "screening_matrix",
	    "nonexecuted_candidates", NULL)->u.arr.items[0], "id"), "S4");
	tc_json_free(rep);
	tc_json_free(matrix);
	free(bd);
	free(d1);
	free(d2);
	free(d3);
}

static void
selection_only_rejects_missing_or_nonempty_stage_a_options(void **state)
{
	const char *const s1[] = { "9.4", "9.4", "9.4" };
	char *bd = write_runs("rb", stable_runs, 5), *d1 = write_runs("r1", s1, 3);
	char *d2 = write_runs("r2", s1, 3), *d3 = write_runs("r3", s1, 3), *cfg;
	tc_name_path cands[] = { { "S1", d1 }, { "S2", d2 }, { "S3", d3 } };
	tc_json *matrix = screening_matrix("S1 S2 S3", NULL, NULL);
	tc_analyze_opts o;
	tc_error err = TC_ERROR_INIT;

	(void)state;
	tc_analyze_opts_init(&o);
	o.baseline = bd;
	o.candidates = cands;
	o.ncandidates = 3;
	o.selection_only = true;
	o.screening_matrix = matrix;
	assert_true(asprintf(&cfg, "%s/run-1/config.yaml", d1) > 0);
	write_file(cfg, "model_config:\n  custom_params: {}\n");
	assert_int_equal(tc_analyze(&o, NULL, NULL, NULL, &err),
	    TC_BENCH_VALUE_ERROR);
	assert_non_null(strstr(tc_error_msg(&err),
	    "explicitly define super_kernel_optimize_options"));
	write_file(cfg, "model_config:\n  custom_params:\n"
	    "    super_kernel_optimize_options: {}\n"
	    "    super_kernel_debug_options: {sync: true}\n");
	assert_int_equal(tc_analyze(&o, NULL, NULL, NULL, &err),
	    TC_BENCH_VALUE_ERROR);
	assert_non_null(strstr(tc_error_msg(&err),
	    "must be an explicitly empty mapping"));
	tc_error_clear(&err);
	tc_json_free(matrix);
	free(cfg);
	free(bd);
	free(d1);
	free(d2);
	free(d3);
}

static tc_json *
option_trial(const char *value, const char *tag)
{
	const char *const runs[] = { value, value, value };
	char name[32];
	char *bd, *cd;
	tc_name_path cand;
	tc_analyze_opts o;
	tc_json *rep;

	snprintf(name, sizeof(name), "ob%s", tag);
	bd = write_runs(name, stable_runs, 5);
	snprintf(name, sizeof(name), "oc%s", tag);
	cd = write_runs(name, runs, 3);
	cand.name = "O1";
	cand.value = cd;
	tc_analyze_opts_init(&o);
	o.baseline = bd;
	o.candidates = &cand;
	o.ncandidates = 1;
	o.option_trial = true;
	rep = analyze_ok(&o);
	free(bd);
	free(cd);
	return rep;
}

static void
option_trial_accepts_any_strictly_positive_gain_without_replay_or_profiling(void **state)
{
	tc_json *rep = option_trial("10.1", "a"), *c, *ev, *sel;
	double gain;

	(void)state;
	c = tc_json_get(tc_json_get(rep, "candidates"), "O1");
	ev = tc_json_get(c, "option_trial_evaluation");
	assert_true(flag(ev, "accepted", NULL, NULL));
	assert_true(tc_json_get(ev, "min_improvement_pct")->u.f == 0.0);
	assert_string_equal(tc_json_get_string(ev, "mean_improvement_rule"),
	    "strictly_positive");
	gain = tc_json_get(ev, "mean_improvement_pct")->u.f;
	assert_true(gain > 0 && gain < 2);
	sel = tc_json_get(rep, "selection");
	assert_true(flag(sel, "option_trial_accepted", NULL, NULL));
	assert_string_equal(tc_json_get_string(sel, "retained_incumbent"), "O1");
	assert_string_equal(tc_json_get_string(sel, "final_promotion_decision"),
	    "not_applicable_option_trial");
	assert_null(tc_json_get(c, "promotion"));
	assert_null(tc_json_get(c, "deep_fusion_replay"));
	assert_null(tc_json_get(ev, "deep_fusion_replay"));
	tc_json_free(rep);
}

static void
option_trial_rejects_noisy_or_nonbeneficial_delta(void **state)
{
	tc_json *rep = option_trial("10.2", "b");
	const tc_json *ev;

	(void)state;
	ev = at(rep, "candidates", "O1", "option_trial_evaluation");
	assert_false(flag(ev, "accepted", NULL, NULL));
	assert_false(flag(ev, "checks", "mean_improvement", NULL));
	assert_string_equal(tc_json_string(at(rep, "selection",
	    "retained_incumbent", NULL)), "baseline");
	tc_json_free(rep);
}

static void
option_trial_requires_one_candidate_and_rejects_other_modes(void **state)
{
	tc_name_path mode = { "O1", "whole_scope" }, cand = { "O1", "x" };
	tc_analyze_opts o;
	tc_error err = TC_ERROR_INIT;

	(void)state;
	tc_analyze_opts_init(&o);
	o.baseline = "nowhere";
	o.option_trial = true;
	assert_int_equal(tc_analyze(&o, NULL, NULL, NULL, &err),
	    TC_BENCH_VALUE_ERROR);
	assert_non_null(strstr(tc_error_msg(&err), "exactly one candidate"));
	o.selection_only = true;
	assert_int_equal(tc_analyze(&o, NULL, NULL, NULL, &err),
	    TC_BENCH_VALUE_ERROR);
	assert_non_null(strstr(tc_error_msg(&err), "mutually exclusive"));
	o.selection_only = false;
	o.candidates = &cand;
	o.ncandidates = 1;
	o.modes = &mode;
	o.nmodes = 1;
	assert_int_equal(tc_analyze(&o, NULL, NULL, NULL, &err),
	    TC_BENCH_VALUE_ERROR);
	assert_string_equal(tc_error_msg(&err), "option-trial does not accept "
	    "replay evidence or promotion modes");
	tc_error_clear(&err);
}

static void
selection_only_rejects_final_promotion_inputs(void **state)
{
	tc_name_path mode = { "S1", "whole_scope" };
	tc_json *matrix = screening_matrix("S1 S2 S3", NULL, NULL);
	tc_analyze_opts o;
	tc_error err = TC_ERROR_INIT;

	(void)state;
	tc_analyze_opts_init(&o);
	o.baseline = "nowhere";
	o.selection_only = true;
	o.screening_matrix = matrix;
	o.modes = &mode;
	o.nmodes = 1;
	assert_int_equal(tc_analyze(&o, NULL, NULL, NULL, &err),
	    TC_BENCH_VALUE_ERROR);
	assert_string_equal(tc_error_msg(&err), "selection-only screening does "
	    "not accept replay evidence or promotion modes");
	o.nmodes = 0;
	o.screening_matrix = NULL;
	assert_int_equal(tc_analyze(&o, NULL, NULL, NULL, &err),
	    TC_BENCH_VALUE_ERROR);
	assert_string_equal(tc_error_msg(&err), "selection-only screening "
	    "requires --screening-matrix");
	o.selection_only = false;
	o.screening_matrix = matrix;
	assert_int_equal(tc_analyze(&o, NULL, NULL, NULL, &err),
	    TC_BENCH_VALUE_ERROR);
	assert_string_equal(tc_error_msg(&err), "screening matrix is accepted "
	    "only with selection-only");
	tc_error_clear(&err);
	tc_json_free(matrix);
}

static void
selection_only_matrix_rules_of_the_reference_tests(void **state)
{
	static const char *const names3[] = { "S1", "S2", "S3" };
	tc_error err = TC_ERROR_INIT;
	tc_json *m, *list;

	(void)state;
	/* missing required strategy kind */
	m = screening_matrix("S1 S2 S3", NULL, NULL);
	list = tc_json_get(m, "candidates");
	tc_json_free(list->u.arr.items[3]);
	list->u.arr.len = 3;
	assert_null(tc_screening_matrix_validate(m, names3, 3, &err));
	assert_string_equal(tc_error_msg(&err), "screening matrix missing "
	    "required strategy kinds: semantic_segment");
	tc_json_free(m);
	/* an existing eligible candidate is no reason to skip S4 */
	m = screening_matrix("S1 S2 S3", "deferred_until_no_eligible", NULL);
	assert_null(tc_screening_matrix_validate(m, names3, 3, &err));
	assert_non_null(strstr(tc_error_msg(&err), "illegal early-stop blocker"));
	tc_json_free(m);
	m = screening_matrix("S1 S2 S3", NULL, "S2 is already Eligible");
	assert_null(tc_screening_matrix_validate(m, names3, 3, &err));
	assert_string_equal(tc_error_msg(&err), "screening matrix S4 uses an "
	    "illegal early-stop blocker; an existing eligible candidate or "
	    "winner cannot skip a planned strategy");
	tc_json_free(m);
	m = screening_matrix("S1 S2 S3", NULL, "已有胜出候选，跳过");
	assert_null(tc_screening_matrix_validate(m, names3, 3, &err));
	tc_json_free(m);
	/* S4 executed but not supplied */
	m = screening_matrix("S1 S2 S3 S4", NULL, NULL);
	assert_null(tc_screening_matrix_validate(m, names3, 3, &err));
	assert_string_equal(tc_error_msg(&err), "screening candidate set "
	    "mismatch (missing executed candidates: S4)");
	tc_json_free(m);
	tc_error_clear(&err);
}

/* ---- run-set layout (docs/spec/gates.md "Run-set layout",
 * "Run-set statistics") */

static void
runset_reports_missing_runs_and_rank_count(void **state)
{
	tc_runset_opts o = TC_RUNSET_OPTS_INIT;
	tc_error err = TC_ERROR_INIT;
	tc_runset *rs = NULL;
	char *dir = path_of("empty"), *want, *log;
	const char *const one[] = { "9.0" };
	char *d1;

	(void)state;
	mkdir_p(dir);
	assert_int_equal(tc_runset_load(dir, &o, &rs, &err),
	    TC_BENCH_VALUE_ERROR);
	assert_true(asprintf(&want, "%s: no run-* directories found", dir) > 0);
	assert_string_equal(tc_error_msg(&err), want);
	free(want);
	d1 = write_runs("ranks", one, 1);
	assert_true(asprintf(&log, "%s/run-1/log_7.log", d1) > 0);
	unlink(log);
	assert_int_equal(tc_runset_load(d1, &o, &rs, &err),
	    TC_BENCH_VALUE_ERROR);
	assert_true(asprintf(&want, "%s/run-1: expected 8 rank logs, found 7",
	    d1) > 0);
	assert_string_equal(tc_error_msg(&err), want);
	free(want);
	free(log);
	/* --expected-ranks 0 with no logs: Python's max() of nothing */
	o.expected_ranks = 0;
	assert_true(asprintf(&log, "%s/run-1", dir) > 0);
	mkdir_p(log);
	assert_int_equal(tc_runset_load(dir, &o, &rs, &err),
	    TC_BENCH_VALUE_ERROR);
	assert_string_equal(tc_error_msg(&err), "max() arg is an empty sequence");
	free(log);
	tc_error_clear(&err);
	free(dir);
	free(d1);
}

static void
runset_needs_samples_after_warmup(void **state)
{
	const char *const few[] = { "1 2 3" };
	char *d = write_runs("few", few, 1), *want;
	tc_runset_opts o = TC_RUNSET_OPTS_INIT;
	tc_error err = TC_ERROR_INIT;
	tc_runset *rs = NULL;

	(void)state;
	assert_int_equal(tc_runset_load(d, &o, &rs, &err),
	    TC_BENCH_VALUE_ERROR);
	assert_true(asprintf(&want, "%s/run-1/log_0.log: no decode samples "
	    "remain after warmup=8", d) > 0);
	assert_string_equal(tc_error_msg(&err), want);
	free(want);
	/* a negative warmup keeps the tail (slice semantics) */
	o.warmup = -1;
	assert_int_equal(tc_runset_load(d, &o, &rs, &err), 0);
	assert_int_equal(rs->runs[0].ranks[0].decode.count, 1);
	assert_true(rs->runs[0].ranks[0].samples[0] == 3.0);
	tc_runset_free(rs);
	tc_error_clear(&err);
	free(d);
}

static void
runset_invalid_numeral_and_unreadable_log_are_failures(void **state)
{
	const char *const one[] = { "9.0" };
	char *d = write_runs("bad", one, 1), *log, *want;
	tc_runset_opts o = TC_RUNSET_OPTS_INIT;
	tc_error err = TC_ERROR_INIT;
	tc_runset *rs = NULL;

	(void)state;
	assert_true(asprintf(&log, "%s/run-1/log_3.log", d) > 0);
	write_file(log, "Inference time (decode): 1.2.3 ms\n");
	assert_int_equal(tc_runset_load(d, &o, &rs, &err), TC_BENCH_FAIL);
	assert_non_null(strstr(tc_error_msg(&err), "'1.2.3'"));
	unlink(log);
	mkdir(log, 0777);
	assert_int_equal(tc_runset_load(d, &o, &rs, &err), TC_BENCH_FAIL);
	assert_true(asprintf(&want, "[Errno 21] Is a directory: '%s'", log) > 0);
	assert_string_equal(tc_error_msg(&err), want);
	free(want);
	free(log);
	tc_error_clear(&err);
	free(d);
}

static void
runset_rank_names_sorting_and_duplicates(void **state)
{
	char *d = path_of("names"), *p;
	tc_runset_opts o = { 0, 2, true };
	tc_error err = TC_ERROR_INIT;
	tc_runset *rs = NULL;

	(void)state;
	/* run-10 sorts before run-2; log_abc_log_2.log is rank 2; log_x.log
	 * and notes.log are ignored; log_3.log and log_03.log both count */
	for (int r = 0; r < 2; r++) {
		assert_true(asprintf(&p, "%s/run-%s", d, r ? "2" : "10") > 0);
		mkdir_p(p);
		free(p);
	}
	assert_true(asprintf(&p, "%s/run-10/log_abc_log_2.log", d) > 0);
	write_file(p, "Inference time (decode): 5.0 ms Inference time "
	    "(decode): 7.0 ms\nInference time (prefill): 1.0 ms\n");
	free(p);
	assert_true(asprintf(&p, "%s/run-10/log_1.log", d) > 0);
	write_file(p, "Inference time (decode): 6.0 ms\n");
	free(p);
	assert_true(asprintf(&p, "%s/run-10/log_x.log", d) > 0);
	write_file(p, "Inference time (decode): 100.0 ms\n");
	free(p);
	assert_true(asprintf(&p, "%s/run-2/log_3.log", d) > 0);
	write_file(p, "Inference time (decode): 1.0 ms\n");
	free(p);
	assert_true(asprintf(&p, "%s/run-2/log_03.log", d) > 0);
	write_file(p, "Inference time (decode): 2.0 ms\n");
	free(p);
	assert_int_equal(tc_runset_load(d, &o, &rs, &err), 0);
	assert_non_null(strstr(rs->runs[0].path, "run-10"));
	assert_int_equal(rs->runs[0].worst_rank, 1);	/* 6.0 = 6.0: first */
	assert_true(rs->runs[0].worst_rank_mean_ms == 6.0);
	assert_true(rs->runs[0].has_prefill);
	assert_int_equal(rs->runs[1].rank_count, 1);	/* sorted (3, "log_03") first:
							 * log_3.log overwrites it */
	assert_string_equal(rs->runs[1].worst_rank_mean_exact_ms, "1.0");
	assert_int_equal(rs->runs[1].decode.count, 2);	/* both logs pooled */
	assert_true(rs->runs[1].samples[0] == 2.0);	/* log_03.log first */
	assert_true(rs->runs[1].samples[1] == 1.0);
	assert_true(rs->runs[1].decode.mean_ms == 1.5);
	assert_true(rs->runs[1].ranks[0].samples[0] == 1.0);
	assert_false(rs->runs[1].has_prefill);
	/* the run set pools what the ranks kept: run-10's rank 1 (6.0) and
	 * rank 2 (5.0, 7.0), then run-2's rank 3 from log_3.log only */
	assert_int_equal(rs->decode.count, 4);
	assert_true(rs->samples[0] == 6.0 && rs->samples[1] == 5.0 &&
	    rs->samples[2] == 7.0 && rs->samples[3] == 1.0);
	assert_true(rs->decode.mean_ms == 4.75);
	assert_true(rs->decode.max_ms == 7.0 && rs->decode.min_ms == 1.0);
	tc_runset_free(rs);
	rs = NULL;

	/* by default such a run directory is refused, naming both logs */
	o.allow_duplicate_ranks = false;
	assert_int_equal(tc_runset_load(d, &o, &rs, &err),
	    TC_BENCH_VALUE_ERROR);
	assert_null(rs);
	assert_true(asprintf(&p, "%s/run-2: rank logs %s/run-2/log_03.log and "
	    "%s/run-2/log_3.log both name rank 3; keep one log per rank", d, d,
	    d) > 0);
	assert_string_equal(tc_error_msg(&err), p);
	free(p);
	tc_error_clear(&err);
	free(d);
}

/* Each numeral as float(Decimal(text)) (glibc's strtod rounds the same
 * way) and the exact mean as str(sum(Decimal) / n), whichever of the
 * scanner's paths (one-pass or Decimal) converts it. */
static void
runset_numerals_convert_as_decimal_then_float(void **state)
{
	static const char *const odd[] = {
		"0.1234567890123456789012", "9007199254740993",
		"12345678901234567890.5", "1.00000000000000000000001",
		"0.0000001", "3.25", "4.5",
	};
	char *d = path_of("numerals"), *p;
	tc_runset_opts o = { 0, 2, false };
	tc_error err = TC_ERROR_INIT;
	tc_runset *rs = NULL;
	const tc_rank_summary *r;

	(void)state;
	assert_true(asprintf(&p, "%s/run-1", d) > 0);
	mkdir_p(p);
	free(p);
	assert_true(asprintf(&p, "%s/run-1/log_0.log", d) > 0);
	write_file(p, "Inference time (decode): 0.05 ms\n"
	    "Inference time (decode): 000.000 ms\n"
	    "Inference time (decode): .5 ms\n"
	    "Inference time (decode): 5. ms\n"
	    "Inference time (decode): 7e5 ms\n"	/* no match: "7" then "e" */
	    "Inference time (decode): 1.5 m");		/* no match at the end */
	free(p);
	assert_true(asprintf(&p, "%s/run-1/log_1.log", d) > 0);
	write_file(p, "Inference time (decode): 0.1234567890123456789012 ms\n"
	    "Inference time (decode): 9007199254740993 ms\n"
	    "Inference time (decode): 12345678901234567890.5 ms\n"
	    "Inference time (decode): 1.00000000000000000000001 ms\n"
	    "Inference time (decode): 0.0000001 ms\n"
	    "xInference time (decode): 3.25 msInference time (decode): 4.5 ms");
	free(p);
	assert_int_equal(tc_runset_load(d, &o, &rs, &err), 0);
	r = &rs->runs[0].ranks[0];
	assert_int_equal(r->decode.count, 4);
	assert_true(r->samples[0] == 0.05 && r->samples[1] == 0.0 &&
	    r->samples[2] == 0.5 && r->samples[3] == 5.0);
	assert_string_equal(r->mean_exact_ms, "1.3875");
	r = &rs->runs[0].ranks[1];
	assert_int_equal(r->decode.count, 7);
	for (size_t i = 0; i < 7; i++)
		assert_true(r->samples[i] == strtod(odd[i], NULL));
	tc_runset_free(rs);
	tc_error_clear(&err);
	free(d);
}

static void
promotion_threshold_is_inclusive_at_the_boundary(void **state)
{
	/* baseline mean 10.0, candidate 9.5: (10.0 - 9.5) / 10.0 * 100 is
	 * exactly 5.0 in binary64 (python), and ">= threshold" admits it */
	const char *const base[] = { "10.0", "10.0", "10.0", "10.0", "10.0" };
	const char *const cand[] = { "9.5", "9.5", "9.5" };
	char *bd = write_runs("tb", base, 5), *cd = write_runs("tcand", cand, 3);
	tc_runset *b = load(bd), *c = load(cd);
	tc_gate_policy p = TC_GATE_POLICY_INIT;
	tc_evaluation e;

	(void)state;
	p.min_improvement_pct = 5.0;	/* (10 - 9.5) / 10 * 100 == 5.0 */
	p.allow_stddev_regression_pct = 1e308;	/* zero baseline stddev */
	tc_evaluate(b, c, &p, TC_GATE_FINAL_PROMOTION, true, &e);
	assert_true(e.mean_improvement_pct == 5.0);
	assert_true(e.mean_improvement);
	/* a zero-stddev baseline can never pass the stddev gate */
	assert_false(e.has_stddev);
	assert_false(e.stddev_no_material_regression);
	p.min_improvement_pct = 5.000000000000001;
	tc_evaluate(b, c, &p, TC_GATE_FINAL_PROMOTION, true, &e);
	assert_false(e.mean_improvement);
	tc_runset_free(b);
	tc_runset_free(c);
	free(bd);
	free(cd);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(stage_a_config_requires_explicit_empty_option_maps),
		cmocka_unit_test(decimal_five_percent_baseline_spread_is_stable),
		cmocka_unit_test(absolute_half_ms_spread_can_be_unstable_when_relative_spread_exceeds_five_percent),
		cmocka_unit_test(raw_log_decimal_five_percent_spread_is_stable),
		cmocka_unit_test(baseline_spread_over_five_percent_is_unstable),
		cmocka_unit_test(forged_baseline_stability_cannot_promote_unstable_baseline),
		cmocka_unit_test(single_run_candidate_cannot_promote_and_missing_replay_is_reported),
		cmocka_unit_test(whole_scope_clean_promotion_does_not_require_replay_evidence),
		cmocka_unit_test(selection_only_ranks_clean_candidates_without_promoting_them),
		cmocka_unit_test(selection_only_rejects_missing_or_nonempty_stage_a_options),
		cmocka_unit_test(option_trial_accepts_any_strictly_positive_gain_without_replay_or_profiling),
		cmocka_unit_test(option_trial_rejects_noisy_or_nonbeneficial_delta),
		cmocka_unit_test(option_trial_requires_one_candidate_and_rejects_other_modes),
		cmocka_unit_test(selection_only_rejects_final_promotion_inputs),
		cmocka_unit_test(selection_only_matrix_rules_of_the_reference_tests),
		cmocka_unit_test(runset_reports_missing_runs_and_rank_count),
		cmocka_unit_test(runset_needs_samples_after_warmup),
		cmocka_unit_test(runset_invalid_numeral_and_unreadable_log_are_failures),
		cmocka_unit_test(runset_numerals_convert_as_decimal_then_float),
		cmocka_unit_test(runset_rank_names_sorting_and_duplicates),
		cmocka_unit_test(promotion_threshold_is_inclusive_at_the_boundary),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
