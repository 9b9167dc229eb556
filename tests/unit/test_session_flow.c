/*
 * test_session_flow.c - the controller's library calls on real files:
 * init refusals, dispatch tasks and their staleness (docs/spec/controller.md
 * "Dispatch tasks"), seal and its refusals (docs/spec/controller.md "Sealing"),
 * verify and resume (docs/spec/controller.md "Verify", "Next and resume").
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <unistd.h>

#include <cmocka.h>

#include "test_session_fixture.h"
#include "tunectl/fileio.h"
#include "tunectl/session.h"

struct fx {
	char *dir, *root, *path;
};

static int
setup(void **state)
{
	struct fx *f = tc_xcalloc(1, sizeof(*f));
	tc_error err = TC_ERROR_INIT;
	tc_json *doc;

	f->dir = fx_tmpdir();
	f->root = tc_xasprintf("%s/artifacts", f->dir);
	f->path = tc_xasprintf("%s/auto-tune-session.json", f->root);
	doc = tc_session_init(f->path, f->root, "session-20260905-a", "none", &err);
	if (doc == NULL)
		fail_msg("init: %s", tc_error_msg(&err));
	tc_json_free(doc);
	*state = f;
	return 0;
}

static int
teardown(void **state)
{
	struct fx *f = *state;

	free(f->root);
	free(f->path);
	fx_rmtree(f->dir);
	free(f);
	return 0;
}

/* Seal the next step with status; returns 0 or the error. */
static int
seal_next(struct fx *f, const char *status, tc_error *err)
{
	tc_session *s;
	tc_json *result;
	int rc;

	if (tc_session_load(f->path, 0, &s, err) != 0)
		return -1;
	result = fx_result(tc_session_next_step(s, NULL), status);
	tc_session_free(s);
	rc = tc_seal_handoff(f->path, result, 0, NULL, err);
	tc_json_free(result);
	return rc;
}

static void
test_init_refusals(void **state)
{
	struct fx *f = *state;
	tc_error err = TC_ERROR_INIT;
	char *other = tc_xasprintf("%s/other.json", f->dir);
	char *msg;

	assert_null(tc_session_init(other, f->root, "", "none", &err));
	assert_string_equal(tc_error_msg(&err),
	    "session_id must be a non-empty canonical string");
	assert_null(tc_session_init(other, f->root, "s", "sideways", &err));
	assert_string_equal(tc_error_msg(&err), "optional_mode must be one of "
	    "['both', 'multistream', 'none', 'source-range']");
	assert_false(tc_path_exists(other));
	assert_null(tc_session_init(f->path, f->root, "s", "none", &err));
	msg = tc_xasprintf("session already exists: %s", f->path);
	assert_string_equal(tc_error_msg(&err), msg);
	free(msg);
	tc_error_clear(&err);
	free(other);
}

static void
test_fingerprint_is_the_digest_of_the_file(void **state)
{
	struct fx *f = *state;
	tc_session *s;
	tc_json *disk = tc_json_parse_file(f->path, NULL);
	char a[65], b[65];

	assert_int_equal(tc_session_load(f->path, 0, &s, NULL), 0);
	assert_int_equal(tc_session_fingerprint(s, a, NULL), 0);
	assert_int_equal(tc_json_digest(disk, b, NULL), 0);
	assert_string_equal(a, b);
	tc_session_free(s);
	tc_json_free(disk);
}

static void
test_dispatch_task_for_the_current_agent(void **state)
{
	struct fx *f = *state;
	tc_json *task = tc_dispatch_task_for(f->path, "/usr/bin/tunectl", NULL);
	const tc_json *cmd;

	assert_non_null(task);
	assert_string_equal(tc_json_get_string(task, "schema_version"),
	    "superkernel-auto-tune-phase-task-v1");
	assert_string_equal(tc_json_get_string(tc_json_get(task, "step"),
	    "agent_id"), "sk-intake-preparation");
	assert_string_equal(tc_json_get_string(tc_json_get(task, "handoff"),
	    "result_schema"), "superkernel-auto-tune-phase-result-v1");
	assert_int_equal(tc_json_get_array(task, "consumed_handoffs")->u.arr.len, 0);
	assert_null(tc_json_get(task, "evidence_import"));
	cmd = tc_json_get(tc_json_get(task, "handoff"), "seal_command");
	assert_int_equal(cmd->u.arr.len, 6);
	assert_string_equal(tc_json_string(cmd->u.arr.items[0]), "/usr/bin/tunectl");
	assert_string_equal(tc_json_string(cmd->u.arr.items[5]), "<phase-result.json>");
	tc_json_free(task);

	/* Without a program the task is the reference's, byte for byte. */
	task = tc_dispatch_task_for(f->path, NULL, NULL);
	cmd = tc_json_get(tc_json_get(task, "handoff"), "seal_command");
	assert_int_equal(cmd->u.arr.len, 7);
	assert_string_equal(tc_json_string(cmd->u.arr.items[0]), "python3");
	assert_string_equal(tc_json_string(cmd->u.arr.items[1]),
	    "scripts/auto_tune_session.py");
	tc_json_free(task);
}

static void
test_dispatch_task_goes_stale_after_seal(void **state)
{
	struct fx *f = *state;
	tc_error err = TC_ERROR_INIT;
	tc_json *task = tc_dispatch_task_for(f->path, NULL, NULL);
	tc_json *current = NULL;

	assert_int_equal(tc_dispatch_task_check(task, f->path, NULL, &current,
	    &err), 0);
	assert_true(tc_json_equal(task, current));
	tc_json_free(current);
	assert_int_equal(seal_next(f, "succeeded", &err), 0);
	assert_int_equal(tc_dispatch_task_check(task, f->path, NULL, NULL, &err),
	    -1);
	assert_string_equal(tc_error_msg(&err),
	    "stale dispatch task does not match the current session");
	tc_error_clear(&err);
	tc_json_free(task);
}

static void
test_dispatch_task_staleness_checks(void **state)
{
	struct fx *f = *state;
	tc_error err = TC_ERROR_INIT;
	tc_json *task, *not_task = fx_json("[]");

	assert_int_equal(seal_next(f, "succeeded", &err), 0);
	task = tc_dispatch_task_for(f->path, NULL, NULL);
	assert_int_equal(tc_json_get_array(task, "consumed_handoffs")->u.arr.len, 1);

	assert_int_equal(tc_dispatch_task_check(not_task, f->path, NULL, NULL,
	    &err), -1);
	assert_string_equal(tc_error_msg(&err),
	    "dispatch task schema_version is invalid");
	/* The handoff block is not compared. */
	task = fx_edit(task, "handoff", "{}");
	assert_int_equal(tc_dispatch_task_check(task, f->path, NULL, NULL, &err), 0);
	/* An explicit null evidence_import equals an absent one. */
	task = fx_edit(task, "evidence_import", "null");
	assert_int_equal(tc_dispatch_task_check(task, f->path, NULL, NULL, &err), 0);
	task = fx_edit(task, "evidence_import", NULL);
	task = fx_edit(task, "consumed_handoffs", "[]");
	assert_int_equal(tc_dispatch_task_check(task, f->path, NULL, NULL, &err), -1);
	assert_string_equal(tc_error_msg(&err),
	    "stale dispatch task handoffs do not match the current session");
	task = fx_edit(task, "step/state", "\"sealed\"");
	assert_int_equal(tc_dispatch_task_check(task, f->path, NULL, NULL, &err), -1);
	assert_string_equal(tc_error_msg(&err),
	    "stale dispatch task does not match the current session");
	task = fx_edit(task, "schema_version", "\"superkernel-auto-tune-phase-task-v0\"");
	assert_int_equal(tc_dispatch_task_check(task, f->path, NULL, NULL, &err), -1);
	assert_string_equal(tc_error_msg(&err),
	    "dispatch task schema_version is invalid");
	tc_error_clear(&err);
	tc_json_free(task);
	tc_json_free(not_task);
}

static void
test_seal_refuses_a_step_already_sealed(void **state)
{
	struct fx *f = *state;
	tc_error err = TC_ERROR_INIT;
	tc_session *s;
	tc_json *result;

	assert_int_equal(tc_session_load(f->path, 0, &s, NULL), 0);
	result = fx_result(tc_session_step_at(s, 0), "succeeded");
	tc_session_free(s);
	assert_int_equal(tc_seal_handoff(f->path, result, 0, NULL, &err), 0);
	assert_int_equal(tc_seal_handoff(f->path, result, 0, NULL, &err), -1);
	assert_string_equal(tc_error_msg(&err),
	    "current step is already sealed: intake-preparation");
	tc_error_clear(&err);
	tc_json_free(result);
}

static void
test_verify_and_resume_report_a_broken_scene(void **state)
{
	struct fx *f = *state;
	tc_error err = TC_ERROR_INIT;
	char *report = tc_xasprintf("%s/phases/intake-preparation/PHASE_REPORT.md",
	    f->root);
	tc_json *v;

	assert_int_equal(seal_next(f, "succeeded", &err), 0);
	v = tc_resume_session(f->path, NULL, &err);
	assert_non_null(v);
	assert_string_equal(tc_json_get_string(tc_json_get(v, "next_step"),
	    "step_id"), "s0-baseline");
	tc_json_free(v);
	assert_int_equal(unlink(report), 0);
	v = tc_verify_session(f->path, 0);
	assert_false(tc_json_get(v, "valid")->u.b);
	assert_string_equal(tc_json_string(tc_json_get_array(v, "errors")->u.arr.items[0]),
	    "missing phase report: intake-preparation");
	tc_json_free(v);
	assert_null(tc_resume_session(f->path, NULL, &err));
	assert_string_equal(tc_error_msg(&err),
	    "session cannot be resumed: missing phase report: intake-preparation");
	tc_error_clear(&err);
	free(report);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_init_refusals, setup, teardown),
		cmocka_unit_test_setup_teardown(test_fingerprint_is_the_digest_of_the_file, setup, teardown),
		cmocka_unit_test_setup_teardown(test_dispatch_task_for_the_current_agent, setup, teardown),
		cmocka_unit_test_setup_teardown(test_dispatch_task_goes_stale_after_seal, setup, teardown),
		cmocka_unit_test_setup_teardown(test_dispatch_task_staleness_checks, setup, teardown),
		cmocka_unit_test_setup_teardown(test_seal_refuses_a_step_already_sealed, setup, teardown),
		cmocka_unit_test_setup_teardown(test_verify_and_resume_report_a_broken_scene, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
