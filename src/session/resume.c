/*
 * resume.c - resume_session (docs/spec/controller.md "Next and resume"): after
 * a restart, verify the session and name the step to continue with.
 *
 * Beyond the reference, resume first finishes what an interrupted seal
 * left half done (docs/controller.md, "Recovery"):
 *   - the next pending step already has a phase scene that tunectl began
 *     to write for the session as it is on disk (its artifact manifest,
 *     written first, names this session state and this result) and whose
 *     result is a valid handoff for it: the seal stopped before the
 *     session was written, so the seal is completed with that result
 *     (and when that seal refuses, because the evidence it bound
 *     changed since it began, resume refuses with its reason);
 *   - a completed session lacks FINAL_E2E_REPORT.md (a reference seal of
 *     Final that stopped after writing the session): it is rendered.
 * A scene without such a record -- a reference seal that stopped half
 * way, or a file a worker planted for a later phase -- is left alone and
 * reported; `tunectl seal --result <that file>` adopts it on purpose.
 */
#include <stdlib.h>
#include <string.h>

#include "session_internal.h"
#include "tunectl/evidence.h"
#include "tunectl/fileio.h"

/* Complete an interrupted seal of the next step: 1 when s was replaced
 * by the sealed session, 0 when there is none to complete (a scene
 * tunectl did not begin for this session state is named in
 * rep->unadopted instead), -1 with err set when the seal refuses (the
 * evidence it bound changed since it began, say): resume then refuses
 * with the seal's reason rather than leave the step pending unsaid. */
static int
complete_interrupted_seal(tc_session **sp, tc_resume_report *rep,
    tc_error *err)
{
	tc_session *s = *sp, *fresh;
	struct sess_scene sc;
	tc_json *step, *result;
	char *bytes;
	size_t len;
	int rc = 0;

	if (tc_session_is_completed(s) ||
	    (step = tc_session_next_step(s, NULL)) == NULL)
		return 0;
	tc_session__scene_init(&sc, s, tc_step_id(step));
	bytes = tc_session__scene_read_result(&sc, &len);
	tc_session__scene_free(&sc);
	if (bytes == NULL)
		return 0;
	result = tc_json_parse(bytes, len, NULL);
	free(bytes);
	if (result == NULL)
		return 0;
	if (!tc_manifest_is_intent(s, step, result)) {
		if (rep != NULL && rep->unadopted == NULL)
			rep->unadopted = tc_xasprintf("phases/%s/phase-result.json",
			    tc_step_id(step));
		tc_json_free(result);
		return 0;
	}
	/* Seal a copy: a failed seal may leave its session half edited. */
	fresh = tc_session_wrap(tc_json_clone(s->doc), s->path);
	if (tc_seal_session(fresh, result, err) == 0) {
		tc_session_free(s);
		*sp = fresh;
		rc = 1;
	} else {
		tc_session_free(fresh);
		tc_error_prefix(err, "session cannot be resumed: ");
		rc = -1;
	}
	tc_json_free(result);
	return rc;
}

static bool
render_missing_final_report(const tc_session *s)
{
	tc_error err = TC_ERROR_INIT;
	char *report;
	bool missing, done = false;

	if (!tc_session_is_completed(s))
		return false;
	report = tc_session_artifact_path(s, "FINAL_E2E_REPORT.md");
	missing = !tc_path_exists(report);
	free(report);
	if (missing)
		done = tc_session__write_final_report(s->doc, &err) == 0;
	tc_error_clear(&err);
	return done;
}

static tc_json *
resume_output(const tc_session *s)
{
	tc_json *out = tc_json_new_object();
	tc_json *next = tc_session_next_step(s, NULL);

	tc_json_object_set(out, "next_step",
	    next != NULL ? tc_json_clone(next) : tc_json_new_null());
	tc_json_object_set(out, "session_id",
	    tc_json_clone(tc_json_get(s->doc, "session_id")));
	tc_json_object_set_string(out, "status", s->status);
	return out;
}

/* Is there anything for resume to complete?  Checked without the lock,
 * so that resuming a finished session on a read-only mount works. */
static bool
needs_repair(const tc_session *s)
{
	struct sess_scene sc;
	tc_json *step;
	char *report;
	bool present;

	if (tc_session_is_completed(s)) {
		report = tc_session_artifact_path(s, "FINAL_E2E_REPORT.md");
		present = tc_path_exists(report);
		free(report);
		return !present;
	}
	if ((step = tc_session_next_step(s, NULL)) == NULL)
		return false;
	tc_session__scene_init(&sc, s, tc_step_id(step));
	present = tc_path_exists(sc.result_path);
	tc_session__scene_free(&sc);
	return present;
}

/* Under the session lock, on a fresh load: complete what was left. */
static int
repair(const char *session_path, tc_session **sp, tc_resume_report *rep,
    bool *fixed, tc_error *err)
{
	tc_session *s;
	tc_lock lock;
	size_t i, limit;
	int done = 0;

	if (tc_session_lock(session_path, &lock, err) != 0)
		return -1;
	if (tc_session_load(session_path, 0, &s, err) != 0) {
		tc_lock_release(&lock);
		return -1;
	}
	limit = tc_session_step_count(s);
	for (i = 0; i < limit &&
	    (done = complete_interrupted_seal(&s, rep, err)) == 1; i++)
		*fixed = true;
	if (done >= 0 && render_missing_final_report(s))
		*fixed = true;
	tc_lock_release(&lock);
	tc_session_free(*sp);
	*sp = s;
	return done < 0 ? -1 : 0;
}

tc_json *
tc_resume_session(const char *session_path, tc_resume_report *rep,
    tc_error *err)
{
	tc_session *s = NULL;
	tc_json *errors = NULL, *out = NULL;
	bool fixed = false;

	if (rep != NULL)
		memset(rep, 0, sizeof(*rep));
	if (tc_session_load(session_path, 0, &s, err) != 0)
		return NULL;
	if (needs_repair(s) && repair(session_path, &s, rep, &fixed, err) != 0)
		goto out;
	errors = tc_json_new_array();
	if (tc_verify_loaded(s, 0, errors) > 0) {
		tc_session__set_errors(err, "session cannot be resumed: ", errors);
		goto out;
	}
	out = resume_output(s);
	if (rep != NULL)
		rep->repaired = fixed;
out:
	tc_json_free(errors);
	tc_session_free(s);
	return out;
}

void
tc_resume_report_free(tc_resume_report *rep)
{
	free(rep->unadopted);
	memset(rep, 0, sizeof(*rep));
}
