/*
 * cmd_run_next.c - "tunectl run-next": one attempt of the next step
 * through an agent host (docs/spec/controller.md "Run-next and receipts");
 * prints the sealed session.
 */
#include <stdio.h>

#include "cli.h"
#include "tunectl/host.h"

static int
cmd_run_next(const struct tc_command *cmd, int argc, char **argv)
{
	const char *session = NULL, *runner_path = NULL;
	double timeout_s = TC_RUN_NEXT_DEFAULT_TIMEOUT_S;
	double grace_s = TC_RUN_NEXT_DEFAULT_GRACE_S;
	const struct tc_option opts[] = {
		{ "--session", TC_OPT_STRING, &session, true, NULL },
		{ "--runner-command-json", TC_OPT_STRING, &runner_path, true, NULL },
		{ "--timeout-seconds", TC_OPT_DOUBLE, &timeout_s, false, NULL },
		{ "--grace-seconds", TC_OPT_DOUBLE, &grace_s, false, NULL },
		{ NULL, 0, NULL, false, NULL }
	};
	tc_run_next_opts ro = { 0, 0, NULL };
	tc_attempt_report report;
	tc_error err = TC_ERROR_INIT;
	tc_runner runner;
	tc_json *sealed;
	int rc;

	if ((rc = tc_opts_parse(cmd, argc, argv, opts, NULL)) != 0)
		return rc < 0 ? TC_EXIT_OK : rc;
	if (tc_cli_load_runner(runner_path, &runner, &err) != 0)
		return tc_refuse_error(cmd, &err);
	ro.timeout_s = timeout_s;
	ro.grace_s = grace_s;
	ro.seal_program = tc_self_exe();
	sealed = tc_run_next(session, &runner, &ro, &report, &err);
	tc_runner_free(&runner);
	if (report.quarantined != NULL)
		fprintf(stderr, "tunectl: moved files planted in the scene of "
		    "%s to quarantine before sealing it (named in its receipt): "
		    "%s\n", report.step_id != NULL ? report.step_id : "the step",
		    report.quarantined);
	if (report.recovered)
		fprintf(stderr, "tunectl: completed the receipt of a step sealed "
		    "by an interrupted run-next\n");
	rc = tc_cli_reply(cmd, sealed, &err);
	tc_attempt_report_free(&report);
	return rc;
}

const struct tc_command cmd_run_next_entry = {
	.name = "run-next",
	.summary = "dispatch the next step to a fresh agent host and seal its result",
	.usage = "usage: tunectl run-next --session PATH --runner-command-json PATH [--timeout-seconds T]\n"
	    "                        [--grace-seconds G]\n",
	.run = cmd_run_next,
};
