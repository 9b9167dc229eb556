/*
 * final_summary.c - _validate_report_summary (docs/spec/controller.md
 * "Report summary"): the optional report_summary of a schema 2 ledger (or a
 * render-final-report --summary override), its measurement rows,
 * winner/fallback configurations, and the evidence files they cite, which must
 * be regular files inside the artifact root after following symlinks.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "final_internal.h"
#include "tunectl/fileio.h"
#include "tunectl/final.h"
#include "tunectl/path.h"

static const char *const result_statuses[] = {
	"succeeded", "accepted", "no_gain", "blocked", "failed", "invalid",
	"not_requested", "not_run"
};

static bool
is_result_status(const char *s)
{
	size_t i;

	if (s == NULL)
		return false;
	for (i = 0; i < sizeof(result_statuses) / sizeof(result_statuses[0]);
	    i++)
		if (strcmp(s, result_statuses[i]) == 0)
			return true;
	return false;
}

static bool
is_string(const tc_json *v, const char *s)
{
	return tc_json_is(v, TC_JSON_STRING) && v->u.str.len == strlen(s) &&
	    memcmp(v->u.str.ptr, s, v->u.str.len) == 0;
}

/* present and not null */
static const tc_json *
given(const tc_json *obj, const char *key)
{
	const tc_json *v = tc_json_get(obj, key);

	return tc_json_is(v, TC_JSON_NULL) ? NULL : v;
}

static int
fail(tc_error *err, const char *msg)
{
	tc_error_set(err, "%s", msg);
	return -1;
}

/* One evidence path: a relative artifact path resolving to a regular
 * file inside root. */
static int
check_evidence_item(const tc_json *item, const char *root,
    const char *label, tc_error *err)
{
	tc_error sub = TC_ERROR_INIT;
	char name[96];
	char *resolved = NULL;
	bool ok = false;

	snprintf(name, sizeof(name), "report_summary %s evidence", label);
	if (tc_require_relative_artifact(item, name, err) != 0)
		return -1;
	if (memchr(item->u.str.ptr, '\0', item->u.str.len) == NULL)
		resolved = tc_path_under_root(root, item->u.str.ptr, name, &sub);
	if (resolved != NULL)
		ok = tc_is_regular_file(resolved);
	free(resolved);
	tc_error_clear(&sub);
	if (!ok) {
		tc_error_set(err, "report_summary %s evidence missing or outside "
		    "artifact root: %s", label, item->u.str.ptr);
		return -1;
	}
	return 0;
}

/*
 * evidence_artifacts (default []) must be a list, non-empty when
 * required, every item existing evidence.
 */
static int
check_evidence(const tc_json *obj, bool required, const char *root,
    const char *label, tc_error *err)
{
	const tc_json *ev = tc_json_get(obj, "evidence_artifacts");
	size_t i, n;

	if (ev != NULL && !tc_json_is(ev, TC_JSON_ARRAY))
		goto missing;
	n = ev != NULL ? ev->u.arr.len : 0;
	if (required && n == 0)
		goto missing;
	for (i = 0; i < n; i++)
		if (check_evidence_item(ev->u.arr.items[i], root, label,
		    err) != 0)
			return -1;
	return 0;
missing:
	tc_error_set(err, "report_summary %s requires evidence_artifacts",
	    label);
	return -1;
}

static const struct tc_summary_stage *
find_stage(const char *stage)
{
	size_t i;

	if (stage == NULL)
		return NULL;
	for (i = 0; i < TC_SUMMARY_STAGE_COUNT; i++)
		if (strcmp(tc_summary_stages[i].stage, stage) == 0)
			return &tc_summary_stages[i];
	return NULL;
}

/* The checks that apply to stage rows only (index > 0). */
static int
check_stage_row(const tc_json *row, const tc_json *baseline, bool measured,
    tc_error *err)
{
	const struct tc_summary_stage *st =
	    find_stage(tc_json_get_string(row, "stage"));
	const char *kind = tc_json_get_string(row, "kind");
	const tc_json *eligible, *bms, *imp;
	double declared, calculated, b, s0;

	if (st == NULL || kind == NULL || strcmp(kind, st->kind) != 0)
		return fail(err, "report_summary stage/kind is invalid; final "
		    "clean comes only from final_e2e");
	if (tc_require_canonical(tc_json_get(row, "candidate_id"),
	    "report_summary candidate_id", err) != 0 ||
	    tc_require_canonical(tc_json_get(row, "gates_zh"),
	    "report_summary gates_zh", err) != 0)
		return -1;
	eligible = tc_json_get(row, "eligible");
	if (!is_result_status(tc_json_get_string(row, "status")) ||
	    !tc_json_is(eligible, TC_JSON_BOOL))
		return fail(err, "report_summary status/eligible is invalid");
	if (eligible->u.b && (!measured ||
	    strcmp(tc_json_get_string(row, "status"), "accepted") != 0))
		return fail(err, "report_summary eligible candidate must be "
		    "measured and accepted");
	bms = given(row, "baseline_ms");
	if (bms != NULL && strcmp(kind, "profiling") != 0) {
		const tc_json *m = tc_json_get(row, "metric");
		const tc_json *s0v = given(baseline, "value_ms");

		if (!tc_json_equal(m, tc_json_get(baseline, "metric")) ||
		    s0v == NULL)
			return fail(err, "report_summary clean comparison "
			    "metric must match frozen S0");
		(void)tc_json_number(bms, &b);
		(void)tc_json_number(s0v, &s0);
		if (!tc_py_isclose(b, s0, 1e-9, 1e-9))
			return fail(err, "report_summary baseline_ms must "
			    "match frozen S0");
	}
	if ((imp = tc_json_get(row, "improvement_pct")) != NULL) {
		if (!measured || bms == NULL)
			return fail(err, "report_summary improvement_pct "
			    "requires paired measurements");
		calculated = tc_final_pct_change(bms,
		    tc_json_get(row, "candidate_ms")) * 100;
		if (!tc_json_number(imp, &declared) ||
		    !tc_py_isclose(declared, calculated, 1e-6, 1e-6))
			return fail(err, "report_summary improvement_pct does "
			    "not match measurements");
	}
	return 0;
}

/* One measurement row: index 0 is the baseline, the rest stage rows. */
static int
check_row(const tc_json *row, size_t index, const tc_json *baseline,
    const char *root, tc_error *err)
{
	static const char *const ms_keys[] = {
		"value_ms", "baseline_ms", "candidate_ms"
	};
	static const char *const count_keys[] = { "run_count", "selector_rank" };
	const tc_json *v;
	double d;
	bool measured;
	size_t i;

	if (!tc_json_is(row, TC_JSON_OBJECT))
		return fail(err, "report_summary measurement must be an object");
	if (tc_require_canonical(tc_json_get(row, "metric"),
	    "report_summary metric", err) != 0 ||
	    tc_require_canonical(tc_json_get(row, "reason_zh"),
	    "report_summary reason_zh", err) != 0)
		return -1;
	for (i = 0; i < 3; i++) {
		v = given(row, ms_keys[i]);
		if (v != NULL && (!tc_final_finite_number(v, &d) || !(d > 0))) {
			tc_error_set(err, "report_summary %s must be positive "
			    "and finite", ms_keys[i]);
			return -1;
		}
	}
	for (i = 0; i < 2; i++) {
		v = given(row, count_keys[i]);
		if (v != NULL && !tc_final_positive_int(v)) {
			tc_error_set(err, "report_summary %s must be a positive "
			    "integer", count_keys[i]);
			return -1;
		}
	}
	measured = given(row, index == 0 ? "value_ms" : "candidate_ms") != NULL;
	if (measured && given(row, "run_count") == NULL)
		return fail(err, "report_summary measured result requires "
		    "run_count");
	if (check_evidence(row, measured || given(row, "baseline_ms") != NULL,
	    root, "measurement", err) != 0)
		return -1;
	if (index == 0)
		return 0;
	return check_stage_row(row, baseline, measured, err);
}

/* A field of a configuration that must be an object when present. */
static int
check_object_field(const tc_json *obj, const char *key, const char *label,
    tc_error *err)
{
	const tc_json *v = tc_json_get(obj, key);

	if (v != NULL && !tc_json_is(v, TC_JSON_OBJECT)) {
		tc_error_set(err, "report_summary %s must be an object", label);
		return -1;
	}
	return 0;
}

static bool
is_promotion_path(const char *p)
{
	return p != NULL && (strcmp(p, "whole-scope") == 0 ||
	    strcmp(p, "FINAL") == 0);
}

static int
check_config(const tc_json *cfg, const char *role, const tc_json *fe,
    const char *root, tc_error *err)
{
	static const char *const required[] = {
		"candidate_id", "scope_strategy", "reason_zh"
	};
	static const char *const optional[] = {
		"config_path", "config_fingerprint"
	};
	static const char *const winner_equal[] = {
		"candidate_id", "scope_strategy", "option_config"
	};
	const tc_json *oc, *pp, *cp, *dbg_in, *dbg;
	char name[96];
	size_t i;

	if (!tc_json_is(cfg, TC_JSON_OBJECT)) {
		tc_error_set(err, "report_summary %s must be an object", role);
		return -1;
	}
	for (i = 0; i < 3; i++) {
		snprintf(name, sizeof(name), "report_summary %s.%s", role,
		    required[i]);
		if (tc_require_canonical(tc_json_get(cfg, required[i]),
		    name, err) != 0)
			return -1;
	}
	for (i = 0; i < 2; i++) {
		if (tc_json_get(cfg, optional[i]) == NULL)
			continue;
		snprintf(name, sizeof(name), "report_summary %s.%s", role,
		    optional[i]);
		if (tc_require_canonical(tc_json_get(cfg, optional[i]),
		    name, err) != 0)
			return -1;
	}
	pp = tc_json_get(cfg, "promotion_path");
	if (pp != NULL && !is_promotion_path(tc_json_string(pp)))
		return fail(err, "report_summary promotion_path must be "
		    "whole-scope or FINAL");
	if (check_evidence(cfg, true, root, role, err) != 0)
		return -1;
	snprintf(name, sizeof(name), "%s.option_config", role);
	if (check_object_field(cfg, "option_config", name, err) != 0)
		return -1;
	snprintf(name, sizeof(name), "%s.debug_option_config", role);
	if (check_object_field(cfg, "debug_option_config", name, err) != 0)
		return -1;
	oc = tc_json_get(cfg, "option_config");
	snprintf(name, sizeof(name), "%s.option_config.super_kernel_optimize_"
	    "options", role);
	if (check_object_field(oc, "super_kernel_optimize_options", name,
	    err) != 0)
		return -1;
	snprintf(name, sizeof(name), "%s.option_config.super_kernel_debug_"
	    "options", role);
	if (check_object_field(oc, "super_kernel_debug_options", name,
	    err) != 0)
		return -1;
	dbg_in = tc_json_get(oc, "super_kernel_debug_options");
	dbg = tc_json_get(cfg, "debug_option_config");
	if (dbg_in != NULL && dbg != NULL && !tc_json_equal(dbg_in, dbg))
		return fail(err, "report_summary debug options disagree");
	if ((cp = tc_json_get(cfg, "config_path")) != NULL &&
	    check_evidence_item(cp, root, "config_path", err) != 0)
		return -1;
	if (strcmp(role, "winner") != 0)
		return 0;
	if (!is_string(tc_json_get(fe, "classification"), "beneficial"))
		return fail(err, "report_summary winner requires beneficial "
		    "final_e2e");
	for (i = 0; i < 3; i++) {
		const tc_json *a = tc_json_get(cfg, winner_equal[i]);
		const tc_json *b = tc_json_get(fe, winner_equal[i]);

		/* Python: winner.get(k) != final_e2e.get(k) */
		if ((a == NULL) != (b == NULL) ||
		    (a != NULL && !tc_json_equal(a, b))) {
			tc_error_set(err, "report_summary winner %s differs "
			    "from final_e2e", winner_equal[i]);
			return -1;
		}
	}
	if (!is_promotion_path(tc_json_string(pp)))
		return fail(err, "report_summary winner requires whole-scope "
		    "or FINAL promotion_path");
	return 0;
}

int
tc_final_validate_report_summary(const tc_json *summary,
    const tc_json *final_e2e, const char *artifact_root, tc_error *err)
{
	static const char *const notes[] = { "final_gates_zh", "display_note_zh" };
	static const char *const roles[] = { "winner", "fallback" };
	const tc_json *baseline, *stages, *v;
	char name[64];
	size_t i;

	if (!is_string(tc_json_get(summary, "schema_version"),
	    "superkernel-report-summary-v1"))
		return fail(err, "report_summary schema_version is invalid");
	baseline = tc_json_get(summary, "baseline");
	stages = tc_json_get(summary, "stages");
	if (!tc_json_is(baseline, TC_JSON_OBJECT) ||
	    !tc_json_is(stages, TC_JSON_ARRAY))
		return fail(err, "report_summary requires baseline object and "
		    "stages list");
	if (check_row(baseline, 0, baseline, artifact_root, err) != 0)
		return -1;
	for (i = 0; i < stages->u.arr.len; i++)
		if (check_row(stages->u.arr.items[i], i + 1, baseline,
		    artifact_root, err) != 0)
			return -1;
	for (i = 0; i < 2; i++) {
		if (tc_json_get(summary, notes[i]) == NULL)
			continue;
		snprintf(name, sizeof(name), "report_summary %s", notes[i]);
		if (tc_require_canonical(tc_json_get(summary, notes[i]),
		    name, err) != 0)
			return -1;
	}
	for (i = 0; i < 2; i++) {
		v = given(summary, roles[i]);
		if (v != NULL && check_config(v, roles[i], final_e2e,
		    artifact_root, err) != 0)
			return -1;
	}
	return 0;
}
