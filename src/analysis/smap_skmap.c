/*
 * smap_skmap.c - the sk-source-map of a source_scope_map_v2 bundle
 * (sk_source_map_v1) rebuilt from the inventories it was made from: the
 * calibration projection, the source manifest (and, for a stable_source
 * bundle, the calibration source manifest), the block instance
 * inventory, the original fused inventory and the unit assignments.
 * A fused SK group is an exact_cover of a source unit when the set of
 * calibration nodes its children project to equals the node set that
 * unit was assigned, every child assigned in the group's block and at
 * least three runtime steps validated (docs/analysis.md "Source scope
 * maps").  The rebuilt map must equal the bundle's; every refusal is the
 * reference's message (build_sk_source_map.py).
 *
 * Sets and maps are JSON objects keyed by node, unit or block id: their
 * members are kept sorted by key in code point order, which is Python's
 * sorted() order of the same strings.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis_internal.h"
#include "tunectl/buf.h"

/* the projection protocol versions build_sk_source_map accepts */
static const char *const proj_versions[][2] = {
	{ "graph_projection", "labeled-business-multigraph-v2" },
	{ "canonical_op", "canonical-op-v2" },
	{ "core_family", "canonical-core-family-v2" },
	{ "topology_filter", "topology-only-filter-v2" },
	{ "sentinel_exclusion", "scope-sentinel-exclusion-v2" },
	{ "node_label", "observable-node-label-v2" },
	{ "dependency_edge", "typed-business-edge-v2" },
	{ "isomorphism", "unique-labeled-stream-chain-isomorphism-v3" },
	{ "runtime_assignment", "per-step-node-partition-v1" },
	{ "fingerprint", "canonical-json-sha256-v1" },
};

tc_json *
tc_analysis__projection_versions(void)
{
	tc_json *v = tc_json_new_object();
	size_t i;

	for (i = 0; i < sizeof(proj_versions) / sizeof(proj_versions[0]); i++)
		tc_json_object_set_string(v, proj_versions[i][0],
		    proj_versions[i][1]);
	return v;
}

/* ---- small checks ------------------------------------------------------ */

#define text tc_analysis__smap_text
#define sha256 tc_analysis__smap_sha256
#define object tc_analysis__smap_object
#define list tc_analysis__smap_list
#define same tc_analysis__smap_same

/* require_integer(v, label) with minimum 0: an int, not a bool */
static bool
integer(const tc_json *v, const char *label, int64_t *out, tc_error *err)
{
	int64_t i = 0;

	if (v == NULL || v->type != TC_JSON_INT || !tc_json_int64(v, &i) ||
	    i < 0) {
		tc_error_set(err, "%s must be an integer >= 0", label);
		return false;
	}
	if (out != NULL)
		*out = i;
	return true;
}

/* require_scalar_id: an int, or a non-empty trimmed string */
static bool
scalar_id(const tc_json *v, const char *label, tc_error *err)
{
	if (v != NULL && v->type == TC_JSON_INT)
		return true;
	if (v != NULL && v->type == TC_JSON_STRING &&
	    tc_text_is_canonical(v->u.str.ptr, v->u.str.len))
		return true;
	tc_error_set(err, "%s must be a non-empty string or integer", label);
	return false;
}

/* v == "s" in Python: only a string equals a string */
static bool
str_is(const tc_json *v, const char *str)
{
	return v != NULL && v->type == TC_JSON_STRING &&
	    strcmp(v->u.str.ptr, str) == 0;
}

static bool
is_true(const tc_json *v)
{
	return v != NULL && v->type == TC_JSON_BOOL && v->u.b;
}

/* v == 0 in Python: 0, 0.0 and False */
static bool
is_zero(const tc_json *v)
{
	tc_json zero = { .type = TC_JSON_INT, .u.int_text = (char *)"0" };

	return v != NULL && tc_json_equal(v, &zero);
}

/* canonical_sha256 (UTF-8) of v */
static void
digest(const tc_json *v, char hex[65])
{
	if (tc_json_digest(v, hex, NULL) != 0)
		hex[0] = '\0';
}

static void
digest_text(const char *s, char hex[65])
{
	tc_json *v = tc_json_new_string(s);

	digest(v, hex);
	tc_json_free(v);
}

static void
set_add(tc_json *set, const char *key)
{
	if (tc_json_get(set, key) == NULL)
		tc_json_object_set_null(set, key);
}

static bool
has(const tc_json *obj, const char *key)
{
	return tc_json_get(obj, key) != NULL;
}

/* the keys of an object (a set), as a sorted JSON list */
static tc_json *
keys_list(const tc_json *set)
{
	tc_json *l = tc_json_new_array();
	size_t i;

	for (i = 0; i < set->u.obj.len; i++)
		tc_json_array_push(l, tc_json_new_string(
		    set->u.obj.members[i].key));
	return l;
}

/* _fingerprint_without: canonical_sha256 of a copy without key */
static bool
sealed_by(const tc_json *v, const char *key)
{
	tc_json *copy = tc_json_clone(v);
	const tc_json *want = tc_json_get(v, key);
	char hex[65];
	bool ok;

	tc_json_object_remove(copy, key);
	digest(copy, hex);
	tc_json_free(copy);
	ok = want != NULL && want->type == TC_JSON_STRING && hex[0] != '\0' &&
	    strcmp(want->u.str.ptr, hex) == 0;
	return ok;
}

/* Python's ordering of two JSON values as sorted() meets them in the
 * coordinates: numbers by value, strings by code point, lists element by
 * element (a prefix first); mixed types by type rank. */
static int
cmp_value(const tc_json *a, const tc_json *b)
{
	size_t i;

	if (a->type == TC_JSON_INT && b->type == TC_JSON_INT) {
		int64_t x = 0, y = 0;

		tc_json_int64(a, &x);
		tc_json_int64(b, &y);
		return x < y ? -1 : x > y;
	}
	if (a->type == TC_JSON_STRING && b->type == TC_JSON_STRING)
		return strcmp(a->u.str.ptr, b->u.str.ptr);
	if (a->type == TC_JSON_ARRAY && b->type == TC_JSON_ARRAY) {
		for (i = 0; i < a->u.arr.len && i < b->u.arr.len; i++) {
			int c = cmp_value(a->u.arr.items[i], b->u.arr.items[i]);

			if (c != 0)
				return c;
		}
		return a->u.arr.len < b->u.arr.len ? -1 :
		    a->u.arr.len > b->u.arr.len;
	}
	return (int)a->type - (int)b->type;
}

static int
cmp_json_ptr(const void *a, const void *b)
{
	return cmp_value(*(tc_json *const *)a, *(tc_json *const *)b);
}

static void
sort_list(tc_json *l)
{
	if (l->u.arr.len > 1)
		qsort(l->u.arr.items, l->u.arr.len, sizeof(*l->u.arr.items),
		    cmp_json_ptr);
}

/* ---- the inputs, read and checked in the reference's order ------------ */

struct skmap_in {
	const tc_json *proj, *smf, *cal;
	tc_json *units;		/* unit_id -> unit (borrowed clone) */
	tc_json *templates;	/* template id set */
	tc_json *instances;	/* block_instance_id -> instance */
	tc_json *corr;		/* original node -> calibration node */
	tc_json *coords;	/* calibration node -> original coordinate */
	tc_json *assigned;	/* calibration node -> [block, unit] */
	tc_json *block_order;	/* blocks in first-assignment order */
	tc_json *groups;	/* the normalized groups, in inventory order */
	const char *proj_fp, *smf_fp, *cal_fp;
};

static void
skmap_in_free(struct skmap_in *in)
{
	tc_json_free(in->units);
	tc_json_free(in->templates);
	tc_json_free(in->instances);
	tc_json_free(in->corr);
	tc_json_free(in->coords);
	tc_json_free(in->assigned);
	tc_json_free(in->block_order);
	tc_json_free(in->groups);
}

static int
check_projection(struct skmap_in *in, tc_error *err)
{
	const tc_json *p = object(in->proj, "calibration projection", err);
	tc_json *versions;
	bool ok;

	if (p == NULL)
		return -1;
	if (!str_is(tc_json_get(p, "protocol"),
	    "source_calibration_projection_v2")) {
		tc_error_set(err, "calibration projection protocol is "
		    "unsupported");
		return -1;
	}
	versions = tc_analysis__projection_versions();
	ok = same(tc_json_get(p, "protocol_versions"), versions);
	tc_json_free(versions);
	if (!ok) {
		tc_error_set(err, "calibration projection algorithm versions "
		    "are unsupported");
		return -1;
	}
	if (!is_zero(tc_json_get(p, "alternative_stream_assignment_count"))) {
		tc_error_set(err, "calibration projection stream assignment is "
		    "ambiguous");
		return -1;
	}
	if (!is_zero(tc_json_get(p, "alternative_node_correspondence_count"))) {
		tc_error_set(err, "calibration projection is ambiguous");
		return -1;
	}
	if (!is_zero(tc_json_get(p, "nontrivial_automorphism_count"))) {
		tc_error_set(err, "calibration projection has a nontrivial "
		    "automorphism");
		return -1;
	}
	if (!is_true(tc_json_get(p, "business_kernel_sequence_equal")) ||
	    !is_true(tc_json_get(p, "typed_business_edge_set_equal"))) {
		tc_error_set(err, "calibration projection does not preserve the "
		    "business graph");
		return -1;
	}
	if (!sealed_by(p, "projection_fingerprint")) {
		tc_error_set(err, "calibration projection fingerprint mismatch");
		return -1;
	}
	in->proj_fp = tc_json_get_string(p, "projection_fingerprint");
	return 0;
}

static int
check_manifests(struct skmap_in *in, tc_error *err)
{
	static const char *const fields[] = { "block_template_id",
	    "source_symbol", "source_file", "syntax_tree_hash" };
	const tc_json *units, *l;
	size_t i, k;

	if (object(in->smf, "source manifest", err) == NULL)
		return -1;
	if (!sealed_by(in->smf, "manifest_fingerprint")) {
		tc_error_set(err, "source manifest fingerprint mismatch");
		return -1;
	}
	in->smf_fp = tc_json_get_string(in->smf, "manifest_fingerprint");
	if ((units = list(tc_json_get(in->smf, "units"), "source units",
	    err)) == NULL)
		return -1;
	in->units = tc_json_new_object();
	for (i = 0; i < units->u.arr.len; i++) {
		const tc_json *u = units->u.arr.items[i];
		char *lab = tc_xasprintf("source units[%zu]", i);
		const char *id;

		if (object(u, lab, err) == NULL) {
			free(lab);
			return -1;
		}
		free(lab);
		lab = tc_xasprintf("source unit %zu.unit_id", i);
		id = text(tc_json_get(u, "unit_id"), lab, err);
		free(lab);
		if (id == NULL)
			return -1;
		if (has(in->units, id)) {
			tc_error_set(err, "duplicate source unit %s", id);
			return -1;
		}
		tc_json_object_set(in->units, id, tc_json_clone(u));
	}
	if (in->cal != NULL) {
		tc_json *cunits;

		if (object(in->cal, "calibration source manifest", err) == NULL)
			return -1;
		if (!sealed_by(in->cal, "manifest_fingerprint")) {
			tc_error_set(err, "calibration source manifest "
			    "fingerprint mismatch");
			return -1;
		}
		in->cal_fp = tc_json_get_string(in->cal,
		    "manifest_fingerprint");
		if (!str_is(tc_json_get(in->smf, "revision_role"),
		    "stable_source")) {
			tc_error_set(err, "calibration source manifest is only "
			    "valid with stable_source");
			return -1;
		}
		if (!str_is(tc_json_get(in->cal, "revision_role"), "calibration")) {
			tc_error_set(err, "calibration source manifest role is "
			    "invalid");
			return -1;
		}
		if ((l = list(tc_json_get(in->cal, "units"),
		    "calibration source units", err)) == NULL)
			return -1;
		cunits = tc_json_new_object();
		for (i = 0; i < l->u.arr.len; i++) {
			const tc_json *u = l->u.arr.items[i];
			const char *id = text(tc_json_get(u, "unit_id"),
			    "calibration source unit_id", err);

			if (id == NULL) {
				tc_json_free(cunits);
				return -1;
			}
			/* a later unit of the same id wins, as in a dict */
			tc_json_object_set(cunits, id, tc_json_clone(u));
		}
		for (i = 0; i < cunits->u.obj.len; i++)
			if (!has(in->units, cunits->u.obj.members[i].key))
				break;
		if (i < cunits->u.obj.len ||
		    cunits->u.obj.len != in->units->u.obj.len) {
			tc_json_free(cunits);
			tc_error_set(err, "stable and calibration source unit "
			    "sets differ");
			return -1;
		}
		for (i = 0; i < units->u.arr.len; i++) {
			const char *id = tc_json_get_string(
			    units->u.arr.items[i], "unit_id");
			const tc_json *s = tc_json_get(in->units, id);
			const tc_json *c = tc_json_get(cunits, id);

			/* in dict order: each id once, where it first came */
			if (tc_json_get(s, "unit_id") == NULL)
				continue;
			for (k = 0; k < 4; k++) {
				if (!same(tc_json_get(s, fields[k]),
				    tc_json_get(c, fields[k]))) {
					tc_error_set(err, "stable and "
					    "calibration source unit %s %s "
					    "differs", id, fields[k]);
					tc_json_free(cunits);
					return -1;
				}
			}
		}
		tc_json_free(cunits);
	}
	if ((l = list(tc_json_get(in->smf, "block_templates"),
	    "block templates", err)) == NULL)
		return -1;
	in->templates = tc_json_new_object();
	for (i = 0; i < l->u.arr.len; i++) {
		char *lab = tc_xasprintf("block templates[%zu]", i);
		const char *id = NULL;

		if (object(l->u.arr.items[i], lab, err) != NULL) {
			free(lab);
			lab = tc_xasprintf("block templates[%zu]."
			    "block_template_id", i);
			id = text(tc_json_get(l->u.arr.items[i],
			    "block_template_id"), lab, err);
		}
		free(lab);
		if (id == NULL)
			return -1;
		if (has(in->templates, id)) {
			tc_error_set(err, "duplicate block template %s", id);
			return -1;
		}
		set_add(in->templates, id);
	}
	return 0;
}

static int
check_blocks(struct skmap_in *in, const tc_json *inv, tc_error *err)
{
	const tc_json *adapter, *l;
	tc_json want;
	size_t i;

	if (object(inv, "block inventory", err) == NULL)
		return -1;
	want = (tc_json){ .type = TC_JSON_STRING };
	want.u.str.ptr = (char *)(in->cal_fp != NULL ? in->cal_fp : in->smf_fp);
	want.u.str.len = strlen(want.u.str.ptr);
	if (!same(tc_json_get(inv, "source_manifest_fingerprint"), &want)) {
		tc_error_set(err, "block inventory source manifest fingerprint "
		    "mismatch");
		return -1;
	}
	if ((adapter = object(tc_json_get(in->smf, "model_adapter"),
	    "source model adapter", err)) == NULL)
		return -1;
	if (!same(tc_json_get(inv, "model_adapter_fingerprint"),
	    tc_json_get(adapter, "fingerprint"))) {
		tc_error_set(err, "block inventory model adapter fingerprint "
		    "mismatch");
		return -1;
	}
	if ((l = list(tc_json_get(inv, "instances"), "block instances",
	    err)) == NULL)
		return -1;
	in->instances = tc_json_new_object();
	for (i = 0; i < l->u.arr.len; i++) {
		const tc_json *b = l->u.arr.items[i], *bind;
		const char *id, *tpl;
		char *lab = tc_xasprintf("block instances[%zu]", i);
		char *lid = tc_xasprintf("%s.block_instance_id", lab);
		char *ltp = tc_xasprintf("%s.block_template_id", lab);
		char *lbd = tc_xasprintf("%s.runtime_scope_binding", lab);
		int rc = -1;

		if (object(b, lab, err) == NULL ||
		    (id = text(tc_json_get(b, "block_instance_id"), lid,
		    err)) == NULL)
			goto next;
		if (has(in->instances, id)) {
			tc_error_set(err, "duplicate block instance %s", id);
			goto next;
		}
		if ((tpl = text(tc_json_get(b, "block_template_id"), ltp,
		    err)) == NULL)
			goto next;
		if (!has(in->templates, tpl)) {
			tc_error_set(err, "block instance %s references an "
			    "unknown template", id);
			goto next;
		}
		if ((bind = object(tc_json_get(b, "runtime_scope_binding"),
		    lbd, err)) == NULL)
			goto next;
		if (!str_is(tc_json_get(bind, "method"),
		    "exact_scope_name")) {
			tc_error_set(err, "block instance %s uses an "
			    "unsupported scope binding", id);
			goto next;
		}
		free(lbd);
		lbd = tc_xasprintf("block instance %s scope binding", id);
		if (text(tc_json_get(bind, "value"), lbd, err) == NULL)
			goto next;
		free(lbd);
		lbd = tc_xasprintf("block instance %s control_flow_path", id);
		if (text(tc_json_get(b, "control_flow_path"), lbd, err) ==
		    NULL)
			goto next;
		tc_json_object_set(in->instances, id, tc_json_clone(b));
		rc = 0;
next:
		free(lab);
		free(lid);
		free(ltp);
		free(lbd);
		if (rc != 0)
			return -1;
	}
	return 0;
}

static int
check_occurrences(struct skmap_in *in, tc_error *err)
{
	const tc_json *l = list(tc_json_get(in->proj, "occurrences"),
	    "projection occurrences", err);
	size_t i;

	if (l == NULL)
		return -1;
	in->corr = tc_json_new_object();
	in->coords = tc_json_new_object();
	for (i = 0; i < l->u.arr.len; i++) {
		const tc_json *o = l->u.arr.items[i], *c;
		char *lab = tc_xasprintf("projection occurrences[%zu]", i);
		char *lo = tc_xasprintf("%s.original_node_key", lab);
		char *lc = tc_xasprintf("%s.calibration_node_key", lab);
		const char *orig = NULL, *cal = NULL;

		if (object(o, lab, err) != NULL &&
		    (orig = text(tc_json_get(o, "original_node_key"), lo,
		    err)) != NULL)
			cal = text(tc_json_get(o, "calibration_node_key"), lc,
			    err);
		free(lab);
		free(lo);
		free(lc);
		if (cal == NULL)
			return -1;
		if (has(in->corr, orig) || has(in->coords, cal)) {
			tc_error_set(err, "projection correspondence is not "
			    "bijective");
			return -1;
		}
		/* a coordinate is [stream_role, stream_ordinal, op, core];
		 * the reference unpacks it without a check (a traceback) */
		c = tc_json_get(o, "original");
		if (c == NULL || c->type != TC_JSON_ARRAY || c->u.arr.len != 4 ||
		    c->u.arr.items[0]->type != TC_JSON_STRING ||
		    c->u.arr.items[1]->type != TC_JSON_INT ||
		    c->u.arr.items[2]->type != TC_JSON_STRING ||
		    c->u.arr.items[3]->type != TC_JSON_STRING) {
			tc_error_set(err, "projection occurrences[%zu].original "
			    "must be [stream_role, stream_ordinal, "
			    "canonical_op, core_family]", i);
			return -1;
		}
		tc_json_object_set_string(in->corr, orig, cal);
		tc_json_object_set(in->coords, cal, tc_json_clone(c));
	}
	return 0;
}

/* each evidence record names its artifact and record and carries the
 * record's fingerprint; what: "assignment" or "fused" */
static int
check_evidence(const tc_json *item, const char *label, const char *what,
    tc_error *err)
{
	char *lab = tc_xasprintf("%s.evidence_records", label);
	const tc_json *l = list(tc_json_get(item, "evidence_records"), lab,
	    err);
	size_t i;

	free(lab);
	if (l == NULL)
		return -1;
	if (l->u.arr.len == 0) {
		tc_error_set(err, "%s requires normalized log evidence", label);
		return -1;
	}
	for (i = 0; i < l->u.arr.len; i++) {
		const tc_json *e = l->u.arr.items[i];
		char *la = tc_xasprintf("%s evidence artifact_id", what);
		char *lr = tc_xasprintf("%s evidence record_id", what);
		char *lf = tc_xasprintf("%s evidence record_fingerprint", what);
		bool ok;

		lab = tc_xasprintf("%s.evidence_records[%zu]", label, i);
		ok = object(e, lab, err) != NULL &&
		    text(tc_json_get(e, "artifact_id"), la, err) != NULL &&
		    text(tc_json_get(e, "record_id"), lr, err) != NULL &&
		    sha256(tc_json_get(e, "record_fingerprint"), lf, err) !=
		    NULL;
		free(lab);
		free(la);
		free(lr);
		free(lf);
		if (!ok)
			return -1;
	}
	return 0;
}

static int
check_assignments(struct skmap_in *in, const tc_json *ua, tc_error *err)
{
	const tc_json *l;
	tc_json *paths;
	size_t i;
	int rc = -1;

	if (object(ua, "unit assignments", err) == NULL)
		return -1;
	if (!str_is(tc_json_get(ua, "protocol"),
	    "calibration_unit_assignments_v1")) {
		tc_error_set(err, "unit assignments protocol is unsupported");
		return -1;
	}
	if ((l = list(tc_json_get(ua, "assignments"), "assignments", err)) ==
	    NULL)
		return -1;
	in->assigned = tc_json_new_object();
	in->block_order = tc_json_new_array();
	paths = tc_json_new_object();
	for (i = 0; i < l->u.arr.len; i++) {
		const tc_json *a = l->u.arr.items[i], *inst, *unit;
		char *lab = tc_xasprintf("assignments[%zu]", i);
		char *ln = tc_xasprintf("%s.calibration_node_key", lab);
		char *lb = tc_xasprintf("%s.block_instance_id", lab);
		char *lu = tc_xasprintf("%s.unit_id", lab);
		char *lp = tc_xasprintf("%s.control_flow_path", lab);
		const char *node, *block, *uid, *path, *prev;
		tc_json *pair;
		bool ok = false;

		if (object(a, lab, err) == NULL ||
		    check_evidence(a, lab, "assignment", err) != 0 ||
		    (node = text(tc_json_get(a, "calibration_node_key"), ln,
		    err)) == NULL ||
		    (block = text(tc_json_get(a, "block_instance_id"), lb,
		    err)) == NULL ||
		    (uid = text(tc_json_get(a, "unit_id"), lu, err)) == NULL)
			goto next;
		if (has(in->assigned, node) || !has(in->coords, node)) {
			tc_error_set(err, "assignment node %s is duplicate or "
			    "not projected", node);
			goto next;
		}
		inst = tc_json_get(in->instances, block);
		unit = tc_json_get(in->units, uid);
		if (inst == NULL || unit == NULL) {
			tc_error_set(err, "assignment %s references an unknown "
			    "block or unit", node);
			goto next;
		}
		if (!same(tc_json_get(unit, "block_template_id"),
		    tc_json_get(inst, "block_template_id"))) {
			tc_error_set(err, "assignment %s crosses block "
			    "templates", node);
			goto next;
		}
		pair = tc_json_new_array();
		tc_json_array_push(pair, tc_json_new_string(block));
		tc_json_array_push(pair, tc_json_new_string(uid));
		tc_json_object_set(in->assigned, node, pair);
		if (!tc_analysis__list_has(in->block_order, block))
			tc_json_array_push(in->block_order,
			    tc_json_new_string(block));
		if ((path = text(tc_json_get(a, "control_flow_path"), lp,
		    err)) == NULL)
			goto next;
		if (!same(tc_json_get(a, "control_flow_path"),
		    tc_json_get(inst, "control_flow_path"))) {
			tc_error_set(err, "assignment %s control-flow path "
			    "mismatch", node);
			goto next;
		}
		prev = tc_json_get_string(paths, block);
		if (prev == NULL)
			tc_json_object_set_string(paths, block, path);
		else if (strcmp(prev, path) != 0) {
			tc_error_set(err, "block %s has conflicting "
			    "control-flow paths", block);
			goto next;
		}
		ok = true;
next:
		free(lab);
		free(ln);
		free(lb);
		free(lu);
		free(lp);
		if (!ok)
			goto done;
	}
	rc = 0;
done:
	tc_json_free(paths);
	return rc;
}

/* _validated_steps_for_targets: the projection's validated steps, plus
 * each runtime step that passed or whose complete partition assigns every
 * target exactly; a sorted list of ints */
static tc_json *
validated_steps(const tc_json *proj, const tc_json *targets, tc_error *err)
{
	tc_json *steps = tc_json_new_array(), *out;
	const tc_json *v = tc_json_get(proj, "validated_step_ids");
	const tc_json *rv = tc_json_get(proj, "runtime_validation");
	size_t i, k;

	if (v != NULL && v->type == TC_JSON_ARRAY)
		for (i = 0; i < v->u.arr.len; i++)
			tc_json_array_push(steps, tc_json_clone(
			    v->u.arr.items[i]));
	for (i = 0; rv != NULL && rv->type == TC_JSON_ARRAY &&
	    i < rv->u.arr.len; i++) {
		static const char *const parts[3][2] = {
			{ "exact_assigned_calibration_node_keys",
			    "runtime exact assigned calibration nodes" },
			{ "skipped_calibration_node_keys",
			    "runtime skipped calibration nodes" },
			{ "conflicting_calibration_node_keys",
			    "runtime conflicting calibration nodes" } };
		const tc_json *item = rv->u.arr.items[i], *pl[3];
		bool take = true;

		if (object(item, "projection runtime validation", err) == NULL)
			goto fail;
		if (!is_true(tc_json_get(item, "passed"))) {
			if (!is_true(tc_json_get(item,
			    "assignment_partition_complete")))
				continue;
			for (k = 0; k < 3; k++)
				if ((pl[k] = list(tc_json_get(item,
				    parts[k][0]), parts[k][1], err)) == NULL)
					goto fail;
			for (k = 0; k < targets->u.obj.len && take; k++) {
				const char *t = targets->u.obj.members[k].key;
				size_t j, m;

				take = false;
				for (j = 0; j < pl[0]->u.arr.len; j++)
					if (tc_json_string(pl[0]->u.arr.items[j])
					    != NULL && strcmp(tc_json_string(
					    pl[0]->u.arr.items[j]), t) == 0)
						take = true;
				for (m = 1; m < 3 && take; m++)
					for (j = 0; j < pl[m]->u.arr.len; j++)
						if (tc_json_string(
						    pl[m]->u.arr.items[j]) !=
						    NULL && strcmp(
						    tc_json_string(
						    pl[m]->u.arr.items[j]),
						    t) == 0)
							take = false;
			}
			if (!take)
				continue;
		}
		if (!integer(tc_json_get(item, "step_id"), "runtime step_id",
		    NULL, err))
			goto fail;
		tc_json_array_push(steps, tc_json_clone(tc_json_get(item,
		    "step_id")));
	}
	sort_list(steps);
	out = tc_json_new_array();
	for (i = 0; i < steps->u.arr.len; i++)
		if (i == 0 || !tc_json_equal(steps->u.arr.items[i],
		    steps->u.arr.items[i - 1]))
			tc_json_array_push(out, tc_json_clone(
			    steps->u.arr.items[i]));
	tc_json_free(steps);
	return out;
fail:
	tc_json_free(steps);
	return NULL;
}

/* One normalized group: {raw (borrowed index), block, children (list),
 * cal (set), missing, cross, steps, complete, ordinal}. */
static int
check_groups(struct skmap_in *in, const tc_json *fused, tc_error *err)
{
	const tc_json *l;
	size_t i, k;

	if (object(fused, "original fused inventory", err) == NULL)
		return -1;
	if (!str_is(tc_json_get(fused, "protocol"),
	    "original_fused_inventory_v1")) {
		tc_error_set(err, "original fused inventory protocol is "
		    "unsupported");
		return -1;
	}
	if ((l = list(tc_json_get(fused, "sk_groups"), "sk_groups", err)) ==
	    NULL)
		return -1;
	in->groups = tc_json_new_array();
	for (i = 0; i < l->u.arr.len; i++) {
		const tc_json *g = l->u.arr.items[i], *ch, *inst;
		char *lab = tc_xasprintf("sk_groups[%zu]", i);
		char *lb = tc_xasprintf("%s.block_instance_id", lab);
		char *lc = tc_xasprintf("%s.original_child_node_keys", lab);
		char *lo = tc_xasprintf("%s.block_local_sk_ordinal", lab);
		tc_json *n = NULL, *cal, *missing, *cross, *ops, *steps;
		const char *block;
		bool ok = false, complete;
		int64_t ord;

		if (object(g, lab, err) == NULL ||
		    check_evidence(g, lab, "fused", err) != 0 ||
		    (block = text(tc_json_get(g, "block_instance_id"), lb,
		    err)) == NULL ||
		    (ch = list(tc_json_get(g, "original_child_node_keys"), lc,
		    err)) == NULL)
			goto next;
		for (k = 0; k < ch->u.arr.len; k++)
			if (text(ch->u.arr.items[k], lc, err) == NULL)
				goto next;
		cal = tc_json_new_object();
		n = tc_json_new_object();
		tc_json_object_set(n, "cal", cal);
		{
			tc_json *seen = tc_json_new_object();
			bool bad = ch->u.arr.len == 0;

			for (k = 0; k < ch->u.arr.len && !bad; k++) {
				const char *c = ch->u.arr.items[k]->u.str.ptr;

				bad = has(seen, c) || !has(in->corr, c);
				set_add(seen, c);
			}
			tc_json_free(seen);
			if (bad) {
				tc_error_set(err, "%s child occurrence set is "
				    "invalid", lab);
				goto next;
			}
		}
		if ((inst = tc_json_get(in->instances, block)) == NULL) {
			tc_error_set(err, "%s references an unknown block "
			    "instance", lab);
			goto next;
		}
		if (!same(tc_json_get(g, "source_scope"), tc_json_get(
		    tc_json_get(inst, "runtime_scope_binding"), "value"))) {
			tc_error_set(err, "%s source scope binding mismatch",
			    lab);
			goto next;
		}
		for (k = 0; k < ch->u.arr.len; k++)
			set_add(cal, tc_json_get_string(in->corr,
			    ch->u.arr.items[k]->u.str.ptr));
		missing = tc_json_new_array();
		cross = tc_json_new_array();
		for (k = 0; k < cal->u.obj.len; k++) {
			const char *c = cal->u.obj.members[k].key;
			const tc_json *a = tc_json_get(in->assigned, c);

			if (a == NULL)
				tc_json_array_push(missing,
				    tc_json_new_string(c));
			else if (strcmp(tc_json_string(a->u.arr.items[0]),
			    block) != 0)
				tc_json_array_push(cross, tc_json_new_string(c));
		}
		tc_json_object_set(n, "missing", missing);
		tc_json_object_set(n, "cross", cross);
		if ((steps = validated_steps(in->proj, cal, err)) == NULL)
			goto next;
		tc_json_object_set(n, "steps", steps);
		complete = missing->u.arr.len == 0 && cross->u.arr.len == 0 &&
		    steps->u.arr.len >= 3;
		tc_json_object_set_bool(n, "complete", complete);
		ops = tc_json_new_array();
		for (k = 0; k < ch->u.arr.len; k++)
			tc_json_array_push(ops, tc_json_clone(tc_json_get(
			    in->coords, tc_json_get_string(in->corr,
			    ch->u.arr.items[k]->u.str.ptr))->u.arr.items[2]));
		if (!same(tc_json_get(g, "ordered_child_ops"), ops)) {
			tc_json_free(ops);
			tc_error_set(err, "%s child operator sequence mismatch",
			    lab);
			goto next;
		}
		tc_json_free(ops);
		if (!integer(tc_json_get(g, "block_local_sk_ordinal"), lo, &ord,
		    err))
			goto next;
		tc_json_object_set_int(n, "ordinal", ord);
		tc_json_object_set_int(n, "index", (int64_t)i);
		tc_json_object_set_string(n, "block", block);
		ok = true;
next:
		free(lab);
		free(lb);
		free(lc);
		free(lo);
		if (!ok) {
			tc_json_free(n);
			return -1;
		}
		tc_json_array_push(in->groups, n);
	}
	return 0;
}

/* ---- structural families ------------------------------------------------ */

struct snode {
	const char *key;
	const tc_json *coord;	/* [role, ordinal, op, core] */
};

static int
cmp_snode(const void *a, const void *b)
{
	const struct snode *x = a, *y = b;
	int c = strcmp(tc_json_string(x->coord->u.arr.items[0]),
	    tc_json_string(y->coord->u.arr.items[0]));

	if (c == 0)
		c = cmp_value(x->coord->u.arr.items[1],
		    y->coord->u.arr.items[1]);
	if (c == 0)
		c = strcmp(x->key, y->key);
	return c;
}

/* the stream's (op, core) signature compared as Python tuples */
struct stream {
	const char *role;
	struct snode *nodes;
	size_t n;
};

static int
cmp_signature(const struct stream *a, const struct stream *b)
{
	size_t i;

	for (i = 0; i < a->n && i < b->n; i++) {
		int c = cmp_value(a->nodes[i].coord->u.arr.items[2],
		    b->nodes[i].coord->u.arr.items[2]);

		if (c == 0)
			c = cmp_value(a->nodes[i].coord->u.arr.items[3],
			    b->nodes[i].coord->u.arr.items[3]);
		if (c != 0)
			return c;
	}
	return a->n < b->n ? -1 : a->n > b->n;
}

static int
cmp_stream(const void *a, const void *b)
{
	const struct stream *x = a, *y = b;
	int c = cmp_signature(x, y);

	return c != 0 ? c : strcmp(x->role, y->role);
}

/* block-local coordinates of a block's assigned nodes (node -> coord),
 * and whether two of its streams have the same signature */
static tc_json *
local_coords(const struct skmap_in *in, const char *block, bool *ambiguous)
{
	tc_json *local = tc_json_new_object();
	struct snode *nodes;
	struct stream *streams;
	size_t n = 0, ns = 0, i, j;

	nodes = tc_xcalloc(in->assigned->u.obj.len + 1, sizeof(*nodes));
	streams = tc_xcalloc(in->assigned->u.obj.len + 1, sizeof(*streams));
	for (i = 0; i < in->assigned->u.obj.len; i++) {
		const tc_json *a = in->assigned->u.obj.members[i].value;

		if (strcmp(tc_json_string(a->u.arr.items[0]), block) != 0)
			continue;
		nodes[n].key = in->assigned->u.obj.members[i].key;
		nodes[n].coord = tc_json_get(in->coords, nodes[n].key);
		n++;
	}
	qsort(nodes, n, sizeof(*nodes), cmp_snode);
	for (i = 0; i < n; i = j) {
		const char *role = tc_json_string(nodes[i].coord->u.arr.items[0]);

		for (j = i; j < n && strcmp(tc_json_string(
		    nodes[j].coord->u.arr.items[0]), role) == 0; j++)
			;
		streams[ns].role = role;
		streams[ns].nodes = nodes + i;
		streams[ns].n = j - i;
		ns++;
	}
	qsort(streams, ns, sizeof(*streams), cmp_stream);
	*ambiguous = false;
	for (i = 0; i < ns; i++) {
		if (i > 0 && cmp_signature(&streams[i - 1], &streams[i]) == 0)
			*ambiguous = true;
		for (j = 0; j < streams[i].n; j++) {
			const tc_json *c = streams[i].nodes[j].coord;
			tc_json *lc = tc_json_new_array();
			char *r = tc_xasprintf("block-stream-role-%zu", i);

			tc_json_array_push(lc, tc_json_new_string(r));
			free(r);
			tc_json_array_push(lc, tc_json_new_int((int64_t)j));
			tc_json_array_push(lc, tc_json_clone(c->u.arr.items[2]));
			tc_json_array_push(lc, tc_json_clone(c->u.arr.items[3]));
			tc_json_object_set(local, streams[i].nodes[j].key, lc);
		}
	}
	free(nodes);
	free(streams);
	return local;
}

static int
cmp_group_ordinal(const void *a, const void *b)
{
	int64_t x = 0, y = 0;

	tc_json_int64(tc_json_get(*(tc_json *const *)a,
	    "block_local_sk_ordinal"), &x);
	tc_json_int64(tc_json_get(*(tc_json *const *)b,
	    "block_local_sk_ordinal"), &y);
	return x < y ? -1 : x > y;
}

/* block -> structural family, for every block with assigned nodes */
static tc_json *
families(const struct skmap_in *in, tc_error *err)
{
	tc_json *fam = tc_json_new_object();
	size_t b, i, k;

	for (b = 0; b < in->block_order->u.arr.len; b++) {
		const char *block = tc_json_string(
		    in->block_order->u.arr.items[b]);
		bool ambiguous;
		tc_json *local = local_coords(in, block, &ambiguous);
		tc_json *seed = tc_json_new_object(), *occ, *groups, *ords;
		char hex[65], bhex[65];
		char *f;

		occ = tc_json_new_array();
		for (i = 0; i < local->u.obj.len; i++)
			tc_json_array_push(occ, tc_json_clone(
			    local->u.obj.members[i].value));
		sort_list(occ);
		tc_json_object_set(seed, "business_occurrences", occ);
		groups = tc_json_new_array();
		ords = tc_json_new_object();
		for (i = 0; i < in->groups->u.arr.len; i++) {
			const tc_json *g = in->groups->u.arr.items[i];
			const tc_json *cal = tc_json_get(g, "cal");
			tc_json *item, *co;
			char key[32];
			bool inside = true;

			if (strcmp(tc_json_get_string(g, "block"), block) != 0)
				continue;
			snprintf(key, sizeof(key), "%s", tc_json_get(g,
			    "ordinal")->u.int_text);
			if (has(ords, key)) {
				tc_error_set(err, "block %s has duplicate "
				    "block-local SK ordinals", block);
				tc_json_free(ords);
				tc_json_free(groups);
				tc_json_free(seed);
				tc_json_free(local);
				tc_json_free(fam);
				return NULL;
			}
			set_add(ords, key);
			for (k = 0; k < cal->u.obj.len && inside; k++)
				inside = has(local, cal->u.obj.members[k].key);
			if (!inside)
				continue;
			co = tc_json_new_array();
			for (k = 0; k < cal->u.obj.len; k++)
				tc_json_array_push(co, tc_json_clone(tc_json_get(
				    local, cal->u.obj.members[k].key)));
			sort_list(co);
			item = tc_json_new_object();
			tc_json_object_set(item, "block_local_sk_ordinal",
			    tc_json_clone(tc_json_get(g, "ordinal")));
			tc_json_object_set(item, "child_occurrences", co);
			tc_json_array_push(groups, item);
		}
		tc_json_free(ords);
		if (groups->u.arr.len > 1)
			qsort(groups->u.arr.items, groups->u.arr.len,
			    sizeof(*groups->u.arr.items), cmp_group_ordinal);
		tc_json_object_set(seed, "sk_groups", groups);
		digest(seed, hex);
		digest_text(block, bhex);
		f = ambiguous ? tc_xasprintf("family-instance-only:%s:%s", hex,
		    bhex) : tc_xasprintf("family:%s", hex);
		tc_json_object_set_string(fam, block, f);
		free(f);
		tc_json_free(seed);
		tc_json_free(local);
	}
	return fam;
}

/* ---- the mappings --------------------------------------------------------- */

/* the units of block whose assigned nodes meet cal (sorted); *exact
 * gets the one unit whose node set equals cal, when exactly one does */
static tc_json *
unit_relation(const struct skmap_in *in, const char *block, const tc_json *cal,
    tc_json **exact)
{
	tc_json *nodes_by_unit = tc_json_new_object(), *meet;
	size_t i, k, nexact = 0;

	for (i = 0; i < in->assigned->u.obj.len; i++) {
		const tc_json *a = in->assigned->u.obj.members[i].value;
		const char *u = tc_json_string(a->u.arr.items[1]);

		if (strcmp(tc_json_string(a->u.arr.items[0]), block) != 0)
			continue;
		if (tc_json_get(nodes_by_unit, u) == NULL)
			tc_json_object_set(nodes_by_unit, u,
			    tc_json_new_object());
		set_add(tc_json_get(nodes_by_unit, u),
		    in->assigned->u.obj.members[i].key);
	}
	meet = tc_json_new_array();
	*exact = NULL;
	for (i = 0; i < nodes_by_unit->u.obj.len; i++) {
		const tc_json *s = nodes_by_unit->u.obj.members[i].value;
		const char *u = nodes_by_unit->u.obj.members[i].key;
		size_t common = 0;

		for (k = 0; k < s->u.obj.len; k++)
			if (has(cal, s->u.obj.members[k].key))
				common++;
		if (common == 0)
			continue;
		tc_json_array_push(meet, tc_json_new_string(u));
		if (common == s->u.obj.len && common == cal->u.obj.len) {
			tc_json_free(*exact);
			*exact = tc_json_new_string(u);
			nexact++;
		}
	}
	if (nexact != 1) {
		tc_json_free(*exact);
		*exact = NULL;
	}
	tc_json_free(nodes_by_unit);
	return meet;
}

static tc_json *
one_mapping(const struct skmap_in *in, const tc_json *g, const tc_json *raw,
    const tc_json *fam, tc_json **ckey, tc_error *err)
{
	static const char *const ivf[] = { "source_file", "start_offset",
	    "end_offset", "syntax_tree_hash" };
	const char *block = tc_json_get_string(g, "block");
	const tc_json *cal = tc_json_get(g, "cal");
	const tc_json *children = tc_json_get(raw, "original_child_node_keys");
	bool complete = is_true(tc_json_get(g, "complete"));
	tc_json *m, *covered = tc_json_new_array(), *blockers, *cons, *iv, *occ;
	const char *relation = "unmapped", *confidence = "diagnostic_only";
	const char *family;
	char *unmapped = NULL, hex[65];
	size_t i, k;

	if (complete) {
		tc_json *exact;
		tc_json *meet = unit_relation(in, block, cal, &exact);

		if (exact != NULL) {
			relation = "exact_cover";
			confidence = "source_unit_exact";
			tc_json_array_push(covered, exact);
			tc_json_free(meet);
		} else if (meet->u.arr.len > 0) {
			relation = "partial_intersection";
			tc_json_free(covered);
			covered = meet;
		} else {
			tc_json_free(meet);
		}
	}
	if ((family = tc_json_get_string(fam, block)) == NULL) {
		digest_text(block, hex);
		unmapped = tc_xasprintf("family-unmapped:%s", hex);
		family = unmapped;
	}
	*ckey = tc_json_new_array();
	tc_json_array_push(*ckey, tc_json_new_string(family));
	tc_json_array_push(*ckey, tc_json_clone(tc_json_get(g, "ordinal")));
	digest(tc_json_get(raw, "ordered_child_ops"), hex);
	tc_json_array_push(*ckey, tc_json_new_string(hex));

	m = tc_json_new_object();
	if (!integer(tc_json_get(raw, "device_id"), "sk group device_id", NULL,
	    err) || !scalar_id(tc_json_get(raw, "model_id"),
	    "sk group model_id", err) ||
	    text(tc_json_get(raw, "source_scope"), "sk group source_scope",
	    err) == NULL ||
	    text(tc_json_get(raw, "candidate_source_scope"),
	    "sk group candidate_source_scope", err) == NULL ||
	    sha256(tc_json_get(raw, "sk_occurrence_fingerprint"),
	    "sk group occurrence fingerprint", err) == NULL ||
	    sha256(tc_json_get(raw, "baseline_projection_fingerprint"),
	    "baseline projection fingerprint", err) == NULL) {
		free(unmapped);
		tc_json_free(covered);
		tc_json_free(m);
		tc_json_free(*ckey);
		*ckey = NULL;
		return NULL;
	}
	tc_json_object_set(m, "device_id", tc_json_clone(tc_json_get(raw,
	    "device_id")));
	tc_json_object_set(m, "model_id", tc_json_clone(tc_json_get(raw,
	    "model_id")));
	tc_json_object_set_string(m, "block_instance_id", block);
	tc_json_object_set(m, "source_scope", tc_json_clone(tc_json_get(raw,
	    "source_scope")));
	tc_json_object_set(m, "candidate_source_scope", tc_json_clone(
	    tc_json_get(raw, "candidate_source_scope")));
	tc_json_object_set(m, "sk_occurrence_fingerprint", tc_json_clone(
	    tc_json_get(raw, "sk_occurrence_fingerprint")));
	tc_json_object_set(m, "baseline_projection_fingerprint", tc_json_clone(
	    tc_json_get(raw, "baseline_projection_fingerprint")));
	tc_json_object_set_string(m, "structural_family", family);
	free(unmapped);
	tc_json_object_set(m, "block_local_sk_ordinal", tc_json_clone(
	    tc_json_get(g, "ordinal")));
	tc_json_object_set(m, "original_child_node_keys", tc_json_clone(
	    children));
	occ = tc_json_new_array();
	for (i = 0; i < children->u.arr.len; i++)
		tc_json_array_push(occ, tc_json_clone(tc_json_get(in->coords,
		    tc_json_get_string(in->corr,
		    children->u.arr.items[i]->u.str.ptr))));
	tc_json_object_set(m, "original_child_occurrences", occ);
	iv = tc_json_new_array();
	for (i = 0; i < covered->u.arr.len; i++) {
		const tc_json *u = tc_json_get(in->units,
		    tc_json_string(covered->u.arr.items[i]));
		tc_json *o = tc_json_new_object();

		for (k = 0; k < 4; k++)
			tc_json_object_set(o, ivf[k], tc_json_get(u, ivf[k]) ?
			    tc_json_clone(tc_json_get(u, ivf[k])) :
			    tc_json_new_null());
		tc_json_array_push(iv, o);
	}
	tc_json_object_set(m, "covered_unit_ids", covered);
	tc_json_object_set_string(m, "relation", relation);
	tc_json_object_set_null(m, "mapping_group_id");
	tc_json_object_set_string(m, "confidence", confidence);
	tc_json_object_set_string(m, "processing_status", complete ?
	    "processed" : "skipped");
	blockers = tc_json_new_array();
	if (tc_json_get(g, "missing")->u.arr.len > 0)
		tc_json_array_push(blockers, tc_json_new_string(
		    "target_child_assignment_missing"));
	if (tc_json_get(g, "cross")->u.arr.len > 0)
		tc_json_array_push(blockers, tc_json_new_string(
		    "target_child_block_mismatch"));
	if (tc_json_get(g, "steps")->u.arr.len < 3)
		tc_json_array_push(blockers, tc_json_new_string(
		    "target_child_three_step_validation_missing"));
	tc_json_object_set(m, "mapping_blockers", blockers);
	tc_json_object_set(m, "missing_calibration_node_keys", tc_json_clone(
	    tc_json_get(g, "missing")));
	tc_json_object_set(m, "cross_block_calibration_node_keys",
	    tc_json_clone(tc_json_get(g, "cross")));
	cons = tc_json_new_object();
	tc_json_object_set(cons, "supporting_block_instances",
	    tc_json_new_array());
	tc_json_array_push(tc_json_get(cons, "supporting_block_instances"),
	    tc_json_new_string(block));
	tc_json_object_set(cons, "counterexample_block_instances",
	    tc_json_new_array());
	tc_json_object_set(cons, "validated_step_ids", tc_json_clone(
	    tc_json_get(g, "steps")));
	tc_json_object_set(m, "consensus", cons);
	tc_json_object_set(m, "source_intervals", iv);
	tc_json_object_set(m, "mapped_calibration_node_keys", keys_list(cal));
	return m;
}

/* three-instance-no-counterexample-v1 over the mappings sharing a key */
static void
consensus(tc_json *const *maps, tc_json *const *keys, size_t n)
{
	size_t i, j;

	for (i = 0; i < n; i++) {
		tc_json *m = maps[i], *cons = tc_json_get(m, "consensus");
		tc_json *support = tc_json_new_object(), *counter;
		const tc_json *first_cover = NULL;
		bool all_exact = true, one_set = true;

		for (j = 0; j < n; j++) {
			const tc_json *o = maps[j];

			if (!tc_json_equal(keys[i], keys[j]))
				continue;
			set_add(support, tc_json_get_string(o,
			    "block_instance_id"));
			if (strcmp(tc_json_get_string(o, "relation"),
			    "exact_cover") != 0) {
				all_exact = false;
				continue;
			}
			if (first_cover == NULL)
				first_cover = tc_json_get(o, "covered_unit_ids");
			else if (!tc_json_equal(first_cover, tc_json_get(o,
			    "covered_unit_ids")))
				one_set = false;
		}
		if (all_exact && one_set && first_cover != NULL) {
			tc_json_object_set(cons, "supporting_block_instances",
			    keys_list(support));
			if (support->u.obj.len >= 3)
				tc_json_object_set_string(m, "confidence",
				    "source_unit_template_exact");
			tc_json_free(support);
			continue;
		}
		tc_json_free(support);
		counter = tc_json_new_object();
		for (j = 0; j < n; j++) {
			const tc_json *o = maps[j];

			if (!tc_json_equal(keys[i], keys[j]))
				continue;
			if (!tc_json_equal(tc_json_get(o, "covered_unit_ids"),
			    tc_json_get(m, "covered_unit_ids")) ||
			    strcmp(tc_json_get_string(o, "relation"),
			    "exact_cover") != 0)
				set_add(counter, tc_json_get_string(o,
				    "block_instance_id"));
		}
		tc_json_object_set(cons, "counterexample_block_instances",
		    keys_list(counter));
		tc_json_free(counter);
	}
}

struct keyed {
	tc_json *m;
	size_t index;
};

static int
cmp_keyed(const void *a, const void *b)
{
	const struct keyed *x = a, *y = b;
	int c = strcmp(tc_json_get_string(x->m, "sk_occurrence_fingerprint"),
	    tc_json_get_string(y->m, "sk_occurrence_fingerprint"));

	/* sorted() is stable */
	return c != 0 ? c : (x->index < y->index ? -1 : x->index > y->index);
}

static tc_json *
assemble(const struct skmap_in *in, tc_json **maps, size_t n)
{
	static const char *const algo[][2] = {
		{ "set_relation", "target-business-occurrence-set-equality-v2" },
		{ "structural_family", "block-local-business-structure-v1" },
		{ "consensus", "three-instance-no-counterexample-v1" },
		{ "assignment_filter", "per-sk-target-exact-assignment-v1" },
	};
	tc_json *r = tc_json_new_object(), *av = tc_json_new_object();
	tc_json *cov = tc_json_new_object(), *skipped = tc_json_new_array();
	tc_json *list_out = tc_json_new_array();
	struct keyed *ks = tc_xcalloc(n + 1, sizeof(*ks));
	int64_t processed = 0;
	size_t i;
	char hex[65];

	tc_json_object_set_string(r, "schema_version", "1.0");
	tc_json_object_set_string(r, "protocol", "sk_source_map_v1");
	tc_json_object_set(r, "base_revision", tc_json_get(in->smf,
	    "base_revision") ? tc_json_clone(tc_json_get(in->smf,
	    "base_revision")) : tc_json_new_null());
	tc_json_object_set(r, "calibration_revision", tc_json_get(in->smf,
	    "calibration_revision") ? tc_json_clone(tc_json_get(in->smf,
	    "calibration_revision")) : tc_json_new_null());
	tc_json_object_set(r, "stable_marker_revision", tc_json_get(in->smf,
	    "stable_marker_revision") ? tc_json_clone(tc_json_get(in->smf,
	    "stable_marker_revision")) : tc_json_new_null());
	tc_json_object_set_string(r, "source_manifest_fingerprint",
	    in->smf_fp);
	if (in->cal_fp != NULL)
		tc_json_object_set_string(r,
		    "calibration_source_manifest_fingerprint", in->cal_fp);
	tc_json_object_set_string(r, "calibration_projection_fingerprint",
	    in->proj_fp);
	tc_json_object_set(r, "original_collection_fingerprint",
	    tc_json_get(in->proj, "original_collection_fingerprint") ?
	    tc_json_clone(tc_json_get(in->proj,
	    "original_collection_fingerprint")) : tc_json_new_null());
	tc_json_object_set(r, "calibration_collection_fingerprint",
	    tc_json_get(in->proj, "calibration_collection_fingerprint") ?
	    tc_json_clone(tc_json_get(in->proj,
	    "calibration_collection_fingerprint")) : tc_json_new_null());
	for (i = 0; i < 4; i++)
		tc_json_object_set_string(av, algo[i][0], algo[i][1]);
	tc_json_object_set(r, "algorithm_versions", av);
	for (i = 0; i < in->coords->u.obj.len; i++)
		if (!has(in->assigned, in->coords->u.obj.members[i].key))
			tc_json_array_push(skipped, tc_json_new_string(
			    in->coords->u.obj.members[i].key));
	for (i = 0; i < n; i++)
		if (strcmp(tc_json_get_string(maps[i], "processing_status"),
		    "processed") == 0)
			processed++;
	tc_json_object_set_int(cov, "projected_calibration_node_count",
	    (int64_t)in->coords->u.obj.len);
	tc_json_object_set_int(cov, "assigned_calibration_node_count",
	    (int64_t)in->assigned->u.obj.len);
	tc_json_object_set_int(cov, "skipped_calibration_node_count",
	    (int64_t)skipped->u.arr.len);
	tc_json_object_set(cov, "skipped_calibration_node_keys", skipped);
	tc_json_object_set_int(cov, "processed_sk_group_count", processed);
	tc_json_object_set_int(cov, "skipped_sk_group_count",
	    (int64_t)n - processed);
	tc_json_object_set(r, "assignment_coverage", cov);
	for (i = 0; i < n; i++) {
		ks[i].m = maps[i];
		ks[i].index = i;
	}
	qsort(ks, n, sizeof(*ks), cmp_keyed);
	for (i = 0; i < n; i++) {
		tc_json_array_push(list_out, ks[i].m);
		maps[ks[i].index] = NULL;
	}
	free(ks);
	tc_json_object_set(r, "mappings", list_out);
	tc_json_object_set(r, "mapping_groups", tc_json_new_array());
	digest(r, hex);
	tc_json_object_set_string(r, "map_fingerprint", hex);
	return r;
}

tc_json *
tc_analysis__skmap_build(const tc_json *projection, const tc_json *source,
    const tc_json *blocks, const tc_json *fused, const tc_json *assignments,
    const tc_json *calibration_source, tc_error *err)
{
	struct skmap_in in;
	tc_json *fam = NULL, *result = NULL, **maps = NULL, **keys = NULL;
	size_t n = 0, i;

	memset(&in, 0, sizeof(in));
	in.proj = projection;
	in.smf = source;
	in.cal = calibration_source;
	if (check_projection(&in, err) != 0 || check_manifests(&in, err) != 0 ||
	    check_blocks(&in, blocks, err) != 0 ||
	    check_occurrences(&in, err) != 0 ||
	    check_assignments(&in, assignments, err) != 0 ||
	    check_groups(&in, fused, err) != 0 ||
	    (fam = families(&in, err)) == NULL)
		goto done;
	maps = tc_xcalloc(in.groups->u.arr.len + 1, sizeof(*maps));
	keys = tc_xcalloc(in.groups->u.arr.len + 1, sizeof(*keys));
	for (n = 0; n < in.groups->u.arr.len; n++) {
		const tc_json *g = in.groups->u.arr.items[n];
		int64_t idx = 0;

		tc_json_int64(tc_json_get(g, "index"), &idx);
		if ((maps[n] = one_mapping(&in, g, tc_json_get(fused,
		    "sk_groups")->u.arr.items[idx], fam, &keys[n], err)) ==
		    NULL)
			goto done;
	}
	consensus(maps, keys, n);
	for (i = 0; i < n; i++) {
		char hex[65];

		digest(maps[i], hex);
		tc_json_object_set_string(maps[i], "mapping_fingerprint", hex);
	}
	result = assemble(&in, maps, n);
done:
	for (i = 0; i < n; i++) {
		tc_json_free(maps[i]);
		tc_json_free(keys[i]);
	}
	free(maps);
	free(keys);
	tc_json_free(fam);
	skmap_in_free(&in);
	return result;
}
