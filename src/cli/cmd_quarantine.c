/*
 * cmd_quarantine.c - "tunectl quarantine": move the files planted in the
 * scenes of pending steps (a later phase's result written before that
 * phase was dispatched) into <root>/quarantine/, kept as evidence and
 * recorded in the session's sidecar, so the honest worker's next seal is
 * no longer refused (src/session/quarantine.c; docs/controller.md,
 * "Planted files").
 */
#include "cli.h"
#include "tunectl/evidence.h"

static int
cmd_quarantine(const struct tc_command *cmd, int argc, char **argv)
{
	const char *path = NULL;
	const struct tc_option opts[] = {
		{ "--session", TC_OPT_STRING, &path, true, NULL },
		{ NULL, 0, NULL, false, NULL }
	};
	tc_error err = TC_ERROR_INIT;
	int rc;

	if ((rc = tc_opts_parse(cmd, argc, argv, opts, NULL)) != 0)
		return rc < 0 ? TC_EXIT_OK : rc;
	return tc_cli_reply(cmd, tc_quarantine_session(path, &err), &err);
}

const struct tc_command cmd_quarantine_entry = {
	.name = "quarantine",
	.summary = "move files planted in pending steps' scenes aside, as evidence",
	.usage = "usage: tunectl quarantine --session PATH\n",
	.run = cmd_quarantine,
};
