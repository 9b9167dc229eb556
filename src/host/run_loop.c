/*
 * run_loop.c - run-next in a loop until the session is completed, with a
 * bounded number of consecutive failed attempts per step.
 */
#include <stdlib.h>
#include <string.h>

#include "tunectl/attempt.h"
#include "tunectl/buf.h"
#include "tunectl/host.h"
#include "tunectl/session.h"

/* Is there a step left to run?  Loads (and so fully validates) the session. */
static int
pending_step(const char *session_path, bool *pending, tc_json **doc,
    tc_error *err)
{
	tc_session *s;

	if (tc_session_load(session_path, 0, &s, err) != 0)
		return -1;
	*pending = !tc_session_is_completed(s) &&
	    tc_session_next_step(s, NULL) != NULL;
	*doc = tc_json_clone(s->doc);
	tc_session_free(s);
	return 0;
}

tc_json *
tc_run_session(const char *session_path, const tc_runner *runner,
    const tc_run_next_opts *opts, long max_attempts, tc_run_progress progress,
    void *ctx, tc_error *err)
{
	tc_json *last = NULL;
	tc_attempt_streak streak = { NULL, 0 };

	for (;;) {
		tc_attempt_report report;
		tc_json *sealed;
		bool pending, ok;

		tc_json_free(last);
		last = NULL;
		if (pending_step(session_path, &pending, &last, err) != 0)
			break;
		if (!pending) {
			tc_attempt_streak_free(&streak);
			return last;
		}
		sealed = tc_run_next(session_path, runner, opts, &report, err);
		if (progress != NULL)
			progress(&report, sealed != NULL,
			    sealed == NULL ? tc_error_msg(err) : NULL, ctx);
		ok = sealed != NULL;
		tc_json_free(sealed);
		if (!tc_attempt_streak_count(&streak, &report, ok, max_attempts,
		    "dispatches/", err))
			break;
	}
	tc_attempt_streak_free(&streak);
	tc_json_free(last);
	return NULL;
}
