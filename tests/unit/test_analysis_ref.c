/*
 * test_analysis_ref.c - the reference's unit tests of its profile
 * analyzer (test_fusion_performance.py, ProfilerAnalysisTest), ported
 * value by value onto tunectl's analysis library: robust statistics and
 * the classification floors, declared-change fingerprints and RFC 6901
 * pointers, workload aliases, the mapping coverage of a native inventory
 * and the SK child trace.  tests/fixtures/analysis-ref/README.md maps each
 * reference test to the test here.
 */
#include <math.h>
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

static const struct tc_analysis_thresholds defaults = { 3.0, 1.0, 3 };

static struct an_stats
stats_of(const double *v, size_t n)
{
	struct an_stats s;

	assert_true(tc_analysis__robust_stats(v, n, false, &s));
	return s;
}

/* classify_performance(_robust_stats(b), _robust_stats(c), errors) under t */
static struct an_classification
classify_with(const double *b, size_t nb, const double *c, size_t nc,
    const struct tc_analysis_thresholds *t, const tc_json *errors)
{
	struct an_stats sb = stats_of(b, nb), sc = stats_of(c, nc);
	struct an_classification cl;

	tc_analysis__classify(&sb, &sc, t, errors, &cl);
	return cl;
}

static tc_json *
parse(const char *text)
{
	tc_error err = TC_ERROR_INIT;
	tc_json *v = tc_json_parse(text, strlen(text), &err);

	if (v == NULL)
		fail_msg("%s: %s", text, tc_error_msg(&err));
	return v;
}

static int64_t
int_of(const tc_json *v)
{
	int64_t i = -1;

	assert_true(tc_json_int64(v, &i));
	return i;
}

static bool
has(const tc_json *list, const char *code)
{
	return tc_analysis__list_has(list, code);
}

/* test_robust_stats_discard_non_finite_occurrences */
static void
robust_stats_discard_non_finite_occurrences(void **state)
{
	const double v[] = { 99, 100, 101, NAN, INFINITY, -INFINITY };
	struct an_stats s;

	(void)state;
	s = stats_of(v, 6);
	assert_int_equal(s.count, 3);
	assert_true(s.p50.ok && isfinite(s.p50.v));
	assert_true(s.p90.ok && isfinite(s.p90.v));
	assert_true(s.mad.ok && isfinite(s.mad.v));
	assert_true(isfinite(s.min) && isfinite(s.max));
}

/* test_robust_stats_apply_noise_and_absolute_floors (the noisy case),
 * test_minimum_sample_balanced_dispersion_remains_classifiable */
static void
balanced_dispersion_stays_classifiable_above_the_noise_floor(void **state)
{
	static const double b[] = { 90, 100, 110 }, c[] = { 80, 95, 100 };
	struct an_classification cl;

	(void)state;
	cl = classify_with(b, 3, c, 3, &defaults, NULL);
	assert_true(cl.noise_pct.ok && cl.noise_pct.v > 3.0);
	assert_string_not_equal(cl.classification, "insufficient_evidence");
	assert_false(has(cl.errors, "minimum_sample_unrepresented_tail"));
	tc_json_free(cl.errors);
}

/* test_minimum_sample_unrepresented_tail_requires_reprofile (both cases) */
static void
an_unrepresented_tail_of_three_samples_requires_reprofile(void **state)
{
	static const double b1[] = { 14.38, 15.66, 46.82 };
	static const double c1[] = { 33.62, 35.24, 35.54 };
	static const double b2[] = { 16.04, 49.58, 49.60 };
	static const double c2[] = { 31.82, 32.36, 32.90 };
	struct an_classification cl;

	(void)state;
	cl = classify_with(b1, 3, c1, 3, &defaults, NULL);
	assert_string_equal(cl.classification, "insufficient_evidence");
	assert_true(has(cl.errors, "minimum_sample_unrepresented_tail"));
	tc_json_free(cl.errors);
	cl = classify_with(b2, 3, c2, 3, &defaults, NULL);
	assert_string_equal(cl.classification, "insufficient_evidence");
	assert_true(has(cl.errors, "minimum_sample_unrepresented_tail"));
	tc_json_free(cl.errors);
}

/* test_hard_occurrence_minimum_cannot_be_lowered */
static void
the_hard_occurrence_minimum_cannot_be_lowered(void **state)
{
	static const double b[] = { 8, 8 }, c[] = { 6, 6 };
	struct tc_analysis_thresholds t = defaults;
	struct an_classification cl;
	long n;

	(void)state;
	for (n = 1; n <= 2; n++) {
		t.min_occurrences = n;
		cl = classify_with(b, (size_t)n, c, (size_t)n, &t, NULL);
		assert_string_equal(cl.classification, "insufficient_evidence");
		assert_true(has(cl.errors, "insufficient_occurrences"));
		tc_json_free(cl.errors);
	}
}

/* test_non_finite_derived_threshold_is_insufficient_and_json_safe */
static void
zero_medians_leave_no_noise_threshold(void **state)
{
	static const double z[] = { 0, 0, 0 };
	struct an_classification cl;

	(void)state;
	cl = classify_with(z, 3, z, 3, &defaults, NULL);
	assert_string_equal(cl.classification, "insufficient_evidence");
	assert_true(has(cl.errors, "non_finite_performance_statistics"));
	assert_false(cl.noise_pct.ok);		/* null in the document */
	tc_json_free(cl.errors);
}

/* test_finite_occurrences_with_overflowing_derivations_are_insufficient */
static void
overflowing_derivations_are_insufficient(void **state)
{
	static const double b1[] = { 1e308, 1e308, 1e308 };
	static const double c1[] = { -1e308, -1e308, -1e308 };
	static const double m[] = { -1e308, 1e-308, 1e308 };
	struct an_classification cl;

	(void)state;
	cl = classify_with(b1, 3, c1, 3, &defaults, NULL);
	assert_string_equal(cl.classification, "insufficient_evidence");
	assert_true(has(cl.errors, "non_finite_derived_statistics"));
	tc_json_free(cl.errors);
	cl = classify_with(m, 3, m, 3, &defaults, NULL);
	assert_string_equal(cl.classification, "insufficient_evidence");
	assert_true(has(cl.errors, "non_finite_derived_statistics"));
	assert_true(!cl.noise_pct.ok || isfinite(cl.noise_pct.v));
	assert_true(!cl.improvement_pct.ok || isfinite(cl.improvement_pct.v));
	tc_json_free(cl.errors);
}

/* validate_fingerprints over JSON texts; -1 (err set) when refused */
static int
fingerprints(const char *bc, const char *cc, const char *bw, const char *cw,
    const char *declared, struct tc_analysis__fingerprints *f, tc_error *err)
{
	tc_json *v[5] = { parse(bc), parse(cc), parse(bw), parse(cw),
	    parse(declared) };
	int rc, i;

	memset(f, 0, sizeof(*f));
	rc = tc_analysis__fingerprints(v[0], v[1], v[2], v[3], v[4], f, err);
	for (i = 0; i < 5; i++)
		tc_json_free(v[i]);
	return rc;
}

#define WORKLOAD "{\"model\":\"demo\",\"input\":{\"tokens\":128},\"batch\":1," \
    "\"rank_size\":8,\"mode\":\"prefill_decode\",\"warmup\":1," \
    "\"iterations\":10,\"runtime\":{\"dtype\":\"float16\"}}"

/* test_declared_config_changes_preserve_control_fingerprint,
 * test_canonical_fingerprint_ignores_json_key_order */
static void
declared_changes_keep_the_control_fingerprint(void **state)
{
	struct tc_analysis__fingerprints f, g;
	tc_error err = TC_ERROR_INIT;

	(void)state;
	assert_int_equal(fingerprints(
	    "{\"runtime\":{\"rank_size\":8},\"superkernel\":{\"enabled\":false,\"scope\":[]}}",
	    "{\"superkernel\":{\"scope\":[\"decoder.layer.0\"],\"enabled\":true},\"runtime\":{\"rank_size\":8}}",
	    WORKLOAD, WORKLOAD,
	    "{\"allowed_json_pointers\":[\"/superkernel/enabled\",\"/superkernel/scope\"],"
	    "\"only_change_zh\":\"x\"}", &f, &err), 0);
	assert_int_equal(f.evidence_errors->u.arr.len, 0);
	assert_string_not_equal(f.baseline_config, f.candidate_config);
	assert_string_equal(f.baseline_workload, f.candidate_workload);
	assert_true(f.workload_match && f.control_match);
	assert_string_equal(f.baseline_control, f.candidate_control);
	/* key order changes no fingerprint */
	assert_int_equal(fingerprints(
	    "{\"model\":{\"name\":\"demo\",\"batch\":1},\"rank_size\":8}",
	    "{\"rank_size\":8,\"model\":{\"batch\":1,\"name\":\"demo\"}}",
	    WORKLOAD, WORKLOAD, "{\"allowed_json_pointers\":[]}", &g, &err), 0);
	assert_string_equal(g.baseline_config, g.candidate_config);
	tc_analysis__fingerprints_free(&f);
	tc_analysis__fingerprints_free(&g);
}

/* test_undeclared_config_difference_blocks_scope_action,
 * test_array_pointers_preserve_undeclared_original_index_difference */
static void
undeclared_differences_make_every_verdict_insufficient(void **state)
{
	static const double b[] = { 8, 8, 8 }, c[] = { 6, 6, 6 };
	static const char *const cases[][3] = {
		{ "{\"runtime\":{\"rank_size\":8},\"superkernel\":{\"enabled\":false}}",
		  "{\"runtime\":{\"rank_size\":4},\"superkernel\":{\"enabled\":true}}",
		  "{\"allowed_json_pointers\":[\"/superkernel/enabled\"]}" },
		{ "{\"items\":[\"same-0\",\"same-1\",{\"frozen\":\"baseline\"}]}",
		  "{\"items\":[\"same-0\",\"same-1\",{\"frozen\":\"candidate\"}]}",
		  "{\"allowed_json_pointers\":[\"/items/0\",\"/items/1\"]}" },
	};
	struct tc_analysis__fingerprints f;
	struct an_classification cl;
	tc_error err = TC_ERROR_INIT;
	size_t i;

	(void)state;
	for (i = 0; i < 2; i++) {
		assert_int_equal(fingerprints(cases[i][0], cases[i][1], WORKLOAD,
		    WORKLOAD, cases[i][2], &f, &err), 0);
		assert_false(f.control_match);
		assert_true(has(f.evidence_errors, "undeclared_config_differences"));
		cl = classify_with(b, 3, c, 3, &defaults, f.evidence_errors);
		assert_string_equal(cl.classification, "insufficient_evidence");
		tc_json_free(cl.errors);
		tc_analysis__fingerprints_free(&f);
	}
}

/* test_array_pointers_allow_original_index_zero_and_one_changes,
 * test_json_pointer_removal_decodes_rfc6901_escapes,
 * test_array_pointer_batch_supports_nested_arrays_and_rfc6901_escapes,
 * test_array_pointer_indices_follow_rfc6901_array_index_syntax (valid),
 * test_declared_pointers_are_prevalidated_against_original_document
 * (an object key "01" is no array index) */
static void
declared_pointers_remove_exactly_what_they_name(void **state)
{
	static const char *const cases[][3] = {
		{ "{\"items\":[\"baseline-0\",\"baseline-1\",{\"frozen\":\"same\"}]}",
		  "{\"items\":[\"candidate-0\",\"candidate-1\",{\"frozen\":\"same\"}]}",
		  "[\"/items/0\",\"/items/1\"]" },
		{ "{\"a/b\":{\"~key\":\"remove\",\"keep\":true}}",
		  "{\"a/b\":{\"~key\":\"other\",\"keep\":true}}", "[\"/a~1b/~0key\"]" },
		{ "{\"outer\":{\"items/~\":[[\"remove-0\",\"remove-1\",\"keep\"]]}}",
		  "{\"outer\":{\"items/~\":[[\"other-0\",\"other-1\",\"keep\"]]}}",
		  "[\"/outer/items~1~0/0/0\",\"/outer/items~1~0/0/1\"]" },
		{ "{\"items\":[0,1,2,3,4,5,6,7,8,9,10]}",
		  "{\"items\":[\"a\",1,2,3,4,5,6,7,8,9,\"b\"]}", "[\"/items/0\",\"/items/10\"]" },
		{ "{\"items\":{\"01\":\"remove\",\"keep\":true}}",
		  "{\"items\":{\"01\":\"other\",\"keep\":true}}", "[\"/items/01\"]" },
	};
	struct tc_analysis__fingerprints f;
	tc_error err = TC_ERROR_INIT;
	char declared[256];
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		snprintf(declared, sizeof(declared),
		    "{\"allowed_json_pointers\":%s}", cases[i][2]);
		if (fingerprints(cases[i][0], cases[i][1], WORKLOAD, WORKLOAD,
		    declared, &f, &err) != 0)
			fail_msg("case %zu: %s", i, tc_error_msg(&err));
		if (!f.control_match)
			fail_msg("case %zu: control fingerprints differ", i);
		assert_int_equal(f.evidence_errors->u.arr.len, 0);
		tc_analysis__fingerprints_free(&f);
	}
}

/* test_array_pointer_indices_follow_rfc6901_array_index_syntax (invalid),
 * test_declared_pointers_are_prevalidated_against_original_document */
static void
non_canonical_indices_and_the_root_pointer_are_refused(void **state)
{
	static const struct { const char *pointers, *message; } cases[] = {
		{ "[\"/items/01\"]", "invalid RFC6901 array index" },
		{ "[\"/items/\\u0661\"]", "invalid RFC6901 array index" },
		{ "[\"/items/-\"]", "invalid RFC6901 array index" },
		{ "[\"/items\",\"/items/01\"]", "invalid RFC6901 array index" },
		{ "[\"/items/01\",\"/items\"]", "invalid RFC6901 array index" },
		{ "[\"\"]", "root JSON pointer" },
	};
	struct tc_analysis__fingerprints f;
	char declared[128];
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		tc_error err = TC_ERROR_INIT;

		snprintf(declared, sizeof(declared),
		    "{\"allowed_json_pointers\":%s}", cases[i].pointers);
		if (fingerprints("{\"items\":[\"zero\",\"one\"]}",
		    "{\"items\":[\"zero\",\"one\"]}", WORKLOAD, WORKLOAD,
		    declared, &f, &err) == 0)
			fail_msg("%s was accepted", cases[i].pointers);
		if (strstr(tc_error_msg(&err), cases[i].message) == NULL)
			fail_msg("%s: %s", cases[i].pointers, tc_error_msg(&err));
		tc_error_clear(&err);
		tc_analysis__fingerprints_free(&f);
	}
}

/* test_workload_manifest_accepts_complete_alias_manifest,
 * test_workload_manifest_validates_every_scalar_alias_and_conflict */
static void
workload_aliases_are_checked_concept_by_concept(void **state)
{
	static const struct { const char *workload, *code; } cases[] = {
		{ "{\"model_name\":\"demo\",\"sequence_length\":128,\"batch_size\":1,"
		  "\"world_size\":8,\"prefill_decode_mode\":\"prefill_decode\","
		  "\"warmup_iterations\":0,\"measurement_runs\":10,"
		  "\"runtime_options\":{\"dtype\":\"float16\"}}", NULL },
		{ "{\"model\":\"demo\",\"input\":{\"tokens\":128},\"batch\":1,"
		  "\"batch_size\":\"invalid\",\"rank_size\":8,\"mode\":\"m\",\"warmup\":1,"
		  "\"iterations\":10,\"runtime\":{}}", "workload_manifest_invalid_batch" },
		{ "{\"model\":\"demo\",\"input\":{\"tokens\":128},\"batch\":1,"
		  "\"batch_size\":2,\"rank_size\":8,\"mode\":\"m\",\"warmup\":1,"
		  "\"iterations\":10,\"runtime\":{}}", "workload_manifest_conflicting_batch" },
		{ "{\"model_id\":\"demo\",\"input\":{\"tokens\":128},\"batch\":1,"
		  "\"rank_size\":8,\"mode\":\"m\",\"warmup\":1,\"iterations\":10,"
		  "\"runtime\":{}}", "workload_manifest_missing_model" },
	};
	struct tc_analysis__fingerprints f;
	tc_error err = TC_ERROR_INIT;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		assert_int_equal(fingerprints("{\"frozen\":true}",
		    "{\"frozen\":true}", cases[i].workload, cases[i].workload,
		    "{\"allowed_json_pointers\":[],\"only_change_zh\":\"x\"}",
		    &f, &err), 0);
		if (cases[i].code == NULL) {
			assert_int_equal(f.evidence_errors->u.arr.len, 0);
		} else {
			assert_true(has(f.evidence_errors,
			    "workload_manifest_incomplete"));
			if (!has(f.evidence_errors, cases[i].code))
				fail_msg("case %zu lacks %s", i, cases[i].code);
		}
		tc_analysis__fingerprints_free(&f);
	}
}

/* test_mapping_coverage_does_not_merge_distinct_native_sk_inventory */
static void
mapping_coverage_keeps_distinct_native_inventory(void **state)
{
	static const int devraw[3][2] = { { 0, 7 }, { 1, 7 }, { 1, 8 } };
	tc_json *list = tc_json_new_array(), *cov;
	size_t i;

	(void)state;
	for (i = 0; i < 3; i++) {
		tc_json *d = parse("{\"sk_id\":\"sk-same-derived-identity\","
		    "\"model_id\":\"48\",\"child_count\":2,"
		    "\"candidate_binding_status\":\"bound\","
		    "\"mapping_confidence\":\"diagnostic_only\","
		    "\"mapping_blockers\":[\"cross_compile_runtime_id_not_identity\"]}");

		tc_json_object_set_int(d, "device_id", devraw[i][0]);
		tc_json_object_set_int(d, "raw_sk_id", devraw[i][1]);
		tc_json_array_push(list, d);
	}
	cov = tc_analysis__mapping_coverage(list);
	assert_int_equal(int_of(tc_json_get(cov, "total_sk_ids")), 3);
	assert_int_equal(int_of(tc_json_get(cov, "bound_sk_ids")), 3);
	assert_int_equal(int_of(tc_json_get(cov, "unmapped_sk_ids")), 3);
	assert_int_equal(int_of(tc_json_get(tc_json_get(cov,
	    "child_count_distribution"), "2")), 3);
	tc_json_free(cov);
	tc_json_free(list);
}

/* summarize_sk_child_profile of a trace written to a scratch file */
static tc_json *
child_trace(const char *events)
{
	char *dir = unit_tmpdir("analysis-ref"), *path, *text;
	tc_error err = TC_ERROR_INIT;
	tc_json *s;

	path = tc_xasprintf("%s/sk_prof_device_0.json", dir);
	text = tc_xasprintf("{\"traceEvents\":[%s]}", events);
	assert_int_equal(tc_write_atomic(path, text, strlen(text), 0, &err), 0);
	s = tc_analysis__sk_prof_summary(path, &err);
	if (s == NULL)
		fail_msg("%s", tc_error_msg(&err));
	unit_rmtree(dir);
	free(text);
	free(path);
	free(dir);
	return s;
}

#define VEC(ts, dur, extra) "{\"name\":\"static_kernel_Vector_hash\",\"ph\":\"X\"," \
    "\"ts\":" #ts ",\"dur\":" #dur extra ",\"args\":{\"kernelType\":\"AIV_ONLY\"}}"
#define CUBE(ts, dur, extra) "{\"name\":\"static_kernel_Cube_hash\",\"ph\":\"X\"," \
    "\"ts\":" #ts ",\"dur\":" #dur extra ",\"args\":{\"kernelType\":\"AIC_ONLY\"}}"

/* test_sk_child_trace_detects_internal_cube_vector_parallelism,
 * test_empty_sk_child_trace_is_missing_evidence_not_analysis_failure */
static void
the_child_trace_sees_cube_vector_parallelism(void **state)
{
	tc_json *s;

	(void)state;
	s = child_trace(VEC(0, 10, ",\"tid\":1") "," CUBE(2, 6, ",\"tid\":2"));
	assert_int_equal(int_of(tc_json_get(s, "event_count")), 2);
	assert_true(tc_json_truthy(tc_json_get(tc_json_get(s,
	    "multi_stream_analysis"), "cube_vector_parallel_detected")));
	tc_json_free(s);
	s = child_trace("");
	assert_int_equal(int_of(tc_json_get(s, "event_count")), 0);
	tc_json_free(s);
}

/* test_child_trace_stream_identity_gates_cube_vector_direct_evidence
 * (the summary half: stream counts and completeness) */
static void
the_child_trace_counts_known_stream_identities(void **state)
{
	static const struct { const char *events; int streams, known;
	    bool complete; } cases[] = {
		{ VEC(0, 5, "") "," CUBE(5, 5, ""), 0, 0, false },
		{ VEC(0, 5, ",\"tid\":7") "," CUBE(5, 5, ",\"tid\":7"), 1, 2, true },
		{ "{\"name\":\"static_kernel_Vector_hash\",\"ph\":\"X\",\"ts\":0,\"dur\":5,"
		  "\"args\":{\"streamId\":7,\"kernelType\":\"AIV_ONLY\"}},"
		  "{\"name\":\"static_kernel_Cube_hash\",\"ph\":\"X\",\"ts\":5,\"dur\":5,"
		  "\"args\":{\"stream_id\":8,\"kernelType\":\"AIC_ONLY\"}}", 2, 2, true },
	};
	size_t i;

	(void)state;
	for (i = 0; i < 3; i++) {
		tc_json *s = child_trace(cases[i].events);

		assert_int_equal(int_of(tc_json_get(s,
		    "stream_count")), cases[i].streams);
		assert_int_equal(int_of(tc_json_get(s,
		    "known_stream_event_count")), cases[i].known);
		assert_int_equal(tc_json_truthy(tc_json_get(s,
		    "stream_identity_complete")), cases[i].complete);
		tc_json_free(s);
	}
}

/* test_projected_trace_mapping.py:
 * test_scope_marker_names_are_not_globally_topology_only */
static void
scope_marker_kernels_are_not_topology_only(void **state)
{
	static const char *const names[] = { "sk_scope_kernel_begin_dav",
	    "sk_placeholder_kernel_dav", "sk_scope_kernel_end_dav",
	    "sk_scope_kernel_begin_dav_2201", "sk_placeholder_kernel_dav_2201",
	    "sk_scope_kernel_end_dav_2201" };
	struct an_gnode *nodes;
	size_t i, n, ns;
	tc_error err = TC_ERROR_INIT;
	char *text;
	tc_json *g;

	(void)state;
	for (i = 0; i < 6; i++) {
		text = tc_xasprintf("{\"version\":\"1.0\",\"modelId\":48,"
		    "\"deviceId\":0,\"totalStreams\":1,\"totalNodes\":1,"
		    "\"streams\":[{\"streamIdxInGraph\":6,\"nodeCount\":1,"
		    "\"nodes\":[{\"nodeId\":7,\"streamIdxInGraph\":6,"
		    "\"nodeIdxInStream\":0,\"nodeType\":\"KERNEL\","
		    "\"preNodeId\":\"none\",\"nextNodeId\":\"none\","
		    "\"taskInfo\":[{\"taskType\":\"KERNEL\",\"streamId\":94,"
		    "\"taskId\":11,\"kernelParams\":{\"funcName\":\"%s\","
		    "\"kernelType\":\"AI_VECTOR_CORE\",\"numBlocks\":1}}]}]}]}",
		    names[i]);
		g = parse(text);
		nodes = NULL;
		if (tc_analysis__graph_nodes(g, &nodes, &n, &ns, &err) != 0)
			fail_msg("%s: %s", names[i], tc_error_msg(&err));
		assert_int_equal(n, 1);
		assert_false(nodes[0].topology_only);
		tc_analysis__gnodes_free(nodes, n);
		tc_json_free(g);
		free(text);
	}
}

/* test_projection_op_removes_profiler_wrapper_but_preserves_op, through
 * the two steps it is made of (projection_op itself is file-local to
 * projection.c): canonical_op keeps the aclnn wrapper, whose last
 * component is the operator, and a COMMUNICATION core is communication */
static void
projection_tokens_keep_the_operator_of_an_aclnn_wrapper(void **state)
{
	char *op;

	(void)state;
	op = tc_analysis__canonical_op(
	    "aclnnQuantMatmulWeightNz_QuantBatchMatmulV3_QuantBatchMatmulV3");
	assert_string_equal(strrchr(op, '_') + 1, "QuantBatchMatmulV3");
	assert_int_equal(strncmp(op, "aclnn", 5), 0);
	free(op);
	assert_string_equal(tc_analysis__canonical_core_family("COMMUNICATION"),
	    "COMMUNICATION");
}

/* RoundFamilyTest (test_artifact_contract.py): both tests */
static void
round_suffixes_follow_the_collection_contract(void **state)
{
	static const char *const good[] = { "S1-AUTO", "S3-BASE", "S3-P1",
	    "S3-P2", "S3-FINAL" };
	static const char *const bad[][2] = { { "S3", "S3-P0" },
	    { "S1", "S1-AUTO-X" }, { " S3", "S3-P1" }, { "S3", " S3-P1" },
	    { "S3", "S3-P1 " }, { "S2", "S3-P1" }, { "", "-AUTO" } };
	char cand[8];
	size_t i;

	(void)state;
	for (i = 0; i < 5; i++) {
		snprintf(cand, sizeof(cand), "%.2s", good[i]);
		assert_true(tc_round_belongs_to_candidate(cand, good[i]));
	}
	for (i = 0; i < 7; i++)
		if (tc_round_belongs_to_candidate(bad[i][0], bad[i][1]))
			fail_msg("'%s' accepted for '%s'", bad[i][1], bad[i][0]);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(robust_stats_discard_non_finite_occurrences),
		cmocka_unit_test(balanced_dispersion_stays_classifiable_above_the_noise_floor),
		cmocka_unit_test(an_unrepresented_tail_of_three_samples_requires_reprofile),
		cmocka_unit_test(the_hard_occurrence_minimum_cannot_be_lowered),
		cmocka_unit_test(zero_medians_leave_no_noise_threshold),
		cmocka_unit_test(overflowing_derivations_are_insufficient),
		cmocka_unit_test(declared_changes_keep_the_control_fingerprint),
		cmocka_unit_test(undeclared_differences_make_every_verdict_insufficient),
		cmocka_unit_test(declared_pointers_remove_exactly_what_they_name),
		cmocka_unit_test(non_canonical_indices_and_the_root_pointer_are_refused),
		cmocka_unit_test(workload_aliases_are_checked_concept_by_concept),
		cmocka_unit_test(mapping_coverage_keeps_distinct_native_inventory),
		cmocka_unit_test(the_child_trace_sees_cube_vector_parallelism),
		cmocka_unit_test(the_child_trace_counts_known_stream_identities),
		cmocka_unit_test(round_suffixes_follow_the_collection_contract),
		cmocka_unit_test(scope_marker_kernels_are_not_topology_only),
		cmocka_unit_test(projection_tokens_keep_the_operator_of_an_aclnn_wrapper),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
