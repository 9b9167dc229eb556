/*
 * slurm_record.c - the lease command manifest of a Slurm run: the step's
 * own manifest (the local runner's, written inside the job) when there is
 * one, else one composed here with the same fields, and in both cases a
 * "slurm" object with the job's facts.  A timeout that tunectl enforced
 * with scancel is recorded as the local runner records a timeout
 * (command.timed_out, reason "command_timeout").
 */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lease_internal.h"
#include "slurm_internal.h"
#include "tunectl/buf.h"
#include "tunectl/fileio.h"
#include "tunectl/path.h"
#include "tunectl/slurm.h"

static tc_json *
number_json(double v, bool integral)
{
	if (integral && v == floor(v) && fabs(v) < 9e15)
		return tc_json_new_int((int64_t)v);
	return tc_json_new_float(v);
}

/* Move a step log to its final name; never over an existing file. */
static void
move_log(const char *stage, const char *name, const char *final)
{
	char *from = tc_path_join(stage, name);

	if (tc_path_exists(from) && link(from, final) == 0)
		unlink(from);
	free(from);
}

static const char *
cancel_name(enum tc_slurm__cancel c)
{
	switch (c) {
	case TC_SLURM_CANCEL_TIMEOUT:
		return "command_timeout";
	case TC_SLURM_CANCEL_LEASE_TIMEOUT:
		return "lease_timeout";
	case TC_SLURM_CANCEL_INTERRUPTED:
		return "runner_interrupted";
	case TC_SLURM_NOT_CANCELLED:
		break;
	}
	return NULL;
}

static double
seconds(int64_t from_ns, int64_t to_ns)
{
	double s = (double)(to_ns - from_ns) / 1e9;

	return tc_lease__round_us(s < 0 ? 0 : s);
}

/* A field of the job's final scontrol record (malloc'd); NULL when
 * there is no record or no such field. */
static char *
scontrol_field(const struct tc_slurm__watch *w, const char *name)
{
	return w->scontrol != NULL ? tc_slurm_field(w->scontrol, name) : NULL;
}

/* The record's keys that are scontrol's fields as they are (null: none). */
static const char *const job_fields[][2] = {
	{ "partition", "Partition" }, { "job_state", "JobState" },
	{ "job_reason", "Reason" }, { "job_exit_code", "ExitCode" },
};

static tc_json *
slurm_json(const struct tc_slurm__plan *p, const struct tc_slurm__watch *w)
{
	tc_json *s = tc_json_new_object(), *srun = tc_json_new_object();
	tc_json *argv = tc_json_new_array();
	char ts[40];
	int64_t started_ns = 0;
	char *const *a;
	size_t i;

	for (i = 0; i < sizeof(job_fields) / sizeof(job_fields[0]); i++) {
		char *v = scontrol_field(w, job_fields[i][1]);

		tc_json_object_set_string_or_null(s, job_fields[i][0], v);
		free(v);
	}
	tc_json_object_set(s, "job_id", tc_slurm__job_id_json(w->job_id));
	tc_json_object_set_string(s, "job_name", p->job_name);
	tc_json_object_set_string(s, "comment", p->comment);
	tc_json_object_set_string(s, "gres", p->gres);
	tc_json_object_set_int(s, "time_limit_minutes", p->time_limit_min);
	if (w->job != NULL) {
		const tc_json *v;

		tc_json_object_set(s, "node", tc_json_clone(tc_json_get(w->job,
		    "node")));
		tc_json_object_set(s, "device_ids", tc_json_clone(tc_json_get(
		    w->job, "device_ids")));
		v = tc_json_get(w->job, "visible_devices");
		tc_json_object_set(s, "visible_devices", v != NULL ?
		    tc_json_clone(v) : tc_json_new_object());
		tc_json_int64(tc_json_get(w->job, "started_unix_ns"),
		    &started_ns);
	} else {
		char *nodes = scontrol_field(w, "NodeList");

		tc_json_object_set_string_or_null(s, "node", nodes != NULL &&
		    strcmp(nodes, "(null)") != 0 ? nodes : NULL);
		free(nodes);
		tc_json_object_set(s, "device_ids", tc_json_new_array());
		tc_json_object_set(s, "visible_devices", tc_json_new_object());
	}
	tc_slurm__format_ns(w->submitted_ns, ts);
	tc_json_object_set_string(s, "submitted_at", ts);
	if (started_ns > 0) {
		tc_slurm__format_ns(started_ns, ts);
		tc_json_object_set_string(s, "started_at", ts);
		tc_json_object_set(s, "queue_wait_seconds", tc_json_new_float(
		    seconds(w->submitted_ns, started_ns)));
		tc_json_object_set(s, "run_seconds", tc_json_new_float(
		    seconds(started_ns, w->finished_ns)));
	} else {
		tc_json_object_set_null(s, "started_at");
		tc_json_object_set(s, "queue_wait_seconds", tc_json_new_float(
		    seconds(w->submitted_ns, w->finished_ns)));
		tc_json_object_set_null(s, "run_seconds");
	}
	tc_slurm__format_ns(w->finished_ns, ts);
	tc_json_object_set_string(s, "finished_at", ts);
	if (w->cancel != TC_SLURM_NOT_CANCELLED) {
		tc_json *c = tc_json_new_object();

		tc_json_object_set_string(c, "by", "tunectl");
		tc_json_object_set_string(c, "reason", cancel_name(w->cancel));
		tc_json_object_set_string(c, "at", w->cancelled_at);
		if (w->cancel_signal != 0)
			tc_json_object_set_string(c, "signal",
			    sigabbrev_np(w->cancel_signal) != NULL ?
			    sigabbrev_np(w->cancel_signal) : "signal");
		tc_json_object_set(s, "cancelled", c);
	} else {
		tc_json_object_set_null(s, "cancelled");
	}
	for (a = w->srun_argv; a != NULL && *a != NULL; a++)
		tc_json_array_push(argv, tc_json_new_string(*a));
	tc_json_object_set(srun, "argv", argv);
	if (w->srun_status == -1000)
		tc_json_object_set_null(srun, "return_code");
	else
		tc_json_object_set_int(srun, "return_code", w->srun_status);
	tc_json_object_set_string(srun, "log", p->slurm_log);
	tc_json_object_set_string_or_null(srun, "error", w->srun_error);
	tc_json_object_set(s, "srun", srun);
	tc_json_object_set_string_or_null(s, "step_error", w->step_error);
	return s;
}

/* "slurm_job_node_fail" from "NODE_FAIL". */
static char *
job_state_reason(const char *state)
{
	char *r = tc_xasprintf("slurm_job_%s", state);
	char *c;

	for (c = r; *c != '\0'; c++)
		*c = (char)tolower((unsigned char)*c);
	return r;
}

/* The manifest when the step left none: it never started, or the job
 * ended before the step could record anything. */
static tc_json *
composed(const tc_lease_request *req, const struct tc_slurm__plan *p,
    const struct tc_slurm__watch *w, tc_lease_outcome *outcome)
{
	tc_json *m = tc_json_new_object(), *exe = tc_json_new_object();
	tc_json *logs = tc_json_new_object(), *acc = tc_json_new_object();
	char *reason = NULL, *state = NULL;
	/* A step that reported an error ran, even before its job.json. */
	bool started = w->job != NULL || w->step_error != NULL;
	const tc_json *ids = w->job != NULL ? tc_json_get(w->job, "device_ids") :
	    NULL;

	if (w->scontrol != NULL)
		state = tc_slurm_field(w->scontrol, "JobState");
	if (!started) {
		*outcome = TC_LEASE_BLOCKED;
		if (w->cancel == TC_SLURM_CANCEL_LEASE_TIMEOUT)
			reason = tc_xasprintf("timed out acquiring Slurm device "
			    "lease %s%s%s%s", p->gres, w->job_id != NULL ?
			    " (job " : "", w->job_id != NULL ? w->job_id : "",
			    w->job_id != NULL ? " pending)" : "");
		else if (w->cancel == TC_SLURM_CANCEL_INTERRUPTED)
			reason = tc_xasprintf("interrupted while waiting for "
			    "the Slurm allocation (%s)",
			    sigabbrev_np(w->cancel_signal) != NULL ?
			    sigabbrev_np(w->cancel_signal) : "signal");
		else if (w->srun_error != NULL)
			reason = tc_xasprintf("Slurm refused the allocation: %s",
			    w->srun_error);
		else if (state != NULL)
			reason = tc_xasprintf("Slurm ended the job before it "
			    "started: %s", state);
		else
			reason = tc_xasprintf("Slurm refused the allocation: "
			    "srun exited with status %d", w->srun_status);
	} else {
		*outcome = TC_LEASE_FAILED;
		if (w->cancel == TC_SLURM_CANCEL_TIMEOUT)
			reason = tc_xstrdup("command_timeout");
		else if (w->cancel == TC_SLURM_CANCEL_INTERRUPTED)
			reason = tc_xstrdup("runner_interrupted");
		else if (w->step_error != NULL || state == NULL ||
		    strcmp(state, "COMPLETED") == 0)
			reason = tc_xstrdup("slurm_step_failed");
		else
			reason = job_state_reason(state);
	}
	tc_json_object_set_string(m, "schema_version", TC_LEASE_COMMAND_SCHEMA);
	tc_json_object_set_string(m, "command_id", p->command_id);
	tc_json_object_set_string(m, "status", tc_lease_outcome_name(*outcome));
	tc_json_object_set_string(m, "reason", reason);
	tc_json_object_set_string(m, "lease_root", p->lease_root);
	tc_json_object_set(m, "device_ids", ids != NULL ? tc_json_clone(ids) :
	    tc_json_new_array());
	tc_json_object_set(m, "lease_timeout_seconds", req->has_lease_timeout ?
	    tc_json_new_float(req->lease_timeout_s) :
	    number_json(req->timeout_s, req->timeout_integral));
	tc_json_object_set_string(m, "cwd", p->cwd);
	tc_json_object_set_string(m, "environment_mode", p->explicit_env ?
	    "explicit_environment" : "inherited_parent_environment");
	tc_json_object_set_null(m, "lease_mode");
	tc_json_object_set_string(exe, "path", p->exe);
	tc_json_object_set_string(exe, "file_fingerprint", p->fingerprint);
	tc_json_object_set(m, "executable", exe);
	if (started) {
		tc_json *c = tc_json_new_object(), *argv = tc_json_new_array();
		char *const *a;
		char ts[40];

		for (a = req->argv; *a != NULL; a++)
			tc_json_array_push(argv, tc_json_new_string(*a));
		tc_json_object_set(c, "argv", argv);
		if (w->job != NULL)
			tc_json_object_set(c, "started_at", tc_json_clone(
			    tc_json_get(w->job, "started_at")));
		else
			tc_json_object_set_null(c, "started_at");
		tc_slurm__format_ns(w->finished_ns, ts);
		tc_json_object_set_string(c, "finished_at", ts);
		tc_json_object_set_bool(c, "timed_out",
		    w->cancel == TC_SLURM_CANCEL_TIMEOUT);
		tc_json_object_set_null(c, "pid");
		tc_json_object_set_null(c, "return_code");
		tc_json_object_set_string(c, "error", w->step_error != NULL ?
		    w->step_error : "the Slurm job ended without the step's "
		    "record");
		tc_json_object_set(m, "command", c);
		tc_json_object_set_string(m, "lease_mode", "acquired");
	} else {
		tc_json_object_set_null(m, "command");
	}
	tc_json_object_set_string(logs, "stdout", p->stdout_log);
	tc_json_object_set_string(logs, "stderr", p->stderr_log);
	tc_json_object_set(m, "logs", logs);
	tc_json_object_set_string(acc, "requested_at", w->requested_at);
	tc_json_object_set(acc, "devices", tc_json_new_array());
	tc_json_object_set_null(acc, "acquired_at");
	tc_json_object_set_null(acc, "released_at");
	tc_json_object_set(acc, "wait_seconds", tc_json_new_float(
	    tc_lease__round_us((double)(w->ended_mono - w->submitted_mono) /
	    1e9)));
	tc_json_object_set_null(acc, "held_seconds");
	tc_json_object_set(m, "lease_accounting", acc);
	free(reason);
	free(state);
	return m;
}

/* The step's manifest, adjusted for where and how it ran. */
static tc_json *
adopted(const tc_lease_request *req, const struct tc_slurm__plan *p,
    struct tc_slurm__watch *w, tc_lease_outcome *outcome)
{
	tc_json *m = w->step, *logs = tc_json_new_object(), *cmd;
	const char *status = tc_json_get_string(m, "status");

	w->step = NULL;
	tc_json_object_remove(m, "manifest_fingerprint");
	tc_json_object_set_string(logs, "stdout", p->stdout_log);
	tc_json_object_set_string(logs, "stderr", p->stderr_log);
	tc_json_object_set(m, "logs", logs);
	/* The step ran with a backstop timeout; record the request's. */
	tc_json_object_set(m, "lease_timeout_seconds", req->has_lease_timeout ?
	    tc_json_new_float(req->lease_timeout_s) :
	    number_json(req->timeout_s, req->timeout_integral));
	cmd = tc_json_get(m, "command");
	if (w->cancel == TC_SLURM_CANCEL_TIMEOUT &&
	    tc_json_is(cmd, TC_JSON_OBJECT)) {
		tc_json_object_set_bool(cmd, "timed_out", true);
		tc_json_object_remove(cmd, "interrupted_by");
		tc_json_object_set_string(m, "status", "failed");
		tc_json_object_set_string(m, "reason", "command_timeout");
		status = "failed";
	}
	if (status != NULL && strcmp(status, "passed") == 0)
		*outcome = TC_LEASE_PASSED;
	else if (status != NULL && strcmp(status, "blocked") == 0)
		*outcome = TC_LEASE_BLOCKED;
	else
		*outcome = TC_LEASE_FAILED;
	return m;
}

tc_json *
tc_slurm__manifest(const tc_lease_request *req,
    const struct tc_slurm__plan *p, struct tc_slurm__watch *w,
    tc_lease_outcome *outcome, tc_error *err)
{
	tc_json *m;

	(void)err;
	move_log(p->stage, "step.stdout.log", p->stdout_log);
	move_log(p->stage, "step.stderr.log", p->stderr_log);
	if (w->step != NULL && tc_json_get_string(w->step, "status") != NULL)
		m = adopted(req, p, w, outcome);
	else
		m = composed(req, p, w, outcome);
	tc_json_object_set(m, "slurm", slurm_json(p, w));
	return m;
}
