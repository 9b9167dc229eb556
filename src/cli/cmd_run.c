/*
 * cmd_run.c - "tunectl run": run-next in a loop until the session is
 * completed or one step has failed --max-attempts times in a row, with a
 * progress line per attempt on stderr.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "tunectl/host.h"
#include "tunectl/session.h"

/* The step run-next would take now and whether the session is done. */
static int
peek(const char *session, char **step_id, bool *completed, tc_error *err)
{
	tc_session *s;
	tc_json *next;

	*step_id = NULL;
	if (tc_session_load(session, 0, &s, err) != 0)
		return -1;
	*completed = tc_session_is_completed(s);
	next = tc_session_next_step(s, NULL);
	if (next != NULL)
		*step_id = tc_xstrdup(tc_step_id(next));
	tc_session_free(s);
	return 0;
}

int
cmd_run(int argc, char **argv)
{
	const struct tc_command *cmd = tc_command_find("run");
	const char *session = NULL, *runner_path = NULL;
	double timeout_s = TC_RUN_NEXT_DEFAULT_TIMEOUT_S;
	double grace_s = TC_RUN_NEXT_DEFAULT_GRACE_S;
	long max_attempts = 3;
	bool quiet = false;
	const struct tc_option opts[] = {
		{ "--session", TC_OPT_STRING, &session, true, NULL },
		{ "--runner-command-json", TC_OPT_STRING, &runner_path, true, NULL },
		{ "--timeout-seconds", TC_OPT_DOUBLE, &timeout_s, false, NULL },
		{ "--grace-seconds", TC_OPT_DOUBLE, &grace_s, false, NULL },
		{ "--max-attempts", TC_OPT_INT, &max_attempts, false, NULL },
		{ "--quiet", TC_OPT_FLAG, &quiet, false, NULL },
		{ NULL, 0, NULL, false, NULL }
	};
	tc_run_next_opts ro;
	tc_error err = TC_ERROR_INIT;
	tc_runner runner;
	tc_json *last = NULL;
	char *failing = NULL;
	long failures = 0;
	int rc;

	if ((rc = tc_opts_parse(cmd, argc, argv, opts, NULL)) != 0)
		return rc < 0 ? TC_EXIT_OK : rc;
	if (max_attempts < 1)
		return tc_usage_error(cmd, "argument --max-attempts: must be at "
		    "least 1");
	if (tc_runner_load(runner_path, &runner, &err) != 0) {
		rc = tc_print_refusal(tc_error_msg(&err));
		tc_error_clear(&err);
		return rc;
	}
	ro.timeout_s = timeout_s;
	ro.grace_s = grace_s;
	ro.seal_program = tc_self_exe();
	for (;;) {
		tc_attempt_report report;
		tc_json *sealed;
		char *step_id;
		bool completed;

		if (peek(session, &step_id, &completed, &err) != 0)
			break;
		if (completed || step_id == NULL) {
			free(step_id);
			if (!quiet)
				fprintf(stderr, "tunectl run: session completed\n");
			break;
		}
		free(step_id);
		sealed = tc_run_next(session, &runner, &ro, &report, &err);
		if (!quiet && report.step_id != NULL)
			fprintf(stderr, "tunectl run: %-28s %-28s attempt %03d  "
			    "%-9s %-13s %7.2fs\n", report.step_id, report.phase,
			    report.attempt, report.runner_status ?
			    report.runner_status : "-",
			    sealed != NULL && report.outcome_status != NULL ?
			    report.outcome_status : "(pending)", report.seconds);
		if (sealed != NULL) {
			tc_json_free(last);
			last = sealed;
			free(failing);
			failing = NULL;
			failures = 0;
			tc_attempt_report_free(&report);
			continue;
		}
		if (!quiet)
			fprintf(stderr, "tunectl run: %s\n", tc_error_msg(&err));
		/* No attempt was made: the session refuses; retrying is futile. */
		if (report.attempt == 0) {
			tc_attempt_report_free(&report);
			break;
		}
		if (failing == NULL || strcmp(failing, report.step_id) != 0) {
			free(failing);
			failing = tc_xstrdup(report.step_id);
			failures = 0;
		}
		tc_attempt_report_free(&report);
		if (++failures >= max_attempts) {
			tc_error_set(&err, "step %s failed %ld attempts in a row; "
			    "the step stays pending and every attempt is kept "
			    "under dispatches/", failing, failures);
			break;
		}
		tc_error_clear(&err);
	}
	tc_runner_free(&runner);
	free(failing);
	if (err.msg != NULL) {
		rc = tc_print_refusal(tc_error_msg(&err));
		tc_error_clear(&err);
		tc_json_free(last);
		return rc;
	}
	if (last == NULL) {
		tc_session *s;

		if (tc_session_load(session, 0, &s, &err) != 0) {
			rc = tc_print_refusal(tc_error_msg(&err));
			tc_error_clear(&err);
			return rc;
		}
		rc = tc_print_json(s->doc);
		tc_session_free(s);
		return rc;
	}
	rc = tc_print_json(last);
	tc_json_free(last);
	return rc;
}
