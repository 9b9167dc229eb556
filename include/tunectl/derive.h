/*
 * derive.h - derived sessions (docs/spec/controller.md "Derived sessions"):
 * starting an optional-experiment session from a completed parent's accepted
 * BASE/SMAP evidence (derive-session, source-range-from-smap), the content
 * checks of the imported files (docs/spec/controller.md "Imported file checks",
 * "Imported ledger checks"), and two audit views beyond the reference: the
 * lineage of a derived session and a verify that also re-verifies every
 * ancestor.
 *
 * The re-validation of a derived session's evidence import on every load
 * (docs/spec/controller.md "Evidence-import manifest") is
 * tc_evidence_import_validate() in session.h; it uses the content checks
 * declared here.
 */
#ifndef TUNECTL_DERIVE_H
#define TUNECTL_DERIVE_H

#include <stdbool.h>

#include "tunectl/error.h"
#include "tunectl/json.h"
#include "tunectl/session.h"

/* Where a derived session keeps its evidence-import manifest, relative to
 * its artifact root. */
#define TC_EVIDENCE_IMPORT_PATH "imports/evidence-import.json"

/* How deep tc_session_lineage() and tc_verify_session_deep() follow
 * parents before giving up. */
#define TC_LINEAGE_MAX_DEPTH 32

/* ---- derive-session / source-range-from-smap (derive.c) ------------------ */

struct tc_derive_args {
	const char *parent_session;	/* --parent-session */
	const char *session;		/* --session */
	const char *artifact_root;	/* --artifact-root */
	const char *session_id;		/* --session-id */
	const char *optional_mode;	/* multistream, source-range or both */
	const char *profiling_analysis;	/* --profiling-analysis */
	const char *ledger;		/* --ledger */
	const char *source_scope_map;	/* --source-scope-map, or NULL */
	bool approved;			/* --approve-imported-evidence */
	/* --evidence-policy, or NULL: the parent's.  It may only tighten
	 * the parent's (reference -> strict), never loosen it. */
	const char *evidence_policy;
};

/*
 * derive_session (docs/spec/controller.md "Derivation preconditions"): every
 * precondition in the reference's order with its message; then the child's
 * directories, the evidence-import manifest (docs/spec/controller.md
 * "Evidence-import manifest") and the session are written, and the session is
 * loaded back with full validation.  Returns the loaded session (caller frees)
 * or NULL.
 *
 * The child keeps the parent's evidence policy, or the stricter one
 * args->evidence_policy names ("derived evidence_policy reference would
 * loosen the parent's strict evidence policy ..." otherwise); the check
 * runs right after the parent's, before the reference's later steps.
 *
 * Nothing is written until every check has passed, and a failure while
 * writing removes what this call created (files and directories), so a
 * refused derivation leaves the filesystem as it found it.
 */
tc_session *tc_derive_session(const struct tc_derive_args *args,
    tc_error *err);

/*
 * docs/spec/controller.md "Derivation preconditions" step 11 on a loaded parent
 * whose artifact root resolves to parent_root: the last sealed
 * base_profile_source_mapping step with outcome succeeded or no_gain ("parent
 * session has no accepted BASE/SMAP handoff"), refused when an accepted
 * optional-multistream follows it ("accepted multistream requires a later
 * derived BASE/SMAP handoff"); its result is read from
 * <parent_root>/<result_path> ("BASE/SMAP phase result cannot be read: ...",
 * "... must be a JSON object") and must match the step's result_sha256
 * ("BASE/SMAP phase result digest mismatch").  On success *step points into
 * parent, *result (caller frees) is the result and file_sha256 the SHA-256 of
 * its bytes.
 */
int tc_derive_latest_base(const tc_session *parent, const char *parent_root,
    const tc_json **step, tc_json **result, char file_sha256[65],
    tc_error *err);

/* ---- imported file content checks (import_checks.c) --------------------- */

/* analysis_content_fingerprint (docs/spec/controller.md
 * "Where each digest is used"): the analysis without that key, sort_keys,
 * compact, ensure_ascii=True, allow_nan=False.  A NaN or infinity fails with
 * "Out of range float values are not JSON compliant". */
int tc_import_analysis_fingerprint(const tc_json *analysis, char hex[65],
    tc_error *err);

/* provenance.source_scope_map_content_fingerprint (docs/spec/controller.md
 * "Where each digest is used"): the map with that key removed from an object
 * "provenance", digested as _digest does (ensure_ascii=False, NaN allowed). */
int tc_import_source_map_fingerprint(const tc_json *source_map, char hex[65],
    tc_error *err);

/* docs/spec/controller.md "Imported profiling analysis":
 * "profiling analysis must be a JSON object",
 * "... must use schema_version 1.2", the four identity strings, the content
 * fingerprint, an exact source_scope_mapping when present. */
int tc_import_check_analysis(const tc_json *analysis, tc_error *err);

/* docs/spec/controller.md "Imported source scope map" against an analysis that
 * passed tc_import_check_analysis(). */
int tc_import_check_source_map(const tc_json *source_map,
    const tc_json *analysis, tc_error *err);

/* docs/spec/controller.md "Imported ledger checks" against an analysis that
 * passed tc_import_check_analysis(). */
int tc_import_check_ledger(const tc_json *ledger, const tc_json *analysis,
    tc_error *err);

/* ---- lineage and deep verification (lineage.c) -------------------------- */

/*
 * The parent a derived session document names through its manifest:
 * <parent.artifact_root>/<parent.session_path> (malloc'd), *manifest
 * (optional) receiving the manifest read from the session's artifact root.
 * The manifest is read but not re-validated: use it to locate, and
 * tc_session_load() to trust.  Returns NULL with err empty for a full
 * session, NULL with err set when the manifest cannot be read or does not
 * name a parent.
 */
char *tc_derived_parent_path(const tc_json *session_doc, tc_json **manifest,
    tc_error *err);

/*
 * "tunectl lineage": the chain child -> parent -> ... as
 *   {"chain": [entry...], "depth": N, "valid": bool}
 * where each entry holds the session's path, id, status, entrypoint,
 * optional mode, fingerprint and file digest, its load validation
 * ("valid", "errors") and, for a derived session, what it imported
 * ("imported": parent, BASE handoff, artifacts with resolved paths,
 * identity, approval time).  "valid" is true when every session of the
 * chain loads with full validation and the chain ends at a full session.
 */
tc_json *tc_session_lineage(const char *session_path);

/*
 * verify --deep: tc_verify_session() and, for a derived session, the same
 * deep verification of its parent, recorded as "parent": {"session_path",
 * verify fields...} ("parent": null for a full session).  An invalid parent
 * makes the child invalid with "parent session is invalid: <errors>".
 */
tc_json *tc_verify_session_deep(const char *session_path, unsigned flags);
/* The same, and *loaded gets the session itself as verify loaded it (NULL
 * when it did not load; the caller frees it), as tc_verify_session_keep(). */
tc_json *tc_verify_session_deep_keep(const char *session_path,
    unsigned flags, tc_session **loaded);

/*
 * Plain verify (what `tunectl verify` prints without --deep): the
 * session's own checks, and for a derived session every ancestor's too,
 * so evidence the child imported cannot change under it unnoticed (a
 * parent's sealed result or ledger rewritten after the import).  The
 * verdict has tc_verify_session()'s shape: a valid one is the
 * reference's document; an invalid ancestor adds "parent session is
 * invalid: <its errors>".
 */
tc_json *tc_verify_session_covered(const char *session_path,
    unsigned flags);
tc_json *tc_verify_session_covered_keep(const char *session_path,
    unsigned flags, tc_session **loaded);

#endif
