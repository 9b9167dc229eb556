/*
 * cmd_pypto_dispatch.c - "tunectl pypto dispatch" (the task of the one
 * legal next step, bound to the state's digest) and "tunectl pypto
 * accept" (a worker's result for it: checked, kept with a receipt,
 * routed): the manual path of what pypto run-next does through a host.
 */
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "pypto_cli.h"
#include "tunectl/fileio.h"
#include "tunectl/pypto_orch.h"

static int
cmd_pypto_dispatch(const struct tc_command *self, int argc, char **argv)
{
	tc_pypto_state_opts o;
	const char *output = NULL;
	tc_error err = TC_ERROR_INIT;
	tc_json *task;
	int rc;
	const struct tc_option opts[] = {
		{ "--op-dir", TC_OPT_STRING, &o.op_dir, true, NULL },
		{ "--project", TC_OPT_STRING, &o.project, false, NULL },
		{ "--output", TC_OPT_STRING, &output, false, NULL },
		{ NULL, 0, NULL, false, NULL }
	};

	memset(&o, 0, sizeof(o));
	if ((rc = tc_opts_parse(self, argc, argv, opts, NULL)) != 0)
		return rc < 0 ? TC_EXIT_OK : rc;
	task = tc_pypto_dispatch(&o, &err);
	return tc_pypto_cli_finish(tc_pypto_cli_save(task, output,
	    TC_WRITE_EXCLUSIVE | TC_WRITE_MKDIRS, &err), &err);
}

static int
cmd_pypto_accept(const struct tc_command *self, int argc, char **argv)
{
	tc_pypto_state_opts o;
	const char *task_path = NULL, *result_path = NULL, *lint = NULL;
	struct tc_strlist lint_args = { NULL, 0 };
	tc_error err = TC_ERROR_INIT;
	tc_json *task = NULL, *result = NULL, *out = NULL;
	int rc;
	const struct tc_option opts[] = {
		{ "--op-dir", TC_OPT_STRING, &o.op_dir, true, NULL },
		{ "--project", TC_OPT_STRING, &o.project, false, NULL },
		{ "--task", TC_OPT_STRING, &task_path, true, NULL },
		{ "--result", TC_OPT_STRING, &result_path, true, NULL },
		{ "--interpreter", TC_OPT_STRING, &o.interpreter, false, NULL },
		{ "--lint-gate", TC_OPT_STRING, &lint, false, NULL },
		{ "--lint-gate-arg", TC_OPT_LIST, &lint_args, false, NULL },
		{ NULL, 0, NULL, false, NULL }
	};

	memset(&o, 0, sizeof(o));
	if ((rc = tc_opts_parse(self, argc, argv, opts, NULL)) != 0) {
		tc_strlist_free(&lint_args);
		return rc < 0 ? TC_EXIT_OK : rc;
	}
	o.lint_argv = tc_pypto_cli_lint_argv(lint, &lint_args);
	if ((task = tc_json_parse_file(task_path, &err)) == NULL)
		tc_error_prefix(&err, "%s: ", task_path);
	else if ((result = tc_json_parse_file(result_path, &err)) == NULL)
		tc_error_prefix(&err, "%s: ", result_path);
	else
		out = tc_pypto_accept(&o, task, result, &err);
	rc = tc_pypto_cli_finish(out, &err);
	tc_json_free(task);
	tc_json_free(result);
	tc_pypto_cli_free_argv((char **)o.lint_argv);
	tc_strlist_free(&lint_args);
	return rc;
}

const struct tc_command cmd_pypto_dispatch_entry = {
	.name = "pypto dispatch",
	.summary = "the task of the one legal next step",
	.usage = "usage: tunectl pypto dispatch --op-dir DIR [--project DIR] [--output FILE]\n"
	    "Print (and with --output write) the task of the one legal next step.\n",
	.run = cmd_pypto_dispatch,
};

const struct tc_command cmd_pypto_accept_entry = {
	.name = "pypto accept",
	.summary = "seal a worker's result into the state",
	.usage = "usage: tunectl pypto accept --op-dir DIR [--project DIR] --task FILE\n"
	    "           --result FILE [--interpreter PROG] [--lint-gate PROG\n"
	    "           [--lint-gate-arg ARG]...]\n"
	    "Accept a worker's result for a dispatched task: a stale task is refused.\n",
	.run = cmd_pypto_accept,
};
