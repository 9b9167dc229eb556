/*
 * cmd_execute_phase.c - "tunectl execute-phase": the reference's
 * scripts/execute_phase.py of every phase skill (phase_entrypoint.run).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "tunectl/buf.h"
#include "tunectl/phase.h"

static int
bad_tool_choice(const struct tc_command *cmd, const tc_phase_manifest *m,
    const char *tool)
{
	tc_buf choices = TC_BUF_INIT;
	size_t i;
	int rc;

	for (i = 0; i < m->ntools; i++)
		tc_buf_printf(&choices, "%s'%s'", i > 0 ? ", " : "", m->tools[i]);
	rc = tc_usage_error(cmd, "argument --tool: invalid choice: '%s' "
	    "(choose from %s)", tool, tc_buf_cstr(&choices));
	tc_buf_free(&choices);
	return rc;
}

/* The value argv[1..end) gives the option name last (argparse keeps the
 * last), as "NAME VALUE" or "NAME=VALUE", or NULL. */
static const char *
last_value(int end, char **argv, const char *name)
{
	size_t len = strlen(name);
	const char *v = NULL;
	int i;

	for (i = 1; i < end; i++) {
		if (strcmp(argv[i], name) == 0 && i + 1 < end)
			v = argv[++i];
		else if (strncmp(argv[i], name, len) == 0 &&
		    argv[i][len] == '=')
			v = argv[i] + len + 1;
	}
	return v;
}

/*
 * --tool's choices, read before the parse: the reference builds its parser
 * with choices = the manifest's runtime_tools, so a bad --tool is refused
 * as it is read, before a missing --task.  The manifest is the one
 * --manifest or --phase names in argv[1..end); a NULL-terminated copy of
 * its tools (malloc'd), or NULL when argv names none, both, or one that
 * does not load (the command then checks --tool after the parse, and
 * reports the manifest's error there).
 */
static const char **
tool_choices(int end, char **argv)
{
	const char *manifest = last_value(end, argv, "--manifest");
	const char *phase = last_value(end, argv, "--phase");
	tc_error err = TC_ERROR_INIT;
	tc_phase_manifest *m = NULL;
	char *path = NULL, *tools_dir = NULL;
	const char **choices = NULL;
	size_t i;

	if ((manifest == NULL) == (phase == NULL))
		return NULL;
	path = manifest != NULL ? tc_xstrdup(manifest) :
	    tc_phase_manifest_path(tc_self_exe(), phase, &err);
	if (path != NULL &&
	    (tools_dir = tc_share_dir(tc_self_exe(), "tools", &err)) != NULL &&
	    tc_phase_manifest_load(path, tools_dir, &m, &err) == 0) {
		choices = tc_xcalloc(m->ntools + 1, sizeof(*choices));
		for (i = 0; i < m->ntools; i++)
			choices[i] = tc_xstrdup(m->tools[i]);
	}
	tc_phase_manifest_free(m);
	tc_error_clear(&err);
	free(path);
	free(tools_dir);
	return choices;
}

static void
free_choices(const char **choices)
{
	size_t i;

	for (i = 0; choices != NULL && choices[i] != NULL; i++)
		free((char *)choices[i]);
	free(choices);
}

static int
cmd_execute_phase(const struct tc_command *cmd, int argc, char **argv)
{
	const char *task = NULL, *manifest_arg = NULL, *phase = NULL;
	const char *tool = NULL, *lease_root = NULL, *manifest_out = NULL;
	struct tc_strlist ids_arg = { NULL, 0 };
	double timeout = 600;
	bool timeout_given = false;
	struct tc_opt_choice tool_c = { &tool, NULL };
	struct tc_option opts[] = {
		{ "--task", TC_OPT_STRING, &task, true, NULL },
		{ "--manifest", TC_OPT_STRING, &manifest_arg, false, NULL },
		{ "--phase", TC_OPT_STRING, &phase, false, NULL },
		{ "--tool", TC_OPT_STRING, &tool, false, NULL },
		{ "--lease-root", TC_OPT_STRING, &lease_root, false, NULL },
		{ "--device-id", TC_OPT_LIST, &ids_arg, false, NULL },
		{ "--timeout-seconds", TC_OPT_DOUBLE, &timeout, false,
		  &timeout_given },
		{ "--manifest-out", TC_OPT_STRING, &manifest_out, false, NULL },
		{ NULL, 0, NULL, false, NULL }
	};
	tc_error err = TC_ERROR_INIT;
	tc_phase_manifest *m = NULL;
	tc_json *current = NULL, *out = NULL;
	char *manifest_path = NULL, *tools_dir = NULL, **tool_args = NULL;
	long *ids = NULL;
	int split, rest, rc;
	size_t k;

	split = tc_cli_split_remainder(argc, argv, opts, &rest);
	if ((tool_c.choices = tool_choices(split, argv)) != NULL) {
		opts[3].kind = TC_OPT_CHOICE;	/* --tool */
		opts[3].dest = &tool_c;
	}
	rc = tc_opts_parse(cmd, split, argv, opts, NULL);
	free_choices((const char **)tool_c.choices);
	if (rc != 0) {
		tc_strlist_free(&ids_arg);
		return rc < 0 ? TC_EXIT_OK : rc;
	}
	if ((manifest_arg == NULL) == (phase == NULL)) {
		tc_strlist_free(&ids_arg);
		return tc_usage_error(cmd, "exactly one of the arguments "
		    "--manifest --phase is required");
	}
	if (tc_cli_parse_ids(cmd, &ids_arg, &ids) != 0) {
		tc_strlist_free(&ids_arg);
		return TC_EXIT_USAGE;
	}
	manifest_path = manifest_arg != NULL ? tc_xstrdup(manifest_arg) :
	    tc_phase_manifest_path(tc_self_exe(), phase, &err);
	if (manifest_path == NULL ||
	    (tools_dir = tc_share_dir(tc_self_exe(), "tools", &err)) == NULL ||
	    tc_phase_manifest_load(manifest_path, tools_dir, &m, &err) != 0) {
		rc = tc_refuse(cmd, "%s", tc_error_msg(&err));
		goto out;
	}
	if (tool != NULL) {
		bool known = false;

		for (k = 0; k < m->ntools; k++)
			known = known || strcmp(m->tools[k], tool) == 0;
		if (!known) {
			rc = bad_tool_choice(cmd, m, tool);
			goto out;
		}
	}
	if (tc_phase_check_task(task, m, &current, &err) != 0) {
		rc = tc_refuse(cmd, "%s", tc_error_msg(&err));
		goto out;
	}
	if (tool == NULL) {
		out = tc_phase_plan(m, current);
		rc = tc_print_json(out);
	} else {
		tc_phase_tool_run run;
		tc_lease_outcome outcome;

		tool_args = tc_cli_argv_tail(argc, argv, rest);
		memset(&run, 0, sizeof(run));
		run.tool = tool;
		run.lease_root = lease_root;
		run.device_ids = ids;
		run.ndevices = ids_arg.len;
		run.timeout_s = timeout;
		run.timeout_integral = !timeout_given;
		run.manifest_out = manifest_out;
		run.tool_args = tool_args;
		/* The tool shims run the tunectl that runs the phase. */
		setenv("TUNECTL", tc_self_exe(), 1);
		if (tc_phase_run_tool(m, current, &run, &out, &outcome,
		    &err) != 0) {
			rc = tc_refuse(cmd, "%s", tc_error_msg(&err));
			goto out;
		}
		rc = tc_print_json(out);
		if (rc == TC_EXIT_OK && outcome != TC_LEASE_PASSED)
			rc = TC_EXIT_FAIL;
	}
out:
	tc_json_free(out);
	tc_json_free(current);
	tc_phase_manifest_free(m);
	tc_error_clear(&err);
	free(manifest_path);
	free(tools_dir);
	free(tool_args);
	free(ids);
	tc_strlist_free(&ids_arg);
	return rc;
}

const struct tc_command cmd_execute_phase_entry = {
	.name = "execute-phase",
	.summary = "validate a phase task; print its tool plan or run one tool under a lease",
	.usage = "usage: tunectl execute-phase --task PATH (--manifest PATH | --phase NAME) [--tool NAME\n"
	    "                             --lease-root DIR --device-id N [--device-id N ...]\n"
	    "                             [--timeout-seconds T] [--manifest-out PATH]] [--] [ARGS...]\n",
	.run = cmd_execute_phase,
};
