/*
 * execute.c - execute-phase (phase_entrypoint.run,
 * docs/spec/controller.md "Execute-phase"): a phase task is accepted only when
 * it is current for its session and routed to this phase's agent; then either
 * the tool plan is returned or one tool from the manifest's allowlist runs
 * under a device lease, its manifest and logs kept under
 * <root>/phase-executions/<step_id>/.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "tunectl/buf.h"
#include "tunectl/fileio.h"
#include "tunectl/path.h"
#include "tunectl/phase.h"
#include "tunectl/phases.h"
#include "tunectl/session.h"

int
tc_phase_check_task(const char *task_path, const tc_phase_manifest *m,
    tc_json **current, tc_error *err)
{
	tc_json *task, *cur = NULL, *step;
	const char *session_path, *schema;
	static const char *const keys[3] = { "phase", "agent_id", "skill" };
	int i;

	*current = NULL;
	if ((task = tc_json_parse_file(task_path, err)) == NULL)
		return -1;
	schema = tc_json_get_string(task, "schema_version");
	if (!tc_json_is(task, TC_JSON_OBJECT) || schema == NULL ||
	    strcmp(schema, TC_TASK_SCHEMA) != 0) {
		tc_error_set(err, "dispatch task schema_version is invalid");
		goto fail;
	}
	/* The reference takes the session path from the task itself. */
	if ((session_path = tc_json_get_string(task, "session_path")) == NULL) {
		tc_error_set(err, "dispatch task session_path is invalid");
		goto fail;
	}
	if (tc_dispatch_task_check(task, session_path, NULL, &cur, err) != 0)
		goto fail;
	step = tc_json_get_object(cur, "step");
	for (i = 0; i < 3; i++) {
		const tc_json *want = i == 0 ? m->phase : i == 1 ? m->agent_id :
		    m->skill;
		const tc_json *have = tc_json_get(step, keys[i]);

		if (have == NULL || !tc_json_equal(have, want)) {
			tc_error_set(err, "dispatch task is assigned to a "
			    "different phase agent");
			goto fail;
		}
	}
	tc_json_free(task);
	*current = cur;
	return 0;
fail:
	tc_json_free(task);
	tc_json_free(cur);
	return -1;
}

tc_json *
tc_phase_plan(const tc_phase_manifest *m, const tc_json *current)
{
	tc_json *plan = tc_json_new_object(), *cmds = tc_json_new_array();
	tc_json *handoff = tc_json_new_object();
	const tc_json *step = tc_json_get(current, "step");
	const tc_json *v;
	size_t i;

	tc_json_object_set(plan, "phase", tc_json_clone(m->phase));
	tc_json_object_set(plan, "agent_id", tc_json_clone(m->agent_id));
	v = tc_json_get(current, "session_fingerprint");
	tc_json_object_set(plan, "task_fingerprint", v != NULL ?
	    tc_json_clone(v) : tc_json_new_null());
	tc_json_object_set_string(plan, "phase_manifest", m->path);
	for (i = 0; i < m->ntools; i++) {
		tc_json *c = tc_json_new_object(), *argv = tc_json_new_array();
		char *tool = tc_xasprintf("%s/%s", m->tools_dir, m->tools[i]);

		/* The tools are executables; the reference's argv starts
		 * with the Python interpreter instead. */
		tc_json_array_push(argv, tc_json_new_string(tool));
		tc_json_array_push(argv, tc_json_new_string("--help"));
		tc_json_object_set(c, "argv", argv);
		tc_json_array_push(cmds, c);
		free(tool);
	}
	tc_json_object_set(plan, "commands", cmds);
	tc_json_object_set_string(handoff, "schema_version", TC_RESULT_SCHEMA);
	v = tc_json_get(current, "session_path");
	tc_json_object_set(handoff, "session_path", v != NULL ?
	    tc_json_clone(v) : tc_json_new_null());
	v = tc_json_get(step, "step_id");
	tc_json_object_set(handoff, "step_id", v != NULL ? tc_json_clone(v) :
	    tc_json_new_null());
	tc_json_object_set_bool(handoff, "seal_after_agent_result", true);
	tc_json_object_set(plan, "handoff", handoff);
	return plan;
}

/* pathlib's stem: the name without its last suffix. */
static char *
stem(const char *name)
{
	const char *dot = strrchr(name, '.');

	if (dot == NULL || dot == name || dot[1] == '\0')
		return tc_xstrdup(name);
	return tc_xstrndup(name, (size_t)(dot - name));
}

/*
 * <root>/phase-executions/<step_id>, created, and inside the root: the
 * worker can write the root, so a planted symlink on the way would
 * otherwise put the lease manifest and its logs wherever it points.
 * Checked before and after the directories are made.
 */
static char *
executions_dir(const char *root, const char *step_id, tc_error *err)
{
	char *rel = tc_xasprintf("phase-executions/%s", step_id);
	char *dir = tc_path_under_root(root, rel, "phase execution directory",
	    err);

	if (dir != NULL && tc_mkdirs(dir, err) != 0) {
		free(dir);
		dir = NULL;
	}
	if (dir != NULL) {
		free(dir);
		dir = tc_path_under_root(root, rel, "phase execution directory",
		    err);
	}
	if (dir != NULL && !tc_is_directory(dir)) {
		tc_error_os(err, ENOTDIR, dir);
		free(dir);
		dir = NULL;
	}
	free(rel);
	return dir;
}

int
tc_phase_run_tool(const tc_phase_manifest *m, const tc_json *current,
    const tc_phase_tool_run *run, tc_json **lease_manifest,
    tc_lease_outcome *outcome, tc_error *err)
{
	const char *root = tc_json_get_string(current, "artifact_root");
	const char *step_id = tc_json_get_string(tc_json_get(current, "step"),
	    "step_id");
	tc_lease_request req;
	char *tool_path, *manifest, *command_id, **argv;
	size_t nargs = 0, i;
	bool allowed = false;
	int rc;

	*lease_manifest = NULL;
	for (i = 0; i < m->ntools; i++)
		allowed = allowed || strcmp(m->tools[i], run->tool) == 0;
	if (!allowed) {
		tc_error_set(err, "tool is not a runtime tool of this phase: %s",
		    run->tool);
		return -1;
	}
	if (run->lease_root == NULL || run->ndevices == 0) {
		tc_error_set(err, "--tool requires --lease-root and at least one "
		    "--device-id");
		return -1;
	}
	if (root == NULL || step_id == NULL) {
		tc_error_set(err, "dispatch task is assigned to a different "
		    "phase agent");
		return -1;
	}
	if (run->manifest_out != NULL) {
		manifest = tc_xstrdup(run->manifest_out);
	} else {
		char *dir = executions_dir(root, step_id, err), *s;

		if (dir == NULL)
			return -1;
		s = stem(run->tool);
		manifest = tc_xasprintf("%s/%s.json", dir, s);
		free(s);
		free(dir);
	}
	while (run->tool_args != NULL && run->tool_args[nargs] != NULL)
		nargs++;
	tool_path = tc_xasprintf("%s/%s", m->tools_dir, run->tool);
	argv = tc_xcalloc(nargs + 2, sizeof(*argv));
	argv[0] = tool_path;
	for (i = 0; i < nargs; i++)
		argv[i + 1] = run->tool_args[i];
	command_id = tc_xasprintf("%s:%s", step_id, run->tool);

	memset(&req, 0, sizeof(req));
	req.argv = argv;
	req.lease_root = run->lease_root;
	req.device_ids = run->device_ids;
	req.ndevices = run->ndevices;
	req.timeout_s = run->timeout_s;
	req.timeout_integral = run->timeout_integral;
	req.cwd = root;
	req.manifest_out = manifest;
	req.environment = NULL;
	req.command_id = command_id;
	rc = tc_lease_run(&req, lease_manifest, outcome, err);
	free(command_id);
	free(argv);
	free(tool_path);
	free(manifest);
	return rc == 0 ? 0 : -1;
}
