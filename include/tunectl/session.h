/*
 * session.h - the SuperKernel auto-tune session controller
 * (docs/spec/controller.md,
 * docs/spec/controller.md "Seal, run-next and verify"): loading and validating
 * a session, canonical schedules, phase-result validation, dispatch tasks and
 * their staleness, sealing, verification and resumption.
 *
 * The session document is kept as the tc_json tree that was read, so that
 * unknown keys survive and the fingerprint (docs/spec/controller.md
 * "Where each digest is used") is the digest of exactly what is on disk.
 * tc_session adds typed views into that tree.
 *
 * Every function that fails leaves one message in the caller's tc_error;
 * messages quoted by the specification are reproduced byte for byte.
 */
#ifndef TUNECTL_SESSION_H
#define TUNECTL_SESSION_H

#include <stdbool.h>
#include <stddef.h>

#include "tunectl/buf.h"
#include "tunectl/error.h"
#include "tunectl/json.h"
#include "tunectl/lock.h"
#include "tunectl/phases.h"

/* ---- the loaded session (session_load.c) ------------------------------ */

enum {
	/* _validate_session(validate_import=False): skip the evidence-import
	 * re-validation of a derived session (derivation uses it before the
	 * manifest is written). */
	TC_SESSION_NO_IMPORT = 1 << 0
};

typedef struct tc_session {
	tc_json *doc;		/* the document; owned */
	char *path;		/* session path as given, pathlib-normalised */
	/* path resolved (symlinks followed) when the load first needed it,
	 * for the state files kept about the session (policy record,
	 * sidecar): one resolution per load; NULL until then.  owned */
	char *resolved;
	/* Views into doc, valid after validation.  Code that edits doc
	 * calls tc_session_refresh() before using them again. */
	const char *session_id;
	const char *artifact_root;	/* as stored */
	const char *optional_mode;
	const char *entrypoint;		/* "full" when the key is absent */
	const char *status;		/* "active" / "completed" */
	tc_json *steps;			/* the "steps" array */
	/* What each artifact looks like now, keyed by path, while a command
	 * checks bound evidence and seals with no worker running in between
	 * (tc_session_memo_begin() in evidence.h); NULL otherwise. */
	tc_json *described;
	/* tunectl's bindings of a reference-policy session, read when first
	 * asked for (tc_session_sidecar, evidence.h); owned */
	struct tc_sidecar *sidecar;
} tc_session;

/*
 * load_session(path): read, parse and validate (docs/spec/controller.md
 * "Session validation", in order, with the evidence import of a derived session
 * unless TC_SESSION_NO_IMPORT).  Read and parse errors read
 * "cannot load session: <error>" (a UTF-8 decode error or an over-long integer
 * is reported bare, as the reference does).  Returns 0 and *out (caller frees),
 * or -1.
 */
int tc_session_load(const char *path, unsigned flags, tc_session **out,
    tc_error *err);

/* Validate an in-memory document (docs/spec/controller.md
 * "Session validation"). */
int tc_session_validate(const tc_json *doc, unsigned flags, tc_error *err);

/* Wrap an already validated document (takes ownership of doc). */
tc_session *tc_session_wrap(tc_json *doc, const char *path);

void tc_session_free(tc_session *s);
/* Re-point the views after doc was edited. */
void tc_session_refresh(tc_session *s);

size_t tc_session_step_count(const tc_session *s);
tc_json *tc_session_step_at(const tc_session *s, size_t i);
/* The first pending step (next_step), or NULL; *index gets its position
 * when index is not NULL. */
tc_json *tc_session_next_step(const tc_session *s, size_t *index);
/* The step with that step_id, or NULL. */
tc_json *tc_session_find_step(const tc_session *s, const char *step_id,
    size_t *index);
bool tc_session_is_completed(const tc_session *s);

/* _digest(session): SHA-256 of the canonical JSON of the document as it
 * is now (for a freshly loaded session: the session fingerprint). */
int tc_session_fingerprint(const tc_session *s, char hex[65], tc_error *err);

/* <artifact_root>/<relative>, pathlib-joined (malloc'd). */
char *tc_session_artifact_path(const tc_session *s, const char *relative);

/* Typed views of a validated step object. */
const char *tc_step_id(const tc_json *step);
const tc_phase *tc_step_phase(const tc_json *step);
bool tc_step_is_sealed(const tc_json *step);
const char *tc_step_branch(const tc_json *step);	/* NULL for null */
const char *tc_step_outcome(const tc_json *step);	/* NULL when pending */

/* Exclusive lock on "<session_path>.lock" (tc_lock_acquire, default
 * timeout; TUNECTL_LOCK_TIMEOUT overrides).  When no session file exists
 * there is nothing to lock: lock->fd is -1 and 0 is returned. */
int tc_session_lock(const char *session_path, tc_lock *lock, tc_error *err);

/* ---- the evidence import of a derived session (evidence_import.c) ----- */

/* docs/spec/controller.md "Session validation" step 8 for a non-full session:
 * the shape of "evidence_import" and the re-validation of the manifest it binds
 * (docs/spec/controller.md "Evidence-import manifest"). */
int tc_evidence_import_validate(const tc_json *doc, tc_error *err);

/* ---- schedules (schedule.c) ------------------------------------------- */

/* A new pending step {step_id, phase, agent_id, skill, optional_branch,
 * derived_family_rebase, state}.  branch NULL means null. */
tc_json *tc_step_new(const char *step_id, tc_phase_id phase,
    const char *branch, bool derived_family_rebase);

/* _canonical_steps(mode, entrypoint, multistream_accepted): a new array,
 * or NULL with "source-range-from-smap requires optional_mode
 * source-range", "optional-from-base requires multistream or both" or
 * "session entrypoint is invalid". */
tc_json *tc_schedule_build(const char *mode, const char *entrypoint,
    bool multistream_accepted, tc_error *err);

/* _validate_canonical_schedule (docs/spec/controller.md "Schedule validation")
 * of a document whose other fields are already validated. */
int tc_schedule_check(const tc_json *doc, tc_error *err);

/* docs/spec/controller.md "Derived BASE insertion": does sealing step_id with
 * status insert base-profile-derived? */
bool tc_schedule_inserts_derived_base(const char *optional_mode,
    const char *step_id, const char *status);
/* Insert the pending base-profile-derived step after index. */
void tc_schedule_insert_derived_base(tc_json *steps, size_t after);
/* Insert step (ownership taken) into steps right after index. */
void tc_schedule_insert(tc_json *steps, size_t after, tc_json *step);

/* ---- phase results (result_validate.c) -------------------------------- */

enum {
	/* verify and short-circuit: accept system_generated_by results and
	 * skip the per-phase status table for them. */
	TC_RESULT_ALLOW_SYSTEM = 1 << 0
};

/* _validate_result(result, expected, session) (docs/spec/controller.md
 * "Phase result validation"), in order; for the Final step the ledger,
 * final_e2e and report_summary too (final.h). */
int tc_result_validate(const tc_json *result, const tc_json *expected,
    const tc_session *s, unsigned flags, tc_error *err);
/* The same; for the Final step, when ledger_out is not NULL and the result
 * passes, *ledger_out gets the ledger it was checked against (the caller
 * frees it; NULL for every other step). */
int tc_result_validate_keep(const tc_json *result, const tc_json *expected,
    const tc_session *s, unsigned flags, tc_json **ledger_out,
    tc_error *err);

/* ---- init (init.c) ---------------------------------------------------- */

/* initialize_session (docs/spec/controller.md "Initializing a session"):
 * returns the session written (caller frees). */
tc_json *tc_session_init(const char *session_path, const char *artifact_root,
    const char *session_id, const char *optional_mode, tc_error *err);

/* ---- dispatch tasks (dispatch.c) -------------------------------------- */

/*
 * create_dispatch_task (docs/spec/controller.md "Creating a dispatch task") for
 * a loaded session.  seal_program is the program the task's
 * handoff.seal_command starts with: tunectl's own absolute path, or NULL for
 * the reference's ["python3", "scripts/auto_tune_session.py"].  Returns the
 * task.
 */
tc_json *tc_dispatch_task(const tc_session *s, const char *seal_program,
    tc_error *err);

/* Load the session at session_path and build its task (docs/spec/controller.md
 * "Creating a dispatch task" step 1). */
tc_json *tc_dispatch_task_for(const char *session_path,
    const char *seal_program, tc_error *err);

/* write_dispatch_task: build the task and write it (pretty JSON,
 * atomically, parents created) to output; returns the task.  Refuses an
 * output that is the session file itself. */
tc_json *tc_dispatch_write(const char *session_path, const char *output,
    const char *seal_program, tc_error *err);

/* validate_dispatch_task (docs/spec/controller.md "Task staleness"): 0 when
 * task matches the session now; *current (optional) receives the current task.
 */
int tc_dispatch_task_check(const tc_json *task, const char *session_path,
    const char *seal_program, tc_json **current, tc_error *err);
/* The same against a session the caller has loaded (and may go on to
 * seal, sharing its memo of the evidence it hashed). */
int tc_dispatch_task_check_loaded(const tc_json *task, const tc_session *s,
    const char *seal_program, tc_json **current, tc_error *err);

/* ---- seal (seal.c, short_circuit.c, scene.c) --------------------------- */

enum {
	/* the caller already holds the session lock */
	TC_SEAL_LOCKED = 1 << 0
};

/*
 * seal_handoff (docs/spec/controller.md "Sealing"): validate result against the
 * next pending step, write its phase scene, update the session (derived BASE
 * insertion, short-circuit, completion) and write it; for the Final step render
 * FINAL_E2E_REPORT.md.  On success *sealed (optional) receives the
 * session as written.
 *
 * Unlike the reference, an interrupted seal is recoverable: an existing
 * phase scene that is byte-identical to the one this seal would write is
 * adopted instead of refused (see docs/controller.md).
 */
int tc_seal_handoff(const char *session_path, const tc_json *result,
    unsigned flags, tc_session **sealed, tc_error *err);

/* The same on a loaded session (lock held by the caller); s is updated.
 * On failure s may be partly edited in memory: free it, reload. */
int tc_seal_session(tc_session *s, const tc_json *result, tc_error *err);

/* ---- verify, resume, status (verify.c, resume.c, status.c) ------------ */

enum {
	TC_VERIFY_ALL = 1 << 0,	/* list every problem, not the first */
	/* leave the BASE analyses' content fingerprints to the caller
	 * (derive-session checks the one it imports, with the reference's
	 * message) */
	TC_VERIFY_NO_ANALYSES = 1 << 1
};

/* verify_session (docs/spec/controller.md "Verify"): {"valid": true,
 * "session_id", "status"} or {"valid": false, "errors": [...]}. */
tc_json *tc_verify_session(const char *session_path, unsigned flags);
/* The same, and *loaded (when not NULL) gets the session it loaded, or
 * NULL when the session did not load (the caller frees it): what a caller
 * says beyond the verdict comes from that one load. */
tc_json *tc_verify_session_keep(const char *session_path, unsigned flags,
    tc_session **loaded);
/* The checks after loading, on a loaded session; appends messages to
 * errors (an array) and returns how many were added. */
size_t tc_verify_loaded(const tc_session *s, unsigned flags, tc_json *errors);

/* What resume did beyond verifying (tc_resume_report_free). */
typedef struct tc_resume_report {
	bool repaired;		/* completed an interrupted seal or the
				 * missing FINAL_E2E_REPORT.md */
	char *unadopted;	/* a scene of the next step that tunectl did
				 * not begin for this session state, left
				 * alone: its result path, or NULL */
} tc_resume_report;

/*
 * resume_session (docs/spec/controller.md "Next and resume"): {"next_step",
 * "session_id", "status"}, or an error
 * "session cannot be resumed: <errors joined by "; ">".  Before verifying,
 * completes a seal that was interrupted after its phase scene was written --
 * only when the scene's artifact manifest shows tunectl began it for this very
 * session state -- and re-renders a missing FINAL_E2E_REPORT.md of a completed
 * session; rep (optional) says what it did.  The session lock is taken only
 * when there is something to complete.
 */
tc_json *tc_resume_session(const char *session_path, tc_resume_report *rep,
    tc_error *err);
void tc_resume_report_free(tc_resume_report *rep);

/* Human summary for "tunectl status": steps, states, outcomes, the next
 * legal step and the command to run next. */
int tc_session_describe(const char *session_path, const char *program,
    tc_buf *out, tc_error *err);

#endif
