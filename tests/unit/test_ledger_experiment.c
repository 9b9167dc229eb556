/*
 * test_ledger_experiment.c - the reference's ExperimentLedgerTest
 * behaviours of one experiment result (superkernel-runtime-tools.md
 * docs/spec/ledger.md "Reference tests"): structural validation, mapping
 * predicates, enumerations and the path-role registry.  Merge behaviours are in
 * test_ledger_merge.c.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "test_ledger_fixture.h"

#define HEX64 "\"0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef\""

static tc_json *
errors_of(const tc_json *doc)
{
	return tc_experiment_structural_errors(doc);
}

static void
expect_valid(tc_json *doc)
{
	tc_json *errors = errors_of(doc);

	fx_dump(errors);
	assert_int_equal(errors->u.arr.len, 0);
	tc_json_free(errors);
	tc_json_free(doc);
}

/* Invalid, with some error containing needle. */
static void
expect_mentions(tc_json *doc, const char *needle)
{
	tc_json *errors = errors_of(doc);

	if (!fx_mentions(errors, needle)) {
		fprintf(stderr, "# no error mentions \"%s\"\n", needle);
		fx_dump(errors);
	}
	assert_true(errors->u.arr.len > 0);
	assert_true(fx_mentions(errors, needle));
	tc_json_free(errors);
	tc_json_free(doc);
}

/* A structural-exact (kernel projection) mapping on a decision. */
static void
make_structural(tc_json *doc, const char *decision_ptr)
{
	char p[256];

	snprintf(p, sizeof(p), "%s/mapping_method", decision_ptr);
	fx_set(doc, p, "\"kernel_projection_structural\"");
	snprintf(p, sizeof(p), "%s/mapping_confidence", decision_ptr);
	fx_set(doc, p, "\"exact_projected_trace\"");
	snprintf(p, sizeof(p), "%s/candidate_binding_status", decision_ptr);
	fx_set(doc, p, "\"bound\"");
	snprintf(p, sizeof(p), "%s/graph_occurrence_fingerprint", decision_ptr);
	fx_set(doc, p, HEX64);
	snprintf(p, sizeof(p), "%s/mapping_blockers", decision_ptr);
	fx_set(doc, p, "[]");
}

/* The automatic fixture with one decision (proposed beneficial keep). */
static tc_json *
automatic_with_decision(const char *collection, const char *range,
    const char *cls, const char *action, const char *status)
{
	tc_json *doc = fx_automatic_result();
	const tc_json *round = tc_json_get(doc, "rounds")->u.arr.items[0];

	tc_json_array_push(tc_json_get(doc, collection),
	    fx_decision(round, range, cls, action, status, NULL));
	return doc;
}

/* ---- the fixture -------------------------------------------------------- */

static void
test_validates_base_prune_final_rounds(void **state)
{
	(void)state;
	expect_valid(fx_result());
	expect_valid(fx_result_for(&FX_S4));
	expect_valid(fx_automatic_result());
}

static void
test_defines_exact_performance_enums(void **state)
{
	(void)state;
	assert_string_equal(tc_ledger_round_kinds[0], "base");
	assert_string_equal(tc_ledger_round_kinds[3], "automatic_aot");
	assert_null(tc_ledger_round_kinds[4]);
	assert_string_equal(tc_ledger_classifications[3], "insufficient_evidence");
	assert_null(tc_ledger_classifications[4]);
	assert_string_equal(tc_ledger_actions[2], "reprofile");
	assert_null(tc_ledger_actions[4]);
	assert_string_equal(tc_ledger_decision_statuses[3], "blocked");
	assert_null(tc_ledger_decision_statuses[4]);
	assert_string_equal(tc_ledger_mapping_methods[2],
	    "kernel_projection_structural");
	assert_null(tc_ledger_mapping_methods[3]);
	assert_string_equal(tc_ledger_mapping_confidences[4], "unmapped");
	assert_null(tc_ledger_mapping_confidences[5]);
	assert_string_equal(tc_ledger_promotion_modes[0], "range_optimized");
}

static void
test_rejects_removed_round_kind_contract(void **state)
{
	tc_json *doc = fx_result();

	(void)state;
	fx_copy(doc, "/rounds/-", "/rounds/2");
	fx_set(doc, "/rounds/3/round_kind", "\"legacy\"");
	fx_set(doc, "/rounds/3/round_id", "\"S3-LEGACY\"");
	expect_mentions(doc, "rounds[3].round_kind is invalid");
}

/* ---- mapping predicates -------------------------------------------------- */

static void
test_rejects_historical_raw_id_exact_mapping_for_lifecycle_progress(void **state)
{
	tc_json *doc = fx_result();
	size_t i;

	(void)state;
	for (i = 0; i < 3; i++) {
		char p[96];

		snprintf(p, sizeof(p), "/performance_scope_decisions/%zu/"
		    "mapping_method", i);
		fx_set(doc, p, "\"sk_meta_node_ids\"");
	}
	expect_mentions(doc, "source-actionable");
}

static void
test_structural_exact_is_performance_exact_but_not_source_actionable(void **state)
{
	tc_json *doc = fx_result();
	const tc_json *d;

	(void)state;
	make_structural(doc, "/performance_scope_decisions/0");
	d = tc_json_pointer(doc, "/performance_scope_decisions/0", NULL);
	assert_true(tc_ledger_performance_exact(d));
	assert_false(tc_ledger_source_actionable(d));
	fx_set(doc, "/performance_scope_decisions/0/candidate_binding_status",
	    "\"unbound\"");
	assert_false(tc_ledger_performance_exact(d));
	fx_set(doc, "/performance_scope_decisions/0/candidate_binding_status",
	    "\"bound\"");
	fx_set(doc, "/performance_scope_decisions/0/mapping_blockers",
	    "[\"x\"]");
	assert_false(tc_ledger_performance_exact(d));
	fx_set(doc, "/performance_scope_decisions/0/mapping_blockers", "[]");
	fx_set(doc, "/performance_scope_decisions/0/graph_occurrence_fingerprint",
	    "\"ABC\"");
	assert_false(tc_ledger_performance_exact(d));
	d = tc_json_pointer(doc, "/performance_scope_decisions/1", NULL);
	assert_true(tc_ledger_performance_exact(d));
	assert_true(tc_ledger_source_actionable(d));
	tc_json_free(doc);
}

static void
test_structural_exact_proposed_classification_cannot_be_applied(void **state)
{
	tc_json *doc = automatic_with_decision("performance_scope_decisions",
	    "range-a", "beneficial", "keep", "proposed");

	(void)state;
	make_structural(doc, "/performance_scope_decisions/0");
	fx_set(doc, "/rounds/0/performance_decision_range_ids", "[\"range-a\"]");
	{
		tc_json *copy = tc_json_clone(doc);

		expect_valid(copy);
	}
	fx_set(doc, "/performance_scope_decisions/0/status", "\"applied\"");
	expect_mentions(doc, "source-actionable");
}

static void
test_ambiguous_and_diagnostic_mappings_are_not_performance_exact(void **state)
{
	static const char *const pairs[][2] = {
		{ "kernel_projection_structural", "ambiguous" },
		{ "kernel_projection_structural", "unmapped" },
		{ "kernel_projection_structural", "diagnostic_only" },
		{ "source_scope_map", "diagnostic_only" },
		{ "sk_meta_node_ids", "diagnostic_only" },
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(pairs) / sizeof(pairs[0]); i++) {
		tc_json *doc = fx_result();
		tc_json *d = tc_json_pointer(doc, "/performance_scope_decisions/1",
		    NULL);

		make_structural(doc, "/performance_scope_decisions/1");
		tc_json_object_set_string(d, "mapping_method", pairs[i][0]);
		tc_json_object_set_string(d, "mapping_confidence", pairs[i][1]);
		assert_false(tc_ledger_performance_exact(d));
		assert_false(tc_ledger_source_actionable(d));
		tc_json_free(doc);
	}
}

static void
test_non_exact_mappings_must_be_insufficient_in_full_ledger(void **state)
{
	static const char *const pairs[][2] = {
		{ "kernel_projection_structural", "ambiguous" },
		{ "kernel_projection_structural", "unmapped" },
		{ "sk_meta_node_ids", "diagnostic_only" },
	};
	size_t i;

	(void)state;
	for (i = 0; i < 3; i++) {
		tc_json *doc = fx_result();
		tc_json *u = tc_json_pointer(doc,
		    "/unresolved_performance_ranges/0", NULL);

		tc_json_object_set_string(u, "classification", "regressed");
		tc_json_object_set_string(u, "action", "block");
		tc_json_object_set_string(u, "status", "blocked");
		tc_json_object_set_string(u, "mapping_method", pairs[i][0]);
		tc_json_object_set_string(u, "mapping_confidence", pairs[i][1]);
		expect_mentions(doc, "insufficient_evidence");
	}
}

/* ---- the validation wrapper -------------------------------------------- */

static void
test_object_validation_without_artifact_root_is_not_promotion_eligible(void **state)
{
	tc_json *doc = fx_result();
	tc_json *v = tc_experiment_validate(doc, NULL);

	(void)state;
	assert_true(tc_json_get(v, "valid")->u.b);
	assert_false(tc_json_get(v, "artifact_evidence_validated")->u.b);
	assert_false(tc_json_get(v, "conditional_evidence_eligible")->u.b);
	assert_int_equal(tc_json_get(v, "errors")->u.arr.len, 0);
	assert_int_equal(v->u.obj.len, 4);
	tc_json_free(v);
	tc_json_free(doc);
}

static void
test_malformed_round_references_return_validation_errors(void **state)
{
	static const struct {
		const char *ptr, *val;
	} muts[] = {
		{ "/rounds/1/performance_decision_range_ids", "[[\"range-neutral\"]]" },
		{ "/rounds/0/round_id", "[\"S3-BASE\"]" },
		{ "/rounds/1/round_kind", "[\"performance_prune\"]" },
		{ "/performance_scope_decisions/0/classification", "[\"beneficial\"]" },
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(muts) / sizeof(muts[0]); i++) {
		tc_json *doc = fx_result();
		tc_json *v;

		fx_set(doc, muts[i].ptr, muts[i].val);
		v = tc_experiment_validate(doc, NULL);
		assert_false(tc_json_get(v, "valid")->u.b);
		assert_true(tc_json_get(v, "errors")->u.arr.len > 0);
		tc_json_free(v);
		tc_json_free(doc);
	}
}

static void
test_json_type_mutations_never_escape_validation(void **state)
{
	static const char *const values[] = { "[]", "{}", "true", "null" };
	static const char *const ptrs[] = {
		"/performance_scope_decisions/1/round_id",
		"/performance_scope_decisions/1/range_id",
		"/performance_scope_decisions/1/verified_in_round_id",
		"/performance_scope_decisions/1/declared_change_set",
		"/rounds/1/round_id",
		"/rounds/0/declared_change_set",
	};
	size_t i, k;

	(void)state;
	for (i = 0; i < sizeof(ptrs) / sizeof(ptrs[0]); i++) {
		for (k = 0; k < 4; k++) {
			tc_json *doc = fx_result();
			tc_json *v;

			fx_set(doc, ptrs[i], values[k]);
			v = tc_experiment_validate(doc, NULL);
			assert_false(tc_json_get(v, "valid")->u.b);
			assert_true(tc_json_get(v, "errors")->u.arr.len > 0);
			tc_json_free(v);
			tc_json_free(doc);
		}
	}
}

static void
test_rejects_non_finite_and_non_json_values_globally(void **state)
{
	static const double values[] = { NAN, INFINITY, -INFINITY };
	size_t i;

	(void)state;
	for (i = 0; i < 3; i++) {
		tc_json *doc = fx_result();

		tc_json_array_push(tc_json_get(doc, "blockers"),
		    tc_json_new_float(values[i]));
		expect_mentions(doc, "JSON");
	}
}

/* ---- ownership, identifiers, analysis maps ------------------------------- */

static void
test_rejects_mixed_parent_experiment_ownership(void **state)
{
	tc_json *doc = fx_result();

	(void)state;
	fx_set(doc, "/rounds/2/child_agent_id", "\"agent-9\"");
	expect_mentions(doc, "child_agent_id");
}

static void
test_rejects_identifiers_with_surrounding_whitespace(void **state)
{
	tc_json *doc = fx_result();

	(void)state;
	fx_set(doc, "/experiment_id", "\"S3 \"");
	fx_set(doc, "/parent_experiment_id", "\"S3 \"");
	expect_mentions(doc, "whitespace");
	doc = fx_result();
	fx_set(doc, "/child_agent_id", "\" agent-7\"");
	expect_mentions(doc, "whitespace");
	doc = fx_result();
	fx_set(doc, "/profiling_analysis_agent_ids/S3-P1", "\"prof-agent-2 \"");
	expect_mentions(doc, "whitespace");
}

static void
test_rejects_agent_id_whitespace_variant_within_result(void **state)
{
	tc_json *doc = fx_result();

	(void)state;
	fx_set(doc, "/profiling_analysis_agent_ids/S3-P1", "\" prof-agent-1\"");
	expect_mentions(doc, "unique");
}

static void
test_rejects_duplicate_profiling_analysis_agent_ids(void **state)
{
	tc_json *doc = fx_result();

	(void)state;
	fx_set(doc, "/profiling_analysis_agent_ids/S3-P1", "\"prof-agent-1\"");
	expect_mentions(doc, "unique");
}

static void
test_rejects_final_reusing_a_profiling_agent_or_result_path(void **state)
{
	tc_json *doc = fx_result();

	(void)state;
	fx_set(doc, "/profiling_analysis_agent_ids/S3-FINAL", "\"prof-agent-2\"");
	expect_mentions(doc, "unique");
	doc = fx_result();
	fx_copy(doc, "/profiling_analysis_result/S3-FINAL",
	    "/profiling_analysis_result/S3-P1");
	expect_mentions(doc, "unique");
}

static void
test_rejects_absolute_analysis_result_path(void **state)
{
	tc_json *doc = fx_result();

	(void)state;
	fx_set(doc, "/profiling_analysis_result/S3-P1", "\"/tmp/analysis.json\"");
	expect_mentions(doc, "relative");
}

static void
test_rejects_parent_traversal_in_any_artifact_path(void **state)
{
	tc_json *doc = fx_result();

	(void)state;
	fx_set(doc, "/single_child_exclusions",
	    "[{\"source_evidence\": \"../outside/source-map.json\"}]");
	expect_mentions(doc, "single_child_exclusions[0].source_evidence must be a "
	    "relative artifact path");
}

static void
test_rejects_missing_or_unknown_profiling_round_mapping(void **state)
{
	static const char *const maps[] = {
		"profiling_analysis_agent_ids", "profiling_analysis_result"
	};
	size_t i;

	(void)state;
	for (i = 0; i < 2; i++) {
		tc_json *doc = fx_result();
		char p[128];

		snprintf(p, sizeof(p), "/%s/S3-P1", maps[i]);
		fx_del(doc, p);
		expect_mentions(doc, "missing profiling rounds: S3-P1");
		doc = fx_result();
		snprintf(p, sizeof(p), "/%s/S3-EXTRA", maps[i]);
		fx_set(doc, p, "\"S3-EXTRA/x.json\"");
		expect_mentions(doc, "has unknown rounds: S3-EXTRA");
	}
}

static void
test_analysis_result_path_cannot_overlap_profile_path_within_result(void **state)
{
	tc_json *doc = fx_result();

	(void)state;
	fx_set(doc, "/profiling_analysis_result/S3-FINAL",
	    "\"S3-P1/profiles/candidate.json\"");
	expect_mentions(doc, "profiling analysis result and profile paths");
}

/* ---- decision classification rules --------------------------------------- */

static void
test_rejects_beneficial_prune(void **state)
{
	tc_json *doc = fx_result();

	(void)state;
	fx_set(doc, "/performance_scope_decisions/1/classification",
	    "\"beneficial\"");
	expect_mentions(doc, "beneficial");
}

static void
test_rejects_insufficient_evidence_prune(void **state)
{
	tc_json *doc = fx_result();

	(void)state;
	fx_set(doc, "/unresolved_performance_ranges/0/action", "\"prune\"");
	expect_mentions(doc, "insufficient_evidence");
}

static void
test_rejects_effective_prune_without_exact_producer_mapping(void **state)
{
	tc_json *doc = fx_result();

	(void)state;
	fx_set(doc, "/performance_scope_decisions/1/mapping_confidence",
	    "\"diagnostic_only\"");
	expect_mentions(doc, "exact");
}

static void
test_rejects_effective_keep_without_exact_producer_mapping(void **state)
{
	tc_json *doc = fx_result();

	(void)state;
	fx_set(doc, "/performance_scope_decisions/0/mapping_confidence",
	    "\"diagnostic_only\"");
	expect_mentions(doc, "effective keep");
}

static void
test_rejects_illegal_decision_tuples(void **state)
{
	static const char *const tuples[][3] = {
		{ "neutral", "block", "verified" },
		{ "regressed", "reprofile", "applied" },
		{ "beneficial", "keep", "blocked" },
		{ "insufficient_evidence", "block", "verified" },
	};
	size_t i;

	(void)state;
	for (i = 0; i < 4; i++) {
		tc_json *doc = fx_result();
		tc_json *d = tc_json_pointer(doc, "/performance_scope_decisions/0",
		    NULL);

		tc_json_object_set_string(d, "classification", tuples[i][0]);
		tc_json_object_set_string(d, "action", tuples[i][1]);
		tc_json_object_set_string(d, "status", tuples[i][2]);
		expect_mentions(doc, "tuple");
	}
}

static void
test_rejects_conflicting_records_for_one_round_and_range(void **state)
{
	tc_json *doc = fx_result();

	(void)state;
	fx_set(doc, "/unresolved_performance_ranges/0/range_id",
	    "\"range-beneficial\"");
	expect_mentions(doc, "conflicting");
}

/* ---- prune rounds -------------------------------------------------------- */

static void
test_rejects_prune_round_without_eligible_decision(void **state)
{
	tc_json *doc = fx_result();

	(void)state;
	fx_set(doc, "/rounds/1/performance_decision_range_ids",
	    "[\"range-beneficial\"]");
	expect_mentions(doc, "performance_prune");
}

static void
test_prune_round_accepts_applied_decision_without_verification_fields(void **state)
{
	tc_json *doc = fx_result();

	(void)state;
	fx_set(doc, "/performance_scope_decisions/1/status", "\"applied\"");
	fx_del(doc, "/performance_scope_decisions/1/verified_in_round_id");
	fx_del(doc, "/performance_scope_decisions/1/profiling_analysis_result");
	expect_valid(doc);
}

static void
test_prune_round_cannot_self_reference_as_its_only_source_decision(void **state)
{
	tc_json *doc = fx_result();
	const tc_json *p1 = tc_json_get(doc, "rounds")->u.arr.items[1];
	tc_json *dec = tc_json_get(doc, "performance_scope_decisions");

	(void)state;
	/* The only prune of range-neutral now sits in S3-P1 itself. */
	tc_json_free(dec->u.arr.items[1]);
	dec->u.arr.items[1] = fx_decision(p1, "range-neutral", "neutral", "prune",
	    "applied", NULL);
	fx_set(doc, "/rounds/0/performance_decision_range_ids",
	    "[\"range-beneficial\", \"range-unknown\"]");
	expect_mentions(doc, "performance_prune");
}

static void
test_prune_round_rejects_keep_evidence_for_a_removed_range(void **state)
{
	tc_json *doc = fx_result();
	const tc_json *p1 = tc_json_get(doc, "rounds")->u.arr.items[1];

	(void)state;
	tc_json_array_push(tc_json_get(doc, "performance_scope_decisions"),
	    fx_decision(p1, "range-neutral", "beneficial", "keep", "applied",
	    NULL));
	expect_mentions(doc, "removed range");
}

static void
test_multi_range_prune_allows_evidence_for_an_unpruned_range(void **state)
{
	tc_json *doc = fx_result();
	const tc_json *base = tc_json_get(doc, "rounds")->u.arr.items[0];
	const tc_json *p1 = tc_json_get(doc, "rounds")->u.arr.items[1];
	tc_json *dec = tc_json_get(doc, "performance_scope_decisions");

	(void)state;
	tc_json_array_push(dec, fx_decision(base, "range-neutral-2", "regressed",
	    "prune", "verified", "S3-P1"));
	tc_json_array_push(dec, fx_decision(p1, "range-beneficial", "beneficial",
	    "keep", "applied", NULL));
	fx_set(doc, "/rounds/0/performance_decision_range_ids",
	    "[\"range-beneficial\", \"range-neutral\", \"range-neutral-2\", "
	    "\"range-unknown\"]");
	fx_set(doc, "/rounds/1/performance_decision_range_ids",
	    "[\"range-neutral\", \"range-neutral-2\"]");
	expect_valid(doc);
}

static void
test_prune_and_final_forbid_option_changes(void **state)
{
	tc_json *doc = fx_result();

	(void)state;
	fx_set(doc, "/rounds/1/declared_option_changes",
	    "[{\"pointer\": \"/superkernel/options/x\"}]");
	expect_mentions(doc, "forbids option changes");
	doc = fx_result();
	fx_set(doc, "/rounds/2/declared_option_changes", "[1]");
	expect_mentions(doc, "forbids option changes");
}

static void
test_prune_and_final_reject_option_pointers(void **state)
{
	size_t i;

	(void)state;
	for (i = 1; i <= 2; i++) {
		tc_json *doc = fx_result();

		fx_set_binding(doc, i, "declared_change_set",
		    "{\"allowed_json_pointers\": "
		    "[\"/superkernel/options/auto_op_parallel\"], "
		    "\"only_change_zh\": \"只裁剪范围。\"}");
		expect_mentions(doc, "must not target options");
	}
}

/* ---- final rounds ------------------------------------------------------------ */

static void
test_rejects_final_without_fresh_profiling(void **state)
{
	tc_json *doc = fx_result();

	(void)state;
	fx_set(doc, "/rounds/2/lifecycle/profiling", "\"not_run\"");
	expect_mentions(doc, "final requires fresh profiling");
}

static void
test_final_requires_fresh_applied_keep_decision_for_every_final_range(void **state)
{
	tc_json *doc = fx_result();

	(void)state;
	fx_del(doc, "/performance_scope_decisions/2");
	expect_mentions(doc, "fresh applied keep decision");
}

static void
test_final_rejects_regressed_or_blocked_outcome_for_a_final_range(void **state)
{
	tc_json *doc = fx_result();
	const tc_json *fin = tc_json_get(doc, "rounds")->u.arr.items[2];
	tc_json *dec = tc_json_get(doc, "performance_scope_decisions");

	(void)state;
	tc_json_free(dec->u.arr.items[2]);
	dec->u.arr.items[2] = fx_decision(fin, "range-beneficial", "regressed",
	    "prune", "applied", NULL);
	expect_mentions(doc, "final range");
	doc = fx_result();
	fin = tc_json_get(doc, "rounds")->u.arr.items[2];
	tc_json_array_push(tc_json_get(doc, "unresolved_performance_ranges"),
	    fx_decision(fin, "range-beneficial", "regressed", "block", "blocked",
	    NULL));
	expect_mentions(doc, "final range");
}

/* ---- verification ------------------------------------------------------------ */

static void
test_verified_decision_references_declared_path_and_round_fingerprint(void **state)
{
	tc_json *doc = fx_result();

	(void)state;
	fx_set(doc, "/performance_scope_decisions/1/profiling_analysis_result",
	    "\"S3-P1/other-analysis.json\"");
	expect_mentions(doc, "fresh verification profiling");
	doc = fx_result();
	fx_set(doc, "/performance_scope_decisions/1/candidate_config_fingerprint",
	    "\"candidate-pruned-fp\"");
	expect_mentions(doc, "must match its declared round");
}

static void
test_verified_prune_cannot_self_verify_in_source_round(void **state)
{
	tc_json *doc = fx_result();

	(void)state;
	fx_set(doc, "/performance_scope_decisions/1/verified_in_round_id",
	    "\"S3-BASE\"");
	fx_copy(doc, "/performance_scope_decisions/1/profiling_analysis_result",
	    "/profiling_analysis_result/S3-BASE");
	expect_mentions(doc, "strictly later");
}

static void
test_verified_prune_requires_a_later_performance_prune_round(void **state)
{
	tc_json *doc = fx_result();

	(void)state;
	fx_set(doc, "/performance_scope_decisions/1/verified_in_round_id",
	    "\"S3-FINAL\"");
	fx_copy(doc, "/performance_scope_decisions/1/profiling_analysis_result",
	    "/profiling_analysis_result/S3-FINAL");
	expect_mentions(doc, "later performance_prune round");
}

static void
test_verified_prune_must_be_referenced_by_its_verification_round(void **state)
{
	tc_json *doc = fx_result();
	const tc_json *base = tc_json_get(doc, "rounds")->u.arr.items[0];

	(void)state;
	tc_json_array_push(tc_json_get(doc, "performance_scope_decisions"),
	    fx_decision(base, "range-neutral-2", "neutral", "prune", "verified",
	    "S3-P1"));
	fx_set(doc, "/rounds/0/performance_decision_range_ids",
	    "[\"range-beneficial\", \"range-neutral\", \"range-neutral-2\", "
	    "\"range-unknown\"]");
	expect_mentions(doc, "verified prune range");
}

static void
test_decision_source_requires_passed_profiling_and_analysis_evidence(void **state)
{
	tc_json *doc = fx_result();

	(void)state;
	fx_set(doc, "/rounds/0/lifecycle/profiling", "\"not_run\"");
	expect_mentions(doc, "source round must have profiling passed");
	doc = fx_result();
	fx_del(doc, "/profiling_analysis_agent_ids/S3-BASE");
	expect_mentions(doc, "missing");
	doc = fx_result();
	fx_del(doc, "/profiling_analysis_result/S3-BASE");
	expect_mentions(doc, "source round must have a profiling analysis result");
}

/* ---- profiling binding --------------------------------------------------- */

static void
test_profiling_passed_requires_correctness(void **state)
{
	tc_json *doc = fx_result();

	(void)state;
	fx_set(doc, "/rounds/1/lifecycle/correctness", "\"failed\"");
	expect_mentions(doc, "correctness");
}

static void
test_optional_compat_and_replay_audits_do_not_gate_profiling(void **state)
{
	tc_json *doc = fx_result();

	(void)state;
	fx_set(doc, "/rounds/0/lifecycle/compat", "\"failed\"");
	fx_set(doc, "/rounds/0/lifecycle/replay", "\"failed\"");
	fx_set(doc, "/rounds/0/lifecycle/metadata", "\"blocked\"");
	expect_valid(doc);
}

static void
test_round_requires_complete_profiling_input_binding(void **state)
{
	static const struct {
		const char *field, *json;
	} muts[] = {
		{ "baseline_profile", NULL },
		{ "candidate_profile", "\"/abs/candidate.json\"" },
		{ "candidate_profile", "\"../candidate.json\"" },
		{ "candidate_profile_fingerprint", NULL },
		{ "declared_change_set", "{}" },
		{ "declared_change_set", "{\"allowed_json_pointers\": [], "
		  "\"only_change_zh\": \"only enable the scope\"}" },
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(muts) / sizeof(muts[0]); i++) {
		tc_json *doc = fx_result();
		char p[128];

		snprintf(p, sizeof(p), "/rounds/0/%s", muts[i].field);
		if (muts[i].json == NULL)
			fx_del(doc, p);
		else
			fx_set(doc, p, muts[i].json);
		expect_mentions(doc, muts[i].field);
	}
}

static void
test_decision_requires_exact_source_round_binding(void **state)
{
	tc_json *doc = fx_result();

	(void)state;
	fx_set(doc, "/performance_scope_decisions/0/baseline_profile",
	    "\"profiles/other-baseline.json\"");
	expect_mentions(doc, "source round");
}

static void
test_decision_profile_fingerprints_must_match_source_round(void **state)
{
	tc_json *doc = fx_result();

	(void)state;
	fx_del(doc, "/performance_scope_decisions/0/candidate_profile_fingerprint");
	expect_mentions(doc, "profile_fingerprint");
	doc = fx_result();
	fx_set(doc, "/performance_scope_decisions/0/baseline_profile_fingerprint",
	    "\"other\"");
	expect_mentions(doc, "profile_fingerprint");
}

static void
test_rejects_duplicate_candidate_profile_artifacts_within_result(void **state)
{
	tc_json *doc = fx_result();

	(void)state;
	fx_set_binding(doc, 1, "candidate_profile",
	    "\"S3-BASE/profiles/candidate.json\"");
	expect_mentions(doc, "candidate_profile must be unique");
	doc = fx_result();
	fx_set_binding(doc, 1, "candidate_profile_fingerprint",
	    "\"S3-BASE-candidate-profile-fp\"");
	expect_mentions(doc, "candidate_profile_fingerprint must be unique");
}

static void
test_baseline_profile_pair_is_immutable_within_result(void **state)
{
	tc_json *doc = fx_result();

	(void)state;
	fx_set_binding(doc, 1, "baseline_profile_fingerprint", "\"other-fp\"");
	expect_mentions(doc, "baseline profile");
	doc = fx_result();
	fx_set_binding(doc, 1, "baseline_profile", "\"profiles/other.json\"");
	expect_mentions(doc, "baseline profile");
}

static void
test_identical_baseline_profile_pair_may_repeat_within_result(void **state)
{
	(void)state;
	expect_valid(fx_result());
}

static void
test_rejects_candidate_profile_artifact_used_as_baseline_in_same_result(void **state)
{
	tc_json *doc = fx_result();

	(void)state;
	fx_set_binding(doc, 1, "baseline_profile",
	    "\"S3-BASE/profiles/candidate.json\"");
	expect_mentions(doc, "baseline and candidate");
}

static void
test_rejects_same_round_candidate_profile_as_baseline(void **state)
{
	tc_json *doc = fx_result();

	(void)state;
	fx_set_binding(doc, 0, "candidate_profile",
	    "\"profiles/frozen-baseline.json\"");
	expect_mentions(doc, "baseline and candidate");
}

/* ---- sequences, continuation, terminal rounds ---------------------------- */

static void
test_manual_round_cannot_continue_after_incomplete_round(void **state)
{
	size_t i;

	(void)state;
	for (i = 0; i < 2; i++) {
		tc_json *doc = fx_result();
		char p[64];

		snprintf(p, sizeof(p), "/rounds/%zu/lifecycle/profiling", i);
		fx_set(doc, p, "\"not_run\"");
		expect_mentions(doc, "cannot be followed");
	}
}

/* BASE + P1 where P1 never got profiled and the experiment says why. */
static tc_json *
terminal_failed_result(const char *blockers)
{
	tc_json *doc = fx_result();

	fx_del(doc, "/rounds/2");
	fx_del(doc, "/performance_scope_decisions/2");
	fx_del(doc, "/profiling_analysis_agent_ids/S3-FINAL");
	fx_del(doc, "/profiling_analysis_result/S3-FINAL");
	fx_del(doc, "/profiling_analysis_agent_ids/S3-P1");
	fx_del(doc, "/profiling_analysis_result/S3-P1");
	fx_set(doc, "/rounds/1/lifecycle/profiling", "\"not_run\"");
	fx_set(doc, "/performance_scope_decisions/1/status", "\"applied\"");
	fx_del(doc, "/performance_scope_decisions/1/verified_in_round_id");
	fx_del(doc, "/performance_scope_decisions/1/profiling_analysis_result");
	fx_set(doc, "/blockers", blockers);
	return doc;
}

static void
test_terminal_failed_manual_round_may_retain_blocker(void **state)
{
	(void)state;
	expect_valid(terminal_failed_result("[\"S3-P1 replay failed\"]"));
}

static void
test_terminal_failed_manual_round_requires_an_explicit_blocker(void **state)
{
	(void)state;
	expect_mentions(terminal_failed_result("[\" \"]"),
	    "explicit non-empty blockers");
	expect_mentions(terminal_failed_result("[]"),
	    "explicit non-empty blockers");
}

static void
test_successful_manual_experiment_requires_fresh_final_round(void **state)
{
	tc_json *doc = fx_result();

	(void)state;
	fx_del(doc, "/rounds/2");
	fx_del(doc, "/performance_scope_decisions/2");
	fx_del(doc, "/profiling_analysis_agent_ids/S3-FINAL");
	fx_del(doc, "/profiling_analysis_result/S3-FINAL");
	expect_mentions(doc, "successful manual experiment requires");
}

/* ---- whole-scope promotion ------------------------------------------------ */

static void
test_whole_scope_promotion_does_not_require_source_range_final(void **state)
{
	tc_json *doc = fx_result();
	const tc_json *base;

	(void)state;
	fx_del(doc, "/rounds/2");
	fx_del(doc, "/rounds/1");
	fx_set(doc, "/performance_scope_decisions", "[]");
	fx_set(doc, "/unresolved_performance_ranges", "[]");
	fx_del(doc, "/profiling_analysis_agent_ids/S3-P1");
	fx_del(doc, "/profiling_analysis_agent_ids/S3-FINAL");
	fx_del(doc, "/profiling_analysis_result/S3-P1");
	fx_del(doc, "/profiling_analysis_result/S3-FINAL");
	fx_set(doc, "/rounds/0/performance_decision_range_ids",
	    "[\"range-a\", \"range-b\"]");
	fx_set(doc, "/promotion_mode", "\"whole_scope\"");
	base = tc_json_get(doc, "rounds")->u.arr.items[0];
	tc_json_array_push(tc_json_get(doc, "performance_scope_decisions"),
	    fx_decision(base, "range-a", "beneficial", "keep", "proposed", NULL));
	tc_json_array_push(tc_json_get(doc, "unresolved_performance_ranges"),
	    fx_decision(base, "range-b", "neutral", "block", "blocked", NULL));
	make_structural(doc, "/unresolved_performance_ranges/0");
	expect_valid(doc);
}

static void
test_whole_scope_promotion_rejects_insufficient_evidence(void **state)
{
	tc_json *doc = automatic_with_decision("unresolved_performance_ranges",
	    "range-a", "insufficient_evidence", "block", "blocked");
	tc_json *errors;

	(void)state;
	fx_set(doc, "/promotion_mode", "\"whole_scope\"");
	fx_set(doc, "/rounds/0/performance_decision_range_ids", "[\"range-a\"]");
	errors = errors_of(doc);
	assert_true(fx_has(errors, "whole_scope promotion must not contain "
	    "insufficient_evidence"));
	tc_json_free(errors);
	tc_json_free(doc);
}

/* ---- automatic_aot ------------------------------------------------------------ */

static void
test_automatic_aot_does_not_require_manual_prune_fields(void **state)
{
	tc_json *doc = fx_automatic_result();

	(void)state;
	assert_null(tc_json_pointer(doc,
	    "/rounds/0/performance_decision_range_ids", NULL));
	expect_valid(doc);
}

static void
test_automatic_aot_proposed_classifications_are_valid(void **state)
{
	tc_json *doc = fx_automatic_result();
	const tc_json *r = tc_json_get(doc, "rounds")->u.arr.items[0];
	tc_json *dec = tc_json_get(doc, "performance_scope_decisions");

	(void)state;
	tc_json_array_push(dec, fx_decision(r, "range-a", "beneficial", "keep",
	    "proposed", NULL));
	tc_json_array_push(dec, fx_decision(r, "range-b", "neutral", "prune",
	    "proposed", NULL));
	tc_json_array_push(dec, fx_decision(r, "range-c", "regressed", "prune",
	    "proposed", NULL));
	expect_valid(doc);
}

static void
test_automatic_aot_retains_negative_unresolved_evidence(void **state)
{
	tc_json *doc = automatic_with_decision("unresolved_performance_ranges",
	    "range-a", "insufficient_evidence", "reprofile", "proposed");

	(void)state;
	expect_valid(doc);
	doc = automatic_with_decision("unresolved_performance_ranges", "range-a",
	    "regressed", "block", "blocked");
	expect_valid(doc);
}

static void
test_automatic_aot_optimization_descendant_preserves_scope_kind(void **state)
{
	tc_json *doc = fx_result();

	(void)state;
	fx_set(doc, "/rounds/0/round_kind", "\"automatic_aot\"");
	fx_set(doc, "/rounds/0/scope_kind", "\"automatic_aot\"");
	fx_set(doc, "/rounds/1/scope_kind", "\"automatic_aot\"");
	fx_set(doc, "/rounds/2/scope_kind", "\"automatic_aot\"");
	{
		tc_json *copy = tc_json_clone(doc);

		expect_valid(copy);
	}
	fx_set(doc, "/rounds/1/scope_kind", "\"manual\"");
	expect_mentions(doc, "preserve the starter scope_kind");
}

static void
test_legacy_single_child_fields_are_optional(void **state)
{
	tc_json *doc = fx_result();

	(void)state;
	fx_set(doc, "/single_child_exclusions", "[{\"scope\": \"decoder.x\", "
	    "\"reason_zh\": \"单子算子\"}]");
	fx_set(doc, "/rounds/0/single_child_group_count", "3");
	expect_valid(doc);
}

/* ---- artifact paths and roles -------------------------------------------- */

static void
test_same_semantic_artifact_aliases_are_allowed(void **state)
{
	tc_json *doc = fx_result();

	(void)state;
	fx_set(doc, "/rounds/0/artifacts/metadata", "\"S3-BASE/sk-meta.json\"");
	fx_set(doc, "/rounds/0/notes", "{\"metadata\": \"S3-BASE/sk-meta.json\"}");
	fx_set(doc, "/notes", "\"free text is not a path\"");
	expect_valid(doc);
}

static void
test_nested_artifact_path_container_rejects_absolute_string_leaf(void **state)
{
	tc_json *doc = fx_result();

	(void)state;
	fx_set(doc, "/rounds/0/artifacts/metadata",
	    "{\"verify\": [{\"path_value\": \"/tmp/sk-meta.json\"}]}");
	expect_mentions(doc, "rounds[0].artifacts.metadata.verify[0].path_value "
	    "must be a relative artifact path");
}

static void
test_nested_artifact_path_container_rejects_blank_string_leaf(void **state)
{
	static const char *const values[] = { "\"\"", "\"   \"", "\" reserved \"" };
	size_t i;

	(void)state;
	for (i = 0; i < 3; i++) {
		tc_json *doc = fx_result();

		fx_set(doc, "/rounds/0/artifacts/metadata", "{\"files\": [null]}");
		fx_set(doc, "/rounds/0/artifacts/metadata/files/0", values[i]);
		expect_mentions(doc, "relative artifact path");
	}
}

static void
test_nested_same_role_relative_artifacts_are_registered(void **state)
{
	tc_json *doc = fx_result();
	tc_json *roles;
	const tc_json *r;

	(void)state;
	fx_set(doc, "/rounds/0/artifacts/metadata",
	    "{\"files\": [\"S3-BASE/meta/a.json\"], \"replay\": "
	    "\"S3-BASE/meta/replay-view.json\", \"lifecycle\": "
	    "\"S3-BASE/meta/lifecycle.json\"}");
	roles = tc_ledger_paths_by_role(doc);
	r = tc_json_get(roles, "S3-BASE/meta/replay-view.json");
	assert_non_null(r);
	assert_int_equal(r->u.arr.len, 1);
	assert_string_equal(tc_json_string(r->u.arr.items[0]), "metadata");
	r = tc_json_get(roles, "S3-BASE/meta/lifecycle.json");
	assert_non_null(r);
	assert_string_equal(tc_json_string(r->u.arr.items[0]), "metadata");
	r = tc_json_get(roles, "S3-BASE/meta/a.json");
	assert_string_equal(tc_json_string(r->u.arr.items[0]), "metadata");
	r = tc_json_get(roles, "S3-BASE/round-report.json");
	assert_string_equal(tc_json_string(r->u.arr.items[0]), "round_report");
	r = tc_json_get(roles,
	    "S3-BASE/profiling-analysis/profiling-analysis-result.json");
	assert_string_equal(tc_json_string(r->u.arr.items[0]),
	    "profiling_analysis_result");
	tc_json_free(roles);
	expect_valid(doc);
}

static void
test_generic_artifact_keys_take_their_role_from_the_file_name(void **state)
{
	tc_json *doc = fx_parse("{\"artifacts\": [\"x/PROFILING_ANALYSIS.json\", "
	    "\"x/round_report.md\", \"x/sk-meta.json\", \"x/replay.json\", "
	    "\"x/notes.txt\", \"x/Source_Map.json\", \"x/clean-e2e.log\"], "
	    "\"path\": {\"profiler\": \"x/trace.json\"}, "
	    "\"lifecycle\": {\"metadata\": \"ignored.json\"}}");
	tc_json *roles = tc_ledger_paths_by_role(doc);

	(void)state;
	assert_string_equal(tc_json_string(tc_json_get(roles,
	    "x/PROFILING_ANALYSIS.json")->u.arr.items[0]),
	    "profiling_analysis_result");
	assert_string_equal(tc_json_string(tc_json_get(roles,
	    "x/round_report.md")->u.arr.items[0]), "round_report");
	assert_string_equal(tc_json_string(tc_json_get(roles,
	    "x/sk-meta.json")->u.arr.items[0]), "metadata");
	assert_string_equal(tc_json_string(tc_json_get(roles,
	    "x/replay.json")->u.arr.items[0]), "replay");
	assert_string_equal(tc_json_string(tc_json_get(roles,
	    "x/notes.txt")->u.arr.items[0]), "artifact");
	assert_string_equal(tc_json_string(tc_json_get(roles,
	    "x/Source_Map.json")->u.arr.items[0]), "source_evidence");
	assert_string_equal(tc_json_string(tc_json_get(roles,
	    "x/clean-e2e.log")->u.arr.items[0]), "clean");
	assert_string_equal(tc_json_string(tc_json_get(roles,
	    "x/trace.json")->u.arr.items[0]), "profiler");
	assert_null(tc_json_get(roles, "ignored.json"));
	tc_json_free(roles);
	tc_json_free(doc);
}

static void
test_round_report_and_evidence_have_exclusive_artifact_roles(void **state)
{
	tc_json *doc = fx_result();

	(void)state;
	fx_set(doc, "/rounds/0/artifacts/round_report",
	    "\"S3-P1/profiles/candidate.json\"");
	expect_mentions(doc, "artifact path S3-P1/profiles/candidate.json has "
	    "conflicting roles");
	doc = fx_result();
	fx_set(doc, "/rounds/1/artifacts/round_evidence",
	    "\"S3-BASE/round-evidence.json\"");
	expect_mentions(doc, "round report/evidence artifact paths must be unique");
	doc = fx_result();
	fx_set(doc, "/rounds/0/artifacts/round_report",
	    "\"S3-BASE/round-evidence.json\"");
	expect_mentions(doc, "conflicting roles");
}

static void
test_all_declared_artifact_keys_have_exclusive_roles(void **state)
{
	tc_json *doc = fx_result();

	(void)state;
	fx_set(doc, "/rounds/0/artifacts/metadata", "\"S3-BASE/round-report.json\"");
	expect_mentions(doc, "conflicting roles");
	doc = fx_result();
	fx_set(doc, "/rounds/0/artifacts/metadata", "\"S3-BASE/view.json\"");
	fx_set(doc, "/rounds/0/artifacts/replay", "\"S3-BASE/view.json\"");
	expect_mentions(doc, "conflicting roles: metadata, replay");
	doc = fx_result();
	fx_set(doc, "/performance_scope_decisions/0/source_evidence",
	    "\"S3-BASE/profiles/candidate.json\"");
	expect_mentions(doc, "conflicting roles: candidate_profile, "
	    "source_evidence");
}

static void
test_single_segment_artifact_paths_have_exclusive_roles(void **state)
{
	tc_json *doc = fx_result();

	(void)state;
	fx_set(doc, "/rounds/0/artifacts/metadata", "\"reserved\"");
	fx_set(doc, "/rounds/0/artifacts/replay", "\"reserved\"");
	expect_mentions(doc, "artifact path reserved has conflicting roles");
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_validates_base_prune_final_rounds),
		cmocka_unit_test(test_defines_exact_performance_enums),
		cmocka_unit_test(test_rejects_removed_round_kind_contract),
		cmocka_unit_test(test_rejects_historical_raw_id_exact_mapping_for_lifecycle_progress),
		cmocka_unit_test(test_structural_exact_is_performance_exact_but_not_source_actionable),
		cmocka_unit_test(test_structural_exact_proposed_classification_cannot_be_applied),
		cmocka_unit_test(test_ambiguous_and_diagnostic_mappings_are_not_performance_exact),
		cmocka_unit_test(test_non_exact_mappings_must_be_insufficient_in_full_ledger),
		cmocka_unit_test(test_object_validation_without_artifact_root_is_not_promotion_eligible),
		cmocka_unit_test(test_malformed_round_references_return_validation_errors),
		cmocka_unit_test(test_json_type_mutations_never_escape_validation),
		cmocka_unit_test(test_rejects_non_finite_and_non_json_values_globally),
		cmocka_unit_test(test_rejects_mixed_parent_experiment_ownership),
		cmocka_unit_test(test_rejects_identifiers_with_surrounding_whitespace),
		cmocka_unit_test(test_rejects_agent_id_whitespace_variant_within_result),
		cmocka_unit_test(test_rejects_duplicate_profiling_analysis_agent_ids),
		cmocka_unit_test(test_rejects_final_reusing_a_profiling_agent_or_result_path),
		cmocka_unit_test(test_rejects_absolute_analysis_result_path),
		cmocka_unit_test(test_rejects_parent_traversal_in_any_artifact_path),
		cmocka_unit_test(test_rejects_missing_or_unknown_profiling_round_mapping),
		cmocka_unit_test(test_analysis_result_path_cannot_overlap_profile_path_within_result),
		cmocka_unit_test(test_rejects_beneficial_prune),
		cmocka_unit_test(test_rejects_insufficient_evidence_prune),
		cmocka_unit_test(test_rejects_effective_prune_without_exact_producer_mapping),
		cmocka_unit_test(test_rejects_effective_keep_without_exact_producer_mapping),
		cmocka_unit_test(test_rejects_illegal_decision_tuples),
		cmocka_unit_test(test_rejects_conflicting_records_for_one_round_and_range),
		cmocka_unit_test(test_rejects_prune_round_without_eligible_decision),
		cmocka_unit_test(test_prune_round_accepts_applied_decision_without_verification_fields),
		cmocka_unit_test(test_prune_round_cannot_self_reference_as_its_only_source_decision),
		cmocka_unit_test(test_prune_round_rejects_keep_evidence_for_a_removed_range),
		cmocka_unit_test(test_multi_range_prune_allows_evidence_for_an_unpruned_range),
		cmocka_unit_test(test_prune_and_final_forbid_option_changes),
		cmocka_unit_test(test_prune_and_final_reject_option_pointers),
		cmocka_unit_test(test_rejects_final_without_fresh_profiling),
		cmocka_unit_test(test_final_requires_fresh_applied_keep_decision_for_every_final_range),
		cmocka_unit_test(test_final_rejects_regressed_or_blocked_outcome_for_a_final_range),
		cmocka_unit_test(test_verified_decision_references_declared_path_and_round_fingerprint),
		cmocka_unit_test(test_verified_prune_cannot_self_verify_in_source_round),
		cmocka_unit_test(test_verified_prune_requires_a_later_performance_prune_round),
		cmocka_unit_test(test_verified_prune_must_be_referenced_by_its_verification_round),
		cmocka_unit_test(test_decision_source_requires_passed_profiling_and_analysis_evidence),
		cmocka_unit_test(test_profiling_passed_requires_correctness),
		cmocka_unit_test(test_optional_compat_and_replay_audits_do_not_gate_profiling),
		cmocka_unit_test(test_round_requires_complete_profiling_input_binding),
		cmocka_unit_test(test_decision_requires_exact_source_round_binding),
		cmocka_unit_test(test_decision_profile_fingerprints_must_match_source_round),
		cmocka_unit_test(test_rejects_duplicate_candidate_profile_artifacts_within_result),
		cmocka_unit_test(test_baseline_profile_pair_is_immutable_within_result),
		cmocka_unit_test(test_identical_baseline_profile_pair_may_repeat_within_result),
		cmocka_unit_test(test_rejects_candidate_profile_artifact_used_as_baseline_in_same_result),
		cmocka_unit_test(test_rejects_same_round_candidate_profile_as_baseline),
		cmocka_unit_test(test_manual_round_cannot_continue_after_incomplete_round),
		cmocka_unit_test(test_terminal_failed_manual_round_may_retain_blocker),
		cmocka_unit_test(test_terminal_failed_manual_round_requires_an_explicit_blocker),
		cmocka_unit_test(test_successful_manual_experiment_requires_fresh_final_round),
		cmocka_unit_test(test_whole_scope_promotion_does_not_require_source_range_final),
		cmocka_unit_test(test_whole_scope_promotion_rejects_insufficient_evidence),
		cmocka_unit_test(test_automatic_aot_does_not_require_manual_prune_fields),
		cmocka_unit_test(test_automatic_aot_proposed_classifications_are_valid),
		cmocka_unit_test(test_automatic_aot_retains_negative_unresolved_evidence),
		cmocka_unit_test(test_automatic_aot_optimization_descendant_preserves_scope_kind),
		cmocka_unit_test(test_legacy_single_child_fields_are_optional),
		cmocka_unit_test(test_same_semantic_artifact_aliases_are_allowed),
		cmocka_unit_test(test_nested_artifact_path_container_rejects_absolute_string_leaf),
		cmocka_unit_test(test_nested_artifact_path_container_rejects_blank_string_leaf),
		cmocka_unit_test(test_nested_same_role_relative_artifacts_are_registered),
		cmocka_unit_test(test_generic_artifact_keys_take_their_role_from_the_file_name),
		cmocka_unit_test(test_round_report_and_evidence_have_exclusive_artifact_roles),
		cmocka_unit_test(test_all_declared_artifact_keys_have_exclusive_roles),
		cmocka_unit_test(test_single_segment_artifact_paths_have_exclusive_roles),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
