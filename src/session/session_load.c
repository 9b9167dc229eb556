/*
 * session_load.c - reading a session document and validating it in the
 * reference's order with its messages (docs/spec/controller.md
 * "Session validation"); the typed views that the rest of the controller uses
 * on a validated session.
 */
#include <stdlib.h>
#include <string.h>

#include "session_internal.h"
#include "tunectl/canon.h"
#include "tunectl/evidence.h"
#include "tunectl/fileio.h"
#include "tunectl/path.h"
#include "tunectl/session.h"

static int
fail(tc_error *err, const char *msg)
{
	tc_error_set(err, "%s", msg);
	return -1;
}

static int
validate_sealed_step(const tc_json *step, tc_error *err)
{
	if (tc_require_relative_artifact(tc_json_get(step, "result_path"),
	    "result_path", err) != 0)
		return -1;
	if (tc_require_canonical(tc_json_get(step, "result_sha256"),
	    "result_sha256", err) != 0)
		return -1;
	if (!tc_is_result_status(tc_json_get(step, "outcome_status")))
		return fail(err, "sealed step outcome_status is invalid");
	if (tc_json_get(step, "dispatch_receipt_path") != NULL) {
		if (tc_require_relative_artifact(tc_json_get(step,
		    "dispatch_receipt_path"), "dispatch_receipt_path", err) != 0)
			return -1;
		if (tc_require_canonical(tc_json_get(step,
		    "dispatch_receipt_sha256"), "dispatch_receipt_sha256",
		    err) != 0)
			return -1;
	}
	return 0;
}

/* Step ids already seen: at most a handful, so a linear scan. */
static bool
seen_before(const tc_json *steps, size_t upto, const tc_json *id)
{
	size_t i;

	for (i = 0; i < upto; i++)
		if (tc_json_equal(tc_json_get(steps->u.arr.items[i], "step_id"),
		    id))
			return true;
	return false;
}

static int
validate_steps(const tc_json *steps, bool *any_pending, tc_error *err)
{
	bool pending_seen = false;
	size_t i;

	for (i = 0; i < steps->u.arr.len; i++) {
		const tc_json *step = steps->u.arr.items[i];
		const tc_json *id, *state;
		const tc_phase *phase;

		if (!tc_json_is(step, TC_JSON_OBJECT))
			return fail(err, "session step must be an object");
		id = tc_json_get(step, "step_id");
		if (tc_require_canonical(id, "step_id", err) != 0)
			return -1;
		if (!tc_step_id_valid(id->u.str.ptr, id->u.str.len) ||
		    seen_before(steps, i, id))
			return fail(err, "session step_id is invalid or "
			    "duplicated");
		if ((phase = tc_phase_of(tc_json_get(step, "phase"))) == NULL)
			return fail(err, "session step phase is invalid");
		if (!sess_str_is(tc_json_get(step, "agent_id"), phase->agent_id) ||
		    !sess_str_is(tc_json_get(step, "skill"), phase->skill))
			return fail(err, "session step agent or skill is "
			    "invalid");
		state = tc_json_get(step, "state");
		if (sess_str_is(state, "pending")) {
			pending_seen = true;
		} else if (sess_str_is(state, "sealed")) {
			if (pending_seen)
				return fail(err, "sealed step cannot follow a "
				    "pending step");
			if (validate_sealed_step(step, err) != 0)
				return -1;
		} else {
			return fail(err, "session step state is invalid");
		}
	}
	*any_pending = pending_seen;
	return 0;
}

int
tc_session_validate(const tc_json *doc, unsigned flags, tc_error *err)
{
	const tc_json *entrypoint, *steps;
	bool full, any_pending = false;
	tc_policy policy;

	if (!tc_json_is(doc, TC_JSON_OBJECT))
		return fail(err, "session must be an object");
	if (!sess_str_is(tc_json_get(doc, "schema_version"), TC_SESSION_SCHEMA))
		return fail(err, "unsupported session schema_version");
	if (tc_require_canonical(tc_json_get(doc, "session_id"), "session_id",
	    err) != 0)
		return -1;
	if (!tc_is_optional_mode(tc_json_get(doc, "optional_mode")))
		return fail(err, "session optional_mode is invalid");
	entrypoint = tc_json_get(doc, "entrypoint");
	if (entrypoint != NULL && !tc_is_entrypoint(entrypoint))
		return fail(err, "session entrypoint is invalid");
	full = entrypoint == NULL || sess_str_is(entrypoint, "full");
	if (!sess_str_is(tc_json_get(doc, "status"), "active") &&
	    !sess_str_is(tc_json_get(doc, "status"), "completed"))
		return fail(err, "session status is invalid");
	if (tc_require_canonical(tc_json_get(doc, "artifact_root"),
	    "artifact_root", err) != 0)
		return -1;
	if (full) {
		if (tc_json_get(doc, "evidence_import") != NULL)
			return fail(err, "full session must not declare "
			    "evidence_import");
	} else if (!(flags & TC_SESSION_NO_IMPORT)) {
		if (tc_evidence_import_validate(doc, err) != 0)
			return -1;
	}
	steps = tc_json_get(doc, "steps");
	if (!tc_json_is(steps, TC_JSON_ARRAY) || steps->u.arr.len == 0)
		return fail(err, "session steps must be a non-empty list");
	if (validate_steps(steps, &any_pending, err) != 0)
		return -1;
	if (sess_str_is(tc_json_get(doc, "status"), "completed") && any_pending)
		return fail(err, "completed session has pending steps");
	/* tunectl's own key, absent from every reference session: checked
	 * after everything the reference checks, before the schedule (whose
	 * strict form depends on it). */
	if (tc_policy_of_doc(doc, &policy, err) != 0)
		return -1;
	return tc_schedule_check(doc, err);
}

/* Errors the reference raises from json.loads that are not
 * JSONDecodeError escape load_session without its prefix. */
static bool
is_bare_value_error(const char *msg)
{
	return strncmp(msg, "'utf-8' codec can't decode", 26) == 0 ||
	    strncmp(msg, "Exceeds the limit (", 19) == 0;
}

void
tc_session_refresh(tc_session *s)
{
	const char *entrypoint = tc_json_get_string(s->doc, "entrypoint");

	s->session_id = tc_json_get_string(s->doc, "session_id");
	s->artifact_root = tc_json_get_string(s->doc, "artifact_root");
	s->optional_mode = tc_json_get_string(s->doc, "optional_mode");
	s->entrypoint = entrypoint != NULL ? entrypoint : "full";
	s->status = tc_json_get_string(s->doc, "status");
	s->steps = tc_json_get_array(s->doc, "steps");
}

tc_session *
tc_session_wrap(tc_json *doc, const char *path)
{
	tc_session *s = tc_xcalloc(1, sizeof(*s));

	s->doc = doc;
	s->path = tc_path_normalize(path);
	tc_session_refresh(s);
	return s;
}

int
tc_session_load(const char *path, unsigned flags, tc_session **out,
    tc_error *err)
{
	char *norm = tc_path_normalize(path), *resolved = NULL;
	tc_json *doc;

	*out = NULL;
	if ((doc = tc_json_parse_file(norm, err)) == NULL) {
		if (!is_bare_value_error(tc_error_msg(err)))
			tc_error_prefix(err, "cannot load session: ");
		free(norm);
		return -1;
	}
	/* After the reference's validation: the policy recorded outside
	 * the artifact root when the session was created (issue 34). */
	if (tc_session_validate(doc, flags, err) != 0 ||
	    tc_session__policy_check(norm, doc, &resolved, err) != 0) {
		tc_json_free(doc);
		free(resolved);
		free(norm);
		return -1;
	}
	*out = tc_session_wrap(doc, norm);
	(*out)->resolved = resolved;
	free(norm);
	return 0;
}

void
tc_session_free(tc_session *s)
{
	if (s == NULL)
		return;
	tc_json_free(s->doc);
	tc_json_free(s->described);
	free(s->path);
	free(s->resolved);
	tc_sidecar_free(s->sidecar);
	free(s);
}

size_t
tc_session_step_count(const tc_session *s)
{
	return s->steps->u.arr.len;
}

tc_json *
tc_session_step_at(const tc_session *s, size_t i)
{
	return i < s->steps->u.arr.len ? s->steps->u.arr.items[i] : NULL;
}

tc_json *
tc_session_next_step(const tc_session *s, size_t *index)
{
	size_t i;

	for (i = 0; i < s->steps->u.arr.len; i++) {
		if (!tc_step_is_sealed(s->steps->u.arr.items[i])) {
			if (index != NULL)
				*index = i;
			return s->steps->u.arr.items[i];
		}
	}
	return NULL;
}

tc_json *
tc_session_find_step(const tc_session *s, const char *step_id, size_t *index)
{
	size_t i;

	for (i = 0; i < s->steps->u.arr.len; i++) {
		if (strcmp(tc_step_id(s->steps->u.arr.items[i]), step_id) == 0) {
			if (index != NULL)
				*index = i;
			return s->steps->u.arr.items[i];
		}
	}
	return NULL;
}

bool
tc_session_is_completed(const tc_session *s)
{
	return strcmp(s->status, "completed") == 0;
}

int
tc_session_fingerprint(const tc_session *s, char hex[65], tc_error *err)
{
	return tc_json_digest(s->doc, hex, err);
}

char *
tc_session_artifact_path(const tc_session *s, const char *relative)
{
	return tc_path_join(s->artifact_root, relative);
}

const char *
tc_step_id(const tc_json *step)
{
	return tc_json_get_string(step, "step_id");
}

const tc_phase *
tc_step_phase(const tc_json *step)
{
	return tc_phase_of(tc_json_get(step, "phase"));
}

bool
tc_step_is_sealed(const tc_json *step)
{
	return sess_str_is(tc_json_get(step, "state"), "sealed");
}

const char *
tc_step_branch(const tc_json *step)
{
	return tc_json_get_string(step, "optional_branch");
}

const char *
tc_step_outcome(const tc_json *step)
{
	return tc_step_is_sealed(step) ?
	    tc_json_get_string(step, "outcome_status") : NULL;
}

int
tc_session_lock(const char *session_path, tc_lock *lock, tc_error *err)
{
	/* No session, nothing to protect: the load that follows reports
	 * the missing file with the reference's message. */
	if (!tc_path_exists(session_path)) {
		lock->fd = -1;
		lock->path = NULL;
		return 0;
	}
	return tc_lock_acquire(lock, session_path, TC_LOCK_DEFAULT_TIMEOUT_S,
	    err);
}
