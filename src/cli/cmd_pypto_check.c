/*
 * cmd_pypto_check.c - "tunectl pypto check": stage5-check.
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "pypto_cli.h"
#include "tunectl/pypto.h"

static const struct tc_command cmd_check = { "pypto check", "",
"usage: tunectl pypto check stage5 --op-dir DIR --dispatch FILE [--report FILE]\n",
	NULL };

int
cmd_pypto_check(int argc, char **argv)
{
	tc_pypto_check_opts o;
	struct tc_parse_result res;
	tc_error err = TC_ERROR_INIT;
	tc_json *out;
	char *text;
	int rc;
	const struct tc_option opts[] = {
		{ "--op-dir", TC_OPT_STRING, &o.op_dir, true, NULL },
		{ "--dispatch", TC_OPT_STRING, &o.dispatch_path, true, NULL },
		{ "--report", TC_OPT_STRING, &o.report_path, false, NULL },
		{ NULL, 0, NULL, false, NULL }
	};

	memset(&o, 0, sizeof(o));
	rc = tc_opts_parse(&cmd_check, argc, argv, opts, &res);
	if (rc != 0)
		return rc < 0 ? TC_EXIT_OK : rc;
	if (res.positional.len != 1 ||
	    strcmp(res.positional.items[0], "stage5") != 0) {
		tc_parse_result_free(&res);
		return tc_usage_error(&cmd_check, "expected: check stage5");
	}
	tc_parse_result_free(&res);
	if ((out = tc_pypto_check_stage5(&o, &err)) == NULL) {
		rc = tc_pypto_cli_fail(&err);
		tc_error_clear(&err);
		return rc;
	}
	text = tc_pypto_check_render(out);
	fputs(text, stderr);
	free(text);
	rc = strcmp(tc_json_get_string(out, "verdict"), "FAILED") == 0 ?
	    TC_EXIT_FAIL : TC_EXIT_OK;
	if (tc_pypto_cli_print(out) != TC_EXIT_OK)
		rc = TC_EXIT_FAIL;
	return rc;
}
