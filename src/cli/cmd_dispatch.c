/*
 * cmd_dispatch.c - "tunectl dispatch": write the phase task of the next
 * step (docs/spec/controller.md "Creating a dispatch task"); its seal command
 * names this tunectl binary.
 */
#include "cli.h"
#include "tunectl/session.h"

static int
cmd_dispatch(const struct tc_command *cmd, int argc, char **argv)
{
	const char *path = NULL, *output = NULL;
	const struct tc_option opts[] = {
		{ "--session", TC_OPT_STRING, &path, true, NULL },
		{ "--output", TC_OPT_STRING, &output, true, NULL },
		{ NULL, 0, NULL, false, NULL }
	};
	tc_error err = TC_ERROR_INIT;
	int rc;

	if ((rc = tc_opts_parse(cmd, argc, argv, opts, NULL)) != 0)
		return rc < 0 ? TC_EXIT_OK : rc;
	return tc_cli_reply(cmd, tc_dispatch_write(path, output, tc_self_exe(),
	    &err), &err);
}

const struct tc_command cmd_dispatch_entry = {
	.name = "dispatch",
	.summary = "write the phase task of the next step",
	.usage = "usage: tunectl dispatch --session PATH --output PATH\n",
	.run = cmd_dispatch,
};
