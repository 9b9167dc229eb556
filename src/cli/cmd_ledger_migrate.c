/*
 * cmd_ledger_migrate.c - "tunectl ledger migrate": a ledger migrated or
 * normalised to schema 2 on its own, without a result to merge.
 */
#include <stdio.h>
#include <stdlib.h>

#include "cli.h"
#include "ledger_cli.h"
#include "tunectl/ledger.h"
#include "tunectl/path.h"

static int
ledger_migrate(const struct tc_command *cmd, int argc, char **argv)
{
	const char *ledger_path = NULL, *output = NULL;
	const struct tc_option opts[] = {
		{ "--ledger", TC_OPT_STRING, &ledger_path, true, NULL },
		{ "--output", TC_OPT_STRING, &output, true, NULL },
		{ NULL, 0, NULL, false, NULL }
	};
	tc_error err = TC_ERROR_INIT;
	tc_json *ledger, *out = NULL;
	char *shown;
	int rc;

	if ((rc = tc_opts_parse(cmd, argc, argv, opts, NULL)) != 0)
		return rc < 0 ? TC_EXIT_OK : rc;
	if ((ledger = tc_ledger_read_file(ledger_path, &err)) == NULL) {
		rc = tc_refuse(cmd, "migrate failed: %s", tc_error_msg(&err));
		tc_error_clear(&err);
		return rc;
	}
	if ((out = tc_ledger_prepare(ledger, &err)) == NULL) {
		rc = tc_refuse(cmd, "migrate failed: ValueError: %s",
		    tc_error_msg(&err));
	} else if ((rc = tc_cli_ledger_write(cmd, output, out,
	    "migrate failed")) == 0) {
		shown = tc_path_normalize(output);
		printf("已迁移实验账本: %s\n", shown);
		free(shown);
		rc = fflush(stdout) == 0 ? TC_EXIT_OK : TC_EXIT_FAIL;
	}
	tc_error_clear(&err);
	tc_json_free(ledger);
	tc_json_free(out);
	return rc;
}

const struct tc_command cmd_ledger_migrate_entry = {
	.name = "ledger migrate",
	.summary = "migrate or normalise a ledger to schema 2",
	.usage = "usage: tunectl ledger migrate --ledger LEDGER.json --output OUT.json\n"
	    "\nThe preparation half of a merge without a result: a schema 1 ledger is migrated\n"
	    "(legacy experiments and verified exclusions kept, performance experiments\n"
	    "re-validated), a schema 2 ledger is re-validated and its derived index rebuilt.\n"
	    "Prints 已迁移实验账本: OUT, or the refusal JSON and exit 1.\n",
	.run = ledger_migrate,
	.refusal = TC_REFUSAL_SORTED,
};
