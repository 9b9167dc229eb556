/*
 * result_validate.c - validation of a phase result against the step it
 * claims to hand off (docs/spec/controller.md "Phase result validation"), in
 * the reference's order with its messages.  The Final step's ledger checks are
 * delegated to final.h.
 */
#include <stdio.h>
#include <string.h>

#include "session_internal.h"
#include "tunectl/canon.h"
#include "tunectl/final.h"
#include "tunectl/session.h"

static const char *const required_keys[] = {
	"schema_version", "session_id", "step_id", "phase", "agent_id",
	"status", "summary_zh", "input_fingerprints", "consumed_artifacts",
	"produced_artifacts", "decisions", "blockers", "next_step_guidance_zh",
	"details_zh"
};
#define NREQUIRED (sizeof(required_keys) / sizeof(required_keys[0]))

static int
check_required(const tc_json *result, tc_error *err)
{
	tc_buf missing = TC_BUF_INIT;
	size_t i;

	for (i = 0; i < NREQUIRED; i++) {
		if (tc_json_get(result, required_keys[i]) != NULL)
			continue;
		if (missing.len > 0)
			tc_buf_puts(&missing, ", ");
		tc_buf_puts(&missing, required_keys[i]);
	}
	if (missing.len == 0)
		return 0;
	tc_error_set(err, "phase result missing required fields: %s",
	    tc_buf_cstr(&missing));
	tc_buf_free(&missing);
	return -1;
}

static int
check_identity(const tc_json *result, const tc_json *expected,
    const tc_session *s, tc_error *err)
{
	static const char *const keys[] = { "step_id", "phase", "agent_id" };
	size_t i;

	if (!sess_str_is(tc_json_get(result, "schema_version"), TC_RESULT_SCHEMA)) {
		tc_error_set(err, "phase result schema_version is invalid");
		return -1;
	}
	if (!tc_json_equal(tc_json_get(result, "session_id"),
	    tc_json_get(s->doc, "session_id"))) {
		tc_error_set(err, "phase result session_id does not match the "
		    "current session");
		return -1;
	}
	for (i = 0; i < 3; i++) {
		if (!tc_json_equal(tc_json_get(result, keys[i]),
		    tc_json_get(expected, keys[i]))) {
			tc_error_set(err, "phase result %s does not match the "
			    "current step", keys[i]);
			return -1;
		}
	}
	return 0;
}

static int
check_status(const tc_json *result, const tc_json *expected, unsigned flags,
    tc_error *err)
{
	const tc_json *status = tc_json_get(result, "status");
	bool system, allowed;

	if (!tc_is_result_status(status)) {
		tc_error_set(err, "phase result status is invalid");
		return -1;
	}
	system = sess_str_is(tc_json_get(result, "system_generated_by"),
	    TC_SYSTEM_GENERATED_BY);
	if (system && !(flags & TC_RESULT_ALLOW_SYSTEM)) {
		tc_error_set(err, "system_generated_by is reserved for "
		    "controller-created handoffs");
		return -1;
	}
	if (system)
		return 0;
	if (tc_status_allowed(expected, status->u.str.ptr, &allowed, err) != 0)
		return -1;
	if (!allowed) {
		tc_error_set(err, "phase result status is invalid for %s",
		    tc_step_phase(expected)->name);
		return -1;
	}
	return 0;
}

static int
check_fingerprints(const tc_json *fps, tc_error *err)
{
	size_t i;

	if (!tc_json_is(fps, TC_JSON_OBJECT)) {
		tc_error_set(err, "input_fingerprints must be an object");
		return -1;
	}
	for (i = 0; i < fps->u.obj.len; i++) {
		const tc_json_member *m = &fps->u.obj.members[i];
		tc_json name = { .type = TC_JSON_STRING };

		name.u.str.ptr = m->key;
		name.u.str.len = m->key_len;
		if (tc_require_canonical(&name, "input fingerprint name",
		    err) != 0)
			return -1;
		if (tc_require_canonical(m->value, "input fingerprint",
		    err) != 0)
			return -1;
	}
	return 0;
}

static int
check_lists(const tc_json *result, tc_error *err)
{
	static const char *const artifact_keys[] = {
		"consumed_artifacts", "produced_artifacts"
	};
	static const char *const plain_keys[] = { "decisions", "blockers" };
	char name[64];
	size_t k, i;

	for (k = 0; k < 2; k++) {
		const tc_json *list = tc_json_get(result, artifact_keys[k]);

		if (!tc_json_is(list, TC_JSON_ARRAY)) {
			tc_error_set(err, "%s must be a list", artifact_keys[k]);
			return -1;
		}
		for (i = 0; i < list->u.arr.len; i++) {
			snprintf(name, sizeof(name), "%s[%zu]",
			    artifact_keys[k], i);
			if (tc_require_relative_artifact(list->u.arr.items[i],
			    name, err) != 0)
				return -1;
		}
	}
	for (k = 0; k < 2; k++) {
		if (!tc_json_is(tc_json_get(result, plain_keys[k]),
		    TC_JSON_ARRAY)) {
			tc_error_set(err, "%s must be a list", plain_keys[k]);
			return -1;
		}
	}
	return 0;
}

int
tc_result_validate(const tc_json *result, const tc_json *expected,
    const tc_session *s, unsigned flags, tc_error *err)
{
	return tc_result_validate_keep(result, expected, s, flags, NULL, err);
}

int
tc_result_validate_keep(const tc_json *result, const tc_json *expected,
    const tc_session *s, unsigned flags, tc_json **ledger_out,
    tc_error *err)
{
	const tc_phase *phase = tc_step_phase(expected);

	if (ledger_out != NULL)
		*ledger_out = NULL;
	if (!tc_json_is(result, TC_JSON_OBJECT)) {
		tc_error_set(err, "phase result must be an object");
		return -1;
	}
	if (check_required(result, err) != 0 ||
	    check_identity(result, expected, s, err) != 0 ||
	    check_status(result, expected, flags, err) != 0)
		return -1;
	if (tc_require_canonical(tc_json_get(result, "summary_zh"),
	    "summary_zh", err) != 0 ||
	    tc_require_canonical(tc_json_get(result, "next_step_guidance_zh"),
	    "next_step_guidance_zh", err) != 0)
		return -1;
	if (check_fingerprints(tc_json_get(result, "input_fingerprints"),
	    err) != 0 || check_lists(result, err) != 0)
		return -1;
	if (!tc_json_is(tc_json_get(result, "details_zh"), TC_JSON_OBJECT)) {
		tc_error_set(err, "details_zh must be an object");
		return -1;
	}
	if (phase->id == TC_PHASE_OPTIONAL) {
		const char *branch = tc_step_branch(expected);

		if (branch != NULL && strcmp(branch, "none") == 0 &&
		    !sess_str_is(tc_json_get(result, "status"), "not_requested")) {
			tc_error_set(err, "optional mode none requires a "
			    "not_requested handoff");
			return -1;
		}
	}
	if (phase->id == TC_PHASE_FINAL) {
		tc_final_ledger_bytes bytes;

		if (tc_final_check_result_bytes(result, s->artifact_root,
		    ledger_out, &bytes, err) != 0)
			return -1;
		/* the ledger's manifest entry is checked against the bytes
		 * just read, not read again */
		if (bytes.sha256[0] != '\0')
			tc_session__memo_file(s, tc_json_get_string(result,
			    "ledger_path"), bytes.sha256, bytes.size);
	}
	return 0;
}
