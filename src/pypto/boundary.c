/*
 * boundary.c - the frozen-input guard and the updatable-only boundary of
 * Stage 5 (docs/spec/pypto.md "Stage 5 inputs and boundary"): the operator
 * directory compared with the snapshot taken at the Stage 5 entry.  A frozen
 * input (SPEC.md, both Goldens, KB_SELECTION.json, module_interfaces.yaml) that
 * changed or disappeared, or any change outside the updatable set, breaks the
 * frozen Stage 5 contract: tunectl kept only digests and cannot restore
 * the bytes, so the category is stage5_contract_blocked (the user
 * restores them and resumes).  As-built records that drop, downgrade or
 * rewrite a selected KB obligation are repairable in Stage 5
 * (design_violation, kb_usage_invalid).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pypto_internal.h"
#include "stage5_internal.h"
#include "tunectl/path.h"
#include "tunectl/pypto_stage5.h"

#define BLOCKED "stage5_contract_blocked"

static const char *
str_or(const char *s)
{
	return s != NULL ? s : "?";
}

static void
violation(tc_json *list, const char *path, const char *change,
    const char *category)
{
	tc_json *v = tc_json_new_object();

	tc_json_object_set_string(v, "path", path);
	tc_json_object_set_string(v, "change", change);
	tc_json_object_set_string(v, "category", category);
	tc_json_array_push(list, v);
}

static const tc_json *
find_by(const tc_json *arr, const char *key, const char *value)
{
	size_t i;

	for (i = 0; tc_json_is(arr, TC_JSON_ARRAY) && i < arr->u.arr.len; i++) {
		const char *s = tc_json_get_string(arr->u.arr.items[i], key);

		if (s != NULL && strcmp(s, value) == 0)
			return arr->u.arr.items[i];
	}
	return NULL;
}

static void
check_frozen(const char *op_dir, const tc_json *entry, tc_json *frozen,
    tc_json *viol)
{
	const tc_json *then = tc_json_get(entry, "frozen_inputs");
	tc_json *now = tc_pypto_frozen_inputs(op_dir);
	size_t i;

	for (i = 0; tc_json_is(then, TC_JSON_ARRAY) && i < then->u.arr.len;
	    i++) {
		const tc_json *f = then->u.arr.items[i];
		const char *name = tc_json_get_string(f, "name");
		const char *was = tc_json_get_string(f, "sha256");
		const tc_json *cur = name != NULL ? find_by(now, "name", name) :
		    NULL;
		const char *is = tc_json_get_string(cur, "sha256");
		tc_json *rec = tc_json_new_object();
		char *msg = NULL;

		if (name == NULL) {
			tc_json_free(rec);
			continue;
		}
		tc_json_object_set_string(rec, "name", name);
		tc_json_object_set(rec, "role", tc_pj_clone(tc_json_get(f,
		    "role")));
		if (was == NULL)
			msg = tc_xasprintf("frozen input %s was already missing at "
			    "the Stage 5 entry", name);
		else if (is == NULL)
			msg = tc_xasprintf("frozen input %s disappeared since the "
			    "Stage 5 entry (sha256 %s)", name, was);
		else if (strcmp(was, is) != 0)
			msg = tc_xasprintf("frozen input %s changed since the Stage 5 "
			    "entry (sha256 %s, now %s)", name, was, is);
		tc_json_object_set_string(rec, "status", msg == NULL ? "intact" :
		    "violated");
		tc_json_array_push(frozen, rec);
		if (msg != NULL)
			violation(viol, name, msg, BLOCKED);
		free(msg);
	}
	for (i = 0; i < now->u.arr.len; i++) {
		const char *name = tc_json_get_string(now->u.arr.items[i], "name");

		if (find_by(then, "name", name) == NULL &&
		    tc_json_get_string(now->u.arr.items[i], "sha256") != NULL) {
			char *msg = tc_xasprintf("frozen input %s appeared after the "
			    "Stage 5 entry", name);

			violation(viol, name, msg, BLOCKED);
			free(msg);
		}
	}
	tc_json_free(now);
}

static bool
same_entry(const tc_json *a, const tc_json *b)
{
	return tc_json_equal(tc_json_get(a, "type"), tc_json_get(b, "type")) &&
	    tc_json_equal(tc_json_get(a, "sha256"), tc_json_get(b, "sha256")) &&
	    tc_json_equal(tc_json_get(a, "target"), tc_json_get(b, "target"));
}

static void
check_files(const char *op_dir, const tc_json *entry, const tc_json *now,
    tc_json *viol)
{
	const char *op = tc_path_basename(op_dir);
	const tc_json *then = tc_json_get(entry, "files");
	const tc_json *frozen = tc_json_get(entry, "frozen_inputs");
	size_t i;

	for (i = 0; tc_json_is(then, TC_JSON_ARRAY) && i < then->u.arr.len;
	    i++) {
		const tc_json *f = then->u.arr.items[i];
		const char *p = tc_json_get_string(f, "path");
		const tc_json *cur;
		char *msg = NULL;

		if (p == NULL || tc_pypto_path_updatable(p, op) ||
		    tc_pypto_path_excluded(p) || find_by(frozen, "name", p))
			continue;
		cur = find_by(now, "path", p);
		if (cur == NULL)
			msg = tc_xasprintf("%s outside the updatable set was removed "
			    "in Stage 5", p);
		else if (!same_entry(f, cur))
			msg = tc_xasprintf("%s outside the updatable set was changed "
			    "in Stage 5 (sha256 %s, now %s)", p,
			    tc_json_get_string(f, "sha256") ?
			    tc_json_get_string(f, "sha256") : "-",
			    tc_json_get_string(cur, "sha256") ?
			    tc_json_get_string(cur, "sha256") : "-");
		if (msg != NULL)
			violation(viol, p, msg, BLOCKED);
		free(msg);
	}
	for (i = 0; i < now->u.arr.len; i++) {
		const char *p = tc_json_get_string(now->u.arr.items[i], "path");
		char *msg;

		if (p == NULL || tc_pypto_path_updatable(p, op) ||
		    find_by(then, "path", p) != NULL ||
		    find_by(frozen, "name", p) != NULL)
			continue;
		msg = tc_xasprintf("%s outside the updatable set appeared in "
		    "Stage 5 (only the final test, the performance deliverables "
		    "and the as-built DESIGN/DESIGN_BINDINGS/KB_USAGE may change)",
		    p);
		violation(viol, p, msg, BLOCKED);
		free(msg);
	}
}

static bool
same_key(const tc_json *a, const tc_json *b)
{
	static const char *const k[] = { "class_id", "selection_field",
	    "reference", "req_id", NULL };
	size_t i;

	for (i = 0; k[i] != NULL; i++)
		if (!tc_json_equal(tc_json_get(a, k[i]), tc_json_get(b, k[i])))
			return false;
	return true;
}

static void
check_obligations(const char *op_dir, const tc_json *entry, tc_json *report,
    tc_json *viol)
{
	const tc_json *then = tc_json_get(entry, "kb_obligations");
	const tc_json *usage = tc_json_get(entry, "kb_usage");
	tc_error err = TC_ERROR_INIT;
	tc_json *now = tc_pypto_kb_obligations(op_dir, &err);
	size_t i, k;

	if (tc_json_is(then, TC_JSON_ARRAY) && now == NULL) {
		char *msg = tc_xasprintf("the as-built DESIGN_BINDINGS.json can no "
		    "longer be read: %s", tc_error_msg(&err));

		violation(viol, "DESIGN_BINDINGS.json", msg, "design_violation");
		free(msg);
	}
	tc_error_clear(&err);
	for (i = 0; now != NULL && tc_json_is(then, TC_JSON_ARRAY) &&
	    i < then->u.arr.len; i++) {
		const tc_json *o = then->u.arr.items[i];
		const tc_json *cur = NULL;
		const char *st = tc_json_get_string(o, "status");
		char *msg = NULL;
		tc_buf key = TC_BUF_INIT;

		if (st == NULL || strcmp(st, "applies") != 0)
			continue;
		for (k = 0; k < now->u.arr.len && cur == NULL; k++)
			if (same_key(o, now->u.arr.items[k]))
				cur = now->u.arr.items[k];
		tc_buf_printf(&key, "(%s, %s, %s, %s)",
		    str_or(tc_json_get_string(o, "class_id")),
		    str_or(tc_json_get_string(o, "selection_field")),
		    str_or(tc_json_get_string(o, "reference")),
		    str_or(tc_json_get_string(o, "req_id")));
		if (cur == NULL)
			msg = tc_xasprintf("selected KB obligation %s was dropped "
			    "from DESIGN_BINDINGS.json", tc_buf_cstr(&key));
		else if (tc_json_get_string(cur, "status") == NULL ||
		    strcmp(tc_json_get_string(cur, "status"), "applies") != 0)
			msg = tc_xasprintf("selected KB obligation %s was downgraded "
			    "(applies -> %s)", tc_buf_cstr(&key),
			    str_or(tc_json_get_string(cur, "status")));
		else if (!tc_json_equal(tc_json_get(cur, "invariant"),
		    tc_json_get(o, "invariant")))
			msg = tc_xasprintf("selected KB obligation %s had its "
			    "invariant rewritten", tc_buf_cstr(&key));
		if (msg != NULL)
			violation(viol, "DESIGN_BINDINGS.json", msg,
			    "design_violation");
		free(msg);
		tc_buf_free(&key);
	}
	if (now != NULL)
		tc_json_object_set(report, "obligations", now);
	for (i = 0; tc_json_is(usage, TC_JSON_ARRAY) && i < usage->u.arr.len;
	    i++) {
		const tc_json *u = usage->u.arr.items[i];
		const char *file = tc_json_get_string(u, "file");
		char *p = file != NULL ? tc_path_join(op_dir, file) : NULL;
		tc_json *doc = p != NULL ? tc_json_parse_file(p, NULL) : NULL;
		const tc_json *inv = tc_json_get(doc, "invariants");
		bool kept = false;

		for (k = 0; tc_json_is(inv, TC_JSON_ARRAY) && k < inv->u.arr.len &&
		    !kept; k++)
			kept = tc_json_equal(tc_json_get(inv->u.arr.items[k],
			    "reference"), tc_json_get(u, "reference")) &&
			    tc_json_equal(tc_json_get(inv->u.arr.items[k],
			    "invariant"), tc_json_get(u, "invariant"));
		if (!kept) {
			char *msg = tc_xasprintf("%s: the usage invariant of %s was "
			    "dropped or rewritten", file != NULL ? file : "KB_USAGE",
			    str_or(tc_json_get_string(u, "reference")));

			violation(viol, file != NULL ? file : "KB_USAGE.json", msg,
			    "kb_usage_invalid");
			free(msg);
		}
		tc_json_free(doc);
		free(p);
	}
}

tc_json *
tc_pypto_boundary_check(const char *op_dir, const tc_json *entry,
    tc_error *err)
{
	tc_json *out, *frozen, *viol, *now;
	const char *category = NULL;
	size_t i;

	if ((now = tc_pypto_op_files(op_dir, err)) == NULL)
		return NULL;
	out = tc_json_new_object();
	frozen = tc_json_new_array();
	viol = tc_json_new_array();
	check_frozen(op_dir, entry, frozen, viol);
	check_files(op_dir, entry, now, viol);
	check_obligations(op_dir, entry, out, viol);
	for (i = 0; i < viol->u.arr.len; i++) {
		const char *c = tc_json_get_string(viol->u.arr.items[i],
		    "category");

		if (category == NULL || strcmp(c, BLOCKED) == 0)
			category = c;
	}
	tc_json_object_set(out, "frozen", frozen);
	if (category != NULL)
		tc_json_object_set_string(out, "category", category);
	else
		tc_json_object_set_null(out, "category");
	tc_json_object_set(out, "violations", viol);
	tc_json_object_set_int(out, "files_checked", (int64_t)now->u.arr.len);
	tc_json_free(now);
	return out;
}
