/*
 * fuzz_dispatch_task.c - libFuzzer target for phase tasks: the staleness
 * check of a dispatch task against its session (docs/spec/controller.md
 * "Task staleness", tc_dispatch_task_check) and execute-phase's task check
 * against the shipped phase manifest of the step (tc_phase_check_task,
 * docs/spec/controller.md "Execute-phase"), on a fixed session whose first step
 * is sealed.
 *
 * Input: a task document, checked twice: as it is, and as an RFC 7386
 * merge patch over the session's current task (so small edits of a task
 * whose fingerprint only exists at run time are explored too).
 *
 * Invariants: the current task passes both checks; an empty patch changes
 * nothing; a task that passes the staleness check equals the current one
 * in every compared field, so re-checking the returned task passes.
 */
#include "fuzz_common.h"
#include "tunectl/phase.h"
#include "tunectl/session.h"
#include "../unit/test_session_fixture.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char *dsp_root;
static char *dsp_session;
static char *dsp_task_path;
static tc_json *dsp_current;
static tc_phase_manifest *dsp_manifest;

static void
dsp_init(void)
{
	tc_error err = TC_ERROR_INIT;
	tc_session *s;
	tc_json *doc, *r, *phase;
	char *mpath, *tools;

	dsp_root = fz_mkroot("dispatch");
	dsp_session = tc_xasprintf("%s/auto-tune-session.json", dsp_root);
	dsp_task_path = tc_xasprintf("%s/task.json", dsp_root);
	doc = tc_session_init(dsp_session, dsp_root, "session-20260905-a",
	    "none", &err);
	FZ_REQUIRE(doc != NULL);
	tc_json_free(doc);
	FZ_REQUIRE(tc_session_load(dsp_session, 0, &s, &err) == 0);
	r = fx_result(tc_session_next_step(s, NULL), "succeeded");
	tc_session_free(s);
	FZ_REQUIRE(tc_seal_handoff(dsp_session, r, 0, NULL, &err) == 0);
	tc_json_free(r);
	dsp_current = tc_dispatch_task_for(dsp_session, NULL, &err);
	FZ_REQUIRE(dsp_current != NULL);
	phase = tc_json_get(tc_json_get(dsp_current, "step"), "phase");
	mpath = tc_xasprintf("%s/share/phases/%s/phase.json", fz_src(),
	    tc_json_string(phase));
	tools = tc_xasprintf("%s/share/tools", fz_src());
	if (tc_phase_manifest_load(mpath, tools, &dsp_manifest, &err) != 0) {
		fprintf(stderr, "fuzz_dispatch_task: %s\n", tc_error_msg(&err));
		abort();
	}
	free(mpath);
	free(tools);
}

/* Check one task both ways; returns the staleness check's status. */
static int
dsp_check(const tc_json *task)
{
	tc_error err = TC_ERROR_INIT;
	tc_json *current = NULL;
	int rc, prc;

	rc = fz_status(tc_dispatch_task_check(task, dsp_session, NULL,
	    &current, &err), &err);
	if (rc == 0) {
		FZ_REQUIRE(current != NULL);
		FZ_REQUIRE(tc_dispatch_task_check(current, dsp_session, NULL,
		    NULL, &err) == 0);
		tc_json_free(current);
	} else {
		FZ_REQUIRE(current == NULL);
	}
	if (!fz_write_json(dsp_root, "task.json", task))
		return rc;
	prc = fz_status(tc_phase_check_task(dsp_task_path, dsp_manifest,
	    &current, &err), &err);
	if (prc == 0) {
		tc_json *plan = tc_phase_plan(dsp_manifest, current);

		FZ_REQUIRE(plan != NULL);
		tc_json_free(plan);
		tc_json_free(current);
	}
	return rc;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	tc_json *task, *patched;

	if (dsp_root == NULL) {
		dsp_init();
		FZ_REQUIRE(dsp_check(dsp_current) == 0);
	}
	if ((task = fz_parse((const char *)data, size)) == NULL) {
		/* unparsable task files are refused by the phase check */
		tc_error err = TC_ERROR_INIT;
		tc_json *current = NULL;

		fz_write(dsp_root, "task.json", data, size);
		FZ_REQUIRE(fz_status(tc_phase_check_task(dsp_task_path,
		    dsp_manifest, &current, &err), &err) != 0);
		return 0;
	}
	(void)dsp_check(task);
	patched = fz_merge_patch(dsp_current, task);
	if (tc_json_is(task, TC_JSON_OBJECT) && task->u.obj.len == 0)
		FZ_REQUIRE(dsp_check(patched) == 0);
	else
		(void)dsp_check(patched);
	tc_json_free(patched);
	tc_json_free(task);
	return 0;
}
