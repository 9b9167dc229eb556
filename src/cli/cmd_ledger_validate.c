/*
 * cmd_ledger_validate.c - "tunectl ledger validate RESULT.json": the
 * reference's experiment_ledger.py validate, printed and exited as it does.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "cli.h"
#include "ledger_cli.h"
#include "tunectl/ledger.h"

static int
ledger_validate(const struct tc_command *cmd, int argc, char **argv)
{
	const char *validator = NULL;
	const struct tc_option opts[] = {
		{ "--analysis-validator", TC_OPT_STRING, &validator, false, NULL },
		{ NULL, 0, NULL, false, NULL }
	};
	struct tc_parse_result pr;
	tc_ledger_opts lo = { NULL, NULL };
	tc_ledger_analyzer an;
	tc_ledger_command lc;
	tc_error err = TC_ERROR_INIT;
	tc_json *result, *out;
	char *root;
	int rc;

	if ((rc = tc_opts_parse(cmd, argc, argv, opts, &pr)) != 0)
		return rc < 0 ? TC_EXIT_OK : rc;
	if (pr.positional.len != 1) {
		rc = tc_usage_error(cmd, pr.positional.len == 0 ?
		    "the following arguments are required: RESULT.json" :
		    "unrecognized arguments: %s", pr.positional.len > 1 ?
		    pr.positional.items[1] : "");
		tc_parse_result_free(&pr);
		return rc;
	}
	result = tc_ledger_read_file(pr.positional.items[0], &err);
	if (result == NULL) {
		rc = tc_refuse(cmd, "invalid JSON input: %s", tc_error_msg(&err));
		tc_error_clear(&err);
		tc_parse_result_free(&pr);
		return rc;
	}
	root = tc_cli_ledger_result_root(pr.positional.items[0]);
	lo.artifact_root = root;
	tc_cli_ledger_use_validator(&lo, &an, &lc, validator,
	    pr.positional.items[0]);
	out = tc_experiment_validate(result, &lo);
	free((char *)(uintptr_t)lc.result_path);
	rc = tc_print_json(out);
	if (rc == TC_EXIT_OK && !tc_json_get(out, "valid")->u.b)
		rc = TC_EXIT_FAIL;
	if (rc == TC_EXIT_OK && validator == NULL &&
	    !tc_json_get(out, "artifact_evidence_validated")->u.b)
		fprintf(stderr, "tunectl: note: artifact evidence not validated: "
		    "the reference analyser is not available (see 'tunectl ledger "
		    "validate --help')\n");
	tc_json_free(out);
	tc_json_free(result);
	free(root);
	tc_parse_result_free(&pr);
	return rc;
}

const struct tc_command cmd_ledger_validate_entry = {
	.name = "ledger validate",
	.summary = "validate an experiment result",
	.usage = "usage: tunectl ledger validate RESULT.json [--analysis-validator CMD]\n"
	    "\nValidate a portable SuperKernel experiment handoff (experiment_ledger.py\n"
	    "validate).  Prints {artifact_evidence_validated, conditional_evidence_eligible,\n"
	    "errors, valid}; exit 0 when valid, 1 otherwise.  The artifact root is the\n"
	    "result file's directory.\n" ANALYSER_NOTE,
	.run = ledger_validate,
	.refusal = TC_REFUSAL_SORTED,
};
