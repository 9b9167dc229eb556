/*
 * cmd_init.c - "tunectl init": create a new full session
 * (docs/spec/controller.md "Initializing a session") with its evidence policy
 * (--evidence-policy reference|strict, default reference: the reference's flags
 * give the reference's session).
 */
#include <string.h>

#include "cli.h"
#include "tunectl/evidence.h"
#include "tunectl/session.h"

static int
cmd_init(const struct tc_command *cmd, int argc, char **argv)
{
	const char *session = NULL, *root = NULL, *id = NULL, *mode = NULL;
	const char *policy_name = "reference";
	const struct tc_option opts[] = {
		{ "--session", TC_OPT_STRING, &session, true, NULL },
		{ "--artifact-root", TC_OPT_STRING, &root, true, NULL },
		{ "--session-id", TC_OPT_STRING, &id, true, NULL },
		{ "--optional-mode", TC_OPT_STRING, &mode, true, NULL },
		{ "--evidence-policy", TC_OPT_STRING, &policy_name, false, NULL },
		{ NULL, 0, NULL, false, NULL }
	};
	tc_policy policy;
	tc_error err = TC_ERROR_INIT;
	tc_json *doc;
	size_t i;
	int rc;

	if ((rc = tc_opts_parse(cmd, argc, argv, opts, NULL)) != 0)
		return rc < 0 ? TC_EXIT_OK : rc;
	for (i = 0; i < 4 && strcmp(tc_optional_modes[i], mode) != 0; i++)
		continue;
	if (i == 4)
		return tc_usage_error(cmd, "argument --optional-mode: invalid "
		    "choice: '%s' (choose from 'both', 'multistream', 'none', "
		    "'source-range')", mode);
	if (tc_policy_parse(policy_name, &policy) != 0)
		return tc_usage_error(cmd, "argument --evidence-policy: invalid "
		    "choice: '%s' (choose from 'reference', 'strict')",
		    policy_name);
	doc = tc_session_init_policy(session, root, id, mode, policy, &err);
	return tc_cli_reply(cmd, doc, &err);
}

const struct tc_command cmd_init_entry = {
	.name = "init",
	.summary = "create a new auto-tune session",
	.usage = "usage: tunectl init --session PATH --artifact-root PATH --session-id ID --optional-mode {both,multistream,none,source-range}\n"
	    "                    [--evidence-policy {reference,strict}]\n",
	.run = cmd_init,
};
