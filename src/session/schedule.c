/*
 * schedule.c - canonical schedules (docs/spec/controller.md
 * "Canonical schedules"), their validation against a session's steps
 * (docs/spec/controller.md "Schedule validation") and the derived-BASE
 * insertion of `both` (docs/spec/controller.md "Derived BASE insertion").
 */
#include <stdlib.h>
#include <string.h>

#include "session_internal.h"
#include "tunectl/evidence.h"

tc_json *
tc_step_new(const char *step_id, tc_phase_id id, const char *branch,
    bool derived_family_rebase)
{
	const tc_phase *phase = tc_phase_get(id);
	tc_json *step = tc_json_new_object();

	tc_json_object_set_string(step, "step_id", step_id);
	tc_json_object_set_string(step, "phase", phase->name);
	tc_json_object_set_string(step, "agent_id", phase->agent_id);
	tc_json_object_set_string(step, "skill", phase->skill);
	if (branch != NULL)
		tc_json_object_set_string(step, "optional_branch", branch);
	else
		tc_json_object_set_null(step, "optional_branch");
	tc_json_object_set_bool(step, "derived_family_rebase",
	    derived_family_rebase);
	tc_json_object_set_string(step, "state", "pending");
	return step;
}

static void
push(tc_json *steps, const char *step_id, tc_phase_id id, const char *branch,
    bool rebase)
{
	tc_json_array_push(steps, tc_step_new(step_id, id, branch, rebase));
}

tc_json *
tc_schedule_build(const char *mode, const char *entrypoint,
    bool multistream_accepted, tc_error *err)
{
	tc_json *steps;

	if (strcmp(entrypoint, "full") == 0) {
		steps = tc_json_new_array();
		push(steps, "intake-preparation", TC_PHASE_INTAKE, NULL, false);
		push(steps, "s0-baseline", TC_PHASE_S0, NULL, false);
		push(steps, "stage-a-scope-selection", TC_PHASE_STAGE_A, NULL,
		    false);
		push(steps, "stage-o-option-tuning", TC_PHASE_STAGE_O, NULL,
		    false);
		push(steps, "base-profile-source-mapping", TC_PHASE_BASE, NULL,
		    false);
	} else if (strcmp(entrypoint, "source-range-from-smap") == 0) {
		if (strcmp(mode, "source-range") != 0) {
			tc_error_set(err, "source-range-from-smap requires "
			    "optional_mode source-range");
			return NULL;
		}
		steps = tc_json_new_array();
		push(steps, "optional-source-range", TC_PHASE_OPTIONAL,
		    "source-range", false);
		push(steps, "final-e2e-report", TC_PHASE_FINAL, NULL, false);
		return steps;
	} else if (strcmp(entrypoint, "optional-from-base") == 0) {
		if (strcmp(mode, "multistream") != 0 &&
		    strcmp(mode, "both") != 0) {
			tc_error_set(err, "optional-from-base requires "
			    "multistream or both");
			return NULL;
		}
		steps = tc_json_new_array();
	} else {
		tc_error_set(err, "session entrypoint is invalid");
		return NULL;
	}

	if (strcmp(mode, "both") == 0) {
		push(steps, "optional-multistream", TC_PHASE_OPTIONAL,
		    "multistream", false);
		if (multistream_accepted)
			push(steps, "base-profile-derived", TC_PHASE_BASE, NULL,
			    true);
		push(steps, "optional-source-range", TC_PHASE_OPTIONAL,
		    "source-range", false);
	} else if (strcmp(entrypoint, "full") == 0) {
		push(steps, "optional-experiments", TC_PHASE_OPTIONAL, mode,
		    false);
	} else {
		push(steps, "optional-multistream", TC_PHASE_OPTIONAL,
		    "multistream", false);
	}
	push(steps, "final-e2e-report", TC_PHASE_FINAL, NULL, false);
	return steps;
}

static bool
multistream_accepted(const tc_json *steps)
{
	size_t i;

	/* The first step named optional-multistream decides (step ids are
	 * unique once validated). */
	for (i = 0; i < steps->u.arr.len; i++) {
		const tc_json *step = steps->u.arr.items[i];
		const char *id = tc_json_get_string(step, "step_id");
		const char *state, *outcome;

		if (id == NULL || strcmp(id, "optional-multistream") != 0)
			continue;
		state = tc_json_get_string(step, "state");
		outcome = tc_json_get_string(step, "outcome_status");
		return state != NULL && strcmp(state, "sealed") == 0 &&
		    outcome != NULL && strcmp(outcome, "accepted") == 0;
	}
	return false;
}

int
tc_schedule_check(const tc_json *doc, tc_error *err)
{
	static const char *const keys[] = {
		"step_id", "phase", "agent_id", "skill", "optional_branch",
		"derived_family_rebase"
	};
	const tc_json *steps = tc_json_get(doc, "steps");
	const char *entrypoint = tc_json_get_string(doc, "entrypoint");
	tc_json *expected, *strict_steps = NULL;
	tc_policy policy;
	size_t i, k;
	int rc = 0;

	/* A strict session may hold the re-entry steps of rule 6; they are
	 * checked on their own and left out of the comparison. */
	if (tc_policy_of_doc(doc, &policy, err) != 0)
		return -1;
	if (policy == TC_POLICY_STRICT) {
		if (tc_strict_schedule(doc, &strict_steps, err) != 0)
			return -1;
		steps = strict_steps;
	}
	expected = tc_schedule_build(tc_json_get_string(doc, "optional_mode"),
	    entrypoint != NULL ? entrypoint : "full",
	    multistream_accepted(steps), err);
	if (expected == NULL) {
		tc_json_free(strict_steps);
		return -1;
	}
	if (expected->u.arr.len != steps->u.arr.len)
		rc = -1;
	for (i = 0; rc == 0 && i < steps->u.arr.len; i++)
		for (k = 0; rc == 0 && k < sizeof(keys) / sizeof(keys[0]); k++)
			if (!tc_session__field_equal(steps->u.arr.items[i],
			    expected->u.arr.items[i], keys[k]))
				rc = -1;
	tc_json_free(expected);
	tc_json_free(strict_steps);
	if (rc != 0)
		tc_error_set(err, "session steps do not match the canonical "
		    "schedule");
	return rc;
}

bool
tc_schedule_inserts_derived_base(const char *optional_mode,
    const char *step_id, const char *status)
{
	return strcmp(optional_mode, "both") == 0 &&
	    strcmp(step_id, "optional-multistream") == 0 &&
	    strcmp(status, "accepted") == 0;
}

void
tc_schedule_insert(tc_json *steps, size_t after, tc_json *step)
{
	size_t n;

	/* Append, then rotate the new step into place. */
	tc_json_array_push(steps, step);
	n = steps->u.arr.len;
	if (after + 2 < n) {
		memmove(&steps->u.arr.items[after + 2],
		    &steps->u.arr.items[after + 1],
		    (n - after - 2) * sizeof(steps->u.arr.items[0]));
		steps->u.arr.items[after + 1] = step;
	}
}

void
tc_schedule_insert_derived_base(tc_json *steps, size_t after)
{
	tc_schedule_insert(steps, after, tc_step_new("base-profile-derived",
	    TC_PHASE_BASE, NULL, true));
}
