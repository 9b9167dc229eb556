/*
 * cmd_derive_session.c - "tunectl derive-session" and "tunectl
 * source-range-from-smap" (docs/spec/controller.md "Derived sessions"): start a
 * derived optional-experiment session from a completed parent's BASE/SMAP
 * evidence.  The second is the first with --optional-mode fixed to source-range
 * and --source-scope-map required.  --evidence-policy may only tighten the
 * parent's policy, which the child keeps by default.  Prints the derived
 * session as loaded back.
 */
#include <stdbool.h>
#include <string.h>

#include "cli.h"
#include "tunectl/derive.h"
#include "tunectl/evidence.h"
#include "tunectl/session.h"

static int
derive(const struct tc_command *cmd, int argc, char **argv, bool fixed_mode)
{
	struct tc_derive_args a;
	static const char *const modes[] = { "multistream", "source-range",
	    "both", NULL };
	static const char *const policies[] = { "reference", "strict", NULL };
	struct tc_opt_choice mode_c = { &a.optional_mode, modes };
	struct tc_opt_choice policy_c = { &a.evidence_policy, policies };
	const struct tc_option opts[] = {
		{ "--parent-session", TC_OPT_STRING, &a.parent_session, true, NULL },
		{ "--session", TC_OPT_STRING, &a.session, true, NULL },
		{ "--artifact-root", TC_OPT_STRING, &a.artifact_root, true, NULL },
		{ "--session-id", TC_OPT_STRING, &a.session_id, true, NULL },
		{ "--profiling-analysis", TC_OPT_STRING, &a.profiling_analysis,
		  true, NULL },
		{ "--ledger", TC_OPT_STRING, &a.ledger, true, NULL },
		{ "--source-scope-map", TC_OPT_STRING, &a.source_scope_map,
		  fixed_mode, NULL },
		{ "--approve-imported-evidence", TC_OPT_FLAG, &a.approved, false,
		  NULL },
		{ "--evidence-policy", TC_OPT_CHOICE, &policy_c, false, NULL },
		/* last, so that source-range-from-smap can drop it */
		{ "--optional-mode", TC_OPT_CHOICE, &mode_c, true, NULL },
		{ NULL, 0, NULL, false, NULL }
	};
	struct tc_option used[sizeof(opts) / sizeof(opts[0])];
	tc_error err = TC_ERROR_INIT;
	tc_session *s;
	int rc;

	memset(&a, 0, sizeof(a));
	memcpy(used, opts, sizeof(opts));
	if (fixed_mode) {
		/* argparse has no --optional-mode here: it is unknown */
		memset(&used[9], 0, sizeof(used[9]));
		a.optional_mode = "source-range";
	}
	if ((rc = tc_opts_parse(cmd, argc, argv, used, NULL)) != 0)
		return rc < 0 ? TC_EXIT_OK : rc;
	/* the choices were checked as they were read, as argparse does */
	if ((s = tc_derive_session(&a, &err)) == NULL)
		return tc_refuse_error(cmd, &err);
	rc = tc_print_json(s->doc);
	tc_session_free(s);
	return rc;
}

static int
cmd_derive_session(const struct tc_command *cmd, int argc, char **argv)
{
	return derive(cmd, argc, argv, false);
}

static int
cmd_source_range_from_smap(const struct tc_command *cmd, int argc, char **argv)
{
	return derive(cmd, argc, argv, true);
}

const struct tc_command cmd_derive_session_entry = {
	.name = "derive-session",
	.summary = "start a derived optional-experiment session from a completed parent's BASE/SMAP evidence",
	.usage = "usage: tunectl derive-session --parent-session PATH --session PATH --artifact-root PATH --session-id ID\n"
	    "                              --profiling-analysis PATH --ledger PATH [--source-scope-map PATH]\n"
	    "                              [--approve-imported-evidence] [--evidence-policy {reference,strict}]\n"
	    "                              --optional-mode {multistream,source-range,both}\n",
	.run = cmd_derive_session,
};

const struct tc_command cmd_source_range_from_smap_entry = {
	.name = "source-range-from-smap",
	.summary = "derive a source-range session from a completed parent's BASE/SMAP evidence",
	.usage = "usage: tunectl source-range-from-smap --parent-session PATH --session PATH --artifact-root PATH\n"
	    "                                      --session-id ID --profiling-analysis PATH --ledger PATH\n"
	    "                                      --source-scope-map PATH [--approve-imported-evidence]\n"
	    "                                      [--evidence-policy {reference,strict}]\n",
	.run = cmd_source_range_from_smap,
};
