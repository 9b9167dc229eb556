/*
 * cmd_gate_matrix.c - "tunectl gate option-matrix" (validate a winner
 * option matrix v1) and "tunectl gate stage-a-options" (check Stage-A
 * configs before they run).
 */
#include <stdio.h>
#include <stdlib.h>

#include "cli.h"
#include "gate_cli.h"
#include "tunectl/bench.h"
#include "tunectl/fileio.h"

/* A validation object on stdout and, with --json-out, in a file. */
static int
print_and_save(const tc_json *res, const char *json_out)
{
	tc_error err = TC_ERROR_INIT;
	int rc = tc_print_json(res);

	if (rc == TC_EXIT_OK && json_out != NULL &&
	    tc_write_json(json_out, res, TC_WRITE_MKDIRS, &err) != 0)
		rc = tc_die("%s", tc_error_msg(&err));
	tc_error_clear(&err);
	return rc;
}

static int
gate_option_matrix(const struct tc_command *cmd, int argc, char **argv)
{
	const char *json_out = NULL;
	struct tc_option opts[] = {
		{ "--json-out", TC_OPT_STRING, &json_out, false, NULL },
		{ NULL, 0, NULL, false, NULL }
	};
	struct tc_parse_result pr;
	tc_error err = TC_ERROR_INIT;
	tc_json *doc, *res;
	int rc;

	rc = tc_opts_parse(cmd, argc, argv, opts, &pr);
	if (rc != 0)
		return rc < 0 ? TC_EXIT_OK : rc;
	if (pr.positional.len != 1) {
		tc_parse_result_free(&pr);
		return tc_usage_error(cmd, "expected exactly one FILE");
	}
	doc = tc_json_parse_file(pr.positional.items[0], &err);
	tc_parse_result_free(&pr);
	if (doc == NULL) {
		rc = tc_refuse(cmd, "%s", tc_error_msg(&err));
		tc_error_clear(&err);
		return rc;
	}
	res = tc_option_matrix_validate(doc, &err);
	tc_json_free(doc);
	if (res == NULL) {
		rc = tc_refuse(cmd, "%s", tc_error_msg(&err));
		tc_error_clear(&err);
		return rc;
	}
	rc = print_and_save(res, json_out);
	tc_json_free(res);
	return rc;
}

static int
gate_stage_a_options(const struct tc_command *cmd, int argc, char **argv)
{
	const char *json_out = NULL;
	struct tc_option opts[] = {
		{ "--json-out", TC_OPT_STRING, &json_out, false, NULL },
		{ NULL, 0, NULL, false, NULL }
	};
	struct tc_parse_result pr;
	tc_json *res;
	bool all;
	int rc;

	rc = tc_opts_parse(cmd, argc, argv, opts, &pr);
	if (rc != 0)
		return rc < 0 ? TC_EXIT_OK : rc;
	if (pr.positional.len == 0) {
		tc_parse_result_free(&pr);
		return tc_usage_error(cmd, "expected at least one CONFIG");
	}
	res = tc_stage_a_configs_check(pr.positional.items,
	    pr.positional.len);
	tc_parse_result_free(&pr);
	all = tc_json_get(res, "all_explicitly_empty")->u.b;
	rc = print_and_save(res, json_out);
	if (rc == TC_EXIT_OK && !all)
		rc = TC_EXIT_FAIL;
	tc_json_free(res);
	return rc;
}

const struct tc_command cmd_gate_option_matrix_entry = {
	.name = "gate option-matrix",
	.summary = "validate a superkernel-winner-option-matrix-v1",
	.usage = "usage: tunectl gate option-matrix FILE [--json-out FILE]\n",
	.help = "\nValidates the winner option matrix v1 (rules in "
	    "docs/measurement.md) and\n"
	    "prints the validation object; exit 1 when the matrix is invalid.\n",
	.run = gate_option_matrix,
	.flags = TC_CMD_HELP_ANYWHERE,
};

const struct tc_command cmd_gate_stage_a_options_entry = {
	.name = "gate stage-a-options",
	.summary = "check Stage-A candidate configs before they run",
	.usage = "usage: tunectl gate stage-a-options CONFIG... [--json-out FILE]\n",
	.help = "\nApplies the Stage-A option controls of --selection-only to "
	    "candidate\n"
	    "configs before they run: each CONFIG (YAML, read like PyYAML "
	    "safe_load) must\n"
	    "define model_config.custom_params.super_kernel_optimize_options and\n"
	    "super_kernel_debug_options as explicitly empty mappings.  Prints one "
	    "record\n"
	    "per config (path, sha256, or the reference's message) and\n"
	    "all_explicitly_empty; exit 1 when a config fails.\n",
	.run = gate_stage_a_options,
	.flags = TC_CMD_HELP_ANYWHERE,
};
