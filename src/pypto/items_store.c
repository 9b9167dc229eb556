/*
 * items_store.c - validating a whole ledger file (structure, rules, and the
 * chronology recomputed from each item's event history) and applying one
 * operation to the file under its exclusive lock with an atomic write.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pypto_internal.h"
#include "tunectl/fileio.h"
#include "tunectl/lock.h"
#include "tunectl/pypto_items.h"
#include "tunectl/timeutil.h"


/* Status of an item just before sequence number t (NULL: not registered). */
static const char *
status_at(const tc_json *item, int64_t t)
{
	const tc_json *h = tc_json_get(item, "history");
	const char *st = NULL;
	size_t i;

	for (i = 0; tc_json_is(h, TC_JSON_ARRAY) && i < h->u.arr.len; i++) {
		int64_t s = 0;

		(void)tc_pj_int(tc_json_get(h->u.arr.items[i], "seq"), &s);
		if (s >= t)
			break;
		st = tc_json_get_string(h->u.arr.items[i], "status");
	}
	return st;
}

static void
check_history(const tc_json *it, int64_t sequence, tc_json *errors)
{
	const char *id = tc_json_get_string(it, "item_id");
	const tc_json *h = tc_json_get(it, "history");
	int64_t prev = 0, reg = -1;
	size_t i;

	if (!tc_json_is(h, TC_JSON_ARRAY) || h->u.arr.len == 0) {
		tc_pj_push_fmt(errors, "item %s has no event history", id);
		return;
	}
	(void)tc_pj_int(tc_json_get(it, "registered_seq"), &reg);
	for (i = 0; i < h->u.arr.len; i++) {
		const tc_json *e = h->u.arr.items[i];
		const char *ev = tc_json_get_string(e, "event");
		int64_t s;

		if (!tc_pj_int(tc_json_get(e, "seq"), &s) || s <= prev ||
		    s > sequence || ev == NULL ||
		    tc_json_get_string(e, "status") == NULL) {
			tc_pj_push_fmt(errors, "item %s history[%zu] is malformed or out "
			    "of order", id, i);
			return;
		}
		if ((i == 0) != (strcmp(ev, "add") == 0)) {
			tc_pj_push_fmt(errors, "item %s history must start with its "
			    "registration", id);
			return;
		}
		if (i == 0 && s != reg) {
			tc_pj_push_fmt(errors, "item %s registered_seq does not match its "
			    "history", id);
			return;
		}
		prev = s;
	}
	if (strcmp(tc_json_get_string(h->u.arr.items[h->u.arr.len - 1],
	    "status"), tc_json_get_string(it, "status")) != 0)
		tc_pj_push_fmt(errors, "item %s status differs from its last history "
		    "event", id);
}

/* Every close of an item of kind k happened when all earlier-kind items
 * registered by then were closed or enablers; every bottleneck_derived
 * item was registered after all preset items were closed. */
static void
check_chronology(const tc_json *items, const tc_json *sources, tc_json *errors)
{
	size_t i, j, e;

	for (i = 0; i < items->u.arr.len; i++) {
		const tc_json *it = items->u.arr.items[i];
		const char *kind = tc_json_get_string(it, "source_kind");
		const tc_json *h = tc_json_get(it, "history");
		int k = tc_pypto_item_kind_index(kind);

		for (e = 0; tc_json_is(h, TC_JSON_ARRAY) && e < h->u.arr.len; e++) {
			const tc_json *ev = h->u.arr.items[e];
			const char *name = tc_json_get_string(ev, "event");
			int64_t t = 0;
			bool reg = name != NULL && strcmp(name, "add") == 0;
			bool close = name != NULL && strcmp(name, "close") == 0;

			(void)tc_pj_int(tc_json_get(ev, "seq"), &t);
			if (!(close || (reg && k == 4)))
				continue;
			for (j = 0; j < items->u.arr.len; j++) {
				const tc_json *o = items->u.arr.items[j];
				const char *ok = tc_json_get_string(o, "source_kind");
				const char *st = status_at(o, t);
				int ko = tc_pypto_item_kind_index(ok);
				bool bad;

				if (ko >= (k == 4 ? 4 : k) || ko < 0 || o == it)
					continue;
				if (k == 4)
					bad = st == NULL || !tc_pypto_item_terminal(ok, st);
				else
					bad = st != NULL && !tc_pypto_item_terminal(ok, st) &&
					    strcmp(st, "enabler") != 0;
				if (bad) {
					tc_pj_push_fmt(errors, "item %s was %s while %s item "
					    "%s was %s (source order)",
					    tc_json_get_string(it, "item_id"),
					    reg ? "registered" : "closed", ok,
					    tc_json_get_string(o, "item_id"),
					    st != NULL ? st : "not yet registered");
					return;
				}
			}
			if (k == 4 && reg) {
				int p;

				for (p = 0; p < 4; p++) {
					int64_t es = 0;

					(void)tc_pj_int(tc_json_get(tc_json_get(sources,
					    tc_pypto_source_kinds[p]), "enumerated_seq"),
					    &es);
					if (es == 0 || es >= t) {
						tc_pj_push_fmt(errors, "item %s was registered "
						    "before the %s source was enumerated",
						    tc_json_get_string(it, "item_id"),
						    tc_pypto_source_kinds[p]);
						return;
					}
				}
			}
		}
	}
}

/* Items of an indexed source are rows of its index. */
static void
check_index_coverage(const tc_json *items, const tc_json *sources,
    tc_json *errors)
{
	size_t i;

	for (i = 0; i < items->u.arr.len; i++) {
		const tc_json *it = items->u.arr.items[i];
		const char *kind = tc_json_get_string(it, "source_kind");
		const tc_json *ids = tc_json_get(tc_json_get(tc_json_get(sources,
		    kind != NULL ? kind : ""), "index"), "ids");
		char *key;

		if (!tc_json_is(ids, TC_JSON_ARRAY))
			continue;
		key = tc_pypto_item_index_id(it);
		if (!tc_pj_array_has_string(ids, key))
			tc_pj_push_fmt(errors, "item %s is not an active, eligible row of "
			    "the %s index", key, kind);
		free(key);
	}
}

/* What the ledger's closure is made of. */
struct closure {
	bool enumerated, presets_closed, all_closed;
	int64_t last_seq;	/* of the latest item event */
};

/* Each preset source: enumerated, with a count its items match. */
static void
check_sources(const tc_json *items, const tc_json *sources,
    bool require_closed, tc_json *errors, struct closure *c)
{
	int k;

	for (k = 0; k < 4; k++) {
		const char *kind = tc_pypto_source_kinds[k];
		const tc_json *s = tc_json_get(sources, kind);
		const tc_json *en = tc_json_get(s, "enumerated");
		int64_t count = -1;
		long n = tc_pypto__count_kind(items, kind);

		if (!tc_json_is(en, TC_JSON_BOOL)) {
			tc_pj_push_fmt(errors, "sources.%s is malformed", kind);
			continue;
		}
		if (!en->u.b) {
			c->enumerated = false;
			if (n > 0)
				tc_pj_push_fmt(errors, "the %s source holds items but was "
				    "never enumerated", kind);
			continue;
		}
		if (!tc_pj_int(tc_json_get(s, "count"), &count) || count < 0 ||
		    tc_json_get_string(s, "source_ref") == NULL) {
			tc_pj_push_fmt(errors, "sources.%s needs count and source_ref",
			    kind);
			continue;
		}
		if ((int64_t)n > count)
			tc_pj_push_fmt(errors, "the %s source was enumerated with %lld "
			    "items but holds %ld", kind, (long long)count, n);
		else if ((int64_t)n < count) {
			c->presets_closed = false;
			if (require_closed)
				tc_pj_push_fmt(errors, "the %s source lists %lld items but "
				    "only %ld are registered", kind, (long long)count,
				    n);
		}
	}
}

/* counts.<kind>.total and counts.<kind>.by_status.<status>, one more. */
static void
count_item(tc_json *counts, const char *kind, const char *st)
{
	tc_json *c = tc_json_get(counts, kind), *by;
	int64_t n = 0;

	if (c == NULL) {
		c = tc_json_new_object();
		tc_json_object_set_int(c, "total", 0);
		tc_json_object_set(c, "by_status", tc_json_new_object());
		tc_json_object_set(counts, kind, c);
	}
	(void)tc_pj_int(tc_json_get(c, "total"), &n);
	tc_json_object_set_int(c, "total", n + 1);
	by = tc_json_get(c, "by_status");
	n = 0;
	(void)tc_pj_int(tc_json_get(by, st), &n);
	tc_json_object_set_int(by, st, n + 1);
}

/* Item i: its row rules, uniqueness, history and status. */
static void
check_item(const tc_json *l, size_t i, int64_t sequence, bool require_closed,
    tc_json *counts, tc_json *errors, struct closure *c)
{
	const tc_json *items = tc_json_get(l, "items");
	const tc_json *it = items->u.arr.items[i];
	tc_error e = TC_ERROR_INIT;
	const char *id = tc_json_get_string(it, "item_id");
	const char *kind = tc_json_get_string(it, "source_kind");
	const char *st = tc_json_get_string(it, "status");
	const tc_json *h = tc_json_get(it, "history");
	tc_json *copy;
	int64_t s;
	size_t j;

	/* Row rules: re-run the registration check on a copy without the
	 * managed fields, against the ledger for relations. */
	copy = tc_json_clone(it);
	tc_json_object_remove(copy, "registered_seq");
	tc_json_object_remove(copy, "history");
	tc_json_object_remove(copy, "reopen_count");
	if (tc_pypto_ledger_check_row(l, copy, &e) != 0)
		tc_pj_push_fmt(errors, "%s", tc_error_msg(&e));
	tc_json_free(copy);
	tc_error_clear(&e);
	if (id == NULL || kind == NULL || st == NULL)
		return;
	for (j = 0; j < i; j++) {
		const tc_json *o = items->u.arr.items[j];

		if (tc_json_equal(tc_json_get(o, "item_id"),
		    tc_json_get(it, "item_id")))
			tc_pj_push_fmt(errors, "item %s appears twice", id);
		else if (strcmp(kind, "kb_selected") == 0 &&
		    tc_json_get(it, "kb_key") != NULL &&
		    tc_json_equal(tc_json_get(o, "kb_key"),
		    tc_json_get(it, "kb_key")))
			tc_pj_push_fmt(errors, "items %s and %s share one kb_key",
			    tc_json_get_string(o, "item_id"), id);
	}
	check_history(it, sequence, errors);
	if (tc_json_is(h, TC_JSON_ARRAY) && h->u.arr.len > 0 &&
	    tc_pj_int(tc_json_get(h->u.arr.items[h->u.arr.len - 1], "seq"),
	    &s) && s > c->last_seq)
		c->last_seq = s;
	if (!tc_pypto_item_terminal(kind, st)) {
		c->all_closed = false;
		if (tc_pypto_item_kind_index(kind) < 4)
			c->presets_closed = false;
		if (require_closed)
			tc_pj_push_fmt(errors, "item %s is still %s", id, st);
	}
	count_item(counts, kind, st);
}

/* The final sweep follows the last item event and found nothing new. */
static void
check_sweep(const tc_json *sweep, bool require_closed, int64_t last_seq,
    tc_json *errors)
{
	const tc_json *ni = tc_json_get(sweep, "new_items");
	int64_t s = 0;

	if (!tc_json_is(sweep, TC_JSON_OBJECT)) {
		if (require_closed)
			tc_pj_push_fmt(errors, "no final sweep recorded on the final "
			    "code");
		return;
	}
	if (!tc_pj_int(tc_json_get(sweep, "recorded_seq"), &s) ||
	    s < last_seq || !tc_json_is(ni, TC_JSON_ARRAY) ||
	    ni->u.arr.len != 0 || tc_json_get_string(sweep, "scope") == NULL)
		tc_pj_push_fmt(errors, "final_sweep is stale or malformed: it "
		    "must follow the last item event and list no new item");
}

tc_json *
tc_pypto_ledger_validate(const tc_json *l, bool require_closed, bool *ok)
{
	tc_json *r = tc_json_new_object(), *errors = tc_json_new_array();
	tc_json *counts = tc_json_new_object(), *closure = tc_json_new_object();
	const tc_json *items = tc_json_get(l, "items");
	const tc_json *sources = tc_json_get(l, "sources");
	const tc_json *sweep = tc_json_get(l, "final_sweep");
	struct closure c = { true, true, true, 0 };
	int64_t sequence = -1;
	size_t i;

	if (!tc_json_is(l, TC_JSON_OBJECT) ||
	    tc_json_get_string(l, "kind") == NULL ||
	    strcmp(tc_json_get_string(l, "kind"), "pypto_optimization_ledger") ||
	    !tc_pj_int(tc_json_get(l, "schema_version"), &sequence) ||
	    sequence != 1 || !tc_pj_int(tc_json_get(l, "sequence"), &sequence) ||
	    sequence < 0 || !tc_json_is(items, TC_JSON_ARRAY) ||
	    !tc_json_is(sources, TC_JSON_OBJECT) ||
	    (sweep != NULL && sweep->type != TC_JSON_NULL &&
	    sweep->type != TC_JSON_OBJECT)) {
		tc_pj_push_fmt(errors, "not a pypto_optimization_ledger (schema_version "
		    "1, sequence, sources, items, final_sweep)");
		goto done;
	}
	check_sources(items, sources, require_closed, errors, &c);
	for (i = 0; i < items->u.arr.len; i++)
		check_item(l, i, sequence, require_closed, counts, errors, &c);
	check_chronology(items, sources, errors);
	check_index_coverage(items, sources, errors);
	tc_pypto_experiments_validate(l, errors);
	check_sweep(sweep, require_closed, c.last_seq, errors);
	if (require_closed && !c.enumerated)
		tc_pj_push_fmt(errors, "not every preset source is enumerated");
done:
	tc_json_object_set_bool(r, "valid", errors->u.arr.len == 0);
	*ok = errors->u.arr.len == 0;
	tc_json_object_set(r, "errors", errors);
	tc_json_object_set(r, "counts", counts);
	tc_json_object_set_bool(closure, "presets_enumerated", c.enumerated);
	tc_json_object_set_bool(closure, "presets_closed", c.enumerated &&
	    c.presets_closed);
	tc_json_object_set_bool(closure, "all_items_closed", c.all_closed);
	tc_json_object_set_bool(closure, "final_sweep_recorded",
	    tc_json_is(sweep, TC_JSON_OBJECT));
	tc_json_object_set_bool(closure, "complete", c.enumerated &&
	    c.presets_closed && c.all_closed &&
	    tc_json_is(sweep, TC_JSON_OBJECT) && errors->u.arr.len == 0);
	tc_json_object_set(r, "closure", closure);
	return r;
}

tc_json *
tc_pypto_ledger_load(const char *path, tc_error *err)
{
	tc_json *l = tc_pj_load_object(path, "the ledger", err);

	if (l == NULL)
		tc_error_prefix(err, "cannot load ledger %s: ", path);
	return l;
}

tc_json *
tc_pypto_ledger_update(const char *path, tc_pypto_ledger_fn fn, void *ctx,
    tc_error *err)
{
	tc_lock lock;
	tc_json *l = NULL;
	char now[TC_TIMESTAMP_LEN + 1];
	int rc;

	tc_now_iso(now);
	if (tc_lock_acquire(&lock, path, TC_LOCK_DEFAULT_TIMEOUT_S, err) != 0)
		return NULL;
	if ((l = tc_pypto_ledger_load(path, err)) == NULL)
		goto out;
	{
		/* The mutations assume a well-formed ledger: a hand-edited
		 * one is refused before anything is changed. */
		bool ok;
		tc_json *rep = tc_pypto_ledger_validate(l, false, &ok);

		if (!ok) {
			tc_error_set(err, "the ledger is invalid: %s",
			    tc_json_string(tc_json_get(rep, "errors")->
			    u.arr.items[0]));
			tc_json_free(rep);
			tc_json_free(l);
			l = NULL;
			goto out;
		}
		tc_json_free(rep);
	}
	rc = fn(l, ctx, now, err);
	if (rc == 0) {
		bool ok;
		tc_json *rep = tc_pypto_ledger_validate(l, false, &ok);

		if (!ok) {
			const tc_json *e = tc_json_get(rep, "errors");

			tc_error_set(err, "the ledger would become invalid: %s",
			    tc_json_string(e->u.arr.items[0]));
			rc = -1;
		}
		tc_json_free(rep);
	}
	if (rc == 0)
		rc = tc_write_json(path, l, 0, err);
	if (rc != 0) {
		tc_json_free(l);
		l = NULL;
	}
out:
	tc_lock_release(&lock);
	return l;
}

static int
apply_op(tc_json *l, void *ctx, const char *now, tc_error *err)
{
	const tc_pypto_ledger_op *op = ctx;
	int rc;

	switch (op->verb) {
	case TC_LEDGER_SOURCE:
		if (op->index != NULL) {
			tc_json *idx = tc_pypto_source_index(op->kind != NULL ?
			    op->kind : "", op->index, err);

			rc = idx == NULL ? -1 : tc_pypto_ledger_source_indexed(l,
			    op->kind, op->count, op->ref, idx, now, err);
			tc_json_free(idx);
		} else {
			rc = tc_pypto_ledger_source(l, op->kind, op->count, op->ref,
			    now, err);
		}
		break;
	case TC_LEDGER_ADD:
		rc = tc_pypto_ledger_add(l, op->item, now, err);
		break;
	case TC_LEDGER_CLOSE:
		rc = tc_pypto_ledger_close(l, op->item_id, op->status, op->reason,
		    op->reason_code, op->evidence, now, err);
		break;
	case TC_LEDGER_PARK:
		rc = tc_pypto_ledger_park(l, op->item_id, op->status, op->reason,
		    now, err);
		break;
	case TC_LEDGER_REOPEN:
		rc = tc_pypto_ledger_reopen(l, op->item_id, op->reason, now, err);
		break;
	case TC_LEDGER_SWEEP:
		rc = tc_pypto_ledger_sweep(l, op->scope, op->findings, now, err);
		break;
	default:
		tc_error_set(err, "unknown ledger operation");
		rc = -1;
		break;
	}
	return rc;
}

tc_json *
tc_pypto_ledger_apply_file(const char *path, const tc_pypto_ledger_op *op,
    tc_error *err)
{
	tc_json *l;

	if (op->verb == TC_LEDGER_INIT) {
		l = tc_pypto_ledger_new();
		if (tc_write_json(path, l, TC_WRITE_EXCLUSIVE | TC_WRITE_MKDIRS,
		    err) != 0) {
			tc_json_free(l);
			return NULL;
		}
		return l;
	}
	return tc_pypto_ledger_update(path, apply_op, (void *)op, err);
}
