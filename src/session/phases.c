/*
 * phases.c - the controller's constant tables (docs/spec/controller.md
 * "Constants"): phases with their logical agent and skill, statuses, modes,
 * entrypoints, the step-id pattern, the statuses each step may be sealed with,
 * and which outcomes short-circuit the rest of the schedule to the Final step.
 */
#include <string.h>

#include "tunectl/phases.h"

static const tc_phase phases[TC_PHASE_COUNT] = {
	{ TC_PHASE_INTAKE, "intake_preparation", "sk-intake-preparation",
	  "superkernel-intake-preparation" },
	{ TC_PHASE_S0, "s0_baseline", "sk-s0-baseline",
	  "superkernel-s0-baseline" },
	{ TC_PHASE_STAGE_A, "stage_a_scope_selection",
	  "sk-stage-a-scope-selection", "superkernel-stage-a-scope-selection" },
	{ TC_PHASE_STAGE_O, "stage_o_option_tuning", "sk-stage-o-option-tuning",
	  "superkernel-stage-o-option-tuning" },
	{ TC_PHASE_BASE, "base_profile_source_mapping",
	  "sk-base-profile-source-mapping",
	  "superkernel-base-profile-source-mapping" },
	{ TC_PHASE_OPTIONAL, "optional_experiments", "sk-optional-experiments",
	  "superkernel-optional-experiments" },
	{ TC_PHASE_FINAL, "final_e2e_report", "sk-final-e2e-report",
	  "superkernel-final-e2e-report" },
};

const char *const tc_result_statuses[8] = {
	"succeeded", "accepted", "no_gain", "blocked", "failed", "invalid",
	"not_requested", "not_run"
};
const char *const tc_optional_modes[4] = {
	"none", "multistream", "source-range", "both"
};
const char *const tc_entrypoints[3] = {
	"full", "optional-from-base", "source-range-from-smap"
};

/* PHASE_STATUSES and the optional branches of _allowed_statuses, each a
 * NULL-terminated list. */
static const char *const st_setup[] = {
	"succeeded", "blocked", "failed", "invalid", NULL
};
static const char *const st_stage[] = {
	"accepted", "no_gain", "blocked", "failed", "invalid", NULL
};
static const char *const st_base[] = {
	"succeeded", "no_gain", "blocked", "failed", "invalid", NULL
};
static const char *const st_final[] = {
	"accepted", "no_gain", "blocked", "failed", "invalid", "not_run", NULL
};
static const char *const st_opt_none[] = { "not_requested", NULL };
static const char *const st_opt_source_range[] = {
	"accepted", "no_gain", "blocked", "failed", "invalid", "not_run", NULL
};

const tc_phase *
tc_phase_get(tc_phase_id id)
{
	return (unsigned)id < TC_PHASE_COUNT ? &phases[id] : NULL;
}

const tc_phase *
tc_phase_by_name(const char *name)
{
	size_t i;

	if (name == NULL)
		return NULL;
	for (i = 0; i < TC_PHASE_COUNT; i++)
		if (strcmp(phases[i].name, name) == 0)
			return &phases[i];
	return NULL;
}

const tc_phase *
tc_phase_of(const tc_json *name)
{
	const char *s = tc_json_string(name);

	/* A string with an embedded NUL names no phase. */
	if (s == NULL || strlen(s) != name->u.str.len)
		return NULL;
	return tc_phase_by_name(s);
}

static bool
in_list(const tc_json *v, const char *const *list, size_t n)
{
	size_t i;

	if (!tc_json_is(v, TC_JSON_STRING) || strlen(v->u.str.ptr) != v->u.str.len)
		return false;
	for (i = 0; i < n; i++)
		if (strcmp(list[i], v->u.str.ptr) == 0)
			return true;
	return false;
}

bool
tc_is_result_status(const tc_json *v)
{
	return in_list(v, tc_result_statuses, 8);
}

bool
tc_is_optional_mode(const tc_json *v)
{
	return in_list(v, tc_optional_modes, 4);
}

bool
tc_is_entrypoint(const tc_json *v)
{
	return in_list(v, tc_entrypoints, 3);
}

bool
tc_is_result_status_str(const char *s)
{
	size_t i;

	for (i = 0; s != NULL && i < 8; i++)
		if (strcmp(tc_result_statuses[i], s) == 0)
			return true;
	return false;
}

bool
tc_step_id_valid(const char *s, size_t len)
{
	size_t i;

	if (len < 2 || len > 64 || !(s[0] >= 'a' && s[0] <= 'z'))
		return false;
	for (i = 1; i < len; i++) {
		char c = s[i];

		if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
		    c == '-'))
			return false;
	}
	return true;
}

static bool
list_has(const char *const *list, const char *s)
{
	for (; *list != NULL; list++)
		if (strcmp(*list, s) == 0)
			return true;
	return false;
}

int
tc_status_allowed(const tc_json *step, const char *status, bool *allowed,
    tc_error *err)
{
	const tc_phase *phase = tc_phase_of(tc_json_get(step, "phase"));
	const char *const *list = NULL;

	if (phase == NULL) {
		tc_error_set(err, "session step phase is invalid");
		return -1;
	}
	switch (phase->id) {
	case TC_PHASE_INTAKE:
	case TC_PHASE_S0:
		list = st_setup;
		break;
	case TC_PHASE_STAGE_A:
	case TC_PHASE_STAGE_O:
		list = st_stage;
		break;
	case TC_PHASE_BASE:
		list = st_base;
		break;
	case TC_PHASE_FINAL:
		list = st_final;
		break;
	case TC_PHASE_OPTIONAL: {
		const char *branch = tc_json_string(tc_json_get(step,
		    "optional_branch"));

		if (branch != NULL && strcmp(branch, "none") == 0)
			list = st_opt_none;
		else if (branch != NULL && strcmp(branch, "multistream") == 0)
			list = st_stage;
		else if (branch != NULL && strcmp(branch, "source-range") == 0)
			list = st_opt_source_range;
		break;
	}
	case TC_PHASE_COUNT:
		break;
	}
	if (list == NULL) {
		tc_error_set(err, "optional step branch is invalid");
		return -1;
	}
	*allowed = status != NULL && list_has(list, status);
	return 0;
}

bool
tc_must_short_circuit(const tc_phase *phase, const char *status)
{
	switch (phase->id) {
	case TC_PHASE_INTAKE:
	case TC_PHASE_S0:
		return strcmp(status, "succeeded") != 0;
	case TC_PHASE_STAGE_A:
		return strcmp(status, "accepted") != 0;
	case TC_PHASE_STAGE_O:
		return strcmp(status, "accepted") != 0 &&
		    strcmp(status, "no_gain") != 0;
	case TC_PHASE_BASE:
		return strcmp(status, "succeeded") != 0 &&
		    strcmp(status, "no_gain") != 0;
	default:
		return false;
	}
}
