/*
 * pypto_orch.h - tunectl as the PyPTO-Pro orchestrator: it hands the one
 * legal next stage (or verifier check) to a fresh worker, reads the
 * worker's return, decides by the pipeline's routing tables and is the
 * only writer of .orchestrator_state.json (docs/pypto.md "Driving the
 * pipeline").
 *
 * Its own records live beside the reference state:
 *   - "orchestration" inside .orchestrator_state.json (a key the
 *     reference state machine preserves): options, the next sub-step,
 *     a halt, excluded devices, the step history, and the Stage 5 entry
 *     confirmation with the digests of its snapshot and of the bound
 *     stage5-check report;
 *   - <op>/.orchestrator/: the attempts (dispatches/<step>-attempt-NNN),
 *     the Stage 5 entry snapshots and the stage5-check reports, each
 *     bound by digest from the state.
 */
#ifndef TUNECTL_PYPTO_ORCH_H
#define TUNECTL_PYPTO_ORCH_H

#include <stdbool.h>

#include "tunectl/error.h"
#include "tunectl/host.h"
#include "tunectl/json.h"
#include "tunectl/pypto_state.h"

#define TC_PYPTO_ORCH_DIR	".orchestrator"
#define TC_PYPTO_TASK_SCHEMA	"tunectl-pypto-task-v1"
#define TC_PYPTO_RESULT_SCHEMA	"tunectl-pypto-result-v1"
#define TC_PYPTO_RECEIPT_SCHEMA	"tunectl-pypto-dispatch-receipt-v1"
#define TC_PYPTO_AGENT_ENV	"TUNECTL_PYPTO_AGENT"

/* The six roles, their agents and skills (docs/spec/pypto.md
 * "Actors and skills"). */
const char *tc_pypto_role_agent(const char *role);
const char *tc_pypto_role_skill(const char *role);
bool tc_pypto_role_known(const char *role);

/* ---- orchestrator actions on the state (consent.c, orch_actions.c) ------- */

/*
 * tunectl's own actions beyond the reference's eleven, run through the
 * same wrapper (lock, atomic write):
 *   consent    the Stage 5 entry confirmation: basis "user_requested" (the
 *              user asked for optimisation or gave a target) or
 *              "user_confirmed" (asked, and agreed); the target cases
 *              (case_ids: a comma list, user_selected) or the single P0
 *              (single_p0) or, with no_questions, every P0
 *              (all_p0_no_questions).  Freezes optimization_target and
 *              writes the Stage 5 entry snapshot.
 *   decline    the user did not ask for optimisation and asked not to be
 *              asked: the pipeline ends after Stage 4.
 *   configure  orchestration options (devices, the two Stage 2 switches,
 *              the user's request text, docs cache and resource root).
 *   resume     clear a halt (a software environment fixed, a frozen-input
 *              block resolved, a blocked module re-planned) with a reason.
 */
typedef struct tc_pypto_orch_input {
	const char *action;	/* consent | decline | configure | resume */
	const char *basis;
	const char *statement;
	const char *case_ids;	/* comma-separated */
	bool no_questions;
	const char *reason;
	const char *devices;	/* comma-separated device ids */
	int collect_golden_perf;	/* -1 unchanged, 0, 1 */
	int run_stage2_verifier;	/* -1 unchanged, 0, 1 */
	const char *request;
	const char *docs_cache;
	const char *resource_root;
} tc_pypto_orch_input;

/* An input for action that changes nothing beyond it: every field empty,
 * the two Stage 2 switches -1 (unchanged). */
void tc_pypto_orch_input_init(tc_pypto_orch_input *in, const char *action);
bool tc_pypto_orch_action_known(const char *action);
tc_json *tc_pypto_orch_action(const tc_pypto_state_opts *o,
    const tc_pypto_orch_input *in, tc_error *err);

/* The recorded consent (NULL when none) and its frozen target. */
const tc_json *tc_pypto_consent(const tc_json *state);
/* -1 when op_dir has a state file at Stage 5 without a confirmed entry
 * ("Stage 5 collection refused: ..."), 0 otherwise (also when there is no
 * state file: standalone use of the Stage 5 tools). */
int tc_pypto_require_consent(const char *op_dir, const char *what,
    tc_error *err);

/* ---- dispatch, accept, run-next, run (orch_run.c) ------------------------- */

typedef struct tc_pypto_run_opts {
	tc_pypto_state_opts state;	/* project, op dir, lint gate */
	tc_runner runner;		/* the agent host argv */
	tc_run_next_opts host;		/* timeout, grace, program */
	long max_attempts;		/* run: failed attempts of one step */
	long max_steps;			/* run: accepted steps at most */
} tc_pypto_run_opts;

/* The task of the one legal next step, bound to the state's digest
 * (pypto dispatch).  When nothing can be dispatched returns NULL with the
 * reason in err (awaiting the Stage 5 confirmation, halted, completed). */
tc_json *tc_pypto_dispatch(const tc_pypto_state_opts *o, tc_error *err);

/* Is this task still the current one?  0, or -1 with "stale pypto task
 * does not match the current orchestrator state" (or a malformed task). */
int tc_pypto_task_check(const tc_json *task, tc_error *err);

/* Accept a worker's result for a dispatched task (pypto accept): the task
 * must be current, the result valid for its role; the attempt is kept
 * under .orchestrator/dispatches/ with a receipt, and the routing decision
 * is applied.  Returns {step_id, outcome, decision, actions, next, ...}. */
tc_json *tc_pypto_accept(const tc_pypto_state_opts *o, const tc_json *task,
    const tc_json *result, tc_error *err);

/* One attempt of the next step through an agent host (pypto run-next). */
tc_json *tc_pypto_run_next(const tc_pypto_run_opts *o,
    tc_attempt_report *report, tc_error *err);

typedef void (*tc_pypto_progress)(const tc_attempt_report *attempt,
    const tc_json *accepted, const char *error, void *ctx);

/* run-next until nothing is dispatchable; returns {status, reason,
 * steps, state}: status "completed", "awaiting_consent", "declined",
 * "halted", "stage_failed" (NULL + err on a run error or when one step
 * failed max_attempts times in a row). */
tc_json *tc_pypto_run_pipeline(const tc_pypto_run_opts *o, tc_pypto_progress progress,
    void *ctx, tc_error *err);

/* The prompt a fresh PyPTO-Pro worker is given (pypto tasks in
 * "tunectl prompt"): role, skill, inputs, the result schema, the role's
 * boundaries.  malloc'd. */
char *tc_pypto_prompt(const tc_json *task, const char *task_path,
    const char *result_path, const char *host, const char *program,
    tc_error *err);

#endif
