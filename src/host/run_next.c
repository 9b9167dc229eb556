/*
 * run_next.c - run-next (reference §10.3): one attempt of the next step
 * through an agent host, its immutable dispatch receipt, and sealing of
 * the host's result on success.
 *
 * The attempt mechanics (directory, host run, receipts) are attempt.c's.
 *
 * Locking: "<session>.run.lock" is held for the whole attempt, so two
 * run-next never race for one step; the session lock proper is held only
 * while the session is read to build the task and while the result is
 * sealed and the receipt bound, so the worker itself may read the session
 * (execute-phase) while it runs.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tunectl/attempt.h"
#include "tunectl/buf.h"
#include "tunectl/fileio.h"
#include "tunectl/host.h"
#include "tunectl/lock.h"
#include "tunectl/path.h"
#include "tunectl/session.h"
#include "tunectl/sha256.h"

static bool
str_eq(const char *a, const char *b)
{
	return a != NULL && b != NULL && strcmp(a, b) == 0;
}

/* Bind a written receipt into its sealed step and write the session. */
static int
bind_receipt(tc_session *s, const char *step_id, const char *receipt_abs,
    const char *receipt_rel, tc_error *err)
{
	char hex[TC_SHA256_HEX_LEN + 1];
	tc_json *step = tc_session_find_step(s, step_id, NULL);

	if (step == NULL) {
		tc_error_set(err, "sealed step disappeared from the session: %s",
		    step_id);
		return -1;
	}
	if (tc_sha256_file(receipt_abs, hex, NULL, err) != 0)
		return -1;
	tc_json_object_set_string(step, "dispatch_receipt_path", receipt_rel);
	tc_json_object_set_string(step, "dispatch_receipt_sha256", hex);
	tc_session_refresh(s);
	return tc_write_json(s->path, s->doc, 0, err);
}

/*
 * A controller killed after sealing a step but before binding its receipt
 * leaves a sealed step without "dispatch_receipt_path" whose newest
 * attempt holds the very result that was sealed.  Complete that attempt:
 * write the missing receipt (marked "recovered") and bind it.
 */
static int
recover_unbound(tc_session *s, bool *recovered, tc_error *err)
{
	size_t i, n = tc_session_step_count(s);

	for (i = 0; i < n; i++) {
		tc_json *step = tc_session_step_at(s, i);
		const char *step_id = tc_step_id(step);
		const char *sealed_sha = tc_json_get_string(step, "result_sha256");
		tc_attempt a;
		tc_json *result, *receipt;
		char digest[65], hex[TC_SHA256_HEX_LEN + 1];
		tc_error ignored = TC_ERROR_INIT;

		if (!tc_step_is_sealed(step) || sealed_sha == NULL ||
		    tc_json_get(step, "dispatch_receipt_path") != NULL)
			continue;
		if (!tc_attempt_newest(s->artifact_root, step_id, &a))
			continue;
		result = tc_json_parse_file(a.result, &ignored);
		if (result == NULL || tc_json_digest(result, digest, &ignored) != 0 ||
		    strcmp(digest, sealed_sha) != 0) {
			tc_json_free(result);
			tc_error_clear(&ignored);
			tc_attempt_free(&a);
			continue;
		}
		tc_json_free(result);
		receipt = tc_path_exists(a.receipt) ?
		    tc_json_parse_file(a.receipt, &ignored) : NULL;
		if (receipt != NULL) {
			const char *st = tc_json_get_string(receipt, "runner_status");
			const char *rs = tc_json_get_string(receipt, "result_sha256");

			/* Only this step's own passed receipt, for the very
			 * result file that was sealed, is bound. */
			hex[0] = '\0';
			(void)tc_sha256_file(a.result, hex, NULL, &ignored);
			if (st == NULL || strcmp(st, "passed") != 0 ||
			    !str_eq(tc_json_get_string(receipt, "schema_version"),
			    TC_RECEIPT_SCHEMA) ||
			    !str_eq(tc_json_get_string(receipt, "session_id"),
			    s->session_id) ||
			    !str_eq(tc_json_get_string(receipt, "step_id"), step_id) ||
			    rs == NULL || strcmp(rs, hex) != 0) {
				tc_json_free(receipt);
				tc_attempt_free(&a);
				continue;
			}
		} else if (!tc_path_exists(a.receipt)) {
			char task_sha[TC_SHA256_HEX_LEN + 1] = "";
			tc_json *argv_unknown = tc_json_new_null();

			(void)tc_sha256_file(a.task, task_sha, NULL, &ignored);
			receipt = tc_attempt_receipt(&a, TC_RECEIPT_SCHEMA,
			    s->session_id, step, task_sha, "");
			tc_json_object_set(receipt, "runner_argv_sha256",
			    argv_unknown);
			tc_json_object_set_string(receipt, "runner_status", "passed");
			tc_json_object_set_bool(receipt, "recovered", true);
			tc_json_object_set_string(receipt, "recovery_note", "the controller stopped "
			    "after sealing this step and before writing its receipt; "
			    "the receipt was completed by a later run-next");
			if (tc_sha256_file(a.result, hex, NULL, &ignored) == 0)
				tc_json_object_set_string(receipt, "result_sha256", hex);
			tc_attempt_receipt_stamp(receipt, "finished_at");
			if (tc_write_json(a.receipt, receipt, TC_WRITE_EXCLUSIVE,
			    err) != 0) {
				tc_json_free(receipt);
				tc_attempt_free(&a);
				return -1;
			}
		} else {
			/* a receipt that cannot be read is evidence; leave it */
			tc_error_clear(&ignored);
			tc_attempt_free(&a);
			continue;
		}
		tc_json_free(receipt);
		{
			char *rel = tc_attempt_rel(&a, TC_ATTEMPT_RECEIPT);
			int rc = bind_receipt(s, step_id, a.receipt, rel, err);

			free(rel);
			tc_attempt_free(&a);
			if (rc != 0)
				return -1;
		}
		*recovered = true;
		tc_error_clear(&ignored);
	}
	return 0;
}

static int
run_lock(const char *abs_session, tc_lock *lock, tc_error *err)
{
	char *base = tc_xasprintf("%s.run", abs_session);
	tc_error inner = TC_ERROR_INIT;
	int rc = tc_lock_acquire(lock, base, 0.0, &inner);

	/* Only a held lock means another run-next; an unusable lock file
	 * (e.g. replaced by a symlink) reports its own OS error. */
	if (rc != 0 && strncmp(tc_error_msg(&inner), "[Errno ", 7) == 0)
		tc_error_set(err, "%s", tc_error_msg(&inner));
	else if (rc != 0)
		tc_error_set(err, "another run-next is already running for "
		    "session %s", abs_session);
	tc_error_clear(&inner);
	free(base);
	return rc;
}

/* Seal the host's result under the session lock, then write and bind the
 * receipt.  Returns the session as written, or NULL (err set). */
static tc_json *
seal_attempt(const char *abs_session, const tc_json *task,
    const tc_json *result, tc_json *receipt, const tc_attempt *a,
    const char *seal_program, tc_attempt_report *report, tc_error *err)
{
	tc_lock lock = { -1, NULL };
	tc_session *s = NULL;
	tc_json *out = NULL;
	const tc_json *step = tc_json_get(task, "step");
	const char *step_id = tc_json_get_string(step, "step_id");
	tc_json *next;
	char hex[TC_SHA256_HEX_LEN + 1];
	char *rel = NULL;

	if (tc_session_lock(abs_session, &lock, err) != 0)
		return NULL;
	if (tc_session_load(abs_session, 0, &s, err) != 0)
		goto done;
	next = tc_session_next_step(s, NULL);
	if (next != NULL && tc_result_validate(result, next, s, 0, err) != 0)
		goto done;
	/* The session must still be the one the task was cut from. */
	if (tc_dispatch_task_check(task, abs_session, seal_program, NULL,
	    err) != 0)
		goto done;
	if (tc_seal_session(s, result, err) != 0)
		goto done;
	tc_json_object_set_string(receipt, "runner_status", "passed");
	if (tc_sha256_file(a->result, hex, NULL, err) != 0)
		goto done;
	tc_json_object_set_string(receipt, "result_sha256", hex);
	tc_attempt_receipt_stamp(receipt, "finished_at");
	if (tc_write_json(a->receipt, receipt, TC_WRITE_EXCLUSIVE, err) != 0)
		goto done;
	rel = tc_attempt_rel(a, TC_ATTEMPT_RECEIPT);
	if (bind_receipt(s, step_id, a->receipt, rel, err) != 0)
		goto done;
	report->outcome_status = tc_xstrdup(tc_json_get_string(result, "status"));
	out = tc_json_clone(s->doc);
done:
	free(rel);
	tc_session_free(s);
	tc_lock_release(&lock);
	return out;
}

tc_json *
tc_run_next(const char *session_path, const tc_runner *runner,
    const tc_run_next_opts *opts, tc_attempt_report *report, tc_error *err)
{
	tc_lock runlock = { -1, NULL }, lock = { -1, NULL };
	tc_session *s = NULL;
	tc_json *task = NULL, *receipt = NULL, *result = NULL, *sealed = NULL;
	tc_attempt a = { 0 };
	char *abs = NULL;
	char task_sha[TC_SHA256_HEX_LEN + 1], argv_sha[65];

	memset(report, 0, sizeof(*report));
	if (runner == NULL || runner->argc == 0) {
		tc_error_set(err, "runner_argv must be a non-empty string list");
		return NULL;
	}
	if (!(opts->timeout_s > 0) || !isfinite(opts->timeout_s)) {
		tc_error_set(err, "timeout_seconds must be positive");
		return NULL;
	}
	if ((abs = tc_path_resolve(session_path, err)) == NULL)
		return NULL;
	if (run_lock(abs, &runlock, err) != 0)
		goto out;

	/* Cut the task from the session as it is now. */
	if (tc_session_lock(abs, &lock, err) != 0)
		goto out;
	if (tc_session_load(abs, 0, &s, err) != 0)
		goto out_unlock;
	if (recover_unbound(s, &report->recovered, err) != 0)
		goto out_unlock;
	if ((task = tc_dispatch_task(s, opts->seal_program, err)) == NULL)
		goto out_unlock;
	{
		const tc_json *step = tc_json_get(task, "step");

		report->step_id = tc_xstrdup(tc_json_get_string(step, "step_id"));
		report->phase = tc_xstrdup(tc_json_get_string(step, "phase"));
	}
	tc_attempt_end_orphans(s->artifact_root, report->step_id);
	if (tc_attempt_create(s->artifact_root, report->step_id, &a, err) != 0)
		goto out_unlock;
	report->attempt = a.number;
	if (tc_write_json(a.task, task, TC_WRITE_EXCLUSIVE, err) != 0)
		goto out_unlock;
	tc_lock_release(&lock);

	if (tc_sha256_file(a.task, task_sha, NULL, err) != 0 ||
	    tc_attempt_argv_digest(runner, argv_sha, err) != 0)
		goto out;
	receipt = tc_attempt_receipt(&a, TC_RECEIPT_SCHEMA, s->session_id,
	    tc_json_get(task, "step"), task_sha, argv_sha);
	if (tc_attempt_run_host(&a, runner, opts, NULL, receipt,
	    &report->seconds, &report->runner_status, &result, err) != 0)
		goto out;
	sealed = seal_attempt(abs, task, result, receipt, &a, opts->seal_program,
	    report, err);
	if (sealed == NULL) {
		report->runner_status = "failed";
		if (!tc_path_exists(a.receipt))
			tc_attempt_receipt_fail(receipt, &a, "failed",
			    tc_error_msg(err));
		goto out;
	}
	report->runner_status = "passed";
	goto out;

out_unlock:
	tc_lock_release(&lock);
out:
	tc_lock_release(&runlock);
	tc_attempt_free(&a);
	tc_json_free(result);
	tc_json_free(receipt);
	tc_json_free(task);
	tc_session_free(s);
	free(abs);
	return sealed;
}
