/*
 * seal.c - seal_handoff (§10.2): accept the next step's phase result,
 * leave its scene, advance the schedule (derived BASE insertion,
 * short-circuit, completion) and persist the session.
 *
 * Write order, chosen so that a crash at any point is repaired by
 * re-running the same seal (or by resume):
 *   1. phases/<step>/phase-result.json, then PHASE_REPORT.md (exclusive);
 *   2. the scenes of short-circuited steps;
 *   3. for the Final step, FINAL_E2E_REPORT.md (rendered from the
 *      session as it is about to be written);
 *   4. the session file, atomically, last.
 * Until step 4 the session on disk is unchanged, so the step is still
 * pending; a second seal of the same handoff finds byte-identical scenes
 * and adopts them instead of refusing "already sealed".
 */
#include <stdlib.h>
#include <string.h>

#include "session_int.h"
#include "tunectl/fileio.h"
#include "tunectl/report.h"

static int
check_acceptable(const tc_session *s, const tc_json *result, tc_error *err)
{
	const tc_json *claimed = tc_json_get(result, "step_id");
	size_t i;

	if (tc_session_is_completed(s)) {
		tc_error_set(err, "completed session cannot accept a handoff");
		return -1;
	}
	if (!tc_json_is(result, TC_JSON_OBJECT) || claimed == NULL)
		return 0;
	for (i = 0; i < tc_session_step_count(s); i++) {
		const tc_json *step = tc_session_step_at(s, i);

		if (tc_step_is_sealed(step) &&
		    tc_json_equal(claimed, tc_json_get(step, "step_id"))) {
			tc_error_set(err, "current step is already sealed: %s",
			    tc_step_id(step));
			return -1;
		}
	}
	return 0;
}

/* Step 3 of the write order: the Final report from the in-memory
 * session, before the session itself is written. */
static int
render_final(const tc_session *s, tc_error *err)
{
	return tc_report_write_final(s->doc, NULL, NULL, TC_REPORT_ZH, NULL,
	    err);
}

int
tc_seal_session(tc_session *s, const tc_json *result, tc_error *err)
{
	struct sess_scene sc = { NULL, NULL, NULL };
	char *text = NULL, *report = NULL;
	size_t text_len = 0, report_len = 0, index = 0;
	char digest[65];
	tc_json *expected;
	const char *status;
	bool adopt = false, final;
	int rc = -1;

	if (check_acceptable(s, result, err) != 0 || sess_check_root(s, err) != 0)
		return -1;
	if ((expected = tc_session_next_step(s, &index)) == NULL) {
		tc_error_set(err, "session has no pending step");
		return -1;
	}
	if (tc_result_validate(result, expected, s, 0, err) != 0)
		return -1;
	if (sess_render_scene(result, expected, &text, &text_len, &report,
	    &report_len, err) != 0 || tc_json_digest(result, digest, err) != 0)
		goto out;
	sess_scene_init(&sc, s, tc_step_id(expected));
	if (sess_scene_present(&sc)) {
		/* The reference refuses here; an identical scene is the
		 * trace of this very seal interrupted before step 4. */
		adopt = sess_scene_matches(&sc, text, text_len, report,
		    report_len);
		if (!adopt) {
			tc_error_set(err, "current step is already sealed: %s",
			    tc_step_id(expected));
			goto out;
		}
	}
	if (sess_scene_write(s, &sc, text, text_len, report, report_len, adopt,
	    err) != 0)
		goto out;

	status = tc_json_get_string(result, "status");
	final = tc_step_phase(expected)->id == TC_PHASE_FINAL;
	sess_mark_sealed(expected, sc.result_rel, digest, status);
	if (tc_schedule_inserts_derived_base(s->optional_mode,
	    tc_step_id(expected), status))
		tc_schedule_insert_derived_base(s->steps, index);
	if (tc_must_short_circuit(tc_step_phase(expected), status) &&
	    sess_short_circuit(s, tc_json_get(result, "summary_zh"), err) != 0)
		goto out;
	if (final) {
		tc_json_object_set_string(s->doc, "status", "completed");
		tc_session_refresh(s);
		if (render_final(s, err) != 0)
			goto out;
	}
	rc = tc_write_json(s->path, s->doc, 0, err);
out:
	free(text);
	free(report);
	sess_scene_free(&sc);
	return rc;
}

int
tc_seal_handoff(const char *session_path, const tc_json *result,
    unsigned flags, tc_session **sealed, tc_error *err)
{
	tc_lock lock;
	tc_session *s = NULL;
	int rc;

	if (sealed != NULL)
		*sealed = NULL;
	if (!(flags & TC_SEAL_LOCKED) &&
	    tc_session_lock(session_path, &lock, err) != 0)
		return -1;
	rc = tc_session_load(session_path, 0, &s, err);
	if (rc == 0)
		rc = tc_seal_session(s, result, err);
	if (!(flags & TC_SEAL_LOCKED))
		tc_lock_release(&lock);
	if (rc == 0 && sealed != NULL)
		*sealed = s;
	else
		tc_session_free(s);
	return rc;
}
