/*
 * host_internal.h - what the files of src/host/ share: the attempt
 * directory of one dispatch or support run (attempt.c), held open for the
 * whole attempt so that an agent host which swaps it (or its area) for a
 * symlink cannot redirect what tunectl reads and writes; starting the host
 * in it, ending what earlier attempts left running and the receipt
 * helpers (attempt_run.c); the receipt checks of run-next's recovery
 * (receipt.c).
 */
#ifndef TUNECTL_HOST_INTERNAL_H
#define TUNECTL_HOST_INTERNAL_H

#include <stdbool.h>

#include "tunectl/error.h"
#include "tunectl/host.h"
#include "tunectl/json.h"
#include "tunectl/lock.h"
#include "tunectl/proc.h"
#include "tunectl/sha256.h"

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

/* ---- attempt_run.c -------------------------------------------------------- */

/* End what is left running of name's attempts that have no receipt (a
 * controller that died while its host ran). */
void tc_attempt_end_orphans(const char *artifact_root,
    const tc_attempt_layout *layout, const char *name);

/*
 * Run the host: runner argv + "--task T --result R", TUNECTL_ATTEMPT set,
 * logs streamed into the attempt (at its descriptor), the host's process
 * group ended past the timeout and every process it leaves behind ended
 * when it exits.  0 when it ran (see pr), -1 when it could not start.
 */
int tc_attempt_run_host(const tc_attempt *a, const tc_runner *runner,
    double timeout_s, double grace_s, tc_proc_result *pr, tc_error *err);

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

/* ---- receipt.c ------------------------------------------------------------ */

/* The note of a receipt that recovery wrote itself. */
#define TC_RECOVERY_NOTE "the controller stopped after sealing this step " \
	"and before writing its receipt; the receipt was completed by a " \
	"later run-next"

/*
 * Could tunectl itself have written this passed receipt for step (a
 * sealed step of session_id) in attempt a?  Every field it can re-derive
 * must match: schema, session, step, phase, agent, skill, the attempt
 * number, the four attempt paths, the task's and the result's digests as
 * they are on disk, "passed", timestamps in tunectl's form with
 * started_at <= finished_at, and nothing tunectl never writes.  A receipt
 * planted by a host fails unless it is exactly what tunectl would have
 * written, which binds nothing new.
 */
bool tc_receipt_rederivable(const tc_json *receipt, const tc_json *step,
    const char *session_id, const tc_attempt *a);

#endif
