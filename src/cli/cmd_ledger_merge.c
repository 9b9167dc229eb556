/*
 * cmd_ledger_merge.c - "tunectl ledger merge": a validated experiment
 * result into a schema 2 ledger (experiment_ledger.py merge).
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>

#include "cli.h"
#include "ledger_cli.h"
#include "tunectl/ledger.h"
#include "tunectl/path.h"

/* The ledger at path, or {} when the path does not exist. */
static tc_json *
read_ledger_or_empty(const char *path, tc_error *err)
{
	struct stat st;

	/* Path.exists(): follows symlinks; missing components are "no". */
	if (stat(path, &st) != 0 && (errno == ENOENT || errno == ENOTDIR ||
	    errno == ELOOP))
		return tc_json_new_object();
	return tc_ledger_read_file(path, err);
}

static int
ledger_merge(const struct tc_command *cmd, int argc, char **argv)
{
	const char *ledger_path = NULL, *result_path = NULL, *output = NULL;
	const char *validator = NULL;
	const struct tc_option opts[] = {
		{ "--ledger", TC_OPT_STRING, &ledger_path, true, NULL },
		{ "--result", TC_OPT_STRING, &result_path, true, NULL },
		{ "--output", TC_OPT_STRING, &output, true, NULL },
		{ "--analysis-validator", TC_OPT_STRING, &validator, false, NULL },
		{ NULL, 0, NULL, false, NULL }
	};
	tc_ledger_opts lo = { NULL, NULL };
	tc_ledger_analyzer an;
	tc_ledger_command lc = { NULL, NULL };
	tc_error err = TC_ERROR_INIT;
	tc_json *ledger = NULL, *result = NULL, *merged = NULL;
	char *root = NULL, *shown;
	int rc;

	if ((rc = tc_opts_parse(cmd, argc, argv, opts, NULL)) != 0)
		return rc < 0 ? TC_EXIT_OK : rc;
	if ((ledger = read_ledger_or_empty(ledger_path, &err)) == NULL ||
	    (result = tc_ledger_read_file(result_path, &err)) == NULL) {
		rc = tc_refuse(cmd, "merge failed: %s", tc_error_msg(&err));
		goto out;
	}
	root = tc_cli_ledger_result_root(result_path);
	lo.artifact_root = root;
	tc_cli_ledger_use_validator(&lo, &an, &lc, validator, result_path);
	if ((merged = tc_ledger_merge(ledger, result, &lo, &err)) == NULL) {
		rc = tc_refuse(cmd, "merge failed: ValueError: %s",
		    tc_error_msg(&err));
		goto out;
	}
	if ((rc = tc_cli_ledger_write(cmd, output, merged, "merge failed")) != 0)
		goto out;
	shown = tc_path_normalize(output);
	printf("已合并实验交接: %s\n", shown);
	free(shown);
	rc = fflush(stdout) == 0 ? TC_EXIT_OK : TC_EXIT_FAIL;
out:
	tc_error_clear(&err);
	tc_json_free(ledger);
	tc_json_free(result);
	tc_json_free(merged);
	free(root);
	free((char *)(uintptr_t)lc.result_path);
	return rc;
}

const struct tc_command cmd_ledger_merge_entry = {
	.name = "ledger merge",
	.summary = "merge an experiment result into a ledger",
	.usage = "usage: tunectl ledger merge --ledger LEDGER.json --result RESULT.json --output OUT.json\n"
	    "                            [--analysis-validator CMD]\n"
	    "\nMerge a validated result into a schema 2 ledger (a missing LEDGER is empty; a\n"
	    "schema 1 ledger is migrated).  Prints 已合并实验交接: OUT and exits 0, or prints\n"
	    "{\"errors\": [\"merge failed: ...\"], \"valid\": false} and exits 1 without\n"
	    "writing OUT.\n" ANALYSER_NOTE,
	.run = ledger_merge,
	.refusal = TC_REFUSAL_SORTED,
};
