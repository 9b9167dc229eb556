/*
 * test_pypto_state.c - the pure PyPTO-Pro state transition (schema 2.2):
 * every action's preconditions with the reference's exact messages, the
 * effects, normalisation and the JavaScript coercions the messages show.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "tunectl/pypto_state.h"

#define NOW "2026-01-01T00:00:00.000Z"

static tc_json *
parse(const char *text)
{
	tc_error err = TC_ERROR_INIT;
	tc_json *v = tc_json_parse(text, strlen(text), &err);

	if (v == NULL)
		fail_msg("bad fixture: %s", tc_error_msg(&err));
	return v;
}

/* A state with the given stage_status values, current stage and extra
 * members (a JSON fragment starting with ',' or ""). */
static tc_json *
state(int current, const char *s1, const char *s2, const char *s3,
    const char *s4, const char *s5, const char *extra)
{
	char buf[4096];

	snprintf(buf, sizeof(buf), "{\"operator_name\": \"demo\", "
	    "\"schema_version\": \"2.2\", \"max_stage\": 5, \"current_stage\": %d, "
	    "\"stage_status\": {\"1\": \"%s\", \"2\": \"%s\", \"3\": \"%s\", "
	    "\"4\": \"%s\", \"5\": \"%s\"}, \"stage_retry_count\": {\"1\": 0, "
	    "\"2\": 0, \"3\": 0, \"4\": 0, \"5\": 0}%s}", current, s1, s2, s3,
	    s4, s5, extra);
	return parse(buf);
}

/* Apply and expect an error with exactly msg. */
static void
expect_error(const tc_json *prev, tc_pypto_input *in, const char *msg)
{
	tc_error err = TC_ERROR_INIT;
	tc_json *next = tc_pypto_state_apply(prev, in, NOW, &err);

	if (next != NULL) {
		tc_json_free(next);
		fail_msg("action %s succeeded; expected: %s", in->action, msg);
	}
	assert_string_equal(tc_error_msg(&err), msg);
	tc_error_clear(&err);
}

static tc_json *
expect_ok(const tc_json *prev, tc_pypto_input *in)
{
	tc_error err = TC_ERROR_INIT;
	tc_json *next = tc_pypto_state_apply(prev, in, NOW, &err);

	if (next == NULL)
		fail_msg("action %s failed: %s", in->action, tc_error_msg(&err));
	assert_string_equal(tc_json_get_string(next, "last_updated"), NOW);
	return next;
}

static const char *
status_of(const tc_json *s, const char *stage)
{
	return tc_json_get_string(tc_json_get(s, "stage_status"), stage);
}

static int64_t
int_at(const tc_json *s, const char *ptr)
{
	tc_error err = TC_ERROR_INIT;
	int64_t v = -999;

	assert_true(tc_json_int64(tc_json_pointer(s, ptr, &err), &v));
	return v;
}

/* ---- init ------------------------------------------------------------------ */

static void
init_sets_stage1_in_progress_and_clears_residue(void **st)
{
	tc_json *prev = state(3, "completed", "completed", "failed", "pending",
	    "pending", ", \"artifact_hashes\": {\"spec_md\": \"x\"}, "
	    "\"rollback_history\": [], \"stage4_path\": \"L0\", "
	    "\"stage4_modules\": {}, \"custom\": 7");
	tc_pypto_input in = TC_PYPTO_INPUT_INIT;
	tc_json *next;

	(void)st;
	in.action = "init";
	next = expect_ok(prev, &in);
	assert_int_equal(int_at(next, "/current_stage"), 1);
	assert_string_equal(status_of(next, "1"), "in_progress");
	assert_string_equal(status_of(next, "3"), "failed");
	assert_null(tc_json_get(next, "artifact_hashes"));
	assert_null(tc_json_get(next, "rollback_history"));
	assert_null(tc_json_get(next, "stage4_path"));
	assert_null(tc_json_get(next, "stage4_modules"));
	assert_int_equal(int_at(next, "/custom"), 7);
	tc_json_free(next);
	tc_json_free(prev);
}

static void
init_refuses_other_stage_and_in_progress(void **st)
{
	tc_json *prev = state(1, "pending", "pending", "pending", "pending",
	    "pending", "");
	tc_json *busy = parse("{\"max_stage\": 5, \"current_stage\": 1, "
	    "\"stage_status\": {\"9\": \"in_progress\"}}");
	tc_pypto_input in = TC_PYPTO_INPUT_INIT;

	(void)st;
	in.action = "init";
	in.stage = "2";
	expect_error(prev, &in, "init action must target stage 1, got stage 2");
	in.stage = "0";
	expect_error(prev, &in, "invalid stage: 0 (must be 1..5)");
	/* "in the file as found": a pruned key still blocks init */
	in.stage = NULL;
	expect_error(busy, &in, "cannot init: a stage is already in_progress");
	tc_json_free(prev);
	tc_json_free(busy);
}

/* ---- stage coercion ------------------------------------------------------------- */

static void
stage_numbers_are_coerced_like_javascript(void **st)
{
	tc_json *prev = state(1, "in_progress", "pending", "pending", "pending",
	    "pending", "");
	tc_pypto_input in = TC_PYPTO_INPUT_INIT;
	tc_json *next;

	(void)st;
	in.action = "complete_stage";
	expect_error(prev, &in, "invalid stage: NaN (must be 1..5)");
	in.stage = "abc";
	expect_error(prev, &in, "invalid stage: NaN (must be 1..5)");
	in.stage = "6";
	expect_error(prev, &in, "invalid stage: 6 (must be 1..5)");
	in.stage = "0.5";
	expect_error(prev, &in, "invalid stage: 0.5 (must be 1..5)");
	in.stage = "1e3";
	expect_error(prev, &in, "invalid stage: 1000 (must be 1..5)");
	in.stage = "Infinity";
	expect_error(prev, &in, "invalid stage: Infinity (must be 1..5)");
	in.stage = " 1.9 ";	/* trimmed, then floored */
	next = expect_ok(prev, &in);
	assert_string_equal(status_of(next, "1"), "completed");
	tc_json_free(next);
	tc_json_free(prev);
}

/* ---- start_stage -------------------------------------------------------------------- */

static void
start_stage_preconditions(void **st)
{
	tc_json *busy = state(2, "completed", "in_progress", "pending",
	    "pending", "pending", "");
	tc_json *done = state(2, "completed", "completed", "pending", "pending",
	    "pending", "");
	tc_json *gap = state(1, "failed", "pending", "pending", "pending",
	    "pending", "");
	tc_pypto_input in = TC_PYPTO_INPUT_INIT;
	tc_json *next;

	(void)st;
	in.action = "start_stage";
	in.stage = "3";
	expect_error(busy, &in, "cannot start stage 3: another stage is already "
	    "in_progress");
	in.stage = "2";
	expect_error(done, &in, "cannot start stage 2: already completed");
	expect_error(gap, &in, "cannot start stage 2: previous stage 1 is "
	    "\"failed\", not \"completed\"");
	/* restarting the stage that is itself in progress is allowed */
	next = expect_ok(busy, &in);
	assert_int_equal(int_at(next, "/current_stage"), 2);
	tc_json_free(next);
	/* a failed stage restarts without touching its retry count */
	in.stage = "1";
	next = expect_ok(gap, &in);
	assert_string_equal(status_of(next, "1"), "in_progress");
	assert_int_equal(int_at(next, "/stage_retry_count/1"), 0);
	tc_json_free(next);
	tc_json_free(busy);
	tc_json_free(done);
	tc_json_free(gap);
}

static void
start_stage_previous_unknown_prints_unknown(void **st)
{
	tc_json *prev = parse("{\"max_stage\": 5, \"current_stage\": 1, "
	    "\"stage_status\": {\"1\": null}}");
	tc_pypto_input in = TC_PYPTO_INPUT_INIT;

	(void)st;
	in.action = "start_stage";
	in.stage = "2";
	expect_error(prev, &in, "cannot start stage 2: previous stage 1 is "
	    "\"unknown\", not \"completed\"");
	tc_json_free(prev);
}

/* ---- complete_stage ----------------------------------------------------------------- */

static void
complete_stage_preconditions_and_auto_advance(void **st)
{
	tc_json *prev = state(2, "completed", "in_progress", "pending",
	    "pending", "pending", "");
	tc_json *failed = state(2, "completed", "failed", "pending", "pending",
	    "pending", "");
	tc_json *s5 = state(5, "completed", "completed", "completed",
	    "completed", "in_progress", "");
	tc_pypto_input in = TC_PYPTO_INPUT_INIT;
	tc_json *next;

	(void)st;
	in.action = "complete_stage";
	in.stage = "3";
	expect_error(prev, &in, "cannot complete stage 3: current_stage is 2");
	in.stage = "2";
	expect_error(failed, &in, "cannot complete stage 2: status is \"failed\", "
	    "not \"in_progress\"");
	next = expect_ok(prev, &in);
	assert_string_equal(status_of(next, "2"), "completed");
	assert_string_equal(status_of(next, "3"), "in_progress");
	assert_int_equal(int_at(next, "/current_stage"), 3);
	assert_int_equal(int_at(next, "/stage_retry_count/2"), 0);
	tc_json_free(next);
	in.stage = "5";
	next = expect_ok(s5, &in);
	assert_string_equal(status_of(next, "5"), "completed");
	assert_int_equal(int_at(next, "/current_stage"), 5);
	tc_json_free(next);
	tc_json_free(prev);
	tc_json_free(failed);
	tc_json_free(s5);
}

static void
complete_stage_compares_current_stage_strictly(void **st)
{
	tc_json *prev = parse("{\"max_stage\": 5, \"current_stage\": \"2\", "
	    "\"stage_status\": {\"2\": \"in_progress\"}}");
	tc_json *none = parse("{\"max_stage\": 5, \"stage_status\": {}}");
	tc_pypto_input in = TC_PYPTO_INPUT_INIT;

	(void)st;
	in.action = "complete_stage";
	in.stage = "2";
	expect_error(prev, &in, "cannot complete stage 2: current_stage is 2");
	expect_error(none, &in, "cannot complete stage 2: current_stage is "
	    "undefined");
	tc_json_free(prev);
	tc_json_free(none);
}

static void
complete_stage4_l1_needs_every_module_verified(void **st)
{
	tc_json *absent = state(4, "completed", "completed", "completed",
	    "in_progress", "pending", ", \"stage4_path\": \"L1\"");
	tc_json *nan = state(4, "completed", "completed", "completed",
	    "in_progress", "pending", ", \"stage4_path\": \"L1\", "
	    "\"stage4_modules\": {\"module_count\": \"many\", "
	    "\"module_status\": {\"1\": \"verified\"}}");
	tc_json *open = state(4, "completed", "completed", "completed",
	    "in_progress", "pending", ", \"stage4_path\": \"L1\", "
	    "\"stage4_modules\": {\"module_count\": 2, "
	    "\"module_status\": {\"1\": \"verified\", \"2\": \"in_debug\"}}");
	tc_json *ok = state(4, "completed", "completed", "completed",
	    "in_progress", "pending", ", \"stage4_path\": \"L1\", "
	    "\"stage4_modules\": {\"module_count\": 2, "
	    "\"module_status\": {\"1\": \"verified\", \"2\": \"verified\"}}");
	tc_pypto_input in = TC_PYPTO_INPUT_INIT;
	const char *empty = "cannot complete Stage 4 on the L1 path: "
	    "stage4_modules is absent or empty, so no module was ever verified. "
	    "Call plan_stage4 with module_count >= 1 first.";
	tc_json *next;

	(void)st;
	in.action = "complete_stage";
	in.stage = "4";
	expect_error(absent, &in, empty);
	expect_error(nan, &in, empty);
	expect_error(open, &in, "cannot complete_stage(4): module 2 status is "
	    "\"in_debug\", not \"verified\"");
	next = expect_ok(ok, &in);
	assert_string_equal(status_of(next, "5"), "in_progress");
	assert_int_equal(int_at(next, "/current_stage"), 5);
	tc_json_free(next);
	tc_json_free(absent);
	tc_json_free(nan);
	tc_json_free(open);
	tc_json_free(ok);
}

/* ---- fail_stage ---------------------------------------------------------------------- */

static void
fail_stage_preconditions_and_retry_count(void **st)
{
	tc_json *prev = state(4, "completed", "completed", "completed",
	    "in_progress", "pending", "");
	tc_json *odd = parse("{\"max_stage\": 5, \"current_stage\": 4, "
	    "\"stage_status\": {\"4\": \"in_progress\"}, "
	    "\"stage_retry_count\": {\"4\": \"x\"}}");
	tc_json *pend = state(4, "completed", "completed", "completed",
	    "pending", "pending", "");
	tc_pypto_input in = TC_PYPTO_INPUT_INIT;
	tc_json *next;

	(void)st;
	in.action = "fail_stage";
	in.stage = "3";
	expect_error(prev, &in, "cannot fail_stage 3: current_stage is 4");
	in.stage = "4";
	expect_error(pend, &in, "cannot fail_stage 4: status is \"pending\", "
	    "not \"in_progress\"");
	next = expect_ok(prev, &in);
	assert_string_equal(status_of(next, "4"), "failed");
	assert_int_equal(int_at(next, "/stage_retry_count/4"), 1);
	tc_json_free(next);
	/* (Number(x) || 0) + 1 */
	next = expect_ok(odd, &in);
	assert_int_equal(int_at(next, "/stage_retry_count/4"), 1);
	tc_json_free(next);
	tc_json_free(prev);
	tc_json_free(odd);
	tc_json_free(pend);
}

/* ---- record_artifact_hash -------------------------------------------------------------- */

static void
record_artifact_hash_needs_name_and_hash(void **st)
{
	tc_json *prev = state(1, "in_progress", "pending", "pending", "pending",
	    "pending", "");
	tc_pypto_input in = TC_PYPTO_INPUT_INIT;
	tc_json *next;

	(void)st;
	in.action = "record_artifact_hash";
	expect_error(prev, &in, "record_artifact_hash requires name");
	in.name = "golden_py";
	in.hash = "";
	expect_error(prev, &in, "record_artifact_hash requires hash");
	in.hash = "abc";
	next = expect_ok(prev, &in);
	assert_string_equal(tc_json_get_string(tc_json_get(next,
	    "artifact_hashes"), "golden_py"), "abc");
	tc_json_free(next);
	tc_json_free(prev);
}

/* ---- rollback_to_stage ------------------------------------------------------------------- */

static void
rollback_preconditions(void **st)
{
	tc_json *prev = state(3, "completed", "completed", "in_progress",
	    "pending", "pending", "");
	tc_pypto_input in = TC_PYPTO_INPUT_INIT;

	(void)st;
	in.action = "rollback_to_stage";
	in.reason = "design broken";
	expect_error(prev, &in, "invalid stage: NaN (must be 1..5)");
	in.target_stage = "3";
	expect_error(prev, &in, "rollback target stage 3 must be strictly less "
	    "than current_stage 3");
	in.target_stage = "2";
	in.reason = " \t\xe3\x80\x80";	/* JS trim() removes U+3000 too */
	expect_error(prev, &in, "rollback_to_stage requires a non-empty reason");
	in.reason = NULL;
	expect_error(prev, &in, "rollback_to_stage requires a non-empty reason");
	tc_json_free(prev);
}

static void
rollback_resets_later_stages_hashes_and_stage4(void **st)
{
	tc_json *prev = state(4, "completed", "completed", "completed",
	    "in_progress", "pending", ", \"artifact_hashes\": {\"spec_md\": "
	    "\"s\", \"golden_py\": \"g\", \"design_md\": \"d\", \"other\": \"o\"}, "
	    "\"stage4_path\": \"L1\", \"stage4_modules\": {\"module_count\": 1}");
	tc_pypto_input in = TC_PYPTO_INPUT_INIT;
	const tc_json *h, *e;
	tc_json *next;

	(void)st;
	in.action = "rollback_to_stage";
	in.target_stage = "2";
	in.reason = "golden wrong";
	in.failure_category = "golden_failure";
	next = expect_ok(prev, &in);
	assert_int_equal(int_at(next, "/current_stage"), 2);
	assert_string_equal(status_of(next, "2"), "in_progress");
	assert_string_equal(status_of(next, "3"), "pending");
	assert_string_equal(status_of(next, "4"), "pending");
	assert_string_equal(status_of(next, "1"), "completed");
	assert_int_equal(int_at(next, "/stage_retry_count/2"), 1);
	h = tc_json_get(next, "artifact_hashes");
	assert_non_null(tc_json_get(h, "spec_md"));
	assert_non_null(tc_json_get(h, "golden_py"));	/* owned by stage 2 */
	assert_null(tc_json_get(h, "design_md"));	/* owned by stage 3 */
	assert_non_null(tc_json_get(h, "other"));
	assert_null(tc_json_get(next, "stage4_path"));
	assert_null(tc_json_get(next, "stage4_modules"));
	h = tc_json_get(next, "rollback_history");
	assert_int_equal(h->u.arr.len, 1);
	e = h->u.arr.items[0];
	assert_int_equal(int_at(e, "/from_stage"), 4);
	assert_int_equal(int_at(e, "/to_stage"), 2);
	assert_string_equal(tc_json_get_string(e, "reason"), "golden wrong");
	assert_string_equal(tc_json_get_string(e, "failure_category"),
	    "golden_failure");
	assert_string_equal(tc_json_get_string(e, "timestamp"), NOW);
	tc_json_free(next);
	/* target 4 keeps the Stage 4 path; no failure_category key when absent */
	tc_json_free(prev);
	prev = state(5, "completed", "completed", "completed", "completed",
	    "in_progress", ", \"stage4_path\": \"L0\", \"rollback_history\": "
	    "[{\"from_stage\": 4, \"to_stage\": 3}]");
	in.target_stage = "4";
	in.failure_category = NULL;
	next = expect_ok(prev, &in);
	assert_string_equal(tc_json_get_string(next, "stage4_path"), "L0");
	h = tc_json_get(next, "rollback_history");
	assert_int_equal(h->u.arr.len, 2);
	assert_null(tc_json_get(h->u.arr.items[1], "failure_category"));
	tc_json_free(next);
	tc_json_free(prev);
}

/* ---- plan_stage4 and the module actions ----------------------------------------------------- */

static void
plan_stage4_preconditions_and_effects(void **st)
{
	tc_json *s3 = state(3, "completed", "completed", "in_progress",
	    "pending", "pending", "");
	tc_json *s4 = state(4, "completed", "completed", "completed",
	    "in_progress", "pending", ", \"stage4_modules\": {\"x\": 1}");
	tc_pypto_input in = TC_PYPTO_INPUT_INIT;
	tc_json *next;

	(void)st;
	in.action = "plan_stage4";
	expect_error(s3, &in, "plan_stage4 requires current_stage==4, got 3");
	in.is_fusion = 1;
	expect_error(s4, &in, "plan_stage4 with is_fusion=true requires "
	    "module_count >= 1, got 0");
	in.module_count = "x";
	expect_error(s4, &in, "plan_stage4 with is_fusion=true requires "
	    "module_count >= 1, got NaN");
	in.module_count = "3";
	next = expect_ok(s4, &in);
	assert_string_equal(tc_json_get_string(next, "stage4_path"), "L1");
	assert_int_equal(int_at(next, "/stage4_modules/module_count"), 3);
	assert_int_equal(int_at(next, "/stage4_modules/max_cycles_per_module"),
	    10);
	assert_string_equal(tc_json_get_string(tc_json_pointer(next,
	    "/stage4_modules/module_status", NULL), "3"), "pending");
	assert_int_equal(int_at(next, "/stage4_modules/module_retry_count/2"), 0);
	assert_int_equal(tc_json_pointer(next, "/stage4_modules/modules_verified",
	    NULL)->u.arr.len, 0);
	assert_null(tc_json_pointer(next, "/stage4_modules/active_module", NULL));
	tc_json_free(next);
	in.is_fusion = 0;
	next = expect_ok(s4, &in);
	assert_string_equal(tc_json_get_string(next, "stage4_path"), "L0");
	assert_null(tc_json_get(next, "stage4_modules"));
	tc_json_free(next);
	tc_json_free(s3);
	tc_json_free(s4);
}

static tc_json *
l1(const char *m1, const char *m2, int retry1)
{
	char extra[512];

	snprintf(extra, sizeof(extra), ", \"stage4_path\": \"L1\", "
	    "\"stage4_modules\": {\"module_count\": 2, \"max_cycles_per_module\": "
	    "10, \"module_status\": {\"1\": \"%s\", \"2\": \"%s\"}, "
	    "\"module_retry_count\": {\"1\": %d, \"2\": 0}, "
	    "\"modules_verified\": []}", m1, m2, retry1);
	return state(4, "completed", "completed", "completed", "in_progress",
	    "pending", extra);
}

static void
module_actions_need_l1(void **st)
{
	tc_json *l0 = state(4, "completed", "completed", "completed",
	    "in_progress", "pending", ", \"stage4_path\": \"L0\"");
	tc_json *unset = state(4, "completed", "completed", "completed",
	    "in_progress", "pending", "");
	tc_json *nomods = state(4, "completed", "completed", "completed",
	    "in_progress", "pending", ", \"stage4_path\": \"L1\"");
	static const char *const actions[] = { "start_module",
	    "submit_for_verify", "complete_module", "fail_module", NULL };
	tc_pypto_input in = TC_PYPTO_INPUT_INIT;
	size_t i;

	(void)st;
	in.module = "1";
	for (i = 0; actions[i] != NULL; i++) {
		in.action = actions[i];
		expect_error(l0, &in, "Module action requires stage4_path==\"L1\", "
		    "but stage4_path is \"L0\"");
		expect_error(unset, &in, "Module action requires "
		    "stage4_path==\"L1\", but stage4_path is \"unset\"");
		expect_error(nomods, &in, "Module action requires stage4_modules "
		    "to be initialized (call plan_stage4 first)");
	}
	tc_json_free(l0);
	tc_json_free(unset);
	tc_json_free(nomods);
}

static void
start_module_preconditions_and_suffix(void **st)
{
	tc_json *prev = l1("pending", "in_progress", 0);
	tc_json *blocked = l1("blocked", "pending", 10);
	tc_pypto_input in = TC_PYPTO_INPUT_INIT;
	tc_json *next;

	(void)st;
	in.action = "start_module";
	in.module = "3";
	expect_error(prev, &in, "start_module: invalid module \"3\" (must be "
	    "1..2)");
	in.module = "zero";
	expect_error(prev, &in, "start_module: invalid module \"zero\" (must be "
	    "1..2)");
	in.module = "2";
	expect_error(prev, &in, "start_module(2): status is \"in_progress\", "
	    "must be \"pending\" or \"blocked\"");
	next = expect_ok(blocked, &in);	/* module 2 pending */
	assert_string_equal(tc_json_get_string(tc_json_get(next,
	    "stage4_modules"), "active_module"), "12");
	tc_json_free(next);
	/* a blocked module restarts and keeps its counter */
	in.module = "1";
	next = expect_ok(blocked, &in);
	assert_int_equal(int_at(next, "/stage4_modules/module_retry_count/1"), 10);
	assert_string_equal(tc_json_get_string(tc_json_get(next,
	    "stage4_modules"), "active_module"), "1");
	tc_json_free(next);
	tc_json_free(prev);
	tc_json_free(blocked);
}

static void
submit_and_complete_module(void **st)
{
	tc_json *prev = l1("in_debug", "pending", 1);
	tc_pypto_input in = TC_PYPTO_INPUT_INIT;
	tc_json *next, *again;

	(void)st;
	in.action = "submit_for_verify";
	in.module = "2";
	expect_error(prev, &in, "submit_for_verify(2): status is \"pending\", "
	    "must be \"in_progress\" or \"in_debug\"");
	in.module = "1";
	next = expect_ok(prev, &in);
	assert_string_equal(tc_json_get_string(tc_json_pointer(next,
	    "/stage4_modules/module_status", NULL), "1"), "awaiting_verify");
	in.action = "complete_module";
	in.module = "2";
	expect_error(next, &in, "complete_module(2): status is \"pending\", must "
	    "be an active state");
	in.module = "1";
	again = expect_ok(next, &in);
	assert_string_equal(tc_json_get_string(tc_json_pointer(again,
	    "/stage4_modules/module_status", NULL), "1"), "verified");
	assert_string_equal(tc_json_string(tc_json_pointer(again,
	    "/stage4_modules/modules_verified/0", NULL)), "1");
	assert_null(tc_json_pointer(again, "/stage4_modules/active_module", NULL));
	tc_json_free(again);
	tc_json_free(next);
	tc_json_free(prev);
}

static void
fail_module_counts_and_blocks_at_the_cap(void **st)
{
	tc_json *prev = l1("awaiting_verify", "verified", 8);
	tc_pypto_input in = TC_PYPTO_INPUT_INIT;
	tc_json *once, *twice;

	(void)st;
	in.action = "fail_module";
	in.module = "2";
	in.failure_category = "precision_failure";
	expect_error(prev, &in, "fail_module(2): module is already \"verified\", "
	    "cannot fail");
	in.module = "1";
	once = expect_ok(prev, &in);
	assert_int_equal(int_at(once, "/stage4_modules/module_retry_count/1"), 9);
	assert_string_equal(tc_json_get_string(tc_json_pointer(once,
	    "/stage4_modules/module_status", NULL), "1"), "in_debug");
	twice = expect_ok(once, &in);
	assert_int_equal(int_at(twice, "/stage4_modules/module_retry_count/1"), 10);
	assert_string_equal(tc_json_get_string(tc_json_pointer(twice,
	    "/stage4_modules/module_status", NULL), "1"), "blocked");
	tc_json_free(once);
	tc_json_free(twice);
	tc_json_free(prev);
}

/* ---- normalisation and the workflow guard ------------------------------------------------------- */

static void
normalisation_merges_defaults_and_drops_bad_keys(void **st)
{
	tc_json *prev = parse("{\"max_stage\": 5, \"current_stage\": 1, "
	    "\"stage_status\": {\"1\": \"in_progress\", \"0\": \"x\", \"6\": "
	    "\"x\", \"a\": \"x\"}, \"stage_retry_count\": [0, 4]}");
	tc_pypto_input in = TC_PYPTO_INPUT_INIT;
	const tc_json *ss;
	tc_json *next;

	(void)st;
	in.action = "record_artifact_hash";
	in.name = "n";
	in.hash = "h";
	next = expect_ok(prev, &in);
	ss = tc_json_get(next, "stage_status");
	assert_int_equal(ss->u.obj.len, 5);
	assert_string_equal(status_of(next, "1"), "in_progress");
	assert_string_equal(status_of(next, "5"), "pending");
	/* an array spreads by index: [0, 4] -> {"0": 0, "1": 4} */
	assert_int_equal(int_at(next, "/stage_retry_count/1"), 4);
	assert_int_equal(int_at(next, "/stage_retry_count/5"), 0);
	assert_int_equal(tc_json_get(next, "stage_retry_count")->u.obj.len, 5);
	tc_json_free(next);
	tc_json_free(prev);
}

static void
max_stage_must_be_five(void **st)
{
	tc_json *four = parse("{\"max_stage\": 4, \"current_stage\": 1}");
	tc_json *absent = parse("{\"current_stage\": 1}");
	tc_json *text = parse("{\"max_stage\": \"5\", \"current_stage\": 1}");
	tc_pypto_input in = TC_PYPTO_INPUT_INIT;

	(void)st;
	in.action = "init";
	expect_error(four, &in, "invalid workflow state: max_stage must be 5, "
	    "got 4");
	expect_error(absent, &in, "invalid workflow state: max_stage must be 5, "
	    "got undefined");
	expect_error(text, &in, "invalid workflow state: max_stage must be 5, "
	    "got 5");
	tc_json_free(four);
	tc_json_free(absent);
	tc_json_free(text);
}

static void
unknown_action_is_unsupported(void **st)
{
	tc_json *prev = state(1, "pending", "pending", "pending", "pending",
	    "pending", "");
	tc_pypto_input in = TC_PYPTO_INPUT_INIT;

	(void)st;
	in.action = "teleport";
	expect_error(prev, &in, "unsupported action: teleport");
	assert_false(tc_pypto_action_known("teleport"));
	assert_true(tc_pypto_action_known("fail_module"));
	tc_json_free(prev);
}

static void
initial_state_and_stage5_entry(void **st)
{
	tc_json *s = tc_pypto_state_initial("op", NOW);
	tc_json *s5 = state(4, "completed", "completed", "completed",
	    "completed", "failed", "");

	(void)st;
	assert_string_equal(tc_json_get_string(s, "schema_version"), "2.2");
	assert_int_equal(int_at(s, "/max_stage"), 5);
	assert_int_equal(tc_json_get(s, "rollback_history")->u.arr.len, 0);
	assert_false(tc_pypto_stage5_entered(s));
	assert_true(tc_pypto_stage5_entered(s5));
	tc_json_free(s);
	tc_json_free(s5);
}

static void
prev_is_never_modified(void **st)
{
	tc_json *prev = state(3, "completed", "completed", "in_progress",
	    "pending", "pending", "");
	tc_json *copy = tc_json_clone(prev);
	tc_pypto_input in = TC_PYPTO_INPUT_INIT;
	tc_json *next;

	(void)st;
	in.action = "rollback_to_stage";
	in.target_stage = "1";
	in.reason = "r";
	next = expect_ok(prev, &in);
	assert_true(tc_json_equal(prev, copy));
	tc_json_free(next);
	tc_json_free(prev);
	tc_json_free(copy);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(init_sets_stage1_in_progress_and_clears_residue),
		cmocka_unit_test(init_refuses_other_stage_and_in_progress),
		cmocka_unit_test(stage_numbers_are_coerced_like_javascript),
		cmocka_unit_test(start_stage_preconditions),
		cmocka_unit_test(start_stage_previous_unknown_prints_unknown),
		cmocka_unit_test(complete_stage_preconditions_and_auto_advance),
		cmocka_unit_test(complete_stage_compares_current_stage_strictly),
		cmocka_unit_test(complete_stage4_l1_needs_every_module_verified),
		cmocka_unit_test(fail_stage_preconditions_and_retry_count),
		cmocka_unit_test(record_artifact_hash_needs_name_and_hash),
		cmocka_unit_test(rollback_preconditions),
		cmocka_unit_test(rollback_resets_later_stages_hashes_and_stage4),
		cmocka_unit_test(plan_stage4_preconditions_and_effects),
		cmocka_unit_test(module_actions_need_l1),
		cmocka_unit_test(start_module_preconditions_and_suffix),
		cmocka_unit_test(submit_and_complete_module),
		cmocka_unit_test(fail_module_counts_and_blocks_at_the_cap),
		cmocka_unit_test(normalisation_merges_defaults_and_drops_bad_keys),
		cmocka_unit_test(max_stage_must_be_five),
		cmocka_unit_test(unknown_action_is_unsupported),
		cmocka_unit_test(initial_state_and_stage5_entry),
		cmocka_unit_test(prev_is_never_modified),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
