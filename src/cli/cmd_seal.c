/*
 * cmd_seal.c - "tunectl seal": accept the next step's phase result and
 * advance the session (docs/spec/controller.md "Sealing"); prints the session
 * as written.
 */
#include <stdlib.h>

#include "cli.h"
#include "tunectl/path.h"
#include "tunectl/session.h"

static int
cmd_seal(const struct tc_command *cmd, int argc, char **argv)
{
	const char *path = NULL, *result_path = NULL;
	const struct tc_option opts[] = {
		{ "--session", TC_OPT_STRING, &path, true, NULL },
		{ "--result", TC_OPT_STRING, &result_path, true, NULL },
		{ NULL, 0, NULL, false, NULL }
	};
	tc_error err = TC_ERROR_INIT;
	tc_session *sealed = NULL;
	tc_json *result = NULL;
	char *norm;
	int rc;

	if ((rc = tc_opts_parse(cmd, argc, argv, opts, NULL)) != 0)
		return rc < 0 ? TC_EXIT_OK : rc;
	/* Errors name the file as pathlib prints it. */
	norm = tc_path_normalize(result_path);
	result = tc_json_parse_file(norm, &err);
	free(norm);
	if (result == NULL ||
	    tc_seal_handoff(path, result, 0, &sealed, &err) != 0) {
		rc = tc_refuse_error(cmd, &err);
		tc_json_free(result);
		return rc;
	}
	rc = tc_print_json(sealed->doc);
	tc_session_free(sealed);
	tc_json_free(result);
	return rc;
}

const struct tc_command cmd_seal_entry = {
	.name = "seal",
	.summary = "seal the next step's phase result into the session",
	.usage = "usage: tunectl seal --session PATH --result PATH\n",
	.run = cmd_seal,
};
