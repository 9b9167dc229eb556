/*
 * main.c - tunectl's entry point: global options, then the command named
 * by argv[1] through the command table (commands.c).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "tunectl/analysis.h"
#include "tunectl/bench.h"
#include "tunectl/heap.h"
#include "tunectl/report.h"

/* The gates' replay check recomputes a replay report with the analysis
 * layer's validator (bench cannot call it). */
static tc_json *
recompute_replay(const char *path, const char *expected)
{
	return tc_sk_meta_validate_replay(path, expected, NULL, NULL);
}

int
main(int argc, char **argv)
{
	const struct tc_command *c;

	tc_heap_init();
	/* The session layer writes reports through the report layer above
	 * it; it is told how here. */
	tc_report_register();
	tc_replay_set_recompute(recompute_replay);
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
