/*
 * lease_internal.h - what the files of src/lease/ share and nobody else
 * needs: waiting on a flock under a deadline, the arrival-order ticket
 * queue in front of each device lock, and the process runner of the
 * lease runner (_run_argv).
 */
#ifndef TUNECTL_LEASE_INTERNAL_H
#define TUNECTL_LEASE_INTERNAL_H

#include <dirent.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>

#include "tunectl/error.h"
#include "tunectl/lease.h"

/* ---- wait.c ----------------------------------------------------------------- */

/*
 * flock(fd, op) (LOCK_EX or LOCK_SH), blocking until the lock is granted
 * or the CLOCK_MONOTONIC deadline passes.  One non-blocking try is always
 * made first, so a free lock is taken even after the deadline, as the
 * reference's polling loop does.  Returns 0 (locked), 1 (timed out) or
 * -1 with *errnum set.
 */
int tc_lease__flock_until(int fd, int op, uint64_t deadline_ns, int *errnum);

/* Deadline = now + seconds (saturating). */
uint64_t tc_lease__deadline(double seconds);

/* ---- queue.c ------------------------------------------------------------------ */

typedef struct tc_lease_ticket {
	int dirfd;		/* "<root>/npu-device-<id>.queue", -1 when unused */
	DIR *dir;		/* for scans (its own fd) */
	int fd;			/* our ticket, flock'd LOCK_EX */
	unsigned long long seq;
	char name[24];
} tc_lease_ticket;

#define TC_LEASE_TICKET_INIT { -1, NULL, -1, 0, "" }

/*
 * Take a ticket for device_id and wait until every earlier ticket is
 * gone (its waiter took the device, gave up or died).  Returns 0 (we are
 * at the head; the ticket stays until tc_lease__queue_leave), 1 (deadline
 * passed; the ticket is already withdrawn) or -1 (err set).
 */
int tc_lease__queue_wait(const char *lease_root, long device_id,
    const char *command_id, uint64_t deadline_ns, tc_lease_ticket *t,
    tc_error *err);

/* Withdraw the ticket (unlink, then close, which wakes the successor). */
void tc_lease__queue_leave(tc_lease_ticket *t);

/* "<root>/npu-device-<id>.queue"; malloc'd. */
char *tc_lease__queue_path(const char *lease_root, long device_id);

/* true when no ticket is queued for the device (unreadable: false). */
bool tc_lease__queue_empty(const char *lease_root, long device_id);

/* Number of live tickets in a queue directory (0 when it is missing). */
size_t tc_lease__queue_waiters(const char *queue_dir);

/* ---- holder.c ----------------------------------------------------------------- */

/*
 * The markers say this process inherits a lease of ids under lease_root:
 * check that the kernel has each device's lock file flock'd by this
 * process or one of its ancestors (/proc/locks).  Returns 0, or -1 with
 * "parent device lease is not held by this process or its ancestors:
 * device N" (or why it could not be checked).
 */
int tc_lease__check_inherited(const char *lease_root, const long *ids,
    size_t n, tc_error *err);

/* ---- spawn.c ------------------------------------------------------------------ */

typedef struct tc_lease_spawn {
	char *const *argv;
	char *const *envp;
	const char *cwd;
	const char *stdout_path;	/* created O_EXCL */
	const char *stderr_path;
	double timeout_s;
	double grace_s;			/* SIGTERM→SIGKILL */
	/* Descriptors the command inherits: the flock'd lock files of its
	 * lease, so that the lease lasts as long as the command even when
	 * the runner is killed with SIGKILL. */
	const int *inherit_fds;
	size_t ninherit;
} tc_lease_spawn;

typedef struct tc_lease_ran {
	bool started;
	int start_errno;		/* when !started */
	pid_t pid;
	char started_at[40];
	char finished_at[40];
	int return_code;		/* exit status, or -signal */
	bool timed_out;
	int interrupted_by;		/* signal that stopped the runner, or 0 */
} tc_lease_ran;

/*
 * _run_argv: create both logs exclusively, spawn argv without a shell in
 * a new session with stdin from /dev/null and the inherit_fds open (at
 * the same numbers), wait up to timeout_s; on
 * timeout (or SIGTERM/SIGINT/SIGHUP to the runner) SIGTERM the group,
 * wait grace_s, SIGKILL the group.  When the leader has exited, whatever
 * it left in its group, and every descendant re-parented to the runner,
 * is killed and reaped.  Returns 0 when the logs were created (ran->started
 * says whether the command started), -1 with err set otherwise.
 */
int tc_lease__run_argv(const tc_lease_spawn *spec, tc_lease_ran *ran,
    tc_error *err);

/* pidfd_open(2) where the system has it; -1 otherwise. */
int tc_lease__pidfd_open(pid_t pid);

/*
 * Sleep until a signal arrives on sigfd (a non-blocking signalfd), the
 * process behind pidfd exits (-1: no pidfd) or timeout_ms pass.  Returns
 * the number of the signal read, or 0.
 */
int tc_lease__wait_signal(int sigfd, int pidfd, int timeout_ms);

/* ---- requests (runner.c, slurm_submit.c) ------------------------------------- */

/* "<dir>/<prefix><stem><suffix>" beside the manifest <dir>/<stem>.<ext>
 * (pathlib's with_suffix("")); malloc'd. */
char *tc_lease__beside(const char *manifest, const char *prefix,
    const char *suffix);

/* argv is a non-empty list of non-empty strings ("command argv must be a
 * non-empty string array"). */
int tc_lease__check_argv(char *const *argv, tc_error *err);

/* argv[0] is an existing, executable, absolute regular file. */
int tc_lease__check_executable(const char *exe, tc_error *err);

/* The request's cwd is a directory, its lease and command timeouts are
 * positive and finite (*lease_timeout_s: the one that applies), and it
 * names a manifest path. */
int tc_lease__check_run_limits(const tc_lease_request *req,
    double *lease_timeout_s, tc_error *err);

/*
 * The manifest path resolved, and the logs beside it: ".stdout.log",
 * ".stderr.log" and, unless extra_suffix is NULL, *extra_log with that
 * suffix.  Refused when the manifest or a log already exists.  The paths
 * are malloc'd and set for the caller to free, even on failure.
 */
int tc_lease__claim_outputs(const char *manifest_out, char **manifest,
    char **stdout_log, char **stderr_log, const char *extra_suffix,
    char **extra_log, tc_error *err);

/* ---- timestamps ------------------------------------------------------------- */

/* Format a CLOCK_REALTIME instant like tc_lease_timestamp(). */
void tc_lease__format_time(const struct timespec *ts, char out[40]);

/* Round seconds to microseconds (what manifests record). */
double tc_lease__round_us(double seconds);

#endif
