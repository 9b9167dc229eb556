/*
 * receipt.c - what run-next's recovery may adopt as a dispatch receipt
 * (host_internal.h).
 *
 * A controller killed after sealing a step and writing its receipt, but
 * before binding it, leaves a good receipt behind; so can an agent host
 * that writes one of its own.  Recovery binds only a receipt that matches
 * everything tunectl can work out again from the session and the attempt
 * directory; any other receipt is rewritten by tunectl.
 */
#include <stdlib.h>
#include <string.h>

#include "host_internal.h"
#include "tunectl/buf.h"
#include "tunectl/phases.h"
#include "tunectl/timeutil.h"

/* Every key tunectl writes into a passed receipt, recovered or not. */
static const char *const receipt_keys[] = {
	"agent_id", "attempt", "finished_at", "phase", "recovered",
	"recovery_note", "result_path", "result_sha256", "return_code",
	"runner_argv_sha256", "runner_status", "schema_version", "session_id",
	"skill", "started_at", "stderr_path", "stdout_path", "step_id",
	"task_path", "task_sha256", NULL
};

static bool
known_key(const char *key)
{
	const char *const *k;

	for (k = receipt_keys; *k != NULL; k++)
		if (strcmp(*k, key) == 0)
			return true;
	return false;
}

static bool
str_is(const tc_json *v, const char *want)
{
	return tc_json_is(v, TC_JSON_STRING) && want != NULL &&
	    strlen(v->u.str.ptr) == v->u.str.len &&
	    strcmp(v->u.str.ptr, want) == 0;
}

static bool
hex64(const tc_json *v)
{
	size_t i;

	if (!tc_json_is(v, TC_JSON_STRING) || v->u.str.len != TC_SHA256_HEX_LEN)
		return false;
	for (i = 0; i < TC_SHA256_HEX_LEN; i++)
		if (strchr("0123456789abcdef", v->u.str.ptr[i]) == NULL ||
		    v->u.str.ptr[i] == '\0')
			return false;
	return true;
}

/* tc_now_iso's form: "2026-09-05T01:02:03+00:00". */
static bool
timestamp(const tc_json *v)
{
	static const char shape[] = "dddd-dd-ddTdd:dd:dd+00:00";
	size_t i;

	if (!tc_json_is(v, TC_JSON_STRING) || v->u.str.len != TC_TIMESTAMP_LEN)
		return false;
	for (i = 0; i < TC_TIMESTAMP_LEN; i++) {
		char c = v->u.str.ptr[i];

		if (shape[i] == 'd' ? c < '0' || c > '9' : c != shape[i])
			return false;
	}
	return true;
}

static bool
int_is(const tc_json *v, int64_t want)
{
	int64_t n;

	return tc_json_is(v, TC_JSON_INT) && tc_json_int64(v, &n) && n == want;
}

static bool
path_is(const tc_json *v, const tc_attempt *a, const char *file)
{
	char *rel = tc_attempt_rel(a, file);
	bool ok = str_is(v, rel);

	free(rel);
	return ok;
}

static bool
digest_is(const tc_json *v, const tc_attempt *a, const char *file)
{
	char hex[TC_SHA256_HEX_LEN + 1];
	tc_error ignored = TC_ERROR_INIT;
	bool ok = tc_attempt_sha256(a, file, hex, &ignored) == 0 &&
	    str_is(v, hex);

	tc_error_clear(&ignored);
	return ok;
}

bool
tc_receipt_rederivable(const tc_json *receipt, const tc_json *step,
    const char *session_id, const tc_attempt *a)
{
	static const char *const step_keys[] = {
		"step_id", "phase", "agent_id", "skill", NULL
	};
	const tc_json *recovered;
	const char *const *k;
	size_t i;

	if (!tc_json_is(receipt, TC_JSON_OBJECT))
		return false;
	for (i = 0; i < receipt->u.obj.len; i++)
		if (strlen(receipt->u.obj.members[i].key) !=
		    receipt->u.obj.members[i].key_len ||
		    !known_key(receipt->u.obj.members[i].key))
			return false;
	if (!str_is(tc_json_get(receipt, "schema_version"), TC_RECEIPT_SCHEMA) ||
	    !str_is(tc_json_get(receipt, "session_id"), session_id) ||
	    !str_is(tc_json_get(receipt, "runner_status"), "passed") ||
	    !int_is(tc_json_get(receipt, "attempt"), a->number))
		return false;
	for (k = step_keys; *k != NULL; k++)
		if (!str_is(tc_json_get(receipt, *k),
		    tc_json_get_string(step, *k)))
			return false;
	if (!path_is(tc_json_get(receipt, "task_path"), a, TC_ATTEMPT_TASK) ||
	    !path_is(tc_json_get(receipt, "result_path"), a, TC_ATTEMPT_RESULT) ||
	    !path_is(tc_json_get(receipt, "stdout_path"), a, TC_ATTEMPT_STDOUT) ||
	    !path_is(tc_json_get(receipt, "stderr_path"), a, TC_ATTEMPT_STDERR) ||
	    !digest_is(tc_json_get(receipt, "task_sha256"), a, TC_ATTEMPT_TASK) ||
	    !digest_is(tc_json_get(receipt, "result_sha256"), a,
	    TC_ATTEMPT_RESULT))
		return false;
	if (!timestamp(tc_json_get(receipt, "started_at")) ||
	    !timestamp(tc_json_get(receipt, "finished_at")) ||
	    strcmp(tc_json_get_string(receipt, "started_at"),
	    tc_json_get_string(receipt, "finished_at")) > 0)
		return false;
	/* A receipt of a finished host, or one that recovery wrote. */
	recovered = tc_json_get(receipt, "recovered");
	if (recovered == NULL)
		return int_is(tc_json_get(receipt, "return_code"), 0) &&
		    hex64(tc_json_get(receipt, "runner_argv_sha256")) &&
		    tc_json_get(receipt, "recovery_note") == NULL;
	return tc_json_is(recovered, TC_JSON_BOOL) && recovered->u.b &&
	    tc_json_is(tc_json_get(receipt, "runner_argv_sha256"),
	    TC_JSON_NULL) && tc_json_get(receipt, "return_code") == NULL &&
	    str_is(tc_json_get(receipt, "recovery_note"), TC_RECOVERY_NOTE);
}
