/*
 * cmd_next.c - "tunectl next": the only legal next step, or null
 * (docs/spec/controller.md "Next and resume").
 */
#include "cli.h"
#include "tunectl/session.h"

static int
cmd_next(const struct tc_command *cmd, int argc, char **argv)
{
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
	if (tc_session_load(path, 0, &s, &err) != 0)
		return tc_refuse_error(cmd, &err);
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

const struct tc_command cmd_next_entry = {
	.name = "next",
	.summary = "print the only legal next step (or null)",
	.usage = "usage: tunectl next --session PATH\n",
	.run = cmd_next,
};
