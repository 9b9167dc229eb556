/*
 * cmd_next.c - "tunectl next": the only legal next step, or null
 * (docs/spec/controller.md "Next and resume").
 */
#include "cli.h"
#include "tunectl/session.h"

int
cmd_next(int argc, char **argv)
{
	const struct tc_command *cmd = tc_command_find("next");
	const char *path = NULL;
	const struct tc_option opts[] = {
		{ "--session", TC_OPT_STRING, &path, true, NULL },
		{ NULL, 0, NULL, false, NULL }
	};
	tc_error err = TC_ERROR_INIT;
	tc_session *s;
	tc_json *next, *null;
	int rc;

	if ((rc = tc_opts_parse(cmd, argc, argv, opts, NULL)) != 0)
		return rc < 0 ? TC_EXIT_OK : rc;
	if (tc_session_load(path, 0, &s, &err) != 0) {
		rc = tc_print_refusal(tc_error_msg(&err));
		tc_error_clear(&err);
		return rc;
	}
	if ((next = tc_session_next_step(s, NULL)) != NULL) {
		rc = tc_print_json(next);
	} else {
		null = tc_json_new_null();
		rc = tc_print_json(null);
		tc_json_free(null);
	}
	tc_session_free(s);
	return rc;
}
