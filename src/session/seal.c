/*
 * seal.c - seal_handoff (docs/spec/controller.md "Sealing"): accept the next
 * step's phase result, leave its scene, advance the schedule (derived BASE
 * insertion, short-circuit, completion) and persist the session.
 *
 * Write order, chosen so that a crash at any point is repaired by
 * re-running the same seal (or by resume):
 *   1. the step's artifact manifest, tunectl's intent record (the
 *      session state this seal started from and the result it seals):
 *      strict, phases/<step>/artifact-manifest.json; reference, a new
 *      record of the sidecar (sidecar.c);
 *      then phase-result.json and PHASE_REPORT.md (exclusive);
 *   2. the scenes of short-circuited steps (each with its manifest, in
 *      the scene or in the sidecar record in memory);
 *   3. for the Final step, FINAL_E2E_REPORT.md (rendered from the
 *      session as it is about to be written);
 *   4. reference: the sidecar again, its record now complete with the
 *      digest of the session about to be written;
 *   5. the session file, atomically, last.
 * Until step 5 the session on disk is unchanged, so the step is still
 * pending; a second seal of the same handoff finds byte-identical scenes
 * and adopts them instead of refusing "already sealed".
 */
#include <stdlib.h>
#include <string.h>

#include "session_internal.h"
#include "tunectl/evidence.h"
#include "tunectl/fileio.h"

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

/* A scene is on disk that this seal did not begin.  The reference's
 * answer stands under its policy; tunectl's own says what is true: the
 * step is not sealed. */
static void
refuse_scene(const tc_session *s, const tc_json *step, tc_error *err)
{
	if (tc_session_policy(s) != TC_POLICY_STRICT) {
		tc_error_set(err, "current step is already sealed: %s",
		    tc_step_id(step));
		return;
	}
	tc_error_set(err, "step %s is not sealed, but its scene holds files "
	    "tunectl did not write (phases/%s/): seal that phase-result.json "
	    "if it is the step's result, or move them aside with tunectl "
	    "quarantine --session %s", tc_step_id(step), tc_step_id(step),
	    s->path);
}

/* Step 3 of the write order: the Final report from the in-memory
 * session, before the session itself is written. */
static int
render_final(const tc_session *s, tc_error *err)
{
	return tc_session__write_final_report(s->doc, err);
}

/* The schedule after sealing the step at index with status: the derived
 * BASE of an accepted multistream (rule 7 also marks the BASE it
 * supersedes), a strict re-entry after a failed BASE (rule 6), or the
 * short-circuit to Final. */
static int
advance(tc_session *s, size_t index, const tc_json *result,
    const char *sealed_over, tc_error *err)
{
	tc_json *step = tc_session_step_at(s, index);
	const char *status = tc_json_get_string(result, "status");
	bool strict = tc_session_policy(s) == TC_POLICY_STRICT;

	if (tc_schedule_inserts_derived_base(s->optional_mode,
	    tc_step_id(step), status)) {
		tc_schedule_insert_derived_base(s->steps, index);
		if (strict)
			tc_strict_mark_superseded(s, index);
	}
	if (!tc_must_short_circuit(tc_step_phase(step), status))
		return 0;
	if (strict && tc_strict_reenter(s, index))
		return 0;
	return tc_session__short_circuit(s, tc_json_get(result, "summary_zh"),
	    sealed_over, err);
}

int
tc_seal_session(tc_session *s, const tc_json *result, tc_error *err)
{
	struct sess_scene sc = { 0 };
	struct sess_texts t = { 0 };
	size_t index = 0;
	char digest[65], sealed_over[65];
	tc_json *expected;
	bool adopt = false, final;
	int rc = -1;

	if (check_acceptable(s, result, err) != 0 || tc_session__check_root(s, err) != 0)
		return -1;
	if ((expected = tc_session_next_step(s, &index)) == NULL) {
		tc_error_set(err, "session has no pending step");
		return -1;
	}
	if (tc_result_validate(result, expected, s, 0, err) != 0)
		return -1;
	if (tc_session_check_root(s, err) != 0)
		return -1;
	if (tc_session_policy(s) == TC_POLICY_STRICT &&
	    tc_strict_check_result(s, expected, result, err) != 0)
		return -1;
	if (tc_session_fingerprint(s, sealed_over, err) != 0 ||
	    tc_session__render_scene(result, expected, &t, err) != 0 ||
	    tc_session__render_manifest(s, expected, result, sealed_over, &t,
	    err) != 0 || tc_json_digest(result, digest, err) != 0)
		goto out;
	tc_session__scene_init(&sc, s, tc_step_id(expected));
	if (tc_session__scene_present(&sc)) {
		/* The reference refuses here; an identical scene is the
		 * trace of this very seal interrupted before step 4. */
		adopt = tc_session__scene_matches(&sc, &t);
		if (!adopt) {
			refuse_scene(s, expected, err);
			goto out;
		}
	}
	if (tc_session__bind_sidecar(s, &sc, &t, true, adopt, err) != 0 ||
	    tc_session__scene_write(s, &sc, &t, adopt, err) != 0)
		goto out;

	final = tc_step_phase(expected)->id == TC_PHASE_FINAL;
	tc_session__mark_sealed(expected, &sc, &t, digest,
	    tc_json_get_string(result, "status"));
	if (advance(s, index, result, sealed_over, err) != 0)
		goto out;
	if (final) {
		tc_json_object_set_string(s->doc, "status", "completed");
		tc_session_refresh(s);
		if (render_final(s, err) != 0)
			goto out;
	}
	rc = tc_session__write_sealed(s, err);
out:
	tc_session__texts_free(&t);
	tc_session__scene_free(&sc);
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
