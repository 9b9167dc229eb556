/*
 * ledger_cli.h - the "tunectl ledger" subcommands (one cmd_ledger_<name>.c
 * each) and the helpers they share (ledger_cli.c).
 */
#ifndef TUNECTL_LEDGER_CLI_H
#define TUNECTL_LEDGER_CLI_H

#include "cli.h"
#include "tunectl/ledger.h"

extern const struct tc_command cmd_ledger_validate_entry;
extern const struct tc_command cmd_ledger_merge_entry;
extern const struct tc_command cmd_ledger_migrate_entry;
extern const struct tc_command cmd_ledger_final_e2e_entry;

/* What --help of validate and merge says about the external analyser. */
#define ANALYSER_NOTE \
	"\n  --analysis-validator CMD\n" \
	"                        run CMD ANALYSIS_PATH ROUND_ID RESULT_PATH for every\n" \
	"                        profiling analysis; it stands for the reference's analyser\n" \
	"                        and must exit 0 printing {\"per_sk_decisions\": [...],\n" \
	"                        \"scope_actions\": [...]} (tunectl then checks the coverage)\n" \
	"\nNot reproduced: with an artifact root the reference also re-validates and\n" \
	"re-analyses every profiling analysis file with an external analyser\n" \
	"(recommend_sk_strategy / analyze_fusion_performance) whose behaviour is not\n" \
	"specified.  tunectl runs every check the specification defines (artifact root,\n" \
	"analysis paths, binding of each analysis to the experiment and its round, input\n" \
	"and profile files); without --analysis-validator it never marks a result\n" \
	"artifact_evidence_validated, so a merge never promotes it into\n" \
	"conditional_performance_evidence.  See docs/ledger.md.\n"

/* The directory the reference uses as artifact root: the resolved parent
 * of the result file (malloc'd). */
char *tc_cli_ledger_result_root(const char *result);
/* --analysis-validator CMD: install the external analyser hook in lo. */
void tc_cli_ledger_use_validator(tc_ledger_opts *lo, tc_ledger_analyzer *an,
    tc_ledger_command *lc, const char *validator, const char *result);
/* Write a ledger; a failure is cmd's refusal "WHAT: Type: message". */
int tc_cli_ledger_write(const struct tc_command *cmd, const char *path,
    const tc_json *ledger, const char *what);

#endif
