/*
 * cmd_version.c - "tunectl version" (and "tunectl --version").
 */
#include <stdio.h>

#include "cli.h"

static int
cmd_version(const struct tc_command *self, int argc, char **argv)
{
	int rc;

	if ((rc = tc_opts_parse(self, argc, argv, NULL, NULL)) != 0)
		return rc < 0 ? TC_EXIT_OK : rc;
	printf("tunectl %s\n", TUNECTL_VERSION);
	return TC_EXIT_OK;
}

const struct tc_command cmd_version_entry = {
	.name = "version",
	.summary = "print the version",
	.usage = "usage: tunectl version\n",
	.run = cmd_version,
};
