/*
 * test_ledger_merge.c - merging experiment results into the schema 2
 * ledger (docs/spec/ledger.md "Merging into a schema 2 ledger",
 * "Conditional performance evidence", "Schema 1 migration"): the reference's
 * ExperimentLedgerTest merge behaviours and every merge message.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "test_ledger_fixture.h"

static const struct fx_exp FX_S4_NEW_WORKLOAD = {
	"S4", "agent-8", { "prof-agent-41", "prof-agent-42", "prof-agent-43" },
	"workload-fp-2", "profiles/frozen-baseline-2.json", "baseline-profile-fp-2"
};

static tc_json *
merge_ok(const tc_json *ledger, const tc_json *result)
{
	tc_error err = TC_ERROR_INIT;
	tc_json *out = tc_ledger_merge(ledger, result, NULL, &err);

	if (out == NULL)
		fprintf(stderr, "# merge failed: %s\n", tc_error_msg(&err));
	assert_non_null(out);
	tc_error_clear(&err);
	return out;
}

/* The merge fails; returns its message (caller frees). */
static char *
merge_err(const tc_json *ledger, const tc_json *result)
{
	tc_error err = TC_ERROR_INIT;
	tc_json *out = tc_ledger_merge(ledger, result, NULL, &err);
	char *msg;

	if (out != NULL) {
		fprintf(stderr, "# merge unexpectedly succeeded\n");
		tc_json_free(out);
	}
	assert_null(out);
	msg = tc_xstrdup(tc_error_msg(&err));
	tc_error_clear(&err);
	return msg;
}

static void
expect_merge_error(const tc_json *ledger, const tc_json *result,
    const char *expected)
{
	char *msg = merge_err(ledger, result);

	if (strcmp(msg, expected) != 0)
		fprintf(stderr, "# expected: %s\n#   actual: %s\n", expected, msg);
	assert_string_equal(msg, expected);
	free(msg);
}

static void
expect_merge_mentions(const tc_json *ledger, const tc_json *result,
    const char *needle)
{
	char *msg = merge_err(ledger, result);

	if (strstr(msg, needle) == NULL)
		fprintf(stderr, "# \"%s\" lacks \"%s\"\n", msg, needle);
	assert_non_null(strstr(msg, needle));
	free(msg);
}

/* _mark_artifact_validated: add the id and rebuild the index. */
static void
mark_validated(tc_json *ledger, const char *id)
{
	tc_error err = TC_ERROR_INIT;
	tc_json *ids = tc_json_get(ledger, "artifact_validated_experiment_ids");
	tc_json *index;

	tc_json_array_push(ids, tc_json_new_string(id));
	index = tc_ledger_conditional_index(tc_json_get(ledger, "experiments"),
	    ids, &err);
	if (index == NULL)
		fprintf(stderr, "# index: %s\n", tc_error_msg(&err));
	assert_non_null(index);
	tc_json_object_set(ledger, "conditional_performance_evidence", index);
}

static size_t
index_size(const tc_json *ledger)
{
	return tc_json_get(ledger, "conditional_performance_evidence")->u.obj.len;
}

static tc_json *
empty(void)
{
	return tc_json_new_object();
}

/* The S3 ledger: {} + S3. */
static tc_json *
s3_ledger(void)
{
	tc_json *l = empty(), *r = fx_result(), *out = merge_ok(l, r);

	tc_json_free(l);
	tc_json_free(r);
	return out;
}

/* Point a round's analysis result (map + decisions sourcing it). */
static void
set_analysis_path(tc_json *doc, const char *round_id, const char *path_json)
{
	static const char *const lists[] = {
		"performance_scope_decisions", "unresolved_performance_ranges"
	};
	char p[256];
	size_t l, i;

	snprintf(p, sizeof(p), "/profiling_analysis_result/%s", round_id);
	fx_set(doc, p, path_json);
	for (l = 0; l < 2; l++) {
		const tc_json *list = tc_json_get(doc, lists[l]);

		for (i = 0; i < list->u.arr.len; i++) {
			const tc_json *d = list->u.arr.items[i];

			if (strcmp(tc_json_get_string(d, "round_id"), round_id) == 0) {
				snprintf(p, sizeof(p), "/%s/%zu/"
				    "source_profiling_analysis_result", lists[l], i);
				fx_set(doc, p, path_json);
			}
			if (tc_json_get_string(d, "verified_in_round_id") != NULL &&
			    strcmp(tc_json_get_string(d, "verified_in_round_id"),
			    round_id) == 0) {
				snprintf(p, sizeof(p), "/%s/%zu/"
				    "profiling_analysis_result", lists[l], i);
				fx_set(doc, p, path_json);
			}
		}
	}
}

static void
set_all_rounds(tc_json *doc, const char *field, const char *json)
{
	size_t i, n = tc_json_get(doc, "rounds")->u.arr.len;

	for (i = 0; i < n; i++)
		fx_set_binding(doc, i, field, json);
}

/* ---- basic merges ---------------------------------------------------------- */

static void
test_object_merge_without_artifact_root_cannot_promote_conditional_evidence(void **state)
{
	tc_json *l = s3_ledger();

	(void)state;
	assert_non_null(tc_json_pointer(l, "/experiments/S3", NULL));
	assert_int_equal(tc_json_get(l, "artifact_validated_experiment_ids")
	    ->u.arr.len, 0);
	assert_int_equal(index_size(l), 0);
	assert_true(fx_int_is(tc_json_get(l, "schema_version"), "2"));
	assert_int_equal(tc_json_get(l, "legacy_experiments")->u.obj.len, 0);
	assert_int_equal(tc_json_get(l, "legacy_verified_exclusions")->u.arr.len,
	    0);
	assert_null(tc_json_get(l, "migrated_from_schema_version"));
	tc_json_free(l);
}

static void
test_merged_experiment_is_a_deep_copy_of_the_result(void **state)
{
	tc_json *l = empty(), *r = fx_result(), *out = merge_ok(l, r);

	(void)state;
	assert_true(tc_json_equal(tc_json_pointer(out, "/experiments/S3", NULL),
	    r));
	fx_set(r, "/next_agent_guidance_zh", "\"改动后的说明。\"");
	assert_false(tc_json_equal(tc_json_pointer(out, "/experiments/S3", NULL),
	    r));
	tc_json_free(out);
	tc_json_free(l);
	tc_json_free(r);
}

static void
test_merge_rejects_non_object_ledgers(void **state)
{
	static const char *const ledgers[] = {
		"[]", "\"ledger\"", "null", "7", "true"
	};
	tc_json *r = fx_result();
	size_t i;

	(void)state;
	for (i = 0; i < 5; i++) {
		tc_json *l = fx_parse(ledgers[i]);

		expect_merge_error(l, r, "ledger must be an object");
		tc_json_free(l);
	}
	tc_json_free(r);
}

static void
test_merge_reports_the_joined_validation_errors_of_the_result(void **state)
{
	tc_json *l = empty(), *r = fx_parse("{\"experiment_id\": \"incomplete\"}");
	char *msg = merge_err(l, r);

	(void)state;
	assert_non_null(strstr(msg, "missing fields: baseline_config_fingerprint"));
	assert_non_null(strstr(msg, "; parent_experiment_id must equal "
	    "experiment_id"));
	free(msg);
	tc_json_free(r);
	r = fx_parse("[]");
	expect_merge_error(l, r, "experiment result must be an object");
	tc_json_free(r);
	tc_json_free(l);
}

static void
test_rejects_unknown_ledger_schema_version(void **state)
{
	static const char *const versions[] = {
		"99", "true", "null", "[]", "{}", "2.0", "\"2\"", "0"
	};
	tc_json *r = fx_result();
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(versions) / sizeof(versions[0]); i++) {
		tc_json *l = empty();

		tc_json_object_set(l, "schema_version", fx_parse(versions[i]));
		expect_merge_error(l, r, "unsupported ledger schema version");
		tc_json_free(l);
	}
	tc_json_free(r);
}

static void
test_schema2_ledger_without_version_key_is_accepted(void **state)
{
	tc_json *l = s3_ledger(), *r = fx_result(), *again, *s4, *out;

	(void)state;
	tc_json_object_remove(l, "schema_version");
	/* Idempotent re-merge returns the ledger without re-setting it. */
	again = merge_ok(l, r);
	assert_null(tc_json_get(again, "schema_version"));
	s4 = fx_result_for(&FX_S4);
	out = merge_ok(l, s4);
	assert_true(fx_int_is(tc_json_get(out, "schema_version"), "2"));
	tc_json_free(out);
	tc_json_free(s4);
	tc_json_free(again);
	tc_json_free(r);
	tc_json_free(l);
}

/* ---- immutability and idempotence ------------------------------------------ */

static void
test_merge_rejects_changed_content_for_existing_experiment_id(void **state)
{
	tc_json *l = s3_ledger(), *r = fx_result();

	(void)state;
	fx_set(r, "/next_agent_guidance_zh", "\"新的说明。\"");
	expect_merge_error(l, r, "experiment S3 is immutable and cannot be "
	    "overwritten");
	tc_json_free(r);
	tc_json_free(l);
	/* 1 and 1.0 are equal in Python but differ canonically. */
	l = empty();
	r = fx_result();
	fx_set(r, "/lifecycle/attempt", "1");
	{
		tc_json *stored = merge_ok(l, r);

		fx_set(r, "/lifecycle/attempt", "1.0");
		expect_merge_error(stored, r, "experiment S3 is immutable and "
		    "cannot be overwritten");
		tc_json_free(stored);
	}
	tc_json_free(r);
	tc_json_free(l);
}

static void
test_conditional_evidence_deduplicates_same_composite_key(void **state)
{
	tc_json *l = s3_ledger(), *r = fx_result(), *again;

	(void)state;
	mark_validated(l, "S3");
	assert_int_equal(index_size(l), 1);
	again = merge_ok(l, r);
	assert_true(tc_json_equal(again, l));
	assert_int_equal(index_size(again), 1);
	tc_json_free(again);
	tc_json_free(r);
	tc_json_free(l);
}

/* ---- the conditional index ------------------------------------------------ */

static void
test_final_applied_keep_decisions_are_not_promoted(void **state)
{
	tc_json *l = s3_ledger();
	const tc_json *idx, *entry;

	(void)state;
	mark_validated(l, "S3");
	idx = tc_json_get(l, "conditional_performance_evidence");
	assert_int_equal(idx->u.obj.len, 1);
	entry = idx->u.obj.members[0].value;
	assert_string_equal(tc_json_get_string(entry, "action"), "prune");
	assert_string_equal(tc_json_get_string(entry,
	    "candidate_config_fingerprint"), "candidate-base-fp");
	tc_json_free(l);
}

static void
test_conditional_evidence_key_uses_all_declared_fingerprints(void **state)
{
	tc_json *l = s3_ledger();
	const tc_json *idx;

	(void)state;
	mark_validated(l, "S3");
	idx = tc_json_get(l, "conditional_performance_evidence");
	assert_string_equal(idx->u.obj.members[0].key,
	    "[\"source-sha\",\"baseline-config-fp\",\"candidate-base-fp\","
	    "\"control-fp\",\"workload-fp\",\"range-neutral\"]");
	tc_json_free(l);
}

static void
test_conditional_evidence_retains_complete_profiling_binding(void **state)
{
	static const char *const kept[] = {
		"baseline_profile", "baseline_profile_fingerprint",
		"candidate_profile", "candidate_profile_fingerprint",
		"declared_change_set", "source_profiling_analysis_result",
		"profiling_analysis_result", "verified_in_round_id", NULL
	};
	tc_json *l = s3_ledger();
	const tc_json *entry, *decision;
	size_t i;

	(void)state;
	mark_validated(l, "S3");
	entry = tc_json_get(l, "conditional_performance_evidence")
	    ->u.obj.members[0].value;
	decision = tc_json_pointer(l, "/experiments/S3/performance_scope_decisions/1",
	    NULL);
	for (i = 0; kept[i] != NULL; i++)
		assert_true(tc_json_equal(tc_json_get(entry, kept[i]),
		    tc_json_get(decision, kept[i])));
	assert_string_equal(tc_json_get_string(entry, "evidence_kind"), "prune");
	assert_string_equal(tc_json_get_string(entry, "experiment_id"), "S3");
	assert_string_equal(tc_json_get_string(entry, "child_agent_id"),
	    "agent-7");
	tc_json_free(l);
}

static void
test_changed_fingerprint_does_not_overwrite_conditional_evidence(void **state)
{
	tc_json *l = s3_ledger(), *s4 = fx_result_for(&FX_S4_NEW_WORKLOAD), *out;

	(void)state;
	out = merge_ok(l, s4);
	mark_validated(out, "S3");
	mark_validated(out, "S4");
	assert_int_equal(tc_json_get(out, "experiments")->u.obj.len, 2);
	assert_int_equal(index_size(out), 2);
	tc_json_free(out);
	tc_json_free(s4);
	tc_json_free(l);
}

static void
test_rejects_conflicting_evidence_for_same_conditional_key(void **state)
{
	tc_json *l = s3_ledger(), *s4 = fx_result_for(&FX_S4), *out, *idx;
	tc_error err = TC_ERROR_INIT;

	(void)state;
	out = merge_ok(l, s4);
	tc_json_array_push(tc_json_get(out, "artifact_validated_experiment_ids"),
	    tc_json_new_string("S3"));
	tc_json_array_push(tc_json_get(out, "artifact_validated_experiment_ids"),
	    tc_json_new_string("S4"));
	idx = tc_ledger_conditional_index(tc_json_get(out, "experiments"),
	    tc_json_get(out, "artifact_validated_experiment_ids"), &err);
	assert_null(idx);
	assert_string_equal(tc_error_msg(&err), "conflicting conditional "
	    "performance evidence for composite key [\"source-sha\","
	    "\"baseline-config-fp\",\"candidate-base-fp\",\"control-fp\","
	    "\"workload-fp\",\"range-neutral\"]");
	tc_error_clear(&err);
	tc_json_free(out);
	tc_json_free(s4);
	tc_json_free(l);
}

static void
test_rejects_tampered_or_incomplete_conditional_index(void **state)
{
	tc_json *l = s3_ledger(), *s4 = fx_result_for(&FX_S4);
	tc_json *idx;

	(void)state;
	mark_validated(l, "S3");
	idx = tc_json_get(l, "conditional_performance_evidence");
	tc_json_object_set_string(idx->u.obj.members[0].value, "evidence_kind",
	    "keep");
	expect_merge_error(l, s4, "ledger conditional_performance_evidence does "
	    "not match its derived index");
	tc_json_object_set(l, "conditional_performance_evidence",
	    tc_json_new_object());
	expect_merge_error(l, s4, "ledger conditional_performance_evidence does "
	    "not match its derived index");
	tc_json_object_remove(l, "conditional_performance_evidence");
	expect_merge_mentions(l, s4, "conditional");
	tc_json_free(s4);
	tc_json_free(l);
}

static void
test_legacy_single_child_fields_are_optional_and_never_promoted(void **state)
{
	tc_json *l = empty(), *r = fx_result(), *out;
	const tc_json *idx;

	(void)state;
	fx_set(r, "/single_child_exclusions", "[{\"scope\": \"decoder.single\", "
	    "\"status\": \"verified\", \"action\": \"prune\"}]");
	fx_set(r, "/rounds/0/single_child_group_count", "2");
	out = merge_ok(l, r);
	mark_validated(out, "S3");
	idx = tc_json_get(out, "conditional_performance_evidence");
	assert_int_equal(idx->u.obj.len, 1);
	assert_null(tc_json_get(idx->u.obj.members[0].value, "scope"));
	assert_null(tc_json_get(out, "verified_exclusions"));
	tc_json_free(out);
	tc_json_free(r);
	tc_json_free(l);
}

static void
test_automatic_aot_proposed_classifications_are_not_promoted(void **state)
{
	tc_json *l = empty(), *r = fx_automatic_result(), *out;
	const tc_json *round = tc_json_get(r, "rounds")->u.arr.items[0];
	tc_json *dec = tc_json_get(r, "performance_scope_decisions");

	(void)state;
	tc_json_array_push(dec, fx_decision(round, "range-a", "beneficial", "keep",
	    "proposed", NULL));
	tc_json_array_push(dec, fx_decision(round, "range-b", "neutral", "prune",
	    "proposed", NULL));
	tc_json_array_push(dec, fx_decision(round, "range-c", "regressed",
	    "prune", "proposed", NULL));
	out = merge_ok(l, r);
	mark_validated(out, "S1");
	assert_int_equal(index_size(out), 0);
	assert_int_equal(tc_json_pointer(out,
	    "/experiments/S1/performance_scope_decisions", NULL)->u.arr.len, 3);
	tc_json_free(out);
	tc_json_free(r);
	tc_json_free(l);
}

static void
test_automatic_aot_retains_negative_unresolved_without_promotion(void **state)
{
	tc_json *l = empty(), *r = fx_automatic_result(), *out;
	const tc_json *round = tc_json_get(r, "rounds")->u.arr.items[0];
	tc_json *unres = tc_json_get(r, "unresolved_performance_ranges");

	(void)state;
	tc_json_array_push(unres, fx_decision(round, "range-a",
	    "insufficient_evidence", "reprofile", "proposed", NULL));
	tc_json_array_push(unres, fx_decision(round, "range-b", "regressed",
	    "block", "blocked", NULL));
	out = merge_ok(l, r);
	mark_validated(out, "S1");
	assert_int_equal(index_size(out), 0);
	tc_json_free(out);
	tc_json_free(r);
	tc_json_free(l);
}

static void
test_automatic_aot_optimization_descendant_promotes_verified_prune(void **state)
{
	tc_json *l = empty(), *r = fx_result(), *out;

	(void)state;
	fx_set(r, "/rounds/0/round_kind", "\"automatic_aot\"");
	fx_set(r, "/rounds/0/scope_kind", "\"automatic_aot\"");
	fx_set(r, "/rounds/1/scope_kind", "\"automatic_aot\"");
	fx_set(r, "/rounds/2/scope_kind", "\"automatic_aot\"");
	out = merge_ok(l, r);
	mark_validated(out, "S3");
	assert_int_equal(index_size(out), 1);
	tc_json_free(out);
	tc_json_free(r);
	tc_json_free(l);
}

static void
test_terminal_failed_round_baseline_pair_remains_registered(void **state)
{
	tc_json *l = empty(), *r = fx_result(), *out, *s4;

	(void)state;
	/* S3: BASE + P1, P1 never profiled, with its own baseline pair. */
	fx_del(r, "/rounds/2");
	fx_del(r, "/performance_scope_decisions/2");
	fx_del(r, "/profiling_analysis_agent_ids/S3-FINAL");
	fx_del(r, "/profiling_analysis_result/S3-FINAL");
	fx_del(r, "/profiling_analysis_agent_ids/S3-P1");
	fx_del(r, "/profiling_analysis_result/S3-P1");
	fx_set(r, "/rounds/1/lifecycle/profiling", "\"not_run\"");
	fx_set(r, "/rounds/1/baseline_profile", "\"profiles/p1-baseline.json\"");
	fx_set(r, "/rounds/1/baseline_profile_fingerprint", "\"p1-baseline-fp\"");
	fx_set(r, "/performance_scope_decisions/1/status", "\"applied\"");
	fx_del(r, "/performance_scope_decisions/1/verified_in_round_id");
	fx_del(r, "/performance_scope_decisions/1/profiling_analysis_result");
	fx_set(r, "/blockers", "[\"S3-P1 replay failed\"]");
	out = merge_ok(l, r);
	mark_validated(out, "S3");
	assert_int_equal(index_size(out), 0);
	s4 = fx_result_for(&FX_S4);
	set_all_rounds(s4, "baseline_profile", "\"profiles/p1-baseline.json\"");
	set_all_rounds(s4, "baseline_profile_fingerprint", "\"other-fp\"");
	expect_merge_error(out, s4, "baseline profile path must retain its "
	    "content fingerprint: profiles/p1-baseline.json");
	tc_json_free(s4);
	tc_json_free(out);
	tc_json_free(r);
	tc_json_free(l);
}

/* ---- history: analysis and profile freshness ------------------------------- */

static void
test_frozen_baseline_profiles_may_be_reused_across_experiments(void **state)
{
	tc_json *l = s3_ledger(), *s4 = fx_result_for(&FX_S4), *out;

	(void)state;
	out = merge_ok(l, s4);
	assert_int_equal(tc_json_get(out, "experiments")->u.obj.len, 2);
	assert_non_null(tc_json_pointer(out, "/experiments/S4", NULL));
	tc_json_free(out);
	tc_json_free(s4);
	tc_json_free(l);
}

static void
test_merge_rejects_cross_experiment_analysis_evidence_reuse(void **state)
{
	tc_json *l = s3_ledger(), *s4 = fx_result_for(&FX_S4);

	(void)state;
	fx_set(s4, "/profiling_analysis_agent_ids/S4-P1", "\"prof-agent-1\"");
	expect_merge_error(l, s4, "new experiment requires fresh profiling "
	    "analysis Agent IDs: prof-agent-1");
	tc_json_free(s4);
	s4 = fx_result_for(&FX_S4);
	set_analysis_path(s4, "S4-BASE",
	    "\"S3-BASE/profiling-analysis/profiling-analysis-result.json\"");
	expect_merge_error(l, s4, "new experiment requires fresh profiling "
	    "analysis result paths: "
	    "S3-BASE/profiling-analysis/profiling-analysis-result.json");
	tc_json_free(s4);
	tc_json_free(l);
}

static void
test_rejects_agent_id_whitespace_variant_across_results(void **state)
{
	tc_json *l = s3_ledger(), *s4 = fx_result_for(&FX_S4);

	(void)state;
	fx_set(s4, "/profiling_analysis_agent_ids/S4-P1", "\"prof-agent-1 \"");
	expect_merge_mentions(l, s4, "whitespace");
	tc_json_free(s4);
	tc_json_free(l);
}

static void
test_merge_rejects_candidate_profile_reuse_with_fresh_analysis(void **state)
{
	tc_json *l = s3_ledger(), *s4 = fx_result_for(&FX_S4);

	(void)state;
	fx_set_binding(s4, 0, "candidate_profile",
	    "\"S3-BASE/profiles/candidate.json\"");
	expect_merge_error(l, s4, "new experiment requires fresh candidate "
	    "profile paths: S3-BASE/profiles/candidate.json");
	tc_json_free(s4);
	s4 = fx_result_for(&FX_S4);
	fx_set_binding(s4, 0, "candidate_profile_fingerprint",
	    "\"S3-BASE-candidate-profile-fp\"");
	expect_merge_error(l, s4, "new experiment requires fresh candidate "
	    "profile fingerprints: S3-BASE-candidate-profile-fp");
	tc_json_free(s4);
	tc_json_free(l);
}

static void
test_changed_workload_cannot_reuse_profiles_with_fresh_analysis(void **state)
{
	static const struct fx_exp reuse = {
		"S4", "agent-8", { "prof-agent-41", "prof-agent-42",
		"prof-agent-43" }, "workload-fp-2",
		"profiles/frozen-baseline.json", "baseline-profile-fp"
	};
	tc_json *l = s3_ledger(), *s4 = fx_result_for(&reuse);

	(void)state;
	expect_merge_error(l, s4, "baseline profile path may only be reused with "
	    "the same frozen baseline: profiles/frozen-baseline.json");
	fx_set_binding(s4, 0, "candidate_profile",
	    "\"S3-BASE/profiles/candidate.json\"");
	expect_merge_mentions(l, s4, "profile");
	tc_json_free(s4);
	tc_json_free(l);
}

static void
test_merge_requires_exact_historical_baseline_profile_pair(void **state)
{
	tc_json *l = s3_ledger(), *s4 = fx_result_for(&FX_S4);

	(void)state;
	set_all_rounds(s4, "baseline_profile_fingerprint", "\"other-fp\"");
	expect_merge_error(l, s4, "baseline profile path must retain its content "
	    "fingerprint: profiles/frozen-baseline.json");
	tc_json_free(s4);
	s4 = fx_result_for(&FX_S4);
	set_all_rounds(s4, "baseline_profile", "\"profiles/other-baseline.json\"");
	expect_merge_error(l, s4, "baseline profile fingerprint must retain its "
	    "artifact path: baseline-profile-fp");
	tc_json_free(s4);
	tc_json_free(l);
}

static void
test_merge_rejects_historical_candidate_reused_as_baseline(void **state)
{
	tc_json *l = s3_ledger(), *s4 = fx_result_for(&FX_S4);

	(void)state;
	set_all_rounds(s4, "baseline_profile", "\"S3-BASE/profiles/candidate.json\"");
	expect_merge_error(l, s4, "baseline profile path cannot reuse a "
	    "historical candidate: S3-BASE/profiles/candidate.json");
	tc_json_free(s4);
	s4 = fx_result_for(&FX_S4_NEW_WORKLOAD);
	set_all_rounds(s4, "baseline_profile_fingerprint",
	    "\"S3-P1-candidate-profile-fp\"");
	expect_merge_error(l, s4, "baseline profile fingerprint cannot reuse a "
	    "historical candidate: S3-P1-candidate-profile-fp");
	tc_json_free(s4);
	tc_json_free(l);
}

static void
test_merge_rejects_historical_baseline_reused_as_candidate(void **state)
{
	tc_json *l = s3_ledger(), *s4 = fx_result_for(&FX_S4_NEW_WORKLOAD);

	(void)state;
	fx_set_binding(s4, 0, "candidate_profile",
	    "\"profiles/frozen-baseline.json\"");
	expect_merge_error(l, s4, "candidate profile path cannot reuse a "
	    "historical baseline: profiles/frozen-baseline.json");
	tc_json_free(s4);
	s4 = fx_result_for(&FX_S4_NEW_WORKLOAD);
	fx_set_binding(s4, 1, "candidate_profile_fingerprint",
	    "\"baseline-profile-fp\"");
	expect_merge_error(l, s4, "candidate profile fingerprint cannot reuse a "
	    "historical baseline: baseline-profile-fp");
	tc_json_free(s4);
	tc_json_free(l);
}

static void
test_merge_rejects_analysis_and_profile_role_exchange(void **state)
{
	tc_json *l = s3_ledger(), *s4 = fx_result_for(&FX_S4);

	(void)state;
	set_analysis_path(s4, "S4-P1", "\"S3-BASE/profiles/candidate.json\"");
	expect_merge_error(l, s4, "profiling analysis result path cannot reuse a "
	    "historical profile path: S3-BASE/profiles/candidate.json");
	tc_json_free(s4);
	s4 = fx_result_for(&FX_S4);
	fx_set_binding(s4, 1, "candidate_profile",
	    "\"S3-FINAL/profiling-analysis/profiling-analysis-result.json\"");
	expect_merge_error(l, s4, "profile path cannot reuse a historical "
	    "profiling analysis result path: "
	    "S3-FINAL/profiling-analysis/profiling-analysis-result.json");
	tc_json_free(s4);
	tc_json_free(l);
}

/* ---- history: artifact roles ------------------------------------------------ */

static void
test_merge_rejects_round_artifact_role_reuse_across_experiments(void **state)
{
	tc_json *l = s3_ledger(), *s4 = fx_result_for(&FX_S4);

	(void)state;
	fx_set_binding(s4, 2, "candidate_profile", "\"S3-BASE/round-report.json\"");
	expect_merge_error(l, s4, "artifact role conflict for "
	    "S3-BASE/round-report.json: historical round_report, new "
	    "candidate_profile");
	tc_json_free(s4);
	s4 = fx_result_for(&FX_S4);
	fx_set(s4, "/rounds/0/artifacts/round_report",
	    "\"S3-P1/profiles/candidate.json\"");
	expect_merge_error(l, s4, "artifact role conflict for "
	    "S3-P1/profiles/candidate.json: historical candidate_profile, new "
	    "round_report");
	tc_json_free(s4);
	s4 = fx_result_for(&FX_S4);
	fx_set(s4, "/rounds/0/artifacts/round_report",
	    "\"S3-BASE/round-report.json\"");
	expect_merge_error(l, s4, "new experiment requires fresh round_report "
	    "artifact path: S3-BASE/round-report.json");
	tc_json_free(s4);
	tc_json_free(l);
}

static void
test_merge_rejects_metadata_replay_role_exchange_from_v2_history(void **state)
{
	tc_json *l = empty(), *r = fx_result(), *l3, *s4 = fx_result_for(&FX_S4);

	(void)state;
	fx_set(r, "/rounds/0/artifacts/metadata", "\"shared/view.json\"");
	l3 = merge_ok(l, r);
	fx_set(s4, "/rounds/0/artifacts/replay", "\"shared/view.json\"");
	expect_merge_error(l3, s4, "artifact role conflict for shared/view.json: "
	    "historical metadata, new replay");
	tc_json_free(s4);
	tc_json_free(l3);
	tc_json_free(r);
	tc_json_free(l);
}

/* ---- schema 1 migration ---------------------------------------------------- */

static void
test_migrates_real_legacy_v1_ledger_without_promoting_legacy_evidence(void **state)
{
	tc_json *v1 = fx_legacy_v1_ledger("S2"), *r = fx_result(), *out;

	(void)state;
	out = merge_ok(v1, r);
	assert_true(fx_int_is(tc_json_get(out, "schema_version"), "2"));
	assert_true(fx_int_is(tc_json_get(out,
	    "migrated_from_schema_version"), "1"));
	assert_int_equal(tc_json_get(out, "experiments")->u.obj.len, 1);
	assert_non_null(tc_json_pointer(out, "/experiments/S3", NULL));
	assert_true(tc_json_equal(tc_json_pointer(out, "/legacy_experiments/S2",
	    NULL), tc_json_pointer(v1, "/experiments/S2", NULL)));
	assert_string_equal(tc_json_string(tc_json_pointer(out,
	    "/legacy_experiments/S2/nested/metadata/files/0", NULL)),
	    "S2/meta/a.json");
	assert_true(tc_json_equal(tc_json_get(out, "legacy_verified_exclusions"),
	    tc_json_get(v1, "verified_exclusions")));
	assert_null(tc_json_get(out, "verified_exclusions"));
	assert_int_equal(index_size(out), 0);
	/* The marker survives later merges. */
	{
		tc_json *s4 = fx_result_for(&FX_S4), *next = merge_ok(out, s4);

		assert_true(fx_int_is(tc_json_get(next,
		    "migrated_from_schema_version"), "1"));
		tc_json_free(next);
		tc_json_free(s4);
	}
	tc_json_free(out);
	tc_json_free(r);
	tc_json_free(v1);
}

static void
test_v1_rejects_invalid_nested_legacy_experiment_artifact_paths(void **state)
{
	static const char *const bad[] = { "\"/tmp/sk-meta.json\"",
	    "\"../outside/sk-meta.json\"" };
	tc_json *r = fx_result();
	size_t i;

	(void)state;
	for (i = 0; i < 2; i++) {
		tc_json *v1 = fx_legacy_v1_ledger("S2");

		fx_set(v1, "/experiments/S2/nested/metadata/files/0", bad[i]);
		expect_merge_error(v1, r, "legacy_experiments.S2.nested.metadata."
		    "files[0] must be a relative artifact path");
		tc_json_free(v1);
	}
	tc_json_free(r);
}

static void
test_v1_rejects_invalid_legacy_verified_exclusion_artifact_paths(void **state)
{
	static const char *const bad[] = { "\"/tmp/source-map.json\"",
	    "\"../source-map.json\"", "\"  \"" };
	tc_json *r = fx_result();
	size_t i;

	(void)state;
	for (i = 0; i < 3; i++) {
		tc_json *v1 = fx_legacy_v1_ledger("S2");

		fx_set(v1, "/verified_exclusions/0/source_evidence", bad[i]);
		expect_merge_error(v1, r, "legacy_verified_exclusions[0]."
		    "source_evidence must be a relative artifact path");
		tc_json_free(v1);
	}
	tc_json_free(r);
}

static void
test_migrates_intermediate_v1_performance_experiment_as_active(void **state)
{
	tc_json *v1 = fx_parse("{\"schema_version\": 1, \"experiments\": {}}");
	tc_json *s4 = fx_result_for(&FX_S4), *out;

	(void)state;
	tc_json_object_set(tc_json_get(v1, "experiments"), "S3", fx_result());
	out = merge_ok(v1, s4);
	assert_int_equal(tc_json_get(out, "experiments")->u.obj.len, 2);
	assert_non_null(tc_json_pointer(out, "/experiments/S3", NULL));
	assert_int_equal(tc_json_get(out, "artifact_validated_experiment_ids")
	    ->u.arr.len, 0);
	assert_int_equal(index_size(out), 0);
	assert_int_equal(tc_json_get(out, "legacy_experiments")->u.obj.len, 0);
	tc_json_free(out);
	tc_json_free(s4);
	tc_json_free(v1);
}

static void
test_legacy_experiment_id_cannot_be_reused_by_active_experiment(void **state)
{
	tc_json *v1 = fx_legacy_v1_ledger("S3"), *r = fx_result();

	(void)state;
	expect_merge_error(v1, r, "legacy experiment ID S3 cannot be reused by an "
	    "active experiment");
	tc_json_free(r);
	tc_json_free(v1);
}

static void
test_legacy_artifacts_remain_reserved_after_schema_migration(void **state)
{
	tc_json *v1 = fx_legacy_v1_ledger("S2"), *r = fx_result();

	(void)state;
	fx_set_binding(r, 0, "candidate_profile", "\"S2/round-report.json\"");
	expect_merge_error(v1, r, "artifact role conflict for "
	    "S2/round-report.json: historical round_report, new "
	    "candidate_profile");
	tc_json_free(r);
	tc_json_free(v1);
}

static void
test_legacy_single_segment_artifact_remains_reserved_after_migration(void **state)
{
	tc_json *v1 = fx_legacy_v1_ledger("S2"), *r = fx_result();

	(void)state;
	fx_set(v1, "/experiments/S2/source_evidence", "\"reserved\"");
	fx_set_binding(r, 1, "candidate_profile", "\"reserved\"");
	expect_merge_error(v1, r, "artifact role conflict for reserved: "
	    "historical source_evidence, new candidate_profile");
	tc_json_free(r);
	tc_json_free(v1);
}

static void
test_legacy_source_evidence_remains_reserved_after_schema_migration(void **state)
{
	tc_json *v1 = fx_legacy_v1_ledger("S2"), *r = fx_result();

	(void)state;
	fx_set_binding(r, 0, "candidate_profile", "\"S2/source-map.json\"");
	expect_merge_mentions(v1, r, "artifact role conflict for "
	    "S2/source-map.json");
	tc_json_free(r);
	tc_json_free(v1);
}

static void
test_legacy_verified_exclusion_artifacts_remain_reserved(void **state)
{
	tc_json *v1 = fx_legacy_v1_ledger("S2"), *r = fx_result();

	(void)state;
	fx_set(v1, "/experiments", "{}");
	fx_set(r, "/rounds/0/artifacts/source_evidence", "\"S2/source-map.json\"");
	expect_merge_error(v1, r, "new experiment requires fresh source_evidence "
	    "artifact path: S2/source-map.json");
	tc_json_free(r);
	tc_json_free(v1);
}

static void
test_v2_rejects_tampered_legacy_experiment_identity(void **state)
{
	tc_json *v1 = fx_legacy_v1_ledger("S2"), *r = fx_result(), *l;
	tc_json *s4 = fx_result_for(&FX_S4);

	(void)state;
	l = merge_ok(v1, r);
	fx_set(l, "/legacy_experiments/S2/experiment_id", "\"S2-renamed\"");
	expect_merge_error(l, s4, "ledger legacy experiment S2 identity mismatch");
	tc_json_free(s4);
	tc_json_free(l);
	tc_json_free(r);
	tc_json_free(v1);
}

static void
test_idempotent_merge_rejects_tampered_legacy_artifact_roles(void **state)
{
	tc_json *v1 = fx_legacy_v1_ledger("S2"), *r = fx_result(), *l;

	(void)state;
	l = merge_ok(v1, r);
	fx_set(l, "/legacy_experiments/S2/artifacts/metadata", "\"reserved\"");
	fx_set(l, "/legacy_experiments/S2/artifacts/replay", "\"reserved\"");
	expect_merge_error(l, r, "ledger artifact path reserved has conflicting "
	    "roles: metadata, replay");
	tc_json_free(l);
	tc_json_free(r);
	tc_json_free(v1);
}

static void
test_prepare_migrates_a_schema1_ledger_on_its_own(void **state)
{
	tc_json *v1 = fx_legacy_v1_ledger("S2"), *out;
	tc_error err = TC_ERROR_INIT;

	(void)state;
	fx_set(v1, "/stale_key", "1");
	out = tc_ledger_prepare(v1, &err);
	assert_non_null(out);
	assert_true(fx_int_is(tc_json_get(out, "schema_version"), "2"));
	assert_non_null(tc_json_pointer(out, "/legacy_experiments/S2", NULL));
	assert_null(tc_json_get(out, "stale_key"));
	assert_int_equal(out->u.obj.len, 7);
	tc_json_free(out);
	tc_json_free(v1);
}

/* ---- every merge message ---------------------------------------------------- */

struct merge_row {
	const char *ledger;	/* JSON; "S3" inserts the S3 ledger */
	const char *setup[3][2];	/* pointer, JSON value */
	const char *expected;
};

static const struct merge_row merge_rows[] = {
	{ "{\"x\": [1, 1e999]}", { { NULL, NULL } },
	  "ledger.x[1] must contain finite JSON numbers" },
	{ "{\"schema_version\": 2, \"experiments\": []}", { { NULL, NULL } },
	  "ledger experiments must be an object" },
	{ "{\"experiments\": {\" S3\": {}}}", { { NULL, NULL } },
	  "ledger experiment IDs must be canonical strings" },
	{ "{\"experiments\": {\"S3\": 5}}", { { NULL, NULL } },
	  "ledger experiment S3 must be an object" },
	{ "S3", { { "/experiments/S3/experiment_id", "\"S9\"" } },
	  "ledger experiment S3 identity mismatch" },
	{ "S3", { { "/experiments/S3/blockers", "\"x\"" } },
	  "ledger experiment S3 is invalid: blockers must be a list" },
	{ "S3", { { "/artifact_validated_experiment_ids", "\"S3\"" } },
	  "ledger artifact_validated_experiment_ids must be a list" },
	{ "S3", { { "/artifact_validated_experiment_ids", "[\"S3 \"]" } },
	  "ledger artifact_validated_experiment_ids must contain canonical "
	  "strings" },
	{ "S3", { { "/artifact_validated_experiment_ids", "[\"S3\", \"S3\"]" } },
	  "ledger artifact_validated_experiment_ids must be unique" },
	{ "S3", { { "/artifact_validated_experiment_ids", "[\"S9\", \"S8\"]" } },
	  "ledger artifact_validated_experiment_ids references unknown "
	  "experiments: S8, S9" },
	{ "S3", { { "/legacy_experiments", "[]" } },
	  "ledger legacy_experiments must be an object" },
	{ "S3", { { "/legacy_experiments", "{\"\": {}}" } },
	  "ledger legacy experiment IDs must be canonical strings" },
	{ "S3", { { "/legacy_experiments", "{\"S2\": []}" } },
	  "ledger legacy experiment S2 must be an object" },
	{ "S3", { { "/legacy_experiments", "{\"S2\": {\"experiment_id\": "
	    "\"S1\"}}" } },
	  "ledger legacy experiment S2 identity mismatch" },
	{ "S3", { { "/legacy_experiments", "{\"S2\": {\"experiment_id\": "
	    "\"S2\", \"metadata\": \"/abs.json\", \"replay\": [\"../r.json\"]}}" } },
	  "legacy_experiments.S2.metadata must be a relative artifact path; "
	  "legacy_experiments.S2.replay[0] must be a relative artifact path" },
	{ "S3", { { "/legacy_verified_exclusions", "{}" } },
	  "ledger legacy_verified_exclusions must be a list" },
	{ "S3", { { "/legacy_verified_exclusions", "[{\"source_evidence\": \"\"}]" } },
	  "legacy_verified_exclusions[0].source_evidence must be a relative "
	  "artifact path" },
	{ "S3", { { "/legacy_experiments", "{\"S3\": {\"experiment_id\": "
	    "\"S3\"}}" } },
	  "ledger active and legacy experiment IDs must be disjoint: S3" },
	{ "S3", { { "/conditional_performance_evidence", "[]" } },
	  "ledger conditional_performance_evidence must be an object" },
	{ "S3", { { "/conditional_performance_evidence", "{\"k\": {}}" } },
	  "ledger conditional_performance_evidence does not match its derived "
	  "index" },
	{ "S3", { { "/legacy_experiments", "{\"S1\": {\"experiment_id\": \"S1\", "
	    "\"metadata\": \"shared/meta.json\"}, \"S2\": {\"experiment_id\": "
	    "\"S2\", \"metadata\": \"shared/meta.json\"}}" } },
	  "ledger metadata artifact path is reused across experiments: "
	  "shared/meta.json" },
	{ "S3", { { "/legacy_experiments", "{\"S2\": {\"experiment_id\": \"S2\", "
	    "\"metadata\": \"reserved\", \"replay\": \"reserved\"}}" } },
	  "ledger artifact path reserved has conflicting roles: metadata, "
	  "replay" },
	{ "S3", { { "/legacy_experiments", "{\"S2\": {\"experiment_id\": \"S2\", "
	    "\"baseline_profile\": \"profiles/frozen-baseline.json\"}}" } },
	  NULL },	/* baseline profiles may be shared: no error */
	{ "S3", { { "/legacy_verified_exclusions", "[{\"metadata\": \"m.json\"}, "
	    "{\"metadata\": \"m.json\"}]" } },
	  "ledger metadata artifact path is reused across experiments: m.json" },
	{ "S3", { { "/legacy_verified_exclusions", "[{\"experiment_id\": \"S2\", "
	    "\"metadata\": \"m.json\"}, {\"experiment_id\": \"S2\", "
	    "\"metadata\": \"m.json\"}]" } },
	  NULL },	/* the same owner may repeat a path */
};

static void
test_each_ledger_defect_reports_its_reference_message(void **state)
{
	size_t i, k, failed = 0;

	(void)state;
	for (i = 0; i < sizeof(merge_rows) / sizeof(merge_rows[0]); i++) {
		const struct merge_row *row = &merge_rows[i];
		tc_json *l = strcmp(row->ledger, "S3") == 0 ? s3_ledger() :
		    fx_parse(row->ledger);
		tc_json *r = fx_automatic_result(), *out;
		tc_error err = TC_ERROR_INIT;

		for (k = 0; k < 3 && row->setup[k][0] != NULL; k++)
			fx_set(l, row->setup[k][0], row->setup[k][1]);
		out = tc_ledger_merge(l, r, NULL, &err);
		if (row->expected == NULL ? out == NULL :
		    (out != NULL || strcmp(tc_error_msg(&err), row->expected) != 0)) {
			fprintf(stderr, "# row %zu: expected \"%s\", got \"%s\"\n",
			    i, row->expected ? row->expected : "(success)",
			    out != NULL ? "(success)" : tc_error_msg(&err));
			failed++;
		}
		tc_json_free(out);
		tc_error_clear(&err);
		tc_json_free(r);
		tc_json_free(l);
	}
	assert_int_equal(failed, 0);
}

/* Every schema 1 migration message (docs/spec/ledger.md "Schema 1 migration").
 */
static void
test_each_schema1_defect_reports_its_reference_message(void **state)
{
	static const struct {
		const char *ledger, *expected;
	} rows[] = {
		{ "{\"schema_version\": 1, \"experiments\": []}",
		  "schema 1 ledger experiments must be an object" },
		{ "{\"schema_version\": 1, \"legacy_experiments\": 7}",
		  "schema 1 legacy_experiments must be an object" },
		{ "{\"schema_version\": 1, \"experiments\": {\" S2\": {}}}",
		  "schema 1 ledger experiment IDs must be canonical strings" },
		{ "{\"schema_version\": 1, \"experiments\": {\"S2\": {}}, "
		  "\"legacy_experiments\": {\"S2\": {\"experiment_id\": \"S2\"}}}",
		  "schema 1 experiment S2 has duplicate legacy identity" },
		{ "{\"schema_version\": 1, \"experiments\": {\"S2\": "
		  "{\"experiment_id\": \"S2\", \"performance_scope_decisions\": []}}}",
		  "schema 1 performance experiment S2 is invalid: missing fields: "
		  "baseline_config_fingerprint, baseline_revision, blockers, "
		  "child_agent_id, control_fingerprint, "
		  "inherited_exclusions_for_next_agents, lifecycle, "
		  "next_agent_guidance_zh, parent_experiment_id, "
		  "profiling_analysis_agent_ids, profiling_analysis_result, rounds, "
		  "source_revision, unresolved_performance_ranges, "
		  "workload_fingerprint; child_agent_id must be a non-empty string" },
		{ "{\"schema_version\": 1, \"verified_exclusions\": {}}",
		  "schema 1 verified_exclusions must be a list" },
		{ "{\"schema_version\": 1, \"legacy_verified_exclusions\": 1, "
		  "\"verified_exclusions\": []}",
		  "schema 1 verified_exclusions must be a list" },
		{ "{\"schema_version\": 1, \"experiments\": {\"S2\": 5}}",
		  "ledger legacy experiment S2 must be an object" },
	};
	tc_json *r = fx_automatic_result();
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		tc_json *l = fx_parse(rows[i].ledger);
		char *msg = merge_err(l, r);

		if (strncmp(msg, rows[i].expected, strlen(rows[i].expected)) != 0)
			fprintf(stderr, "# row %zu: %s\n", i, msg);
		assert_true(strncmp(msg, rows[i].expected,
		    strlen(rows[i].expected)) == 0);
		free(msg);
		tc_json_free(l);
	}
	tc_json_free(r);
}

static void
test_schema1_performance_experiment_must_be_filed_under_its_id(void **state)
{
	tc_json *v1 = fx_parse("{\"schema_version\": 1, \"experiments\": {}}");
	tc_json *r = fx_automatic_result();

	(void)state;
	tc_json_object_set(tc_json_get(v1, "experiments"), "S9", fx_result());
	expect_merge_error(v1, r, "schema 1 performance experiment S9 identity "
	    "mismatch");
	tc_json_free(r);
	tc_json_free(v1);
}

static void
test_inconsistent_baseline_history_is_refused(void **state)
{
	tc_json *l = s3_ledger(), *s4 = fx_result_for(&FX_S4), *r = fx_automatic_result();

	(void)state;
	/* A hand-edited history: S4 stored with another fingerprint for the
	 * shared frozen baseline path. */
	set_all_rounds(s4, "baseline_profile_fingerprint", "\"other-fp\"");
	tc_json_object_set(tc_json_get(l, "experiments"), "S4", s4);
	expect_merge_error(l, r, "ledger contains a non-immutable baseline "
	    "profile registry");
	tc_json_free(l);
	l = s3_ledger();
	s4 = fx_result_for(&FX_S4_NEW_WORKLOAD);
	fx_set_binding(s4, 0, "candidate_profile_fingerprint",
	    "\"baseline-profile-fp\"");
	tc_json_object_set(tc_json_get(l, "experiments"), "S4", s4);
	expect_merge_error(l, r, "ledger baseline and candidate profile roles "
	    "must be disjoint");
	tc_json_free(r);
	tc_json_free(l);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_object_merge_without_artifact_root_cannot_promote_conditional_evidence),
		cmocka_unit_test(test_merged_experiment_is_a_deep_copy_of_the_result),
		cmocka_unit_test(test_merge_rejects_non_object_ledgers),
		cmocka_unit_test(test_merge_reports_the_joined_validation_errors_of_the_result),
		cmocka_unit_test(test_rejects_unknown_ledger_schema_version),
		cmocka_unit_test(test_schema2_ledger_without_version_key_is_accepted),
		cmocka_unit_test(test_merge_rejects_changed_content_for_existing_experiment_id),
		cmocka_unit_test(test_conditional_evidence_deduplicates_same_composite_key),
		cmocka_unit_test(test_final_applied_keep_decisions_are_not_promoted),
		cmocka_unit_test(test_conditional_evidence_key_uses_all_declared_fingerprints),
		cmocka_unit_test(test_conditional_evidence_retains_complete_profiling_binding),
		cmocka_unit_test(test_changed_fingerprint_does_not_overwrite_conditional_evidence),
		cmocka_unit_test(test_rejects_conflicting_evidence_for_same_conditional_key),
		cmocka_unit_test(test_rejects_tampered_or_incomplete_conditional_index),
		cmocka_unit_test(test_legacy_single_child_fields_are_optional_and_never_promoted),
		cmocka_unit_test(test_automatic_aot_proposed_classifications_are_not_promoted),
		cmocka_unit_test(test_automatic_aot_retains_negative_unresolved_without_promotion),
		cmocka_unit_test(test_automatic_aot_optimization_descendant_promotes_verified_prune),
		cmocka_unit_test(test_terminal_failed_round_baseline_pair_remains_registered),
		cmocka_unit_test(test_frozen_baseline_profiles_may_be_reused_across_experiments),
		cmocka_unit_test(test_merge_rejects_cross_experiment_analysis_evidence_reuse),
		cmocka_unit_test(test_rejects_agent_id_whitespace_variant_across_results),
		cmocka_unit_test(test_merge_rejects_candidate_profile_reuse_with_fresh_analysis),
		cmocka_unit_test(test_changed_workload_cannot_reuse_profiles_with_fresh_analysis),
		cmocka_unit_test(test_merge_requires_exact_historical_baseline_profile_pair),
		cmocka_unit_test(test_merge_rejects_historical_candidate_reused_as_baseline),
		cmocka_unit_test(test_merge_rejects_historical_baseline_reused_as_candidate),
		cmocka_unit_test(test_merge_rejects_analysis_and_profile_role_exchange),
		cmocka_unit_test(test_merge_rejects_round_artifact_role_reuse_across_experiments),
		cmocka_unit_test(test_merge_rejects_metadata_replay_role_exchange_from_v2_history),
		cmocka_unit_test(test_migrates_real_legacy_v1_ledger_without_promoting_legacy_evidence),
		cmocka_unit_test(test_v1_rejects_invalid_nested_legacy_experiment_artifact_paths),
		cmocka_unit_test(test_v1_rejects_invalid_legacy_verified_exclusion_artifact_paths),
		cmocka_unit_test(test_migrates_intermediate_v1_performance_experiment_as_active),
		cmocka_unit_test(test_legacy_experiment_id_cannot_be_reused_by_active_experiment),
		cmocka_unit_test(test_legacy_artifacts_remain_reserved_after_schema_migration),
		cmocka_unit_test(test_legacy_single_segment_artifact_remains_reserved_after_migration),
		cmocka_unit_test(test_legacy_source_evidence_remains_reserved_after_schema_migration),
		cmocka_unit_test(test_legacy_verified_exclusion_artifacts_remain_reserved),
		cmocka_unit_test(test_v2_rejects_tampered_legacy_experiment_identity),
		cmocka_unit_test(test_idempotent_merge_rejects_tampered_legacy_artifact_roles),
		cmocka_unit_test(test_prepare_migrates_a_schema1_ledger_on_its_own),
		cmocka_unit_test(test_each_ledger_defect_reports_its_reference_message),
		cmocka_unit_test(test_inconsistent_baseline_history_is_refused),
		cmocka_unit_test(test_each_schema1_defect_reports_its_reference_message),
		cmocka_unit_test(test_schema1_performance_experiment_must_be_filed_under_its_id),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
