/*
 * evidence.h - what tunectl binds beyond the reference controller's
 * formats, all of it invisible to a reference reader:
 *
 *   - the evidence policy a session was created with ("reference", the
 *     default, or "strict"), recorded as the session key
 *     "evidence_policy" (absent = reference) and repeated in every
 *     artifact manifest, so removing it is noticed; a strict session's
 *     policy is also recorded outside the artifact root when it is
 *     created (policy_record.c), which covers the time before its first
 *     manifest;
 *   - the artifact manifest of every step tunectl seals: the sha256 and
 *     size of every file the result names, a tree digest for every
 *     directory.  A strict session keeps it in
 *     phases/<step_id>/artifact-manifest.json, bound to the step by
 *     "artifact_manifest_path" / "artifact_manifest_sha256"; a
 *     reference-policy session keeps it in its sidecar outside the
 *     artifact root, so its document and root stay the reference's byte
 *     for byte.  tc_manifest_load() reads either.  Written before
 *     anything else of the seal, it is also the record that tunectl
 *     itself started that seal (resume adopts no other scene);
 *   - files planted in the scenes of pending steps, and their quarantine;
 *   - derived reports checked against what they are derived from
 *     (PHASE_REPORT.md, FINAL_E2E_REPORT.md);
 *   - under the strict policy, gate evidence for every status claim and
 *     the transition rules (docs/controller.md, "Evidence policies").
 *
 * Everything here refuses only what is inconsistent with what was
 * sealed; docs/security.md says what that does and does not protect.
 */
#ifndef TUNECTL_EVIDENCE_H
#define TUNECTL_EVIDENCE_H

#include <stdbool.h>

#include "tunectl/error.h"
#include "tunectl/json.h"
#include "tunectl/session.h"

#define TC_MANIFEST_SCHEMA	"tunectl-artifact-manifest-v1"
#define TC_MANIFEST_FILE	"artifact-manifest.json"
/* The file beside an evidence file that says how tunectl computed it
 * (tunectl gate --json-out, tunectl ledger final-e2e). */
#define TC_PROVENANCE_SUFFIX	".provenance.json"

/* ---- the evidence policy (policy.c) ----------------------------------- */

typedef enum tc_policy {
	TC_POLICY_REFERENCE = 0,	/* the reference's checks, plus binding */
	TC_POLICY_STRICT		/* gate evidence and transition rules */
} tc_policy;

const char *tc_policy_name(tc_policy p);
/* "reference" / "strict"; -1 for anything else. */
int tc_policy_parse(const char *name, tc_policy *out);
/* The "evidence_policy" key of a session document: absent is reference;
 * any value but "reference" or "strict" fails with "session
 * evidence_policy is invalid". */
int tc_policy_of_doc(const tc_json *doc, tc_policy *out, tc_error *err);
/* The policy of a validated session. */
tc_policy tc_session_policy(const tc_session *s);

/* tc_session_init() with an evidence policy: a strict session records
 * "evidence_policy": "strict"; a reference session is byte for byte the
 * document the reference's init writes. */
tc_json *tc_session_init_policy(const char *session_path,
    const char *artifact_root, const char *session_id,
    const char *optional_mode, tc_policy policy, tc_error *err);

/* ---- the policy record (policy_record.c) ------------------------------ */

/* <state>/policies/<sha256 of the resolved session path>.json, outside
 * the artifact root; NULL without a state directory. */
char *tc_policy_record_path(const char *session_path);
/* Before a new session document is first written at session_path (init,
 * derive-session; recorded_by names the command): a strict doc gets its
 * record ("cannot record the evidence policy outside the artifact root
 * ..." when it cannot be written); a reference doc removes a record an
 * earlier session left at that path.  Nothing without a state
 * directory. */
int tc_policy_record_start(const char *session_path, const tc_json *doc,
    const char *recorded_by, tc_error *err);
/* Every load: a session file that says reference where its record says
 * strict is refused ("evidence policy of session PATH recorded at init
 * is strict; the session file says reference ..."), as is a reference
 * file whose record cannot be read.  No record: nothing to check. */
int tc_policy_record_check(const char *session_path, const tc_json *doc,
    tc_error *err);
/* What status and verify say of a session's policy record: for a strict
 * session *line (allocated) names the record and what it says (0), or
 * why the session has none that says strict: no state directory, no
 * record at the path (an older tunectl, the reference, a moved session),
 * one that cannot be read (1).  A reference session: 0, *line NULL. */
int tc_policy_record_note(const char *session_path, tc_policy policy,
    char **line);

/* ---- artifact manifests (manifest.c) ---------------------------------- */

/*
 * What is at <root>/<rel> now, as a manifest entry: {"path": rel, "kind":
 * "file", "sha256", "size_bytes"}, {"kind": "directory", "sha256" (the
 * tc_sha256_tree digest), "file_count", "size_bytes"}; what holds or is
 * something else, bound by what it is: {"kind": "tree", "sha256" (over
 * "<kind> <sha256>  <path>\n" of every entry of tc_tree_snapshot, a
 * link by its text), "file_count", "link_count", "special_count",
 * "first_irregular"} for a directory holding links or special files,
 * {"kind": "symlink", "target" (the link text), "sha256" (of that text)}
 * for a link that does not lead inside the root (dangling or out of
 * it), {"kind": "special", "type": "fifo" | "socket" | "device"};
 * {"kind": "missing"}, or {"kind": "unbound", "reason"} when it cannot be
 * bound (unreadable, a name a tree digest refuses).  root must be the
 * artifact root as the session stores it.  Never NULL.  A strict seal
 * refuses the tree, symlink and special kinds, naming the entry.
 */
tc_json *tc_artifact_describe(const char *root, const char *rel);

/*
 * The manifest of a result about to be sealed for step: every path the
 * result names (consumed and produced artifacts; for the Final step its
 * ledger and the ledger's final_e2e and report_summary evidence) and the
 * provenance file beside each of them, described now.  sealed_over is
 * the fingerprint of the session the seal started from.  Under the
 * strict policy an artifact that is missing or cannot be bound fails
 * the seal, naming it.
 */
tc_json *tc_manifest_build(const tc_session *s, const tc_json *step,
    const tc_json *result, const char *sealed_over, tc_error *err);

/* The manifest a sealed step binds, wherever the binding is kept: in the
 * session document (strict; read and checked against
 * artifact_manifest_sha256: "artifact manifest digest mismatch: <step>")
 * or in the session's sidecar (reference; its chain checked first).
 * *out is NULL (and 0 returned) when the step binds none. */
int tc_manifest_load(const tc_session *s, const tc_json *step,
    tc_json **out, tc_error *err);

/*
 * verify: the step's manifest is intact, was sealed for this step and
 * result under this artifact root and policy, and every artifact it
 * binds is what it was ("bound artifact changed since <step> was sealed:
 * <path>").  A step that binds no manifest passes, except under the
 * strict policy.
 */
int tc_manifest_check(const tc_session *s, const tc_json *step,
    tc_error *err);

/* dispatch and every command that seals (seal, run-next, resume): every
 * sealed step's manifest checks out (tc_manifest_check), so no worker
 * builds on changed evidence and nothing is sealed over it.  Each
 * artifact is hashed once (the session's memo, or one for this call). */
int tc_session_check_bound(const tc_session *s, tc_error *err);

/*
 * Keep one description (digest) per artifact path in s while a command
 * checks bound evidence, builds the new step's manifest and seals, with
 * no worker running in between: so an artifact is hashed once per
 * command, however many steps bind it.  begin returns false (and changes
 * nothing) when a memo is already kept; whoever began it ends it, and
 * must end it before a worker runs again (what the memo says is what
 * the files were when they were hashed).
 */
bool tc_session_memo_begin(tc_session *s);
void tc_session_memo_end(tc_session *s);

/* Every artifact path (relative to the root) the sealed steps bind: the
 * entries of each step's manifest, or, for a step that binds none, the
 * paths its sealed result names.  An object whose keys are the paths;
 * never NULL.  Support runs refuse a change to any of them. */
tc_json *tc_session_bound_paths(const tc_session *s);

/* What the sealed steps' manifests leave unbound, one line each (verify
 * prints them on stderr, status in its report): every entry that is
 * "unbound" or was "missing" when it was sealed.  (A step that binds no
 * manifest at all is tc_session_unbound_steps' and tc_unbound_note's.)
 * An array of strings; never NULL. */
tc_json *tc_session_unbound(const tc_session *s);

/* The step ids of the sealed steps that bind no manifest (unbound:
 * sealed by the reference, or their sidecar is gone).  Caller frees. */
tc_json *tc_session_unbound_steps(const tc_session *s);
/* tc_session_unbound(), *steps_unbound (when not NULL) getting
 * tc_session_unbound_steps(): one load of each step's manifest for both
 * (verify and status say both). */
tc_json *tc_session_unbound_all(const tc_session *s, tc_json **steps_unbound);

/* render-final-report: the ledger and evidence the sealed Final step
 * binds are unchanged (a Final sealed without a manifest passes). */
int tc_session_check_final_evidence(const tc_session *s, tc_error *err);

/* The session's artifact_root is the root its first manifest-bound step
 * was sealed under ("artifact_root differs from the root <step> was
 * sealed under: <root>"). */
int tc_session_check_root(const tc_session *s, tc_error *err);

/*
 * Is <root>/phases/<step>/ a scene tunectl wrote for the next step of s:
 * a manifest for this step whose sealed_over is the fingerprint of s as
 * it is now and whose result_sha256 is the digest of result?  The
 * intent record resume requires before it completes a seal.
 */
bool tc_manifest_is_intent(const tc_session *s, const tc_json *step,
    const tc_json *result);

/* ---- the sidecar of a reference-policy session (sidecar.c) ------------ */

/*
 * Under the reference policy the session document and the artifact root
 * hold exactly what the reference writes; the artifact manifests of the
 * steps tunectl seals (and the files it quarantines) are kept in the
 * session's sidecar, a chain of records outside the artifact root
 * (docs/security.md, "The sidecar").  A session without one (made by the
 * reference, or whose sidecar was deleted) verifies as the reference
 * would, its artifacts unbound.
 */
#define TC_SIDECAR_SCHEMA	"tunectl-sidecar-v1"

typedef struct tc_sidecar tc_sidecar;

/* Where the sidecar of the session at session_path is kept:
 * <state>/sidecars/<sha256 of its resolved path>.json, <state> being
 * $TUNECTL_STATE_DIR, $XDG_STATE_HOME/tunectl or
 * $HOME/.local/state/tunectl.  NULL when none of them is set. */
char *tc_sidecar_path(const char *session_path);

/* The session's sidecar, read on first use and kept with the session. */
const tc_sidecar *tc_session_sidecar(const tc_session *s);
void tc_sidecar_free(tc_sidecar *sc);
/* Its path (NULL: no state directory). */
const char *tc_sidecar_where(const tc_sidecar *sc);
/* Is there a sidecar of this session (one left by another session at
 * the same path does not count)? */
bool tc_sidecar_present(const tc_sidecar *sc);
/* Why its chain does not hold, or NULL. */
const char *tc_sidecar_problem(const tc_sidecar *sc);

/* The manifest the sidecar binds to a sealed step (the newest record
 * whose seal the session shows), or NULL.  Borrowed from the session. */
const tc_json *tc_sidecar_manifest(const tc_session *s, const char *step_id);
/* The manifest of an interrupted seal: the last record, whose step the
 * session still shows pending.  NULL when there is none. */
const tc_json *tc_sidecar_intent(const tc_session *s);
/* verify: the chain holds, and no record but the last seals a step the
 * session does not show sealed ("sidecar binds a seal of <step> that the
 * session does not show: <path>"). */
int tc_sidecar_check(const tc_session *s, tc_error *err);
/* tc_sidecar_check(), then *out = tc_sidecar_manifest(s, step_id): the
 * records' states worked out once for both. */
int tc_sidecar_checked_manifest(const tc_session *s, const char *step_id,
    const tc_json **out, tc_error *err);

/* seal, before anything else is written: replace an interrupted seal's
 * record and append this seal's (its step's manifest).  With adopt (the
 * seal completes an interrupted one) the interrupted record must bind
 * the same artifacts.  Writes the sidecar; does nothing without a state
 * directory. */
int tc_sidecar_begin_seal(tc_session *s, const tc_json *manifest,
    bool adopt, tc_error *err);
/* Add a short-circuited step's manifest to the seal's record (memory). */
void tc_sidecar_add_manifest(tc_session *s, const tc_json *manifest);
/* Record the digest of the session file about to be written and write
 * the sidecar (the step before the session is written). */
int tc_sidecar_commit(tc_session *s, const char *session_sha256,
    tc_error *err);
/* What verify and status say (on stderr) about a reference-policy
 * session with unbound sealed steps: "artifacts unbound: <ids> (...)";
 * NULL when every sealed step is bound, or under the strict policy
 * (which refuses unbound steps).  Caller frees. */
char *tc_unbound_note(const tc_session *s);
/* The same from the unbound steps' ids, already worked out
 * (tc_session_unbound_all). */
char *tc_unbound_note_of(const tc_session *s, const tc_json *ids);

/* init: a new chain for a new session (replacing whatever an earlier
 * session left at its path), whose first record binds its document. */
int tc_sidecar_start(tc_session *s, const char *session_sha256,
    tc_error *err);
/* The same for a document about to be written at session_path (init,
 * derive-session), bound to the bytes tc_write_json will write. */
int tc_sidecar_start_doc(const char *session_path, const tc_json *doc,
    tc_error *err);

/* Append a "quarantine" record naming files (tc_quarantine_files's
 * entries) and the digest of the session file; written before they move. */
int tc_sidecar_record_quarantine(tc_session *s, const tc_json *files,
    tc_error *err);

/* ---- planted files (quarantine.c) -------------------------------------- */

/*
 * The files in the scenes of pending steps (phase-result.json,
 * PHASE_REPORT.md) that no seal of tunectl began: [{"step_id", "path"}].
 * The next step's scene is not one when it is an interrupted seal tunectl
 * began for the session as it is (resume completes it).  Caller frees.
 */
tc_json *tc_planted_files(const tc_session *s);

/*
 * Move files (entries as tc_planted_files gives them, grouped by step)
 * into <root>/quarantine/<step_id>-NNN/, kept as evidence: each entry
 * gains "moved_to" and "was" (tc_artifact_describe before the move); the
 * sidecar records them all first, then each is renamed.
 */
int tc_quarantine_files(tc_session *s, tc_json *files, tc_error *err);

/* tunectl quarantine: under the session lock, every planted file of the
 * session.  Returns {"quarantined": [...], "session_id"} (caller frees)
 * or NULL with err set. */
tc_json *tc_quarantine_session(const char *session_path, tc_error *err);

/* Strict run-next, right before it seals result for step: a scene that
 * is present and is not exactly what this seal writes is quarantined.
 * *moved receives the entries moved (empty when none; caller frees). */
int tc_quarantine_scene(tc_session *s, const tc_json *step,
    const tc_json *result, tc_json **moved, tc_error *err);

/* ---- derived reports (report_check.c) ---------------------------------- */

/* PHASE_REPORT.md at report_path says what the sealed result says
 * ("phase report differs from its sealed result: <step>"). */
int tc_check_phase_report(const tc_json *result, const tc_json *step,
    const char *report_path, tc_error *err);
/* The same check of the report's bytes, read by the caller (verify reads
 * each report once: the read that finds it present is the one compared). */
int tc_check_phase_report_text(const tc_json *result, const tc_json *step,
    const char *have, size_t have_len, tc_error *err);
/* FINAL_E2E_REPORT.md of a completed session is the report rendered
 * from its sealed evidence now.  result and ledger: the Final result and
 * its ledger when the caller has already read and validated them (both,
 * or NULL for both to read them here). */
int tc_check_final_report(const tc_session *s, const tc_json *result,
    const tc_json *ledger, tc_error *err);

/* ---- the strict policy (strict.c, strict_gates.c, reentry.c) ----------- */

/*
 * The checks a result must pass before it is sealed for step (the next
 * pending step of s) under the strict policy: gate evidence for its
 * status claim and transition rules 2, 3, 4, 5 and 8.  Every refusal
 * names the rule and the evidence.  verify runs the same checks on every
 * sealed step (with the session as it was before that step).
 */
int tc_strict_check_result(const tc_session *s, const tc_json *step,
    const tc_json *result, tc_error *err);

/*
 * Rule 6 at seal: a BASE step sealed "failed" re-enters Stage O with the
 * next ranked eligible Stage A candidate not tried yet: the steps
 * stage-o-option-tuning-<n> and base-profile-source-mapping-<n> (each
 * naming it in "reentry_candidate") are inserted after it.  Returns true
 * when it inserted them (the seal then does not short-circuit).
 */
bool tc_strict_reenter(tc_session *s, size_t base_index);

/* Rule 6 at verify: a BASE sealed "failed" while a ranked candidate was
 * left is followed by its re-entry steps. */
int tc_strict_check_reentered(const tc_session *s, size_t base_index,
    tc_error *err);

/* Rule 7 at seal: an accepted optional-multistream of a "both" session
 * marks the BASE it supersedes with "superseded_by". */
void tc_strict_mark_superseded(tc_session *s, size_t multistream_index);

/* Schedule check of a strict session: the re-entry steps are legal where
 * rule 6 put them, the superseded marks where rule 7 put them; *canon
 * receives the steps without the re-entry pairs (caller frees) for the
 * canonical-schedule comparison. */
int tc_strict_schedule(const tc_json *doc, tc_json **canon, tc_error *err);

#endif
