/*
 * test_pypto_state_store.c - the state tool wrapper: op dir confinement to
 * <project>/custom/, the caller check, the SPEC.md freeze messages, the
 * configured lint gate (blocking rules and the reference's messages),
 * tunectl's Stage 5 rollback policy, nothing written on errors, and
 * show / history.
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
#include "tunectl/pypto_state.h"
#include "tunectl/sha256.h"
#include "unit_fixture.h"

/* As long as the directory unit_tmpdir_into() makes under /tmp. */
static char root[sizeof("/tmp/tunectl-pypto-state.XXXXXX")];
static char project[64], opdir[128], statefile[192];

static int
setup(void **st)
{
	(void)st;
	unit_tmpdir_into(root, sizeof(root), "pypto-state");
	snprintf(project, sizeof(project), "%s/proj", root);
	snprintf(opdir, sizeof(opdir), "%s/custom/demo", project);
	snprintf(statefile, sizeof(statefile), "%s/.orchestrator_state.json",
	    opdir);
	mkdir(project, 0777);
	return 0;
}

static int
teardown(void **st)
{
	(void)st;
	unsetenv("LINT_OUT");
	unsetenv("LINT_RC");
	return unit_rmtree(root);
}

static void
write_file(const char *path, const char *text)
{
	FILE *fp = fopen(path, "w");

	assert_non_null(fp);
	fputs(text, fp);
	fclose(fp);
}

static char *
slurp(const char *path)
{
	tc_error err = TC_ERROR_INIT;
	char *t = tc_read_file(path, 0, NULL, &err);

	tc_error_clear(&err);
	return t;
}

static tc_pypto_state_opts
opts(void)
{
	tc_pypto_state_opts o;

	memset(&o, 0, sizeof(o));
	o.project = project;
	o.op_dir = "custom/demo";
	return o;
}

static tc_json *
run(const tc_pypto_state_opts *o, const char *action, const char *stage,
    tc_error *err)
{
	tc_pypto_input in = TC_PYPTO_INPUT_INIT;

	in.action = action;
	in.stage = stage;
	return tc_pypto_state_transition(o, &in, err);
}

static void
must(const tc_pypto_state_opts *o, const char *action, const char *stage)
{
	tc_error err = TC_ERROR_INIT;
	tc_json *r = run(o, action, stage, &err);

	if (r == NULL)
		fail_msg("%s %s: %s", action, stage ? stage : "", tc_error_msg(&err));
	tc_json_free(r);
}

static void
expect_fail(const tc_pypto_state_opts *o, const char *action,
    const char *stage, const char *msg)
{
	tc_error err = TC_ERROR_INIT;
	tc_json *r = run(o, action, stage, &err);

	if (r != NULL) {
		tc_json_free(r);
		fail_msg("%s succeeded, expected %s", action, msg);
	}
	assert_string_equal(tc_error_msg(&err), msg);
	tc_error_clear(&err);
}

static void
op_dir_must_be_strictly_inside_custom(void **st)
{
	tc_pypto_state_opts o = opts();
	char msg[2048];

	(void)st;
	o.op_dir = "custom";
	snprintf(msg, sizeof(msg), "permission denied: state_transition may only "
	    "update an operator directory under %s/custom, but received "
	    "%s/custom.", project, project);
	expect_fail(&o, "init", NULL, msg);
	o.op_dir = "custom/../elsewhere";
	snprintf(msg, sizeof(msg), "permission denied: state_transition may only "
	    "update an operator directory under %s/custom, but received "
	    "%s/elsewhere.", project, project);
	expect_fail(&o, "init", NULL, msg);
	o.op_dir = "/tmp";
	snprintf(msg, sizeof(msg), "permission denied: state_transition may only "
	    "update an operator directory under %s/custom, but received /tmp.",
	    project);
	expect_fail(&o, "init", NULL, msg);
	/* a symlink inside custom/ that leads out is refused as well */
	{
		char custom[600], link[700];

		snprintf(custom, sizeof(custom), "%s/custom", project);
		mkdir(custom, 0777);
		snprintf(link, sizeof(link), "%s/out", custom);
		assert_int_equal(symlink(root, link), 0);
		o.op_dir = "custom/out";
		snprintf(msg, sizeof(msg), "permission denied: state_transition may "
		    "only update an operator directory under %s/custom, but "
		    "received %s/custom/out.", project, project);
		expect_fail(&o, "init", NULL, msg);
	}
	assert_false(tc_path_exists(statefile));
}

static void
caller_and_action_are_checked_first(void **st)
{
	tc_pypto_state_opts o = opts();

	(void)st;
	o.agent = "pypto-pro-op-coder";
	expect_fail(&o, "init", NULL, "permission denied: state_transition is "
	    "restricted to the PyPTO-Pro primary, but was called by "
	    "\"pypto-pro-op-coder\". Subagents must not modify "
	    ".orchestrator_state.json; return stage results to the orchestrator "
	    "instead.");
	o.agent = "";
	expect_fail(&o, "init", NULL, "permission denied: state_transition is "
	    "restricted to the PyPTO-Pro primary, but was called by "
	    "\"(unknown)\". Subagents must not modify .orchestrator_state.json; "
	    "return stage results to the orchestrator instead.");
	o.agent = "build";
	expect_fail(&o, "jump", NULL, "unsupported action: jump");
	o.agent = "pypto-pro-op-orchestrator";
	must(&o, "init", NULL);
}

static void
init_creates_the_op_dir_and_writes_schema_2_2(void **st)
{
	tc_pypto_state_opts o = opts();
	tc_error err = TC_ERROR_INIT;
	tc_json *r = run(&o, "init", NULL, &err), *s;

	(void)st;
	assert_non_null(r);
	assert_true(tc_json_get(r, "ok")->u.b);
	assert_string_equal(tc_json_get_string(r, "statePath"), statefile);
	assert_int_equal(tc_json_get(r, "warnCount")->type, TC_JSON_INT);
	tc_json_free(r);
	s = tc_json_parse_file(statefile, &err);
	assert_non_null(s);
	assert_string_equal(tc_json_get_string(s, "schema_version"), "2.2");
	assert_string_equal(tc_json_get_string(s, "operator_name"), "demo");
	tc_json_free(s);
}

static void
spec_freeze_messages(void **st)
{
	tc_pypto_state_opts o = opts();
	char spec[700], msg[2048], hex[65];
	tc_error err = TC_ERROR_INIT;
	tc_json *s;

	(void)st;
	snprintf(spec, sizeof(spec), "%s/SPEC.md", opdir);
	must(&o, "init", NULL);
	snprintf(msg, sizeof(msg), "cannot complete Stage 1: %s does not exist. "
	    "SPEC.md is Stage 1's deliverable and the artifact the freeze is "
	    "taken over; completing without it would leave the freeze unarmed "
	    "for the rest of the run.", spec);
	expect_fail(&o, "complete_stage", "1", msg);
	write_file(spec, "spec v1\n");
	must(&o, "complete_stage", "1");
	s = tc_json_parse_file(statefile, &err);
	tc_sha256_hex("spec v1\n", 8, hex);
	assert_string_equal(tc_json_get_string(tc_json_get(s, "artifact_hashes"),
	    "spec_md"), hex);
	tc_json_free(s);
	must(&o, "complete_stage", "2");
	write_file(spec, "spec v2\n");
	{
		char cur[65];

		tc_sha256_hex("spec v2\n", 8, cur);
		snprintf(msg, sizeof(msg), "SPEC.md freeze violation: SPEC.md was "
		    "modified after Stage 1 completion. current hash=%.12s\xe2\x80"
		    "\xa6 recorded hash=%.12s\xe2\x80\xa6. To legitimately revise "
		    "the spec, call rollback_to_stage(target_stage=1, "
		    "reason=...).", cur, hex);
	}
	expect_fail(&o, "complete_stage", "3", msg);
	unlink(spec);
	snprintf(msg, sizeof(msg), "SPEC.md freeze violation: %s no longer "
	    "exists. It was recorded at Stage 1 (hash=%.12s\xe2\x80\xa6) and the "
	    "freeze is taken over that file; deleting or renaming it is a spec "
	    "change. To legitimately revise the spec, call "
	    "rollback_to_stage(target_stage=1, reason=...).", spec, hex);
	expect_fail(&o, "complete_stage", "3", msg);
	write_file(spec, "spec v1\n");
	must(&o, "complete_stage", "3");
}

static void
spec_hash_is_of_utf8_text(void **st)
{
	char spec[700], hex[65], want[65];
	tc_error err = TC_ERROR_INIT;

	(void)st;
	snprintf(spec, sizeof(spec), "%s/SPEC.md", root);
	/* an invalid byte becomes U+FFFD before hashing, as Node reads it */
	write_file(spec, "a\xff" "b");
	assert_int_equal(tc_pypto_spec_hash(spec, hex, &err), 1);
	tc_sha256_hex("a\xef\xbf\xbd" "b", 5, want);
	assert_string_equal(hex, want);
	/* a truncated sequence is one replacement, the next byte kept */
	write_file(spec, "\xe2\x82" "x");
	assert_int_equal(tc_pypto_spec_hash(spec, hex, &err), 1);
	tc_sha256_hex("\xef\xbf\xbdx", 4, want);
	assert_string_equal(hex, want);
	unlink(spec);
	assert_int_equal(tc_pypto_spec_hash(spec, hex, &err), 0);
}

static void
errors_leave_the_file_untouched(void **st)
{
	tc_pypto_state_opts o = opts();
	char *before, *after;

	(void)st;
	must(&o, "init", NULL);
	before = slurp(statefile);
	expect_fail(&o, "complete_stage", "2", "cannot complete stage 2: "
	    "current_stage is 1");
	after = slurp(statefile);
	assert_string_equal(before, after);
	free(before);
	free(after);
	write_file(statefile, "[1, 2]");
	expect_fail(&o, "complete_stage", "1", "invalid orchestrator state file "
	    "content");
	write_file(statefile, "{bad");
	expect_fail(&o, "complete_stage", "1", "Expecting property name enclosed "
	    "in double quotes: line 1 column 2 (char 1)");
}

static void
stage5_rollback_is_refused_unless_allowed(void **st)
{
	tc_pypto_state_opts o = opts();
	tc_pypto_input in = TC_PYPTO_INPUT_INIT;
	tc_error err = TC_ERROR_INIT;
	tc_json *r;
	char spec[700];

	(void)st;
	snprintf(spec, sizeof(spec), "%s/SPEC.md", opdir);
	must(&o, "init", NULL);
	write_file(spec, "s");
	must(&o, "complete_stage", "1");
	must(&o, "complete_stage", "2");
	must(&o, "complete_stage", "3");
	in.action = "plan_stage4";
	in.is_fusion = 0;
	r = tc_pypto_state_transition(&o, &in, &err);
	assert_non_null(r);
	assert_string_equal(tc_json_get_string(r, "stage4_path"), "L0");
	tc_json_free(r);
	must(&o, "complete_stage", "4");
	in = (tc_pypto_input)TC_PYPTO_INPUT_INIT;
	in.action = "rollback_to_stage";
	in.target_stage = "3";
	in.reason = "design";
	assert_null(tc_pypto_state_transition(&o, &in, &err));
	assert_non_null(strstr(tc_error_msg(&err), "rollback_to_stage refused: "
	    "Stage 5 has been entered"));
	tc_error_clear(&err);
	o.allow_stage5_rollback = true;
	r = tc_pypto_state_transition(&o, &in, &err);
	assert_non_null(r);
	assert_int_equal(tc_json_get(r, "current_stage")->u.int_text[0], '3');
	tc_json_free(r);
}

static char lint_script[700];

static tc_pypto_state_opts
lint_opts(char **argv)
{
	tc_pypto_state_opts o = opts();

	snprintf(lint_script, sizeof(lint_script), "%s/lint.sh", root);
	write_file(lint_script, "#!/bin/sh\n"
	    "printf '%s\\n' \"$*\" > \"$(dirname \"$0\")/lint.args\"\n"
	    "cat \"$LINT_OUT\"\nexit \"${LINT_RC:-0}\"\n");
	chmod(lint_script, 0755);
	argv[0] = lint_script;
	argv[1] = NULL;
	o.lint_argv = argv;
	return o;
}

static void
lint_gate_blocks_on_s0_s1_findings_and_exit_codes(void **st)
{
	char *argv[2], out[700], args[700], spec[700], msg[4096];
	tc_pypto_state_opts o = lint_opts(argv);
	char *seen;

	(void)st;
	snprintf(out, sizeof(out), "%s/lint.json", root);
	snprintf(args, sizeof(args), "%s/lint.args", root);
	snprintf(spec, sizeof(spec), "%s/SPEC.md", opdir);
	setenv("LINT_OUT", out, 1);
	must(&o, "init", NULL);	/* no gate for init */
	write_file(spec, "s");
	write_file(out, "{\"summary\": {\"pass\": 1, \"warn\": 1, \"info\": 0, "
	    "\"fail\": 1, \"skip\": 0, \"has_error_fail\": true}, \"findings\": ["
	    "{\"rule_id\": \"PL03\", \"severity\": \"S1\", \"status\": \"FAIL\", "
	    "\"message\": \"SPEC invalid\", \"file\": \"SPEC.md\"},"
	    "{\"rule_id\": \"PL10\", \"severity\": \"S2\", \"status\": \"WARN\", "
	    "\"message\": \"w\", \"file\": \"\"},"
	    "{\"rule_id\": \"PL01\", \"severity\": \"S0\", \"status\": \"PASS\", "
	    "\"message\": \"ok\", \"file\": \"\"}]}");
	snprintf(msg, sizeof(msg), "[pypto-pro-op-lint] gate blocked: "
	    "action=complete_stage, stage=1, module=-, op_dir=%s\nStage 1 "
	    "completion blocked by lint rule violations:\n  [PL03][S1] SPEC "
	    "invalid (SPEC.md)\n\nRecommended next step: re-dispatch the upstream "
	    "agent with the violations listed above. After the agent fixes the "
	    "artifacts, call complete_stage again.", opdir);
	expect_fail(&o, "complete_stage", "1", msg);
	seen = slurp(args);
	snprintf(msg, sizeof(msg), "--check-gate --op-dir %s --stage 1\n", opdir);
	assert_string_equal(seen, msg);
	free(seen);
	/* a clean report but a non-zero exit blocks with no findings */
	write_file(out, "{\"summary\": {\"pass\": 0, \"warn\": 0, \"info\": 2, "
	    "\"fail\": 0, \"skip\": 0, \"has_error_fail\": false}, \"findings\": ["
	    "{\"rule_id\": \"a\", \"severity\": \"S3\", \"status\": \"INFO\", "
	    "\"message\": \"\", \"file\": \"\"}, {\"rule_id\": \"b\", "
	    "\"severity\": \"S3\", \"status\": \"INFO\", \"message\": \"\", "
	    "\"file\": \"\"}]}");
	setenv("LINT_RC", "3", 1);
	snprintf(msg, sizeof(msg), "[pypto-pro-op-lint] gate blocked: "
	    "action=complete_stage, stage=1, module=-, op_dir=%s\nlint script "
	    "returned exit code 3 with no parsable findings", opdir);
	expect_fail(&o, "complete_stage", "1", msg);
	setenv("LINT_RC", "0", 1);
	{
		tc_error err = TC_ERROR_INIT;
		tc_json *r = run(&o, "complete_stage", "1", &err);

		assert_non_null(r);
		assert_string_equal(tc_json_get(r, "infoCount")->u.int_text, "2");
		tc_json_free(r);
	}
	/* malformed output */
	write_file(out, "   ");
	snprintf(msg, sizeof(msg), "[pypto-pro-op-lint] gate blocked: "
	    "action=complete_stage, stage=2, module=-, op_dir=%s\nlint script "
	    "returned empty output", opdir);
	expect_fail(&o, "complete_stage", "2", msg);
	write_file(out, "{\"summary\": {\"pass\": 1, \"warn\": 0, \"info\": 0, "
	    "\"fail\": 0, \"skip\": 0, \"has_error_fail\": false}, "
	    "\"findings\": []}");
	snprintf(msg, sizeof(msg), "[pypto-pro-op-lint] gate blocked: "
	    "action=complete_stage, stage=2, module=-, op_dir=%s\ninvalid lint "
	    "JSON output: summary.pass=1 does not match findings count 0", opdir);
	expect_fail(&o, "complete_stage", "2", msg);
}

static void
gate_parser_rules(void **st)
{
	tc_pypto_gate_summary sum;
	char *details = NULL;
	bool blocking;
	tc_error err = TC_ERROR_INIT;

	(void)st;
	assert_int_equal(tc_pypto_gate_parse("{\"summary\": {\"pass\": 0, "
	    "\"warn\": 0, \"info\": 0, \"fail\": 1, \"skip\": 0, "
	    "\"has_error_fail\": false}, \"findings\": [{\"rule_id\": \"X\", "
	    "\"severity\": \"S1\", \"status\": \"FAIL\", \"message\": \"m\", "
	    "\"file\": \"f\"}]}", &sum, &details, &blocking, &err), -1);
	assert_string_equal(tc_error_msg(&err), "invalid lint JSON output: "
	    "summary.has_error_fail does not match findings");
	tc_error_clear(&err);
	assert_int_equal(tc_pypto_gate_parse("{\"summary\": {\"pass\": 0, "
	    "\"warn\": 0, \"info\": 0, \"fail\": 1, \"skip\": 0, "
	    "\"has_error_fail\": false}, \"findings\": [{\"rule_id\": \"X\", "
	    "\"severity\": \"S9\", \"status\": \"FAIL\", \"message\": \"m\", "
	    "\"file\": \"f\"}]}", &sum, &details, &blocking, &err), -1);
	assert_string_equal(tc_error_msg(&err), "invalid lint JSON output: "
	    "invalid finding severity: S9");
	tc_error_clear(&err);
	/* a message that already locates the file gets no suffix */
	assert_int_equal(tc_pypto_gate_parse("{\"summary\": {\"pass\": 0, "
	    "\"warn\": 0, \"info\": 0, \"fail\": 1, \"skip\": 0, "
	    "\"has_error_fail\": false}, \"findings\": [{\"rule_id\": \"X\", "
	    "\"severity\": \"S2\", \"status\": \"FAIL\", \"message\": "
	    "\"bad\\nf.py:3: here\", \"file\": \"f.py\"}]}", &sum, &details,
	    &blocking, &err), 0);
	assert_false(blocking);
	assert_string_equal(details, "  [X][S2] bad\nf.py:3: here");
	free(details);
}

static void
show_lists_legal_actions_and_history_prints_rollbacks(void **st)
{
	tc_pypto_state_opts o = opts();
	tc_pypto_input in = TC_PYPTO_INPUT_INIT;
	tc_error err = TC_ERROR_INIT;
	tc_json *r, *h;
	const tc_json *acts;
	char spec[700];
	size_t i;
	bool has_complete = false, has_init = false;

	(void)st;
	r = tc_pypto_state_show(&o, &err);	/* absent: synthesised */
	assert_non_null(r);
	assert_false(tc_json_get(r, "exists")->u.b);
	tc_json_free(r);
	snprintf(spec, sizeof(spec), "%s/SPEC.md", opdir);
	must(&o, "init", NULL);
	write_file(spec, "s");
	must(&o, "complete_stage", "1");
	in.action = "rollback_to_stage";
	in.target_stage = "1";
	in.reason = "missing facts";
	in.failure_category = "stage1_material_gap";
	r = tc_pypto_state_transition(&o, &in, &err);
	assert_non_null(r);
	tc_json_free(r);
	r = tc_pypto_state_show(&o, &err);
	assert_non_null(r);
	acts = tc_json_get(r, "next_actions");
	for (i = 0; i < acts->u.arr.len; i++) {
		const char *a = tc_json_get_string(acts->u.arr.items[i], "action");

		has_complete |= strcmp(a, "complete_stage") == 0;
		has_init |= strcmp(a, "init") == 0;
	}
	assert_true(has_complete);
	assert_false(has_init);	/* stage 1 is in progress */
	assert_string_equal(tc_json_get_string(tc_json_get(r, "spec_freeze"),
	    "status"), "intact");
	tc_json_free(r);
	h = tc_pypto_state_history(&o, &err);
	assert_non_null(h);
	assert_int_equal(tc_json_get(h, "rollback_history")->u.arr.len, 1);
	assert_string_equal(tc_json_get_string(tc_json_get(h,
	    "rollback_history")->u.arr.items[0], "failure_category"),
	    "stage1_material_gap");
	tc_json_free(h);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(op_dir_must_be_strictly_inside_custom,
		    setup, teardown),
		cmocka_unit_test_setup_teardown(caller_and_action_are_checked_first,
		    setup, teardown),
		cmocka_unit_test_setup_teardown(
		    init_creates_the_op_dir_and_writes_schema_2_2, setup, teardown),
		cmocka_unit_test_setup_teardown(spec_freeze_messages, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(spec_hash_is_of_utf8_text, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(errors_leave_the_file_untouched,
		    setup, teardown),
		cmocka_unit_test_setup_teardown(
		    stage5_rollback_is_refused_unless_allowed, setup, teardown),
		cmocka_unit_test_setup_teardown(
		    lint_gate_blocks_on_s0_s1_findings_and_exit_codes, setup,
		    teardown),
		cmocka_unit_test(gate_parser_rules),
		cmocka_unit_test_setup_teardown(
		    show_lists_legal_actions_and_history_prints_rollbacks, setup,
		    teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
