/*
 * commands.c - the command table: one line per command.  Keep it sorted
 * by name; "tunectl help" lists the commands in this order.
 */
#include <stddef.h>
#include <string.h>

#include "cli.h"

const struct tc_command tc_commands[] = {
	{ "help", "show help for tunectl or one command",
	  "usage: tunectl help [COMMAND]\n", cmd_help },
	{ "json", "canonical JSON, digests and pretty printing",
	  "usage: tunectl json canonical [--ascii] [--no-nan] [FILE|-]\n"
	  "       tunectl json digest [--ascii] [--no-nan] [FILE|-]\n"
	  "       tunectl json pretty [FILE|-]\n", cmd_json },
	{ "sha256", "SHA-256 of files, like sha256sum",
	  "usage: tunectl sha256 FILE...\n", cmd_sha256 },
	{ "version", "print the version",
	  "usage: tunectl version\n", cmd_version },
	{ NULL, NULL, NULL, NULL }
};

const struct tc_command *
tc_command_find(const char *name)
{
	const struct tc_command *c;

	for (c = tc_commands; c->name != NULL; c++)
		if (strcmp(c->name, name) == 0)
			return c;
	return NULL;
}
