/*
 * items.c - the Stage 5 optimisation-item ledger rules (pypto-orchestration.md
 * docs/spec/pypto.md "Item ledger"): row fields, per-kind statuses, the
 * five-source order, the bottleneck_derived gate, reasons for rejected,
 * reopening the original id, the final sweep, and the chronology re-check over
 * the event history.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pypto_internal.h"
#include "tunectl/pypto_items.h"

const char *const tc_pypto_source_kinds[] = {
	"kb_selected", "general_method", "knowledge_card", "template",
	"bottleneck_derived", NULL
};

static const char *const nonterminal[] = {
	"pending", "unknown", "enabler", "blocked", NULL
};
static const char *const terminal_kb[] = {
	"already_implemented", "not_triggered", "implemented", NULL
};
static const char *const terminal_other[] = {
	"accepted", "rejected", "not_applicable", "unsupported", NULL
};
static const char *const reason_codes[] = {
	"quick_not_promoted", "control_faster", "no_stable_gain", NULL
};
static const char *const relation_types[] = {
	"overlap", "require", "enable", "conflict", "cover", "reopen", NULL
};
static const char *const applicability_statuses[] = {
	"applicable", "not_applicable", "not_triggered", "to_be_proven", NULL
};
static const char *const managed_fields[] = {
	"registered_seq", "history", "reopen_count", NULL
};

static void
join_list(tc_buf *b, const char *const *list)
{
	size_t i;

	for (i = 0; list[i] != NULL; i++) {
		if (i > 0)
			tc_buf_puts(b, ", ");
		tc_buf_puts(b, list[i]);
	}
}

int
tc_pypto_item_kind_index(const char *kind)
{
	return tc_pypto__strv_index(tc_pypto_source_kinds, kind);
}

bool
tc_pypto_item_terminal(const char *kind, const char *status)
{
	if (kind != NULL && strcmp(kind, "kb_selected") == 0)
		return tc_pypto__strv_has(terminal_kb, status);
	return tc_pypto__strv_has(terminal_other, status);
}

static const char *const *
terminal_list(const char *kind)
{
	return strcmp(kind, "kb_selected") == 0 ? terminal_kb : terminal_other;
}

static bool
nonempty_string(const tc_json *v)
{
	const char *s = tc_json_string(v);

	return s != NULL && !tc_js_is_blank(s);
}

tc_json *
tc_pypto_ledger_new(void)
{
	tc_json *l = tc_json_new_object(), *src = tc_json_new_object();
	int i;

	tc_pj_doc_header(l, "pypto_optimization_ledger");
	tc_json_object_set_int(l, "sequence", 0);
	for (i = 0; i < 4; i++) {
		tc_json *s = tc_json_new_object();

		tc_json_object_set_bool(s, "enumerated", false);
		tc_json_object_set_null(s, "count");
		tc_json_object_set_null(s, "source_ref");
		tc_json_object_set(src, tc_pypto_source_kinds[i], s);
	}
	tc_json_object_set(l, "sources", src);
	tc_json_object_set(l, "items", tc_json_new_array());
	tc_json_object_set_null(l, "final_sweep");
	return l;
}

int64_t
tc_pypto__ledger_next_seq(tc_json *l)
{
	int64_t s = 0;

	(void)tc_pj_int(tc_json_get(l, "sequence"), &s);
	s++;
	tc_json_object_set_int(l, "sequence", s);
	return s;
}

static tc_json *
items_of(const tc_json *l)
{
	return tc_json_get_array(l, "items");
}

tc_json *
tc_pypto__ledger_item(const tc_json *l, const char *id)
{
	const tc_json *items = items_of(l);
	size_t i;

	for (i = 0; items != NULL && i < items->u.arr.len; i++) {
		const char *x = tc_json_get_string(items->u.arr.items[i],
		    "item_id");

		if (x != NULL && strcmp(x, id) == 0)
			return items->u.arr.items[i];
	}
	return NULL;
}

static void
add_event(tc_json *item, int64_t seq, const char *event, const char *status,
    const char *reason, const char *now)
{
	tc_json *h = tc_json_get_array(item, "history"), *e;

	if (h == NULL) {
		h = tc_json_new_array();
		tc_json_object_set(item, "history", h);
	}
	e = tc_json_new_object();
	tc_json_object_set_int(e, "seq", seq);
	tc_json_object_set_string(e, "event", event);
	tc_json_object_set_string(e, "status", status);
	if (reason != NULL)
		tc_json_object_set_string(e, "reason", reason);
	tc_json_object_set_string(e, "at", now);
	tc_json_array_push(h, e);
}

/* ---- row checks --------------------------------------------------------------- */

/* "item <id>: <message>" in err; returns -1. */
static int
item_error(tc_error *err, const char *id, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	tc_error_vset(err, fmt, ap);
	va_end(ap);
	tc_error_prefix(err, "item %s: ", id);
	return -1;
}

/* The first of keys whose value in o is not a non-empty string, or NULL. */
static const char *
missing_string(const tc_json *o, const char *const *keys)
{
	size_t i;

	for (i = 0; keys[i] != NULL; i++)
		if (!nonempty_string(tc_json_get(o, keys[i])))
			return keys[i];
	return NULL;
}

static int
check_kb_key(const tc_json *item, tc_error *err)
{
	static const char *const keys[] = {
		"class_id", "selection_field", "reference", "req_id", NULL
	};
	const tc_json *k = tc_json_get(item, "kb_key");
	const char *missing, *f;

	if (!tc_json_is(k, TC_JSON_OBJECT)) {
		tc_error_set(err, "a kb_selected item needs kb_key {class_id, "
		    "selection_field, reference, req_id}: the atomic key, since "
		    "req_id alone is not unique");
		return -1;
	}
	if ((missing = missing_string(k, keys)) != NULL) {
		tc_error_set(err, "kb_key.%s must be a non-empty string", missing);
		return -1;
	}
	f = tc_json_get_string(k, "selection_field");
	if (strcmp(f, "optional_patterns") != 0 &&
	    strcmp(f, "required_constraints") != 0) {
		tc_error_set(err, "kb_key.selection_field must be "
		    "optional_patterns or required_constraints");
		return -1;
	}
	return 0;
}

static int
check_bottleneck(const tc_json *item, tc_error *err)
{
	static const char *const keys[] = {
		"mechanism", "minimal_change", "risk", "stop_condition", NULL
	};
	const tc_json *b = tc_json_get(item, "bottleneck");
	const char *missing;

	if (!tc_json_is(b, TC_JSON_OBJECT)) {
		tc_error_set(err, "a bottleneck_derived item needs bottleneck "
		    "{mechanism, minimal_change, risk, stop_condition, "
		    "analysis_code_sha256}: a falsifiable mechanism registered "
		    "before editing code");
		return -1;
	}
	if ((missing = missing_string(b, keys)) != NULL) {
		tc_error_set(err, "bottleneck.%s must be a non-empty string",
		    missing);
		return -1;
	}
	if (!tc_pj_is_sha256_hex(tc_json_get_string(b, "analysis_code_sha256"))) {
		tc_error_set(err, "bottleneck.analysis_code_sha256 must be the "
		    "64-hex SHA-256 of the code the fresh bottleneck analysis "
		    "was made on");
		return -1;
	}
	return 0;
}

/* case_scope, applicability and expected_metric. */
static int
check_scope(const tc_json *item, const char *id, tc_error *err)
{
	const tc_json *scope = tc_json_get(item, "case_scope");
	const tc_json *app = tc_json_get(item, "applicability");
	size_t i, j;

	if (!tc_json_is(scope, TC_JSON_ARRAY) || scope->u.arr.len == 0)
		return item_error(err, id, "case_scope must be a non-empty "
		    "list of P0 case ids");
	for (i = 0; i < scope->u.arr.len; i++) {
		if (!nonempty_string(scope->u.arr.items[i]))
			return item_error(err, id, "case_scope[%zu] must be a "
			    "non-empty string", i);
		for (j = 0; j < i; j++)
			if (tc_json_equal(scope->u.arr.items[i],
			    scope->u.arr.items[j]))
				return item_error(err, id, "case_scope repeats %s",
				    tc_json_string(scope->u.arr.items[i]));
	}
	if (!tc_json_is(app, TC_JSON_OBJECT) ||
	    !tc_pypto__strv_has(applicability_statuses,
	    tc_json_get_string(app, "status")) ||
	    !nonempty_string(tc_json_get(app, "basis")))
		return item_error(err, id, "applicability must be {status: "
		    "applicable|not_applicable|not_triggered|to_be_proven, basis: "
		    "<text>}");
	if (!nonempty_string(tc_json_get(item, "expected_metric")))
		return item_error(err, id, "expected_metric must state the "
		    "expected change in work, traffic, dependency, conflict or "
		    "fixed overhead");
	return 0;
}

/* Each relation names another registered item (l NULL: any item). */
static int
check_relations(const tc_json *l, const tc_json *item, const char *id,
    tc_error *err)
{
	const tc_json *rel = tc_json_get(item, "relations");
	size_t i;

	if (rel == NULL)
		return 0;
	if (!tc_json_is(rel, TC_JSON_ARRAY))
		return item_error(err, id, "relations must be a list");
	for (i = 0; i < rel->u.arr.len; i++) {
		const tc_json *r = rel->u.arr.items[i];
		const char *t = tc_json_get_string(r, "target");

		if (!tc_pypto__strv_has(relation_types,
		    tc_json_get_string(r, "type")) ||
		    t == NULL || strcmp(t, id) == 0 ||
		    (l != NULL && tc_pypto__ledger_item(l, t) == NULL))
			return item_error(err, id, "relations[%zu] must be "
			    "{type: overlap|require|enable|conflict|cover|"
			    "reopen, target: <another registered item_id>}", i);
	}
	return 0;
}

/* kb_key belongs to kb_selected items, bottleneck to bottleneck_derived
 * ones, each checked there. */
static int
check_kind_fields(const tc_json *item, const char *id, const char *kind,
    tc_error *err)
{
	if (strcmp(kind, "kb_selected") == 0) {
		if (check_kb_key(item, err) != 0)
			return -1;
	} else if (tc_json_get(item, "kb_key") != NULL) {
		return item_error(err, id, "kb_key belongs to kb_selected "
		    "items only");
	}
	if (strcmp(kind, "bottleneck_derived") == 0) {
		if (check_bottleneck(item, err) != 0)
			return -1;
	} else if (tc_json_get(item, "bottleneck") != NULL) {
		return item_error(err, id, "bottleneck belongs to "
		    "bottleneck_derived items only");
	}
	return 0;
}

/* The status is valid for the kind; a rejection gives its reason. */
static int
check_status(const tc_json *item, const char *id, const char *kind,
    const char *status, tc_error *err)
{
	const tc_json *code = tc_json_get(item, "reason_code");
	tc_buf b = TC_BUF_INIT;

	if (!tc_pypto__strv_has(nonterminal, status) &&
	    !tc_pypto_item_terminal(kind, status)) {
		join_list(&b, nonterminal);
		tc_buf_puts(&b, ", ");
		join_list(&b, terminal_list(kind));
		tc_error_set(err, "item %s: status %s is not valid for a %s item "
		    "(allowed: %s)", id, status != NULL ? status : "(missing)",
		    kind, tc_buf_cstr(&b));
		tc_buf_free(&b);
		return -1;
	}
	if (status == NULL || strcmp(status, "rejected") != 0)
		return 0;
	if (!nonempty_string(tc_json_get(item, "reason")))
		return item_error(err, id, "rejected needs a concrete reason");
	if (code != NULL && code->type != TC_JSON_NULL &&
	    !tc_pypto__strv_has(reason_codes, tc_json_string(code)))
		return item_error(err, id, "reason_code must be one of "
		    "quick_not_promoted, control_faster, no_stable_gain");
	return 0;
}

/* A new item carries no managed field and starts pending or unknown. */
static int
check_new(const tc_json *item, const char *id, const char *status,
    tc_error *err)
{
	size_t i;

	for (i = 0; managed_fields[i] != NULL; i++)
		if (tc_json_get(item, managed_fields[i]) != NULL)
			return item_error(err, id, "%s is managed by tunectl",
			    managed_fields[i]);
	if (!tc_pypto__strv_has(nonterminal, status) ||
	    strcmp(status, "enabler") == 0)
		return item_error(err, id, "a new item is registered as "
		    "pending or unknown and closed later with its evidence");
	return 0;
}

static int
check_row(const tc_json *l, const tc_json *item, bool is_new, tc_error *err)
{
	const char *id = tc_json_get_string(item, "item_id");
	const char *kind = tc_json_get_string(item, "source_kind");
	const char *status = tc_json_get_string(item, "status");
	const tc_json *ev = tc_json_get(item, "evidence");

	if (!tc_json_is(item, TC_JSON_OBJECT)) {
		tc_error_set(err, "an item must be a JSON object");
		return -1;
	}
	if (id == NULL || tc_js_is_blank(id)) {
		tc_error_set(err, "item_id must be a non-empty string");
		return -1;
	}
	if (tc_pypto_item_kind_index(kind) < 0) {
		tc_buf b = TC_BUF_INIT;

		join_list(&b, tc_pypto_source_kinds);
		tc_error_set(err, "item %s: source_kind must be one of %s", id,
		    tc_buf_cstr(&b));
		tc_buf_free(&b);
		return -1;
	}
	if (!nonempty_string(tc_json_get(item, "source_ref"))) {
		tc_error_set(err, "item %s: source_ref must name the authoritative "
		    "source (file, anchor, content identity; for "
		    "bottleneck_derived the bottleneck evidence)", id);
		return -1;
	}
	if (check_scope(item, id, err) != 0)
		return -1;
	if (!tc_pypto__strv_has(nonterminal, status) &&
	    !tc_pypto_item_terminal(kind, status))
		return check_status(item, id, kind, status, err);
	if (ev != NULL && !tc_json_is(ev, TC_JSON_OBJECT))
		return item_error(err, id, "evidence must be an object");
	if (check_relations(l, item, id, err) != 0 ||
	    check_kind_fields(item, id, kind, err) != 0 ||
	    check_status(item, id, kind, status, err) != 0)
		return -1;
	return is_new ? check_new(item, id, status, err) : 0;
}

int
tc_pypto_ledger_check_row(const tc_json *ledger, const tc_json *item,
    tc_error *err)
{
	return check_row(ledger, item, false, err);
}

/* ---- preset gates ---------------------------------------------------------------- */

long
tc_pypto__count_kind(const tc_json *items, const char *kind)
{
	size_t i;
	long n = 0;

	for (i = 0; items != NULL && i < items->u.arr.len; i++) {
		const char *k = tc_json_get_string(items->u.arr.items[i],
		    "source_kind");

		if (k != NULL && strcmp(k, kind) == 0)
			n++;
	}
	return n;
}

/* All four preset sources enumerated, fully registered, every item
 * terminal (no pending enabler).  On failure err says what is open. */
static int
presets_closed(const tc_json *l, tc_error *err)
{
	const tc_json *src = tc_json_get(l, "sources");
	const tc_json *items = items_of(l);
	int k;
	size_t i;

	for (k = 0; k < 4; k++) {
		const char *kind = tc_pypto_source_kinds[k];
		const tc_json *s = tc_json_get(src, kind);
		const tc_json *en = tc_json_get(s, "enumerated");
		int64_t count = 0;

		if (!tc_json_is(en, TC_JSON_BOOL) || !en->u.b) {
			tc_error_set(err, "the %s source is not enumerated yet", kind);
			return -1;
		}
		(void)tc_pj_int(tc_json_get(s, "count"), &count);
		if (tc_pypto__count_kind(items, kind) != count) {
			tc_error_set(err, "the %s source lists %lld items but %ld are "
			    "registered", kind, (long long)count,
			    tc_pypto__count_kind(items, kind));
			return -1;
		}
	}
	for (i = 0; items != NULL && i < items->u.arr.len; i++) {
		const tc_json *it = items->u.arr.items[i];
		const char *kind = tc_json_get_string(it, "source_kind");
		const char *st = tc_json_get_string(it, "status");

		if (tc_pypto_item_kind_index(kind) < 4 && !tc_pypto_item_terminal(kind, st)) {
			tc_error_set(err, "%s item %s is %s", kind,
			    tc_json_get_string(it, "item_id"), st);
			return -1;
		}
	}
	return 0;
}

/* The five-source order for closing an item of kind k. */
static int
order_allows_close(const tc_json *l, const char *kind, tc_error *err)
{
	const tc_json *items = items_of(l);
	int k = tc_pypto_item_kind_index(kind);
	size_t i;

	if (k == 4) {
		tc_error tmp = TC_ERROR_INIT;

		if (presets_closed(l, &tmp) != 0) {
			tc_error_set(err, "source order: bottleneck_derived items are "
			    "closed only after the four preset sources are closed (%s)",
			    tc_error_msg(&tmp));
			tc_error_clear(&tmp);
			return -1;
		}
		return 0;
	}
	for (i = 0; items != NULL && i < items->u.arr.len; i++) {
		const tc_json *it = items->u.arr.items[i];
		const char *ik = tc_json_get_string(it, "source_kind");
		const char *st = tc_json_get_string(it, "status");

		if (tc_pypto_item_kind_index(ik) < k && !tc_pypto_item_terminal(ik, st) &&
		    strcmp(st, "enabler") != 0) {
			tc_error_set(err, "source order: %s items are closed after "
			    "every earlier source; %s item %s is still %s", kind, ik,
			    tc_json_get_string(it, "item_id"), st);
			return -1;
		}
	}
	return 0;
}

/* ---- mutations --------------------------------------------------------------------- */

int
tc_pypto_ledger_source(tc_json *l, const char *kind, long count,
    const char *ref, const char *now, tc_error *err)
{
	return tc_pypto_ledger_source_indexed(l, kind, count, ref, NULL, now,
	    err);
}

int
tc_pypto_ledger_source_indexed(tc_json *l, const char *kind, long count,
    const char *ref, const tc_json *index, const char *now, tc_error *err)
{
	tc_json *s;
	int k = tc_pypto_item_kind_index(kind);
	int64_t ic;
	long have;

	(void)now;
	if (k < 0 || k == 4) {
		tc_error_set(err, "--kind must be one of the four preset sources: "
		    "kb_selected, general_method, knowledge_card, template "
		    "(bottleneck_derived items have no enumerated denominator)");
		return -1;
	}
	if (index != NULL && tc_pj_int(tc_json_get(index, "count"), &ic)) {
		if (count >= 0 && count != (long)ic) {
			tc_error_set(err, "--count %ld differs from the %lld active, "
			    "eligible rows of the index %s", count, (long long)ic,
			    tc_json_get_string(index, "path"));
			return -1;
		}
		count = (long)ic;
	}
	if (count < 0) {
		tc_error_set(err, "--count must be >= 0");
		return -1;
	}
	if (ref == NULL || tc_js_is_blank(ref)) {
		tc_error_set(err, "--ref must name the authoritative source (file, "
		    "active/eligible rows, content identity)");
		return -1;
	}
	have = tc_pypto__count_kind(items_of(l), kind);
	if (have > count) {
		tc_error_set(err, "the %s source already has %ld registered items, "
		    "more than --count %ld", kind, have, count);
		return -1;
	}
	s = tc_json_get(tc_json_get(l, "sources"), kind);
	tc_json_object_set_bool(s, "enumerated", true);
	tc_json_object_set_int(s, "count", count);
	tc_json_object_set_string(s, "source_ref", ref);
	tc_json_object_set_int(s, "enumerated_seq", tc_pypto__ledger_next_seq(l));
	if (index != NULL)
		tc_json_object_set(s, "index", tc_json_clone(index));
	else
		tc_json_object_remove(s, "index");
	tc_json_object_set_null(l, "final_sweep");
	return 0;
}

static bool
same_kb_key(const tc_json *a, const tc_json *b)
{
	return tc_json_equal(tc_json_get(a, "kb_key"), tc_json_get(b, "kb_key"));
}

int
tc_pypto_ledger_add(tc_json *l, const tc_json *item, const char *now,
    tc_error *err)
{
	tc_json *copy, *items = items_of(l);
	const char *id, *kind;
	int k;
	size_t i;

	if (!tc_json_is(item, TC_JSON_OBJECT)) {
		tc_error_set(err, "an item must be a JSON object");
		return -1;
	}
	copy = tc_json_clone(item);
	if (tc_json_get(copy, "status") == NULL)
		tc_json_object_set_string(copy, "status", "pending");
	if (tc_json_get(copy, "evidence") == NULL)
		tc_json_object_set(copy, "evidence", tc_json_new_object());
	if (tc_json_get(copy, "relations") == NULL)
		tc_json_object_set(copy, "relations", tc_json_new_array());
	if (check_row(l, copy, true, err) != 0)
		goto fail;
	id = tc_json_get_string(copy, "item_id");
	kind = tc_json_get_string(copy, "source_kind");
	k = tc_pypto_item_kind_index(kind);
	if (tc_pypto__ledger_item(l, id) != NULL) {
		tc_error_set(err, "item %s already exists; invalidated evidence "
		    "reopens the original id (items reopen), never a new row", id);
		goto fail;
	}
	for (i = 0; i < items->u.arr.len; i++) {
		const tc_json *o = items->u.arr.items[i];
		const char *ok = tc_json_get_string(o, "source_kind");

		if (ok == NULL)	/* a hand-edited row: no identity to repeat */
			continue;
		if (k == 0 && strcmp(ok, "kb_selected") == 0 &&
		    same_kb_key(o, copy)) {
			tc_error_set(err, "item %s repeats the kb_key of item %s; "
			    "reopen the original id instead", id,
			    tc_json_get_string(o, "item_id"));
			goto fail;
		}
		if (strcmp(ok, kind) == 0 && tc_json_equal(tc_json_get(o,
		    "source_ref"), tc_json_get(copy, "source_ref"))) {
			tc_error_set(err, "item %s repeats the source identity of "
			    "item %s (%s); reopen the original id instead", id,
			    tc_json_get_string(o, "item_id"),
			    tc_json_get_string(copy, "source_ref"));
			goto fail;
		}
	}
	if (k < 4) {
		const tc_json *s = tc_json_get(tc_json_get(l, "sources"), kind);
		const tc_json *en = tc_json_get(s, "enumerated");
		int64_t count = 0;

		if (!tc_json_is(en, TC_JSON_BOOL) || !en->u.b) {
			tc_error_set(err, "the %s source must be enumerated (items "
			    "source --kind %s --count N) before its items are "
			    "registered", kind, kind);
			goto fail;
		}
		(void)tc_pj_int(tc_json_get(s, "count"), &count);
		if (tc_pypto__count_kind(items_of(l), kind) + 1 > count) {
			tc_error_set(err, "the %s source was enumerated with %lld "
			    "items; item %s would exceed it", kind,
			    (long long)count, id);
			goto fail;
		}
	} else {
		tc_error tmp = TC_ERROR_INIT;

		if (presets_closed(l, &tmp) != 0) {
			tc_error_set(err, "bottleneck_derived items are allowed only "
			    "after the four preset sources are closed: %s",
			    tc_error_msg(&tmp));
			tc_error_clear(&tmp);
			goto fail;
		}
	}
	{
		int64_t seq = tc_pypto__ledger_next_seq(l);

		tc_json_object_set_int(copy, "registered_seq", seq);
		tc_json_object_set_int(copy, "reopen_count", 0);
		add_event(copy, seq, "add", tc_json_get_string(copy, "status"),
		    NULL, now);
	}
	tc_json_array_push(items, copy);
	tc_json_object_set_null(l, "final_sweep");
	return 0;
fail:
	tc_json_free(copy);
	return -1;
}

static tc_json *
existing(tc_json *l, const char *id, tc_error *err)
{
	tc_json *it = id != NULL ? tc_pypto__ledger_item(l, id) : NULL;

	if (it == NULL)
		tc_error_set(err, "no item %s in the ledger", id != NULL ? id :
		    "(none)");
	return it;
}

/* The item id when it is in the ledger and still open (its source_kind in
 * *kind unless kind is NULL); else NULL and err. */
static tc_json *
open_item(tc_json *l, const char *id, const char **kind, tc_error *err)
{
	tc_json *it = existing(l, id, err);
	const char *k, *cur;

	if (it == NULL)
		return NULL;
	k = tc_json_get_string(it, "source_kind");
	cur = tc_json_get_string(it, "status");
	if (tc_pypto_item_terminal(k, cur)) {
		tc_error_set(err, "item %s is already closed (%s); invalidated "
		    "evidence reopens the original id (items reopen)", id, cur);
		return NULL;
	}
	if (kind != NULL)
		*kind = k;
	return it;
}

int
tc_pypto_ledger_close(tc_json *l, const char *id, const char *status,
    const char *reason, const char *reason_code, const tc_json *evidence,
    const char *now, tc_error *err)
{
	tc_json *it, *ev;
	const char *kind;
	size_t i;

	if ((it = open_item(l, id, &kind, err)) == NULL)
		return -1;
	if (!tc_pypto_item_terminal(kind, status)) {
		tc_buf b = TC_BUF_INIT;

		join_list(&b, terminal_list(kind));
		tc_error_set(err, "%s is not a terminal status of a %s item "
		    "(terminal: %s)", status != NULL ? status : "(none)", kind,
		    tc_buf_cstr(&b));
		tc_buf_free(&b);
		return -1;
	}
	if (strcmp(status, "rejected") == 0) {
		if (reason == NULL || tc_js_is_blank(reason)) {
			tc_error_set(err, "rejected needs a concrete reason (--reason); "
			    "the code is restored or switched to the current best "
			    "version");
			return -1;
		}
	}
	if (reason_code != NULL &&
	    !tc_pypto__strv_has(reason_codes, reason_code)) {
		tc_error_set(err, "--reason-code must be one of quick_not_promoted, "
		    "control_faster, no_stable_gain");
		return -1;
	}
	if (evidence != NULL && !tc_json_is(evidence, TC_JSON_OBJECT)) {
		tc_error_set(err, "--evidence must be a JSON object");
		return -1;
	}
	if (order_allows_close(l, kind, err) != 0)
		return -1;
	tc_json_object_set_string(it, "status", status);
	if (reason != NULL)
		tc_json_object_set_string(it, "reason", reason);
	if (reason_code != NULL)
		tc_json_object_set_string(it, "reason_code", reason_code);
	ev = tc_json_get(it, "evidence");
	if (!tc_json_is(ev, TC_JSON_OBJECT)) {
		ev = tc_json_new_object();
		tc_json_object_set(it, "evidence", ev);
	}
	for (i = 0; evidence != NULL && i < evidence->u.obj.len; i++)
		tc_json_object_setn(ev, evidence->u.obj.members[i].key,
		    evidence->u.obj.members[i].key_len,
		    tc_json_clone(evidence->u.obj.members[i].value));
	add_event(it, tc_pypto__ledger_next_seq(l), "close", status, reason, now);
	tc_json_object_set_null(l, "final_sweep");
	return 0;
}

int
tc_pypto_ledger_park(tc_json *l, const char *id, const char *status,
    const char *reason, const char *now, tc_error *err)
{
	tc_json *it;

	if ((it = open_item(l, id, NULL, err)) == NULL)
		return -1;
	if (!tc_pypto__strv_has(nonterminal, status)) {
		tc_error_set(err, "park sets a non-terminal status: pending, "
		    "unknown, enabler or blocked");
		return -1;
	}
	if (reason == NULL || tc_js_is_blank(reason)) {
		tc_error_set(err, "parking item %s as %s needs a reason (for an "
		    "enabler: the designated combination)", id, status);
		return -1;
	}
	tc_json_object_set_string(it, "status", status);
	add_event(it, tc_pypto__ledger_next_seq(l), "park", status, reason, now);
	tc_json_object_set_null(l, "final_sweep");
	return 0;
}

int
tc_pypto_ledger_reopen(tc_json *l, const char *id, const char *reason,
    const char *now, tc_error *err)
{
	tc_json *it = existing(l, id, err);
	const char *kind, *cur;
	int64_t n = 0;

	if (it == NULL)
		return -1;
	kind = tc_json_get_string(it, "source_kind");
	cur = tc_json_get_string(it, "status");
	if (!tc_pypto_item_terminal(kind, cur) && strcmp(cur, "enabler") != 0) {
		tc_error_set(err, "item %s is open (%s); only a closed item is "
		    "reopened", id, cur);
		return -1;
	}
	if (reason == NULL || tc_js_is_blank(reason)) {
		tc_error_set(err, "reopening item %s needs the reason its evidence "
		    "was invalidated (implementation or precondition change)", id);
		return -1;
	}
	(void)tc_pj_int(tc_json_get(it, "reopen_count"), &n);
	tc_json_object_set_int(it, "reopen_count", n + 1);
	tc_json_object_set_string(it, "status", "pending");
	tc_json_object_remove(it, "reason_code");
	tc_json_object_remove(it, "reason");
	add_event(it, tc_pypto__ledger_next_seq(l), "reopen", "pending", reason, now);
	tc_json_object_set_null(l, "final_sweep");
	return 0;
}

int
tc_pypto_ledger_sweep(tc_json *l, const char *scope, const char *findings,
    const char *now, tc_error *err)
{
	const tc_json *items = items_of(l);
	tc_json *s;
	size_t i;

	if (presets_closed(l, err) != 0) {
		tc_error_prefix(err, "the final sweep needs every source closed: ");
		return -1;
	}
	for (i = 0; i < items->u.arr.len; i++) {
		const tc_json *it = items->u.arr.items[i];

		if (!tc_pypto_item_terminal(tc_json_get_string(it, "source_kind"),
		    tc_json_get_string(it, "status"))) {
			tc_error_set(err, "the final sweep needs every source closed: "
			    "item %s is %s", tc_json_get_string(it, "item_id"),
			    tc_json_get_string(it, "status"));
			return -1;
		}
	}
	if (scope == NULL || tc_js_is_blank(scope) || findings == NULL ||
	    tc_js_is_blank(findings)) {
		tc_error_set(err, "the final sweep records its scope and findings "
		    "(a new legal candidate is registered as bottleneck_derived "
		    "instead)");
		return -1;
	}
	s = tc_json_new_object();
	tc_json_object_set_string(s, "scope", scope);
	tc_json_object_set_string(s, "findings", findings);
	tc_json_object_set(s, "new_items", tc_json_new_array());
	tc_json_object_set_int(s, "recorded_seq", tc_pypto__ledger_next_seq(l));
	tc_json_object_set_string(s, "at", now);
	tc_json_object_set(l, "final_sweep", s);
	return 0;
}

/* ---- next ---------------------------------------------------------------------------- */

tc_json *
tc_pypto_ledger_next(const tc_json *l)
{
	tc_json *r = tc_json_new_object(), *open = tc_json_new_array();
	const tc_json *items = items_of(l), *src = tc_json_get(l, "sources");
	const tc_json *next = NULL, *enabler = NULL;
	tc_error tmp = TC_ERROR_INIT;
	bool allowed = presets_closed(l, &tmp) == 0;
	const char *phase = NULL;
	int k;
	size_t i;

	for (k = 0; k < 4 && phase == NULL; k++) {
		const tc_json *en = tc_json_get(tc_json_get(src,
		    tc_pypto_source_kinds[k]), "enumerated");

		if (!tc_json_is(en, TC_JSON_BOOL) || !en->u.b)
			phase = tc_pypto_source_kinds[k];
	}
	if (phase != NULL) {
		char *p = tc_xasprintf("enumerate:%s", phase);

		tc_json_object_set_string(r, "phase", p);
		free(p);
	}
	for (k = 0; k < 5; k++)
		for (i = 0; items != NULL && i < items->u.arr.len; i++) {
			const tc_json *it = items->u.arr.items[i];
			const char *ik = tc_json_get_string(it, "source_kind");
			const char *st = tc_json_get_string(it, "status");

			/* a hand-edited row without these is not work to do */
			if (ik == NULL || st == NULL ||
			    tc_json_get_string(it, "item_id") == NULL)
				continue;
			if (tc_pypto_item_kind_index(ik) != k || tc_pypto_item_terminal(ik, st))
				continue;
			tc_json_array_push(open, tc_json_new_string(
			    tc_json_get_string(it, "item_id")));
			if (strcmp(st, "enabler") == 0) {
				if (enabler == NULL)
					enabler = it;
			} else if (next == NULL) {
				next = it;
			}
		}
	if (next == NULL)
		next = enabler;
	if (phase == NULL) {
		if (next != NULL) {
			const char *nk = tc_json_get_string(next, "source_kind");
			char *p = tc_xasprintf("%s:%s", tc_pypto_item_kind_index(nk) < 4 ?
			    "preset" : "autonomous", nk);

			tc_json_object_set_string(r, "phase", p);
			free(p);
		} else if (!allowed) {
			tc_json_object_set_string(r, "phase", "register_presets");
		} else if (tc_json_is(tc_json_get(l, "final_sweep"),
		    TC_JSON_OBJECT)) {
			tc_json_object_set_string(r, "phase", "complete");
		} else {
			tc_json_object_set_string(r, "phase",
			    "autonomous_or_final_sweep");
		}
	}
	tc_json_object_set(r, "next", next != NULL ? tc_json_clone(next) :
	    tc_json_new_null());
	tc_json_object_set_bool(r, "bottleneck_derived_allowed", allowed);
	if (!allowed)
		tc_json_object_set_string(r, "bottleneck_derived_blocked_by",
		    tc_error_msg(&tmp));
	tc_json_object_set(r, "open_items", open);
	tc_json_object_set_bool(r, "complete", allowed && next == NULL &&
	    tc_json_is(tc_json_get(l, "final_sweep"), TC_JSON_OBJECT));
	tc_error_clear(&tmp);
	return r;
}
