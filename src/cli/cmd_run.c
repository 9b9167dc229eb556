/*
 * cmd_run.c - "tunectl run": run-next in a loop until the session is
 * completed or one step has failed --max-attempts times in a row, with a
 * progress line per attempt on stderr.
 */
#include <stdio.h>
#include <stdlib.h>

#include "cli.h"
#include "tunectl/host.h"
#include "tunectl/path.h"
#include "tunectl/support.h"

/*
 * Load a runner file and export its absolute path as
 * TUNECTL_RUNNER_COMMAND_JSON, so that a worker started through it can
 * hand a support role to the same host ("tunectl support run" without
 * --runner-command-json).  Shared by run, run-next and support run.
 */
int
tc_cli_load_runner(const char *path, tc_runner *runner, tc_error *err)
{
	char *abs;

	if (tc_runner_load(path, runner, err) != 0)
		return -1;
	if ((abs = tc_path_resolve(path, err)) == NULL) {
		tc_runner_free(runner);
		return -1;
	}
	setenv(TC_RUNNER_ENV, abs, 1);
	free(abs);
	return 0;
}

static void
print_progress(const tc_attempt_report *r, bool sealed, const char *error,
    void *ctx)
{
	if (*(bool *)ctx || r->step_id == NULL) {
		if (!*(bool *)ctx && error != NULL)
			fprintf(stderr, "tunectl run: %s\n", error);
		return;
	}
	fprintf(stderr, "tunectl run: %-28s %-28s attempt %03d  %-9s %-13s "
	    "%7.2fs\n", r->step_id, r->phase, r->attempt,
	    r->runner_status != NULL ? r->runner_status : "-",
	    sealed && r->outcome_status != NULL ? r->outcome_status :
	    "(pending)", r->seconds);
	if (error != NULL)
		fprintf(stderr, "tunectl run: %s\n", error);
}

/* The summary a person reads: the session, then one line per step. */
static int
print_summary(tc_json *done)
{
	const tc_json *steps = tc_json_get_array(done, "steps");
	size_t i, n = steps != NULL ? steps->u.arr.len : 0;

	printf("session %s %s: %zu steps\n",
	    tc_json_get_string_or(done, "session_id", "?"),
	    tc_json_get_string_or(done, "status", "?"), n);
	for (i = 0; i < n; i++) {
		const tc_json *st = steps->u.arr.items[i];

		printf("  %-28s %-8s %s\n",
		    tc_json_get_string_or(st, "step_id", "?"),
		    tc_json_get_string_or(st, "state", "?"),
		    tc_json_get_string_or(st, "outcome_status", "-"));
	}
	printf("(the session document: --json, or %s)\n",
	    "tunectl status --session PATH");
	tc_json_free(done);
	return fflush(stdout) == 0 ? TC_EXIT_OK : TC_EXIT_FAIL;
}

static int
cmd_run(const struct tc_command *cmd, int argc, char **argv)
{
	const char *session = NULL, *runner_path = NULL;
	double timeout_s = TC_RUN_NEXT_DEFAULT_TIMEOUT_S;
	double grace_s = TC_RUN_NEXT_DEFAULT_GRACE_S;
	long max_attempts = 3;
	bool quiet = false, json = false;
	const struct tc_option opts[] = {
		{ "--session", TC_OPT_STRING, &session, true, NULL },
		{ "--runner-command-json", TC_OPT_STRING, &runner_path, true, NULL },
		{ "--timeout-seconds", TC_OPT_DOUBLE, &timeout_s, false, NULL },
		{ "--grace-seconds", TC_OPT_DOUBLE, &grace_s, false, NULL },
		{ "--max-attempts", TC_OPT_INT, &max_attempts, false, NULL },
		{ "--quiet", TC_OPT_FLAG, &quiet, false, NULL },
		{ "--json", TC_OPT_FLAG, &json, false, NULL },
		{ NULL, 0, NULL, false, NULL }
	};
	tc_run_next_opts ro;
	tc_error err = TC_ERROR_INIT;
	tc_runner runner;
	tc_json *done;
	int rc;

	if ((rc = tc_opts_parse(cmd, argc, argv, opts, NULL)) != 0)
		return rc < 0 ? TC_EXIT_OK : rc;
	if (max_attempts < 1)
		return tc_usage_error(cmd, "argument --max-attempts: must be at "
		    "least 1");
	if (tc_cli_load_runner(runner_path, &runner, &err) != 0)
		return tc_refuse_error(cmd, &err);
	ro.timeout_s = timeout_s;
	ro.grace_s = grace_s;
	ro.seal_program = tc_self_exe();
	done = tc_run_session(session, &runner, &ro, max_attempts,
	    print_progress, &quiet, &err);
	tc_runner_free(&runner);
	if (done != NULL && !quiet)
		fprintf(stderr, "tunectl run: session completed\n");
	if (done != NULL && !json)
		return print_summary(done);
	return tc_cli_reply(cmd, done, &err);
}

const struct tc_command cmd_run_entry = {
	.name = "run",
	.summary = "run every remaining step through an agent host until the session completes",
	.usage = "usage: tunectl run --session PATH --runner-command-json PATH [--timeout-seconds T]\n"
	    "                   [--grace-seconds G] [--max-attempts N] [--quiet] [--json]\n",
	.help = "\nPrints a summary of the completed session (one line per step: "
	    "state and\noutcome); --json prints the whole session document "
	    "instead.  A refusal is\nprinted as JSON either way.\n",
	.run = cmd_run,
};
