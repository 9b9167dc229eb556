/*
 * pypto_state.h - the PyPTO-Pro five-stage orchestrator state
 * (custom/<op>/.orchestrator_state.json, schema "2.2").
 *
 * Two layers, as in the reference:
 *   tc_pypto_state_apply()       the pure transition function: clone,
 *                                normalise, check the action's
 *                                preconditions, apply, stamp
 *                                last_updated.  Error messages are the
 *                                reference's, byte for byte.
 *   tc_pypto_state_transition()  the tool wrapper: caller and op-dir
 *                                permission, exclusive lock, read or
 *                                synthesise the file, the optional lint
 *                                gate, the SPEC.md freeze, apply, atomic
 *                                write.  Plus tunectl's policy that
 *                                rollback_to_stage is refused once Stage 5
 *                                was entered (unless explicitly allowed).
 */
#ifndef TUNECTL_PYPTO_STATE_H
#define TUNECTL_PYPTO_STATE_H

#include <stdbool.h>

#include "tunectl/error.h"
#include "tunectl/json.h"

#define TC_PYPTO_STATE_FILE	".orchestrator_state.json"
#define TC_PYPTO_SCHEMA_VERSION	"2.2"
#define TC_PYPTO_MAX_STAGE	5
#define TC_PYPTO_MAX_CYCLES	10

/* The eleven actions, in the reference's order. */
extern const char *const tc_pypto_actions[];
bool tc_pypto_action_known(const char *action);

/*
 * Arguments of one transition, as text (NULL = not given).  Numbers are
 * coerced the way the reference does (JavaScript Number()), so "abc"
 * becomes NaN and is reported as "invalid stage: NaN (must be 1..5)".
 */
typedef struct tc_pypto_input {
	const char *action;
	const char *stage;
	const char *reason;
	const char *name;
	const char *hash;
	const char *target_stage;
	const char *failure_category;
	const char *module_count;
	int is_fusion;			/* -1 absent, 0 false, 1 true */
	const char *module;
	const char *failing_module_boundary;
	const char *last_error;
} tc_pypto_input;

#define TC_PYPTO_INPUT_INIT { NULL, NULL, NULL, NULL, NULL, NULL, NULL, \
	NULL, -1, NULL, NULL, NULL }

/* The file the wrapper synthesises when none exists. */
tc_json *tc_pypto_state_initial(const char *operator_name, const char *now);

/* The pure transition.  prev is not modified.  now: the timestamp to
 * record (NULL = the current time, toISOString form).  Returns the new
 * state, or NULL with the reference's message in err. */
tc_json *tc_pypto_state_apply(const tc_json *prev, const tc_pypto_input *in,
    const char *now, tc_error *err);

/* true once Stage 5 was entered: current_stage is 5 or Stage 5's status
 * is in_progress, completed or failed. */
bool tc_pypto_stage5_entered(const tc_json *state);

/* ---- the wrapper ---------------------------------------------------------- */

typedef struct tc_pypto_state_opts {
	const char *project;		/* base directory; NULL = cwd */
	const char *op_dir;		/* relative to project, or absolute */
	const char *agent;		/* NULL: not checked */
	char *const *lint_argv;		/* NULL: no lint gate */
	double lint_timeout_s;		/* <= 0: 600 */
	bool allow_stage5_rollback;
	const char *interpreter;	/* the checks tunectl runs itself (a
					 * re-derived stage5-check); NULL: python3 */
} tc_pypto_state_opts;

/* Resolve the op dir and check it lies strictly inside <project>/custom/.
 * Returns the absolute op dir (malloc'd). */
char *tc_pypto_resolve_op_dir(const char *project, const char *op_dir,
    char **custom_root, tc_error *err);

/* Run one action.  Returns the reference's result object
 * {ok, action, stage, target_stage, current_stage, stage4_path, module,
 * statePath, warnCount, infoCount}. */
tc_json *tc_pypto_state_transition(const tc_pypto_state_opts *o,
    const tc_pypto_input *in, tc_error *err);

/* Read the state (or the synthesised one when absent: "exists": false)
 * and describe it: {state_path, exists, state, next_actions:[...],
 * spec_freeze:{...}, policy:{...}}. */
tc_json *tc_pypto_state_show(const tc_pypto_state_opts *o, tc_error *err);

/* {state_path, rollback_history:[...]}. */
tc_json *tc_pypto_state_history(const tc_pypto_state_opts *o, tc_error *err);

/* ---- SPEC.md freeze (spec_freeze.c) ---------------------------------------- */

/* SHA-256 of SPEC.md read as UTF-8 text (invalid sequences become
 * U+FFFD, as Node's readFileSync(..., "utf8") does).  Returns 1 and the
 * hex digest, 0 when the file does not exist, -1 on a read error. */
int tc_pypto_spec_hash(const char *spec_path, char hex[65], tc_error *err);

/* The wrapper's freeze step for complete_stage: stage 1 records
 * artifact_hashes.spec_md into state (mutated); stage >= 3 refuses a
 * changed or missing SPEC.md when a hash is recorded. */
int tc_pypto_spec_freeze(tc_json *state, const char *op_dir, double stage,
    tc_error *err);

/* ---- lint gate (lint_gate.c) ------------------------------------------------ */

typedef struct tc_pypto_gate_summary {
	long warn_count;
	long info_count;
} tc_pypto_gate_summary;

/* Parse the lint tool's --check-gate JSON ({summary, findings}).  On a
 * blocking result fills *blocked_details with the formatted findings
 * (malloc'd, may be "").  Returns 0, or -1 with "invalid lint JSON
 * output: ..." / "lint script returned empty output". */
int tc_pypto_gate_parse(const char *raw, tc_pypto_gate_summary *sum,
    char **fail_details, bool *has_blocking, tc_error *err);

/* Run the gate for action if it applies (complete_stage with stage <= 4,
 * submit_for_verify / complete_module with a module).  Returns 0 when it
 * passed or did not apply, -1 with the reference's "[pypto-pro-op-lint]
 * gate blocked: ..." message. */
int tc_pypto_gate_run(char *const *lint_argv, double timeout_s,
    const char *project, const char *op_dir, const tc_pypto_input *in,
    tc_pypto_gate_summary *sum, tc_error *err);

#endif
