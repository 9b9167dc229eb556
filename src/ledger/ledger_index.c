/*
 * ledger_index.c - the ledger's derived conditional performance evidence
 * index (docs/spec/ledger.md "Conditional performance evidence"): verified,
 * source-actionable neutral/regressed prunes of artifact-validated experiments,
 * keyed by the compact JSON array of their fingerprints and range id.
 */
#include <stdint.h>
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
	    tc_ledger__is(tc_json_get(d, "status"), "verified") &&
	    tc_ledger__is(tc_json_get(d, "action"), "prune") &&
	    (tc_ledger__is(c, "neutral") || tc_ledger__is(c, "regressed")) &&
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
	key = tc_ledger__canonical(arr, len);
	tc_json_free(arr);
	return key;
}

struct entry {
	char *key;
	size_t klen;
	tc_json *value;
	char *canon;
	size_t clen;
	size_t order;		/* processing order */
};

static int
entry_cmp(const void *a, const void *b)
{
	const struct entry *x = a, *y = b;
	size_t n = x->klen < y->klen ? x->klen : y->klen;
	int c = memcmp(x->key, y->key, n);

	if (c == 0)
		c = x->klen < y->klen ? -1 : x->klen > y->klen;
	if (c == 0)
		c = x->order < y->order ? -1 : x->order > y->order;
	return c;
}

static bool
same_key(const struct entry *x, const struct entry *y)
{
	return x->klen == y->klen && memcmp(x->key, y->key, x->klen) == 0;
}

/*
 * The reference inserts promoted records one by one and fails at the
 * first key whose value differs from the one already stored.  tunectl
 * collects them, sorts by key (stably), and reports the key whose first
 * conflicting record comes earliest in processing order: the same error,
 * in O(n log n) for indexes of any size.
 */
tc_json *
tc_ledger_conditional_index(const tc_json *experiments,
    const tc_json *validated, tc_error *err)
{
	tc_json *index = NULL;
	struct entry *e = NULL;
	size_t n = 0, cap = 0, i, k, conflict = SIZE_MAX, conflict_at = 0;
	lx_set ids = LX_SET_INIT;

	for (i = 0; tc_json_is(validated, TC_JSON_ARRAY) &&
	    i < validated->u.arr.len; i++) {
		const tc_json *id = validated->u.arr.items[i];

		if (tc_json_is(id, TC_JSON_STRING))
			tc_ledger__set_add(&ids, id->u.str.ptr, id->u.str.len);
	}
	for (i = 0; tc_json_is(experiments, TC_JSON_OBJECT) &&
	    i < experiments->u.obj.len; i++) {
		const tc_json_member *m = &experiments->u.obj.members[i];
		const tc_json *list;

		if (!tc_ledger__set_has(&ids, m->key, m->key_len))
			continue;
		list = tc_json_get(m->value, "performance_scope_decisions");
		for (k = 0; tc_json_is(list, TC_JSON_ARRAY) &&
		    k < list->u.arr.len; k++) {
			const tc_json *d = list->u.arr.items[k];
			struct entry *x;

			if (!promoted(d))
				continue;
			if (n == cap) {
				cap = cap ? cap * 2 : 16;
				e = tc_xrealloc(e, cap * sizeof(*e));
			}
			x = &e[n];
			x->order = n;
			x->value = tc_json_clone(d);
			tc_json_object_set_string(x->value, "evidence_kind", "prune");
			tc_json_object_set(x->value, "experiment_id", clone_or_null(
			    tc_json_get(m->value, "experiment_id")));
			tc_json_object_set(x->value, "child_agent_id", clone_or_null(
			    tc_json_get(m->value, "child_agent_id")));
			x->key = composite_key(d, &x->klen);
			x->canon = tc_ledger__canonical(x->value, &x->clen);
			n++;
		}
	}
	if (n > 1)
		qsort(e, n, sizeof(*e), entry_cmp);
	for (i = 0; i < n; i = k) {
		for (k = i + 1; k < n && same_key(&e[i], &e[k]); k++) {
			if (e[k].clen == e[i].clen &&
			    memcmp(e[k].canon, e[i].canon, e[i].clen) == 0)
				continue;
			if (e[k].order < conflict) {
				conflict = e[k].order;
				conflict_at = i;
			}
		}
	}
	if (conflict != SIZE_MAX) {
		tc_error_set(err, "conflicting conditional performance evidence "
		    "for composite key %s", e[conflict_at].key);
	} else {
		index = tc_json_new_object();
		for (i = 0; i < n; i++) {
			if (i > 0 && same_key(&e[i - 1], &e[i]))
				continue;
			/* Keys arrive sorted: every insertion appends. */
			tc_json_object_setn(index, e[i].key, e[i].klen, e[i].value);
			e[i].value = NULL;
		}
	}
	for (i = 0; i < n; i++) {
		free(e[i].key);
		free(e[i].canon);
		tc_json_free(e[i].value);
	}
	free(e);
	tc_ledger__set_free(&ids);
	return index;
}
