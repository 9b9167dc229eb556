/*
 * fuzz_ledger.c - libFuzzer target for the schema 2 experiment ledger
 * (docs/spec/ledger.md "Experiment ledger"): the reader (NaN refused),
 * structural validation of an experiment result, the artifact-evidence checks
 * against a scratch artifact root holding every file the reference
 * fixture (experiment S3) names, with and without an analyser hook, the
 * relative-path and role registries, migration, preparation, the
 * conditional index and merge.
 *
 * Input: part 0 an experiment result; part 1 (optional) the ledger it is
 * merged into (absent: an empty ledger, as "ledger merge" uses for a
 * missing file).
 *
 * Invariants: every NULL/-1 carries a message; validation always answers
 * with {"valid": bool, "errors": [...]} and valid == (errors is empty);
 * merge never modifies its inputs, and refuses exactly the results that
 * validation with the same options calls invalid.
 */
#include "fuzz_common.h"
#include "tunectl/ledger.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char *led_root;

/* The analysis the S3 fixture's rounds point at (tests/cli/test_ledger.sh
 * write_artifacts). */
static void
led_artifacts(void)
{
	static const char *const rounds[][3] = {
		{ "S3-BASE", "candidate-base-fp", "prof-agent-1" },
		{ "S3-P1", "candidate-pruned-fp", "prof-agent-2" },
		{ "S3-FINAL", "candidate-final-fp", "prof-agent-3" },
	};
	static const char *const inputs[] = {
		"sk_meta", "baseline_config", "candidate_config",
		"baseline_workload", "candidate_workload", "declared_change_set"
	};
	size_t r, i;

	fz_write_str(led_root, "profiles/frozen-baseline.json", "{}\n");
	for (r = 0; r < 3; r++) {
		char *rel = tc_xasprintf("%s/profiles/candidate.json",
		    rounds[r][0]);
		char *text;

		fz_write_str(led_root, rel, "{}\n");
		free(rel);
		for (i = 0; i < 6; i++) {
			rel = tc_xasprintf("%s/inputs/%s.json", rounds[r][0],
			    inputs[i]);
			fz_write_str(led_root, rel, "{}\n");
			free(rel);
		}
		text = tc_xasprintf("{\"schema_version\": \"1.2\", "
		    "\"candidate_name\": \"S3\", \"experiment_id\": \"S3\", "
		    "\"round_id\": \"%s\", \"analysis_agent_id\": \"%s\", "
		    "\"source_revision\": \"source-sha\", "
		    "\"baseline_config_fingerprint\": \"baseline-config-fp\", "
		    "\"candidate_config_fingerprint\": \"%s\", "
		    "\"control_fingerprint\": \"control-fp\", "
		    "\"workload_fingerprint\": \"workload-fp\", "
		    "\"baseline_profile_fingerprint\": \"baseline-profile-fp\", "
		    "\"candidate_profile_fingerprint\": \"%s-candidate-profile-fp\", "
		    "\"declared_change_set\": {\"allowed_json_pointers\": "
		    "[\"/superkernel/enabled\", \"/superkernel/scope\"], "
		    "\"only_change_zh\": \"只启用 SuperKernel 并应用本轮范围。\"}, "
		    "\"baseline_workload_fingerprint\": \"workload-fp\", "
		    "\"candidate_workload_fingerprint\": \"workload-fp\", "
		    "\"baseline_control_fingerprint\": \"control-fp\", "
		    "\"candidate_control_fingerprint\": \"control-fp\", "
		    "\"inputs\": {\"baseline_profile\": "
		    "\"../../profiles/frozen-baseline.json\", "
		    "\"candidate_profile\": \"../profiles/candidate.json\", "
		    "\"sk_meta\": \"../inputs/sk_meta.json\", "
		    "\"baseline_config\": \"../inputs/baseline_config.json\", "
		    "\"candidate_config\": \"../inputs/candidate_config.json\", "
		    "\"baseline_workload\": \"../inputs/baseline_workload.json\", "
		    "\"candidate_workload\": \"../inputs/candidate_workload.json\", "
		    "\"declared_change_set\": "
		    "\"../inputs/declared_change_set.json\", \"sk_prof\": null}}\n",
		    rounds[r][0], rounds[r][2], rounds[r][1], rounds[r][0]);
		rel = tc_xasprintf("%s/profiling-analysis/"
		    "profiling-analysis-result.json", rounds[r][0]);
		fz_write_str(led_root, rel, text);
		free(rel);
		free(text);
	}
}

/* An analyser that agrees with the result: the decisions of the round,
 * as the reference's analyser would have normalised them. */
static int
led_analyze(void *ctx, const tc_json *result, const char *round_id,
    const char *analysis_path, const tc_json *analysis, tc_json **decisions,
    tc_json **actions, tc_error *err)
{
	static const char *const lists[] = {
		"performance_scope_decisions", "unresolved_performance_ranges"
	};
	static const char *const fields[] = {
		"range_id", "sk_id", "classification", "action", "mapping_method",
		"mapping_confidence", "boundary", "source_scope"
	};
	size_t l, i, k;

	(void)ctx;
	(void)analysis_path;
	(void)analysis;
	(void)err;
	*decisions = tc_json_new_array();
	*actions = tc_json_new_array();
	for (l = 0; l < 2; l++) {
		const tc_json *list = tc_json_get_array(result, lists[l]);

		for (i = 0; list != NULL && i < list->u.arr.len; i++) {
			const tc_json *d = list->u.arr.items[i];
			const char *rid = tc_json_get_string(d, "round_id");
			tc_json *pd, *pa;

			if (rid == NULL || strcmp(rid, round_id) != 0)
				continue;
			pd = tc_json_new_object();
			pa = tc_json_new_object();
			for (k = 0; k < sizeof(fields) / sizeof(fields[0]); k++) {
				const tc_json *v = tc_json_get(d, fields[k]);

				if (v == NULL)
					continue;
				if (k < 7)
					tc_json_object_set(pd, fields[k],
					    tc_json_clone(v));
				if (k < 4 || k >= 6)
					tc_json_object_set(pa, fields[k],
					    tc_json_clone(v));
			}
			tc_json_array_push(*decisions, pd);
			tc_json_array_push(*actions, pa);
		}
	}
	return 0;
}

static void
led_check_validation(const tc_json *v)
{
	const tc_json *valid = tc_json_get(v, "valid");
	const tc_json *errors = tc_json_get(v, "errors");

	FZ_REQUIRE(tc_json_is(valid, TC_JSON_BOOL));
	FZ_REQUIRE(tc_json_is(errors, TC_JSON_ARRAY));
	FZ_REQUIRE(valid->u.b == (errors->u.arr.len == 0));
}

static bool
led_valid(const tc_json *result, const tc_ledger_opts *o)
{
	tc_json *v = tc_experiment_validate(result, o);
	bool ok;

	led_check_validation(v);
	ok = tc_json_get(v, "valid")->u.b;
	if (getenv("FUZZ_VERBOSE") != NULL) {
		tc_buf b = TC_BUF_INIT;

		tc_json_repr(&b, v);
		fprintf(stderr, "validate: %.300s\n", tc_buf_cstr(&b));
		tc_buf_free(&b);
	}
	tc_json_free(v);
	return ok;
}

static void
led_merge(const tc_json *ledger, const tc_json *result,
    const tc_ledger_opts *o)
{
	tc_error err = TC_ERROR_INIT;
	tc_json *lcopy = tc_json_clone(ledger), *rcopy = tc_json_clone(result);
	tc_json *merged;
	bool valid = led_valid(result, o);

	merged = fz_result(tc_ledger_merge(ledger, result, o, &err), &err);
	FZ_REQUIRE(tc_json_equal(lcopy, ledger) ||
	    !tc_json_equal(ledger, ledger));	/* NaN is never equal */
	FZ_REQUIRE(tc_json_equal(rcopy, result) ||
	    !tc_json_equal(result, result));
	if (merged != NULL) {
		FZ_REQUIRE(valid);
		tc_json_free(merged);
	}
	tc_json_free(lcopy);
	tc_json_free(rcopy);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *parts[2];
	size_t lens[2], n;
	tc_error err = TC_ERROR_INIT;
	tc_ledger_analyzer an = { led_analyze, NULL, NULL };
	tc_ledger_opts bare = { NULL, NULL };
	tc_ledger_opts rooted = { NULL, NULL }, analysed = { NULL, NULL };
	tc_json *result, *ledger, *v;

	if (led_root == NULL) {
		led_root = fz_mkroot("ledger");
		led_artifacts();
	}
	rooted.artifact_root = led_root;
	analysed.artifact_root = led_root;
	analysed.analyzer = &an;
	n = fz_split(data, size, parts, lens, 2);
	result = fz_result(tc_ledger_parse(parts[0], lens[0], &err), &err);
	if (result == NULL)
		return 0;

	v = tc_experiment_structural_errors(result);
	FZ_REQUIRE(tc_json_is(v, TC_JSON_ARRAY));
	tc_json_free(v);
	v = tc_json_new_array();
	tc_ledger_relative_path_errors(result, "", v);
	tc_json_free(v);
	tc_json_free(tc_ledger_paths_by_role(result));
	(void)led_valid(result, &bare);
	(void)led_valid(result, &rooted);
	(void)led_valid(result, &analysed);

	/* part 0 read as a ledger too */
	v = fz_result(tc_ledger_prepare(result, &err), &err);
	tc_json_free(v);
	v = fz_result(tc_ledger_migrate_v1(result, &err), &err);
	tc_json_free(v);
	if (tc_json_is(tc_json_get(result, "experiments"), TC_JSON_OBJECT)) {
		v = fz_result(tc_ledger_conditional_index(
		    tc_json_get(result, "experiments"),
		    tc_json_get(result, "artifact_validated_experiment_ids") != NULL ?
		    tc_json_get(result, "artifact_validated_experiment_ids") :
		    tc_json_get(result, "experiments"), &err), &err);
		tc_json_free(v);
	}

	ledger = n > 1 ? fz_result(tc_ledger_parse(parts[1], lens[1], &err),
	    &err) : tc_json_new_object();
	if (ledger != NULL) {
		led_merge(ledger, result, &bare);
		led_merge(ledger, result, &analysed);
		tc_json_free(ledger);
	}
	tc_json_free(result);
	return 0;
}
