/*
 * orch_internal.h - what the orchestrator files of src/pypto/ share: the
 * locked state store (state_store.c), the "orchestration" record inside
 * the state (orch.c), the next step (orch_next.c), tasks and results
 * (orch_task.c), routing decisions (orch_route.c) and the Stage 5 entry
 * record (consent.c).
 */
#ifndef TUNECTL_PYPTO_ORCH_INTERNAL_H
#define TUNECTL_PYPTO_ORCH_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>

#include "tunectl/error.h"
#include "tunectl/json.h"
#include "tunectl/lock.h"
#include "tunectl/pypto_orch.h"
#include "tunectl/pypto_state.h"

/* ---- the state store (state_store.c) --------------------------------------- */

typedef struct tc_pypto_store {
	char *op_dir;		/* absolute, inside <project>/custom/ */
	char *project;		/* absolute */
	char *state_path;
	tc_lock lock;
	bool locked;
	bool exists;
	tc_json *state;		/* as read, or synthesised when absent */
	char *raw;		/* the bytes read (NULL when absent) */
	size_t raw_len;
	char sha[65];		/* SHA-256 of raw; "" when absent */
} tc_pypto_store;

/* Resolve and check the op dir (and the caller), optionally take the state
 * lock (timeout 0 = try once), read or synthesise the state. */
int tc_pypto_store_open(const tc_pypto_state_opts *o, bool lock,
    double lock_timeout_s, tc_pypto_store *st, tc_error *err);
/* Write next atomically and make it the store's state. */
int tc_pypto_store_write(tc_pypto_store *st, const tc_json *next,
    tc_error *err);
void tc_pypto_store_close(tc_pypto_store *st);
/* The mark of the state tunectl wrote last (.orchestrator/<mark>). */
#define TC_PYPTO_WRITTEN_MARK	"state-written.sha256"
/* Whether the store's state is the one tunectl wrote last. */
bool tc_pypto_store_written_by_us(const tc_pypto_store *st);
/* Keep the store's bytes as .orchestrator/dispatches/state-<sha>.json,
 * the snapshot a task is cut from. */
int tc_pypto_store_snapshot(const tc_pypto_store *st, tc_error *err);
/* Put the snapshot of state <sha> back (its bytes must hash to sha) and
 * make it the store's state. */
int tc_pypto_store_restore(tc_pypto_store *st, const char *sha,
    tc_error *err);
/* Put back the state tunectl wrote last, as bound outside the operator
 * directory (its kept bytes, else the dispatch snapshot of the bound
 * digest); restored gets its digest. */
int tc_pypto_store_restore_bound(tc_pypto_store *st, char restored[65],
    tc_error *err);

/* The state bound outside the operator directory (state_bind.c):
 * <state>/pypto-states/<sha256 of the resolved state path>.json, or NULL
 * without a state directory. */
char *tc_pypto_binding_path(const tc_pypto_store *st);
/* Record, before the state is written, the digest about to be written
 * and the bytes it binds (next_text, when not NULL), and, with
 * keep_previous, the store's current digest as the previous one (a
 * restore keeps none: the state it replaces is not tunectl's); 0 without
 * a state directory. */
int tc_pypto_bind_state(const tc_pypto_store *st, const char *next_sha,
    const char *next_text, size_t next_len, bool keep_previous,
    tc_error *err);
/* The bytes of the state tunectl wrote last, as its binding keeps them
 * (malloc'd, *len set), or NULL when the binding keeps none that hashes
 * to its digest; sha gets the bound digest ("" when none). */
char *tc_pypto_bound_state(const tc_pypto_store *st, char sha[65],
    size_t *len);
enum {
	TC_PYPTO_STATE_UNBOUND,	/* no binding (none kept, or none yet) */
	TC_PYPTO_STATE_OURS,	/* the state tunectl wrote (or the one before) */
	TC_PYPTO_STATE_FOREIGN	/* anything else, or an unreadable binding */
};
/* Which one the store's state is; bound gets the digest the binding
 * names ("" when none), *where its path (malloc'd, or NULL). */
int tc_pypto_state_binding(const tc_pypto_store *st, char bound[65],
    char **where);
/* -1 with the refusal when the state is bound and not tunectl's. */
int tc_pypto_store_check_written(const tc_pypto_store *st, tc_error *err);

/* The evidence the store's state binds for what it already accepted
 * (state_evidence.c): every accepted step's receipt and the task and
 * result it binds, the Stage 5 entry snapshot and bound stage5-check
 * report, and with with_spec SPEC.md once Stage 1 is completed; each
 * file hashed once.  -1 naming the first file that changed and the rule. */
int tc_pypto_store_check_bound(const tc_pypto_store *st, bool with_spec,
    tc_error *err);

/* One wrapper step on an in-memory state: tunectl's policies (Stage 5
 * rollback, the Stage 5 confirmation and closing gates), the lint gate,
 * the SPEC.md freeze, the pure transition and the orchestration
 * bookkeeping (init and rollbacks reset it).  Returns the next state. */
tc_json *tc_pypto_store_step(const tc_pypto_store *st, const tc_json *prev,
    const tc_pypto_input *in, const tc_pypto_state_opts *o,
    tc_pypto_gate_summary *sum, tc_error *err);

/* The refusal of an orchestrator write from inside a dispatched worker
 * (TUNECTL_ATTEMPT set), whatever --agent says: -1 with the reference's
 * "permission denied" message naming the worker's agent. */
int tc_pypto_refuse_worker(tc_error *err);

/* SHA-256 hex of a buffer. */
void tc_pypto_sha_buf(const void *data, size_t len, char hex[65]);

/* ---- the orchestration record (orch.c) ------------------------------------- */

/* state.orchestration, created (empty, schema 1) when absent. */
tc_json *tc_pypto_orch(tc_json *state);
const tc_json *tc_pypto_orch_get(const tc_json *state);
/* "<op>/.orchestrator" (malloc'd). */
char *tc_pypto_orch_dir(const char *op_dir);
/* Append a history event {sequence, at, event, ...fields} (fields owned). */
void tc_pypto_orch_event(tc_json *state, const char *event, tc_json *fields);
/* The device pool of the options minus the excluded devices: the first
 * healthy device, or -1 when none is left. */
long tc_pypto_orch_device(const tc_json *state);
void tc_pypto_orch_now(char out[32]);

/* The P0 case names of SPEC.md's machine contract (a JSON array of
 * strings) and the contract itself; NULL + err when unreadable. */
tc_json *tc_pypto_spec_contract(const char *op_dir, tc_error *err);
tc_json *tc_pypto_spec_p0_names(const tc_json *contract);

/* ---- the next step (orch_next.c) --------------------------------------------- */

typedef struct tc_pypto_step {
	int stage;
	char *role;
	char *mode;		/* NULL for a role's default mode */
	char *module;		/* L1 module number, or NULL */
	tc_json *feedback;	/* what the previous step returned, or NULL */
	long device_id;
	char *step_id;
} tc_pypto_step;

void tc_pypto_step_free(tc_pypto_step *s);

/* 0: *step is the one legal next step.  1: nothing is dispatchable;
 * *status ("completed", "awaiting_consent", "declined", "halted",
 * "stage_failed", "not_started", "no_device") and err say why.  The state
 * may need one bookkeeping transition first (start_module of the active
 * L1 module): it is returned in *prepare (owned) for the caller to apply. */
int tc_pypto_next_step(const tc_json *state, tc_pypto_step *step,
    const char **status, tc_json **prepare, tc_error *err);

/* ---- tasks and results (orch_task.c) ----------------------------------------- */

/* One of the verifier's failure categories (docs/spec/pypto.md
 * "Failure categories"). */
bool tc_pypto_category_known(const char *category);
/* The same category as a static string ("other" when unknown). */
const char *tc_pypto_category_static(const char *category);

tc_json *tc_pypto_task_build(const tc_pypto_store *st,
    const tc_pypto_step *step);
/* The structural checks of a result against its task (schema, ids,
 * outcome for the role and mode, artifacts inside the op dir, required
 * evidence).  0 or -1 with the first problem. */
int tc_pypto_result_check(const tc_json *task, const tc_json *result,
    const char *op_dir, tc_error *err);

/* ---- routing (orch_route.c) ---------------------------------------------------- */

typedef struct tc_pypto_decision {
	tc_json *actions;	/* array of {action, stage, ...} to apply in order */
	tc_json *next;		/* the next sub-step, or NULL: the stage default */
	tc_json *halt;		/* a halt record, or NULL */
	long exclude_device;	/* -1: none */
	tc_json *orch_set;	/* members to set in the orchestration record */
	char *summary;		/* one line, for the history and the operator */
} tc_pypto_decision;

void tc_pypto_decision_free(tc_pypto_decision *d);

/*
 * Decide what the return of a step means: the stage 1-4 returns and
 * verdict tables (docs/spec/pypto.md "Orchestrator protocol",
 * "Stage 4 check routing", "Module check routing"), the Stage 5 table
 * (docs/spec/pypto.md "Stage 5 check routing"), the optimizer's three exits and
 * the environment triage.  verdict/category override the result's own for a
 * stage5-check (tunectl re-derives it).  op_dir is read for
 * module_interfaces.yaml after a stage3-check PASS.
 */
int tc_pypto_route(const tc_json *state, const tc_json *task,
    const tc_json *result, const char *verdict, const char *category,
    const char *evidence, const char *op_dir, tc_pypto_decision *d,
    tc_error *err);

/* The Stage 5 routing row of a stage5-check failure category: "repair"
 * (back to the optimizer with the raw evidence), "reverify" (re-dispatch
 * the verifier), "reclassify" (the verifier re-classifies), "wait" (halt
 * for the user), "triage" (environment).  Exposed for the tests. */
const char *tc_pypto_stage5_route(const char *category, const char *evidence);

/* ---- the Stage 5 entry (consent.c) --------------------------------------------- */

/* Write the entry snapshot (frozen inputs, every file of the op dir, the
 * selected KB obligations) under .orchestrator/stage5/ exclusively;
 * returns {path (relative to the op dir), sha256}. */
tc_json *tc_pypto_entry_write(const char *op_dir, tc_error *err);
/* Load the snapshot bound in the state and check its digest. */
tc_json *tc_pypto_entry_load(const char *op_dir, const tc_json *state,
    tc_error *err);
/* The consent and decline actions on the locked state (orchestration
 * record and entry snapshot); out gets {stage5: ...}. */
int tc_pypto_consent_apply(const tc_pypto_store *st, tc_json *state,
    const tc_pypto_orch_input *in, tc_json *out, tc_error *err);
/* The bound stage5-check: consent, a PASS report whose digest matches,
 * for the current runner and the bound entry snapshot, which still says
 * PASS when tunectl recomputes it from the files and the review bound in
 * it (interpreter: as tc_pypto_check_opts). */
int tc_pypto_check_bound(const char *op_dir, const tc_json *state,
    const char *interpreter, tc_error *err);
/* The stage5-check dispatch a confirmed Stage 5 implies (stage4_path and
 * the confirmed target cases); NULL without a confirmation. */
tc_json *tc_pypto_stage5_dispatch_of(const tc_json *state);

#endif
