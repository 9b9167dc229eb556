/*
 * final_e2e.c - the ledger's final_e2e record (docs/spec/controller.md
 * "Final E2E record"): field checks, the clean-median metric sets, the
 * recomputed improvement_pct, and the classification -> Final status -> report
 * label mapping (docs/spec/controller.md "Final status from classification").
 */
#include <stdio.h>
#include <string.h>

#include "final_internal.h"
#include "tunectl/final.h"

static const struct {
	const char *classification, *status;
} class_map[] = {
	{ "beneficial", "accepted" },
	{ "no_gain", "no_gain" },
	{ "not_run", "not_run" },
	{ "failed", "failed" },
	{ "blocked", "blocked" },
};

const char *
tc_final_status_for_class(const char *classification)
{
	size_t i;

	if (classification == NULL)
		return NULL;
	for (i = 0; i < sizeof(class_map) / sizeof(class_map[0]); i++)
		if (strcmp(class_map[i].classification, classification) == 0)
			return class_map[i].status;
	return NULL;
}

const char *
tc_final_status_for(const tc_json *final_e2e)
{
	return tc_final_status_for_class(tc_json_get_string(final_e2e,
	    "classification"));
}

const char *
tc_final_outcome_label(const char *status)
{
	if (status != NULL && strcmp(status, "accepted") == 0)
		return "有收益";
	if (status != NULL && strcmp(status, "no_gain") == 0)
		return "无收益";
	if (status != NULL && strcmp(status, "not_run") == 0)
		return "未执行";
	return "失败或阻塞";
}

const char *
tc_final_outcome_label_en(const char *status)
{
	if (status != NULL && strcmp(status, "accepted") == 0)
		return "beneficial";
	if (status != NULL && strcmp(status, "no_gain") == 0)
		return "no gain";
	if (status != NULL && strcmp(status, "not_run") == 0)
		return "not run";
	return "failed or blocked";
}

bool
tc_final_is_measured(const tc_json *final_e2e)
{
	const char *c = tc_json_get_string(final_e2e, "classification");

	return c != NULL && (strcmp(c, "beneficial") == 0 ||
	    strcmp(c, "no_gain") == 0);
}

/* One clean metric set: "final_e2e baseline" / "final_e2e candidate". */
static int
validate_metrics(const tc_json *m, const char *name, tc_error *err)
{
	static const char *const positive[] = { "median_ms", "p90_ms" };
	static const char *const counts[] = { "sample_count", "run_count" };
	const tc_json *v;
	double d;
	size_t i;

	if (!tc_json_is(m, TC_JSON_OBJECT)) {
		tc_error_set(err, "final_e2e %s must be an object", name);
		return -1;
	}
	for (i = 0; i < 2; i++) {
		v = tc_json_get(m, positive[i]);
		/* median_ms is required; p90_ms is checked when present */
		if (v == NULL && i > 0)
			continue;
		if (!tc_final_finite_number(v, &d)) {
			tc_error_set(err, "final_e2e %s.%s must be a finite "
			    "number", name, positive[i]);
			return -1;
		}
		if (!(d > 0)) {
			tc_error_set(err, "final_e2e %s.%s must be positive",
			    name, positive[i]);
			return -1;
		}
	}
	/* The code checks stddev_ms for finiteness only (the schema also
	 * says >= 0); the reference accepts a negative value, and so do we. */
	v = tc_json_get(m, "stddev_ms");
	if (v != NULL && !tc_final_finite_number(v, NULL)) {
		tc_error_set(err, "final_e2e %s.stddev_ms must be a finite "
		    "number", name);
		return -1;
	}
	for (i = 0; i < 2; i++) {
		v = tc_json_get(m, counts[i]);
		if (v != NULL && !tc_final_positive_int(v)) {
			tc_error_set(err, "final_e2e %s.%s must be a positive "
			    "integer", name, counts[i]);
			return -1;
		}
	}
	return 0;
}

int
tc_final_validate_e2e(const tc_json *fe, tc_error *err)
{
	static const char *const strings[] = {
		"candidate_id", "scope_strategy", "reason_zh"
	};
	const tc_json *evidence, *declared_v, *base, *cand;
	char name[64];
	double declared, calculated;
	size_t i;

	if (!tc_json_is(fe, TC_JSON_OBJECT)) {
		tc_error_set(err, "ledger final_e2e must be an object");
		return -1;
	}
	if (tc_final_status_for(fe) == NULL) {
		tc_error_set(err, "ledger final_e2e classification is invalid");
		return -1;
	}
	for (i = 0; i < sizeof(strings) / sizeof(strings[0]); i++) {
		snprintf(name, sizeof(name), "final_e2e %s", strings[i]);
		if (tc_require_canonical(tc_json_get(fe, strings[i]),
		    name, err) != 0)
			return -1;
	}
	if (!tc_json_is(tc_json_get(fe, "option_config"), TC_JSON_OBJECT)) {
		tc_error_set(err, "final_e2e option_config must be an object");
		return -1;
	}
	evidence = tc_json_get(fe, "evidence_artifacts");
	if (!tc_json_is(evidence, TC_JSON_ARRAY)) {
		tc_error_set(err, "final_e2e evidence_artifacts must be a list");
		return -1;
	}
	for (i = 0; i < evidence->u.arr.len; i++) {
		snprintf(name, sizeof(name), "final_e2e evidence_artifacts[%zu]",
		    i);
		if (tc_require_relative_artifact(evidence->u.arr.items[i], name,
		    err) != 0)
			return -1;
	}
	if (!tc_final_is_measured(fe))
		return 0;	/* not_run / failed / blocked carry no metrics */

	base = tc_json_get(fe, "baseline");
	cand = tc_json_get(fe, "candidate");
	if (validate_metrics(base, "baseline", err) != 0 ||
	    validate_metrics(cand, "candidate", err) != 0)
		return -1;
	declared_v = tc_json_get(fe, "improvement_pct");
	if (!tc_final_finite_number(declared_v, &declared)) {
		tc_error_set(err, "final_e2e improvement_pct must be a finite "
		    "number");
		return -1;
	}
	calculated = tc_final_pct_change(tc_json_get(base, "median_ms"),
	    tc_json_get(cand, "median_ms")) * 100;
	if (!tc_py_isclose(declared, calculated, 1e-6, 1e-6)) {
		tc_error_set(err, "final_e2e improvement_pct does not match "
		    "clean E2E medians");
		return -1;
	}
	if (strcmp(tc_json_get_string(fe, "classification"), "beneficial") == 0
	    && !(declared > 0)) {
		tc_error_set(err, "final_e2e beneficial classification requires "
		    "positive improvement");
		return -1;
	}
	return 0;
}
