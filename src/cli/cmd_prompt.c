/*
 * cmd_prompt.c - "tunectl prompt": print the prompt a fresh phase worker
 * is given, so hosts and humans see exactly what a worker is told.  A
 * PyPTO-Pro task (pypto dispatch / run-next) gets its role prompt.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "tunectl/host.h"
#include "tunectl/path.h"
#include "tunectl/pypto_orch.h"

int
cmd_prompt(int argc, char **argv)
{
	const struct tc_command *cmd = tc_command_find("prompt");
	const char *task_path = NULL, *result = NULL, *host = "generic";
	const struct tc_option opts[] = {
		{ "--task", TC_OPT_STRING, &task_path, true, NULL },
		{ "--result", TC_OPT_STRING, &result, false, NULL },
		{ "--host", TC_OPT_STRING, &host, false, NULL },
		{ NULL, 0, NULL, false, NULL }
	};
	tc_error err = TC_ERROR_INIT;
	tc_json *task;
	char *abs, *text;
	int rc;

	if ((rc = tc_opts_parse(cmd, argc, argv, opts, NULL)) != 0)
		return rc < 0 ? TC_EXIT_OK : rc;
	if (strcmp(host, "claude") != 0 && strcmp(host, "codex") != 0 &&
	    strcmp(host, "opencode") != 0 && strcmp(host, "generic") != 0)
		return tc_usage_error(cmd, "argument --host: invalid choice: '%s' "
		    "(choose from 'claude', 'codex', 'opencode', 'generic')", host);
	if ((task = tc_json_parse_file(task_path, &err)) == NULL ||
	    (abs = tc_path_resolve(task_path, &err)) == NULL) {
		tc_json_free(task);
		rc = tc_die("%s: %s", task_path, tc_error_msg(&err));
		tc_error_clear(&err);
		return rc;
	}
	if (tc_json_get_string(task, "schema_version") != NULL &&
	    strcmp(tc_json_get_string(task, "schema_version"),
	    TC_PYPTO_TASK_SCHEMA) == 0)
		text = tc_pypto_prompt(task, abs, result, host, tc_self_exe(),
		    &err);
	else
		text = tc_host_prompt(task, abs, result, host, tc_self_exe(),
		    &err);
	free(abs);
	tc_json_free(task);
	if (text == NULL) {
		rc = tc_die("%s: %s", task_path, tc_error_msg(&err));
		tc_error_clear(&err);
		return rc;
	}
	fputs(text, stdout);
	free(text);
	return TC_EXIT_OK;
}
