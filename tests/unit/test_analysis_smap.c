/*
 * test_analysis_smap.c - source_scope_map_v2 bundles (src/analysis/smap.c):
 * the source_scope_mapping objects of no map and of a legacy map, the
 * fail-closed refusals of the map document itself, and the exact rung's
 * match of a lookup entry against a structurally exact binding.  Values
 * and messages are those of the reference's source_scope_map_v2.py and
 * its tests (tests/test_source_calibration.py at cbe8071); whole bundles
 * are driven by tests/cli/test_analyze_smap.sh.  Also the scope sentinel
 * chain a graph proposes to exclude (src/analysis/sentinel.c), with the
 * graphs of the reference's tests/test_projected_trace_mapping.py;
 * tests/cli/test_analyze_sentinel.sh drives the gates.  And the canonical
 * stream order of origin graphs with symmetric streams
 * (src/analysis/graph_streams.c): a fingerprint that no renumbering of
 * the streams changes.  And the marker-only calibration bridge of a
 * stable_source map (src/analysis/smap_bridge.c).  And the two
 * recomputations a bundle must survive: the sk-source-map rebuilt from
 * its inventories (src/analysis/smap_skmap.c) and the calibration
 * projection replayed from its graphs (src/analysis/smap_project.c), on
 * the reference's test inputs.
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
#include "tunectl/sha256.h"
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


/* ---- scope sentinel proposals ----------------------------------------- */

struct gspec {
	const char *key, *stream, *func;
	size_t pos;
};

/* The proposal of a graph of kernel nodes (vector kernels unless
 * family says otherwise). */
static tc_json *
propose(const struct gspec *g, size_t n, const char *family)
{
	struct an_gnode *nodes = tc_xcalloc(n + 1, sizeof(*nodes));
	tc_json *p;
	size_t i;

	for (i = 0; i < n; i++) {
		snprintf(nodes[i].key, sizeof(nodes[i].key), "%s", g[i].key);
		snprintf(nodes[i].stream_key, sizeof(nodes[i].stream_key), "%s",
		    g[i].stream ? g[i].stream : "role-a");
		nodes[i].pos = g[i].pos;
		nodes[i].kind = tc_xstrdup("KERNEL");
		nodes[i].family = family;
		nodes[i].func_name = tc_xstrdup(g[i].func);
	}
	p = tc_analysis__sentinel_proposal(nodes, n);
	for (i = 0; i < n; i++) {
		free(nodes[i].kind);
		free(nodes[i].func_name);
	}
	free(nodes);
	return p;
}

#define BEGIN "sk_scope_kernel_begin_dav_2201"
#define PH "sk_placeholder_kernel_dav_2201"
#define END "sk_scope_kernel_end_dav_2201"

/* _sentinel_graph(end_ordinal=105) */
static const struct gspec chain_graph[7] = {
	{ "begin", NULL, BEGIN, 10 }, { "p1", NULL, PH, 11 },
	{ "p2", NULL, PH, 12 }, { "add", NULL, "Add", 13 },
	{ "p3", NULL, PH, 103 }, { "p4", NULL, PH, 104 },
	{ "end", NULL, END, 105 },
};

static bool
has_blocker(const tc_json *p, const char *b)
{
	return tc_analysis__list_has(tc_json_get(p, "blockers"), b);
}

static void
sentinel_names_match_the_references_pattern(void **state)
{
	const char *tag = NULL;

	(void)state;
	assert_int_equal(tc_analysis__sentinel_match(BEGIN, &tag), 0);
	assert_string_equal(tag, "2201");
	assert_int_equal(tc_analysis__sentinel_match(PH, NULL), 1);
	assert_int_equal(tc_analysis__sentinel_match(END, NULL), 2);
	assert_int_equal(tc_analysis__sentinel_match(
	    "sk_scope_kernel_end_dav_0", NULL), -1);
	assert_int_equal(tc_analysis__sentinel_match(
	    "sk_scope_kernel_end_dav_01", NULL), -1);
	assert_int_equal(tc_analysis__sentinel_match(
	    "sk_scope_kernel_end_dav_2x", NULL), -1);
	assert_int_equal(tc_analysis__sentinel_match("sk_1_scope", NULL), -1);
	assert_int_equal(tc_analysis__sentinel_match(NULL, NULL), -1);
	assert_true(tc_analysis__sentinel_op("sk_placeholder_kernel_dav"));
	assert_false(tc_analysis__sentinel_op("Add"));
}

static void
a_graph_without_sentinels_has_the_not_present_object(void **state)
{
	static const struct gspec g[1] = { { "add", NULL, "Add", 0 } };
	tc_json *p = propose(g, 1, "AI_VECTOR_CORE");
	tc_json *e = tc_analysis__sentinel_evidence(p);

	(void)state;
	assert_json(e, "{\"blockers\":[],\"candidate_node_keys\":[],"
	    "\"candidate_profiler_rows_checked\":0,\"excluded_node_keys\":[],"
	    "\"function_names\":[],\"gates\":{},\"occurrence_count\":0,"
	    "\"origin_graph_count\":0,\"protocol\":\"scope_sentinel_exclusion_"
	    "v2\",\"status\":\"not_present\",\"stream_role\":null,"
	    "\"stream_roles\":[],\"tags\":[],\"updated_graph_count\":0}");
	tc_json_free(e);
	tc_json_free(p);
}

static void
a_complete_chain_is_proposed(void **state)
{
	tc_json *p = propose(chain_graph, 7, "AI_VECTOR_CORE"), *e;

	(void)state;
	assert_string_equal(tc_json_get_string(p, "status"), "proposed");
	assert_json(tc_json_get(p, "node_keys"),
	    "[\"begin\",\"p1\",\"p2\",\"p3\",\"p4\",\"end\"]");
	assert_json(tc_json_get(p, "tags"), "[\"2201\"]");
	assert_string_equal(tc_json_get_string(p, "stream_role"), "role-a");
	assert_json(tc_json_get(p, "signature"), "[{\"core_families\":["
	    "\"AI_VECTOR_CORE\",\"AI_VECTOR_CORE\",\"AI_VECTOR_CORE\","
	    "\"AI_VECTOR_CORE\",\"AI_VECTOR_CORE\",\"AI_VECTOR_CORE\"],"
	    "\"kinds\":[\"scope_kernel_begin\",\"placeholder_kernel\","
	    "\"placeholder_kernel\",\"placeholder_kernel\","
	    "\"placeholder_kernel\",\"scope_kernel_end\"],"
	    "\"occurrence_ordinal\":0,\"stream_ordinals\":[10,11,12,103,104,"
	    "105],\"tag\":\"2201\"}]");
	e = tc_analysis__sentinel_evidence(p);
	assert_int_equal(e->u.obj.len, 14);
	assert_json(tc_json_get(e, "excluded_node_keys"), "[]");
	tc_json_free(e);
	tc_json_free(p);
}

/* test_scope_sentinel_proposal_rejects_incomplete_or_noncontiguous_chain,
 * ..._requires_business_nodes_between_halves, a cube marker */
static void
broken_chains_are_rejected_by_the_proposal(void **state)
{
	struct gspec g[7];
	tc_json *p;

	(void)state;
	p = propose(chain_graph, 6, "AI_VECTOR_CORE");	/* no end */
	assert_string_equal(tc_json_get_string(p, "status"), "rejected");
	assert_true(has_blocker(p, "scope_sentinel_chain_incomplete"));
	tc_json_free(p);

	memcpy(g, chain_graph, sizeof(g));
	g[5].pos = 103;		/* p4 beside p3 */
	p = propose(g, 7, "AI_VECTOR_CORE");
	assert_true(has_blocker(p, "scope_sentinel_chain_noncontiguous"));
	tc_json_free(p);

	memcpy(g, chain_graph, sizeof(g));
	g[4].pos = 13;		/* _sentinel_graph(end_ordinal=15) */
	g[5].pos = 14;
	g[6].pos = 15;
	p = propose(g, 7, "AI_VECTOR_CORE");
	assert_string_equal(tc_json_get_string(p, "status"), "rejected");
	assert_json(tc_json_get(p, "blockers"),
	    "[\"scope_sentinel_business_interval_missing\"]");
	tc_json_free(p);

	p = propose(chain_graph, 7, "AI_CORE");
	assert_json(tc_json_get(p, "blockers"),
	    "[\"scope_sentinel_not_vector_kernel\"]");
	tc_json_free(p);
}

/* test_scope_sentinel_proposal_partitions_repeated_tag_by_occurrence */
static void
a_repeated_tag_is_partitioned_by_occurrence(void **state)
{
	struct gspec g[14];
	static const struct gspec second[7] = {
		{ "begin-2", NULL, BEGIN, 21 }, { "p1-2", NULL, PH, 22 },
		{ "p2-2", NULL, PH, 23 }, { "mul-2", NULL, "Mul", 24 },
		{ "p3-2", NULL, PH, 30 }, { "p4-2", NULL, PH, 31 },
		{ "end-2", NULL, END, 32 },
	};
	tc_json *p, *sig;

	(void)state;
	memcpy(g, chain_graph, sizeof(chain_graph));
	g[4].pos = 18;
	g[5].pos = 19;
	g[6].pos = 20;
	memcpy(g + 7, second, sizeof(second));
	p = propose(g, 14, "AI_VECTOR_CORE");
	assert_string_equal(tc_json_get_string(p, "status"), "proposed");
	assert_json(tc_json_get(p, "tags"), "[\"2201\"]");
	assert_json(tc_json_get(p, "occurrence_count"), "2");
	sig = tc_json_get(p, "signature");
	assert_int_equal(sig->u.arr.len, 2);
	assert_json(tc_json_get(sig->u.arr.items[1], "occurrence_ordinal"), "1");
	assert_int_equal(tc_json_get(p, "node_keys")->u.arr.len, 12);
	tc_json_free(p);
}

/* test_scope_sentinel_proposal_accepts_balanced_multistream_layout */
static void
a_balanced_chain_across_streams_is_proposed(void **state)
{
	static const struct gspec g[7] = {
		{ "begin", "role-a", BEGIN, 10 }, { "p1", "role-a", PH, 11 },
		{ "p2", "role-a", PH, 12 }, { "add", "role-a", "Add", 13 },
		{ "p3", "role-b", PH, 20 }, { "p4", "role-b", PH, 21 },
		{ "end", "role-b", END, 22 },
	};
	tc_json *p = propose(g, 7, "AI_VECTOR_CORE");

	(void)state;
	assert_string_equal(tc_json_get_string(p, "status"), "proposed");
	assert_json(tc_json_get(p, "stream_roles"), "[\"role-a\",\"role-b\"]");
	assert_json(tc_json_get(p, "stream_role"), "null");
	assert_json(tc_json_get(p, "occurrence_count"), "1");
	assert_string_equal(tc_json_get_string(tc_json_get(p, "signature")->
	    u.arr.items[1], "stream_role"), "role-b");
	tc_json_free(p);
}


/* ---- symmetric streams ------------------------------------------------ */

/* An sk_graph_origin document: streams[i] is a ';'-separated list of
 * nodes "K:func:kernelType", "N:event" (NOTIFY) or "W:event" (WAIT);
 * ids[i] is that stream's streamIdxInGraph, its node ids ids[i]*100+k. */
static tc_json *
graph_of(const char *const *streams, const int *ids, size_t ns)
{
	tc_buf b = TC_BUF_INIT;
	size_t i, total = 0;
	tc_json *g;
	tc_error err = TC_ERROR_INIT;

	tc_buf_puts(&b, "{\"version\": \"1.0\", \"modelId\": \"7\", "
	    "\"deviceId\": 0, \"streams\": [");
	for (i = 0; i < ns; i++) {
		char *spec = tc_xstrdup(streams[i]), *save = NULL, *t;
		size_t k = 0, n = 1;
		const char *p;

		for (p = streams[i]; *p != '\0'; p++)
			n += *p == ';';
		total += n;
		tc_buf_printf(&b, "%s{\"streamIdxInGraph\": %d, \"nodeCount\": "
		    "%zu, \"nodes\": [", i ? ", " : "", ids[i], n);
		for (t = strtok_r(spec, ";", &save); t != NULL;
		    t = strtok_r(NULL, ";", &save), k++) {
			int id = ids[i] * 100 + (int)k;
			const char *type = t[0] == 'K' ? "KERNEL" : t[0] == 'N' ?
			    "NOTIFY" : "WAIT";

			tc_buf_printf(&b, "%s{\"nodeId\": %d, \"streamIdxInGraph\": "
			    "%d, \"nodeIdxInStream\": %zu, \"nodeType\": \"%s\", ",
			    k ? ", " : "", id, ids[i], k, type);
			if (k == 0)
				tc_buf_puts(&b, "\"preNodeId\": \"none\", ");
			else
				tc_buf_printf(&b, "\"preNodeId\": %d, ", id - 1);
			if (k + 1 == n)
				tc_buf_puts(&b, "\"nextNodeId\": \"none\", ");
			else
				tc_buf_printf(&b, "\"nextNodeId\": %d, ", id + 1);
			tc_buf_printf(&b, "\"taskInfo\": [{\"taskType\": \"%s\", "
			    "\"streamId\": %d, \"taskId\": %d, ", type, 20 + ids[i],
			    id);
			if (t[0] == 'K') {
				char *f = t + 2, *kt = strchr(f, ':');

				*kt++ = '\0';
				tc_buf_printf(&b, "\"kernelParams\": {\"funcName\": "
				    "\"%s\", \"kernelType\": \"%s\", \"numBlocks\": "
				    "1}}]}", f, kt);
			} else {
				tc_buf_printf(&b, "\"eventParams\": {\"eventId\": "
				    "%s}}]}", t + 2);
			}
		}
		tc_buf_puts(&b, "]}");
		free(spec);
	}
	tc_buf_printf(&b, "], \"totalStreams\": %zu, \"totalNodes\": %zu}",
	    ns, total);
	g = tc_json_parse(tc_buf_cstr(&b), b.len, &err);
	if (g == NULL)
		fail_msg("graph: %s", tc_error_msg(&err));
	tc_buf_free(&b);
	return g;
}

static void
fingerprint_of(const char *const *streams, const int *ids, size_t ns,
    char hex[65])
{
	tc_json *g = graph_of(streams, ids, ns);
	tc_error err = TC_ERROR_INIT;

	if (tc_analysis__graph_fingerprint(g, hex, &err) != 0)
		fail_msg("fingerprint: %s", tc_error_msg(&err));
	tc_json_free(g);
}

#define PAIR "K:MatMulV2_1:AIC_ONLY;K:Add_2:AIV_ONLY"

/* the demo's multistream: two streams of the same kernels */
static void
two_identical_streams_have_a_fingerprint(void **state)
{
	const char *two[2] = { PAIR, PAIR }, *one[1] = { PAIR };
	const int ids[2] = { 0, 1 }, swapped[2] = { 5, 2 };
	char a[65], b[65], c[65];

	(void)state;
	fingerprint_of(two, ids, 2, a);
	fingerprint_of(two, swapped, 2, b);
	fingerprint_of(one, ids, 1, c);
	assert_string_equal(a, b);
	assert_string_not_equal(a, c);
	assert_int_equal(strlen(a), 64);
}

/* one NOTIFY waited for by two symmetric streams, numbered either way
 * round: the search individualizes one, the swap is an automorphism */
static void
symmetric_streams_around_one_event_are_numbered_away(void **state)
{
	const char *s[3] = { "N:1;K:Cast_1:AIV_ONLY", "W:1;" PAIR,
	    "W:1;" PAIR };
	const char *t[3] = { "W:1;" PAIR, "N:1;K:Cast_1:AIV_ONLY",
	    "W:1;" PAIR };
	const int ids[3] = { 0, 1, 2 }, other[3] = { 4, 0, 9 };
	char a[65], b[65], c[65];

	(void)state;
	fingerprint_of(s, ids, 3, a);
	fingerprint_of(t, ids, 3, b);
	fingerprint_of(s, other, 3, c);
	assert_string_equal(a, b);
	assert_string_equal(a, c);
}

/* streams of one label told apart by their edges: which stream waits
 * for which event still shows in the fingerprint */
static void
equal_labels_with_different_wiring_differ(void **state)
{
	const char *crossed[4] = { "N:1;K:Cast_1:AIV_ONLY",
	    "N:2;K:Cast_1:AIV_ONLY", "W:1;" PAIR, "W:2;" PAIR };
	const char *shared[4] = { "N:1;K:Cast_1:AIV_ONLY",
	    "N:2;K:Cast_1:AIV_ONLY", "W:1;" PAIR, "W:1;" PAIR };
	const int ids[4] = { 0, 1, 2, 3 }, other[4] = { 3, 2, 1, 0 };
	char a[65], b[65], c[65];

	(void)state;
	fingerprint_of(crossed, ids, 4, a);
	fingerprint_of(crossed, other, 4, b);
	fingerprint_of(shared, ids, 4, c);
	assert_string_equal(a, b);
	assert_string_not_equal(a, c);
}


/* ---- the marker-only calibration bridge ------------------------------- */

static tc_json *
sealed_doc(const char *text, const char *key)
{
	tc_json *v = parse(text);
	char hex[65];

	assert_int_equal(tc_json_digest(v, hex, NULL), 0);
	tc_json_object_set_string(v, key, hex);
	return v;
}

static void
put(const char *dir, const char *name, const char *text)
{
	char *p = tc_xasprintf("%s/%s", dir, name);
	tc_error err = TC_ERROR_INIT;

	assert_int_equal(tc_write_atomic(p, text, strlen(text), TC_WRITE_MKDIRS,
	    &err), 0);
	free(p);
}

/* stable "ab", calibration "[a]b" with the markers "[" and "]" */
static char *
bridge_case(const char *stable_text, const char *cal_text, char **root)
{
	char *dir = unit_tmpdir("smap-bridge"), *m, sh[65], ch[65];
	tc_json *stable, *cal, *bridge;
	tc_error err = TC_ERROR_INIT;
	char *msg = NULL, *t;

	put(dir, "s/f.dsl", stable_text);
	put(dir, "c/f.dsl", cal_text);
	tc_sha256_hex(stable_text, strlen(stable_text), sh);
	tc_sha256_hex(cal_text, strlen(cal_text), ch);
	t = tc_xasprintf("{\"revision_role\": \"stable_source\", "
	    "\"source_revision\": \"s\", \"calibration_revision\": \"c\", "
	    "\"base_revision\": \"b\", \"file_sha256\": {\"f.dsl\": \"%s\"}, "
	    "\"units\": [{\"unit_id\": \"u0\", \"source_file\": \"f.dsl\"}]}",
	    sh);
	stable = sealed_doc(t, "manifest_fingerprint");
	free(t);
	{
		char b[65], e[65];

		tc_sha256_hex("[", 1, b);
		tc_sha256_hex("]", 1, e);
		t = tc_xasprintf("{\"revision_role\": \"calibration\", "
		    "\"source_revision\": \"c\", \"base_revision\": \"b\", "
		    "\"file_sha256\": {\"f.dsl\": \"%s\"}, \"units\": "
		    "[{\"unit_id\": \"u0\", \"source_file\": \"f.dsl\", "
		    "\"marker_operations\": {\"begin\": {\"insertion_start_offset\""
		    ": 0, \"insertion_end_offset\": 1, \"insertion_sha256\": \"%s\"}, "
		    "\"end\": {\"insertion_start_offset\": 2, "
		    "\"insertion_end_offset\": 3, \"insertion_sha256\": \"%s\"}}}]}",
		    ch, b, e);
	}
	cal = sealed_doc(t, "manifest_fingerprint");
	free(t);
	{
		char b[65], e[65];

		tc_sha256_hex("[", 1, b);
		tc_sha256_hex("]", 1, e);
		t = tc_xasprintf("{\"schema_version\": \"1.0\", \"protocol\": "
		    "\"marker_only_calibration_v1\", \"stable_source_revision\": "
		    "\"s\", \"calibration_revision\": \"c\", "
		    "\"stable_source_manifest_fingerprint\": \"%s\", "
		    "\"calibration_source_manifest_fingerprint\": \"%s\", "
		    "\"unit_ids\": [\"u0\"], \"files\": [{\"source_file\": "
		    "\"f.dsl\", \"stable_sha256\": \"%s\", \"calibration_sha256\": "
		    "\"%s\", \"stripped_calibration_sha256\": \"%s\", "
		    "\"insertions\": [{\"unit_id\": \"u0\", \"marker_kind\": "
		    "\"begin\", \"start_offset\": 0, \"end_offset\": 1, "
		    "\"sha256\": \"%s\"}, {\"unit_id\": \"u0\", \"marker_kind\": "
		    "\"end\", \"start_offset\": 2, \"end_offset\": 3, "
		    "\"sha256\": \"%s\"}]}]}",
		    tc_json_get_string(stable, "manifest_fingerprint"),
		    tc_json_get_string(cal, "manifest_fingerprint"), sh, ch, sh,
		    b, e);
	}
	bridge = sealed_doc(t, "bridge_fingerprint");
	free(t);
	m = tc_xasprintf("%s/s", dir);
	t = tc_xasprintf("%s/c", dir);
	if (tc_analysis__marker_bridge_check(bridge, stable, cal, m, t,
	    &err) != 0)
		msg = tc_xstrdup(tc_error_msg(&err));
	tc_error_clear(&err);
	free(m);
	free(t);
	tc_json_free(stable);
	tc_json_free(cal);
	tc_json_free(bridge);
	*root = dir;
	return msg;
}

static void
a_marker_only_bridge_is_rebuilt_from_the_sources(void **state)
{
	char *root, *msg;

	(void)state;
	msg = bridge_case("ab", "[a]b", &root);
	assert_null(msg);
	unit_rmtree(root);
	free(root);
	/* the bridge recorded for "ab" no longer fits a stable "aB": its
	 * SHA-256 differs, and removing the markers leaves "ab" */
	msg = bridge_case("aB", "[a]b", &root);
	assert_string_equal(msg, "calibration source does not reduce to "
	    "stable source after marker removal: f.dsl");
	free(msg);
	unit_rmtree(root);
	free(root);
	/* an end marker that is business code, then one past the file */
	msg = bridge_case("ab", "[ab", &root);
	assert_string_equal(msg, "calibration unit u0 end insertion SHA "
	    "mismatch");
	free(msg);
	unit_rmtree(root);
	free(root);
	msg = bridge_case("ab", "[a", &root);
	assert_string_equal(msg, "calibration unit u0 end insertion span is "
	    "invalid");
	free(msg);
	unit_rmtree(root);
	free(root);
}


/* ---- the sk-source-map rebuild (smap_skmap.c) ------------------------- */

/* The inputs of the reference's SourceCalibrationTest._artifacts
 * (stable_marker): one unit, one block, one SK of one child. */
struct skin {
	tc_json *proj, *smf, *blocks, *fused, *units;
};

/* v[key] = canonical_sha256(v without key) */
static void
seal(tc_json *v, const char *key)
{
	char hex[65];

	tc_json_object_remove(v, key);
	assert_int_equal(tc_json_digest(v, hex, NULL), 0);
	tc_json_object_set_string(v, key, hex);
}

#define A64 "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
#define C64 "cccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccc"
#define D64 "dddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddd"
#define E64 "eeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeee"

/* a projection of these occurrences and runtime items, sealed */
static tc_json *
projection(const char *occurrences, const char *runtime, const char *steps)
{
	char *t = tc_xasprintf("{\"protocol\":\"source_calibration_projection_v2\","
	    "\"original_collection_fingerprint\":\"" A64 "\","
	    "\"calibration_collection_fingerprint\":\"" D64 "\","
	    "\"alternative_stream_assignment_count\":0,"
	    "\"alternative_node_correspondence_count\":0,"
	    "\"nontrivial_automorphism_count\":0,"
	    "\"business_kernel_sequence_equal\":true,"
	    "\"typed_business_edge_set_equal\":true,\"evidence_catalog\":{},"
	    "\"runtime_validation\":%s,\"validated_step_ids\":%s,"
	    "\"occurrences\":%s}", runtime, steps, occurrences);
	tc_json *p = parse(t);

	free(t);
	tc_json_object_set(p, "protocol_versions",
	    tc_analysis__projection_versions());
	seal(p, "projection_fingerprint");
	return p;
}

#define OCC(o, c, role, ord, op) "{\"original_node_key\":\"" o "\"," \
	"\"calibration_node_key\":\"" c "\",\"original\":[\"" role "\"," \
	#ord ",\"" op "\",\"VECTOR\"]}"

static void
skin_init(struct skin *in)
{
	in->proj = projection("[" OCC("original-1", "calibration-9",
	    "original-stream", 0, "Compute") "]", "[]", "[1,2,3]");
	in->smf = parse("{\"schema_version\":\"1.0\",\"revision_role\":"
	    "\"stable_marker\",\"base_revision\":\"base-rev\","
	    "\"source_revision\":\"stable-rev\",\"calibration_revision\":"
	    "\"calibration-rev\",\"stable_marker_revision\":\"stable-rev\","
	    "\"model_adapter\":{\"name\":\"example-dsl-adapter\",\"version\":"
	    "\"1.0\",\"fingerprint\":\"" A64 "\"},\"block_templates\":[{"
	    "\"block_template_id\":\"block.execute\"}],\"units\":[{\"unit_id\":"
	    "\"block.compute\",\"block_template_id\":\"block.execute\","
	    "\"source_symbol\":\"Block.execute\",\"source_file\":\"model.dsl\","
	    "\"start_offset\":0,\"end_offset\":18,\"syntax_tree_hash\":\""
	    E64 "\"}]}");
	seal(in->smf, "manifest_fingerprint");
	in->blocks = parse("{\"schema_version\":\"1.0\","
	    "\"model_adapter_fingerprint\":\"" A64 "\",\"instances\":[{"
	    "\"block_instance_id\":\"block-instance-A\",\"block_template_id\":"
	    "\"block.execute\",\"runtime_scope_binding\":{\"method\":"
	    "\"exact_scope_name\",\"value\":\"runtime.block.A\"},"
	    "\"control_flow_path\":\"adapter-path:main\"}]}");
	tc_json_object_set_string(in->blocks, "source_manifest_fingerprint",
	    tc_json_get_string(in->smf, "manifest_fingerprint"));
	in->fused = parse("{\"protocol\":\"original_fused_inventory_v1\","
	    "\"sk_groups\":[{\"device_id\":0,\"model_id\":\"48\","
	    "\"block_instance_id\":\"block-instance-A\",\"source_scope\":"
	    "\"runtime.block.A\",\"candidate_source_scope\":\"decode\","
	    "\"sk_occurrence_fingerprint\":\"" C64 "\","
	    "\"baseline_projection_fingerprint\":\"" D64 "\","
	    "\"block_local_sk_ordinal\":0,\"ordered_child_ops\":[\"Compute\"],"
	    "\"original_child_node_keys\":[\"original-1\"],\"evidence_records\":"
	    "[{\"artifact_id\":\"fused-log\",\"record_id\":\"fused-record-1\","
	    "\"record_fingerprint\":\"" E64 "\"}]}]}");
	in->units = parse("{\"protocol\":\"calibration_unit_assignments_v1\","
	    "\"assignments\":[{\"calibration_node_key\":\"calibration-9\","
	    "\"block_instance_id\":\"block-instance-A\",\"unit_id\":"
	    "\"block.compute\",\"control_flow_path\":\"adapter-path:main\","
	    "\"evidence_records\":[{\"artifact_id\":\"assignment-log\","
	    "\"record_id\":\"assignment-record-1\",\"record_fingerprint\":\""
	    E64 "\"}]}]}");
}

static void
skin_free(struct skin *in)
{
	tc_json_free(in->proj);
	tc_json_free(in->smf);
	tc_json_free(in->blocks);
	tc_json_free(in->fused);
	tc_json_free(in->units);
}

/* the rebuilt map (err must stay clear), or NULL and *msg the refusal */
static tc_json *
rebuild(const struct skin *in, char **msg)
{
	tc_error err = TC_ERROR_INIT;
	tc_json *m = tc_analysis__skmap_build(in->proj, in->smf, in->blocks,
	    in->fused, in->units, NULL, &err);

	if (msg != NULL)
		*msg = m == NULL ? tc_xstrdup(tc_error_msg(&err)) : NULL;
	else
		assert_non_null(m);
	tc_error_clear(&err);
	return m;
}

static const tc_json *
first_mapping(const tc_json *map)
{
	return tc_json_get(map, "mappings")->u.arr.items[0];
}

static void
an_exact_child_set_covers_its_unit(void **state)
{
	struct skin in;
	tc_json *map, *copy;
	const tc_json *m;
	char hex[65];

	(void)state;
	skin_init(&in);
	map = rebuild(&in, NULL);
	m = first_mapping(map);
	assert_string_equal(tc_json_get_string(m, "relation"), "exact_cover");
	assert_string_equal(tc_json_get_string(m, "confidence"),
	    "source_unit_exact");
	assert_string_equal(tc_json_get_string(m, "processing_status"),
	    "processed");
	assert_json(tc_json_get(m, "covered_unit_ids"), "[\"block.compute\"]");
	assert_json(tc_json_get(m, "source_intervals"), "[{\"end_offset\":18,"
	    "\"source_file\":\"model.dsl\",\"start_offset\":0,"
	    "\"syntax_tree_hash\":\"" E64 "\"}]");
	assert_json(tc_json_get(m, "consensus"), "{\"counterexample_block_"
	    "instances\":[],\"supporting_block_instances\":[\"block-instance-A\"],"
	    "\"validated_step_ids\":[1,2,3]}");
	assert_json(tc_json_get(m, "original_child_occurrences"),
	    "[[\"original-stream\",0,\"Compute\",\"VECTOR\"]]");
	assert_json(tc_json_get(m, "mapped_calibration_node_keys"),
	    "[\"calibration-9\"]");
	assert_true(strncmp(tc_json_get_string(m, "structural_family"),
	    "family:", 7) == 0);
	assert_json(tc_json_get(map, "assignment_coverage"), "{"
	    "\"assigned_calibration_node_count\":1,\"processed_sk_group_count\":1,"
	    "\"projected_calibration_node_count\":1,"
	    "\"skipped_calibration_node_count\":0,"
	    "\"skipped_calibration_node_keys\":[],\"skipped_sk_group_count\":0}");
	assert_string_equal(tc_json_get_string(map, "protocol"),
	    "sk_source_map_v1");
	assert_true(tc_json_get(map, "calibration_source_manifest_fingerprint")
	    == NULL);
	copy = tc_json_clone(map);
	tc_json_object_remove(copy, "map_fingerprint");
	tc_json_digest(copy, hex, NULL);
	assert_string_equal(tc_json_get_string(map, "map_fingerprint"), hex);
	tc_json_free(copy);
	tc_json_free(map);
	skin_free(&in);
}

/* _partial_assignment_projection: a target and an outside node, steps
 * 3, 4, 5 partitioned with one of them exact */
static tc_json *
partial_projection(bool target_assigned)
{
	const char *exact = target_assigned ? "calibration-target" :
	    "calibration-outside";
	const char *skipped = target_assigned ? "calibration-outside" :
	    "calibration-target";
	tc_buf rv = TC_BUF_INIT;
	tc_json *p;
	int step;

	tc_buf_putc(&rv, '[');
	for (step = 3; step <= 5; step++)
		tc_buf_printf(&rv, "%s{\"step_id\":%d,\"passed\":false,"
		    "\"assignment_partition_complete\":true,"
		    "\"exact_assigned_calibration_node_keys\":[\"%s\"],"
		    "\"skipped_calibration_node_keys\":[\"%s\"],"
		    "\"conflicting_calibration_node_keys\":[]}",
		    step > 3 ? "," : "", step, exact, skipped);
	tc_buf_putc(&rv, ']');
	p = projection("[" OCC("original-outside", "calibration-outside",
	    "original-stream", 1, "OutsideUnit") "," OCC("original-target",
	    "calibration-target", "original-stream", 0, "Compute") "]",
	    tc_buf_cstr(&rv), "[]");
	tc_buf_free(&rv);
	return p;
}

static void
partial_inputs(struct skin *in, bool target_assigned)
{
	skin_init(in);
	tc_json_free(in->proj);
	in->proj = partial_projection(target_assigned);
	tc_json_object_set(tc_json_get(in->fused, "sk_groups")->u.arr.items[0],
	    "original_child_node_keys", parse("[\"original-target\"]"));
	tc_json_object_set_string(tc_json_get(in->units,
	    "assignments")->u.arr.items[0], "calibration_node_key",
	    "calibration-target");
}

/* test_source_map_processes_target_and_skips_unrelated_unassigned_node */
static void
a_target_is_processed_beside_an_unassigned_node(void **state)
{
	struct skin in;
	tc_json *map;
	const tc_json *m;

	(void)state;
	partial_inputs(&in, true);
	map = rebuild(&in, NULL);
	m = first_mapping(map);
	assert_string_equal(tc_json_get_string(m, "processing_status"),
	    "processed");
	assert_string_equal(tc_json_get_string(m, "relation"), "exact_cover");
	assert_json(tc_json_get(tc_json_get(m, "consensus"),
	    "validated_step_ids"), "[3,4,5]");
	assert_json(tc_json_get(tc_json_get(map, "assignment_coverage"),
	    "skipped_calibration_node_keys"), "[\"calibration-outside\"]");
	tc_json_free(map);
	skin_free(&in);
}

/* test_source_map_skips_group_when_target_child_is_not_exact_assigned */
static void
a_target_not_exactly_assigned_is_skipped(void **state)
{
	struct skin in;
	tc_json *map;
	const tc_json *m;

	(void)state;
	partial_inputs(&in, false);
	map = rebuild(&in, NULL);
	m = first_mapping(map);
	assert_string_equal(tc_json_get_string(m, "processing_status"),
	    "skipped");
	assert_string_equal(tc_json_get_string(m, "relation"), "unmapped");
	assert_string_equal(tc_json_get_string(m, "confidence"),
	    "diagnostic_only");
	assert_json(tc_json_get(m, "mapping_blockers"),
	    "[\"target_child_three_step_validation_missing\"]");
	assert_json(tc_json_get(tc_json_get(map, "assignment_coverage"),
	    "skipped_sk_group_count"), "1");
	tc_json_free(map);
	skin_free(&in);
}

/* test_source_map_skips_cross_block_group_without_aborting */
static void
a_child_assigned_to_another_block_is_skipped(void **state)
{
	struct skin in;
	tc_json *map, *other, *inst;
	const tc_json *m;

	(void)state;
	skin_init(&in);
	inst = tc_json_get(in.blocks, "instances");
	other = tc_json_clone(inst->u.arr.items[0]);
	tc_json_object_set_string(other, "block_instance_id",
	    "block-instance-B");
	tc_json_object_set_string(tc_json_get(other, "runtime_scope_binding"),
	    "value", "runtime.block.B");
	tc_json_array_push(inst, other);
	tc_json_object_set_string(tc_json_get(in.units,
	    "assignments")->u.arr.items[0], "block_instance_id",
	    "block-instance-B");
	map = rebuild(&in, NULL);
	m = first_mapping(map);
	assert_string_equal(tc_json_get_string(m, "processing_status"),
	    "skipped");
	assert_string_equal(tc_json_get_string(m, "relation"), "unmapped");
	assert_json(tc_json_get(m, "mapping_blockers"),
	    "[\"target_child_block_mismatch\"]");
	assert_json(tc_json_get(m, "cross_block_calibration_node_keys"),
	    "[\"calibration-9\"]");
	tc_json_free(map);
	skin_free(&in);
}

/* test_template_consensus_rejects_any_observed_family_counterexample:
 * four blocks of one family, the fourth on another unit */
static void
a_family_counterexample_denies_template_confidence(void **state)
{
	struct skin in;
	tc_buf occ = TC_BUF_INIT, blk = TC_BUF_INIT, asg = TC_BUF_INIT;
	tc_buf grp = TC_BUF_INIT;
	tc_json *map, *unit;
	const tc_json *maps;
	size_t i;
	int k;

	(void)state;
	skin_init(&in);
	for (k = 0; k < 4; k++) {
		const char *sep = k > 0 ? "," : "[";

		tc_buf_printf(&occ, "%s{\"original_node_key\":\"original-%d\","
		    "\"calibration_node_key\":\"calibration-%d\",\"original\":"
		    "[\"stream\",%d,\"Compute\",\"VECTOR\"]}", sep, k, k, k);
		tc_buf_printf(&blk, "%s{\"block_instance_id\":\"block-%d\","
		    "\"block_template_id\":\"block.execute\","
		    "\"runtime_scope_binding\":{\"method\":\"exact_scope_name\","
		    "\"value\":\"runtime.block.%d\"},\"control_flow_path\":"
		    "\"adapter-path:main\"}", sep, k, k);
		tc_buf_printf(&asg, "%s{\"calibration_node_key\":"
		    "\"calibration-%d\",\"block_instance_id\":\"block-%d\","
		    "\"unit_id\":\"%s\",\"control_flow_path\":"
		    "\"adapter-path:main\",\"evidence_records\":[{\"artifact_id\":"
		    "\"assignment-log\",\"record_id\":\"assignment-%d\","
		    "\"record_fingerprint\":\"%064x\"}]}", sep, k, k,
		    k < 3 ? "block.compute" : "block.alternative", k, k + 20);
		tc_buf_printf(&grp, "%s{\"device_id\":0,\"model_id\":\"48\","
		    "\"block_instance_id\":\"block-%d\",\"source_scope\":"
		    "\"runtime.block.%d\",\"candidate_source_scope\":\"decode\","
		    "\"sk_occurrence_fingerprint\":\"%064x\","
		    "\"baseline_projection_fingerprint\":\"%064x\","
		    "\"block_local_sk_ordinal\":0,\"ordered_child_ops\":"
		    "[\"Compute\"],\"original_child_node_keys\":[\"original-%d\"],"
		    "\"evidence_records\":[{\"artifact_id\":\"fused-log\","
		    "\"record_id\":\"fused-%d\",\"record_fingerprint\":"
		    "\"%064x\"}]}", sep, k, k, k + 1, k + 10, k, k, k + 30);
	}
	tc_buf_putc(&occ, ']');
	tc_buf_putc(&blk, ']');
	tc_buf_putc(&asg, ']');
	tc_buf_putc(&grp, ']');
	tc_json_free(in.proj);
	in.proj = projection(tc_buf_cstr(&occ), "[]", "[1,2,3]");
	unit = tc_json_clone(tc_json_get(in.smf, "units")->u.arr.items[0]);
	tc_json_object_set_string(unit, "unit_id", "block.alternative");
	tc_json_array_push(tc_json_get(in.smf, "units"), unit);
	seal(in.smf, "manifest_fingerprint");
	tc_json_object_set_string(in.blocks, "source_manifest_fingerprint",
	    tc_json_get_string(in.smf, "manifest_fingerprint"));
	tc_json_object_set(in.blocks, "instances", parse(tc_buf_cstr(&blk)));
	tc_json_object_set(in.units, "assignments", parse(tc_buf_cstr(&asg)));
	tc_json_object_set(in.fused, "sk_groups", parse(tc_buf_cstr(&grp)));
	map = rebuild(&in, NULL);
	maps = tc_json_get(map, "mappings");
	assert_int_equal(maps->u.arr.len, 4);
	for (i = 0; i < 4; i++)
		assert_string_equal(tc_json_get_string(maps->u.arr.items[i],
		    "confidence"), "source_unit_exact");
	assert_json(tc_json_get(tc_json_get(maps->u.arr.items[0], "consensus"),
	    "counterexample_block_instances"), "[\"block-3\"]");
	/* three agreeing blocks and no counterexample: template exact */
	tc_json_free(map);
	tc_json_object_set_string(tc_json_get(in.units,
	    "assignments")->u.arr.items[3], "unit_id", "block.compute");
	map = rebuild(&in, NULL);
	maps = tc_json_get(map, "mappings");
	for (i = 0; i < 4; i++)
		assert_string_equal(tc_json_get_string(maps->u.arr.items[i],
		    "confidence"), "source_unit_template_exact");
	assert_json(tc_json_get(tc_json_get(maps->u.arr.items[0], "consensus"),
	    "supporting_block_instances"),
	    "[\"block-0\",\"block-1\",\"block-2\",\"block-3\"]");
	tc_json_free(map);
	tc_buf_free(&occ);
	tc_buf_free(&blk);
	tc_buf_free(&asg);
	tc_buf_free(&grp);
	skin_free(&in);
}

/* rebuild with one edit; the refusal must be want */
static void
refused(void (*edit)(struct skin *), const char *want)
{
	struct skin in;
	char *msg;

	skin_init(&in);
	edit(&in);
	assert_null(rebuild(&in, &msg));
	assert_non_null(msg);
	assert_string_equal(msg, want);
	free(msg);
	skin_free(&in);
}

static void
edit_projection_fp(struct skin *in)
{
	tc_json_object_set_string(in->proj, "projection_fingerprint", A64);
}

static void
edit_ambiguous(struct skin *in)
{
	tc_json_object_set_int(in->proj, "alternative_node_correspondence_count",
	    2);
	seal(in->proj, "projection_fingerprint");
}

static void
edit_duplicate_unit(struct skin *in)
{
	tc_json *u = tc_json_get(in->smf, "units");

	tc_json_array_push(u, tc_json_clone(u->u.arr.items[0]));
	seal(in->smf, "manifest_fingerprint");
}

static void
edit_unprojected(struct skin *in)
{
	tc_json_object_set_string(tc_json_get(in->units,
	    "assignments")->u.arr.items[0], "calibration_node_key", "ghost");
}

static void
edit_no_evidence(struct skin *in)
{
	tc_json_object_set(tc_json_get(in->fused, "sk_groups")->u.arr.items[0],
	    "evidence_records", tc_json_new_array());
}

static void
edit_duplicate_ordinal(struct skin *in)
{
	tc_json *g = tc_json_get(in->fused, "sk_groups");
	tc_json *copy = tc_json_clone(g->u.arr.items[0]);

	tc_json_object_set_string(copy, "sk_occurrence_fingerprint", D64);
	tc_json_array_push(g, copy);
}

static void
edit_inventory_source(struct skin *in)
{
	tc_json_object_set_string(in->blocks, "source_manifest_fingerprint",
	    A64);
}

static void
sk_map_refusals_are_the_references(void **state)
{
	(void)state;
	refused(edit_projection_fp, "calibration projection fingerprint "
	    "mismatch");
	refused(edit_ambiguous, "calibration projection is ambiguous");
	refused(edit_duplicate_unit, "duplicate source unit block.compute");
	refused(edit_unprojected, "assignment node ghost is duplicate or not "
	    "projected");
	refused(edit_no_evidence, "sk_groups[0] requires normalized log "
	    "evidence");
	refused(edit_duplicate_ordinal, "block block-instance-A has duplicate "
	    "block-local SK ordinals");
	refused(edit_inventory_source, "block inventory source manifest "
	    "fingerprint mismatch");
}


/* ---- the projection replay (smap_project.c) --------------------------- */

/* project_graphs(original, calibration, runtime): the projection, or NULL
 * and *msg the refusal */
static tc_json *
project(const char *original, const char *calibration, const char *runtime,
    char **msg)
{
	tc_json *o = parse(original), *c = parse(calibration);
	tc_json *rv = runtime != NULL ? parse(runtime) : NULL, *p;
	tc_error err = TC_ERROR_INIT;

	p = tc_analysis__project_graphs(o, c, rv, NULL, NULL, NULL, &err);
	*msg = p == NULL ? tc_xstrdup(tc_error_msg(&err)) : NULL;
	tc_error_clear(&err);
	tc_json_free(o);
	tc_json_free(c);
	tc_json_free(rv);
	return p;
}

/* a graph of one stream of n nodes labelled op, chained or not */
static char *
stream_graph(const char *prefix, size_t n, const char *op, bool chained)
{
	tc_buf b = TC_BUF_INIT;
	size_t i;

	tc_buf_printf(&b, "{\"protocol\":\"normalized_business_graph_v2\","
	    "\"collection_fingerprint\":\"%s\",\"identity\":{\"device_id\":0,"
	    "\"model_id\":\"48\"},\"nodes\":[", prefix);
	for (i = 0; i < n; i++)
		tc_buf_printf(&b, "%s{\"node_key\":\"%s-%zu\",\"stream_role\":"
		    "\"%s-stream\",\"stream_ordinal\":%zu,\"canonical_op\":\"%s\","
		    "\"core_family\":\"VECTOR\",\"observable_signature\":{}}",
		    i ? "," : "", prefix, i, prefix, i, op);
	tc_buf_puts(&b, "],\"edges\":[");
	for (i = 0; chained && i + 1 < n; i++)
		tc_buf_printf(&b, "%s{\"source\":\"%s-%zu\",\"target\":\"%s-%zu\","
		    "\"kind\":\"STREAM_ORDER\",\"ports\":{}}", i ? "," : "",
		    prefix, i, prefix, i + 1);
	tc_buf_puts(&b, "]}");
	return tc_buf_detach(&b, NULL);
}

/* test_projection_rejects_second_node_correspondence */
static void
a_second_correspondence_is_ambiguous(void **state)
{
	char *o = stream_graph("original", 2, "Same", false);
	char *c = stream_graph("calibration", 2, "Same", false);
	char *msg;

	(void)state;
	assert_null(project(o, c, NULL, &msg));
	assert_string_equal(msg, "graph correspondence is missing or ambiguous; "
	    "exact projection requires one solution");
	free(msg);
	free(o);
	free(c);
}

/* A bundle is hostile: a graph whose nodes all look alike sends the node
 * search down a tree it cannot finish (the reference never returns);
 * tunectl's search counts its work and gives up with its own refusal. */
static void
an_alike_graph_exhausts_the_search_budget(void **state)
{
	unsigned long long saved = tc_analysis__search_work_max;
	char *o = stream_graph("original", 400, "Same", false);
	char *c = stream_graph("calibration", 400, "Same", false);
	char *msg;

	(void)state;
	tc_analysis__search_work_max = 50000000ULL;
	assert_null(project(o, c, NULL, &msg));
	tc_analysis__search_work_max = saved;
	assert_string_equal(msg, "graph correspondence search gave up after "
	    "50000000 units of work: its nodes and streams are too alike to "
	    "project exactly");
	free(msg);
	free(o);
	free(c);
}

/* test_projection_uses_proven_stream_chain_for_repeated_nodes */
static void
a_proven_chain_orders_repeated_nodes(void **state)
{
	char *o = stream_graph("original", 120, "Repeated", true);
	char *c = stream_graph("calibration", 120, "Repeated", true);
	char *msg;
	tc_json *p = project(o, c, NULL, &msg);
	const tc_json *occ;
	size_t i;

	(void)state;
	assert_non_null(p);
	occ = tc_json_get(p, "occurrences");
	assert_int_equal(occ->u.arr.len, 120);
	for (i = 0; i < 120; i++) {
		const tc_json *x = occ->u.arr.items[i];

		assert_true(tc_json_equal(tc_json_get(x, "original")->
		    u.arr.items[1], tc_json_get(x, "calibration")->u.arr.items[1]));
	}
	assert_json(tc_json_get(p, "stream_role_assignment"),
	    "{\"original-stream\":\"calibration-stream\"}");
	tc_json_free(p);
	free(o);
	free(c);
}

/* test_partial_assignment_requires_a_complete_disjoint_partition */
static void
runtime_partitions_must_be_complete_and_disjoint(void **state)
{
	char *o = stream_graph("original", 1, "Compute", true);
	char *c = stream_graph("calibration", 1, "Compute", true);
	char *msg;

	(void)state;
	assert_null(project(o, c, "[{\"step_id\":3,\"business_occurrence_count\":1,"
	    "\"assigned_occurrence_count\":1,\"unscoped_occurrence_count\":0,"
	    "\"conflicting_assignment_count\":0,\"exact_assigned_calibration_"
	    "node_keys\":[\"calibration-0\"],\"skipped_calibration_node_keys\":"
	    "[]}]", &msg));
	assert_string_equal(msg, "runtime_validation[0] must provide all "
	    "assignment partition fields");
	free(msg);
	assert_null(project(o, c, "[{\"step_id\":3,\"business_occurrence_count\":1,"
	    "\"assigned_occurrence_count\":1,\"unscoped_occurrence_count\":0,"
	    "\"conflicting_assignment_count\":0,\"exact_assigned_calibration_"
	    "node_keys\":[\"calibration-0\"],\"skipped_calibration_node_keys\":"
	    "[\"calibration-0\"],\"conflicting_calibration_node_keys\":[]}]",
	    &msg));
	assert_string_equal(msg, "runtime_validation[0] assignment partitions "
	    "overlap");
	free(msg);
	free(o);
	free(c);
}

/* Two streams, a DATA edge with ports and an op holding a quote (its
 * repr takes double quotes): the fingerprints a separate implementation
 * of the recipe gives (tests/fixtures/analysis/smap/mkbundle.py). */
#define TWO_STREAMS(p, r0, r1) "{\"protocol\":\"normalized_business_graph_v2\"," \
	"\"collection_fingerprint\":\"" p "\",\"identity\":{\"device_id\":0," \
	"\"model_id\":\"48\"},\"nodes\":[{\"node_key\":\"" p "2\"," \
	"\"stream_role\":\"" r1 "\",\"stream_ordinal\":0,\"canonical_op\":" \
	"\"Add\",\"core_family\":\"AI_VECTOR\",\"observable_signature\":{}}," \
	"{\"node_key\":\"" p "0\",\"stream_role\":\"" r0 "\",\"stream_ordinal\":0," \
	"\"canonical_op\":\"Mat'Mul\",\"core_family\":\"AI_CORE\"," \
	"\"observable_signature\":{\"dtype\":\"fp16\"}},{\"node_key\":\"" p \
	"1\",\"stream_role\":\"" r0 "\",\"stream_ordinal\":1,\"canonical_op\":" \
	"\"Add\",\"core_family\":\"AI_VECTOR\"}],\"edges\":[{\"source\":\"" p \
	"0\",\"target\":\"" p "2\",\"kind\":\"DATA\",\"ports\":{\"x\":1}}," \
	"{\"source\":\"" p "0\",\"target\":\"" p "1\",\"kind\":\"STREAM_ORDER\"}]}"

static void
projection_fingerprints_follow_the_recipe(void **state)
{
	char *msg;
	tc_json *p = project(TWO_STREAMS("a", "s0", "s1"),
	    TWO_STREAMS("c", "t0", "t1"), "[{\"step_id\":1,\"passed\":false}]",
	    &msg);
	const tc_json *occ;

	(void)state;
	assert_non_null(p);
	assert_string_equal(tc_json_get_string(p, "original_graph_fingerprint"),
	    "a157c7e1775c6d2f6000da7ec9428f1b3eee7c052adf359960cc1a03798e5c0c");
	occ = tc_json_get(p, "occurrences");
	assert_string_equal(tc_json_get_string(occ->u.arr.items[0],
	    "calibration_node_key"), "c0");
	assert_string_equal(tc_json_get_string(occ->u.arr.items[0],
	    "incident_edge_fingerprint"),
	    "8c54e6bdb1c3fb9f27913d2a729913132e1f5d8894470eaf6bfb44393dc6bd66");
	assert_string_equal(tc_json_get_string(occ->u.arr.items[2],
	    "incident_edge_fingerprint"),
	    "3d07ef102892edb844039443560e5443490a995f423d3b43f07e2c20d303926d");
	assert_json(tc_json_get(p, "stream_role_assignment"),
	    "{\"s0\":\"t0\",\"s1\":\"t1\"}");
	assert_json(tc_json_get(p, "validated_step_ids"), "[]");
	assert_json(tc_json_get(tc_json_get(p, "runtime_validation")->
	    u.arr.items[0], "assignment_partition_complete"), "false");
	assert_string_equal(tc_json_get_string(p,
	    "original_collection_fingerprint"), "a");
	tc_json_free(p);
}

/* Without STREAM_ORDER chains the node search runs: distinct labels give
 * one correspondence, across renamed streams. */
static void
the_node_search_finds_a_unique_correspondence(void **state)
{
	static const char *const g = "{\"protocol\":"
	    "\"normalized_business_graph_v2\",\"collection_fingerprint\":\"%s\","
	    "\"identity\":{\"device_id\":1,\"model_id\":7},\"nodes\":["
	    "{\"node_key\":\"%s-b\",\"stream_role\":\"%s\",\"stream_ordinal\":1,"
	    "\"canonical_op\":\"B\",\"core_family\":\"VECTOR\"},"
	    "{\"node_key\":\"%s-a\",\"stream_role\":\"%s\",\"stream_ordinal\":0,"
	    "\"canonical_op\":\"A\",\"core_family\":\"VECTOR\"}],\"edges\":["
	    "{\"source\":\"%s-a\",\"target\":\"%s-b\",\"kind\":\"DATA\"}]}";
	char *o = tc_xasprintf(g, "o", "o", "os", "o", "os", "o", "o");
	char *c = tc_xasprintf(g, "c", "c", "cs", "c", "cs", "c", "c");
	char *msg;
	tc_json *p = project(o, c, NULL, &msg);

	(void)state;
	assert_non_null(p);
	assert_json(tc_json_get(p, "stream_role_assignment"), "{\"os\":\"cs\"}");
	assert_string_equal(tc_json_get_string(tc_json_get(p,
	    "occurrences")->u.arr.items[0], "calibration_node_key"), "c-a");
	assert_json(tc_json_get(p, "model_id"), "7");
	tc_json_free(p);
	free(o);
	free(c);
}

static void
projection_refusals_are_the_references(void **state)
{
	char *o = stream_graph("original", 2, "Compute", true);
	char *c = stream_graph("calibration", 3, "Compute", true);
	char *msg;

	(void)state;
	assert_null(project(o, c, NULL, &msg));
	assert_string_equal(msg, "business kernel count differs");
	free(msg);
	assert_null(project("{\"protocol\":\"x\"}", c, NULL, &msg));
	assert_string_equal(msg, "original graph.protocol must be "
	    "normalized_business_graph_v2");
	free(msg);
	free(c);
	c = stream_graph("calibration", 2, "Compute", false);
	assert_null(project(o, c, NULL, &msg));
	assert_string_equal(msg, "typed business edge counts differ");
	free(msg);
	free(o);
	free(c);
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
		cmocka_unit_test(sentinel_names_match_the_references_pattern),
		cmocka_unit_test(a_graph_without_sentinels_has_the_not_present_object),
		cmocka_unit_test(a_complete_chain_is_proposed),
		cmocka_unit_test(broken_chains_are_rejected_by_the_proposal),
		cmocka_unit_test(a_repeated_tag_is_partitioned_by_occurrence),
		cmocka_unit_test(a_balanced_chain_across_streams_is_proposed),
		cmocka_unit_test(two_identical_streams_have_a_fingerprint),
		cmocka_unit_test(symmetric_streams_around_one_event_are_numbered_away),
		cmocka_unit_test(equal_labels_with_different_wiring_differ),
		cmocka_unit_test(a_marker_only_bridge_is_rebuilt_from_the_sources),
		cmocka_unit_test(an_exact_child_set_covers_its_unit),
		cmocka_unit_test(a_target_is_processed_beside_an_unassigned_node),
		cmocka_unit_test(a_target_not_exactly_assigned_is_skipped),
		cmocka_unit_test(a_child_assigned_to_another_block_is_skipped),
		cmocka_unit_test(a_family_counterexample_denies_template_confidence),
		cmocka_unit_test(sk_map_refusals_are_the_references),
		cmocka_unit_test(a_second_correspondence_is_ambiguous),
		cmocka_unit_test(a_proven_chain_orders_repeated_nodes),
		cmocka_unit_test(an_alike_graph_exhausts_the_search_budget),
		cmocka_unit_test(runtime_partitions_must_be_complete_and_disjoint),
		cmocka_unit_test(projection_fingerprints_follow_the_recipe),
		cmocka_unit_test(the_node_search_finds_a_unique_correspondence),
		cmocka_unit_test(projection_refusals_are_the_references),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
