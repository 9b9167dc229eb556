/*
 * attempt.h - one attempt of a fresh worker through an agent host, shared
 * by run-next (SuperKernel sessions) and pypto run-next (the PyPTO-Pro
 * pipeline).
 *
 * An attempt lives in <root>/dispatches/<step_id>-attempt-NNN/: the task
 * the worker got, the host's streamed logs, the result it wrote and an
 * immutable dispatch-receipt.json.  The directory is claimed with mkdir,
 * so two controllers never share a number; nothing in it is ever rewritten.
 * Every process of an attempt carries TUNECTL_ATTEMPT=<attempt dir> in its
 * environment, which is how a later attempt finds and ends leftovers of an
 * interrupted one.
 */
#ifndef TUNECTL_ATTEMPT_H
#define TUNECTL_ATTEMPT_H

#include <stdbool.h>

#include "tunectl/error.h"
#include "tunectl/host.h"
#include "tunectl/json.h"

#define TC_ATTEMPT_ENV		"TUNECTL_ATTEMPT"
#define TC_ATTEMPT_TASK		"phase-task.json"
#define TC_ATTEMPT_RESULT	"phase-result.json"
#define TC_ATTEMPT_STDOUT	"runner.stdout.log"
#define TC_ATTEMPT_STDERR	"runner.stderr.log"
#define TC_ATTEMPT_RECEIPT	"dispatch-receipt.json"

typedef struct tc_attempt {
	int number;
	char *rel;		/* "dispatches/<step_id>-attempt-NNN", under root */
	char *dir;		/* absolute */
	char *task, *result, *out_log, *err_log, *receipt;	/* absolute */
} tc_attempt;

/* Claim the first free attempt directory of step_id under root (created
 * with dispatches/ as needed); both must stay inside root. */
int tc_attempt_create(const char *root, const char *step_id, tc_attempt *a,
    tc_error *err);
/* The newest existing attempt of step_id (false when there is none). */
bool tc_attempt_newest(const char *root, const char *step_id, tc_attempt *a);
void tc_attempt_free(tc_attempt *a);
/* "<rel>/<name>" (malloc'd). */
char *tc_attempt_rel(const tc_attempt *a, const char *name);

/* End the processes left by this step's attempts that never got a
 * receipt (a controller that died while its host ran). */
void tc_attempt_end_orphans(const char *root, const char *step_id);

/* true when this process runs inside a dispatched attempt (a worker). */
bool tc_attempt_in_worker(void);

/* SHA-256 of the runner argv as a canonical JSON list. */
int tc_attempt_argv_digest(const tc_runner *runner, char hex[65],
    tc_error *err);

/* A receipt started for this attempt: schema, session_id, the step's
 * step_id/phase/agent_id/skill, attempt, started_at, the relative paths of
 * the task, result and logs, the task and argv digests. */
tc_json *tc_attempt_receipt(const tc_attempt *a, const char *schema,
    const char *session_id, const tc_json *step, const char *task_sha,
    const char *argv_sha);
/* Set key to the current time (ISO 8601). */
void tc_attempt_receipt_stamp(tc_json *receipt, const char *key);
/* Finish a receipt that did not pass (status "failed" or "timed_out")
 * and write it; the attempt directory stays as it is: the scene of the
 * failure. */
void tc_attempt_receipt_fail(tc_json *receipt, const tc_attempt *a,
    const char *status, const char *message);

/*
 * Run the host for this attempt: runner argv + "--task <task> --result
 * <result>", the environment plus TUNECTL_ATTEMPT and extra_env
 * ("NAME=value" strings, NULL-terminated, may be NULL), logs streamed to
 * the attempt's files, a timeout that ends the host's whole process group.
 * On success (exit 0 and a readable regular-file JSON result) returns 0
 * with *result set (caller frees) and "return_code" in the receipt.
 * Otherwise returns -1 with err set to the reference's message ("Agent
 * host exited with status N", "Agent host timed out after S seconds",
 * "Agent host did not produce a readable phase result: ..."),
 * *runner_status "failed" or "timed_out", and the failed receipt written.
 */
int tc_attempt_run_host(const tc_attempt *a, const tc_runner *runner,
    const tc_run_next_opts *opts, char *const *extra_env, tc_json *receipt,
    double *seconds, const char **runner_status, tc_json **result,
    tc_error *err);

/* Consecutive failed attempts at one step, for the loops that call a
 * run-next until nothing is left (run, pypto run). */
typedef struct tc_attempt_streak {
	char *step_id;		/* the step failing now (owned), or NULL */
	long failures;
} tc_attempt_streak;

/*
 * Count one run-next call and free its report.  A success resets the
 * streak and returns true.  A failure returns false (stop) when no
 * attempt was made (the refusal in err stands) or when the step has now
 * failed max_attempts times in a row (err says so and that its attempts
 * are kept under kept_under); otherwise true with err cleared.
 */
bool tc_attempt_streak_count(tc_attempt_streak *s, tc_attempt_report *report,
    bool succeeded, long max_attempts, const char *kept_under, tc_error *err);
void tc_attempt_streak_free(tc_attempt_streak *s);

#endif
