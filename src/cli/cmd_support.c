/*
 * cmd_support.c - "tunectl support dispatch | run | roles": support roles
 * (analysts and executors a phase asks for) handed to fresh workers
 * through the same agent hosts as run-next.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "tunectl/buf.h"
#include "tunectl/support.h"

static int
bad_role(const struct tc_command *cmd, const char *role)
{
	tc_buf choices = TC_BUF_INIT;
	size_t i;
	int rc;

	for (i = 0; i < TC_SUPPORT_ROLE_COUNT; i++)
		tc_buf_printf(&choices, "%s'%s'", i > 0 ? ", " : "",
		    tc_support_roles[i].agent_id);
	rc = tc_usage_error(cmd, "argument --role: invalid choice: '%s' "
	    "(choose from %s)", role, tc_buf_cstr(&choices));
	tc_buf_free(&choices);
	return rc;
}

static int
support_dispatch(const struct tc_command *cmd, int argc, char **argv)
{
	const char *session = NULL, *role = NULL, *output = NULL, *request = NULL;
	const struct tc_option opts[] = {
		{ "--session", TC_OPT_STRING, &session, true, NULL },
		{ "--role", TC_OPT_STRING, &role, true, NULL },
		{ "--output", TC_OPT_STRING, &output, true, NULL },
		{ "--request", TC_OPT_STRING, &request, false, NULL },
		{ NULL, 0, NULL, false, NULL }
	};
	tc_error err = TC_ERROR_INIT;
	tc_json *task;
	int rc;

	if ((rc = tc_opts_parse(cmd, argc, argv, opts, NULL)) != 0)
		return rc < 0 ? TC_EXIT_OK : rc;
	if (tc_support_role_find(role) == NULL)
		return bad_role(cmd, role);
	task = tc_support_dispatch(session, role, request, output, &err);
	return tc_cli_reply(cmd, task, &err);
}

static int
support_run(const struct tc_command *cmd, int argc, char **argv)
{
	const char *session = NULL, *role = NULL, *runner_path = NULL;
	const char *request = NULL;
	double timeout_s = TC_RUN_NEXT_DEFAULT_TIMEOUT_S;
	double grace_s = TC_RUN_NEXT_DEFAULT_GRACE_S;
	const struct tc_option opts[] = {
		{ "--session", TC_OPT_STRING, &session, true, NULL },
		{ "--role", TC_OPT_STRING, &role, true, NULL },
		{ "--runner-command-json", TC_OPT_STRING, &runner_path, false,
		  NULL },
		{ "--request", TC_OPT_STRING, &request, false, NULL },
		{ "--timeout-seconds", TC_OPT_DOUBLE, &timeout_s, false, NULL },
		{ "--grace-seconds", TC_OPT_DOUBLE, &grace_s, false, NULL },
		{ NULL, 0, NULL, false, NULL }
	};
	tc_support_opts so = { 0, 0, NULL, NULL };
	tc_error err = TC_ERROR_INIT;
	tc_runner runner;
	tc_json *receipt = NULL;
	int rc;

	if ((rc = tc_opts_parse(cmd, argc, argv, opts, NULL)) != 0)
		return rc < 0 ? TC_EXIT_OK : rc;
	if (tc_support_role_find(role) == NULL)
		return bad_role(cmd, role);
	if (runner_path == NULL)
		runner_path = getenv(TC_RUNNER_ENV);
	if (runner_path == NULL || runner_path[0] == '\0')
		return tc_usage_error(cmd, "the argument "
		    "--runner-command-json is required (or set %s)",
		    TC_RUNNER_ENV);
	if (tc_cli_load_runner(runner_path, &runner, &err) != 0)
		return tc_refuse_error(cmd, &err);
	so.timeout_s = timeout_s;
	so.grace_s = grace_s;
	so.request = request;
	so.seal_program = tc_self_exe();
	rc = tc_support_run(session, role, &runner, &so, &receipt, &err);
	tc_runner_free(&runner);
	if (receipt != NULL) {
		int prc = tc_print_json(receipt);

		tc_json_free(receipt);
		if (rc == 0)
			return prc;
		rc = tc_die("%s", tc_error_msg(&err));
	} else if (rc != 0) {
		rc = tc_refuse(cmd, "%s", tc_error_msg(&err));
	}
	tc_error_clear(&err);
	return rc;
}

static int
support_roles(const struct tc_command *cmd, int argc, char **argv)
{
	const struct tc_option opts[] = { { NULL, 0, NULL, false, NULL } };
	tc_json *list = tc_json_new_array();
	size_t i;
	int rc;

	if ((rc = tc_opts_parse(cmd, argc, argv, opts, NULL)) != 0) {
		tc_json_free(list);
		return rc < 0 ? TC_EXIT_OK : rc;
	}
	for (i = 0; i < TC_SUPPORT_ROLE_COUNT; i++) {
		const tc_support_role *r = &tc_support_roles[i];
		tc_json *o = tc_json_new_object(), *phases = tc_json_new_array();
		const char *const *p;

		for (p = r->phases; *p != NULL; p++)
			tc_json_array_push(phases, tc_json_new_string(*p));
		tc_json_object_set_string(o, "agent_id", r->agent_id);
		tc_json_object_set_string(o, "skill", r->skill);
		tc_json_object_set_bool(o, "read_only", r->read_only);
		tc_json_object_set(o, "phases", phases);
		if (r->branch != NULL)
			tc_json_object_set_string(o, "optional_branch", r->branch);
		tc_json_object_set_string(o, "summary", r->summary);
		tc_json_array_push(list, o);
	}
	rc = tc_print_json(list);
	tc_json_free(list);
	return rc;
}

static const struct tc_command support_dispatch_entry = {
	.name = "support dispatch",
	.summary = "write a support task",
	.run = support_dispatch,
	.flags = TC_CMD_PARENT_USAGE,
};

static const struct tc_command support_run_entry = {
	.name = "support run",
	.summary = "run a support role",
	.run = support_run,
	.flags = TC_CMD_PARENT_USAGE,
};

static const struct tc_command support_roles_entry = {
	.name = "support roles",
	.summary = "the support roles",
	.run = support_roles,
	.flags = TC_CMD_PARENT_USAGE,
};

static const struct tc_command *const support_subs[] = {
	&support_dispatch_entry, &support_run_entry, &support_roles_entry, NULL
};

const struct tc_command cmd_support_entry = {
	.name = "support",
	.summary = "hand a support role (analyst or executor) to a fresh worker for the current phase",
	.usage = "usage: tunectl support dispatch --session PATH --role ROLE --output PATH [--request PATH]\n"
	    "       tunectl support run --session PATH --role ROLE [--runner-command-json PATH]\n"
	    "                           [--request PATH] [--timeout-seconds T] [--grace-seconds G]\n"
	    "       tunectl support roles\n",
	.subs = support_subs,
};
