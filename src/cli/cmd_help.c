/*
 * cmd_help.c - "tunectl help [COMMAND [SUBCOMMAND]]": the list of commands,
 * or one command's usage and help.
 */
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "tunectl/buf.h"

void
tc_cli_overview(FILE *fp)
{
	size_t i;

	fprintf(fp, "usage: tunectl [--version] [--help] COMMAND [ARGS...]\n\n"
	    "tunectl runs a tuning campaign as a persisted, digest-sealed state\n"
	    "machine of phases.  Commands:\n\n");
	for (i = 0; tc_commands[i] != NULL; i++)
		fprintf(fp, "  %-22s %s\n", tc_commands[i]->name,
		    tc_commands[i]->summary);
	fprintf(fp, "\nRun 'tunectl help COMMAND' or 'tunectl COMMAND --help' "
	    "for a command's options.\n");
}

int
tc_cli_unknown_command(const char *name)
{
	fprintf(stderr, "tunectl: '%s' is not a tunectl command; "
	    "see 'tunectl help'\n", name);
	return TC_EXIT_USAGE;
}

static int
cmd_help(const struct tc_command *self, int argc, char **argv)
{
	const struct tc_command *c, *parent = NULL;
	tc_buf name = TC_BUF_INIT;
	int i, rc;

	(void)self;
	if (argc < 2) {
		tc_cli_overview(stdout);
		return TC_EXIT_OK;
	}
	if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0)
		argv[1] = (char *)"help";
	if ((c = tc_command_find(tc_commands, argv[1])) == NULL)
		return tc_cli_unknown_command(argv[1]);
	/* "help ledger merge": walk down the subcommands named. */
	tc_buf_puts(&name, argv[1]);
	for (i = 2; i < argc; i++) {
		tc_buf_printf(&name, " %s", argv[i]);
		parent = c;
		if ((c = tc_command_find(c->subs, argv[i])) == NULL) {
			rc = tc_cli_unknown_command(tc_buf_cstr(&name));
			tc_buf_free(&name);
			return rc;
		}
		if (c->flags & TC_CMD_PARENT_USAGE)
			c = parent;
	}
	tc_buf_free(&name);
	tc_cli_print_help(c, stdout, true);
	return TC_EXIT_OK;
}

const struct tc_command cmd_help_entry = {
	.name = "help",
	.summary = "show help for tunectl or one command",
	.usage = "usage: tunectl help [COMMAND [SUBCOMMAND]]\n",
	.run = cmd_help,
};
