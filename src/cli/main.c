/*
 * main.c - tunectl's entry point: global options, then dispatch through
 * the command table.
 */
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "tunectl/report.h"

static void
print_overview(FILE *fp)
{
	const struct tc_command *c;

	fprintf(fp, "usage: tunectl [--version] [--help] COMMAND [ARGS...]\n\n"
	    "tunectl runs a tuning campaign as a persisted, digest-sealed state\n"
	    "machine of phases.  Commands:\n\n");
	for (c = tc_commands; c->name != NULL; c++)
		fprintf(fp, "  %-22s %s\n", c->name, c->summary);
	fprintf(fp, "\nRun 'tunectl help COMMAND' or 'tunectl COMMAND --help' "
	    "for a command's options.\n");
}

int
cmd_version(int argc, char **argv)
{
	int rc;

	if ((rc = tc_opts_parse(tc_command_find("version"), argc, argv, NULL,
	    NULL)) != 0)
		return rc < 0 ? TC_EXIT_OK : rc;
	printf("tunectl %s\n", TUNECTL_VERSION);
	return TC_EXIT_OK;
}

int
cmd_help(int argc, char **argv)
{
	const struct tc_command *c;

	if (argc < 2) {
		print_overview(stdout);
		return TC_EXIT_OK;
	}
	if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0)
		argv[1] = (char *)"help";
	if ((c = tc_command_find(argv[1])) == NULL) {
		fprintf(stderr, "tunectl: '%s' is not a tunectl command; "
		    "see 'tunectl help'\n", argv[1]);
		return TC_EXIT_USAGE;
	}
	fputs(c->usage, stdout);
	return TC_EXIT_OK;
}

int
main(int argc, char **argv)
{
	const struct tc_command *c;

	/* The session layer writes reports through the report layer above
	 * it; it is told how here. */
	tc_report_register();
	if (argc < 2) {
		print_overview(stderr);
		return TC_EXIT_USAGE;
	}
	if (strcmp(argv[1], "--version") == 0 || strcmp(argv[1], "-V") == 0)
		return cmd_version(argc - 1, argv + 1);
	if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0) {
		print_overview(stdout);
		return TC_EXIT_OK;
	}
	if ((c = tc_command_find(argv[1])) == NULL) {
		fprintf(stderr, "tunectl: '%s' is not a tunectl command; "
		    "see 'tunectl help'\n", argv[1]);
		return TC_EXIT_USAGE;
	}
	return c->run(argc - 1, argv + 1);
}
