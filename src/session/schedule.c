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

/* One step of a canonical schedule, as tc_step_new() takes it. */
struct sched_step {
	const char *step_id;
	tc_phase_id id;
	const char *branch;	/* NULL: null */
	bool rebase;
};
/* The longest schedule: five full steps, the three of "both", the Final. */
#define SCHED_MAX	9

static void
add(struct sched_step *list, size_t *n, const char *step_id, tc_phase_id id,
    const char *branch, bool rebase)
{
	list[(*n)++] = (struct sched_step){ step_id, id, branch, rebase };
}

/* The canonical schedule's steps into list[0..*n); -1 with err set. */
static int
schedule_steps(const char *mode, const char *entrypoint,
    bool multistream_accepted, struct sched_step list[SCHED_MAX], size_t *n,
    tc_error *err)
{
	*n = 0;
	if (strcmp(entrypoint, "full") == 0) {
		add(list, n, "intake-preparation", TC_PHASE_INTAKE, NULL, false);
		add(list, n, "s0-baseline", TC_PHASE_S0, NULL, false);
		add(list, n, "stage-a-scope-selection", TC_PHASE_STAGE_A, NULL,
		    false);
		add(list, n, "stage-o-option-tuning", TC_PHASE_STAGE_O, NULL,
		    false);
		add(list, n, "base-profile-source-mapping", TC_PHASE_BASE, NULL,
		    false);
	} else if (strcmp(entrypoint, "source-range-from-smap") == 0) {
		if (strcmp(mode, "source-range") != 0) {
			tc_error_set(err, "source-range-from-smap requires "
			    "optional_mode source-range");
			return -1;
		}
		add(list, n, "optional-source-range", TC_PHASE_OPTIONAL,
		    "source-range", false);
		add(list, n, "final-e2e-report", TC_PHASE_FINAL, NULL, false);
		return 0;
	} else if (strcmp(entrypoint, "optional-from-base") == 0) {
		if (strcmp(mode, "multistream") != 0 &&
		    strcmp(mode, "both") != 0) {
			tc_error_set(err, "optional-from-base requires "
			    "multistream or both");
			return -1;
		}
	} else {
		tc_error_set(err, "session entrypoint is invalid");
		return -1;
	}

	if (strcmp(mode, "both") == 0) {
		add(list, n, "optional-multistream", TC_PHASE_OPTIONAL,
		    "multistream", false);
		if (multistream_accepted)
			add(list, n, "base-profile-derived", TC_PHASE_BASE, NULL,
			    true);
		add(list, n, "optional-source-range", TC_PHASE_OPTIONAL,
		    "source-range", false);
	} else if (strcmp(entrypoint, "full") == 0) {
		add(list, n, "optional-experiments", TC_PHASE_OPTIONAL, mode,
		    false);
	} else {
		add(list, n, "optional-multistream", TC_PHASE_OPTIONAL,
		    "multistream", false);
	}
	add(list, n, "final-e2e-report", TC_PHASE_FINAL, NULL, false);
	return 0;
}

tc_json *
tc_schedule_build(const char *mode, const char *entrypoint,
    bool multistream_accepted, tc_error *err)
{
	struct sched_step list[SCHED_MAX];
	tc_json *steps;
	size_t i, n;

	if (schedule_steps(mode, entrypoint, multistream_accepted, list, &n,
	    err) != 0)
		return NULL;
	steps = tc_json_new_array();
	for (i = 0; i < n; i++)
		tc_json_array_push(steps, tc_step_new(list[i].step_id,
		    list[i].id, list[i].branch, list[i].rebase));
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

/* tc_session__field_equal(step, the canonical step, key), the canonical
 * step's value given (never absent: null where the step's is null). */
static bool
field_is(const tc_json *step, const char *key, const tc_json *want)
{
	const tc_json *x = tc_json_get(step, key);

	if (x == NULL)
		return tc_json_is(want, TC_JSON_NULL);
	return tc_json_equal(x, want);
}

/* A stack string node of s (tc_json_equal reads it; nothing frees it). */
static tc_json
str_node(const char *s)
{
	tc_json v = { .type = TC_JSON_STRING };

	v.u.str.ptr = (char *)s;
	v.u.str.len = strlen(s);
	return v;
}

/* Does step hold what tc_step_new(want) would in the keys the schedule
 * compares?  (Compared against the canonical values in place: building
 * the canonical steps as documents cost more than the rest of the
 * validation.) */
static bool
step_matches(const tc_json *step, const struct sched_step *want)
{
	const tc_phase *phase = tc_phase_get(want->id);
	tc_json id = str_node(want->step_id), name = str_node(phase->name);
	tc_json agent = str_node(phase->agent_id), skill = str_node(phase->skill);
	tc_json branch = want->branch != NULL ? str_node(want->branch) :
	    (tc_json){ .type = TC_JSON_NULL };
	tc_json rebase = { .type = TC_JSON_BOOL };

	rebase.u.b = want->rebase;
	/* the order tc_schedule_check always compared them in */
	return field_is(step, "step_id", &id) &&
	    field_is(step, "phase", &name) &&
	    field_is(step, "agent_id", &agent) &&
	    field_is(step, "skill", &skill) &&
	    field_is(step, "optional_branch", &branch) &&
	    field_is(step, "derived_family_rebase", &rebase);
}

int
tc_schedule_check(const tc_json *doc, tc_error *err)
{
	const tc_json *steps = tc_json_get(doc, "steps");
	const char *entrypoint = tc_json_get_string(doc, "entrypoint");
	struct sched_step expected[SCHED_MAX];
	tc_json *strict_steps = NULL;
	tc_policy policy;
	size_t i, n;
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
	if (schedule_steps(tc_json_get_string(doc, "optional_mode"),
	    entrypoint != NULL ? entrypoint : "full",
	    multistream_accepted(steps), expected, &n, err) != 0) {
		tc_json_free(strict_steps);
		return -1;
	}
	if (n != steps->u.arr.len)
		rc = -1;
	for (i = 0; rc == 0 && i < steps->u.arr.len; i++)
		if (!step_matches(steps->u.arr.items[i], &expected[i]))
			rc = -1;
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
