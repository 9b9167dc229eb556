/*
 * dispatch.c - phase tasks (docs/spec/controller.md "Dispatch tasks"): the one
 * structured task a controller gives the worker of the next step, and the
 * staleness check that ties a task to the exact session state it was created
 * from.
 */
#include <stdlib.h>
#include <string.h>

#include "session_internal.h"
#include "tunectl/evidence.h"
#include "tunectl/fileio.h"
#include "tunectl/path.h"

static tc_json *
consumed_handoffs(const tc_session *s, size_t upto)
{
	static const char *const keys[] = {
		"step_id", "result_path", "result_sha256", "outcome_status"
	};
	tc_json *list = tc_json_new_array();
	size_t i, k;

	for (i = 0; i < upto; i++) {
		const tc_json *step = tc_session_step_at(s, i);
		tc_json *h;

		if (!tc_step_is_sealed(step))
			continue;
		h = tc_json_new_object();
		for (k = 0; k < 4; k++)
			tc_json_object_set(h, keys[k],
			    tc_json_clone(tc_json_get(step, keys[k])));
		tc_json_array_push(list, h);
	}
	return list;
}

static tc_json *
handoff(const char *session_path, const char *seal_program)
{
	tc_json *h = tc_json_new_object();
	tc_json *argv = tc_json_new_array();

	if (seal_program != NULL) {
		tc_json_array_push(argv, tc_json_new_string(seal_program));
	} else {
		tc_json_array_push(argv, tc_json_new_string("python3"));
		tc_json_array_push(argv,
		    tc_json_new_string("scripts/auto_tune_session.py"));
	}
	tc_json_array_push(argv, tc_json_new_string("seal"));
	tc_json_array_push(argv, tc_json_new_string("--session"));
	tc_json_array_push(argv, tc_json_new_string(session_path));
	tc_json_array_push(argv, tc_json_new_string("--result"));
	tc_json_array_push(argv, tc_json_new_string("<phase-result.json>"));
	tc_json_object_set_string(h, "result_schema", TC_RESULT_SCHEMA);
	tc_json_object_set(h, "seal_command", argv);
	return h;
}

tc_json *
tc_dispatch_task(const tc_session *s, const char *seal_program, tc_error *err)
{
	char fingerprint[65];
	char *session_path;
	size_t index;
	tc_json *step, *task;

	if (tc_session_is_completed(s)) {
		tc_error_set(err, "completed session has no dispatchable step");
		return NULL;
	}
	if ((step = tc_session_next_step(s, &index)) == NULL) {
		tc_error_set(err, "session has no dispatchable step");
		return NULL;
	}
	/* A worker must not build on evidence that changed since it was
	 * sealed, nor be sent to a root the session was not sealed under. */
	if (tc_session_check_root(s, err) != 0 ||
	    tc_session_check_bound(s, err) != 0)
		return NULL;
	if (tc_session_fingerprint(s, fingerprint, err) != 0)
		return NULL;
	if ((session_path = tc_path_resolve(s->path, err)) == NULL)
		return NULL;
	task = tc_json_new_object();
	tc_json_object_set_string(task, "schema_version", TC_TASK_SCHEMA);
	tc_json_object_set(task, "session_id",
	    tc_json_clone(tc_json_get(s->doc, "session_id")));
	tc_json_object_set_string(task, "session_path", session_path);
	tc_json_object_set(task, "artifact_root",
	    tc_json_clone(tc_json_get(s->doc, "artifact_root")));
	tc_json_object_set_string(task, "session_fingerprint", fingerprint);
	tc_json_object_set(task, "step", tc_json_clone(step));
	tc_json_object_set(task, "consumed_handoffs",
	    consumed_handoffs(s, index));
	tc_json_object_set(task, "handoff", handoff(session_path, seal_program));
	if (tc_json_get(s->doc, "evidence_import") != NULL)
		tc_json_object_set(task, "evidence_import",
		    tc_json_clone(tc_json_get(s->doc, "evidence_import")));
	free(session_path);
	return task;
}

tc_json *
tc_dispatch_task_for(const char *session_path, const char *seal_program,
    tc_error *err)
{
	tc_session *s;
	tc_json *task;

	if (tc_session_load(session_path, 0, &s, err) != 0)
		return NULL;
	task = tc_dispatch_task(s, seal_program, err);
	tc_session_free(s);
	return task;
}

static int
check_task_schema(const tc_json *task, tc_error *err)
{
	if (!tc_json_is(task, TC_JSON_OBJECT) ||
	    !sess_str_is(tc_json_get(task, "schema_version"), TC_TASK_SCHEMA)) {
		tc_error_set(err, "dispatch task schema_version is invalid");
		return -1;
	}
	return 0;
}

int
tc_dispatch_task_check(const tc_json *task, const char *session_path,
    const char *seal_program, tc_json **current, tc_error *err)
{
	tc_session *s;
	int rc;

	if (current != NULL)
		*current = NULL;
	/* the task's own shape is refused before the session is read */
	if (check_task_schema(task, err) != 0 ||
	    tc_session_load(session_path, 0, &s, err) != 0)
		return -1;
	rc = tc_dispatch_task_check_loaded(task, s, seal_program, current, err);
	tc_session_free(s);
	return rc;
}

int
tc_dispatch_task_check_loaded(const tc_json *task, const tc_session *s,
    const char *seal_program, tc_json **current, tc_error *err)
{
	static const char *const keys[] = {
		"session_id", "session_path", "artifact_root",
		"session_fingerprint", "step", "evidence_import"
	};
	tc_json *now;
	size_t k;

	if (current != NULL)
		*current = NULL;
	if (check_task_schema(task, err) != 0)
		return -1;
	if ((now = tc_dispatch_task(s, seal_program, err)) == NULL)
		return -1;
	for (k = 0; k < sizeof(keys) / sizeof(keys[0]); k++) {
		if (!tc_session__field_equal(task, now, keys[k])) {
			tc_error_set(err, "stale dispatch task does not match "
			    "the current session");
			tc_json_free(now);
			return -1;
		}
	}
	if (!tc_session__field_equal(task, now, "consumed_handoffs")) {
		tc_error_set(err, "stale dispatch task handoffs do not match the "
		    "current session");
		tc_json_free(now);
		return -1;
	}
	if (current != NULL)
		*current = now;
	else
		tc_json_free(now);
	return 0;
}

tc_json *
tc_dispatch_write(const char *session_path, const char *output,
    const char *seal_program, tc_error *err)
{
	char *target = NULL, *session = NULL;
	tc_json *task;

	if ((task = tc_dispatch_task_for(session_path, seal_program, err)) ==
	    NULL)
		return NULL;
	/* The reference would replace the session with its own task. */
	target = tc_path_resolve(output, NULL);
	session = tc_path_resolve(session_path, NULL);
	if (target != NULL && session != NULL && strcmp(target, session) == 0) {
		tc_error_set(err, "dispatch output must not replace the "
		    "session: %s", output);
		goto fail;
	}
	if (tc_write_json(output, task, TC_WRITE_MKDIRS, err) != 0)
		goto fail;
	free(target);
	free(session);
	return task;
fail:
	free(target);
	free(session);
	tc_json_free(task);
	return NULL;
}
