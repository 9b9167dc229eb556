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
	static const char *const modes[] = { "both", "multistream", "none",
	    "source-range", NULL };
	static const char *const policies[] = { "reference", "strict", NULL };
	struct tc_opt_choice mode_c = { &mode, modes };
	struct tc_opt_choice policy_c = { &policy_name, policies };
	const struct tc_option opts[] = {
		{ "--session", TC_OPT_STRING, &session, true, NULL },
		{ "--artifact-root", TC_OPT_STRING, &root, true, NULL },
		{ "--session-id", TC_OPT_STRING, &id, true, NULL },
		{ "--optional-mode", TC_OPT_CHOICE, &mode_c, true, NULL },
		{ "--evidence-policy", TC_OPT_CHOICE, &policy_c, false, NULL },
		{ NULL, 0, NULL, false, NULL }
	};
	tc_policy policy;
	tc_error err = TC_ERROR_INIT;
	tc_json *doc;
	int rc;

	/* the choices are checked as they are read, as argparse does */
	if ((rc = tc_opts_parse(cmd, argc, argv, opts, NULL)) != 0)
		return rc < 0 ? TC_EXIT_OK : rc;
	if (tc_policy_parse(policy_name, &policy) != 0)
		return TC_EXIT_USAGE;	/* not reached: one of policies */
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
