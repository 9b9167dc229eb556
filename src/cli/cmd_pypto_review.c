/*
 * cmd_pypto_review.c - "tunectl pypto review template": the review items
 * stage5-check asks the verifier to answer, bound to the final test.
 */
#include <string.h>

#include "cli.h"
#include "pypto_cli.h"
#include "tunectl/fileio.h"
#include "tunectl/pypto_stage5.h"

static int
cmd_pypto_review(const struct tc_command *self, int argc, char **argv)
{
	const char *op_dir = NULL, *output = NULL;
	struct tc_parse_result res;
	tc_error err = TC_ERROR_INIT;
	tc_json *t;
	int rc;
	const struct tc_option opts[] = {
		{ "--op-dir", TC_OPT_STRING, &op_dir, true, NULL },
		{ "--output", TC_OPT_STRING, &output, false, NULL },
		{ NULL, 0, NULL, false, NULL }
	};

	rc = tc_opts_parse(self, argc, argv, opts, &res);
	if (rc != 0)
		return rc < 0 ? TC_EXIT_OK : rc;
	if (res.positional.len != 1 ||
	    strcmp(res.positional.items[0], "template") != 0) {
		tc_parse_result_free(&res);
		return tc_usage_error(self, "expected: review template");
	}
	tc_parse_result_free(&res);
	t = tc_pypto_review_template(op_dir, &err);
	return tc_pypto_cli_finish(tc_pypto_cli_save(t, output,
	    TC_WRITE_MKDIRS, &err), &err);
}

const struct tc_command cmd_pypto_review_entry = {
	.name = "pypto review",
	.summary = "the review template of the final test",
	.usage = "usage: tunectl pypto review template --op-dir DIR [--output FILE]\n",
	.run = cmd_pypto_review,
};
