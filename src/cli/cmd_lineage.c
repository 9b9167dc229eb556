/*
 * cmd_lineage.c - "tunectl lineage": the chain of sessions a derived
 * session comes from (child -> parent -> ...), each with its status,
 * fingerprint and imported artifacts, as JSON on stdout.  Exit 0 when
 * every session of the chain validates, 1 otherwise.
 */
#include "cli.h"
#include "tunectl/derive.h"

static int
cmd_lineage(const struct tc_command *cmd, int argc, char **argv)
{
	const char *path = NULL;
	const struct tc_option opts[] = {
		{ "--session", TC_OPT_STRING, &path, true, NULL },
		{ NULL, 0, NULL, false, NULL }
	};
	int rc;

	if ((rc = tc_opts_parse(cmd, argc, argv, opts, NULL)) != 0)
		return rc < 0 ? TC_EXIT_OK : rc;
	return tc_cli_print_verdict(tc_session_lineage(path));
}

const struct tc_command cmd_lineage_entry = {
	.name = "lineage",
	.summary = "print the chain of sessions a derived session imports from (JSON)",
	.usage = "usage: tunectl lineage --session PATH\n",
	.run = cmd_lineage,
};
