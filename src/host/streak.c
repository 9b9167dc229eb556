/*
 * streak.c - consecutive failed attempts at one step, counted by the
 * loops that call a run-next until nothing is left (run, pypto run).
 */
#include <stdlib.h>
#include <string.h>

#include "tunectl/attempt.h"
#include "tunectl/buf.h"

bool
tc_attempt_streak_count(tc_attempt_streak *s, tc_attempt_report *report,
    bool succeeded, long max_attempts, const char *kept_under, tc_error *err)
{
	bool go_on = true;

	if (succeeded) {
		tc_attempt_streak_free(s);
	} else if (report->attempt == 0) {
		/* No attempt was made: the controller refuses; retrying is futile. */
		go_on = false;
	} else {
		if (s->step_id == NULL || strcmp(s->step_id, report->step_id) != 0) {
			tc_attempt_streak_free(s);
			s->step_id = tc_xstrdup(report->step_id);
		}
		if (++s->failures >= max_attempts) {
			tc_error_set(err, "step %s failed %ld attempts in a row; "
			    "the step stays pending and every attempt is kept "
			    "under %s", s->step_id, s->failures, kept_under);
			go_on = false;
		} else {
			tc_error_clear(err);
		}
	}
	tc_attempt_report_free(report);
	return go_on;
}

void
tc_attempt_streak_free(tc_attempt_streak *s)
{
	free(s->step_id);
	s->step_id = NULL;
	s->failures = 0;
}
