/*
 * experiment_evidence.c - artifact evidence validation of a structurally
 * valid experiment result (docs/spec/ledger.md "Artifact evidence validation"):
 * the artifact root, each profiling analysis file, the binding of the analysis
 * to the experiment and its declared round, its input and profile files, and
 * (with an analyser hook) the decision coverage against the analyser's
 * decisions.
 *
 * The reference's [EXT] steps (recommend_sk_strategy's load, schema 1.2
 * validation, read-only re-analysis and comparison) are not specified;
 * they run only through the tc_ledger_analyzer hook.  Where tunectl must
 * refuse a file the unspecified loader would refuse (not a JSON object,
 * nested deeper than 256), the message is tunectl's own (docs/ledger.md).
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ledger_internal.h"
#include "tunectl/fileio.h"
#include "tunectl/ledger.h"
#include "tunectl/path.h"

#define ANALYSIS_MAX_DEPTH 256

struct ev {
	const tc_json *r;
	const tc_ledger_opts *opts;
	char *root;
	tc_error *err;
};

static int
fail(struct ev *e, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static int
fail(struct ev *e, const char *fmt, ...)
{
	va_list ap;
	tc_buf b = TC_BUF_INIT;
	char *msg;

	va_start(ap, fmt);
	if (vasprintf(&msg, fmt, ap) < 0)
		msg = NULL;
	va_end(ap);
	tc_buf_puts(&b, "ValueError: ");
	tc_buf_puts(&b, msg != NULL ? msg : "out of memory");
	tc_error_set(e->err, "%s", tc_buf_cstr(&b));
	free(msg);
	tc_buf_free(&b);
	return -1;
}

/* _artifact_path(root, value, loc): the resolved path or NULL + err. */
static char *
artifact_path(struct ev *e, const tc_json *v, const char *loc, bool json_file)
{
	tc_error rerr = TC_ERROR_INIT;
	char *joined, *resolved;

	if (!tc_is_relative_artifact(v) ||
	    strlen(v->u.str.ptr) != v->u.str.len) {
		fail(e, "%s must be a relative artifact path", loc);
		return NULL;
	}
	joined = tc_path_join(e->root, v->u.str.ptr);
	resolved = tc_path_resolve(joined, &rerr);
	free(joined);
	if (resolved == NULL) {
		tc_error_set(e->err, "OSError: %s", tc_error_msg(&rerr));
		tc_error_clear(&rerr);
		return NULL;
	}
	if (!tc_path_is_within(resolved, e->root)) {
		fail(e, "%s escapes artifact root", loc);
		free(resolved);
		return NULL;
	}
	if (!tc_path_exists(resolved)) {
		fail(e, "%s artifact is missing: %s", loc, v->u.str.ptr);
		free(resolved);
		return NULL;
	}
	if (json_file && !tc_is_regular_file(resolved)) {
		fail(e, "%s must be a JSON file", loc);
		free(resolved);
		return NULL;
	}
	return resolved;
}

static size_t
depth_of(const tc_json *v)
{
	size_t i, d = 0, c;

	if (v->type == TC_JSON_ARRAY) {
		for (i = 0; i < v->u.arr.len; i++)
			if ((c = depth_of(v->u.arr.items[i])) > d)
				d = c;
		return d + 1;
	}
	if (v->type == TC_JSON_OBJECT) {
		for (i = 0; i < v->u.obj.len; i++)
			if ((c = depth_of(v->u.obj.members[i].value)) > d)
				d = c;
		return d + 1;
	}
	return 0;
}

static const tc_json *
round_by_id(const tc_json *r, const char *id, size_t n)
{
	const tc_json *rounds = tc_json_get(r, "rounds");
	size_t i;

	for (i = 0; tc_json_is(rounds, TC_JSON_ARRAY) && i < rounds->u.arr.len;
	    i++) {
		const tc_json *rid = tc_json_get(rounds->u.arr.items[i],
		    "round_id");

		if (tc_json_is(rid, TC_JSON_STRING) && rid->u.str.len == n &&
		    memcmp(rid->u.str.ptr, id, n) == 0)
			return rounds->u.arr.items[i];
	}
	return NULL;
}

/* Step 2.4: the analysis belongs to this experiment and round. */
static int
check_binding(struct ev *e, const char *L, const tc_json *a,
    const tc_json_member *m, const tc_json *round)
{
	static const char *const round_fields[] = {
		"baseline_config_fingerprint", "candidate_config_fingerprint",
		"control_fingerprint", "workload_fingerprint",
		"baseline_profile_fingerprint", "candidate_profile_fingerprint",
		"declared_change_set", NULL
	};
	static const char *const sides[] = { "baseline", "candidate", NULL };
	const tc_json *r = e->r;
	tc_json *rid = tc_json_new_stringn(m->key, m->key_len);
	const tc_json *agents = tc_json_get(r, "profiling_analysis_agent_ids");
	struct {
		const char *field;
		const tc_json *expected;
	} exp[] = {
		{ "candidate_name", tc_json_get(r, "experiment_id") },
		{ "experiment_id", tc_json_get(r, "experiment_id") },
		{ "round_id", rid },
		{ "analysis_agent_id", tc_json_getn(agents, m->key, m->key_len) },
		{ "source_revision", tc_json_get(r, "source_revision") },
	};
	size_t i;
	int rc = 0;

	for (i = 0; i < sizeof(exp) / sizeof(exp[0]) && rc == 0; i++)
		if (!tc_ledger__eq(tc_json_get(a, exp[i].field), exp[i].expected))
			rc = fail(e, "%s %s does not match experiment result", L,
			    exp[i].field);
	tc_json_free(rid);
	for (i = 0; round_fields[i] != NULL && rc == 0; i++)
		if (!tc_ledger__eq(tc_json_get(a, round_fields[i]),
		    tc_json_get(round, round_fields[i])))
			rc = fail(e, "%s %s does not match declared round", L,
			    round_fields[i]);
	for (i = 0; sides[i] != NULL && rc == 0; i++) {
		char key[64];

		snprintf(key, sizeof(key), "%s_workload_fingerprint", sides[i]);
		if (!tc_ledger__eq(tc_json_get(a, key),
		    tc_json_get(round, "workload_fingerprint"))) {
			rc = fail(e, "%s %s does not match declared round", L, key);
			break;
		}
		snprintf(key, sizeof(key), "%s_control_fingerprint", sides[i]);
		if (!tc_ledger__eq(tc_json_get(a, key),
		    tc_json_get(round, "control_fingerprint")))
			rc = fail(e, "%s %s does not match declared round", L, key);
	}
	return rc;
}

/* Step 2.4, input files: every input lies under the root and exists.
 * inputs_out receives the resolved baseline/candidate profile inputs. */
static int
check_inputs(struct ev *e, const char *L, const tc_json *a,
    const char *analysis_file, char **profile_inputs)
{
	static const char *const required[] = {
		"baseline_profile", "candidate_profile", "sk_meta",
		"baseline_config", "candidate_config", "baseline_workload",
		"candidate_workload", "declared_change_set", NULL
	};
	static const char *const optional[] = {
		"sk_prof", "environment_evidence", "source_scope_map",
		"baseline_collection_manifest", "profile_collection_manifest",
		NULL
	};
	const tc_json *inputs = tc_json_get(a, "inputs");
	char *dir = tc_path_dirname(analysis_file);
	int pass, rc = 0;
	size_t i;

	if (!tc_json_is(inputs, TC_JSON_OBJECT)) {
		free(dir);
		return fail(e, "%s inputs must be an object", L);
	}
	for (pass = 0; pass < 2 && rc == 0; pass++) {
		const char *const *fields = pass == 0 ? required : optional;

		for (i = 0; fields[i] != NULL && rc == 0; i++) {
			const tc_json *v = tc_json_get(inputs, fields[i]);
			tc_error rerr = TC_ERROR_INIT;
			char *joined, *resolved;

			if (pass == 1 && (v == NULL || v->type == TC_JSON_NULL))
				continue;
			/* Inputs are relative to the analysis file, so ".."
			 * is legitimate; the root check below bounds them. */
			if (!tc_is_nonblank_string(v) ||
			    v->u.str.ptr[0] == '/' ||
			    strlen(v->u.str.ptr) != v->u.str.len) {
				rc = fail(e, "%s inputs.%s must be a relative path",
				    L, fields[i]);
				break;
			}
			joined = tc_path_join(dir, v->u.str.ptr);
			resolved = tc_path_resolve(joined, &rerr);
			free(joined);
			if (resolved == NULL) {
				tc_error_set(e->err, "OSError: %s",
				    tc_error_msg(&rerr));
				tc_error_clear(&rerr);
				rc = -1;
				break;
			}
			if (!tc_path_is_within(resolved, e->root))
				rc = fail(e, "%s inputs.%s escapes artifact root",
				    L, fields[i]);
			else if (!tc_path_exists(resolved))
				rc = fail(e, "%s inputs.%s artifact is missing", L,
				    fields[i]);
			if (rc == 0 && pass == 0 && i < 2)
				profile_inputs[i] = resolved;
			else
				free(resolved);
		}
	}
	free(dir);
	return rc;
}

/* Step 2.4, declared profiles: the round's profile files are the ones
 * the analysis read. */
static int
check_profiles(struct ev *e, const char *L, const char *rid,
    const tc_json *round, char *const *profile_inputs)
{
	static const char *const fields[] = {
		"baseline_profile", "candidate_profile"
	};
	size_t i;

	for (i = 0; i < 2; i++) {
		char loc[512];
		char *p;
		bool same;

		snprintf(loc, sizeof(loc), "rounds.%s.%s", rid, fields[i]);
		p = artifact_path(e, tc_json_get(round, fields[i]), loc, false);
		if (p == NULL)
			return -1;
		same = profile_inputs[i] != NULL &&
		    strcmp(p, profile_inputs[i]) == 0;
		free(p);
		if (!same)
			return fail(e, "%s inputs.%s does not match declared "
			    "round", L, fields[i]);
	}
	return 0;
}

/* ---- step 3: decision coverage ------------------------------------------ */

struct produced {
	const char *rid;
	size_t rid_len;
	tc_json *decisions, *actions;
};

static const tc_json *
find_range(const tc_json *list, const tc_json *range)
{
	size_t i;

	for (i = 0; tc_json_is(list, TC_JSON_ARRAY) && i < list->u.arr.len; i++)
		if (tc_ledger__eq(tc_json_get(list->u.arr.items[i], "range_id"), range))
			return list->u.arr.items[i];
	return NULL;
}

static int
dup_ranges(struct ev *e, const char *A, const tc_json *list, lx_set *ids,
    const char *what)
{
	size_t i;

	for (i = 0; tc_json_is(list, TC_JSON_ARRAY) && i < list->u.arr.len; i++) {
		const tc_json *range = tc_json_get(list->u.arr.items[i],
		    "range_id");
		tc_buf s = TC_BUF_INIT;
		bool is_new;

		tc_json_str(&s, range);
		is_new = tc_ledger__set_add(ids, s.data != NULL ? s.data : "", s.len);
		if (!is_new) {
			int rc = fail(e, "%s %sduplicates range_id=%s", A, what,
			    tc_buf_cstr(&s));

			tc_buf_free(&s);
			return rc;
		}
		tc_buf_free(&s);
	}
	return 0;
}

static int
check_round_coverage(struct ev *e, const struct produced *p)
{
	lx_set prod = LX_SET_INIT, acts = LX_SET_INIT;
	lx_set missing = LX_SET_INIT, extra = LX_SET_INIT;
	char A[512];
	int rc;
	size_t i;

	snprintf(A, sizeof(A), "profiling_analysis_result.%.*s",
	    (int)p->rid_len, p->rid);
	rc = dup_ranges(e, A, p->decisions, &prod, "");
	if (rc == 0)
		rc = dup_ranges(e, A, p->actions, &acts, "scope_actions ");
	if (rc == 0 && !tc_ledger__set_equal(&prod, &acts)) {
		tc_buf mi = TC_BUF_INIT, ex = TC_BUF_INIT;

		for (i = 0; i < prod.len; i++)
			if (!tc_ledger__set_has(&acts, prod.items[i].p, prod.items[i].n))
				tc_ledger__set_add(&missing, prod.items[i].p,
				    prod.items[i].n);
		for (i = 0; i < acts.len; i++)
			if (!tc_ledger__set_has(&prod, acts.items[i].p, acts.items[i].n))
				tc_ledger__set_add(&extra, acts.items[i].p,
				    acts.items[i].n);
		tc_ledger__set_repr(&mi, &missing);
		tc_ledger__set_repr(&ex, &extra);
		rc = fail(e, "%s scope_actions must provide complete analyzer "
		    "coverage; missing=%s, extra=%s", A, tc_buf_cstr(&mi),
		    tc_buf_cstr(&ex));
		tc_buf_free(&mi);
		tc_buf_free(&ex);
	}
	tc_ledger__set_free(&prod);
	tc_ledger__set_free(&acts);
	tc_ledger__set_free(&missing);
	tc_ledger__set_free(&extra);
	return rc;
}

static const struct produced *
produced_for(const struct produced *all, size_t n, const tc_json *rid)
{
	size_t i;

	if (!tc_json_is(rid, TC_JSON_STRING))
		return NULL;
	for (i = 0; i < n; i++)
		if (all[i].rid_len == rid->u.str.len &&
		    memcmp(all[i].rid, rid->u.str.ptr, rid->u.str.len) == 0)
			return &all[i];
	return NULL;
}

static int
check_item_coverage(struct ev *e, const tc_json *d, const char *loc,
    const struct produced *p)
{
	static const char *const decision_fields[] = {
		"sk_id", "classification", "action", "mapping_method",
		"mapping_confidence", "boundary", NULL
	};
	static const char *const proof_fields[] = {
		"candidate_binding_status", "graph_occurrence_fingerprint",
		"mapping_blockers", NULL
	};
	static const char *const action_fields[] = {
		"sk_id", "classification", "action", "source_scope", "boundary",
		NULL
	};
	const tc_json *range = tc_json_get(d, "range_id");
	const tc_json *pd, *pa;
	size_t k;

	if (p == NULL)
		return fail(e, "%s has no profiling analyzer result for its "
		    "round", loc);
	pd = find_range(p->decisions, range);
	pa = find_range(p->actions, range);
	if (pd == NULL || pa == NULL)
		return fail(e, "%s has no exact analyzer decision for "
		    "round/range", loc);
	for (k = 0; decision_fields[k] != NULL; k++)
		if (!tc_ledger__eq(tc_json_get(d, decision_fields[k]),
		    tc_json_get(pd, decision_fields[k])))
			return fail(e, "%s.%s does not match analyzer "
			    "per_sk_decisions", loc, decision_fields[k]);
	for (k = 0; proof_fields[k] != NULL; k++)
		if (tc_json_get(pd, proof_fields[k]) != NULL &&
		    !tc_ledger__eq(tc_json_get(d, proof_fields[k]),
		    tc_json_get(pd, proof_fields[k])))
			return fail(e, "%s.%s does not match analyzer structural "
			    "proof", loc, proof_fields[k]);
	for (k = 0; action_fields[k] != NULL; k++)
		if (!tc_ledger__eq(tc_json_get(d, action_fields[k]),
		    tc_json_get(pa, action_fields[k])))
			return fail(e, "%s.%s does not match analyzer "
			    "scope_actions", loc, action_fields[k]);
	return 0;
}

static int
check_exactly_once(struct ev *e, const struct produced *p)
{
	static const char *const fields[] = {
		"performance_scope_decisions", "unresolved_performance_ranges"
	};
	lx_set prod = LX_SET_INIT, sub = LX_SET_INIT, dups = LX_SET_INIT;
	lx_set missing = LX_SET_INIT, extra = LX_SET_INIT;
	size_t f, i;
	int rc = 0;

	for (i = 0; tc_json_is(p->decisions, TC_JSON_ARRAY) &&
	    i < p->decisions->u.arr.len; i++) {
		tc_buf s = TC_BUF_INIT;

		tc_json_str(&s, tc_json_get(p->decisions->u.arr.items[i],
		    "range_id"));
		tc_ledger__set_add(&prod, tc_buf_cstr(&s), s.len);
		tc_buf_free(&s);
	}
	for (f = 0; f < 2; f++) {
		const tc_json *list = tc_json_get(e->r, fields[f]);

		for (i = 0; i < list->u.arr.len; i++) {
			const tc_json *d = list->u.arr.items[i];
			const tc_json *rid = tc_json_get(d, "round_id");
			tc_buf s = TC_BUF_INIT;

			if (!tc_json_is(rid, TC_JSON_STRING) ||
			    rid->u.str.len != p->rid_len ||
			    memcmp(rid->u.str.ptr, p->rid, p->rid_len) != 0)
				continue;
			tc_json_str(&s, tc_json_get(d, "range_id"));
			if (!tc_ledger__set_add(&sub, tc_buf_cstr(&s), s.len))
				tc_ledger__set_add(&dups, tc_buf_cstr(&s), s.len);
			tc_buf_free(&s);
		}
	}
	for (i = 0; i < prod.len; i++)
		if (!tc_ledger__set_has(&sub, prod.items[i].p, prod.items[i].n))
			tc_ledger__set_add(&missing, prod.items[i].p, prod.items[i].n);
	for (i = 0; i < sub.len; i++)
		if (!tc_ledger__set_has(&prod, sub.items[i].p, sub.items[i].n))
			tc_ledger__set_add(&extra, sub.items[i].p, sub.items[i].n);
	if (missing.len > 0 || extra.len > 0 || dups.len > 0) {
		tc_buf mi = TC_BUF_INIT, ex = TC_BUF_INIT, du = TC_BUF_INIT;

		tc_ledger__set_repr(&mi, &missing);
		tc_ledger__set_repr(&ex, &extra);
		tc_ledger__set_repr(&du, &dups);
		rc = fail(e, "profiling_analysis_result.%.*s handoff collections "
		    "must provide complete analyzer coverage exactly once; "
		    "missing=%s, extra=%s, duplicates=%s", (int)p->rid_len,
		    p->rid, tc_buf_cstr(&mi), tc_buf_cstr(&ex), tc_buf_cstr(&du));
		tc_buf_free(&mi);
		tc_buf_free(&ex);
		tc_buf_free(&du);
	}
	tc_ledger__set_free(&prod);
	tc_ledger__set_free(&sub);
	tc_ledger__set_free(&dups);
	tc_ledger__set_free(&missing);
	tc_ledger__set_free(&extra);
	return rc;
}

static int
check_coverage(struct ev *e, const struct produced *all, size_t n)
{
	static const char *const fields[] = {
		"performance_scope_decisions", "unresolved_performance_ranges"
	};
	size_t i, f;
	int rc;

	for (i = 0; i < n; i++)
		if ((rc = check_round_coverage(e, &all[i])) != 0)
			return rc;
	for (f = 0; f < 2; f++) {
		const tc_json *list = tc_json_get(e->r, fields[f]);

		for (i = 0; i < list->u.arr.len; i++) {
			const tc_json *d = list->u.arr.items[i];
			char loc[96];

			snprintf(loc, sizeof(loc), "%s[%zu]", fields[f], i);
			rc = check_item_coverage(e, d, loc, produced_for(all, n,
			    tc_json_get(d, "round_id")));
			if (rc != 0)
				return rc;
		}
	}
	for (i = 0; i < n; i++)
		if ((rc = check_exactly_once(e, &all[i])) != 0)
			return rc;
	return 0;
}

/* ---- the whole procedure ------------------------------------------------ */

static int
check_round_analysis(struct ev *e, const tc_json_member *m,
    struct produced *out)
{
	const tc_ledger_analyzer *an = e->opts->analyzer;
	char L[512], *file = NULL, *profile_inputs[2] = { NULL, NULL };
	char *rid = tc_xstrndup(m->key, m->key_len);
	const tc_json *round = round_by_id(e->r, m->key, m->key_len);
	tc_json *a = NULL;
	tc_error aerr = TC_ERROR_INIT;
	int rc = -1;

	snprintf(L, sizeof(L), "profiling_analysis_result.%s", rid);
	if ((file = artifact_path(e, m->value, L, true)) == NULL)
		goto out;
	if ((a = tc_ledger_read_file(file, &aerr)) == NULL) {
		tc_error_set(e->err, "%s", tc_error_msg(&aerr));
		goto out;
	}
	if (!tc_json_is(a, TC_JSON_OBJECT)) {
		fail(e, "%s must contain a JSON object", L);
		goto out;
	}
	if (depth_of(a) > ANALYSIS_MAX_DEPTH) {
		fail(e, "%s exceeds the JSON nesting depth limit of %d", L,
		    ANALYSIS_MAX_DEPTH);
		goto out;
	}
	if (an != NULL && an->analyze != NULL) {
		if (an->analyze(an->ctx, e->r, rid, file, a, &out->decisions,
		    &out->actions, &aerr) != 0) {
			fail(e, "%s", tc_error_msg(&aerr));
			goto out;
		}
	}
	if (check_binding(e, L, a, m, round) != 0 ||
	    check_inputs(e, L, a, file, profile_inputs) != 0 ||
	    check_profiles(e, L, rid, round, profile_inputs) != 0)
		goto out;
	if (an != NULL && an->reanalyze != NULL &&
	    an->reanalyze(an->ctx, e->r, rid, file, a, &aerr) != 0) {
		fail(e, "%s", tc_error_msg(&aerr));
		goto out;
	}
	rc = 0;
out:
	tc_error_clear(&aerr);
	tc_json_free(a);
	free(file);
	free(profile_inputs[0]);
	free(profile_inputs[1]);
	free(rid);
	return rc;
}

int
tc_experiment_validate_artifacts(const tc_json *result,
    const tc_ledger_opts *opts, tc_error *err)
{
	struct ev e = { result, opts, NULL, err };
	const tc_json *results = tc_json_get(result, "profiling_analysis_result");
	struct produced *prod;
	tc_error rerr = TC_ERROR_INIT;
	bool hook = opts->analyzer != NULL && opts->analyzer->analyze != NULL;
	size_t i, n;
	int rc = 0;

	e.root = tc_path_resolve(opts->artifact_root, &rerr);
	if (e.root == NULL) {
		tc_error_set(err, "ValueError: artifact root cannot be resolved: "
		    "%s", tc_error_msg(&rerr));
		tc_error_clear(&rerr);
		return -1;
	}
	if (!tc_is_directory(e.root)) {
		free(e.root);
		return fail(&e, "artifact root must be an existing directory");
	}
	n = tc_json_is(results, TC_JSON_OBJECT) ? results->u.obj.len : 0;
	prod = tc_xcalloc(n ? n : 1, sizeof(*prod));
	for (i = 0; i < n && rc == 0; i++) {
		prod[i].rid = results->u.obj.members[i].key;
		prod[i].rid_len = results->u.obj.members[i].key_len;
		rc = check_round_analysis(&e, &results->u.obj.members[i],
		    &prod[i]);
	}
	if (rc == 0 && hook)
		rc = check_coverage(&e, prod, n);
	for (i = 0; i < n; i++) {
		tc_json_free(prod[i].decisions);
		tc_json_free(prod[i].actions);
	}
	free(prod);
	free(e.root);
	if (rc != 0)
		return -1;
	return hook ? 1 : 0;
}

/* ---- the wrapper (docs/spec/ledger.md "The validation wrapper") --------- */

static tc_json *
validation_object(bool valid, bool validated, tc_json *errors)
{
	tc_json *o = tc_json_new_object();

	tc_json_object_set_bool(o, "valid", valid);
	tc_json_object_set_bool(o, "artifact_evidence_validated", validated);
	tc_json_object_set_bool(o, "conditional_evidence_eligible", validated);
	tc_json_object_set(o, "errors", errors);
	return o;
}

tc_json *
tc_experiment_validate(const tc_json *result, const tc_ledger_opts *opts)
{
	tc_json *errors = tc_experiment_structural_errors(result);
	tc_error err = TC_ERROR_INIT;
	int rc;

	if (errors->u.arr.len > 0 || opts == NULL || opts->artifact_root == NULL)
		return validation_object(errors->u.arr.len == 0, false, errors);
	rc = tc_experiment_validate_artifacts(result, opts, &err);
	if (rc < 0) {
		tc_buf m = TC_BUF_INIT;

		tc_buf_puts(&m, TC_LEDGER_EXCEPTION_PREFIX);
		tc_buf_puts(&m, tc_error_msg(&err));
		tc_ledger__err_buf(errors, &m);
		tc_buf_free(&m);
		tc_error_clear(&err);
		return validation_object(false, false, errors);
	}
	return validation_object(true, rc == 1, errors);
}
