/*
 * run_next.c - run-next (docs/spec/controller.md "Run-next and receipts"): one
 * attempt of the next step through an agent host, its immutable dispatch
 * receipt, and sealing of the host's result on success.
 *
 * Locking: "<session>.run.lock" is held for the whole attempt, so two
 * run-next never race for one step; the session lock proper is held only
 * while the session is read to build the task and while the result is
 * sealed and the receipt bound, so the worker itself may read the session
 * (execute-phase) while it runs.
 *
 * The host is untrusted (docs/security.md): its attempt directory is
 * held open (attempt.c) and must still be in place before anything is
 * sealed, a receipt it writes itself fails the attempt, and whatever it
 * leaves running when it exits is ended with it (tc_proc_spec.end_tree).
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "host_internal.h"
#include "tunectl/buf.h"
#include "tunectl/evidence.h"
#include "tunectl/fileio.h"
#include "tunectl/host.h"
#include "tunectl/lock.h"
#include "tunectl/path.h"
#include "tunectl/proc.h"
#include "tunectl/session.h"
#include "tunectl/sha256.h"
#include "tunectl/timeutil.h"

static void
set_string(tc_json *obj, const char *key, const char *value)
{
	tc_json_object_set_string(obj, key, value);
}

/* Bind the attempt's written receipt into its sealed step and write the
 * session. */
static int
bind_receipt(tc_session *s, const char *step_id, const tc_attempt *a,
    tc_error *err)
{
	char hex[TC_SHA256_HEX_LEN + 1];
	tc_json *step = tc_session_find_step(s, step_id, NULL);
	char *rel;

	if (step == NULL) {
		tc_error_set(err, "sealed step disappeared from the session: %s",
		    step_id);
		return -1;
	}
	if (tc_attempt_sha256(a, TC_ATTEMPT_RECEIPT, hex, err) != 0)
		return -1;
	rel = tc_attempt_rel(a, TC_ATTEMPT_RECEIPT);
	tc_json_object_set_string(step, "dispatch_receipt_path", rel);
	tc_json_object_set_string(step, "dispatch_receipt_sha256", hex);
	free(rel);
	tc_session_refresh(s);
	return tc_write_json(s->path, s->doc, 0, err);
}

/* The receipt recovery writes for a sealed attempt: what tunectl can
 * re-derive, marked "recovered". */
static tc_json *
recovered_receipt(const tc_json *step, const char *session_id,
    const tc_attempt *a)
{
	char task_sha[TC_SHA256_HEX_LEN + 1] = "";
	char hex[TC_SHA256_HEX_LEN + 1];
	tc_error ignored = TC_ERROR_INIT;
	tc_json *receipt;

	(void)tc_attempt_sha256(a, TC_ATTEMPT_TASK, task_sha, &ignored);
	receipt = tc_attempt_receipt(a, TC_RECEIPT_SCHEMA, session_id, step,
	    task_sha, "");
	tc_json_object_set(receipt, "runner_argv_sha256", tc_json_new_null());
	set_string(receipt, "runner_status", "passed");
	tc_json_object_set_bool(receipt, "recovered", true);
	set_string(receipt, "recovery_note", TC_RECOVERY_NOTE);
	if (tc_attempt_sha256(a, TC_ATTEMPT_RESULT, hex, &ignored) == 0)
		set_string(receipt, "result_sha256", hex);
	tc_receipt_set_now(receipt, "finished_at");
	tc_error_clear(&ignored);
	return receipt;
}

/*
 * A controller killed after sealing a step but before binding its receipt
 * leaves a sealed step without "dispatch_receipt_path" whose newest
 * attempt holds the very result that was sealed.  Complete that attempt:
 * bind its receipt when tunectl can re-derive every field of it (it wrote
 * it before it stopped), else write tunectl's own (marked "recovered"),
 * replacing whatever is there, and bind that.
 */
static int
recover_unbound(tc_session *s, bool *recovered, tc_error *err)
{
	size_t i, n = tc_session_step_count(s);

	for (i = 0; i < n; i++) {
		tc_json *step = tc_session_step_at(s, i);
		const char *step_id = tc_step_id(step);
		const char *sealed_sha = tc_json_get_string(step, "result_sha256");
		tc_attempt a = TC_ATTEMPT_INIT;
		tc_json *result, *receipt;
		char digest[TC_SHA256_HEX_LEN + 1];
		tc_error ignored = TC_ERROR_INIT;
		bool ours;
		int rc;

		if (!tc_step_is_sealed(step) || sealed_sha == NULL ||
		    tc_json_get(step, "dispatch_receipt_path") != NULL)
			continue;
		rc = tc_attempt_open_newest(s->artifact_root, &tc_dispatch_layout,
		    step_id, &a, err);
		if (rc <= 0) {
			tc_attempt_free(&a);
			if (rc < 0)
				return -1;
			continue;
		}
		result = tc_attempt_read_json(&a, TC_ATTEMPT_RESULT, &ignored);
		if (result == NULL || tc_json_digest(result, digest, &ignored) != 0 ||
		    strcmp(digest, sealed_sha) != 0) {
			tc_json_free(result);
			tc_error_clear(&ignored);
			tc_attempt_free(&a);
			continue;
		}
		tc_json_free(result);
		receipt = tc_attempt_read_json(&a, TC_ATTEMPT_RECEIPT, &ignored);
		ours = receipt != NULL && tc_receipt_rederivable(receipt, step,
		    s->session_id, &a);
		tc_json_free(receipt);
		tc_error_clear(&ignored);
		if (!ours) {
			receipt = recovered_receipt(step, s->session_id, &a);
			rc = tc_attempt_write_json(&a, TC_ATTEMPT_RECEIPT, receipt,
			    0, err);
			tc_json_free(receipt);
			if (rc != 0) {
				tc_attempt_free(&a);
				return -1;
			}
		}
		rc = bind_receipt(s, step_id, &a, err);
		tc_attempt_free(&a);
		if (rc != 0)
			return -1;
		*recovered = true;
	}
	return 0;
}

/* Strict: a scene planted in the step about to be sealed is moved to
 * quarantine/ first, and the receipt names what was moved. */
static int
quarantine_planted(tc_session *s, tc_json *step, const tc_json *result,
    tc_json *receipt, tc_attempt_report *report, tc_error *err)
{
	tc_json *moved = NULL;
	tc_buf names = TC_BUF_INIT;
	size_t i;

	if (step == NULL || tc_session_policy(s) != TC_POLICY_STRICT)
		return 0;
	if (tc_quarantine_scene(s, step, result, &moved, err) != 0) {
		tc_json_free(moved);
		return -1;
	}
	for (i = 0; i < moved->u.arr.len; i++) {
		const tc_json *e = moved->u.arr.items[i];

		tc_buf_printf(&names, "%s%s -> %s", i > 0 ? ", " : "",
		    tc_json_get_string(e, "path"),
		    tc_json_get_string(e, "moved_to"));
	}
	if (moved->u.arr.len > 0) {
		tc_json_object_set(receipt, "quarantined", moved);
		report->quarantined = tc_buf_detach(&names, NULL);
	} else {
		tc_json_free(moved);
	}
	tc_buf_free(&names);
	return 0;
}

/* Seal the host's result under the session lock, then write and bind the
 * receipt.  Returns the session as written, or NULL (err set);
 * *receipt_written says whether the receipt was written. */
static tc_json *
seal_attempt(const char *abs_session, const tc_json *task,
    const tc_json *result, tc_json *receipt, const tc_attempt *a,
    const char *seal_program, tc_attempt_report *report,
    bool *receipt_written, tc_error *err)
{
	tc_lock lock = { -1, NULL };
	tc_session *s = NULL;
	tc_json *out = NULL;
	const tc_json *step = tc_json_get(task, "step");
	const char *step_id = tc_json_get_string(step, "step_id");
	tc_json *next;
	char hex[TC_SHA256_HEX_LEN + 1];

	*receipt_written = false;
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
	/* Checked again under the lock, right before the seal. */
	if (tc_attempt_left_alone(a, err) != 0)
		goto done;
	if (quarantine_planted(s, next, result, receipt, report, err) != 0 ||
	    tc_seal_session(s, result, err) != 0)
		goto done;
	set_string(receipt, "runner_status", "passed");
	if (tc_attempt_sha256(a, TC_ATTEMPT_RESULT, hex, err) != 0)
		goto done;
	set_string(receipt, "result_sha256", hex);
	tc_receipt_set_now(receipt, "finished_at");
	if (tc_attempt_write_json(a, TC_ATTEMPT_RECEIPT, receipt,
	    TC_WRITE_EXCLUSIVE, err) != 0)
		goto done;
	*receipt_written = true;
	if (bind_receipt(s, step_id, a, err) != 0)
		goto done;
	report->outcome_status = tc_xstrdup(tc_json_get_string(result, "status"));
	out = tc_json_clone(s->doc);
done:
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
	tc_attempt a = TC_ATTEMPT_INIT;
	char *abs = NULL;
	char task_sha[TC_SHA256_HEX_LEN + 1], argv_sha[65];
	tc_error inner = TC_ERROR_INIT;
	bool receipt_written = false;

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
	if (tc_attempt_lock(abs, "run", "run-next", &runlock, err) != 0)
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
	tc_attempt_end_orphans(s->artifact_root, &tc_dispatch_layout,
	    report->step_id);
	if (tc_attempt_create(s->artifact_root, &tc_dispatch_layout,
	    report->step_id, &a, err) != 0)
		goto out_unlock;
	report->attempt = a.number;
	if (tc_attempt_write_json(&a, TC_ATTEMPT_TASK, task, TC_WRITE_EXCLUSIVE,
	    err) != 0)
		goto out_unlock;
	tc_lock_release(&lock);

	if (tc_attempt_sha256(&a, TC_ATTEMPT_TASK, task_sha, err) != 0)
		goto out;
	if (tc_runner_digest(runner, argv_sha, err) != 0)
		goto out;
	receipt = tc_attempt_receipt(&a, TC_RECEIPT_SCHEMA, s->session_id,
	    tc_json_get(task, "step"), task_sha, argv_sha);

	if (tc_attempt_run_worker(&a, runner, opts, NULL, receipt,
	    &report->seconds, &report->runner_status, &result, err) != 0)
		goto out;
	sealed = seal_attempt(abs, task, result, receipt, &a, opts->seal_program,
	    report, &receipt_written, err);
	if (sealed == NULL) {
		report->runner_status = "failed";
		if (!receipt_written && tc_attempt_in_place(&a, &inner) == 0)
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
	tc_error_clear(&inner);
	tc_attempt_free(&a);
	tc_json_free(result);
	tc_json_free(receipt);
	tc_json_free(task);
	tc_session_free(s);
	free(abs);
	return sealed;
}
