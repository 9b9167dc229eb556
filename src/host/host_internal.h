/*
 * host_internal.h - the attempt mechanics run-next and support runs share
 * (implemented in run_next.c): an attempt directory claimed by mkdir
 * under an area of the artifact root, the host started in it with
 * "--task T --result R", and a receipt written once.
 */
#ifndef TUNECTL_HOST_INTERNAL_H
#define TUNECTL_HOST_INTERNAL_H

#include "tunectl/error.h"
#include "tunectl/host.h"
#include "tunectl/json.h"
#include "tunectl/lock.h"
#include "tunectl/proc.h"

/* Where attempts of one kind live and what their files are called. */
struct tc_attempt_layout {
	const char *area;	/* "dispatches" */
	const char *task;	/* "phase-task.json" */
	const char *result;	/* "phase-result.json" */
	const char *receipt;	/* "dispatch-receipt.json" */
};

extern const struct tc_attempt_layout tc_dispatch_layout;

struct tc_attempt {
	int number;
	const struct tc_attempt_layout *layout;
	char *rel;		/* "<area>/<name>-attempt-NNN" */
	char *dir;		/* absolute */
	char *task, *result, *out_log, *err_log, *receipt;	/* absolute */
};

/* Claim <root>/<area>/<name>-attempt-NNN (the first free NNN). */
int tc_attempt_create(const char *artifact_root,
    const struct tc_attempt_layout *layout, const char *name,
    struct tc_attempt *a, tc_error *err);
void tc_attempt_free(struct tc_attempt *a);
/* "<area>/<name>-attempt-NNN/<file>" (malloc'd). */
char *tc_attempt_rel(const struct tc_attempt *a, const char *file);
/* receipt[key] = "<attempt rel>/<file>"; receipt[key] = now (ISO). */
void tc_attempt_set_rel(tc_json *receipt, const char *key,
    const struct tc_attempt *a, const char *file);
void tc_receipt_set_now(tc_json *receipt, const char *key);
/* Kill what is left running of earlier attempts without a receipt. */
void tc_attempt_end_orphans(const char *artifact_root,
    const struct tc_attempt_layout *layout, const char *name);
/* Run the host; 0 when it ran (see pr), -1 when it could not start. */
int tc_attempt_run_host(const struct tc_attempt *a, const tc_runner *runner,
    double timeout_s, double grace_s, tc_proc_result *pr, tc_error *err);
/* Finish a receipt that did not pass (runner_status, error, finished_at,
 * the result's digest when there is one) and write it exclusively. */
void tc_attempt_receipt_fail(tc_json *receipt, const struct tc_attempt *a,
    const char *status, const char *message);
/* Lock "<session>.<name>.lock" without waiting; a held lock is
 * "another <what> is already running for session <path>". */
int tc_attempt_lock(const char *abs_session, const char *name,
    const char *what, tc_lock *lock, tc_error *err);
/* Python's str() of a float ("3600.0"). */
char *tc_seconds_str(double s);

#endif
