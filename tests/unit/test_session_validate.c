/*
 * test_session_validate.c - session validation (docs/spec/controller.md
 * "Session validation"): every check in the reference's order with its exact
 * message, the canonical-schedule check (docs/spec/controller.md
 * "Schedule validation") and what it deliberately ignores.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "test_session_fixture.h"
#include "tunectl/session.h"

struct vcase {
	const char *name;
	const char *mode;		/* NULL: "none" */
	unsigned flags;			/* tc_session_validate flags */
	int sealed;			/* seal this many leading steps first */
	const char *edits[4][2];	/* { path, json or NULL to remove } */
	const char *msg;		/* NULL: valid */
};

#define SHA64 "\"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\""

static const struct vcase cases[] = {
	{ "valid none session", NULL, 0, 0, { { NULL, NULL } }, NULL },
	{ "valid with two sealed steps", NULL, 0, 2, { { NULL, NULL } }, NULL },
	{ "not an object", NULL, 0, 0, { { "", "[]" } },
	  "session must be an object" },
	{ "wrong schema_version", NULL, 0, 0,
	  { { "schema_version", "\"superkernel-auto-tune-session-v2\"" } },
	  "unsupported session schema_version" },
	{ "missing schema_version", NULL, 0, 0, { { "schema_version", NULL } },
	  "unsupported session schema_version" },
	{ "padded session_id", NULL, 0, 0, { { "session_id", "\" s\"" } },
	  "session_id must be a non-empty canonical string" },
	{ "empty session_id", NULL, 0, 0, { { "session_id", "\"\"" } },
	  "session_id must be a non-empty canonical string" },
	{ "numeric session_id", NULL, 0, 0, { { "session_id", "7" } },
	  "session_id must be a non-empty canonical string" },
	{ "session_id ending in an ideographic space", NULL, 0, 0,
	  { { "session_id", "\"s\\u3000\"" } },
	  "session_id must be a non-empty canonical string" },
	{ "session_id with inner space is canonical", NULL, 0, 0,
	  { { "session_id", "\"a b\"" } }, NULL },
	{ "unknown optional_mode", NULL, 0, 0,
	  { { "optional_mode", "\"all\"" } }, "session optional_mode is invalid" },
	{ "missing optional_mode", NULL, 0, 0, { { "optional_mode", NULL } },
	  "session optional_mode is invalid" },
	{ "unknown entrypoint", NULL, 0, 0, { { "entrypoint", "\"partial\"" } },
	  "session entrypoint is invalid" },
	{ "null entrypoint", NULL, 0, 0, { { "entrypoint", "null" } },
	  "session entrypoint is invalid" },
	{ "absent entrypoint means full", NULL, 0, 0, { { "entrypoint", NULL } },
	  NULL },
	{ "unknown status", NULL, 0, 0, { { "status", "\"done\"" } },
	  "session status is invalid" },
	{ "empty artifact_root", NULL, 0, 0, { { "artifact_root", "\"\"" } },
	  "artifact_root must be a non-empty canonical string" },
	{ "padded artifact_root", NULL, 0, 0,
	  { { "artifact_root", "\"/tmp/x \"" } },
	  "artifact_root must be a non-empty canonical string" },
	{ "full session with evidence_import", NULL, 0, 0,
	  { { "evidence_import", "{}" } },
	  "full session must not declare evidence_import" },
	{ "empty steps", NULL, 0, 0, { { "steps", "[]" } },
	  "session steps must be a non-empty list" },
	{ "steps an object", NULL, 0, 0, { { "steps", "{}" } },
	  "session steps must be a non-empty list" },
	{ "missing steps", NULL, 0, 0, { { "steps", NULL } },
	  "session steps must be a non-empty list" },
	{ "step not an object", NULL, 0, 0, { { "steps/0", "5" } },
	  "session step must be an object" },
	{ "step without step_id", NULL, 0, 0, { { "steps/0/step_id", NULL } },
	  "step_id must be a non-empty canonical string" },
	{ "step_id with capitals", NULL, 0, 0,
	  { { "steps/0/step_id", "\"Intake\"" } },
	  "session step_id is invalid or duplicated" },
	{ "one-letter step_id", NULL, 0, 0, { { "steps/0/step_id", "\"a\"" } },
	  "session step_id is invalid or duplicated" },
	{ "65-character step_id", NULL, 0, 0,
	  { { "steps/0/step_id", "\"a1234567890123456789012345678901234567890123456789012345678901234\"" } },
	  "session step_id is invalid or duplicated" },
	{ "duplicated step_id", NULL, 0, 0,
	  { { "steps/1/step_id", "\"intake-preparation\"" } },
	  "session step_id is invalid or duplicated" },
	{ "unknown phase", NULL, 0, 0, { { "steps/0/phase", "\"intake\"" } },
	  "session step phase is invalid" },
	{ "foreign agent_id", NULL, 0, 0,
	  { { "steps/0/agent_id", "\"sk-s0-baseline\"" } },
	  "session step agent or skill is invalid" },
	{ "foreign skill", NULL, 0, 0,
	  { { "steps/0/skill", "\"superkernel-s0-baseline\"" } },
	  "session step agent or skill is invalid" },
	{ "unknown state", NULL, 0, 0, { { "steps/0/state", "\"superseded\"" } },
	  "session step state is invalid" },
	{ "sealed after pending", NULL, 0, 0,
	  { { "steps/1/state", "\"sealed\"" } },
	  "sealed step cannot follow a pending step" },
	{ "sealed without result_path", NULL, 0, 1,
	  { { "steps/0/result_path", NULL } },
	  "result_path must be a non-empty canonical string" },
	{ "sealed with absolute result_path", NULL, 0, 1,
	  { { "steps/0/result_path", "\"/etc/passwd\"" } },
	  "result_path must be a relative artifact path" },
	{ "sealed with .. in result_path", NULL, 0, 1,
	  { { "steps/0/result_path", "\"phases/../../x.json\"" } },
	  "result_path must be a relative artifact path" },
	{ "... is an ordinary name", NULL, 0, 1,
	  { { "steps/0/result_path", "\"phases/.../x.json\"" } }, NULL },
	{ "sealed without result_sha256", NULL, 0, 1,
	  { { "steps/0/result_sha256", NULL } },
	  "result_sha256 must be a non-empty canonical string" },
	{ "sealed with unknown outcome", NULL, 0, 1,
	  { { "steps/0/outcome_status", "\"ok\"" } },
	  "sealed step outcome_status is invalid" },
	{ "receipt path escaping", NULL, 0, 1,
	  { { "steps/0/dispatch_receipt_path", "\"../r.json\"" },
	    { "steps/0/dispatch_receipt_sha256", SHA64 } },
	  "dispatch_receipt_path must be a relative artifact path" },
	{ "receipt without its digest", NULL, 0, 1,
	  { { "steps/0/dispatch_receipt_path", "\"dispatches/r.json\"" } },
	  "dispatch_receipt_sha256 must be a non-empty canonical string" },
	{ "receipt bound", NULL, 0, 1,
	  { { "steps/0/dispatch_receipt_path", "\"dispatches/r.json\"" },
	    { "steps/0/dispatch_receipt_sha256", SHA64 } }, NULL },
	{ "completed with pending steps", NULL, 0, 0,
	  { { "status", "\"completed\"" } }, "completed session has pending steps" },
	{ "a step missing from the schedule", NULL, 0, 0,
	  { { "steps/6", NULL } },
	  "session steps do not match the canonical schedule" },
	{ "derived_family_rebase missing", NULL, 0, 0,
	  { { "steps/0/derived_family_rebase", NULL } },
	  "session steps do not match the canonical schedule" },
	{ "derived_family_rebase 0 equals false as in Python", NULL, 0, 0,
	  { { "steps/0/derived_family_rebase", "0" } }, NULL },
	{ "optional_branch absent reads as null", NULL, 0, 0,
	  { { "steps/0/optional_branch", NULL } }, NULL },
	{ "optional branch differing from the mode", NULL, 0, 0,
	  { { "steps/5/optional_branch", "\"multistream\"" } },
	  "session steps do not match the canonical schedule" },
	{ "steps swapped", NULL, 0, 0,
	  { { "steps/0", "{\"step_id\": \"s0-baseline\", \"phase\": \"s0_baseline\", \"agent_id\": \"sk-s0-baseline\", \"skill\": \"superkernel-s0-baseline\", \"optional_branch\": null, \"derived_family_rebase\": false, \"state\": \"pending\"}" },
	    { "steps/1", "{\"step_id\": \"intake-preparation\", \"phase\": \"intake_preparation\", \"agent_id\": \"sk-intake-preparation\", \"skill\": \"superkernel-intake-preparation\", \"optional_branch\": null, \"derived_family_rebase\": false, \"state\": \"pending\"}" } },
	  "session steps do not match the canonical schedule" },
	{ "extra step fields are ignored", NULL, 0, 0,
	  { { "steps/0/note", "\"free text\"" } }, NULL },
	{ "unknown session fields are kept and ignored", NULL, 0, 0,
	  { { "operator", "{\"name\": \"x\"}" } }, NULL },
	{ "both session without the derived BASE after accepted multistream",
	  "both", 0, 6, { { "steps/5/outcome_status", "\"accepted\"" } },
	  "session steps do not match the canonical schedule" },
	{ "source-range-from-smap with mode none", NULL,
	  TC_SESSION_NO_IMPORT, 0,
	  { { "entrypoint", "\"source-range-from-smap\"" } },
	  "source-range-from-smap requires optional_mode source-range" },
	{ "optional-from-base with mode none", NULL, TC_SESSION_NO_IMPORT, 0,
	  { { "entrypoint", "\"optional-from-base\"" } },
	  "optional-from-base requires multistream or both" },
};

static void
run_case(const struct vcase *c, const char *msg)
{
	const char *mode = c->mode != NULL ? c->mode : "none";
	tc_error err = TC_ERROR_INIT;
	tc_json *doc;
	int i, rc;

	doc = fx_session(mode, "full", "/tmp/artifacts");
	for (i = 0; i < c->sealed; i++)
		fx_mark_sealed(doc, (size_t)i, "succeeded");
	for (i = 0; i < 4 && c->edits[i][0] != NULL; i++)
		doc = fx_edit(doc, c->edits[i][0], c->edits[i][1]);
	/* Derived entrypoints are checked here without their evidence
	 * import (TC_SESSION_NO_IMPORT); test_session_import.c covers it. */
	rc = tc_session_validate(doc, c->flags, &err);
	if (msg == NULL) {
		if (rc != 0)
			fail_msg("%s: unexpected error: %s", c->name,
			    tc_error_msg(&err));
	} else {
		if (rc == 0)
			fail_msg("%s: accepted, expected: %s", c->name, msg);
		if (strcmp(tc_error_msg(&err), msg) != 0)
			fail_msg("%s: got \"%s\", expected \"%s\"", c->name,
			    tc_error_msg(&err), msg);
	}
	tc_error_clear(&err);
	tc_json_free(doc);
}

static void
test_each_check_has_the_reference_message(void **state)
{
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		run_case(&cases[i], cases[i].msg);
}

static void
test_checks_run_in_reference_order(void **state)
{
	tc_error err = TC_ERROR_INIT;
	tc_json *doc = fx_session("none", "full", "/tmp/a");

	(void)state;
	/* Both the mode and the status are wrong: the mode is checked first. */
	doc = fx_edit(doc, "optional_mode", "\"x\"");
	doc = fx_edit(doc, "status", "\"x\"");
	assert_int_equal(tc_session_validate(doc, 0, &err), -1);
	assert_string_equal(tc_error_msg(&err), "session optional_mode is invalid");
	/* The step loop runs before the completed check. */
	doc = fx_edit(doc, "optional_mode", "\"none\"");
	doc = fx_edit(doc, "status", "\"completed\"");
	doc = fx_edit(doc, "steps/3/state", "\"x\"");
	assert_int_equal(tc_session_validate(doc, 0, &err), -1);
	assert_string_equal(tc_error_msg(&err), "session step state is invalid");
	tc_error_clear(&err);
	tc_json_free(doc);
}

static void
test_completed_session_with_every_step_sealed_is_valid(void **state)
{
	tc_error err = TC_ERROR_INIT;
	tc_json *doc = fx_session("multistream", "full", "/tmp/a");
	size_t i;

	(void)state;
	for (i = 0; i < 7; i++)
		fx_mark_sealed(doc, i, "succeeded");
	doc = fx_edit(doc, "status", "\"completed\"");
	assert_int_equal(tc_session_validate(doc, 0, &err), 0);
	tc_json_free(doc);
}

static void
test_accepted_multistream_requires_the_derived_base(void **state)
{
	tc_error err = TC_ERROR_INIT;
	tc_json *doc = fx_session("both", "full", "/tmp/a");
	tc_json *steps = tc_json_get(doc, "steps");
	size_t i;

	(void)state;
	for (i = 0; i < 6; i++)
		fx_mark_sealed(doc, i, "succeeded");
	doc = fx_edit(doc, "steps/5/outcome_status", "\"accepted\"");
	tc_schedule_insert_derived_base(steps, 5);
	assert_int_equal(tc_session_validate(doc, 0, &err), 0);
	assert_string_equal(tc_json_get_string(steps->u.arr.items[6], "step_id"),
	    "base-profile-derived");
	/* no_gain: the derived BASE must not be there. */
	doc = fx_edit(doc, "steps/5/outcome_status", "\"no_gain\"");
	assert_int_equal(tc_session_validate(doc, 0, &err), -1);
	assert_string_equal(tc_error_msg(&err),
	    "session steps do not match the canonical schedule");
	tc_error_clear(&err);
	tc_json_free(doc);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_each_check_has_the_reference_message),
		cmocka_unit_test(test_checks_run_in_reference_order),
		cmocka_unit_test(test_completed_session_with_every_step_sealed_is_valid),
		cmocka_unit_test(test_accepted_multistream_requires_the_derived_base),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
