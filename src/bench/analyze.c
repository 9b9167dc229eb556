/*
 * analyze.c - compare_candidates (docs/spec/gates.md "Order of a comparison"):
 * the order of the checks, the per-candidate evaluation in each mode, the
 * report object, and the "tunectl" extension block (bootstrap interval,
 * Mann-Whitney U, environment drift, run health).  Selection and the stdout
 * table are in selection.c.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tunectl/bench.h"
#include "bench_internal.h"

void
tc_analyze_opts_init(tc_analyze_opts *o)
{
	tc_runset_opts rs = TC_RUNSET_OPTS_INIT;
	tc_gate_policy p = TC_GATE_POLICY_INIT;

	memset(o, 0, sizeof(*o));
	o->runset = rs;
	o->policy = p;
}

static int
cmp_cstr(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static void
join_sorted(tc_buf *b, const char **items, size_t n)
{
	if (n > 1)
		qsort(items, n, sizeof(*items), cmp_cstr);
	for (size_t i = 0; i < n; i++) {
		if (i > 0)
			tc_buf_puts(b, ", ");
		tc_buf_puts(b, items[i]);
	}
}

static const tc_name_path *
find_name(const tc_name_path *list, size_t n, const char *name)
{
	for (size_t i = 0; i < n; i++)
		if (strcmp(list[i].name, name) == 0)
			return &list[i];
	return NULL;
}

static bool
valid_mode(const char *m)
{
	return strcmp(m, "range_optimized") == 0 ||
	    strcmp(m, "whole_scope") == 0;
}

/* Steps 10-12: the mode map and the replay map against the candidates. */
static int
check_mappings(const tc_analyze_opts *o, const char **modes, tc_error *err)
{
	const char **unknown = tc_xcalloc(o->nmodes + 1, sizeof(char *));
	char **invalid = tc_xcalloc(o->nmodes + 1, sizeof(char *));
	const char **missing = tc_xcalloc(o->ncandidates + 1, sizeof(char *));
	const char **extra = tc_xcalloc(o->nreplays + 1, sizeof(char *));
	size_t nu = 0, ni = 0, nm = 0, ne = 0, i;
	tc_buf b = TC_BUF_INIT;
	int rc = TC_BENCH_OK;

	for (i = 0; i < o->nmodes; i++) {
		if (find_name(o->candidates, o->ncandidates,
		    o->modes[i].name) == NULL)
			unknown[nu++] = o->modes[i].name;
		if (!valid_mode(o->modes[i].value))
			invalid[ni++] = tc_xasprintf("%s=%s", o->modes[i].name,
			    o->modes[i].value);
	}
	if (nu > 0 || ni > 0) {
		tc_buf_puts(&b, "promotion mode mapping invalid (");
		if (nu > 0) {
			tc_buf_puts(&b, "unknown candidates: ");
			join_sorted(&b, unknown, nu);
		}
		if (ni > 0) {
			if (nu > 0)
				tc_buf_puts(&b, "; ");
			tc_buf_puts(&b, "invalid modes: ");
			join_sorted(&b, (const char **)invalid, ni);
		}
		tc_buf_putc(&b, ')');
		tc_error_set(err, "%s", b.data);
		rc = TC_BENCH_VALUE_ERROR;
		goto out;
	}
	for (i = 0; i < o->ncandidates; i++) {
		const tc_name_path *m;

		if (o->selection_only || o->option_trial)
			modes[i] = "whole_scope";
		else if ((m = find_name(o->modes, o->nmodes,
		    o->candidates[i].name)) != NULL)
			modes[i] = m->value;
		else
			modes[i] = "range_optimized";
		if (strcmp(modes[i], "range_optimized") == 0 &&
		    find_name(o->replays, o->nreplays,
		    o->candidates[i].name) == NULL)
			missing[nm++] = o->candidates[i].name;
	}
	for (i = 0; i < o->nreplays; i++) {
		const char *name = o->replays[i].name;
		size_t k;

		for (k = 0; k < o->ncandidates; k++)
			if (strcmp(o->candidates[k].name, name) == 0 &&
			    strcmp(modes[k], "range_optimized") == 0)
				break;
		if (k == o->ncandidates)
			extra[ne++] = name;
	}
	if (nm > 0 || ne > 0) {
		tc_buf_puts(&b, "replay evidence mapping mismatch (");
		if (nm > 0) {
			tc_buf_puts(&b, "missing: ");
			join_sorted(&b, missing, nm);
		}
		if (ne > 0) {
			if (nm > 0)
				tc_buf_puts(&b, "; ");
			tc_buf_puts(&b, "extra: ");
			join_sorted(&b, extra, ne);
		}
		tc_buf_putc(&b, ')');
		tc_error_set(err, "%s", b.data);
		rc = TC_BENCH_VALUE_ERROR;
	}
out:
	for (i = 0; i < ni; i++)
		free(invalid[i]);
	free(invalid);
	free(unknown);
	free(missing);
	free(extra);
	tc_buf_free(&b);
	return rc;
}

static int
cmp_name_path(const void *a, const void *b)
{
	return strcmp(((const tc_name_path *)a)->name,
	    ((const tc_name_path *)b)->name);
}

/* Step 13: validate every required replay; any invalid one aborts. */
static int
validate_replays(const tc_analyze_opts *o, tc_json **replays, tc_error *err)
{
	tc_name_path *bad = tc_xcalloc(o->nreplays + 1, sizeof(*bad));
	size_t nbad = 0;
	int rc = TC_BENCH_OK;

	for (size_t i = 0; i < o->nreplays; i++) {
		tc_json *r = tc_replay_validate(o->replays[i].value,
		    o->replays[i].name, o->replay_validator, err);

		if (r == NULL) {
			rc = TC_BENCH_FAIL;
			goto out;
		}
		replays[i] = r;
		if (!tc_json_get(r, "valid")->u.b) {
			bad[nbad].name = o->replays[i].name;
			bad[nbad].value = tc_json_get_string(r, "failure_reason");
			if (bad[nbad].value == NULL)
				bad[nbad].value = "None";
			nbad++;
		}
	}
	if (nbad > 0) {
		tc_buf b = TC_BUF_INIT;

		qsort(bad, nbad, sizeof(*bad), cmp_name_path);
		tc_buf_puts(&b, "replay evidence invalid (");
		for (size_t i = 0; i < nbad; i++)
			tc_buf_printf(&b, "%s%s: %s", i > 0 ? "; " : "",
			    bad[i].name, bad[i].value);
		tc_buf_putc(&b, ')');
		tc_error_set(err, "%s", b.data);
		tc_buf_free(&b);
		rc = TC_BENCH_VALUE_ERROR;
	}
out:
	free(bad);
	return rc;
}

/* ---- the extension block -------------------------------------------------- */

static void
health_warnings(const char *label, const tc_runset *rs, tc_json *list,
    tc_buf *warnings)
{
	const tc_json *runs;
	size_t failed = 0;

	if (rs->manifest_error != NULL) {
		char *w = tc_xasprintf("%s: runset.json ignored: %s", label,
		    rs->manifest_error);

		tc_json_array_push(list, tc_json_new_string(w));
		if (warnings != NULL)
			tc_buf_printf(warnings, "warning: %s\n", w);
		free(w);
		return;
	}
	runs = tc_json_get_array(rs->manifest, "runs");
	for (size_t i = 0; runs != NULL && i < runs->u.arr.len; i++) {
		const tc_json *r = runs->u.arr.items[i];
		int64_t code = 0;
		const tc_json *to = tc_json_get(r, "timed_out");

		if ((tc_json_int64(tc_json_get(r, "exit_code"), &code) &&
		    code != 0) || (tc_json_is(to, TC_JSON_BOOL) && to->u.b))
			failed++;
	}
	if (failed > 0) {
		char *w = tc_xasprintf("%s: runset.json records %zu failed "
		    "run(s) (non-zero exit or timeout)", label, failed);

		tc_json_array_push(list, tc_json_new_string(w));
		if (warnings != NULL)
			tc_buf_printf(warnings, "warning: %s\n", w);
		free(w);
	}
}

static const tc_json *
fingerprint(const tc_runset *rs)
{
	return tc_json_get_object(rs->manifest, "environment");
}

/* Compare the baseline's environment with a candidate's; returns a
 * malloc'd message when they differ (or one lacks a fingerprint and
 * strict is set). */
static char *
env_problem(const char *name, const tc_runset *base, const tc_runset *cand,
    bool strict)
{
	const tc_json *a = fingerprint(base), *b = fingerprint(cand);
	char *diff, *msg;

	if (a == NULL || b == NULL) {
		if (!strict)
			return NULL;
		return tc_xasprintf("no environment fingerprint (runset.json) "
		    "for %s", a == NULL ? "baseline" : name);
	}
	if ((diff = tc_env_fingerprint_diff(a, b)) == NULL)
		return NULL;
	msg = tc_xasprintf("environment fingerprints differ between baseline "
	    "and %s: %s", name, diff);
	free(diff);
	return msg;
}

/* The clock a run set's figures were read from (runset.json metric.clock):
 * a string, JSON null when the workload named none, NULL without a
 * runset.json. */
static const tc_json *
timing_clock(const tc_runset *rs)
{
	return tc_json_get(tc_json_get_object(rs->manifest, "metric"), "clock");
}

/* Figures read from different clocks cannot be compared: a malloc'd
 * message when both run sets name their clock and the clocks differ. */
static char *
clock_problem(const char *name, const tc_runset *base, const tc_runset *cand)
{
	const tc_json *a = timing_clock(base), *b = timing_clock(cand);
	const char *x, *y;

	if (a == NULL || b == NULL || tc_json_equal(a, b))
		return NULL;
	x = tc_json_string(a) != NULL ? tc_json_string(a) : "none named";
	y = tc_json_string(b) != NULL ? tc_json_string(b) : "none named";
	return tc_xasprintf("timing clocks differ between baseline and %s: %s "
	    "vs %s", name, x, y);
}

/* How a run set's samples were logged: "reciprocal" (bench run
 * --metric-higher) or NULL (the figure itself). */
static const char *
logged_as(const tc_runset *rs)
{
	return tc_json_get_string(tc_json_get_object(rs->manifest, "metric"),
	    "logged");
}

/* A reciprocal and a plain run set measure different things: comparing
 * them would call a throughput's fall a gain.  A malloc'd message, or
 * NULL when both log alike. */
static char *
direction_problem(const char *name, const tc_runset *base,
    const tc_runset *cand)
{
	const char *a = logged_as(base), *b = logged_as(cand);

	if ((a == NULL && b == NULL) || (a != NULL && b != NULL &&
	    strcmp(a, b) == 0))
		return NULL;
	return tc_xasprintf("the baseline and %s log different figures: %s "
	    "vs %s (bench run --metric-higher logs the reciprocal; measure "
	    "both alike)", name, a != NULL ? "the reciprocal" : "the figure",
	    b != NULL ? "the reciprocal" : "the figure");
}

typedef struct cand_state {
	const char *name;
	const char *mode;
	tc_runset *rs;
	double improvement;
	tc_evaluation eval;
	bool reference_passed;
	double ci_lo, ci_hi;
	bool ci_ok;
	bool ci_paired;		/* resampled by round (interleaved) */
	bool ci_pass;		/* the interval clears the threshold */
	bool waived_stable, waived_stddev;	/* --stability relative */
	tc_mwu mwu;
	tc_json *replay;	/* first validation (final mode) */
} cand_state;

static tc_json *
extension_block(const tc_analyze_opts *o, const tc_runset *base,
    cand_state *cs, size_t n, tc_json *warn_list)
{
	tc_json *ext = tc_json_new_object(), *stats = tc_json_new_object();
	tc_json *method = tc_json_new_object(), *per = tc_json_new_object();
	tc_json *env = tc_json_new_object(), *envc = tc_json_new_object();
	tc_json *sig = tc_json_new_object(), *refd = tc_json_new_object();
	tc_json *clk = tc_json_new_object(), *clkc = tc_json_new_object();
	unsigned resamples = o->bootstrap_resamples ? o->bootstrap_resamples :
	    TC_BOOTSTRAP_RESAMPLES;
	uint64_t seed = o->bootstrap_seed_set ? o->bootstrap_seed :
	    TC_BOOTSTRAP_SEED;
	char seedtxt[32];

	tc_json_object_set_string(method, "unit",
	    "per-run worst-rank mean (run_worst_rank_means_ms)");
	tc_json_object_set_string(method, "bootstrap",
	    "percentile bootstrap of (mean(B*) - mean(C*)) / mean(B*) * 100, "
	    "runs resampled with replacement within each run set; for a "
	    "candidate measured interleaved with the baseline "
	    "(bootstrap_resampling paired) rounds resampled with replacement, "
	    "each with both sides' runs of that round");
	tc_json_object_set_int(method, "bootstrap_resamples", resamples);
	snprintf(seedtxt, sizeof(seedtxt), "%llu", (unsigned long long)seed);
	tc_json_object_set(method, "bootstrap_seed",
	    tc_json_new_int_text(seedtxt));
	tc_json_object_set(method, "confidence_level", tc_json_new_float(0.95));
	tc_json_object_set_string(method, "mann_whitney",
	    "two-sided; exact null distribution without ties when "
	    "n_baseline * n_candidate <= 2500, else normal approximation with "
	    "tie and 0.5 continuity corrections");
	tc_json_object_set(stats, "method", method);
	for (size_t i = 0; i < n; i++) {
		tc_json *c = tc_json_new_object(), *ci = tc_json_new_array();

		tc_json_array_push(ci, tc_bench_float_or_null(cs[i].ci_ok,
		    cs[i].ci_lo));
		tc_json_array_push(ci, tc_bench_float_or_null(cs[i].ci_ok,
		    cs[i].ci_hi));
		tc_json_object_set(c, "bootstrap_ci95_improvement_pct", ci);
		tc_json_object_set_string(c, "bootstrap_resampling",
		    cs[i].ci_paired ? "paired" : "independent");
		tc_json_object_set_bool(c, "ci_excludes_zero", cs[i].ci_ok &&
		    (cs[i].ci_lo > 0 || cs[i].ci_hi < 0));
		tc_json_object_set(c, "mann_whitney_u",
		    tc_json_new_float(cs[i].mwu.u));
		tc_json_object_set(c, "mann_whitney_p_value",
		    tc_json_new_float(cs[i].mwu.p_value));
		tc_json_object_set_string(c, "mann_whitney_method",
		    cs[i].mwu.method);
		tc_json_object_set(per, cs[i].name, c);
		tc_json_object_set_bool(refd, cs[i].name,
		    cs[i].reference_passed);
		tc_json_object_set(envc, cs[i].name,
		    fingerprint(cs[i].rs) != NULL ?
		    tc_json_clone(fingerprint(cs[i].rs)) : tc_json_new_null());
		tc_json_object_set(clkc, cs[i].name,
		    timing_clock(cs[i].rs) != NULL ?
		    tc_json_clone(timing_clock(cs[i].rs)) : tc_json_new_null());
	}
	tc_json_object_set(stats, "candidates", per);
	tc_json_object_set(ext, "statistics", stats);
	tc_json_object_set_bool(sig, "required", o->significance);
	tc_json_object_set_string(sig, "rule", "with --significance a "
	    "candidate passes only when the reference gate passes and the "
	    "bootstrap interval's lower bound is above 0");
	tc_json_object_set(sig, "reference_decisions", refd);
	tc_json_object_set(ext, "significance", sig);
	tc_json_object_set_string(ext, "decide_by", o->decide_by_ci ? "ci" :
	    "mean");
	tc_json_object_set_string(ext, "stability_rule", o->stability_relative ?
	    "relative" : "reference");
	tc_json_object_set(env, "baseline", fingerprint(base) != NULL ?
	    tc_json_clone(fingerprint(base)) : tc_json_new_null());
	tc_json_object_set(env, "candidates", envc);
	tc_json_object_set(ext, "environment", env);
	tc_json_object_set(clk, "baseline", timing_clock(base) != NULL ?
	    tc_json_clone(timing_clock(base)) : tc_json_new_null());
	tc_json_object_set(clk, "candidates", clkc);
	tc_json_object_set(ext, "timing_clock", clk);
	tc_json_object_set(ext, "warnings", warn_list);
	if (logged_as(base) != NULL &&
	    strcmp(logged_as(base), "reciprocal") == 0) {
		/* the figures above are of 1/value: say so, for a reader of
		 * this report alone (report html --gate converts them) */
		tc_json *m = tc_json_new_object();

		tc_json_object_set_string(m, "direction", "higher");
		tc_json_object_set_string(m, "logged", "reciprocal");
		tc_json_object_set(ext, "metric", m);
	}
	tc_json_object_set_string(ext, "schema_version",
	    "tunectl-gate-extensions-v1");
	return ext;
}

/* ---- compare_candidates --------------------------------------------------- */

static int
pre_checks(const tc_analyze_opts *o, tc_error *err)
{
	if (o->selection_only && o->option_trial) {
		tc_error_set(err, "selection-only and option-trial are mutually "
		    "exclusive");
		return TC_BENCH_VALUE_ERROR;
	}
	if (o->selection_only && (o->nreplays > 0 || o->nmodes > 0)) {
		tc_error_set(err, "selection-only screening does not accept "
		    "replay evidence or promotion modes");
		return TC_BENCH_VALUE_ERROR;
	}
	if (o->option_trial && (o->nreplays > 0 || o->nmodes > 0)) {
		tc_error_set(err, "option-trial does not accept replay evidence "
		    "or promotion modes");
		return TC_BENCH_VALUE_ERROR;
	}
	if (o->option_trial && o->ncandidates != 1) {
		tc_error_set(err, "option-trial requires exactly one candidate");
		return TC_BENCH_VALUE_ERROR;
	}
	if (o->selection_only && o->screening_matrix == NULL) {
		tc_error_set(err, "selection-only screening requires "
		    "--screening-matrix");
		return TC_BENCH_VALUE_ERROR;
	}
	if (!o->selection_only && o->screening_matrix != NULL) {
		tc_error_set(err, "screening matrix is accepted only with "
		    "selection-only");
		return TC_BENCH_VALUE_ERROR;
	}
	return TC_BENCH_OK;
}

/* Selection-only screening: the validated matrix and the Stage A option
 * controls of the candidates. */
static int
load_screening(const tc_analyze_opts *o, tc_json **matrix,
    tc_json **controls, tc_error *err)
{
	const char **names = tc_xcalloc(o->ncandidates + 1, sizeof(char *));
	size_t i;

	for (i = 0; i < o->ncandidates; i++)
		names[i] = o->candidates[i].name;
	*matrix = tc_screening_matrix_validate(o->screening_matrix, names,
	    o->ncandidates, err);
	free(names);
	if (*matrix == NULL) {
		/* an unencodable matrix cannot be fingerprinted: the
		 * reference raises UnicodeEncodeError (a traceback) */
		return strstr(tc_error_msg(err), "codec") != NULL ?
		    TC_BENCH_FAIL : TC_BENCH_VALUE_ERROR;
	}
	*controls = tc_stage_a_controls(o->candidates, o->ncandidates, err);
	return *controls == NULL ? TC_BENCH_VALUE_ERROR : TC_BENCH_OK;
}

/* Load candidate i into c and judge it against the baseline: the
 * reference gate (with its replay in range_optimized mode), the bootstrap
 * interval and the Mann-Whitney test, and whether its environment and
 * clock match the baseline's. */
static int
evaluate_candidate(const tc_analyze_opts *o, const tc_runset_opts *ro,
    tc_gate_mode mode, size_t i, const tc_runset *base, tc_json **replays,
    cand_state *c, tc_json *warn_list, tc_buf *warnings, tc_error *err)
{
	bool replay_valid = true;
	char *problem;
	int rc;

	if ((rc = tc_runset_load(o->candidates[i].value, ro, &c->rs,
	    err)) != 0)
		return rc;
	if ((rc = tc_improvement_pct(base, c->rs, &c->improvement, err)) != 0)
		return rc;
	if (strcmp(c->mode, "range_optimized") == 0) {
		for (size_t k = 0; k < o->nreplays; k++)
			if (strcmp(o->replays[k].name, c->name) == 0)
				c->replay = tc_json_clone(replays[k]);
		replay_valid = c->replay != NULL &&
		    tc_json_get(c->replay, "valid")->u.b;
	}
	tc_evaluate(base, c->rs, &o->policy, mode, replay_valid, &c->eval);
	c->reference_passed = c->eval.passed;
	c->ci_ok = tc_runset_improvement_ci(base, c->rs,
	    o->bootstrap_resamples ? o->bootstrap_resamples :
	    TC_BOOTSTRAP_RESAMPLES, o->bootstrap_seed_set ? o->bootstrap_seed :
	    TC_BOOTSTRAP_SEED, &c->ci_lo, &c->ci_hi, &c->ci_paired);
	tc_mann_whitney(base->run_worst_rank_means_ms, base->run_count,
	    c->rs->run_worst_rank_means_ms, c->rs->run_count, &c->mwu);
	c->ci_pass = tc_evaluation_apply_interval(&c->eval, c->ci_ok, c->ci_lo,
	    o->decide_by_ci, o->stability_relative, &c->waived_stable,
	    &c->waived_stddev);
	if (o->significance)
		c->eval.passed = c->eval.passed && c->ci_ok && c->ci_lo > 0;
	if ((problem = direction_problem(c->name, base, c->rs)) != NULL) {
		tc_error_set(err, "%s", problem);
		free(problem);
		return TC_BENCH_VALUE_ERROR;
	}
	health_warnings(c->name, c->rs, warn_list, warnings);
	problem = env_problem(c->name, base, c->rs, o->strict_environment);
	if (problem == NULL)
		problem = clock_problem(c->name, base, c->rs);
	if (problem == NULL)
		return TC_BENCH_OK;
	if (o->strict_environment) {
		tc_error_set(err, "%s (--strict-environment)", problem);
		free(problem);
		return TC_BENCH_VALUE_ERROR;
	}
	tc_json_array_push(warn_list, tc_json_new_string(problem));
	if (warnings != NULL)
		tc_buf_printf(warnings, "warning: %s\n", problem);
	free(problem);
	return TC_BENCH_OK;
}

/* Under --decide-by ci the evaluation's improvement check is the
 * interval's: "ci_improvement" stands in "checks" for "mean_improvement",
 * and the interval, the rule and its threshold are written beside it. */
static void
ci_decision_json(tc_json *ev, const cand_state *cs)
{
	tc_json *checks = tc_json_get_object(ev, "checks");
	tc_json *ci = tc_json_new_array();

	tc_json_object_remove(checks, "mean_improvement");
	tc_json_object_set_bool(checks, "ci_improvement", cs->ci_pass);
	tc_json_array_push(ci, tc_bench_float_or_null(cs->ci_ok, cs->ci_lo));
	tc_json_array_push(ci, tc_bench_float_or_null(cs->ci_ok, cs->ci_hi));
	tc_json_object_set_string(ev, "decide_by", "ci");
	tc_json_object_set(ev, "ci95_improvement_pct", ci);
	tc_json_object_set_string(ev, "ci_resampling", cs->ci_paired ?
	    "paired by round (interleaved runs)" : "independent run sets");
	tc_json_object_set_string(ev, "decision_rule", cs->eval.strict_gain ?
	    "bootstrap 95% interval of the improvement excludes 0 and its "
	    "lower bound is > 0" :
	    "bootstrap 95% interval of the improvement excludes 0 and its "
	    "lower bound is >= min_improvement_pct");
}

/* Under --stability relative: the rule, and the checks the interval
 * waived (their figures stay where the reference writes them). */
static void
relative_json(tc_json *ev, const cand_state *cs)
{
	tc_json *waived = tc_json_new_array();

	if (cs->waived_stable)
		tc_json_array_push(waived, tc_json_new_string("baseline_stable"));
	if (cs->waived_stddev)
		tc_json_array_push(waived, tc_json_new_string(
		    "stddev_no_material_regression"));
	tc_json_object_set_string(ev, "stability_rule", "relative");
	tc_json_object_set(ev, "waived_by_interval", waived);
}

/* The report's entry for one candidate: its run set, improvement and
 * the evaluation under the name its gate mode uses. */
static tc_json *
candidate_json(const tc_analyze_opts *o, tc_gate_mode mode,
    const cand_state *cs)
{
	tc_json *c = tc_runset_to_json(cs->rs);
	tc_json *ev;

	tc_json_object_set(c, "improvement_pct",
	    tc_json_new_float(cs->improvement));
	ev = tc_evaluation_to_json(&cs->eval, &o->policy, mode, cs->mode,
	    cs->replay != NULL ? tc_json_clone(cs->replay) : NULL);
	if (o->decide_by_ci)
		ci_decision_json(ev, cs);
	if (o->stability_relative)
		relative_json(ev, cs);
	if (o->significance)
		tc_json_object_set_bool(tc_json_get_object(ev, "checks"),
		    "bootstrap_ci_lower_bound_positive",
		    cs->ci_ok && cs->ci_lo > 0);
	if (mode == TC_GATE_SELECTION_ONLY) {
		tc_json_object_set(c, "screening_eligibility", ev);
	} else if (mode == TC_GATE_OPTION_TRIAL) {
		tc_json_object_set(c, "option_trial_evaluation", ev);
	} else {
		tc_json_object_set(c, "deep_fusion_replay", cs->replay != NULL ?
		    tc_json_clone(cs->replay) : tc_replay_not_required());
		tc_json_object_set_string(c, "promotion_mode", cs->mode);
		tc_json_object_set(c, "promotion", ev);
	}
	return c;
}

static void
write_table(const tc_runset *base, const tc_stability *st,
    const tc_sel_input *in, const cand_state *cs, size_t n, tc_buf *table)
{
	tc_sel_table_input t;
	size_t i;

	memset(&t, 0, sizeof(t));
	t.baseline = base;
	t.stability = st;
	t.sel = in;
	t.runsets = tc_xcalloc(n + 1, sizeof(*t.runsets));
	t.improvement = tc_xcalloc(n + 1, sizeof(double));
	for (i = 0; i < n; i++) {
		t.runsets[i] = cs[i].rs;
		t.improvement[i] = cs[i].improvement;
	}
	tc_selection_table(&t, table);
	free(t.runsets);
	free(t.improvement);
}

/* What was analysed, for the outputs. */
struct analysis {
	tc_gate_mode mode;
	tc_runset_opts ro;	/* how every run set is read */
	tc_runset *base;
	tc_stability st;
	cand_state *cs;
	size_t n;
	tc_json *matrix, *controls, *warn_list;	/* taken by the report */
};

/* The selection among the candidates, as a table and as the report. */
static void
write_outputs(const tc_analyze_opts *o, struct analysis *a,
    tc_json **report, tc_buf *table)
{
	tc_sel_input in;
	tc_json *r, *cands;
	size_t i;

	memset(&in, 0, sizeof(in));
	in.mode = a->mode;
	in.ncandidates = a->n;
	in.names = tc_xcalloc(a->n + 1, sizeof(char *));
	in.metric = tc_xcalloc(a->n + 1, sizeof(double));
	in.passed = tc_xcalloc(a->n + 1, sizeof(bool));
	for (i = 0; i < a->n; i++) {
		in.names[i] = a->cs[i].name;
		in.metric[i] = a->cs[i].rs->worst_rank_mean_ms;
		in.passed[i] = a->cs[i].eval.passed;
	}
	if (table != NULL)
		write_table(a->base, &a->st, &in, a->cs, a->n, table);
	if (report != NULL) {
		r = tc_json_new_object();
		cands = tc_json_new_object();
		tc_json_object_set(r, "baseline", tc_runset_to_json(a->base));
		tc_json_object_set(r, "baseline_stability",
		    tc_stability_to_json(&a->st));
		for (i = 0; i < a->n; i++)
			tc_json_object_set(cands, a->cs[i].name,
			    candidate_json(o, a->mode, &a->cs[i]));
		tc_json_object_set(r, "candidates", cands);
		tc_json_object_set(r, "selection", tc_selection_json(&in));
		if (a->matrix != NULL) {
			tc_json_object_set(r, "screening_matrix", a->matrix);
			tc_json_object_set(r, "stage_a_option_controls",
			    a->controls);
			a->matrix = a->controls = NULL;
		}
		if (!o->reference_output) {
			tc_json_object_set(r, "tunectl", extension_block(o,
			    a->base, a->cs, a->n, a->warn_list));
			a->warn_list = NULL;
		}
		*report = r;
	}
	free(in.names);
	free(in.metric);
	free(in.passed);
}

int
tc_analyze(const tc_analyze_opts *o, tc_json **report, tc_buf *table,
    tc_buf *warnings, tc_error *err)
{
	struct analysis a;
	tc_json **replays = NULL;
	const char **modes = NULL;
	size_t i;
	int rc;

	memset(&a, 0, sizeof(a));
	a.mode = o->selection_only ? TC_GATE_SELECTION_ONLY :
	    o->option_trial ? TC_GATE_OPTION_TRIAL : TC_GATE_FINAL_PROMOTION;
	a.n = o->ncandidates;
	if (report != NULL)
		*report = NULL;
	if ((rc = pre_checks(o, err)) != 0)
		return rc;
	if (o->selection_only && (rc = load_screening(o, &a.matrix,
	    &a.controls, err)) != 0) {
		if (a.matrix == NULL)
			return rc;
		goto out;
	}
	/* the reference's reports summarise a run holding two logs of one
	 * rank; tunectl's own refuse it */
	a.ro = o->runset;
	a.ro.allow_duplicate_ranks = o->reference_output;
	if ((rc = tc_runset_load(o->baseline, &a.ro, &a.base, err)) != 0)
		goto out;
	tc_stability_eval_runset(a.base, &a.st);
	tc_stability_set_limit(&a.st, o->policy.max_spread_pct);
	a.warn_list = tc_json_new_array();
	health_warnings("baseline", a.base, a.warn_list, warnings);
	a.cs = tc_xcalloc(a.n + 1, sizeof(*a.cs));
	modes = tc_xcalloc(a.n + 1, sizeof(*modes));
	replays = tc_xcalloc(o->nreplays + 1, sizeof(*replays));
	if (a.n > 0) {
		if ((rc = check_mappings(o, modes, err)) != 0)
			goto out;
		if ((rc = validate_replays(o, replays, err)) != 0)
			goto out;
	}
	for (i = 0; i < a.n; i++) {
		a.cs[i].name = o->candidates[i].name;
		a.cs[i].mode = modes[i];
		if ((rc = evaluate_candidate(o, &a.ro, a.mode, i, a.base, replays,
		    &a.cs[i], a.warn_list, warnings, err)) != 0)
			goto out;
	}
	write_outputs(o, &a, report, table);
	rc = TC_BENCH_OK;
out:
	for (i = 0; i < a.n && a.cs != NULL; i++) {
		tc_runset_free(a.cs[i].rs);
		tc_json_free(a.cs[i].replay);
	}
	for (i = 0; i < o->nreplays && replays != NULL; i++)
		tc_json_free(replays[i]);
	free(replays);
	free(a.cs);
	free(modes);
	tc_json_free(a.warn_list);
	tc_json_free(a.matrix);
	tc_json_free(a.controls);
	tc_stability_free(&a.st);
	tc_runset_free(a.base);
	return rc;
}
