/*
 * final_e2e_provenance.c - how `tunectl ledger final-e2e` computed a
 * ledger's final_e2e, recorded beside the ledger it wrote
 * (LEDGER.provenance.json), and the recomputation the strict evidence
 * policy uses to confirm that a measured final_e2e (beneficial or
 * no_gain) is what the command computes from the run sets it names.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tunectl/ledger.h"

static tc_json *
string_or_null(const char *s)
{
	return s != NULL ? tc_json_new_string(s) : tc_json_new_null();
}

tc_json *
tc_final_e2e_provenance(const tc_final_e2e_opts *o)
{
	tc_json *p = tc_json_new_object();
	char *cwd = getcwd(NULL, 0);

	tc_json_object_set_string(p, "schema_version",
	    TC_FINAL_E2E_PROVENANCE_SCHEMA);
	tc_json_object_set_string(p, "command", "ledger final-e2e");
	tc_json_object_set(p, "cwd", string_or_null(cwd));
	free(cwd);
	tc_json_object_set(p, "baseline", string_or_null(o->baseline_dir));
	tc_json_object_set(p, "candidate", string_or_null(o->candidate_dir));
	tc_json_object_set(p, "classification",
	    string_or_null(o->classification));
	tc_json_object_set_int(p, "warmup", o->warmup);
	tc_json_object_set_int(p, "expected_ranks", o->expected_ranks);
	tc_json_object_set(p, "min_improvement_pct",
	    tc_json_new_float(o->min_improvement_pct));
	tc_json_object_set(p, "allow_p90_regression_pct",
	    tc_json_new_float(o->allow_p90_regression_pct));
	tc_json_object_set(p, "allow_stddev_regression_pct",
	    tc_json_new_float(o->allow_stddev_regression_pct));
	tc_json_object_set_string(p, "decide_by", o->decide_by_ci ? "ci" :
	    "mean");
	tc_json_object_set_string(p, "stability_rule", o->stability_relative ?
	    "relative" : "reference");
	tc_json_object_set(p, "max_spread_pct",
	    tc_json_new_float(o->max_spread_pct));
	return p;
}

static bool
number(const tc_json *p, const char *key, double *out)
{
	return tc_json_number(tc_json_get(p, key), out);
}

static bool
count(const tc_json *p, const char *key, long *out)
{
	int64_t i;

	if (!tc_json_int64(tc_json_get(p, key), &i) || i < 0 || i > 1000000000)
		return false;
	*out = (long)i;
	return true;
}

/* A two-way rule of the record: absent or def is false, alt true. */
static bool
rule(const tc_json *p, const char *key, const char *def, const char *alt,
    bool *out)
{
	const char *s = tc_json_get_string(p, key);

	*out = false;
	if (tc_json_get(p, key) == NULL)
		return true;
	if (s != NULL && strcmp(s, alt) == 0)
		*out = true;
	return s != NULL && (strcmp(s, def) == 0 || *out);
}

/* An absolute run-set path of the record, or NULL (err set). */
static const char *
run_set(const tc_json *p, const char *key, tc_error *err)
{
	const tc_json *v = tc_json_get(p, key);
	const char *s = tc_json_string(v);

	if (s == NULL || strlen(s) != v->u.str.len || *s == '\0') {
		tc_error_set(err, "final_e2e provenance names no %s run set", key);
		return NULL;
	}
	if (*s != '/') {
		tc_error_set(err, "final_e2e provenance names the %s run set "
		    "relative to the directory the command ran in: '%s'; it can "
		    "only be recomputed from absolute paths", key, s);
		return NULL;
	}
	return s;
}

int
tc_final_e2e_recheck(const tc_json *prov, const tc_json *final_e2e,
    tc_error *err)
{
	static const char *const measured[] = {
		"classification", "baseline", "candidate", "improvement_pct"
	};
	tc_final_e2e_opts o;
	tc_json *config = tc_json_new_object(), *fe;
	size_t i;
	int rc = -1;

	tc_final_e2e_opts_init(&o);
	if (!tc_json_is(prov, TC_JSON_OBJECT) ||
	    tc_json_get_string(prov, "schema_version") == NULL ||
	    strcmp(tc_json_get_string(prov, "schema_version"),
	    TC_FINAL_E2E_PROVENANCE_SCHEMA) != 0) {
		tc_error_set(err, "final_e2e provenance is not a %s document",
		    TC_FINAL_E2E_PROVENANCE_SCHEMA);
		goto out;
	}
	if ((o.baseline_dir = run_set(prov, "baseline", err)) == NULL ||
	    (o.candidate_dir = run_set(prov, "candidate", err)) == NULL)
		goto out;
	if (!count(prov, "warmup", &o.warmup) ||
	    !count(prov, "expected_ranks", &o.expected_ranks) ||
	    !number(prov, "min_improvement_pct", &o.min_improvement_pct) ||
	    !number(prov, "allow_p90_regression_pct",
	    &o.allow_p90_regression_pct) ||
	    !number(prov, "allow_stddev_regression_pct",
	    &o.allow_stddev_regression_pct)) {
		tc_error_set(err, "final_e2e provenance is malformed");
		goto out;
	}
	/* absent (an older record): the reference's rules */
	if (!rule(prov, "decide_by", "mean", "ci", &o.decide_by_ci) ||
	    !rule(prov, "stability_rule", "reference", "relative",
	    &o.stability_relative) ||
	    (tc_json_get(prov, "max_spread_pct") != NULL &&
	    (!number(prov, "max_spread_pct", &o.max_spread_pct) ||
	    !(o.max_spread_pct > 0 && o.max_spread_pct <= 100)))) {
		tc_error_set(err, "final_e2e provenance is malformed");
		goto out;
	}
	/* Only the measured fields are recomputed; the descriptive ones
	 * (candidate, scope, reason, options, evidence) are the worker's. */
	o.candidate_id = "recomputed";
	o.scope_strategy = "recomputed";
	o.reason_zh = "recomputed";
	o.option_config = config;
	if ((fe = tc_final_e2e_build(&o, NULL, err)) == NULL)
		goto out;
	for (i = 0; i < sizeof(measured) / sizeof(measured[0]); i++) {
		const tc_json *a = tc_json_get(fe, measured[i]);
		const tc_json *b = tc_json_get(final_e2e, measured[i]);

		if (a == NULL || b == NULL || !tc_json_equal(a, b)) {
			tc_error_set(err, "final_e2e %s is not what tunectl ledger "
			    "final-e2e computes from its run sets", measured[i]);
			tc_json_free(fe);
			goto out;
		}
	}
	tc_json_free(fe);
	rc = 0;
out:
	tc_json_free(config);
	return rc;
}
