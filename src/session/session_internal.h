/*
 * session_internal.h - helpers shared by the files of src/session/ and by
 * nothing else: literal comparisons, phase scenes (the two files a sealed
 * step leaves under phases/<step_id>/) and the final report hook.
 */
#ifndef TUNECTL_SESSION_INTERNAL_H
#define TUNECTL_SESSION_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <string.h>

#include "tunectl/session.h"

/* A JSON string equal to lit (length-checked: "a\0b" is not "a"). */
static inline bool
sess_str_is(const tc_json *v, const char *lit)
{
	return tc_json_is(v, TC_JSON_STRING) && v->u.str.len == strlen(lit) &&
	    memcmp(v->u.str.ptr, lit, v->u.str.len) == 0;
}

/* err = prefix followed by the strings of errors joined with "; ". */
void tc_session__set_errors(tc_error *err, const char *prefix,
    const tc_json *errors);

/* Python's `a.get(key) == b.get(key)`: an absent key reads as None. */
bool tc_session__field_equal(const tc_json *a, const tc_json *b, const char *key);

/*
 * A phase scene: phases/<step_id>/phase-result.json and PHASE_REPORT.md
 * under the artifact root.  Texts are the exact bytes to write.
 */
struct sess_scene {
	char *result_rel;	/* "phases/<step_id>/phase-result.json" */
	char *result_path;	/* <root>/<result_rel> */
	char *report_path;	/* <root>/phases/<step_id>/PHASE_REPORT.md */
	char *manifest_rel;	/* "phases/<step_id>/artifact-manifest.json" */
	char *manifest_path;	/* <root>/<manifest_rel> */
	bool bind_in_doc;	/* strict: the manifest is a file of the scene,
				 * bound from the step; else in the sidecar */
};

/* The bytes of a scene's three files (malloc'd). */
struct sess_texts {
	char *result, *report, *manifest;
	size_t result_len, report_len, manifest_len;
};

void tc_session__texts_free(struct sess_texts *t);

void tc_session__scene_init(struct sess_scene *sc, const tc_session *s,
    const char *step_id);
void tc_session__scene_free(struct sess_scene *sc);

/* Either file present (lstat)? */
bool tc_session__scene_present(const struct sess_scene *sc);

/* Read the scene's phase-result.json (NULL when missing/unreadable;
 * *len gets its size). */
char *tc_session__scene_read_result(const struct sess_scene *sc, size_t *len);

/*
 * Does the scene on disk hold exactly these bytes?  True when the
 * result file is byte-identical to t->result and the report is either
 * absent or byte-identical to t->report: an earlier seal of the same
 * handoff that stopped before the session was written.
 */
bool tc_session__scene_matches(const struct sess_scene *sc,
    const struct sess_texts *t);

/*
 * Write the scene: the artifact manifest first (the intent record of
 * this seal), then the result (exclusive) unless adopt, then the report
 * unless it already exists with these bytes.  When adopting, a manifest
 * already on disk must be byte-identical (else
 * tc_session__refuse_adoption() names what changed).  Refuses a scene directory that
 * resolves outside the artifact root.
 */
int tc_session__scene_write(const tc_session *s, const struct sess_scene *sc,
    const struct sess_texts *t, bool adopt, tc_error *err);

/* Mark step sealed with this result and bind its manifest: state,
 * result_path, result_sha256, outcome_status, sealed_at, and when the
 * scene binds it in the document artifact_manifest_path,
 * artifact_manifest_sha256. */
void tc_session__mark_sealed(tc_json *step, const struct sess_scene *sc,
    const struct sess_texts *t, const char *digest, const char *status);

/* _seal_not_run_steps(session, reason_zh) (docs/spec/controller.md
 * "Short-circuit"); sealed_over is the fingerprint of the session the seal
 * started from. */
int tc_session__short_circuit(tc_session *s, const tc_json *reason_zh,
    const char *sealed_over, tc_error *err);

/* Render the pretty result text and its PHASE_REPORT.md into t. */
int tc_session__render_scene(const tc_json *result, const tc_json *step,
    struct sess_texts *t, tc_error *err);

/* Keep the rendered manifest t->manifest in the sidecar when the scene
 * does not bind it in the document: the sealed step's opens the seal's
 * record (first; adopt as for the scene), a short-circuited step's joins
 * it. */
int tc_session__bind_sidecar(tc_session *s, const struct sess_scene *sc,
    const struct sess_texts *t, bool first, bool adopt, tc_error *err);

/* Write the session document, last: under the reference policy the
 * sidecar's record of this seal first learns its digest. */
int tc_session__write_sealed(tc_session *s, tc_error *err);

/* Build the artifact manifest of result for step and render it into
 * t->manifest. */
int tc_session__render_manifest(const tc_session *s, const tc_json *step,
    const tc_json *result, const char *sealed_over, struct sess_texts *t,
    tc_error *err);

/* The refusal to complete an interrupted seal whose intent record (the
 * manifest it began with) no longer describes the artifacts as they are
 * now: names the first artifact that changed and the way out. */
void tc_session__refuse_adoption(const char *step_id,
    const tc_json *intent, const tc_json *now, tc_error *err);

/* Byte-compare a file with a buffer (false when unreadable). */
/* While a memo of artifact descriptions is kept (tc_session_memo_begin):
 * rel, read by this command as a regular file under the artifact root
 * through the same resolution tc_artifact_describe() makes, is the
 * file of these bytes (a path already described keeps its entry). */
void tc_session__memo_file(const tc_session *s, const char *rel,
    const char *sha256, uint64_t size);
/* tc_policy_record_check(), resolving session_path into *resolved (when
 * NULL and a record is looked for) for the caller to keep and free. */
int tc_session__policy_check(const char *session_path, const tc_json *doc,
    char **resolved, tc_error *err);
bool tc_session__file_equals(const char *path, const char *data, size_t len);

/* An embedded NUL in a path taken from a document: Python's open()
 * refuses it with "embedded null byte". */
int tc_session__check_path_text(const tc_json *v, tc_error *err);
/* The same for the session's artifact_root, before any file access. */
int tc_session__check_root(const tc_session *s, tc_error *err);

/* renderers.c: the report renderers registered from above
 * (tunectl/session_reports.h); each fails while none is registered. */
char *tc_session__phase_report(const tc_json *result, const tc_json *step,
    tc_error *err);
char *tc_session__final_report(const tc_json *session, tc_error *err);
/* The same from a Final result and ledger the caller has read. */
char *tc_session__final_report_from(const tc_json *session,
    const tc_json *result, const tc_json *ledger, tc_error *err);
int tc_session__write_final_report(const tc_json *session, tc_error *err);

#endif
