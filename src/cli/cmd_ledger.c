/*
 * cmd_ledger.c - "tunectl ledger": the schema 2 experiment ledger tool
 * (experiment_ledger.py).  validate and merge take the reference's
 * arguments and print and exit as it does (docs/spec/ledger.md "Ledger CLI
 * behaviour"); migrate and final-e2e are tunectl's: the schema 1 -> 2
 * migration on its own, and the final_e2e record computed from two
 * measured run sets.  One cmd_ledger_<name>.c per subcommand.
 */
#include <stddef.h>

#include "cli.h"
#include "ledger_cli.h"

static const struct tc_command *const ledger_subs[] = {
	&cmd_ledger_validate_entry, &cmd_ledger_merge_entry,
	&cmd_ledger_migrate_entry, &cmd_ledger_final_e2e_entry, NULL
};

const struct tc_command cmd_ledger_entry = {
	.name = "ledger",
	.summary = "the schema 2 experiment ledger (experiment_ledger.py) and final_e2e",
	.usage = "usage: tunectl ledger validate RESULT.json\n"
	    "       tunectl ledger merge --ledger LEDGER.json --result RESULT.json --output OUT.json\n"
	    "       tunectl ledger migrate --ledger LEDGER.json --output OUT.json\n"
	    "       tunectl ledger final-e2e --ledger LEDGER.json ... (see 'tunectl ledger final-e2e --help')\n",
	.subs = ledger_subs,
	.sub_dest = "command",
	.refusal = TC_REFUSAL_SORTED,
};
