/*
 * cmd_lineage.c - "tunectl lineage": the chain of sessions a derived
 * session comes from (child -> parent -> ...), each with its status,
 * fingerprint and imported artifacts, as JSON on stdout.  Exit 0 when
 * every session of the chain validates, 1 otherwise.
 */
#include "cli.h"
#include "tunectl/derive.h"

static int
cmd_lineage(const struct tc_command *cmd, int argc, char **argv)
{
	const char *path = NULL;
	const struct tc_option opts[] = {
		{ "--session", TC_OPT_STRING, &path, true, NULL },
		{ NULL, 0, NULL, false, NULL }
	};
	const tc_json *valid;
	tc_json *out;
	int rc;

	if ((rc = tc_opts_parse(cmd, argc, argv, opts, NULL)) != 0)
		return rc < 0 ? TC_EXIT_OK : rc;
	out = tc_session_lineage(path);
	valid = tc_json_get(out, "valid");
	rc = tc_print_json(out);
	if (rc == TC_EXIT_OK && !(tc_json_is(valid, TC_JSON_BOOL) && valid->u.b))
		rc = TC_EXIT_FAIL;
	tc_json_free(out);
	return rc;
}

const struct tc_command cmd_lineage_entry = {
	.name = "lineage",
	.summary = "print the chain of sessions a derived session imports from (JSON)",
	.usage = "usage: tunectl lineage --session PATH\n",
	.run = cmd_lineage,
};
