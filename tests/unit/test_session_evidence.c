/*
 * test_session_evidence.c - the pieces of evidence binding below the CLI:
 * what an artifact manifest records for each kind of path (and that a
 * planted FIFO or an escaping symlink is recorded, not followed), the
 * evidence_policy key, the phase-report comparison (blocker key order is
 * not a difference, a character is), and the refusals of gate
 * recomputation (relative inputs, a program to run, a malformed record).
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
#include "tunectl/evidence.h"
#include "tunectl/fileio.h"
#include "tunectl/report.h"
#include "tunectl/sha256.h"
#include "unit_fixture.h"

static char root[4096];

static void
put(const char *rel, const char *text)
{
	char *path = tc_xasprintf("%s/%s", root, rel);

	assert_int_equal(tc_write_atomic(path, text, strlen(text),
	    TC_WRITE_MKDIRS, NULL), 0);
	free(path);
}

static const char *
kind_of(const tc_json *e)
{
	return tc_json_get_string(e, "kind");
}

static void
files_and_directories_are_bound_by_digest(void **state)
{
	char hex[TC_SHA256_HEX_LEN + 1], *dir;
	tc_json *e;
	int64_t n;

	(void)state;
	put("a.json", "{}\n");
	put("runs/run-1/log_0.log", "x\n");
	put("runs/run-2/log_0.log", "y\n");
	e = tc_artifact_describe(root, "a.json");
	assert_string_equal(kind_of(e), "file");
	tc_sha256_hex("{}\n", 3, hex);
	assert_string_equal(tc_json_get_string(e, "sha256"), hex);
	assert_true(tc_json_int64(tc_json_get(e, "size_bytes"), &n));
	assert_int_equal(n, 3);
	tc_json_free(e);
	e = tc_artifact_describe(root, "runs");
	assert_string_equal(kind_of(e), "directory");
	dir = tc_xasprintf("%s/runs", root);
	assert_int_equal(tc_sha256_tree(dir, hex, NULL, NULL, NULL), 0);
	assert_string_equal(tc_json_get_string(e, "sha256"), hex);
	assert_true(tc_json_int64(tc_json_get(e, "file_count"), &n));
	assert_int_equal(n, 2);
	tc_json_free(e);
	free(dir);
	e = tc_artifact_describe(root, "nothing/here.json");
	assert_string_equal(kind_of(e), "missing");
	tc_json_free(e);
}

static void
fifos_and_escaping_links_are_recorded_not_followed(void **state)
{
	char *fifo = tc_xasprintf("%s/pipe", root);
	char *link = tc_xasprintf("%s/out", root);
	char *dir = tc_xasprintf("%s/runset", root);
	char *inner = tc_xasprintf("%s/runset/latest", root);
	tc_json *e, *again;

	(void)state;
	assert_int_equal(mkfifo(fifo, 0600), 0);
	assert_int_equal(symlink("/etc/hostname", link), 0);
	/* bound by what they are (issue 34), never opened or followed */
	e = tc_artifact_describe(root, "pipe");	/* must not block */
	assert_string_equal(kind_of(e), "special");
	assert_string_equal(tc_json_get_string(e, "type"), "fifo");
	tc_json_free(e);
	e = tc_artifact_describe(root, "out");
	assert_string_equal(kind_of(e), "symlink");
	assert_string_equal(tc_json_get_string(e, "target"), "/etc/hostname");
	tc_json_free(e);
	/* a directory holding a dangling link is a tree, its digest moving
	 * with the link's text */
	assert_int_equal(mkdir(dir, 0700), 0);
	assert_int_equal(symlink("nowhere", inner), 0);
	e = tc_artifact_describe(root, "runset");
	assert_string_equal(kind_of(e), "tree");
	assert_string_equal(tc_json_get_string(e, "first_irregular"), "latest");
	assert_int_equal(unlink(inner), 0);
	assert_int_equal(symlink("elsewhere", inner), 0);
	again = tc_artifact_describe(root, "runset");
	assert_string_equal(kind_of(again), "tree");
	assert_string_not_equal(tc_json_get_string(e, "sha256"),
	    tc_json_get_string(again, "sha256"));
	tc_json_free(e);
	tc_json_free(again);
	free(fifo);
	free(link);
	free(dir);
	free(inner);
}

static void
evidence_policy_key_is_reference_strict_or_invalid(void **state)
{
	tc_json *doc = tc_json_new_object();
	tc_error err = TC_ERROR_INIT;
	tc_policy p;

	(void)state;
	assert_int_equal(tc_policy_of_doc(doc, &p, &err), 0);
	assert_int_equal(p, TC_POLICY_REFERENCE);
	tc_json_object_set_string(doc, "evidence_policy", "strict");
	assert_int_equal(tc_policy_of_doc(doc, &p, &err), 0);
	assert_int_equal(p, TC_POLICY_STRICT);
	tc_json_object_set_string(doc, "evidence_policy", "lax");
	assert_int_equal(tc_policy_of_doc(doc, &p, &err), -1);
	assert_string_equal(tc_error_msg(&err), "session evidence_policy is invalid");
	tc_json_object_set_int(doc, "evidence_policy", 1);
	assert_int_equal(tc_policy_of_doc(doc, &p, &err), -1);
	assert_int_equal(tc_policy_parse("reference", &p), 0);
	assert_int_equal(tc_policy_parse("Strict", &p), -1);
	tc_error_clear(&err);
	tc_json_free(doc);
}

static void
phase_report_blockers_compare_as_json_values(void **state)
{
	const char *text =
	    "{\"schema_version\": \"x\", \"session_id\": \"s\", \"status\": \"blocked\","
	    " \"summary_zh\": \"结论\", \"next_step_guidance_zh\": \"下一步\","
	    " \"blockers\": [{\"zeta\": 1, \"alpha\": {\"b\": 2, \"a\": 1}}]}";
	tc_json *result = tc_json_parse(text, strlen(text), NULL);
	const char *stext = "{\"phase\": \"s0_baseline\", \"step_id\": \"s0-baseline\","
	    " \"agent_id\": \"sk-s0-baseline\"}";
	tc_json *step = tc_json_parse(stext, strlen(stext), NULL);
	char *report = tc_report_phase_md(result, step, NULL);
	char *path = tc_xasprintf("%s/PHASE_REPORT.md", root);
	tc_error err = TC_ERROR_INIT;
	tc_buf reordered = TC_BUF_INIT;
	char *at;

	(void)state;
	assert_non_null(report);
	put("PHASE_REPORT.md", report);
	assert_int_equal(tc_check_phase_report(result, step, path, &err), 0);
	/* the reference's insertion order */
	at = strstr(report, "- {");
	assert_non_null(at);
	tc_buf_add(&reordered, report, (size_t)(at - report));
	tc_buf_puts(&reordered, "- {\"zeta\": 1, \"alpha\": {\"b\": 2, \"a\": 1}}\n");
	put("PHASE_REPORT.md", tc_buf_cstr(&reordered));
	assert_int_equal(tc_check_phase_report(result, step, path, &err), 0);
	/* one character */
	report[2] = 'S';
	put("PHASE_REPORT.md", report);
	assert_int_equal(tc_check_phase_report(result, step, path, &err), -1);
	assert_string_equal(tc_error_msg(&err), "phase report differs from its "
	    "sealed result: s0-baseline (phases/s0-baseline/PHASE_REPORT.md)");
	tc_error_clear(&err);
	tc_buf_free(&reordered);
	free(report);
	free(path);
	tc_json_free(result);
	tc_json_free(step);
}

static tc_json *
provenance(const char *baseline, const char *validator)
{
	tc_analyze_opts o;
	tc_json *p;

	tc_analyze_opts_init(&o);
	o.baseline = baseline;
	o.replay_validator = validator;
	p = tc_analyze_provenance(&o, NULL);
	return p;
}

static void
recomputation_refuses_what_it_cannot_repeat_safely(void **state)
{
	tc_buf text = TC_BUF_INIT;
	tc_error err = TC_ERROR_INIT;
	tc_json *p;

	(void)state;
	p = provenance("runs", NULL);
	assert_int_equal(tc_analyze_recompute(p, &text, &err), -1);
	assert_non_null(strstr(tc_error_msg(&err), "relative to the directory"));
	tc_json_free(p);
	p = provenance("/abs/runs", "/bin/rm");
	assert_int_equal(tc_analyze_recompute(p, &text, &err), -1);
	assert_non_null(strstr(tc_error_msg(&err), "--replay-validator"));
	tc_json_free(p);
	p = provenance("/abs/runs", NULL);
	tc_json_object_set_string(p, "warmup", "eight");
	assert_int_equal(tc_analyze_recompute(p, &text, &err), -1);
	assert_string_equal(tc_error_msg(&err),
	    "gate provenance is malformed: warmup");
	tc_json_free(p);
	/* the decision rule is read back: ci or mean, nothing else */
	p = provenance("/abs/runs", NULL);
	assert_string_equal(tc_json_get_string(p, "decide_by"), "mean");
	tc_json_object_set_string(p, "decide_by", "vote");
	assert_int_equal(tc_analyze_recompute(p, &text, &err), -1);
	assert_string_equal(tc_error_msg(&err),
	    "gate provenance is malformed: decide_by");
	/* a record written before the rule existed decides by the mean:
	 * it gets as far as reading the (missing) run set */
	tc_json_object_remove(p, "decide_by");
	tc_json_object_set_string(p, "stability_rule", "loose");
	assert_int_equal(tc_analyze_recompute(p, &text, &err), -1);
	assert_string_equal(tc_error_msg(&err),
	    "gate provenance is malformed: stability_rule");
	tc_json_object_remove(p, "stability_rule");
	assert_int_equal(tc_analyze_recompute(p, &text, &err) != 0, 1);
	assert_null(strstr(tc_error_msg(&err), "malformed"));
	tc_json_free(p);
	p = tc_json_new_object();
	assert_int_equal(tc_analyze_recompute(p, &text, &err), -1);
	assert_non_null(strstr(tc_error_msg(&err), TC_GATE_PROVENANCE_SCHEMA));
	tc_json_free(p);
	assert_int_equal(text.len, 0);
	tc_error_clear(&err);
	tc_buf_free(&text);
}

static int
setup(void **state)
{
	(void)state;
	unit_tmpdir_into(root, sizeof(root), "evidence");
	return 0;
}

static int
teardown(void **state)
{
	(void)state;
	return unit_rmtree(root);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(files_and_directories_are_bound_by_digest),
		cmocka_unit_test(fifos_and_escaping_links_are_recorded_not_followed),
		cmocka_unit_test(evidence_policy_key_is_reference_strict_or_invalid),
		cmocka_unit_test(phase_report_blockers_compare_as_json_values),
		cmocka_unit_test(recomputation_refuses_what_it_cannot_repeat_safely),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
