/*
 * main.c - tunectl's entry point: global options, then the command named
 * by argv[1] through the command table (commands.c).
 */
#include <malloc.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "tunectl/report.h"

int
main(int argc, char **argv)
{
	const struct tc_command *c;

	/*
	 * A command lives milliseconds and reads documents of up to a few
	 * megabytes one after another.  By default glibc maps each large
	 * buffer afresh and unmaps it on free, so every document faults its
	 * pages in again (10 us a page on a virtual machine): keep freed
	 * memory in the heap for the next one instead.
	 */
	mallopt(M_MMAP_THRESHOLD, 64 * 1024 * 1024);
	mallopt(M_TRIM_THRESHOLD, 128 * 1024 * 1024);
	/* The session layer writes reports through the report layer above
	 * it; it is told how here. */
	tc_report_register();
	if (argc < 2) {
		tc_cli_overview(stderr);
		return TC_EXIT_USAGE;
	}
	if (strcmp(argv[1], "--version") == 0 || strcmp(argv[1], "-V") == 0)
		return tc_cli_run(&cmd_version_entry, argc - 1, argv + 1);
	if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0) {
		tc_cli_overview(stdout);
		return TC_EXIT_OK;
	}
	if ((c = tc_command_find(tc_commands, argv[1])) == NULL)
		return tc_cli_unknown_command(argv[1]);
	return tc_cli_run(c, argc - 1, argv + 1);
}
