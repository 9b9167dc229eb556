/*
 * provenance.c - how a gate report was computed, so that it can be
 * computed again: `tunectl gate ... --json-out R` also writes
 * R.provenance.json with every option of the analysis (paths as given,
 * the working directory, the thresholds), and tc_analyze_recompute()
 * turns that record back into the same analysis.  A report whose bytes
 * differ from the recomputation was not written by the gate from the
 * inputs it names -- a hand-forged report, or edited numbers.
 *
 * The record is not trusted either: it only chooses inputs, and the
 * report it must reproduce names them too.  Recomputation refuses a
 * record that would run a program (--replay-validator) or read paths
 * relative to a directory other than the one it was written in.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench_internal.h"
#include "tunectl/bench.h"
#include "tunectl/fileio.h"
#include "tunectl/path.h"

static tc_json *
pairs_json(const tc_name_path *p, size_t n, const char *value_key)
{
	tc_json *list = tc_json_new_array();
	size_t i;

	for (i = 0; i < n; i++) {
		tc_json *e = tc_json_new_object();

		tc_json_object_set_string(e, "name", p[i].name);
		tc_json_object_set_string(e, value_key, p[i].value);
		tc_json_array_push(list, e);
	}
	return list;
}

static tc_json *
string_or_null(const char *s)
{
	return s != NULL ? tc_json_new_string(s) : tc_json_new_null();
}

/* A baseline run set that logged 1/value (bench run --metric-higher):
 * the record says so, as the report the reference's shape leaves no room
 * for does not (report html --gate labels and converts its figures). */
static void
record_direction(tc_json *p, const char *baseline)
{
	char *path = tc_xasprintf("%s/runset.json", baseline);
	tc_json *rs = tc_json_parse_file(path, NULL);
	const tc_json *m = tc_json_get(rs, "metric");

	if (tc_json_get_string(m, "logged") != NULL &&
	    strcmp(tc_json_get_string(m, "logged"), "reciprocal") == 0) {
		tc_json *d = tc_json_new_object();

		tc_json_object_set_string(d, "direction", "higher");
		tc_json_object_set_string(d, "logged", "reciprocal");
		tc_json_object_set(p, "metric", d);
	}
	tc_json_free(rs);
	free(path);
}

tc_json *
tc_analyze_provenance(const tc_analyze_opts *o,
    const char *screening_matrix_path)
{
	tc_json *p = tc_json_new_object();
	char *cwd = getcwd(NULL, 0);

	tc_json_object_set_string(p, "schema_version", TC_GATE_PROVENANCE_SCHEMA);
	tc_json_object_set_string(p, "command", "gate analyze");
	tc_json_object_set(p, "cwd", string_or_null(cwd));
	free(cwd);
	tc_json_object_set_string(p, "baseline", o->baseline);
	tc_json_object_set(p, "candidates",
	    pairs_json(o->candidates, o->ncandidates, "path"));
	tc_json_object_set(p, "replay_evidence",
	    pairs_json(o->replays, o->nreplays, "path"));
	tc_json_object_set(p, "promotion_modes",
	    pairs_json(o->modes, o->nmodes, "mode"));
	tc_json_object_set_bool(p, "selection_only", o->selection_only);
	tc_json_object_set_bool(p, "option_trial", o->option_trial);
	tc_json_object_set(p, "screening_matrix",
	    string_or_null(screening_matrix_path));
	tc_json_object_set_int(p, "warmup", o->runset.warmup);
	tc_json_object_set_int(p, "expected_ranks", o->runset.expected_ranks);
	tc_json_object_set(p, "min_improvement_pct",
	    tc_json_new_float(o->policy.min_improvement_pct));
	tc_json_object_set(p, "allow_p90_regression_pct",
	    tc_json_new_float(o->policy.allow_p90_regression_pct));
	tc_json_object_set(p, "allow_stddev_regression_pct",
	    tc_json_new_float(o->policy.allow_stddev_regression_pct));
	tc_json_object_set_bool(p, "significance", o->significance);
	tc_json_object_set_string(p, "decide_by", o->decide_by_ci ? "ci" :
	    "mean");
	tc_json_object_set_string(p, "stability_rule", o->stability_relative ?
	    "relative" : "reference");
	tc_json_object_set(p, "max_spread_pct",
	    tc_json_new_float(o->policy.max_spread_pct));
	tc_json_object_set_bool(p, "strict_environment", o->strict_environment);
	tc_json_object_set_bool(p, "reference_output", o->reference_output);
	tc_json_object_set_int(p, "bootstrap_resamples",
	    o->bootstrap_resamples != 0 ? o->bootstrap_resamples :
	    TC_BOOTSTRAP_RESAMPLES);
	if (o->bootstrap_seed_set) {
		char seed[32];

		snprintf(seed, sizeof(seed), "%llu",
		    (unsigned long long)o->bootstrap_seed);
		tc_json_object_set(p, "bootstrap_seed", tc_json_new_int_text(seed));
	} else {
		tc_json_object_set_null(p, "bootstrap_seed");
	}
	tc_json_object_set(p, "replay_validator",
	    string_or_null(o->replay_validator));
	record_direction(p, o->baseline);
	return p;
}

int
tc_analyze_report_text(const tc_json *report, tc_buf *out, tc_error *err)
{
	if (tc_json_write(out, report, TC_JSON_ASCII | TC_JSON_INDENT, err) != 0)
		return -1;
	tc_buf_putc(out, '\n');
	return 0;
}

/* ---- reading a record back ------------------------------------------------ */

struct rec {
	const tc_json *p;
	tc_error *err;
	int bad;
};

static void
malformed(struct rec *r, const char *field)
{
	if (!r->bad)
		tc_error_set(r->err, "gate provenance is malformed: %s", field);
	r->bad = 1;
}

/* An input path: absolute, so that the report names it the same way. */
static const char *
path_field(struct rec *r, const tc_json *v, const char *field)
{
	const char *s = tc_json_string(v);

	if (s == NULL || strlen(s) != v->u.str.len || *s == '\0') {
		malformed(r, field);
		return NULL;
	}
	if (*s != '/' && !r->bad) {
		tc_error_set(r->err, "gate provenance names %s relative to the "
		    "directory the gate ran in (%s): '%s'; a report can only be "
		    "recomputed from absolute input paths", field,
		    tc_json_get_string(r->p, "cwd") != NULL ?
		    tc_json_get_string(r->p, "cwd") : "unknown", s);
		r->bad = 1;
	}
	return s;
}

static bool
flag(struct rec *r, const char *key)
{
	const tc_json *v = tc_json_get(r->p, key);

	if (!tc_json_is(v, TC_JSON_BOOL)) {
		malformed(r, key);
		return false;
	}
	return v->u.b;
}

static long
integer(struct rec *r, const char *key)
{
	int64_t i;

	if (!tc_json_int64(tc_json_get(r->p, key), &i) || i < 0 ||
	    i > 1000000000) {
		malformed(r, key);
		return 0;
	}
	return (long)i;
}

static double
number(struct rec *r, const char *key)
{
	double d = 0.0;

	if (!tc_json_number(tc_json_get(r->p, key), &d))
		malformed(r, key);
	return d;
}

/* A rule of two choices: false for off (also when the key is absent, as
 * in a record written before the rule existed), true for on. */
static bool
choice(struct rec *r, const char *key, const char *off, const char *on)
{
	const tc_json *v = tc_json_get(r->p, key);
	const char *s = tc_json_string(v);

	if (v == NULL || (s != NULL && strcmp(s, off) == 0))
		return false;
	if (s != NULL && strcmp(s, on) == 0)
		return true;
	malformed(r, key);
	return false;
}

/* A list of {"name", <value_key>} into *out (pointers into the record). */
static size_t
pairs(struct rec *r, const char *key, const char *value_key, bool is_path,
    tc_name_path **out)
{
	const tc_json *list = tc_json_get(r->p, key);
	size_t i, n;

	*out = NULL;
	if (!tc_json_is(list, TC_JSON_ARRAY)) {
		malformed(r, key);
		return 0;
	}
	n = list->u.arr.len;
	*out = tc_xcalloc(n + 1, sizeof(**out));
	for (i = 0; i < n; i++) {
		const tc_json *e = list->u.arr.items[i];
		const tc_json *name = tc_json_get(e, "name");
		const tc_json *val = tc_json_get(e, value_key);

		if (tc_json_string(name) == NULL || tc_json_string(val) == NULL) {
			malformed(r, key);
			return i;
		}
		(*out)[i].name = tc_json_string(name);
		(*out)[i].value = is_path ? path_field(r, val, key) :
		    tc_json_string(val);
	}
	return n;
}

int
tc_analyze_recompute(const tc_json *prov, tc_buf *text, tc_error *err)
{
	struct rec r = { prov, err, 0 };
	tc_name_path *cands = NULL, *replays = NULL, *modes = NULL;
	const tc_json *matrix_v, *seed_v;
	tc_json *matrix = NULL, *report = NULL;
	tc_analyze_opts o;
	int64_t seed;
	int rc = -1;

	if (!tc_json_is(prov, TC_JSON_OBJECT) ||
	    !tc_json_is(tc_json_get(prov, "schema_version"), TC_JSON_STRING) ||
	    strcmp(tc_json_get_string(prov, "schema_version"),
	    TC_GATE_PROVENANCE_SCHEMA) != 0) {
		tc_error_set(err, "gate provenance is not a %s document",
		    TC_GATE_PROVENANCE_SCHEMA);
		return -1;
	}
	tc_analyze_opts_init(&o);
	o.baseline = path_field(&r, tc_json_get(prov, "baseline"), "baseline");
	o.ncandidates = pairs(&r, "candidates", "path", true, &cands);
	o.nreplays = pairs(&r, "replay_evidence", "path", true, &replays);
	o.nmodes = pairs(&r, "promotion_modes", "mode", false, &modes);
	o.candidates = cands;
	o.replays = replays;
	o.modes = modes;
	o.selection_only = flag(&r, "selection_only");
	o.option_trial = flag(&r, "option_trial");
	o.runset.warmup = integer(&r, "warmup");
	o.runset.expected_ranks = integer(&r, "expected_ranks");
	o.policy.min_improvement_pct = number(&r, "min_improvement_pct");
	o.policy.allow_p90_regression_pct = number(&r,
	    "allow_p90_regression_pct");
	o.policy.allow_stddev_regression_pct = number(&r,
	    "allow_stddev_regression_pct");
	o.significance = flag(&r, "significance");
	o.decide_by_ci = choice(&r, "decide_by", "mean", "ci");
	o.stability_relative = choice(&r, "stability_rule", "reference",
	    "relative");
	if (tc_json_get(prov, "max_spread_pct") != NULL)
		o.policy.max_spread_pct = number(&r, "max_spread_pct");
	o.strict_environment = flag(&r, "strict_environment");
	o.reference_output = flag(&r, "reference_output");
	o.bootstrap_resamples = (unsigned)integer(&r, "bootstrap_resamples");
	/* the record is a worker's file: it asks for no more work than the
	 * CLI would do (2 * 10^8 rounds cost half a minute and 3 GB) */
	if (!r.bad && o.bootstrap_resamples > TC_BOOTSTRAP_RESAMPLES_MAX) {
		tc_error_set(err, "gate provenance asks for %u bootstrap "
		    "resamples; at most %d can be recomputed (the limit of "
		    "gate --bootstrap-resamples)", o.bootstrap_resamples,
		    TC_BOOTSTRAP_RESAMPLES_MAX);
		r.bad = 1;
	}
	seed_v = tc_json_get(prov, "bootstrap_seed");
	if (tc_json_int64(seed_v, &seed) && seed >= 0) {
		o.bootstrap_seed = (uint64_t)seed;
		o.bootstrap_seed_set = true;
	} else if (!tc_json_is(seed_v, TC_JSON_NULL)) {
		/* seeds above 2^63 are kept as integer text */
		const char *t = tc_json_is(seed_v, TC_JSON_INT) ?
		    seed_v->u.int_text : NULL;
		char *end = NULL;

		if (t == NULL || *t == '-')
			malformed(&r, "bootstrap_seed");
		else
			o.bootstrap_seed = strtoull(t, &end, 10);
		o.bootstrap_seed_set = true;
	}
	if (!tc_json_is(tc_json_get(prov, "replay_validator"), TC_JSON_NULL) &&
	    !r.bad) {
		tc_error_set(err, "a gate report computed with --replay-validator "
		    "cannot be recomputed (it would run the named program)");
		r.bad = 1;
	}
	matrix_v = tc_json_get(prov, "screening_matrix");
	if (!r.bad && !tc_json_is(matrix_v, TC_JSON_NULL)) {
		const char *mp = path_field(&r, matrix_v, "screening_matrix");

		if (!r.bad && (matrix = tc_json_parse_file(mp, err)) == NULL)
			r.bad = 1;
		o.screening_matrix = matrix;
	}
	if (r.bad || o.bootstrap_resamples < 1)
		goto out;
	if (tc_analyze(&o, &report, NULL, NULL, err) != TC_BENCH_OK)
		goto out;
	rc = tc_analyze_report_text(report, text, err);
out:
	if (rc != 0 && !r.bad && tc_error_msg(err) == NULL)
		tc_error_set(err, "gate provenance is malformed");
	tc_json_free(report);
	tc_json_free(matrix);
	free(cands);
	free(replays);
	free(modes);
	return rc;
}
