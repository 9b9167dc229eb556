/*
 * cmd_pypto_handoff.c - "tunectl pypto handoff validate": the optimizer's
 * handoff with its three exits (closed, env_error,
 * stage5_contract_blocked) and, for env_error, the triage.
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "pypto_cli.h"
#include "tunectl/path.h"
#include "tunectl/pypto_stage5.h"
#include "tunectl/pypto_state.h"

static int
cmd_pypto_handoff(const struct tc_command *self, int argc, char **argv)
{
	const char *op_dir = NULL, *path = NULL;
	struct tc_parse_result res;
	tc_error err = TC_ERROR_INIT;
	tc_json *h = NULL, *state = NULL, *report = NULL;
	char *abs = NULL, *sp = NULL;
	bool ok;
	int rc;
	const struct tc_option opts[] = {
		{ "--op-dir", TC_OPT_STRING, &op_dir, true, NULL },
		{ "--handoff", TC_OPT_STRING, &path, true, NULL },
		{ NULL, 0, NULL, false, NULL }
	};

	rc = tc_opts_parse(self, argc, argv, opts, &res);
	if (rc != 0)
		return rc < 0 ? TC_EXIT_OK : rc;
	if (res.positional.len != 1 ||
	    strcmp(res.positional.items[0], "validate") != 0) {
		tc_parse_result_free(&res);
		return tc_usage_error(self, "expected: handoff validate");
	}
	tc_parse_result_free(&res);
	if ((abs = tc_path_resolve(op_dir, &err)) == NULL ||
	    (h = tc_json_parse_file(path, &err)) == NULL) {
		rc = tc_pypto_cli_fail(&err);
		goto out;
	}
	sp = tc_path_join(abs, TC_PYPTO_STATE_FILE);
	state = tc_json_parse_file(sp, NULL);
	ok = tc_pypto_handoff_validate(abs, h, state, &report, &err) == 0;
	rc = tc_pypto_cli_verdict(report, ok);
out:
	tc_error_clear(&err);
	tc_json_free(h);
	tc_json_free(state);
	free(sp);
	free(abs);
	return rc;
}

const struct tc_command cmd_pypto_handoff_entry = {
	.name = "pypto handoff",
	.summary = "validate the optimizer's handoff",
	.usage = "usage: tunectl pypto handoff validate --op-dir DIR --handoff FILE\n"
	    "Exit 1 when the handoff is invalid (every problem is listed).\n",
	.run = cmd_pypto_handoff,
};
