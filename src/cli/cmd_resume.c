/*
 * cmd_resume.c - "tunectl resume": verify the session after a restart and
 * name the step to continue with (docs/spec/controller.md "Next and resume"),
 * completing an interrupted seal first (docs/controller.md).
 */
#include <stdio.h>

#include "cli.h"
#include "tunectl/session.h"

static int
cmd_resume(const struct tc_command *cmd, int argc, char **argv)
{
	const char *path = NULL;
	const struct tc_option opts[] = {
		{ "--session", TC_OPT_STRING, &path, true, NULL },
		{ NULL, 0, NULL, false, NULL }
	};
	tc_error err = TC_ERROR_INIT;
	tc_resume_report rep;
	tc_json *out;
	int rc;

	if ((rc = tc_opts_parse(cmd, argc, argv, opts, NULL)) != 0)
		return rc < 0 ? TC_EXIT_OK : rc;
	out = tc_resume_session(path, &rep, &err);
	if (rep.unadopted != NULL)
		fprintf(stderr, "tunectl: %s was not written by tunectl for this "
		    "session state; it is left alone (seal it with tunectl seal "
		    "--result if it is yours, or move it aside with tunectl "
		    "quarantine --session %s)\n", rep.unadopted, path);
	if (out != NULL && rep.repaired)
		fprintf(stderr, "tunectl: resume completed an interrupted "
		    "seal\n");
	tc_resume_report_free(&rep);
	return tc_cli_reply(cmd, out, &err);
}

const struct tc_command cmd_resume_entry = {
	.name = "resume",
	.summary = "verify a session and name the step to continue with",
	.usage = "usage: tunectl resume --session PATH\n",
	.run = cmd_resume,
};
