/*
 * ledger_migrate.c - schema 1 to schema 2 migration (docs/spec/ledger.md
 * "Schema 1 migration") and the legacy-evidence checks it shares with the merge
 * (docs/spec/ledger.md "Merging into a schema 2 ledger" steps 5 and 6).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ledger_internal.h"
#include "tunectl/ledger.h"

static bool
key_canonical(const tc_json_member *m)
{
	tc_json *k = tc_json_new_stringn(m->key, m->key_len);
	bool ok = tc_is_canonical_string(k);

	tc_json_free(k);
	return ok;
}

static bool
identity_matches(const tc_json_member *m)
{
	tc_json *k = tc_json_new_stringn(m->key, m->key_len);
	bool ok = tc_ledger__eq(tc_json_get(m->value, "experiment_id"), k);

	tc_json_free(k);
	return ok;
}

/* Fail with "; ".join(errors) when errors is non-empty. */
static int
fail_joined(tc_json *errors, tc_error *err)
{
	tc_buf b = TC_BUF_INIT;

	if (errors->u.arr.len == 0) {
		tc_json_free(errors);
		return 0;
	}
	tc_ledger__join_errors(&b, errors);
	tc_error_set(err, "%s", tc_buf_cstr(&b));
	tc_buf_free(&b);
	tc_json_free(errors);
	return -1;
}

int
tc_ledger__check_legacy(const tc_json *legacy, tc_error *err)
{
	size_t i;

	if (!tc_json_is(legacy, TC_JSON_OBJECT)) {
		tc_error_set(err, "ledger legacy_experiments must be an object");
		return -1;
	}
	for (i = 0; i < legacy->u.obj.len; i++) {
		const tc_json_member *m = &legacy->u.obj.members[i];
		tc_json *errors;
		char *loc;

		if (!key_canonical(m)) {
			tc_error_set(err, "ledger legacy experiment IDs must be "
			    "canonical strings");
			return -1;
		}
		if (!tc_json_is(m->value, TC_JSON_OBJECT)) {
			tc_error_set(err, "ledger legacy experiment %s must be an "
			    "object", m->key);
			return -1;
		}
		if (!identity_matches(m)) {
			tc_error_set(err, "ledger legacy experiment %s identity "
			    "mismatch", m->key);
			return -1;
		}
		errors = tc_json_new_array();
		loc = tc_xasprintf("legacy_experiments.%s", m->key);
		tc_ledger_relative_path_errors(m->value, loc, errors);
		free(loc);
		if (fail_joined(errors, err) != 0)
			return -1;
	}
	return 0;
}

int
tc_ledger__check_verified(const tc_json *list, tc_error *err)
{
	size_t i;

	if (!tc_json_is(list, TC_JSON_ARRAY)) {
		tc_error_set(err, "ledger legacy_verified_exclusions must be a "
		    "list");
		return -1;
	}
	for (i = 0; i < list->u.arr.len; i++) {
		tc_json *errors = tc_json_new_array();
		char loc[64];

		snprintf(loc, sizeof(loc), "legacy_verified_exclusions[%zu]", i);
		tc_ledger_relative_path_errors(list->u.arr.items[i], loc, errors);
		if (fail_joined(errors, err) != 0)
			return -1;
	}
	return 0;
}

static bool
is_performance_experiment(const tc_json *v)
{
	return tc_json_is(v, TC_JSON_OBJECT) &&
	    (tc_json_get(v, "profiling_analysis_agent_ids") != NULL ||
	    tc_json_get(v, "profiling_analysis_result") != NULL ||
	    tc_json_get(v, "performance_scope_decisions") != NULL ||
	    tc_json_get(v, "unresolved_performance_ranges") != NULL);
}

static int
member_cmp(const void *a, const void *b)
{
	const tc_json_member *x = a, *y = b;
	size_t n = x->key_len < y->key_len ? x->key_len : y->key_len;
	int c = memcmp(x->key, y->key, n);

	return c != 0 ? c : x->key_len < y->key_len ? -1 :
	    x->key_len > y->key_len;
}

/* legacy_experiments plus the moved schema 1 experiments (keys are
 * disjoint: a shared id was refused), built in key order so that every
 * insertion appends. */
static tc_json *
merge_legacy(const tc_json *legacy, const tc_json_member *moved, size_t n)
{
	size_t nl = legacy != NULL ? legacy->u.obj.len : 0, i;
	tc_json_member *all = tc_xcalloc(nl + n + 1, sizeof(*all));
	tc_json *out = tc_json_new_object();

	for (i = 0; i < nl; i++)
		all[i] = legacy->u.obj.members[i];
	for (i = 0; i < n; i++)
		all[nl + i] = moved[i];
	qsort(all, nl + n, sizeof(*all), member_cmp);
	for (i = 0; i < nl + n; i++)
		tc_json_object_setn(out, all[i].key, all[i].key_len,
		    tc_json_clone(all[i].value));
	free(all);
	return out;
}

tc_json *
tc_ledger_migrate_v1(const tc_json *ledger, tc_error *err)
{
	const tc_json *exps = tc_json_get(ledger, "experiments");
	const tc_json *legacy = tc_json_get(ledger, "legacy_experiments");
	const tc_json *verified;
	tc_json *active = NULL, *new_legacy = NULL, *out;
	tc_json_member *moved = NULL;
	size_t i, nmoved = 0;

	if (exps != NULL && !tc_json_is(exps, TC_JSON_OBJECT)) {
		tc_error_set(err, "schema 1 ledger experiments must be an object");
		return NULL;
	}
	if (legacy != NULL && !tc_json_is(legacy, TC_JSON_OBJECT)) {
		tc_error_set(err, "schema 1 legacy_experiments must be an object");
		return NULL;
	}
	active = tc_json_new_object();
	if (exps != NULL)
		moved = tc_xcalloc(exps->u.obj.len ? exps->u.obj.len : 1,
		    sizeof(*moved));
	for (i = 0; exps != NULL && i < exps->u.obj.len; i++) {
		const tc_json_member *m = &exps->u.obj.members[i];

		if (!key_canonical(m)) {
			tc_error_set(err, "schema 1 ledger experiment IDs must be "
			    "canonical strings");
			goto fail;
		}
		if (legacy != NULL && tc_json_getn(legacy, m->key,
		    m->key_len) != NULL) {
			tc_error_set(err, "schema 1 experiment %s has duplicate "
			    "legacy identity", m->key);
			goto fail;
		}
		if (is_performance_experiment(m->value)) {
			tc_json *errors = tc_experiment_structural_errors(m->value);

			if (errors->u.arr.len > 0) {
				tc_buf b = TC_BUF_INIT;

				tc_ledger__join_errors(&b, errors);
				tc_error_set(err, "schema 1 performance experiment "
				    "%s is invalid: %s", m->key, tc_buf_cstr(&b));
				tc_buf_free(&b);
				tc_json_free(errors);
				goto fail;
			}
			tc_json_free(errors);
			if (!identity_matches(m)) {
				tc_error_set(err, "schema 1 performance experiment "
				    "%s identity mismatch", m->key);
				goto fail;
			}
			tc_json_object_setn(active, m->key, m->key_len,
			    tc_json_clone(m->value));
		} else {
			moved[nmoved++] = *m;
		}
	}
	new_legacy = merge_legacy(legacy, moved, nmoved);
	free(moved);
	moved = NULL;
	verified = tc_json_get(ledger, "legacy_verified_exclusions");
	if (verified == NULL)
		verified = tc_json_get(ledger, "verified_exclusions");
	if (verified != NULL && !tc_json_is(verified, TC_JSON_ARRAY)) {
		tc_error_set(err, "schema 1 verified_exclusions must be a list");
		goto fail;
	}
	if (tc_ledger__check_legacy(new_legacy, err) != 0)
		goto fail;
	if (verified != NULL && tc_ledger__check_verified(verified, err) != 0)
		goto fail;
	out = tc_json_new_object();
	tc_json_object_set_int(out, "schema_version", TC_LEDGER_SCHEMA_VERSION);
	tc_json_object_set_int(out, "migrated_from_schema_version", 1);
	tc_json_object_set(out, "experiments", active);
	tc_json_object_set(out, "legacy_experiments", new_legacy);
	tc_json_object_set(out, "legacy_verified_exclusions",
	    verified != NULL ? tc_json_clone(verified) : tc_json_new_array());
	tc_json_object_set(out, "artifact_validated_experiment_ids",
	    tc_json_new_array());
	tc_json_object_set(out, "conditional_performance_evidence",
	    tc_json_new_object());
	return out;
fail:
	free(moved);
	tc_json_free(active);
	tc_json_free(new_legacy);
	return NULL;
}
