/*
 * test_pypto_cases.c - PERFORMANCE_CASES.json rejections with the
 * reference's messages, the optimization_target and selection-mode rules,
 * the test_function mapping, the manifest source record and its
 * re-validation, the Golden contract checks and join, and the frozen
 * experiment contract.
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

#include "tunectl/fileio.h"
#include "tunectl/pypto_cases.h"
#include "tunectl/sha256.h"
#include "unit_fixture.h"

/* As long as the directory unit_tmpdir_into() makes under /tmp. */
static char root[sizeof("/tmp/tunectl-pypto-cases.XXXXXX")];
static char mpath[128];

static int
setup(void **st)
{
	(void)st;
	unit_tmpdir_into(root, sizeof(root), "pypto-cases");
	snprintf(mpath, sizeof(mpath), "%s/PERFORMANCE_CASES.json", root);
	return 0;
}

static int
teardown(void **st)
{
	(void)st;
	return unit_rmtree(root);
}

static void
write_at(const char *name, const char *text)
{
	char p[256];
	FILE *fp;

	snprintf(p, sizeof(p), "%s/%s", root, name);
	fp = fopen(p, "w");
	assert_non_null(fp);
	fputs(text, fp);
	fclose(fp);
}

static void
manifest_rejects(const char *text, const char *msg)
{
	tc_pypto_manifest m;
	tc_error err = TC_ERROR_INIT;

	write_at("PERFORMANCE_CASES.json", text);
	if (tc_pypto_manifest_load(mpath, &m, &err) == 0) {
		tc_pypto_manifest_free(&m);
		fail_msg("manifest accepted: %s", text);
	}
	assert_string_equal(tc_error_msg(&err), msg);
	tc_error_clear(&err);
}

static void
manifest_rejections_use_the_reference_messages(void **st)
{
	(void)st;
	manifest_rejects("[]", "case manifest must be an object with "
	    "schema_version=1");
	manifest_rejects("{\"schema_version\": 2, \"cases\": []}", "case manifest "
	    "must be an object with schema_version=1");
	manifest_rejects("{\"schema_version\": 1, \"cases\": []}", "case manifest "
	    "cases must be a non-empty list");
	manifest_rejects("{\"schema_version\": 1, \"cases\": [3]}", "case manifest "
	    "cases[0] must be an object");
	manifest_rejects("{\"schema_version\": 1, \"cases\": [{\"id\": \"a\", "
	    "\"shape\": \" \", \"dtype\": \"fp16\"}]}", "case manifest "
	    "cases[0].shape must be a non-empty string");
	manifest_rejects("{\"schema_version\": 1, \"cases\": [{\"id\": \"a\", "
	    "\"shape\": \"[1]\", \"dtype\": \"fp16\"}, {\"id\": \" a \", "
	    "\"shape\": \"[1]\", \"dtype\": \"fp16\"}]}", "case manifest contains "
	    "duplicate case id 'a'");
	manifest_rejects("{\"schema_version\": 1, \"cases\": [{\"id\": \"a\", "
	    "\"shape\": \"[1]\", \"dtype\": \"fp16\", \"test_function\": "
	    "\"check_a\"}]}", "case manifest cases[0].test_function must name a "
	    "no-argument test_* function");
}

static void
manifest_load_errors_name_the_path(void **st)
{
	tc_pypto_manifest m;
	tc_error err = TC_ERROR_INIT;
	char p[256], want[512];

	(void)st;
	snprintf(p, sizeof(p), "%s/missing.json", root);
	assert_int_equal(tc_pypto_manifest_load(p, &m, &err), -1);
	snprintf(want, sizeof(want), "cannot load case manifest '%s': ", p);
	assert_memory_equal(tc_error_msg(&err), want, strlen(want));
	tc_error_clear(&err);
	assert_int_equal(tc_pypto_manifest_load("  ", &m, &err), -1);
	assert_string_equal(tc_error_msg(&err), "--case-manifest must name a "
	    "non-empty path");
	tc_error_clear(&err);
	assert_int_equal(tc_pypto_manifest_resolve(root, NULL, &m, &err), -1);
	assert_string_equal(tc_error_msg(&err), "--case-manifest is required");
	tc_error_clear(&err);
	write_at("PERFORMANCE_CASES.json", "{\"schema_version\": 1,");
	assert_int_equal(tc_pypto_manifest_load(mpath, &m, &err), -1);
	snprintf(want, sizeof(want), "cannot load case manifest '%s': Expecting "
	    "property name enclosed in double quotes: line 1 column 22 (char 21)",
	    mpath);
	assert_string_equal(tc_error_msg(&err), want);
	tc_error_clear(&err);
}

static void
manifest_source_record_carries_the_digest(void **st)
{
	const char *text = "{\"schema_version\": 1, \"cases\": [{\"id\": \"p0\", "
	    "\"shape\": \"[1,32]\", \"dtype\": \"fp16\", \"test_function\": "
	    "\"test_p0\"}]}";
	tc_pypto_manifest m;
	tc_error err = TC_ERROR_INIT;
	char hex[65];
	char *msg;

	(void)st;
	write_at("PERFORMANCE_CASES.json", text);
	assert_int_equal(tc_pypto_manifest_load(mpath, &m, &err), 0);
	tc_sha256_hex(text, strlen(text), hex);
	assert_string_equal(tc_json_get_string(m.source, "sha256"), hex);
	assert_string_equal(tc_json_get_string(m.source, "type"), "case_manifest");
	assert_string_equal(tc_json_get_string(tc_json_get(m.source,
	    "case_functions"), "p0"), "test_p0");
	assert_string_equal(tc_json_get_string(tc_json_get(m.source,
	    "golden_diagnostic"), "status"), "not_provided");
	assert_null(tc_pypto_case_source_error(m.source));
	/* one byte changes: the record no longer re-validates */
	write_at("PERFORMANCE_CASES.json", "{\"schema_version\": 1, \"cases\": "
	    "[{\"id\": \"p1\", \"shape\": \"[1,32]\", \"dtype\": \"fp16\", "
	    "\"test_function\": \"test_p0\"}]}");
	msg = tc_pypto_case_source_error(m.source);
	assert_string_equal(msg, "performance case source sha256 mismatch");
	free(msg);
	write_at("PERFORMANCE_CASES.json", "{}");
	msg = tc_pypto_case_source_error(m.source);
	assert_string_equal(msg, "performance case source size mismatch");
	free(msg);
	tc_json_object_set_string(m.source, "path", "relative.json");
	msg = tc_pypto_case_source_error(m.source);
	assert_string_equal(msg, "performance case source path is not absolute");
	free(msg);
	tc_json_object_set_string(m.source, "sha256", "ABC");
	msg = tc_pypto_case_source_error(m.source);
	assert_string_equal(msg, "performance case source sha256 is invalid");
	free(msg);
	tc_pypto_manifest_free(&m);
}

static void
target_rejects(const char *target, int ncases, const char *msg)
{
	char text[1024];
	tc_pypto_manifest m;
	tc_error err = TC_ERROR_INIT;

	snprintf(text, sizeof(text), "{\"schema_version\": 1, \"cases\": ["
	    "{\"id\": \"a\", \"shape\": \"[1]\", \"dtype\": \"fp16\"}%s]%s%s}",
	    ncases > 1 ? ", {\"id\": \"b\", \"shape\": \"[2]\", \"dtype\": "
	    "\"fp16\"}" : "", target != NULL ? ", \"optimization_target\": " : "",
	    target != NULL ? target : "");
	write_at("PERFORMANCE_CASES.json", text);
	assert_int_equal(tc_pypto_manifest_load(mpath, &m, &err), 0);
	if (msg == NULL) {
		if (tc_pypto_manifest_check_target(&m, &err) != 0)
			fail_msg("%s rejected: %s", target, tc_error_msg(&err));
	} else {
		assert_int_equal(tc_pypto_manifest_check_target(&m, &err), -1);
		assert_string_equal(tc_error_msg(&err), msg);
	}
	tc_error_clear(&err);
	tc_pypto_manifest_free(&m);
}

static void
optimization_target_and_selection_modes(void **st)
{
	(void)st;
	target_rejects(NULL, 2, "case manifest optimization_target is required "
	    "for a full Stage 5 contract");
	target_rejects("[]", 2, "case manifest optimization_target must be an "
	    "object");
	target_rejects("{\"case_ids\": [], \"selection_mode\": \"single_p0\"}", 1,
	    "optimization_target.case_ids must be a non-empty list of case ids");
	target_rejects("{\"case_ids\": [\"a\", \"a\"], \"selection_mode\": "
	    "\"user_selected\"}", 2, "optimization_target.case_ids contains "
	    "duplicate case id 'a'");
	target_rejects("{\"case_ids\": [\"z\"], \"selection_mode\": "
	    "\"user_selected\"}", 2, "optimization_target.case_ids names unknown "
	    "case id 'z' (not in cases[].id)");
	target_rejects("{\"case_ids\": [\"a\"], \"selection_mode\": \"fastest\"}",
	    2, "optimization_target.selection_mode must be one of user_selected, "
	    "single_p0, all_p0_no_questions");
	target_rejects("{\"case_ids\": [\"a\"], \"selection_mode\": "
	    "\"single_p0\"}", 2, "selection_mode single_p0 requires exactly one P0 "
	    "case, but the manifest lists 2");
	target_rejects("{\"case_ids\": [\"a\"], \"selection_mode\": "
	    "\"all_p0_no_questions\"}", 2, "selection_mode all_p0_no_questions "
	    "requires case_ids to cover every P0 case; missing ['b']");
	/* accepted forms */
	target_rejects("{\"case_ids\": [\"a\"], \"selection_mode\": "
	    "\"single_p0\"}", 1, NULL);
	target_rejects("{\"case_ids\": [\"b\"], \"selection_mode\": "
	    "\"user_selected\"}", 2, NULL);
	target_rejects("{\"case_ids\": [\"b\", \"a\"], \"selection_mode\": "
	    "\"all_p0_no_questions\"}", 2, NULL);
}

static void
test_functions_must_be_no_argument_runner_functions(void **st)
{
	tc_pypto_manifest m;
	tc_error err = TC_ERROR_INIT;
	char runner[256];

	(void)st;
	snprintf(runner, sizeof(runner), "%s/test_op.py", root);
	write_at("PERFORMANCE_CASES.json", "{\"schema_version\": 1, \"cases\": ["
	    "{\"id\": \"a\", \"shape\": \"[1]\", \"dtype\": \"fp16\", "
	    "\"test_function\": \"test_a\"}, {\"id\": \"b\", \"shape\": \"[1]\", "
	    "\"dtype\": \"fp16\", \"test_function\": \"test_b\"}]}");
	assert_int_equal(tc_pypto_manifest_load(mpath, &m, &err), 0);
	write_at("test_op.py", "def test_a(scale=2, *args, **kw):\n    pass\n");
	assert_int_equal(tc_pypto_manifest_check_functions(&m, runner, &err), -1);
	assert_string_equal(tc_error_msg(&err), "test function 'test_b' is not "
	    "callable in test_op.py");
	tc_error_clear(&err);
	write_at("test_op.py", "def test_a():\n    pass\n\ndef test_b(dev, n=1):\n"
	    "    pass\n");
	assert_int_equal(tc_pypto_manifest_check_functions(&m, runner, &err), -1);
	assert_string_equal(tc_error_msg(&err), "test function 'test_b' requires "
	    "arguments ['dev']; the automatic Stage 5 adapter accepts no-argument "
	    "test functions only");
	tc_error_clear(&err);
	write_at("test_op.py", "def test_a():\n    pass\n\nasync def test_b(\n"
	    "        shape=(1, 2),\n):\n    pass\n");
	assert_int_equal(tc_pypto_manifest_check_functions(&m, runner, &err), 0);
	tc_pypto_manifest_free(&m);
}

static void
canonical_shapes_and_dtypes(void **st)
{
	tc_json *a, *b;

	(void)st;
	a = tc_pypto_canonical_shape("[4, 2048]");
	b = tc_pypto_canonical_shape("(4,2048)");
	assert_true(tc_json_equal(a, b));
	tc_json_free(b);
	b = tc_pypto_canonical_shape("[4 x 2048]");
	assert_true(tc_json_equal(a, b));
	tc_json_free(b);
	b = tc_pypto_canonical_shape("x:[4,2048]");	/* named differs */
	assert_false(tc_json_equal(a, b));
	tc_json_free(b);
	tc_json_free(a);
	assert_null(tc_pypto_canonical_shape("[0,3]"));
	assert_null(tc_pypto_canonical_shape("[a,3]"));
	assert_null(tc_pypto_canonical_shape("4x2048"));
	a = tc_pypto_canonical_shape("scalar");
	b = tc_pypto_canonical_shape("()");
	assert_non_null(a);
	assert_true(tc_json_equal(a, b));
	tc_json_free(a);
	tc_json_free(b);
	a = tc_pypto_canonical_dtype("fp16");
	b = tc_pypto_canonical_dtype("torch.float16");
	assert_true(tc_json_equal(a, b));
	tc_json_free(b);
	b = tc_pypto_canonical_dtype("Half");
	assert_true(tc_json_equal(a, b));
	tc_json_free(b);
	b = tc_pypto_canonical_dtype("x: bf16");
	assert_false(tc_json_equal(a, b));
	tc_json_free(b);
	tc_json_free(a);
	assert_null(tc_pypto_canonical_dtype("complex64"));
}

/* ---- Golden contract ----------------------------------------------------------- */

static void
write_golden(const char *manifest_text, const char *case_fields,
    const char *protocol_overrides)
{
	char src[256], gpath[256], text[4096], mhex[65], ghex[65];
	const char *golden_src = "def demo_golden(x):\n    return x\n";

	snprintf(src, sizeof(src), "%s/demo_golden.py", root);
	write_at("demo_golden.py", golden_src);
	write_at("PERFORMANCE_CASES.json", manifest_text);
	tc_sha256_hex(golden_src, strlen(golden_src), ghex);
	tc_sha256_hex(manifest_text, strlen(manifest_text), mhex);
	snprintf(gpath, sizeof(gpath), "%s/GOLDEN_PERF_REPORT.json", root);
	snprintf(text, sizeof(text), "{\"schema_version\": 1, \"golden_source\": "
	    "{\"path\": \"%s\", \"sha256\": \"%s\", \"size_bytes\": %zu}, "
	    "\"case_manifest_source\": {\"path\": \"%s\", \"sha256\": \"%s\", "
	    "\"size_bytes\": %zu, \"schema_version\": 1}, \"device_id\": 0, "
	    "\"iterations\": 1, \"warmup\": 3, \"repeats\": 3, \"seed\": 42, "
	    "\"timing_scope\": \"all_golden_npu_kernels\", \"aggregation\": "
	    "\"median_of_repeat_totals\", %s\"cases\": [%s]}", src, ghex,
	    strlen(golden_src), mpath, mhex, strlen(manifest_text),
	    protocol_overrides, case_fields);
	write_at("GOLDEN_PERF_REPORT.json", text);
}

static const char one_case[] = "{\"schema_version\": 1, \"cases\": [{\"id\": "
    "\"p0\", \"shape\": \"[1,32]\", \"dtype\": \"fp16\"}]}";
static const char golden_p0[] = "{\"id\": \"p0\", \"shape\": \"(1, 32)\", "
    "\"dtype\": \"torch.float16\", \"raw_repeat_e2e_us\": [9.0, 10.0, 11.0], "
    "\"median_total_us\": 10.0, \"per_iteration_e2e_us\": 10.0}";

static void
golden_join_marks_the_source_record(void **st)
{
	tc_pypto_manifest m;
	tc_error err = TC_ERROR_INIT;
	const tc_json *gc;

	(void)st;
	write_golden(one_case, golden_p0, "");
	if (tc_pypto_manifest_resolve(root, mpath, &m, &err) != 0)
		fail_msg("%s", tc_error_msg(&err));
	assert_true(m.cases[0].has_golden);
	assert_true(m.cases[0].golden_us == 10.0);
	assert_string_equal(tc_json_get_string(tc_json_get(m.source,
	    "golden_diagnostic"), "status"), "joined");
	gc = tc_json_get(m.source, "golden_contract");
	assert_non_null(gc);
	assert_string_equal(tc_json_get_string(tc_json_get(gc, "protocol"),
	    "timing_scope"), "all_golden_npu_kernels");
	assert_null(tc_pypto_case_source_error(m.source));
	tc_pypto_manifest_free(&m);
}

static void
golden_rejects(const char *cases, const char *overrides, const char *msg)
{
	tc_pypto_manifest m;
	tc_error err = TC_ERROR_INIT;

	write_golden(one_case, cases, overrides);
	if (tc_pypto_manifest_resolve(root, mpath, &m, &err) == 0) {
		tc_pypto_manifest_free(&m);
		fail_msg("accepted; expected %s", msg);
	}
	assert_string_equal(tc_error_msg(&err), msg);
	tc_error_clear(&err);
}

static void
golden_contract_rejections(void **st)
{
	(void)st;
	golden_rejects("{\"id\": \"p0\", \"shape\": \"(1, 32)\", \"dtype\": "
	    "\"fp16\", \"raw_repeat_e2e_us\": [9.0, 10.0, 11.0], "
	    "\"median_total_us\": 10.5, \"per_iteration_e2e_us\": 10.0}", "",
	    "Golden case 'p0' median is not reproducible");
	golden_rejects("{\"id\": \"p0\", \"shape\": \"(1, 32)\", \"dtype\": "
	    "\"fp16\", \"raw_repeat_e2e_us\": [9.0, 10.0], \"median_total_us\": "
	    "9.5, \"per_iteration_e2e_us\": 9.5}", "", "Golden case 'p0' must "
	    "contain 3 positive finite raw repeats");
	golden_rejects(golden_p0, "\"seed\": 7, ", "Golden seed must be 42");
	golden_rejects(golden_p0, "\"iterations\": 2, ", "Stage 5 Golden "
	    "iterations must be exactly 1");
	golden_rejects(golden_p0, "\"device_id\": -1, ", "Golden device_id must "
	    "be an integer >= 0");
	golden_rejects(golden_p0, "\"aggregation\": \"mean\", ", "Golden "
	    "aggregation must be median_of_repeat_totals");
	golden_rejects("{\"id\": \"p9\", \"shape\": \"(1, 32)\", \"dtype\": "
	    "\"fp16\", \"raw_repeat_e2e_us\": [9.0, 10.0, 11.0], "
	    "\"median_total_us\": 10.0, \"per_iteration_e2e_us\": 10.0}", "",
	    "case id mismatch between --case-manifest and GOLDEN_PERF_REPORT.json: "
	    "missing_in_golden=['p0'], extra_in_golden=['p9']");
	golden_rejects("{\"id\": \"p0\", \"shape\": \"(1, 64)\", \"dtype\": "
	    "\"fp16\", \"raw_repeat_e2e_us\": [9.0, 10.0, 11.0], "
	    "\"median_total_us\": 10.0, \"per_iteration_e2e_us\": 10.0}", "",
	    "case 'p0' shape mismatch between manifest and Golden contract");
	golden_rejects("{\"id\": \"p0\", \"shape\": \"(1, 32)\", \"dtype\": "
	    "\"fp32\", \"raw_repeat_e2e_us\": [9.0, 10.0, 11.0], "
	    "\"median_total_us\": 10.0, \"per_iteration_e2e_us\": 10.0}", "",
	    "case 'p0' dtype mismatch between manifest and Golden contract");
}

static void
golden_must_bind_to_this_manifest_and_source(void **st)
{
	tc_pypto_manifest m;
	tc_error err = TC_ERROR_INIT;

	(void)st;
	write_golden(one_case, golden_p0, "");
	/* the manifest changes after the Golden collection */
	write_at("PERFORMANCE_CASES.json", "{\"schema_version\": 1, \"cases\": "
	    "[{\"id\": \"p0\", \"shape\": \"[1,32]\", \"dtype\": \"float16\"}]}");
	assert_int_equal(tc_pypto_manifest_resolve(root, mpath, &m, &err), -1);
	assert_string_equal(tc_error_msg(&err), "Golden contract was not collected "
	    "from this exact case manifest");
	tc_error_clear(&err);
	write_golden(one_case, golden_p0, "");
	write_at("demo_golden.py", "changed\n");
	assert_int_equal(tc_pypto_manifest_resolve(root, mpath, &m, &err), -1);
	assert_string_equal(tc_error_msg(&err), "Golden source source size "
	    "mismatch");
	tc_error_clear(&err);
}

/* ---- frozen contract ------------------------------------------------------------- */

static void
freeze_records_the_contract_once(void **st)
{
	tc_pypto_freeze_opts o;
	tc_error err = TC_ERROR_INIT;
	tc_json *doc, *again, *loaded;
	char perf[256];

	(void)st;
	write_at("PERFORMANCE_CASES.json", "{\"schema_version\": 1, \"cases\": "
	    "[{\"id\": \"a\", \"shape\": \"[1]\", \"dtype\": \"fp16\"}], "
	    "\"optimization_target\": {\"case_ids\": [\"a\"], \"selection_mode\": "
	    "\"single_p0\"}}");
	write_at("test_x.py", "print('x')\n");
	memset(&o, 0, sizeof(o));
	o.op_dir = root;
	o.manifest_path = mpath;
	o.op_name = "k";
	o.warmup = 3;
	o.repeats = 3;
	o.retry = 2;
	o.stability_kind = "relative";
	o.stability_value = "0.05";
	o.promotion_rule = "quick speedup > 1.05";
	o.stability_value = "-1";
	assert_null(tc_pypto_contract_freeze(&o, &err));
	assert_memory_equal(tc_error_msg(&err), "--stability-range must be", 25);
	tc_error_clear(&err);
	o.stability_value = "0.05";
	o.promotion_rule = " ";
	assert_null(tc_pypto_contract_freeze(&o, &err));
	tc_error_clear(&err);
	o.promotion_rule = "quick speedup > 1.05";
	doc = tc_pypto_contract_freeze(&o, &err);
	if (doc == NULL)
		fail_msg("%s", tc_error_msg(&err));
	assert_string_equal(tc_json_get_string(tc_json_get(tc_json_get(doc,
	    "protocol"), "case_selector"), "kind"), "single_case");
	again = tc_pypto_contract_freeze(&o, &err);
	assert_null(again);
	assert_memory_equal(tc_error_msg(&err), "the experiment contract is "
	    "frozen once: [Errno 17] File exists", 54);
	tc_error_clear(&err);
	assert_int_equal(tc_pypto_contract_load(root, &loaded, &err), 1);
	assert_true(tc_json_equal(loaded, doc));
	tc_json_free(loaded);
	tc_json_free(doc);
	/* after a round exists the contract can no longer be frozen */
	snprintf(perf, sizeof(perf), "%s/docs/perf/frozen_contract.json", root);
	unlink(perf);
	snprintf(perf, sizeof(perf), "%s/docs/perf/round_001", root);
	mkdir(perf, 0777);
	assert_null(tc_pypto_contract_freeze(&o, &err));
	assert_non_null(strstr(tc_error_msg(&err), "before the first formal "
	    "collection"));
	tc_error_clear(&err);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(manifest_load_errors_name_the_path,
		    setup, teardown),
		cmocka_unit_test_setup_teardown(
		    manifest_source_record_carries_the_digest, setup, teardown),
		cmocka_unit_test_setup_teardown(
		    optimization_target_and_selection_modes, setup, teardown),
		cmocka_unit_test_setup_teardown(
		    test_functions_must_be_no_argument_runner_functions, setup,
		    teardown),
		cmocka_unit_test(canonical_shapes_and_dtypes),
		cmocka_unit_test_setup_teardown(golden_join_marks_the_source_record,
		    setup, teardown),
		cmocka_unit_test_setup_teardown(golden_contract_rejections, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(
		    golden_must_bind_to_this_manifest_and_source, setup, teardown),
		cmocka_unit_test_setup_teardown(freeze_records_the_contract_once,
		    setup, teardown),
		cmocka_unit_test_setup_teardown(
		    manifest_rejections_use_the_reference_messages, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
