/*
 * test_bench_matrix.c - every validation message of the screening matrix
 * v2 (docs/spec/gates.md "Screening matrix v2"), the Stage-A option controls
 * (docs/spec/gates.md "Stage-A option controls"), the replay evidence checks
 * tunectl implements (docs/spec/gates.md "Replay evidence") and tunectl's
 * winner option matrix v1 rules, each pinned by one document that violates
 * exactly that rule.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "tunectl/bench.h"
#include "unit_fixture.h"

static char root[4096];

static int
setup(void **state)
{
	(void)state;
	unit_tmpdir_into(root, sizeof(root), "matrix-test");
	return 0;
}

static int
teardown(void **state)
{
	(void)state;
	return unit_rmtree(root);
}

static tc_json *
parse(const char *text)
{
	tc_error err = TC_ERROR_INIT;
	tc_json *v = tc_json_parse(text, strlen(text), &err);

	if (v == NULL)
		fail_msg("fixture JSON: %s", tc_error_msg(&err));
	return v;
}

#define S4_BLOCKED \
	"{\"id\":\"S4\",\"strategy_kind\":\"semantic_segment\",\"only_change\":\"x\"," \
	"\"status\":\"blocked\",\"blocker\":{\"code\":\"semantic_boundary_unavailable\"," \
	"\"reason_zh\":\"源码无法建立保持依赖的语义分段边界。\",\"evidence\":\"intake/S4.md\"}}"
#define EXEC(id, kind) \
	"{\"id\":\"" id "\",\"strategy_kind\":\"" kind "\",\"only_change\":\"x\",\"status\":\"executed\"}"
#define HEAD \
	"{\"schema_version\":\"superkernel-screening-matrix-v2\"," \
	"\"candidate_set_frozen_before_execution\":true,\"candidates\":["
#define GOOD_LIST EXEC("S1", "automatic_aot") "," EXEC("S2", "broad_decode") "," \
	EXEC("S3", "per_block") "," S4_BLOCKED

static void
expect_matrix_error(const char *doc, const char *want)
{
	static const char *const names[] = { "S1", "S2", "S3" };
	tc_error err = TC_ERROR_INIT;
	tc_json *m = parse(doc);

	assert_null(tc_screening_matrix_validate(m, names, 3, &err));
	assert_string_equal(tc_error_msg(&err), want);
	tc_error_clear(&err);
	tc_json_free(m);
}

static void
screening_matrix_messages(void **state)
{
	(void)state;
	expect_matrix_error("[]", "screening matrix must be a JSON object");
	expect_matrix_error("{\"schema_version\":\"superkernel-screening-matrix-v1\"}",
	    "screening matrix schema_version must be superkernel-screening-matrix-v2");
	expect_matrix_error("{\"schema_version\":\"superkernel-screening-matrix-v2\","
	    "\"candidate_set_frozen_before_execution\":1}",
	    "screening matrix must declare candidate_set_frozen_before_execution=true");
	expect_matrix_error(HEAD "]}",
	    "screening matrix candidates must be a non-empty list");
	expect_matrix_error(HEAD "1]}",
	    "screening matrix candidates[0] must be an object");
	expect_matrix_error(HEAD "{\"id\":\"  \"}]}",
	    "screening matrix candidates[0].id must be a non-empty string");
	expect_matrix_error(HEAD EXEC("S1", "automatic_aot") "," EXEC(" S1 ", "x") "]}",
	    "screening matrix has duplicate candidate id: S1");
	expect_matrix_error(HEAD "{\"id\":\"S1\",\"strategy_kind\":3}]}",
	    "screening matrix candidates[0].strategy_kind must be a non-empty string");
	expect_matrix_error(HEAD "{\"id\":\"S1\",\"strategy_kind\":\"a\"}]}",
	    "screening matrix candidates[0].only_change must be a non-empty string");
	expect_matrix_error(HEAD "{\"id\":\"S1\",\"strategy_kind\":\"a\",\"only_change\":\"b\"}]}",
	    "screening matrix candidates[0].status must be a non-empty string");
	expect_matrix_error(HEAD "{\"id\":\"S1\",\"strategy_kind\":\"a\",\"only_change\":\"b\","
	    "\"status\":\"planned\"}]}",
	    "screening matrix S1 is not settled; status must be one of: blocked, executed, skipped");
	expect_matrix_error(HEAD "{\"id\":\"S1\",\"strategy_kind\":\"a\",\"only_change\":\"b\","
	    "\"status\":\"executed\",\"blocker\":[]}]}",
	    "screening matrix executed candidate S1 must not have a blocker");
	expect_matrix_error(HEAD "{\"id\":\"S1\",\"strategy_kind\":\"a\",\"only_change\":\"b\","
	    "\"status\":\"skipped\",\"blocker\":null}]}",
	    "screening matrix skipped candidate S1 requires blocker evidence");
	expect_matrix_error(HEAD "{\"id\":\"S1\",\"strategy_kind\":\"a\",\"only_change\":\"b\","
	    "\"status\":\"blocked\",\"blocker\":{\"code\":\"c\",\"reason_zh\":\"\"}}]}",
	    "screening matrix candidates[0].blocker.reason_zh must be a non-empty string");
	expect_matrix_error(HEAD "{\"id\":\"S1\",\"strategy_kind\":\"a\",\"only_change\":\"b\","
	    "\"status\":\"blocked\",\"blocker\":{\"code\":\"c\",\"reason_zh\":\"原因\"}}]}",
	    "screening matrix candidates[0].blocker.evidence must be a non-empty string");
	expect_matrix_error(HEAD "{\"id\":\"S1\",\"strategy_kind\":\"a\",\"only_change\":\"b\","
	    "\"status\":\"blocked\",\"blocker\":{\"code\":\"winner_already_found\","
	    "\"reason_zh\":\"原因\",\"evidence\":\"e\"}}]}",
	    "screening matrix S1 uses an illegal early-stop blocker; an existing eligible "
	    "candidate or winner cannot skip a planned strategy");
	expect_matrix_error(HEAD EXEC("S1", "automatic_aot") "," EXEC("S2", "per_block") "]}",
	    "screening matrix missing required strategy kinds: broad_decode, semantic_segment");
	expect_matrix_error(HEAD EXEC("S1", "automatic_aot") "," EXEC("S2", "broad_decode") ","
	    EXEC("S5", "per_block") "," S4_BLOCKED "]}",
	    "screening candidate set mismatch (missing executed candidates: S5; "
	    "undeclared candidates: S3)");
}

static void
screening_matrix_report_object(void **state)
{
	static const char *const names[] = { "S1", "S2", "S3" };
	tc_error err = TC_ERROR_INIT;
	tc_json *m = parse(HEAD GOOD_LIST "],\"extra\":{\"k\":1}}"), *out;
	const tc_json *ne;

	(void)state;
	out = tc_screening_matrix_validate(m, names, 3, &err);
	assert_non_null(out);
	assert_string_equal(tc_json_get_string(out, "content_fingerprint"),
	    "sha256:8e55fcfdc10458dd64879b7f7d3abf9449871d94c94530f60b605c6e311eac10");
	ne = tc_json_get(out, "nonexecuted_candidates");
	assert_int_equal(ne->u.arr.len, 1);
	assert_string_equal(tc_json_get_string(tc_json_get(ne->u.arr.items[0],
	    "blocker"), "evidence"), "intake/S4.md");
	assert_int_equal(tc_json_get(out, "covered_strategy_kinds")->u.arr.len, 4);
	tc_json_free(out);
	tc_json_free(m);
}

/* ---- Stage-A configs ------------------------------------------------------ */

static char *
candidate_with_config(const char *name, const char *yaml)
{
	char *dir, *rd, *cfg;
	FILE *fp;

	assert_true(asprintf(&dir, "%s/%s", root, name) > 0);
	mkdir(dir, 0777);
	assert_true(asprintf(&rd, "%s/run-1", dir) > 0);
	mkdir(rd, 0777);
	if (yaml != NULL) {
		assert_true(asprintf(&cfg, "%s/config.yaml", rd) > 0);
		fp = fopen(cfg, "w");
		assert_non_null(fp);
		fputs(yaml, fp);
		fclose(fp);
		free(cfg);
	}
	free(rd);
	return dir;
}

/* The message is prefix + candidate directory + suffix. */
static void
expect_config_error(const char *name, const char *yaml, const char *prefix,
    const char *suffix)
{
	char *dir = candidate_with_config(name, yaml), *want;
	tc_name_path c = { name, dir };
	tc_error err = TC_ERROR_INIT;

	assert_null(tc_stage_a_controls(&c, 1, &err));
	assert_true(asprintf(&want, "%s%s%s", prefix, dir, suffix) > 0);
	assert_string_equal(tc_error_msg(&err), want);
	free(want);
	tc_error_clear(&err);
	free(dir);
}

static void
stage_a_messages(void **state)
{
	char *dir;
	tc_name_path c;
	tc_error err = TC_ERROR_INIT;

	(void)state;
	dir = candidate_with_config("none", NULL);
	{
		char *run;

		assert_true(asprintf(&run, "%s/run-1", dir) > 0);
		rmdir(run);
		free(run);
	}
	c.name = "none";
	c.value = dir;
	assert_null(tc_stage_a_controls(&c, 1, &err));
	assert_non_null(strstr(tc_error_msg(&err), ": no run-* directories found"));
	free(dir);
	tc_error_clear(&err);
	expect_config_error("noconf", NULL,
	    "Stage-A clean run must archive config.yaml: ", "/run-1");
	expect_config_error("list", "- a\n- b\n",
	    "Stage-A config must be a YAML mapping: ", "/run-1/config.yaml");
	expect_config_error("emptydoc", "",
	    "Stage-A config must be a YAML mapping: ", "/run-1/config.yaml");
	expect_config_error("mc", "model_config:\n",
	    "Stage-A config model_config must be a mapping: ", "/run-1/config.yaml");
	expect_config_error("cp", "model_config: {custom_params: [1]}\n",
	    "Stage-A config model_config.custom_params must be a mapping: ",
	    "/run-1/config.yaml");
	expect_config_error("nullmap", "model_config:\n  custom_params:\n"
	    "    super_kernel_optimize_options:\n"
	    "    super_kernel_debug_options: {}\n",
	    "Stage-A config super_kernel_optimize_options must be an explicitly "
	    "empty mapping: ", "/run-1/config.yaml");
	expect_config_error("twodocs", "a: 1\n---\nb: 2\n",
	    "Stage-A config is not valid YAML: ", "/run-1/config.yaml: expected a "
	    "single document in the stream");
	/* duplicate keys: the last value wins */
	expect_config_error("dup", "model_config:\n  custom_params:\n"
	    "    super_kernel_optimize_options: {}\n"
	    "    super_kernel_debug_options: {}\n"
	    "    super_kernel_debug_options: {x: 1}\n",
	    "Stage-A config super_kernel_debug_options must be an explicitly "
	    "empty mapping: ", "/run-1/config.yaml");
	dir = candidate_with_config("badyaml", "a: [1, 2\n");
	c.name = "badyaml";
	c.value = dir;
	assert_null(tc_stage_a_controls(&c, 1, &err));
	assert_non_null(strstr(tc_error_msg(&err),
	    "Stage-A config is not valid YAML: "));
	free(dir);
	tc_error_clear(&err);
}

static void
stage_a_accepts_anchors_and_records_sha256(void **state)
{
	char *dir = candidate_with_config("anchor",
	    "empty: &e {}\nmodel_config:\n  custom_params:\n"
	    "    super_kernel_optimize_options: *e\n"
	    "    super_kernel_debug_options: {}\n");
	tc_name_path c = { "anchor", dir };
	tc_error err = TC_ERROR_INIT;
	tc_json *out = tc_stage_a_controls(&c, 1, &err);
	const tc_json *rc;

	(void)state;
	assert_non_null(out);
	rc = tc_json_get(tc_json_get(tc_json_get(out, "candidates"), "anchor"),
	    "run_configs")->u.arr.items[0];
	/* sha256 of the raw bytes (python hashlib) */
	assert_string_equal(tc_json_get_string(rc, "sha256"),
	    "9fd43b31dd9f2893ab6cc3a98ca86aca5bcb7c0e46060fb58aa837a88f8ae83b");
	tc_json_free(out);
	free(dir);
}

/* ---- replay evidence -------------------------------------------------------- */

static void
expect_replay(const char *json, const char *reason)
{
	char *path;
	FILE *fp;
	tc_error err = TC_ERROR_INIT;
	tc_json *r;

	assert_true(asprintf(&path, "%s/replay.json", root) > 0);
	fp = fopen(path, "w");
	assert_non_null(fp);
	fputs(json, fp);
	fclose(fp);
	r = tc_replay_validate(path, "S1", NULL, &err);
	assert_non_null(r);
	assert_false(tc_json_get(r, "valid")->u.b);
	assert_string_equal(tc_json_get_string(r, "failure_reason"), reason);
	assert_int_equal(tc_json_get(r, "checks")->u.obj.len, 13);
	tc_json_free(r);
	free(path);
}

static void
replay_early_failure_reasons_in_order(void **state)
{
	char *dir;

	(void)state;
	expect_replay("{", "replay_evidence_invalid");
	expect_replay("[]", "replay_evidence_not_object");
	expect_replay("{\"candidate_name\": 1}", "replay_candidate_name_invalid");
	expect_replay("{\"candidate_name\": \"S2\"}",
	    "replay_candidate_name_mismatch");
	expect_replay("{\"candidate_name\": \" S1 \", \"round_id\": \"S2-1\"}",
	    "replay_round_id_invalid");
	expect_replay("{\"candidate_name\": \"S1\", \"round_id\": \"S1-1\"}",
	    "replay_source_revision_invalid");
	expect_replay("{\"candidate_name\": \"S1\", \"round_id\": \"S1-1\", "
	    "\"source_revision\": \"abc\", \"compat_metadata_root\": 1}",
	    "replay_artifact_path_invalid");
	expect_replay("{\"candidate_name\": \"S1\", \"round_id\": \"S1-1\", "
	    "\"source_revision\": \"abc\", \"compat_metadata_root\": \"c\", "
	    "\"verify_metadata_root\": \"v\", \"compat_config_manifest_path\": "
	    "\"cm\", \"verify_config_manifest_path\": \"vm\"}",
	    "replay_artifacts_invalid");
	assert_true(asprintf(&dir, "%s/c", root) > 0);
	mkdir(dir, 0777);
	dir[strlen(dir) - 1] = 'v';
	mkdir(dir, 0777);
	free(dir);
	assert_true(asprintf(&dir, "%s/cm", root) > 0);
	fclose(fopen(dir, "w"));
	dir[strlen(dir) - 2] = 'v';
	fclose(fopen(dir, "w"));
	free(dir);
	expect_replay("{\"candidate_name\": \"S1\", \"round_id\": \"S1-1\", "
	    "\"source_revision\": \"abc\", \"compat_metadata_root\": \"c\", "
	    "\"verify_metadata_root\": \"v\", \"compat_config_manifest_path\": "
	    "\"cm\", \"verify_config_manifest_path\": \"vm\", "
	    "\"replay_min_child_nodes\": true}",
	    "replay_report_stale_or_tampered");
	expect_replay("{\"candidate_name\": \"S1\", \"round_id\": \"S1-1\", "
	    "\"source_revision\": \"abc\", \"compat_metadata_root\": \"c\", "
	    "\"verify_metadata_root\": \"v\", \"compat_config_manifest_path\": "
	    "\"cm\", \"verify_config_manifest_path\": \"vm\", "
	    "\"replay_min_child_nodes\": 2}",
	    "replay_recomputation_unavailable");
}

/* ---- winner option matrix v1 ------------------------------------------------ */

#define OM_HEAD "{\"schema_version\":\"superkernel-winner-option-matrix-v1\"," \
	"\"frozen_before_first_trial\":true,\"seed_candidate\":\"S2\",\"items\":["
#define ITEM(id, cat, opt, val, ptr, status) \
	"{\"id\":\"" id "\",\"category\":\"" cat "\",\"option\":\"" opt "\"," \
	"\"value\":" val ",\"pointer\":\"" ptr "\",\"original_value\":null," \
	"\"probe_evidence\":\"probe.json\",\"risk\":\"low\",\"status\":\"" status "\"}"
#define DCCI ITEM("O1", "dcci", "dcci_disable_on_kernel", "[\".*\"]", \
	"/model_config/custom_params/super_kernel_optimize_options/dcci_disable_on_kernel", \
	"accepted")
#define AOP ITEM("O2", "auto_op_parallel", "auto_op_parallel", "1", \
	"/model_config/custom_params/super_kernel_optimize_options/auto_op_parallel", \
	"rejected")
#define AGG ITEM("O3", "aggressive", "aggressive_opt_strategies", "[\"t1\"]", \
	"/model_config/custom_params/super_kernel_optimize_options/aggressive_opt_strategies", \
	"failed")
#define OTH "{\"id\":\"O4\",\"category\":\"other_experimental\",\"option\":\"early_start\"," \
	"\"value\":true,\"pointer\":\"/model_config/custom_params/super_kernel_optimize_options/early_start\"," \
	"\"original_value\":null,\"probe_evidence\":\"probe.json\",\"risk\":\"high\"," \
	"\"status\":\"skipped\",\"reason_zh\":\"运行时前置条件不满足\",\"evidence\":\"probe.json\"," \
	"\"reason_code\":\"preconditions_missing\"}"

static void
expect_option_error(const char *doc, const char *want)
{
	tc_error err = TC_ERROR_INIT;
	tc_json *m = parse(doc);

	assert_null(tc_option_matrix_validate(m, &err));
	assert_string_equal(tc_error_msg(&err), want);
	tc_error_clear(&err);
	tc_json_free(m);
}

static void
option_matrix_accepts_a_settled_matrix(void **state)
{
	tc_error err = TC_ERROR_INIT;
	tc_json *m = parse(OM_HEAD DCCI "," AOP "," AGG "," OTH "]}"), *out;

	(void)state;
	out = tc_option_matrix_validate(m, &err);
	if (out == NULL)
		fail_msg("%s", tc_error_msg(&err));
	assert_int_equal(tc_json_get(out, "item_count")->type, TC_JSON_INT);
	assert_int_equal(tc_json_get(out, "accepted_items")->u.arr.len, 1);
	tc_json_free(out);
	tc_json_free(m);
}

static void
option_matrix_messages(void **state)
{
	(void)state;
	expect_option_error("{}", "winner option matrix schema_version must be "
	    "superkernel-winner-option-matrix-v1");
	expect_option_error("{\"schema_version\":\"superkernel-winner-option-matrix-v1\"}",
	    "winner option matrix must declare frozen_before_first_trial=true");
	expect_option_error(OM_HEAD "]}",
	    "winner option matrix items must be a non-empty list");
	expect_option_error(OM_HEAD DCCI "," AOP "," AGG "]}",
	    "winner option matrix missing required category: other_experimental");
	expect_option_error(OM_HEAD DCCI "," DCCI "," AOP "," AGG "," OTH "]}",
	    "winner option matrix has duplicate item id: O1");
	expect_option_error(OM_HEAD ITEM("O1", "dcci", "dcci_disable_on_kernel",
	    "[\"a.*\"]", "/x/dcci_disable_on_kernel", "accepted") "]}",
	    "winner option matrix O1: the only first-round DCCI value is "
	    "dcci_disable_on_kernel=[\".*\"]");
	expect_option_error(OM_HEAD ITEM("O1", "dcci", "dcci_before_kernel_start",
	    "[\"a\"]", "/x/dcci_before_kernel_start", "accepted") "]}",
	    "winner option matrix O1: DCCI before and after are not separate trials");
	expect_option_error(OM_HEAD ITEM("O1", "aggressive",
	    "super_kernel_debug_options", "{}", "/x", "accepted") "]}",
	    "winner option matrix O1: debug options never enter the option matrix");
	expect_option_error(OM_HEAD ITEM("O1", "aggressive", "a", "1", "x",
	    "accepted") "]}",
	    "winner option matrix O1 pointer must be an RFC 6901 JSON Pointer");
	expect_option_error(OM_HEAD ITEM("O1", "aggressive", "a", "1", "/x",
	    "planned") "]}",
	    "winner option matrix O1 is not settled; status must be one of: "
	    "accepted, blocked, failed, rejected, skipped");
	expect_option_error(OM_HEAD ITEM("O1", "aggressive", "a", "1", "/x",
	    "blocked") "]}",
	    "winner option matrix blocked O1 item requires a Chinese reason_zh");
	expect_option_error(OM_HEAD "{\"id\":\"O9\",\"category\":\"aggressive\","
	    "\"option\":\"a\",\"value\":1,\"pointer\":\"/x\",\"original_value\":null,"
	    "\"probe_evidence\":\"p\",\"risk\":\"low\",\"status\":\"skipped\","
	    "\"reason_zh\":\"无直接profiling证据\",\"evidence\":\"e\","
	    "\"reason_code\":\"budget_exhausted\"}]}",
	    "winner option matrix O9: missing direct profiling evidence is never a "
	    "valid reason to skip an option");
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(screening_matrix_messages),
		cmocka_unit_test(screening_matrix_report_object),
		cmocka_unit_test(stage_a_messages),
		cmocka_unit_test(stage_a_accepts_anchors_and_records_sha256),
		cmocka_unit_test(replay_early_failure_reasons_in_order),
		cmocka_unit_test(option_matrix_accepts_a_settled_matrix),
		cmocka_unit_test(option_matrix_messages),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
