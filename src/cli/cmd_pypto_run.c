/*
 * cmd_pypto_run.c - "tunectl pypto run-next" (one attempt of the next
 * step through an agent host) and "tunectl pypto run" (run-next until the
 * pipeline completes, waits for the user or halts), with a progress line
 * per attempt on stderr.
 */
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "pypto_cli.h"
#include "tunectl/pypto_orch.h"

static void
progress(const tc_attempt_report *r, const tc_json *accepted,
    const char *error, void *ctx)
{
	if (*(bool *)ctx)
		return;
	if (r->step_id == NULL) {
		if (error != NULL)
			fprintf(stderr, "tunectl pypto run: %s\n", error);
		return;
	}
	fprintf(stderr, "tunectl pypto run: %-34s attempt %03d  %-9s %7.2fs\n",
	    r->step_id, r->attempt, r->runner_status != NULL ?
	    r->runner_status : "-", r->seconds);
	if (accepted != NULL)
		fprintf(stderr, "tunectl pypto run:   %s\n",
		    tc_json_get_string(accepted, "decision"));
	if (error != NULL)
		fprintf(stderr, "tunectl pypto run:   %s\n", error);
}

static int
run(const struct tc_command *cmd, bool loop, int argc, char **argv)
{
	tc_pypto_run_opts o;
	const char *runner_path = NULL, *lint = NULL;
	struct tc_strlist lint_args = { NULL, 0 };
	double timeout = TC_RUN_NEXT_DEFAULT_TIMEOUT_S;
	double grace = TC_RUN_NEXT_DEFAULT_GRACE_S;
	long max_attempts = 3, max_steps = 200;
	bool quiet = false;
	tc_attempt_report report;
	tc_error err = TC_ERROR_INIT;
	tc_json *out;
	int rc;
	const struct tc_option opts[] = {
		{ "--op-dir", TC_OPT_STRING, &o.state.op_dir, true, NULL },
		{ "--project", TC_OPT_STRING, &o.state.project, false, NULL },
		{ "--runner-command-json", TC_OPT_STRING, &runner_path, true, NULL },
		{ "--timeout-seconds", TC_OPT_DOUBLE, &timeout, false, NULL },
		{ "--grace-seconds", TC_OPT_DOUBLE, &grace, false, NULL },
		{ "--interpreter", TC_OPT_STRING, &o.state.interpreter, false,
		  NULL },
		{ "--lint-gate", TC_OPT_STRING, &lint, false, NULL },
		{ "--lint-gate-arg", TC_OPT_LIST, &lint_args, false, NULL },
		/* run's own options; for run-next the list ends here */
		{ loop ? "--max-attempts" : NULL, TC_OPT_INT, &max_attempts,
		  false, NULL },
		{ "--max-steps", TC_OPT_INT, &max_steps, false, NULL },
		{ "--quiet", TC_OPT_FLAG, &quiet, false, NULL },
		{ NULL, 0, NULL, false, NULL }
	};

	memset(&o, 0, sizeof(o));
	rc = tc_opts_parse(cmd, argc, argv, opts, NULL);
	if (rc != 0) {
		tc_strlist_free(&lint_args);
		return rc < 0 ? TC_EXIT_OK : rc;
	}
	if (max_attempts < 1 || max_steps < 1) {
		tc_strlist_free(&lint_args);
		return tc_usage_error(cmd, "--max-attempts and --max-steps "
		    "must be at least 1");
	}
	if (tc_runner_load(runner_path, &o.runner, &err) != 0) {
		tc_strlist_free(&lint_args);
		rc = tc_pypto_cli_fail(&err);
		tc_error_clear(&err);
		return rc;
	}
	o.state.lint_argv = tc_pypto_cli_lint_argv(lint, &lint_args);
	o.host.timeout_s = timeout;
	o.host.grace_s = grace;
	o.host.seal_program = tc_self_exe();
	o.max_attempts = max_attempts;
	o.max_steps = max_steps;
	if (loop) {
		out = tc_pypto_run_pipeline(&o, progress, &quiet, &err);
		if (out != NULL && !quiet)
			fprintf(stderr, "tunectl pypto run: %s: %s\n",
			    tc_json_get_string(out, "status"),
			    tc_json_get_string(out, "reason"));
		rc = out == NULL ? tc_pypto_cli_fail(&err) :
		    tc_pypto_cli_print(tc_json_clone(out));
		if (out != NULL && strcmp(tc_json_get_string(out, "status"),
		    "halted") == 0)
			rc = TC_EXIT_FAIL;
		tc_json_free(out);
	} else {
		out = tc_pypto_run_next(&o, &report, &err);
		rc = out != NULL ? tc_pypto_cli_print(out) :
		    tc_pypto_cli_fail(&err);
		tc_attempt_report_free(&report);
	}
	tc_error_clear(&err);
	tc_runner_free(&o.runner);
	tc_pypto_cli_free_argv((char **)o.state.lint_argv);
	tc_strlist_free(&lint_args);
	return rc;
}

static int
cmd_pypto_run_next(const struct tc_command *self, int argc, char **argv)
{
	return run(self, false, argc, argv);
}

static int
cmd_pypto_run(const struct tc_command *self, int argc, char **argv)
{
	return run(self, true, argc, argv);
}

const struct tc_command cmd_pypto_run_next_entry = {
	.name = "pypto run-next",
	.summary = "one attempt of the next step through an agent host",
	.usage = "usage: tunectl pypto run-next --op-dir DIR [--project DIR]\n"
	    "           --runner-command-json FILE [--timeout-seconds T] [--grace-seconds G]\n"
	    "           [--interpreter PROG] [--lint-gate PROG [--lint-gate-arg ARG]...]\n",
	.run = cmd_pypto_run_next,
};

const struct tc_command cmd_pypto_run_entry = {
	.name = "pypto run",
	.summary = "run-next until the pipeline completes or halts",
	.usage = "usage: tunectl pypto run --op-dir DIR [--project DIR] --runner-command-json FILE\n"
	    "           [--timeout-seconds T] [--grace-seconds G] [--max-attempts N]\n"
	    "           [--max-steps N] [--interpreter PROG] [--lint-gate PROG\n"
	    "           [--lint-gate-arg ARG]...] [--quiet]\n"
	    "Stops when the pipeline completes (exit 0), waits for the Stage 5 entry\n"
	    "confirmation or was declined (exit 0), or halts (exit 1).\n",
	.run = cmd_pypto_run,
};
