/*
 * orch_next.c - the one legal next step of the pipeline: which role (or
 * verifier mode) works next, derived from the state machine and the
 * orchestrator's pending sub-step (docs/spec/pypto.md "Orchestrator protocol").
 *
 * Each stage starts with its executor (planner, mathematician, architect,
 * coder, optimizer); the router (orch_route.c) then names the sub-step
 * that follows a return (the verifier, a repair, a re-check).  A
 * sub-step recorded for another stage than the current one is ignored:
 * the stage starts afresh.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pypto_internal.h"
#include "orch_internal.h"

void
tc_pypto_step_free(tc_pypto_step *s)
{
	free(s->role);
	free(s->mode);
	free(s->module);
	tc_json_free(s->feedback);
	free(s->step_id);
	memset(s, 0, sizeof(*s));
}

static const char *const stage_roles[] = {
	NULL, "planner", "mathematician", "architect", "coder", "optimizer"
};

static void
set_step(tc_pypto_step *s, int stage, const char *role, const char *mode,
    const char *module)
{
	s->stage = stage;
	s->role = tc_xstrdup(role);
	s->mode = mode != NULL ? tc_xstrdup(mode) : NULL;
	s->module = module != NULL ? tc_xstrdup(module) : NULL;
}

static const char *
status_of(const tc_json *state, int stage)
{
	char key[4];

	snprintf(key, sizeof(key), "%d", stage);
	return tc_json_get_string(tc_json_get(state, "stage_status"), key);
}

/* The L1 module loop (docs/spec/pypto.md "Orchestrator protocol" Stage 4):
 * staging goldens first, then each module coded and checked in order, then the
 * finalize delivery. */
static int
l1_step(const tc_json *state, const tc_json *orch, tc_pypto_step *s,
    const char **status, tc_json **prepare, tc_error *err)
{
	const tc_json *mods = tc_json_get(state, "stage4_modules");
	const tc_json *ms = tc_json_get(mods, "module_status");
	const tc_json *l1 = tc_json_get(orch, "l1");
	double count = tc_js_number(tc_json_get(mods, "module_count"));
	int k;

	if (!tc_json_is(ms, TC_JSON_OBJECT) || !isfinite(count) || count < 1) {
		*status = "not_started";
		tc_error_set(err, "Stage 4 (L1) has no module plan: plan_stage4 "
		    "with module_count and is_fusion true");
		return 1;
	}
	if (!tc_json_truthy(tc_json_get(l1, "staging_done"))) {
		set_step(s, 4, "mathematician", "staging", NULL);
		return 0;
	}
	for (k = 1; k <= (int)count; k++) {
		char key[16];
		const char *st;

		snprintf(key, sizeof(key), "%d", k);
		st = tc_json_get_string(ms, key);
		if (st == NULL || strcmp(st, "verified") == 0)
			continue;
		if (strcmp(st, "blocked") == 0) {
			*status = "halted";
			tc_error_set(err, "module %d is blocked after %g failed "
			    "cycles: report to the user, or rollback_to_stage(3)",
			    k, tc_js_number(tc_json_get(mods,
			    "max_cycles_per_module")));
			return 1;
		}
		if (strcmp(st, "awaiting_verify") == 0) {
			set_step(s, 4, "verifier", "module-check", key);
			return 0;
		}
		if (strcmp(st, "pending") == 0) {
			*prepare = tc_json_new_object();
			tc_json_object_set_string(*prepare, "action", "start_module");
			tc_json_object_set_string(*prepare, "module", key);
		}
		set_step(s, 4, "coder", "module", key);
		return 0;
	}
	set_step(s, 4, "coder", "finalize", NULL);
	return 0;
}

static int
stage_default(const tc_json *state, const tc_json *orch, int stage,
    tc_pypto_step *s, const char **status, tc_json **prepare, tc_error *err)
{
	const char *path = tc_json_get_string(state, "stage4_path");

	if (stage != 4) {
		set_step(s, stage, stage_roles[stage], NULL, NULL);
		return 0;
	}
	if (path == NULL) {
		*status = "not_started";
		tc_error_set(err, "Stage 4 has no plan yet: plan_stage4 from "
		    "module_interfaces.yaml (is_fusion, module_count)");
		return 1;
	}
	if (strcmp(path, "L1") == 0)
		return l1_step(state, orch, s, status, prepare, err);
	set_step(s, 4, "coder", NULL, NULL);
	return 0;
}

/* A pending sub-step read from the state names a known mode of its role
 * and a module number: it becomes part of a directory name. */
static bool
sub_step_valid(const tc_json *next)
{
	static const char *const modes[][2] = {
		{ "verifier", "stage1-check" }, { "verifier", "stage2-check" },
		{ "verifier", "stage3-check" }, { "verifier", "module-check" },
		{ "verifier", "stage4-check" }, { "verifier", "stage5-check" },
		{ "verifier", "upstream-contract-check" },
		{ "verifier", "capability_gap_check" },
		{ "mathematician", "staging" }, { "coder", "module" },
		{ "coder", "finalize" },
	};
	const char *role = tc_json_get_string(next, "role");
	const tc_json *mode = tc_json_get(next, "mode");
	const tc_json *module = tc_json_get(next, "module");
	const char *m = tc_json_string(mode), *k = tc_json_string(module);
	size_t i;

	if (!tc_pypto_role_known(role))
		return false;
	if (module != NULL && module->type != TC_JSON_NULL &&
	    (k == NULL || *k == '\0' || strlen(k) > 4 ||
	    strspn(k, "0123456789") != strlen(k)))
		return false;
	if (mode == NULL || mode->type == TC_JSON_NULL)
		return strcmp(role, "verifier") != 0;
	for (i = 0; m != NULL && i < sizeof(modes) / sizeof(modes[0]); i++)
		if (strcmp(modes[i][0], role) == 0 && strcmp(modes[i][1], m) == 0)
			return true;
	return false;
}

static void
make_step_id(tc_pypto_step *s, int64_t seq)
{
	tc_buf b = TC_BUF_INIT;

	tc_buf_printf(&b, "s%d-%03lld-%s", s->stage, (long long)seq, s->role);
	if (s->mode != NULL)
		tc_buf_printf(&b, "-%s", s->mode);
	if (s->module != NULL)
		tc_buf_printf(&b, "-%s", s->module);
	s->step_id = tc_buf_detach(&b, NULL);
}

int
tc_pypto_next_step(const tc_json *state, tc_pypto_step *s,
    const char **status, tc_json **prepare, tc_error *err)
{
	const tc_json *orch = tc_pypto_orch_get(state);
	const tc_json *halt = tc_json_get(orch, "halt");
	const tc_json *next = tc_json_get(orch, "next");
	double cur = tc_js_number(tc_json_get(state, "current_stage"));
	const char *st;
	int stage, rc;
	int64_t seq = 0, dev;

	memset(s, 0, sizeof(*s));
	*status = NULL;
	*prepare = NULL;
	if (tc_json_is(halt, TC_JSON_OBJECT)) {
		*status = "halted";
		tc_error_set(err, "the pipeline is halted (%s): %s; resolve it, "
		    "then: tunectl pypto state --op-dir DIR resume --reason ...",
		    tc_json_get_string(halt, "kind") ?
		    tc_json_get_string(halt, "kind") : "?",
		    tc_json_get_string(halt, "reason") ?
		    tc_json_get_string(halt, "reason") : "?");
		return 1;
	}
	if (!isfinite(cur) || cur != floor(cur) || cur < 1 || cur > 5) {
		*status = "not_started";
		tc_error_set(err, "invalid current_stage in the orchestrator state");
		return 1;
	}
	stage = (int)cur;
	st = status_of(state, stage);
	if (stage == 5 && st != NULL && strcmp(st, "completed") == 0) {
		*status = "completed";
		tc_error_set(err, "the pipeline is completed: Stage 5 closed on a "
		    "stage5-check PASS");
		return 1;
	}
	if (st != NULL && strcmp(st, "failed") == 0) {
		*status = "stage_failed";
		tc_error_set(err, "Stage %d failed (fail_stage): start_stage %d to "
		    "retry, or end the task", stage, stage);
		return 1;
	}
	if (st == NULL || strcmp(st, "in_progress") != 0) {
		*status = "not_started";
		tc_error_set(err, "Stage %d is %s: nothing to dispatch", stage,
		    st != NULL ? st : "unknown");
		return 1;
	}
	if (stage == 5 && tc_pypto_consent(state) == NULL) {
		const tc_json *d = tc_json_get(tc_json_get(orch, "stage5"),
		    "consent");

		if (d != NULL) {
			*status = "declined";
			tc_error_set(err, "the user declined Stage 5: functional "
			    "development is done, Stage 4 passed and its artifacts "
			    "are the deliverable");
		} else {
			*status = "awaiting_consent";
			tc_error_set(err, "Stage 5 awaits the entry confirmation: "
			    "record the user's decision with tunectl pypto state "
			    "--op-dir DIR consent --basis user_requested|"
			    "user_confirmed --statement TEXT [--case-ids A,B | "
			    "--no-questions] (or decline --reason TEXT)");
		}
		return 1;
	}
	if (tc_json_is(next, TC_JSON_OBJECT) &&
	    tc_js_number(tc_json_get(next, "stage")) == cur &&
	    sub_step_valid(next)) {
		set_step(s, stage, tc_json_get_string(next, "role"),
		    tc_json_get_string(next, "mode"),
		    tc_json_get_string(next, "module"));
		if (tc_json_is(tc_json_get(next, "feedback"), TC_JSON_OBJECT))
			s->feedback = tc_json_clone(tc_json_get(next, "feedback"));
	} else if ((rc = stage_default(state, orch, stage, s, status, prepare,
	    err)) != 0) {
		return rc;
	}
	if (tc_json_int64(tc_json_get(next, "device_id"), &dev) && dev >= 0 &&
	    tc_js_number(tc_json_get(next, "stage")) == cur)
		s->device_id = (long)dev;
	else
		s->device_id = tc_pypto_orch_device(state);
	if (s->device_id < 0) {
		tc_pypto_step_free(s);
		tc_json_free(*prepare);
		*prepare = NULL;
		*status = "halted";
		tc_error_set(err, "no healthy device is left in the pool: every "
		    "device was excluded after a hardware fault");
		return 1;
	}
	(void)tc_json_int64(tc_json_get(orch, "sequence"), &seq);
	make_step_id(s, seq + 1);
	return 0;
}
