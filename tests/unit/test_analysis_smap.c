/*
 * test_analysis_smap.c - source_scope_map_v2 bundles (src/analysis/smap.c):
 * the source_scope_mapping objects of no map and of a legacy map, the
 * fail-closed refusals of the map document itself, and the exact rung's
 * match of a lookup entry against a structurally exact binding.  Values
 * and messages are those of the reference's source_scope_map_v2.py and
 * its tests (tests/test_source_calibration.py at cbe8071); whole bundles
 * are driven by tests/cli/test_analyze_smap.sh.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "../../src/analysis/analysis_internal.h"
#include "tunectl/analysis.h"
#include "tunectl/fileio.h"
#include "unit_fixture.h"

static const struct an_smap_expect rev_only = { "stable-rev", NULL, NULL,
	NULL, false };

/* Write text to DIR/map.json and load it; the error message, or NULL. */
static char *
load_text(const char *text, struct an_smap *out)
{
	char *dir = unit_tmpdir("smap"), *path, *msg = NULL;
	tc_error err = TC_ERROR_INIT;

	path = tc_xasprintf("%s/map.json", dir);
	assert_int_equal(tc_write_atomic(path, text, strlen(text), 0, &err), 0);
	if (tc_analysis__smap_load(path, &rev_only, out, &err) != 0) {
		msg = tc_xstrdup(tc_error_msg(&err));
		assert_null(out->mapping);
	}
	tc_error_clear(&err);
	free(path);
	unit_rmtree(dir);
	free(dir);
	return msg;
}

static void
assert_json(const tc_json *v, const char *want)
{
	char *c = tc_json_canonical(v, NULL, NULL);

	assert_string_equal(c, want);
	free(c);
}

static void
no_map_is_not_requested(void **state)
{
	struct an_smap m;
	tc_error err = TC_ERROR_INIT;

	(void)state;
	assert_int_equal(tc_analysis__smap_load(NULL, &rev_only, &m, &err), 0);
	assert_json(m.mapping, "{\"blockers\":[\"source_scope_map_missing\"],"
	    "\"protocol\":\"source_scope_map_v2\",\"status\":\"not_requested\"}");
	assert_int_equal(m.lookup->u.obj.len, 0);
	tc_analysis__smap_free(&m);
}

/* test_legacy_task_ranges_are_diagnostic_only */
static void
legacy_task_ranges_are_diagnostic_only(void **state)
{
	static const char *const maps[] = { "{\"task_ranges\": []}", "[]",
	    "{\"protocol\": \"source_scope_map_v1\"}", "7" };
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(maps) / sizeof(maps[0]); i++) {
		struct an_smap m;

		assert_null(load_text(maps[i], &m));
		assert_json(m.mapping, "{\"blockers\":[\"legacy_task_range_"
		    "source_map_not_exact\"],\"protocol\":\"legacy_source_scope_"
		    "map\",\"status\":\"diagnostic_only\"}");
		assert_int_equal(m.lookup->u.obj.len, 0);
		tc_analysis__smap_free(&m);
	}
}

static void
map_documents_are_refused_in_the_references_words(void **state)
{
	static const struct { const char *text, *msg; } cases[] = {
		{ "{\"protocol\": \"source_scope_map_v2\", \"schema_version\": "
		    "\"3.0\"}", "source_scope_map_v2 schema_version must be 2.0 "
		    "or 2.1" },
		{ "{\"protocol\": \"source_scope_map_v2\", \"schema_version\": "
		    "2.0}", "source_scope_map_v2 schema_version must be 2.0 or "
		    "2.1" },
		{ "{\"protocol\": \"source_scope_map_v2\", \"schema_version\": "
		    "\"2.0\"}", "source_scope_map_v2 is missing fields: "
		    "provenance, source_ranges" },
		{ "{\"protocol\": \"source_scope_map_v2\", \"schema_version\": "
		    "\"2.0\", \"provenance\": {}, \"source_ranges\": [], \"b\": 1, "
		    "\"a\": 2}", "source_scope_map_v2 has unknown fields: a, b" },
		{ "{\"protocol\": \"source_scope_map_v2\", \"schema_version\": "
		    "\"2.0\", \"provenance\": [], \"source_ranges\": []}",
		    "provenance must be an object" },
		{ "{\"protocol\": \"source_scope_map_v2\", \"schema_version\": "
		    "\"2.1\", \"provenance\": {}, \"source_ranges\": []}",
		    "provenance is missing fields: baseline_collection_manifest, "
		    "block_instance_inventory, calibration_collection_manifest, "
		    "calibration_projection, original_candidate_collection_"
		    "manifest, original_fused_inventory, provenance_dag, "
		    "sk_source_map, source_manifest, source_revision, "
		    "source_revision_role, source_scope_map_content_fingerprint, "
		    "source_snapshot_root, unit_assignments" },
		{ "{\"protocol\": \"source_scope_map_v2\", \"x\": NaN}",
		    "source scope map contains invalid constant NaN" },
		{ "{\"protocol\": ", "source scope map is invalid JSON: " },
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct an_smap m;
		char *msg = load_text(cases[i].text, &m);

		assert_non_null(msg);
		assert_memory_equal(msg, cases[i].msg, strlen(cases[i].msg));
		free(msg);
	}
}

/* A complete 2.0 provenance (the artifacts need not exist: the checks
 * before loading them are under test), its fingerprint sealed. */
static tc_json *
sealed_map(const char *version, const char *role, const char *rev,
    bool marker_rev)
{
	static const char *const keys[] = { "provenance_dag", "source_manifest",
	    "sk_source_map", "block_instance_inventory",
	    "calibration_projection", "original_fused_inventory",
	    "unit_assignments", "original_candidate_collection_manifest",
	    "calibration_collection_manifest", "baseline_collection_manifest" };
	tc_json *m = tc_json_new_object(), *p = tc_json_new_object(), *r;
	char hex[65];
	size_t i;

	tc_json_object_set_string(m, "protocol", "source_scope_map_v2");
	tc_json_object_set_string(m, "schema_version", version);
	tc_json_object_set(m, "source_ranges", tc_json_new_array());
	for (i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
		r = tc_json_new_object();
		tc_json_object_set_string(r, "relative_path", "missing.json");
		tc_json_object_set_string(r, "sha256", "");
		tc_json_object_set(p, keys[i], r);
	}
	r = tc_json_new_object();
	tc_json_object_set_string(r, "relative_path", "snapshot");
	tc_json_object_set(p, "source_snapshot_root", r);
	if (role != NULL) {
		tc_json_object_set_string(p, "source_revision", rev);
		tc_json_object_set_string(p, "source_revision_role", role);
	}
	if (marker_rev)
		tc_json_object_set_string(p, "stable_marker_revision", rev);
	tc_json_object_set(m, "provenance", p);
	assert_int_equal(tc_json_digest(m, hex, NULL), 0);
	tc_json_object_set_string(p, "source_scope_map_content_fingerprint", hex);
	return m;
}

static char *
load_json_doc(const tc_json *m, struct an_smap *out)
{
	char *text = tc_json_canonical(m, NULL, NULL), *msg;

	msg = load_text(text, out);
	free(text);
	return msg;
}

static void
revision_and_role_are_checked_before_any_artifact(void **state)
{
	struct an_smap m;
	tc_json *doc;
	char *msg;

	(void)state;
	/* test_v2_bundle_rejects_snapshot_tampering_and_revision_mismatch */
	doc = sealed_map("2.0", NULL, "other-rev", true);
	msg = load_json_doc(doc, &m);
	assert_string_equal(msg, "source_scope_map_v2 source revision differs "
	    "from --source-revision");
	free(msg);
	tc_json_free(doc);

	/* the right revision reaches the first artifact */
	doc = sealed_map("2.0", NULL, "stable-rev", true);
	msg = load_json_doc(doc, &m);
	assert_string_equal(msg, "provenance.provenance_dag.sha256 must be a "
	    "non-empty trimmed string");
	free(msg);
	/* an edit after sealing */
	tc_json_object_set_string(tc_json_get(doc, "provenance"),
	    "stable_marker_revision", "stable-rev ");
	msg = load_json_doc(doc, &m);
	assert_string_equal(msg, "source_scope_map_v2 content fingerprint "
	    "mismatch");
	free(msg);
	tc_json_free(doc);

	doc = sealed_map("2.1", "stable_other", "stable-rev", false);
	msg = load_json_doc(doc, &m);
	assert_string_equal(msg, "source_scope_map_v2 source revision role is "
	    "unsupported");
	free(msg);
	tc_json_free(doc);

	doc = sealed_map("2.1", "stable_source", "stable-rev", true);
	msg = load_json_doc(doc, &m);
	assert_string_equal(msg, "stable_source source maps must not declare "
	    "stable_marker_revision");
	free(msg);
	tc_json_free(doc);

	doc = sealed_map("2.1", "stable_source", "stable-rev", false);
	msg = load_json_doc(doc, &m);
	assert_string_equal(msg, "stable_source source map is missing "
	    "marker-only evidence: calibration_source_manifest, "
	    "calibration_source_snapshot_root, marker_only_calibration");
	free(msg);
	tc_json_free(doc);

	doc = sealed_map("2.1", "stable_marker", "stable-rev", false);
	msg = load_json_doc(doc, &m);
	assert_string_equal(msg, "provenance.stable_marker_revision must be a "
	    "non-empty trimmed string");
	free(msg);
	tc_json_free(doc);
}

static void
an_empty_expected_revision_is_refused_for_v2_maps_only(void **state)
{
	char *dir = unit_tmpdir("smap-rev"), *path, *st;
	tc_error err = TC_ERROR_INIT;
	tc_json *doc = sealed_map("2.0", NULL, "stable-rev", true);
	char *text = tc_json_canonical(doc, NULL, NULL);

	(void)state;
	path = tc_xasprintf("%s/map.json", dir);
	assert_int_equal(tc_write_atomic(path, "[]", 2, 0, &err), 0);
	st = tc_source_scope_map_validate(path, "", NULL, NULL, NULL, &err);
	assert_string_equal(st, "diagnostic_only");
	free(st);
	assert_int_equal(tc_write_atomic(path, text, strlen(text), 0, &err), 0);
	assert_null(tc_source_scope_map_validate(path, " rev", NULL, NULL, NULL,
	    &err));
	assert_string_equal(tc_error_msg(&err), "expected source revision must "
	    "be a non-empty trimmed string");
	tc_error_clear(&err);
	free(text);
	tc_json_free(doc);
	free(path);
	unit_rmtree(dir);
	free(dir);
}

/* ---- the exact rung ---------------------------------------------------- */

#define GOF "4047b6130b26aacfd52a6cc661714754b6ec8dae16804c1c3df5c14d093f562c"
#define MFP "0d041be628b12a70ec52a91a8de64d8482dd808c7ed9a6002d5e6849912a01be"

static const char entry_text[] =
    "{\"device_id\": 0, \"model_id\": \"7\", \"candidate_source_scope\": "
    "\"layers.0.attn\", \"ordered_child_op_sequence\": [\"MatMulV2\", \"Add\"], "
    "\"sk_occurrence_fingerprint\": \"" GOF "\", "
    "\"baseline_projection_fingerprint\": \"" MFP "\", \"boundary\": "
    "{\"start_op\": \"MatMulV2\", \"end_op\": \"Add\", \"source_file\": "
    "\"model.dsl\", \"start_offset\": 0, \"end_offset\": 8}}";
static const char identity_text[] =
    "{\"boundary\": {\"end_op\": \"Add\", \"start_op\": \"MatMulV2\"}, "
    "\"model_id\": \"7\", \"ordered_child_op_sequence\": [\"MatMulV2\", "
    "\"Add\"], \"source_scope\": \"layers.0.attn\"}";

static tc_json *
parse(const char *text)
{
	tc_error err = TC_ERROR_INIT;
	tc_json *v = tc_json_parse(text, strlen(text), &err);

	assert_non_null(v);
	return v;
}

/* Whether the entry edited by pointer=value (NULL: none) matches */
static bool
rung(const char *member, const char *value, bool valid, const char *model)
{
	struct an_smap s;
	struct an_binding b;
	tc_json *e = parse(entry_text), *id = parse(identity_text);
	tc_json *dev = tc_json_new_int(0);
	bool hit;

	memset(&b, 0, sizeof(b));
	b.valid = valid;
	b.mapping_fp = MFP;
	snprintf(b.occurrence_fp, sizeof(b.occurrence_fp), "%s", GOF);
	if (member != NULL)
		tc_json_object_set(e, member, parse(value));
	s.mapping = NULL;
	s.lookup = tc_json_new_object();
	tc_json_object_set(s.lookup, GOF, e);
	hit = tc_analysis__smap_exact_entry(&s, &b, dev, model, id) != NULL;
	tc_json_free(s.lookup);
	tc_json_free(id);
	tc_json_free(dev);
	return hit;
}

/* _source_scope_entry_matches: device and model compare as str() */
static void
the_exact_rung_needs_every_identity_field(void **state)
{
	(void)state;
	assert_true(rung(NULL, NULL, true, "7"));
	assert_true(rung("device_id", "\"0\"", true, "7"));
	assert_true(rung("model_id", "7", true, "7"));
	assert_false(rung(NULL, NULL, false, "7"));
	assert_false(rung(NULL, NULL, true, "8"));
	assert_false(rung("device_id", "1", true, "7"));
	assert_false(rung("device_id", "0.0", true, "7"));
	assert_false(rung("candidate_source_scope", "\"forged.scope\"", true,
	    "7"));
	assert_false(rung("ordered_child_op_sequence", "[\"MatMulV2\"]", true,
	    "7"));
	assert_false(rung("boundary", "{\"start_op\": \"MatMulV2\", "
	    "\"end_op\": \"Mul\"}", true, "7"));
	assert_false(rung("sk_occurrence_fingerprint", "\"" MFP "\"", true,
	    "7"));
	assert_false(rung("baseline_projection_fingerprint", "\"" GOF "\"",
	    true, "7"));
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(no_map_is_not_requested),
		cmocka_unit_test(legacy_task_ranges_are_diagnostic_only),
		cmocka_unit_test(map_documents_are_refused_in_the_references_words),
		cmocka_unit_test(revision_and_role_are_checked_before_any_artifact),
		cmocka_unit_test(an_empty_expected_revision_is_refused_for_v2_maps_only),
		cmocka_unit_test(the_exact_rung_needs_every_identity_field),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
