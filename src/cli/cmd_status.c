/*
 * cmd_status.c - "tunectl status": a human summary of a session: steps,
 * states, outcomes, integrity, the next legal step and what to run.
 */
#include <stdio.h>

#include "cli.h"
#include "tunectl/session.h"

static int
cmd_status(const struct tc_command *cmd, int argc, char **argv)
{
	const char *path = NULL;
	const struct tc_option opts[] = {
		{ "--session", TC_OPT_STRING, &path, true, NULL },
		{ NULL, 0, NULL, false, NULL }
	};
	tc_error err = TC_ERROR_INIT;
	tc_buf out = TC_BUF_INIT;
	int rc;

	if ((rc = tc_opts_parse(cmd, argc, argv, opts, NULL)) != 0)
		return rc < 0 ? TC_EXIT_OK : rc;
	if (tc_session_describe(path, "tunectl", &out, &err) != 0) {
		rc = tc_die("status: %s", tc_error_msg(&err));
		tc_error_clear(&err);
		return rc;
	}
	fputs(tc_buf_cstr(&out), stdout);
	tc_buf_free(&out);
	return fflush(stdout) == 0 ? TC_EXIT_OK : TC_EXIT_FAIL;
}

const struct tc_command cmd_status_entry = {
	.name = "status",
	.summary = "human summary of a session and what to run next",
	.usage = "usage: tunectl status --session PATH\n",
	.run = cmd_status,
};
