/*
 * support.c - support tasks and support results: what a support worker
 * is given (bound to the session's current fingerprint and, optionally,
 * to a request file the asking phase wrote), what it must hand back, and
 * the prompt that tells it so.
 */
#include <stdlib.h>
#include <string.h>

#include "tunectl/buf.h"
#include "tunectl/fileio.h"
#include "tunectl/path.h"
#include "tunectl/session.h"
#include "tunectl/sha256.h"
#include "tunectl/support.h"

static bool
role_serves(const tc_support_role *role, const tc_json *step)
{
	const char *phase = tc_json_get_string(step, "phase");
	const char *const *p;

	for (p = role->phases; *p != NULL; p++)
		if (phase != NULL && strcmp(*p, phase) == 0)
			break;
	if (*p == NULL)
		return false;
	if (role->branch == NULL)
		return true;
	return tc_step_branch(step) != NULL &&
	    strcmp(tc_step_branch(step), role->branch) == 0;
}

static void
refuse_role(const tc_support_role *role, const tc_json *step, tc_error *err)
{
	tc_buf phases = TC_BUF_INIT;
	const char *const *p;

	for (p = role->phases; *p != NULL; p++)
		tc_buf_printf(&phases, "%s%s", p == role->phases ? "" : ", ", *p);
	if (role->branch != NULL)
		tc_buf_printf(&phases, " (optional branch %s only)", role->branch);
	tc_error_set(err, "support role %s is not available to step %s "
	    "(phase %s%s%s); it serves: %s", role->agent_id,
	    tc_step_id(step), tc_json_get_string(step, "phase"),
	    tc_step_branch(step) != NULL ? ", branch " : "",
	    tc_step_branch(step) != NULL ? tc_step_branch(step) : "",
	    tc_buf_cstr(&phases));
	tc_buf_free(&phases);
}

/* The request file: inside the artifact root, a regular file; bound by
 * its relative path and the SHA-256 of its bytes. */
static tc_json *
bind_request(const char *root, const char *request, tc_error *err)
{
	char hex[TC_SHA256_HEX_LEN + 1];
	char *abs_root, *abs, *rel = NULL;
	tc_json *out = NULL;

	if ((abs_root = tc_path_resolve(root, err)) == NULL)
		return NULL;
	if (request[0] == '/') {
		if ((abs = tc_path_resolve(request, err)) == NULL)
			goto done;
		if (!tc_path_is_within(abs, abs_root)) {
			tc_error_set(err, "support request must be inside the "
			    "artifact root: %s", request);
			free(abs);
			goto done;
		}
	} else if ((abs = tc_path_under_root(abs_root, request,
	    "support request", err)) == NULL) {
		goto done;
	}
	if (!tc_is_regular_file_nofollow(abs)) {
		tc_error_set(err, "support request must be a regular file: %s",
		    request);
	} else if (tc_sha256_file(abs, hex, NULL, err) == 0) {
		rel = tc_path_relative_to(abs, abs_root);
		out = tc_json_new_object();
		tc_json_object_set_string(out, "path", rel);
		tc_json_object_set_string(out, "sha256", hex);
	}
	free(abs);
done:
	free(rel);
	free(abs_root);
	return out;
}

tc_json *
tc_support_task(const char *session_path, const char *role_id,
    const char *request, tc_error *err)
{
	const tc_support_role *role = tc_support_role_find(role_id);
	tc_session *s = NULL;
	tc_json *phase_task = NULL, *task = NULL, *step, *role_obj, *bound = NULL;
	static const char *const copied[] = {
		"session_id", "session_path", "artifact_root",
		"session_fingerprint", "consumed_handoffs", "evidence_import"
	};
	size_t i;

	if (role == NULL) {
		tc_error_set(err, "unknown support role: %s", role_id);
		return NULL;
	}
	if (tc_session_load(session_path, 0, &s, err) != 0)
		return NULL;
	if (tc_session_is_completed(s)) {
		tc_error_set(err, "completed session has no phase to support");
		goto out;
	}
	if ((step = tc_session_next_step(s, NULL)) == NULL) {
		tc_error_set(err, "session has no dispatchable step");
		goto out;
	}
	if (!role_serves(role, step)) {
		refuse_role(role, step, err);
		goto out;
	}
	if (request != NULL &&
	    (bound = bind_request(s->artifact_root, request, err)) == NULL)
		goto out;
	if ((phase_task = tc_dispatch_task(s, NULL, err)) == NULL)
		goto out;
	task = tc_json_new_object();
	tc_json_object_set_string(task, "schema_version", TC_SUPPORT_TASK_SCHEMA);
	for (i = 0; i < sizeof(copied) / sizeof(copied[0]); i++) {
		tc_json *v = tc_json_object_take(phase_task, copied[i]);

		if (v != NULL)
			tc_json_object_set(task, copied[i], v);
	}
	role_obj = tc_json_new_object();
	tc_json_object_set_string(role_obj, "agent_id", role->agent_id);
	tc_json_object_set_string(role_obj, "skill", role->skill);
	tc_json_object_set_bool(role_obj, "read_only", role->read_only);
	tc_json_object_set(task, "role", role_obj);
	tc_json_object_set(task, "requested_for",
	    tc_json_object_take(phase_task, "step"));
	tc_json_object_set(task, "request", bound != NULL ? bound :
	    tc_json_new_null());
	bound = NULL;
	tc_json_object_set_string(task, "result_schema",
	    TC_SUPPORT_RESULT_SCHEMA);
out:
	tc_json_free(bound);
	tc_json_free(phase_task);
	tc_session_free(s);
	return task;
}

tc_json *
tc_support_dispatch(const char *session_path, const char *role,
    const char *request, const char *output, tc_error *err)
{
	tc_json *task = tc_support_task(session_path, role, request, err);

	if (task != NULL && tc_write_json(output, task, TC_WRITE_MKDIRS,
	    err) != 0) {
		tc_json_free(task);
		return NULL;
	}
	return task;
}

static bool
canonical(const tc_json *v)
{
	const char *s = tc_json_string(v);
	size_t n;

	if (s == NULL || (n = strlen(s)) == 0)
		return false;
	return !(s[0] == ' ' || s[0] == '\t' || s[0] == '\n' ||
	    s[n - 1] == ' ' || s[n - 1] == '\t' || s[n - 1] == '\n');
}

/* A produced artifact: relative, inside the output directory, an
 * existing regular file that is not a link. */
static int
check_artifact(const char *root, const char *output_dir, const tc_json *v,
    size_t index, tc_error *err)
{
	const char *rel = tc_json_string(v);
	char *prefix, *abs;
	int rc = -1;

	if (rel == NULL || !tc_path_is_relative_artifact(rel)) {
		tc_error_set(err, "support result produced_artifacts[%zu] must be "
		    "a relative artifact path", index);
		return -1;
	}
	prefix = tc_xasprintf("%s/", output_dir);
	if (strncmp(rel, prefix, strlen(prefix)) != 0) {
		tc_error_set(err, "support result produced_artifacts[%zu] is not "
		    "in the role's output directory %s: %s", index, output_dir,
		    rel);
	} else if ((abs = tc_path_under_root(root, rel,
	    "support result produced artifact", err)) != NULL) {
		char *lexical = tc_path_join(root, rel);

		if (!tc_is_regular_file_nofollow(lexical) ||
		    !tc_is_regular_file(abs))
			tc_error_set(err, "support result produced_artifacts[%zu] "
			    "is not an existing regular file: %s", index, rel);
		else
			rc = 0;
		free(lexical);
		free(abs);
	}
	free(prefix);
	return rc;
}

int
tc_support_result_validate(const tc_json *result, const tc_json *task,
    tc_error *err)
{
	static const char *const required[] = {
		"schema_version", "session_id", "agent_id", "status", "summary",
		"produced_artifacts", "blockers"
	};
	const tc_json *attempt = tc_json_get(task, "attempt");
	const char *status, *schema;
	const tc_json *produced;
	tc_buf missing = TC_BUF_INIT;
	size_t i;

	if (!tc_json_is(result, TC_JSON_OBJECT)) {
		tc_error_set(err, "support result must be an object");
		return -1;
	}
	for (i = 0; i < sizeof(required) / sizeof(required[0]); i++)
		if (tc_json_get(result, required[i]) == NULL)
			tc_buf_printf(&missing, "%s%s", missing.len ? ", " : "",
			    required[i]);
	if (missing.len > 0) {
		tc_error_set(err, "support result missing required fields: %s",
		    tc_buf_cstr(&missing));
		tc_buf_free(&missing);
		return -1;
	}
	tc_buf_free(&missing);
	schema = tc_json_get_string(result, "schema_version");
	if (schema == NULL || strcmp(schema, TC_SUPPORT_RESULT_SCHEMA) != 0) {
		tc_error_set(err, "support result schema_version is invalid");
		return -1;
	}
	if (!tc_json_equal(tc_json_get(result, "session_id"),
	    tc_json_get(task, "session_id"))) {
		tc_error_set(err, "support result session_id does not match the "
		    "current session");
		return -1;
	}
	if (!tc_json_equal(tc_json_get(result, "agent_id"),
	    tc_json_get(tc_json_get(task, "role"), "agent_id"))) {
		tc_error_set(err, "support result agent_id does not match the "
		    "support role");
		return -1;
	}
	status = tc_json_get_string(result, "status");
	if (status == NULL || (strcmp(status, "succeeded") != 0 &&
	    strcmp(status, "blocked") != 0 && strcmp(status, "failed") != 0)) {
		tc_error_set(err, "support result status is invalid (succeeded, "
		    "blocked or failed)");
		return -1;
	}
	if (!canonical(tc_json_get(result, "summary"))) {
		tc_error_set(err, "support result summary must be a non-empty "
		    "canonical string");
		return -1;
	}
	if (!tc_json_is(tc_json_get(result, "blockers"), TC_JSON_ARRAY)) {
		tc_error_set(err, "support result blockers must be a list");
		return -1;
	}
	produced = tc_json_get(result, "produced_artifacts");
	if (!tc_json_is(produced, TC_JSON_ARRAY)) {
		tc_error_set(err, "support result produced_artifacts must be a "
		    "list");
		return -1;
	}
	for (i = 0; i < produced->u.arr.len; i++)
		if (check_artifact(tc_json_get_string(task, "artifact_root"),
		    tc_json_get_string(attempt, "output_dir"),
		    produced->u.arr.items[i], i, err) != 0)
			return -1;
	return 0;
}
