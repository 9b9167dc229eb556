/*
 * attempt.h - one attempt of a fresh worker through an agent host, shared
 * by run-next, support runs and pypto run-next.
 *
 * An attempt lives in <root>/<area>/<name>-attempt-NNN/: the task the
 * worker got, the host's streamed logs, the result it wrote and a receipt
 * only tunectl writes.  The directory is claimed with mkdir, so two
 * controllers never share a number, and held open for the whole attempt,
 * so a host that swaps it (or its area) for a symlink cannot redirect
 * what tunectl reads and writes.  Every process of an attempt carries
 * TUNECTL_ATTEMPT=<attempt dir> in its environment, which is how a later
 * attempt finds and ends leftovers of an interrupted one.
 */
#ifndef TUNECTL_ATTEMPT_H
#define TUNECTL_ATTEMPT_H

#include <stdbool.h>

#include "tunectl/error.h"
#include "tunectl/host.h"
#include "tunectl/json.h"
#include "tunectl/lock.h"
#include "tunectl/proc.h"
#include "tunectl/sha256.h"

#define TC_ATTEMPT_ENV		"TUNECTL_ATTEMPT"
#define TC_ATTEMPT_TASK		"phase-task.json"
#define TC_ATTEMPT_RESULT	"phase-result.json"
#define TC_ATTEMPT_STDOUT	"runner.stdout.log"
#define TC_ATTEMPT_STDERR	"runner.stderr.log"
#define TC_ATTEMPT_RECEIPT	"dispatch-receipt.json"

/* Where attempts of one kind live and what their files are called. */
typedef struct tc_attempt_layout {
	const char *area;	/* "dispatches", under the artifact root */
	const char *task;	/* "phase-task.json" */
	const char *result;	/* "phase-result.json" */
	const char *receipt;	/* "dispatch-receipt.json" */
} tc_attempt_layout;

/* run-next's: the TC_ATTEMPT_* names under dispatches/. */
extern const tc_attempt_layout tc_dispatch_layout;

/*
 * <artifact_root>/<area>/<name>-attempt-NNN/.  Every file of the attempt
 * is read and written relative to fd (opened O_NOFOLLOW), never by path;
 * the absolute paths are for the host's argv, its environment and
 * messages.
 */
typedef struct tc_attempt {
	const tc_attempt_layout *layout;
	int number;
	char *name;		/* "<step_id>-attempt-NNN" */
	char *rel;		/* "<area>/<name>" */
	char *parent;		/* absolute "<root>/<area>" */
	char *dir;		/* absolute */
	char *task, *result, *out_log, *err_log, *receipt;	/* absolute */
	int parent_fd;		/* dispatches/, O_NOFOLLOW; -1 when closed */
	int fd;			/* the attempt directory, O_NOFOLLOW */
} tc_attempt;

#define TC_ATTEMPT_INIT { NULL, 0, NULL, NULL, NULL, NULL, NULL, NULL, NULL, \
	NULL, NULL, -1, -1 }

/*
 * Claim the first free attempt number of name: mkdir is the claim, so
 * even a racing controller cannot take the same one.  The area is
 * created when missing and must be a real directory, not a symlink:
 * "dispatch attempt directory escapes the artifact root: PATH".
 */
int tc_attempt_create(const char *artifact_root,
    const tc_attempt_layout *layout, const char *name, tc_attempt *a,
    tc_error *err);

/*
 * The newest attempt of step_id (attempt numbers are claimed in order and
 * never removed, so it is the last of the run 001, 002, ...).  Returns 1
 * and opens it; 0 when there is none, or when the newest is not a real
 * directory (a planted symlink is never adopted); -1 on an I/O error.
 */
int tc_attempt_open_newest(const char *artifact_root,
    const tc_attempt_layout *layout, const char *step_id, tc_attempt *a,
    tc_error *err);

/* Is the attempt still where it was made: dispatches/ the same directory
 * and <name> in it the directory held open?  Otherwise (the host moved
 * either and maybe left a symlink) "dispatch attempt directory was
 * replaced while the agent host ran: DIR". */
int tc_attempt_in_place(const tc_attempt *a, tc_error *err);

/* Is there anything named name in the attempt (not following links)? */
bool tc_attempt_has(const tc_attempt *a, const char *name);
/* Is name a regular file (not a link to one)? */
bool tc_attempt_is_regular(const tc_attempt *a, const char *name);
/* Create name empty when it does not exist (never through a link). */
void tc_attempt_touch(const tc_attempt *a, const char *name);

/* Read and parse name (a regular file, not a link, never blocking). */
tc_json *tc_attempt_read_json(const tc_attempt *a, const char *name,
    tc_error *err);
int tc_attempt_sha256(const tc_attempt *a, const char *name,
    char hex[TC_SHA256_HEX_LEN + 1], tc_error *err);
/* tc_write_json_at into the attempt; TC_WRITE_EXCLUSIVE or 0. */
int tc_attempt_write_json(const tc_attempt *a, const char *name,
    const tc_json *v, unsigned flags, tc_error *err);

/* "<area>/<name>/<file>", malloc'd. */
char *tc_attempt_rel(const tc_attempt *a, const char *file);

void tc_attempt_free(tc_attempt *a);

/* Fail an attempt whose host moved its directory or wrote the receipt,
 * which tunectl alone writes. */
int tc_attempt_left_alone(const tc_attempt *a, tc_error *err);

/* End what is left running of name's attempts that have no receipt (a
 * controller that died while its host ran). */
void tc_attempt_end_orphans(const char *artifact_root,
    const tc_attempt_layout *layout, const char *name);

/*
 * Run the host: runner argv + "--task T --result R", TUNECTL_ATTEMPT set
 * (with extra_env: "NAME=value" strings, NULL-terminated, may be NULL),
 * logs streamed into the attempt (at its descriptor), the host's process
 * group ended past the timeout and every process it leaves behind ended
 * when it exits.  0 when it ran (see pr), -1 when it could not start.
 */
int tc_attempt_run_host(const tc_attempt *a, const tc_runner *runner,
    double timeout_s, double grace_s, char *const *extra_env,
    tc_proc_result *pr, tc_error *err);

/* Lock "<session>.<name>.lock" without waiting; a held lock is "another
 * <what> is already running for session <path>". */
int tc_attempt_lock(const char *abs_session, const char *name,
    const char *what, tc_lock *lock, tc_error *err);

/* receipt[key] = "<attempt rel>/<file>"; receipt[key] = now (ISO 8601). */
void tc_attempt_set_rel(tc_json *receipt, const char *key,
    const tc_attempt *a, const char *file);
void tc_receipt_set_now(tc_json *receipt, const char *key);

/* Finish a receipt that did not pass (runner_status, error, finished_at,
 * the result's digest when it failed with one) and write it into the
 * attempt, replacing any receipt the host planted there. */
void tc_attempt_receipt_fail(tc_json *receipt, const tc_attempt *a,
    const char *status, const char *message);

/* Python's str() of a float ("3600.0"), for the timeout message. */
char *tc_seconds_str(double s);

/* true when this process runs inside an attempt (it is a worker). */
bool tc_attempt_in_worker(void);

/*
 * A receipt started for this attempt: schema, session_id (the operator
 * for a PyPTO-Pro step), the step's step_id, phase, agent_id and skill,
 * attempt, started_at, the attempt-relative paths of the task, result and
 * logs, the task's and runner argv's digests.
 */
tc_json *tc_attempt_receipt(const tc_attempt *a, const char *schema,
    const char *session_id, const tc_json *step, const char *task_sha,
    const char *argv_sha);

/*
 * Run a phase worker's host (tc_attempt_run_host, extra_env added) and
 * judge what it left: on exit 0 with a readable regular-file JSON result
 * in an attempt still in place and no receipt planted, returns 0 with
 * *result set (caller frees) and "return_code" in the receipt.
 * Otherwise -1 with err set to the reference's message ("Agent host
 * exited with status N", "Agent host timed out after S seconds", "Agent
 * host did not produce a readable phase result: ...") or the attempt's
 * own ("dispatch attempt directory was replaced ...", "Agent host wrote
 * ..."), *runner_status "failed" or "timed_out", and the failed receipt
 * written (unless the directory was moved: then nothing is written).
 */
int tc_attempt_run_worker(const tc_attempt *a, const tc_runner *runner,
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
