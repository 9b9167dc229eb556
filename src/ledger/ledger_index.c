/*
 * ledger_index.c - the ledger's derived conditional performance evidence
 * index (§3.10): verified, source-actionable neutral/regressed prunes of
 * artifact-validated experiments, keyed by the compact JSON array of
 * their fingerprints and range id.
 */
#include <stdlib.h>
#include <string.h>

#include "ledger_internal.h"
#include "tunectl/ledger.h"

static const char *const key_fields[] = {
	"source_revision", "baseline_config_fingerprint",
	"candidate_config_fingerprint", "control_fingerprint",
	"workload_fingerprint", "range_id", NULL
};

static bool
promoted(const tc_json *d)
{
	const tc_json *c = tc_json_get(d, "classification");

	return tc_json_is(d, TC_JSON_OBJECT) &&
	    lx_is(tc_json_get(d, "status"), "verified") &&
	    lx_is(tc_json_get(d, "action"), "prune") &&
	    (lx_is(c, "neutral") || lx_is(c, "regressed")) &&
	    tc_ledger_source_actionable(d);
}

static tc_json *
clone_or_null(const tc_json *v)
{
	return v != NULL ? tc_json_clone(v) : tc_json_new_null();
}

static char *
composite_key(const tc_json *d, size_t *len)
{
	tc_json *arr = tc_json_new_array();
	char *key;
	size_t i;

	for (i = 0; key_fields[i] != NULL; i++)
		tc_json_array_push(arr, clone_or_null(tc_json_get(d,
		    key_fields[i])));
	key = lx_canonical(arr, len);
	tc_json_free(arr);
	return key;
}

tc_json *
tc_ledger_conditional_index(const tc_json *experiments,
    const tc_json *validated, tc_error *err)
{
	tc_json *index = tc_json_new_object();
	lx_set ids = LX_SET_INIT;
	size_t i, k;

	for (i = 0; tc_json_is(validated, TC_JSON_ARRAY) &&
	    i < validated->u.arr.len; i++) {
		const tc_json *id = validated->u.arr.items[i];

		if (tc_json_is(id, TC_JSON_STRING))
			lx_set_add(&ids, id->u.str.ptr, id->u.str.len);
	}
	for (i = 0; tc_json_is(experiments, TC_JSON_OBJECT) &&
	    i < experiments->u.obj.len; i++) {
		const tc_json_member *m = &experiments->u.obj.members[i];
		const tc_json *list;

		if (!lx_set_has(&ids, m->key, m->key_len))
			continue;
		list = tc_json_get(m->value, "performance_scope_decisions");
		for (k = 0; tc_json_is(list, TC_JSON_ARRAY) &&
		    k < list->u.arr.len; k++) {
			const tc_json *d = list->u.arr.items[k], *old;
			tc_json *value;
			size_t klen;
			char *key;

			if (!promoted(d))
				continue;
			value = tc_json_clone(d);
			tc_json_object_set_string(value, "evidence_kind", "prune");
			tc_json_object_set(value, "experiment_id", clone_or_null(
			    tc_json_get(m->value, "experiment_id")));
			tc_json_object_set(value, "child_agent_id", clone_or_null(
			    tc_json_get(m->value, "child_agent_id")));
			key = composite_key(d, &klen);
			old = tc_json_getn(index, key, klen);
			if (old != NULL && !lx_canonical_equal(old, value)) {
				tc_error_set(err, "conflicting conditional "
				    "performance evidence for composite key %s",
				    key);
				free(key);
				tc_json_free(value);
				tc_json_free(index);
				lx_set_free(&ids);
				return NULL;
			}
			if (old == NULL)
				tc_json_object_setn(index, key, klen, value);
			else
				tc_json_free(value);
			free(key);
		}
	}
	lx_set_free(&ids);
	return index;
}
