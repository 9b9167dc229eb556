/*
 * phases.h - the constant tables of the SuperKernel auto-tune controller:
 * schema ids, the seven phases with their logical agent and skill, result
 * statuses, optional modes, entrypoints, step-id rules, the statuses each
 * step may be sealed with and the short-circuit rule.
 *
 * Everything here is data from the reference specification
 * (docs/spec/controller.md "Constants"); nothing allocates.
 */
#ifndef TUNECTL_PHASES_H
#define TUNECTL_PHASES_H

#include <stdbool.h>
#include <stddef.h>

#include "tunectl/error.h"
#include "tunectl/json.h"

#define TC_SESSION_SCHEMA	"superkernel-auto-tune-session-v1"
#define TC_RESULT_SCHEMA	"superkernel-auto-tune-phase-result-v1"
#define TC_TASK_SCHEMA		"superkernel-auto-tune-phase-task-v1"
#define TC_RECEIPT_SCHEMA	"superkernel-auto-tune-dispatch-receipt-v1"
#define TC_EVIDENCE_IMPORT_SCHEMA "superkernel-auto-tune-evidence-import-v1"
/* The reserved value of a result's "system_generated_by". */
#define TC_SYSTEM_GENERATED_BY	"superkernel-auto-tune"

typedef enum tc_phase_id {
	TC_PHASE_INTAKE,		/* intake_preparation */
	TC_PHASE_S0,			/* s0_baseline */
	TC_PHASE_STAGE_A,		/* stage_a_scope_selection */
	TC_PHASE_STAGE_O,		/* stage_o_option_tuning */
	TC_PHASE_BASE,			/* base_profile_source_mapping */
	TC_PHASE_OPTIONAL,		/* optional_experiments */
	TC_PHASE_FINAL,			/* final_e2e_report */
	TC_PHASE_COUNT
} tc_phase_id;

typedef struct tc_phase {
	tc_phase_id id;
	const char *name;		/* "intake_preparation" */
	const char *agent_id;		/* "sk-intake-preparation" */
	const char *skill;		/* "superkernel-intake-preparation" */
} tc_phase;

/* The phase of that name, or NULL. */
const tc_phase *tc_phase_by_name(const char *name);
/* The phase of a JSON value (NULL unless a string naming a phase). */
const tc_phase *tc_phase_of(const tc_json *name);
const tc_phase *tc_phase_get(tc_phase_id id);

/* RESULT_STATUSES, OPTIONAL_MODES, ENTRYPOINTS in the reference's order
 * (FINAL_DETAIL_KEYS is tc_final_detail_keys in final.h). */
extern const char *const tc_result_statuses[8];
extern const char *const tc_optional_modes[4];	/* none multistream source-range both */
extern const char *const tc_entrypoints[3];	/* full optional-from-base source-range-from-smap */

/* Membership tests on JSON values: true only for a string in the set. */
bool tc_is_result_status(const tc_json *v);
bool tc_is_optional_mode(const tc_json *v);
bool tc_is_entrypoint(const tc_json *v);
bool tc_is_result_status_str(const char *s);

/* STEP_IDS: ^[a-z][a-z0-9-]{1,63}$ (whole string). */
bool tc_step_id_valid(const char *s, size_t len);

/*
 * _allowed_statuses: may a non-system-generated result for this step
 * carry status?  The step must be a validated session step.  Fails with
 * "optional step branch is invalid" for an optional step whose branch is
 * not none/multistream/source-range.
 */
int tc_status_allowed(const tc_json *step, const char *status, bool *allowed,
    tc_error *err);

/* _must_short_circuit: after sealing a step of this phase with this
 * status, are the remaining non-final steps sealed not_run? */
bool tc_must_short_circuit(const tc_phase *phase, const char *status);

#endif
