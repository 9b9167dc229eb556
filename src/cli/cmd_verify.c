/*
 * cmd_verify.c - "tunectl verify": integrity of every sealed handoff
 * (§10.4).  Always prints its verdict; exit 0 when valid, 1 otherwise.
 * --all lists every broken step instead of the first problem.
 * --deep also verifies every ancestor of a derived session ("parent").
 */
#include <stdbool.h>

#include "cli.h"
#include "tunectl/derive.h"
#include "tunectl/session.h"

int
cmd_verify(int argc, char **argv)
{
	const struct tc_command *cmd = tc_command_find("verify");
	const char *path = NULL;
	bool all = false, deep = false;
	const struct tc_option opts[] = {
		{ "--session", TC_OPT_STRING, &path, true, NULL },
		{ "--all", TC_OPT_FLAG, &all, false, NULL },
		{ "--deep", TC_OPT_FLAG, &deep, false, NULL },
		{ NULL, 0, NULL, false, NULL }
	};
	tc_json *out;
	const tc_json *valid;
	int rc;

	if ((rc = tc_opts_parse(cmd, argc, argv, opts, NULL)) != 0)
		return rc < 0 ? TC_EXIT_OK : rc;
	out = deep ? tc_verify_session_deep(path, all ? TC_VERIFY_ALL : 0) :
	    tc_verify_session(path, all ? TC_VERIFY_ALL : 0);
	valid = tc_json_get(out, "valid");
	rc = tc_print_json(out);
	if (rc == TC_EXIT_OK && !(tc_json_is(valid, TC_JSON_BOOL) && valid->u.b))
		rc = TC_EXIT_FAIL;
	tc_json_free(out);
	return rc;
}
