/*
 * cmd_resume.c - "tunectl resume": verify the session after a restart and
 * name the step to continue with (§7.2), completing an interrupted seal
 * first (docs/controller.md).
 */
#include <stdbool.h>
#include <stdio.h>

#include "cli.h"
#include "tunectl/session.h"

int
cmd_resume(int argc, char **argv)
{
	const struct tc_command *cmd = tc_command_find("resume");
	const char *path = NULL;
	const struct tc_option opts[] = {
		{ "--session", TC_OPT_STRING, &path, true, NULL },
		{ NULL, 0, NULL, false, NULL }
	};
	tc_error err = TC_ERROR_INIT;
	bool repaired = false;
	tc_json *out;
	int rc;

	if ((rc = tc_opts_parse(cmd, argc, argv, opts, NULL)) != 0)
		return rc < 0 ? TC_EXIT_OK : rc;
	if ((out = tc_resume_session(path, &repaired, &err)) == NULL) {
		rc = tc_print_refusal(tc_error_msg(&err));
		tc_error_clear(&err);
		return rc;
	}
	if (repaired)
		fprintf(stderr, "tunectl: resume completed an interrupted "
		    "seal\n");
	rc = tc_print_json(out);
	tc_json_free(out);
	return rc;
}
