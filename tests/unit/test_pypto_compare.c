/*
 * test_pypto_compare.c - the formal compare with a deterministic shell
 * runner: the round archive and root deliverables, trimmed mean, the
 * selector preflight, retries, the runner digest checked start to end,
 * the frozen protocol, and re-verification catching tampered evidence
 * (edited sample, swapped CSVs, copied aggregate, forged timing).
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
#include "tunectl/pypto_compare.h"
#include "unit_fixture.h"

/* As long as the directory unit_tmpdir_into() makes under /tmp. */
static char root[sizeof("/tmp/tunectl-pypto-cmp.XXXXXX")];
static char op[128], manifest[192];

/* Durations: 100 (case a) or 200 (case b) plus the invocation count, so
 * the samples are known in advance.  HOOK runs before the output. */
static const char runner_fmt[] =
"#!/bin/sh\n"
"dir=$(dirname \"$0\")\n"
"n=$(cat \"$dir/.count\" 2>/dev/null || echo 0); n=$((n + 1)); echo $n > \"$dir/.count\"\n"
"id=\"\"\n"
"[ \"$1\" = --case-id ] && id=$2\n"
"%s\n"
"case \"$id\" in a) d=100 ;; b) d=200 ;; *) echo \"unknown case $id\" >&2; exit 2 ;; esac\n"
"echo \"PYPTO_PERF_TASK {\\\"op_name\\\": \\\"other\\\", \\\"duration_us\\\": 5}\"\n"
"echo \"PYPTO_PERF_TASK {\\\"op_name\\\": \\\"k\\\", \\\"duration_us\\\": $((d + n))}\"\n"
"echo \"PYPTO_PERF_SELECTED_CASE=$id\"\n";

static void
write_file(const char *path, const char *text)
{
	FILE *fp = fopen(path, "w");

	assert_non_null(fp);
	fputs(text, fp);
	fclose(fp);
}

static void
make_op(const char *hook)
{
	char runner[256], text[4096];

	snprintf(runner, sizeof(runner), "%s/test_op.py", op);
	snprintf(text, sizeof(text), runner_fmt, hook);
	write_file(runner, text);
	chmod(runner, 0755);
	write_file(manifest, "{\"schema_version\": 1, \"cases\": [{\"id\": \"a\", "
	    "\"shape\": \"[1,8]\", \"dtype\": \"fp16\"}, {\"id\": \"b\", "
	    "\"shape\": \"[2,8]\", \"dtype\": \"fp16\"}], \"optimization_target\": "
	    "{\"case_ids\": [\"a\", \"b\"], \"selection_mode\": "
	    "\"all_p0_no_questions\"}}");
}

static int
setup(void **st)
{
	(void)st;
	unit_tmpdir_into(root, sizeof(root), "pypto-cmp");
	snprintf(op, sizeof(op), "%s/op", root);
	snprintf(manifest, sizeof(manifest), "%s/PERFORMANCE_CASES.json", op);
	mkdir(op, 0777);
	unsetenv("TILE_FWK_DEVICE_ID");
	unsetenv("ASCEND_RT_VISIBLE_DEVICES");
	unsetenv("PYPTO_PERF_COLLECTION_ID");
	return 0;
}

static int
teardown(void **st)
{
	(void)st;
	return unit_rmtree(root);
}

static tc_pypto_compare_opts
opts(void)
{
	tc_pypto_compare_opts o;

	tc_pypto_compare_opts_init(&o);
	o.op_dir = op;
	o.manifest_path = manifest;
	o.op_name = "k";
	o.case_arg = "--case-id";
	o.warmup = 1;
	o.repeats = 3;
	o.retry = 0;
	o.timing_source = "runner_reported";
	o.interpreter = "";
	o.retry_pause_s = 0;
	o.collection_id = "c1";
	return o;
}

static tc_json *
compare_ok(const tc_pypto_compare_opts *o)
{
	tc_error err = TC_ERROR_INIT;
	char *round = NULL;
	tc_json *s = tc_pypto_compare(o, &round, &err);

	if (s == NULL)
		fail_msg("compare failed: %s", tc_error_msg(&err));
	free(round);
	return s;
}

static void
compare_fails(const tc_pypto_compare_opts *o, const char *msg)
{
	tc_error err = TC_ERROR_INIT;
	char *round = NULL;
	tc_json *s = tc_pypto_compare(o, &round, &err);

	if (s != NULL) {
		tc_json_free(s);
		fail_msg("compare succeeded; expected %s", msg);
	}
	if (strstr(tc_error_msg(&err), msg) == NULL)
		fail_msg("got \"%s\", expected \"%s\"", tc_error_msg(&err), msg);
	free(round);
	tc_error_clear(&err);
}

static const tc_json *
case_row(const tc_json *s, const char *id)
{
	const tc_json *pcs = tc_json_get(s, "per_case");
	size_t i;

	for (i = 0; i < pcs->u.arr.len; i++)
		if (strcmp(tc_json_get_string(pcs->u.arr.items[i], "case"), id) == 0)
			return pcs->u.arr.items[i];
	return NULL;
}

static double
num(const tc_json *v)
{
	double d = -1;

	assert_true(tc_json_number(v, &d));
	return d;
}

static char *
rpath(const char *rel)
{
	char *p;

	assert_true(asprintf(&p, "%s/%s", op, rel) > 0);
	return p;
}

static char *
case_path(const char *id, const char *rel)
{
	char *name = tc_pypto_case_dir_name(id), *p;

	assert_true(asprintf(&p, "%s/docs/perf/round_001/%s/%s", op, name,
	    rel) > 0);
	free(name);
	return p;
}

static void
compare_archives_the_round_and_writes_the_deliverables(void **st)
{
	tc_pypto_compare_opts o = opts();
	tc_json *s, *c;
	tc_error err = TC_ERROR_INIT;
	tc_pypto_round r;
	char *p, *csv, *msg;

	(void)st;
	make_op("");
	s = compare_ok(&o);
	/* invocations: 1 unknown, 2-3 known (preflight); case a: warm 4,
	 * 105, warm 6, 107, warm 8, 109; case b: 211, 213, 215 */
	assert_true(num(tc_json_get(case_row(s, "a"), "asc_us")) == 107.0);
	assert_true(num(tc_json_get(case_row(s, "b"), "asc_us")) == 213.0);
	assert_string_equal(tc_json_get_string(case_row(s, "a"),
	    "aggregation_method"), "trimmed_mean");
	assert_string_equal(tc_json_get_string(s, "default_target_status"),
	    "unavailable");
	assert_string_equal(tc_json_get_string(s, "seed_source"),
	    "stage4_default");
	assert_string_equal(tc_json_get_string(s, "device_select_source"), "auto");
	assert_string_equal(tc_json_get_string(tc_json_get(s, "case_selector"),
	    "kind"), "cli");
	assert_string_equal(tc_json_get_string(s, "timing_method"),
	    "runner_reported.PYPTO_PERF_TASK");
	assert_true(tc_json_is(tc_json_get(s, "golden_timing_method"),
	    TC_JSON_NULL));
	assert_non_null(tc_json_get(tc_json_get(s, "null_field_reasons"),
	    "golden_timing_method"));
	p = rpath("docs/perf/round_001/collection.json");
	c = tc_json_parse_file(p, &err);
	free(p);
	assert_non_null(c);
	assert_string_equal(tc_json_get_string(c, "status"), "complete");
	assert_true(tc_json_equal(tc_json_get(c, "executable_sha256"),
	    tc_json_get(s, "executable_sha256")));
	tc_json_free(c);
	p = case_path("a", "repeat_002/timing.csv");
	csv = tc_read_file(p, 0, NULL, &err);
	free(p);
	assert_string_equal(csv, "Op Name,Task Duration(us),Case,Repeat,"
	    "Collection ID,Timing Source\r\nother,5.0,a,2,c1,runner_reported\r\n"
	    "k,107.0,a,2,c1,runner_reported\r\n");
	free(csv);
	p = rpath("perf_report.md");
	assert_true(tc_is_regular_file(p));
	free(p);
	p = rpath("performance.log");
	csv = tc_read_file(p, 0, NULL, &err);
	free(p);
	assert_non_null(strstr(csv, "samples_us=[105.0, 107.0, 109.0]"));
	free(csv);
	assert_int_equal(tc_pypto_round_verify(op, "docs/perf/round_001", &r,
	    &err), 0);
	assert_int_equal(r.n, 2);
	tc_pypto_round_free(&r);
	msg = tc_pypto_performance_error(op, s);
	assert_null(msg);
	tc_json_free(s);
}

static void
expect_round_error(const char *want)
{
	tc_pypto_round r;
	tc_error err = TC_ERROR_INIT;

	if (tc_pypto_round_verify(op, "docs/perf/round_001", &r, &err) == 0) {
		tc_pypto_round_free(&r);
		fail_msg("round verified; expected %s", want);
	}
	if (strstr(tc_error_msg(&err), want) == NULL)
		fail_msg("got \"%s\", expected \"%s\"", tc_error_msg(&err), want);
	tc_error_clear(&err);
}

static void
swap(const char *a, const char *b)
{
	char tmp[600];

	snprintf(tmp, sizeof(tmp), "%s.swap", a);
	assert_int_equal(rename(a, tmp), 0);
	assert_int_equal(rename(b, a), 0);
	assert_int_equal(rename(tmp, b), 0);
}

static void
replace_in_file(const char *path, const char *from, const char *to)
{
	tc_error err = TC_ERROR_INIT;
	char *t = tc_read_file(path, 0, NULL, &err), *at;
	tc_buf b = TC_BUF_INIT;

	assert_non_null(t);
	at = strstr(t, from);
	assert_non_null(at);
	tc_buf_add(&b, t, (size_t)(at - t));
	tc_buf_puts(&b, to);
	tc_buf_puts(&b, at + strlen(from));
	write_file(path, tc_buf_cstr(&b));
	tc_buf_free(&b);
	free(t);
}

static void
tampered_rounds_are_caught(void **st)
{
	tc_pypto_compare_opts o = opts();
	tc_json *s;
	char *m, *c1, *c2, *c3, *msg;

	(void)st;
	make_op("");
	s = compare_ok(&o);
	/* an edited sample */
	m = case_path("a", "measurement.json");
	replace_in_file(m, "105.0", "95.0");
	expect_round_error("raw timing duration mismatch: a repeat 1");
	replace_in_file(m, "95.0", "105.0");
	/* swapped CSVs between repeats, and between cases */
	c1 = case_path("a", "repeat_001/timing.csv");
	c2 = case_path("a", "repeat_002/timing.csv");
	c3 = case_path("b", "repeat_001/timing.csv");
	swap(c1, c2);
	expect_round_error("archived timing row belongs to case a repeat 2");
	swap(c1, c2);
	swap(c1, c3);
	expect_round_error("archived timing row belongs to case b repeat 1");
	swap(c1, c3);
	/* a forged CSV + sample pair no longer matches the runner's output */
	replace_in_file(c1, "k,105.0", "k,95.0");
	replace_in_file(m, "105.0", "95.0");
	expect_round_error("archived timing does not reproduce the runner output "
	    "in collection.log: a repeat 1");
	replace_in_file(c1, "k,95.0", "k,105.0");
	replace_in_file(m, "95.0", "105.0");
	/* an aggregate copied from another case into performance.json */
	tc_json_object_set(tc_json_get(s, "per_case")->u.arr.items[1], "asc_us",
	    tc_json_new_float(107.0));
	msg = tc_pypto_performance_error(op, s);
	assert_string_equal(msg, "performance.json PyPTO duration mismatch: b");
	free(msg);
	/* a hand-edited aggregate in measurement.json */
	replace_in_file(m, "\"aggregate_us\": 107.0", "\"aggregate_us\": 90.0");
	expect_round_error("per-case aggregate is not reproducible: a");
	free(m);
	free(c1);
	free(c2);
	free(c3);
	tc_json_free(s);
}

static void
selector_preflight_rejects_runners_that_ignore_it(void **st)
{
	tc_pypto_compare_opts o = opts();
	char *perf;

	(void)st;
	make_op("[ \"$id\" = \"${id#__pypto_perf_unknown_}\" ] || id=a");
	compare_fails(&o, "declared case selector accepted a collision-resistant "
	    "unknown case id; refusing to profile a runner that may ignore the "
	    "selector");
	make_op("[ \"$id\" = b ] && echo PYPTO_PERF_SELECTED_CASE=a");
	compare_fails(&o, "case selector for 'b' must emit exactly one line "
	    "'PYPTO_PERF_SELECTED_CASE=b'; got markers=['a', 'b']");
	make_op("[ \"$id\" = a ] && exit 3");
	compare_fails(&o, "case selector failed for known case id 'a'");
	perf = rpath("docs/perf");
	assert_false(tc_path_exists(perf));	/* nothing archived */
	free(perf);
}

static void
runner_digest_must_not_change_during_the_collection(void **st)
{
	tc_pypto_compare_opts o = opts();
	tc_error err = TC_ERROR_INIT;
	tc_json *c;
	char *p;

	(void)st;
	make_op("[ $n = 6 ] && echo '# edited' >> \"$0\"");
	compare_fails(&o, "changed during the collection: executable_sha256");
	p = rpath("docs/perf/round_001/collection.json");
	c = tc_json_parse_file(p, &err);
	free(p);
	assert_string_equal(tc_json_get_string(c, "status"), "failed");
	assert_non_null(strstr(tc_json_get_string(c, "failure"), "changed"));
	tc_json_free(c);
	p = rpath("performance.json");
	assert_false(tc_path_exists(p));
	free(p);
}

static void
failed_attempts_are_retried_and_then_reported(void **st)
{
	tc_pypto_compare_opts o = opts();
	tc_json *s, *c;
	tc_error err = TC_ERROR_INIT;
	char *p;

	(void)st;
	make_op("[ $n = 5 ] && { echo boom >&2; exit 1; }");
	o.retry = 1;
	s = compare_ok(&o);
	/* attempt 2 of case a: warm 6, 107, warm 8, 109, warm 10, 111 */
	assert_true(num(tc_json_get(case_row(s, "a"), "asc_us")) == 109.0);
	tc_json_free(s);
	teardown(NULL);
	setup(NULL);
	make_op("[ $n = 5 ] && { echo boom >&2; exit 1; }");
	o = opts();
	compare_fails(&o, "only 1/2 cases produced valid performance evidence");
	p = rpath("docs/perf/round_001/collection.json");
	c = tc_json_parse_file(p, &err);
	free(p);
	assert_string_equal(tc_json_get_string(tc_json_get(c, "case_errors"),
	    "a"), "runner failed (exit 1): boom\n");
	tc_json_free(c);
}

static void
argument_and_contract_checks(void **st)
{
	tc_pypto_compare_opts o = opts();
	tc_pypto_freeze_opts f;
	tc_error err = TC_ERROR_INIT;
	tc_json *doc;

	(void)st;
	make_op("");
	o.seed = 7;
	compare_fails(&o, "Stage 5 keeps the validated Stage 4 seed fixed at 42; "
	    "omit --seed or pass --seed=42");
	o = opts();
	o.case_arg = NULL;
	compare_fails(&o, "the selected performance case source contains 2 "
	    "cases, but test_<op>.py needs an explicit per-case selector.");
	o = opts();
	o.case_arg = "case-id";
	compare_fails(&o, "--case-arg must be a CLI option such as --case-id");
	o = opts();
	o.case_env = "CASE";
	compare_fails(&o, "--case-arg and --case-env are mutually exclusive");
	o = opts();
	o.op_name = NULL;
	compare_fails(&o, "compare/quick requires an exact --op-name");
	memset(&f, 0, sizeof(f));
	f.op_dir = op;
	f.manifest_path = manifest;
	f.op_name = "k";
	f.warmup = 1;
	f.repeats = 3;
	f.retry = 0;
	f.timing_source = "runner_reported";
	f.case_arg = "--case-id";
	f.stability_kind = "absolute";
	f.stability_value = "0.1";
	f.promotion_rule = "r";
	doc = tc_pypto_contract_freeze(&f, &err);
	assert_non_null(doc);
	tc_json_free(doc);
	o = opts();
	o.repeats = 2;
	compare_fails(&o, "formal compare protocol differs from the frozen "
	    "contract: --repeats 2, frozen 3");
	o = opts();
	o.timing_source = "process_timer";
	compare_fails(&o, "formal compare protocol differs from the frozen "
	    "contract: --timing-source process_timer, frozen runner_reported");
	/* everything omitted comes from the contract */
	o = opts();
	o.op_name = NULL;
	o.case_arg = NULL;
	o.warmup = o.repeats = o.retry = -1;
	o.timing_source = NULL;
	doc = compare_ok(&o);
	assert_string_equal(tc_json_get_string(doc, "target_op_name"), "k");
	tc_json_free(doc);
	/* a manifest edited after the freeze is refused */
	write_file(manifest, "{\"schema_version\": 1, \"cases\": [{\"id\": \"a\", "
	    "\"shape\": \"[1,8]\", \"dtype\": \"fp16\"}]}");
	compare_fails(&o, "PERFORMANCE_CASES.json differs from the frozen "
	    "manifest");
}

static void
process_timer_times_the_runner_process(void **st)
{
	tc_pypto_compare_opts o = opts();
	tc_json *s;
	const tc_json *a;

	(void)st;
	make_op("");
	o.timing_source = "process_timer";
	o.repeats = 2;
	s = compare_ok(&o);
	a = case_row(s, "a");
	assert_true(num(tc_json_get(a, "asc_us")) > 0);
	assert_string_equal(tc_json_get_string(a, "aggregation_method"), "median");
	assert_string_equal(tc_json_get_string(s, "timing_source_metric"),
	    "process_timer");
	assert_null(tc_pypto_performance_error(op, s));
	tc_json_free(s);
}

static void
timing_rows_must_name_the_target_once(void **st)
{
	tc_pypto_compare_opts o = opts();

	(void)st;
	make_op("echo 'PYPTO_PERF_TASK {\"op_name\": \"k\", \"duration_us\": 1}'");
	o.op_name = "k";
	compare_fails(&o, "expected exactly one row for op_name=k; found 2.");
	make_op("echo 'PYPTO_PERF_TASK not-json'");
	compare_fails(&o, "malformed runner timing line: ");
	make_op("");
	o.op_name = "missing";
	compare_fails(&o, "expected exactly one row for op_name=missing; found 0.");
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(
		    compare_archives_the_round_and_writes_the_deliverables, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(tampered_rounds_are_caught, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(
		    selector_preflight_rejects_runners_that_ignore_it, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(
		    runner_digest_must_not_change_during_the_collection, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(
		    failed_attempts_are_retried_and_then_reported, setup, teardown),
		cmocka_unit_test_setup_teardown(argument_and_contract_checks, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(
		    process_timer_times_the_runner_process, setup, teardown),
		cmocka_unit_test_setup_teardown(
		    timing_rows_must_name_the_target_once, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
