/*
 * proc.h - running child processes: own process group, stdout/stderr
 * streamed to files, a timeout that ends the whole group (SIGTERM, grace
 * period, SIGKILL), and ending a command's whole process tree.
 */
#ifndef TUNECTL_PROC_H
#define TUNECTL_PROC_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "tunectl/error.h"

typedef struct tc_proc_spec {
	char *const *argv;		/* argv[0] looked up in PATH */
	const char *cwd;		/* NULL: inherit */
	char *const *envp;		/* NULL: inherit environ */
	const char *stdout_path;	/* NULL: inherit; else created (O_EXCL if exclusive_logs) */
	const char *stderr_path;
	bool exclusive_logs;		/* refuse existing log files */
	bool logs_at_dirfd;		/* the log paths are names in log_dirfd, */
	int log_dirfd;			/* opened O_NOFOLLOW */
	bool stdin_null;		/* stdin from /dev/null */
	double timeout_s;		/* <= 0: no timeout */
	double grace_s;			/* SIGTERM→SIGKILL grace; default 5 when 0 */
	bool die_with_parent;		/* the direct child gets SIGKILL if tunectl dies */
	/* When the command's leader has exited (or timed out), SIGKILL what
	 * is left of its process group and every descendant re-parented to
	 * tunectl (tc_reaper_*), and reap them all before returning. */
	bool end_tree;
} tc_proc_spec;

typedef struct tc_proc_result {
	bool started;
	bool timed_out;
	int exit_code;		/* exit status, or -signal like Python's returncode */
	double wall_s;
	pid_t pid;
} tc_proc_result;

/* Run to completion.  Returns 0 when the process ran (whatever its exit
 * code), -1 when it could not be started (err set, e.g.
 * "[Errno 2] No such file or directory: 'cmd'"). */
int tc_proc_run(const tc_proc_spec *spec, tc_proc_result *res, tc_error *err);

/*
 * Ending a whole process tree, setsid'd and double-forked descendants
 * included (reaper.c).  tc_reaper_begin makes this process a child
 * subreaper (so orphans of whatever it starts are re-parented to it, not
 * to init) and remembers the children it already has; tc_reaper_end
 * SIGKILLs and reaps every other child, round after round until none is
 * left, then restores the subreaper flag and SIGCHLD disposition.
 * Begin before starting the command; end after its leader was reaped.
 */
typedef struct tc_reaper {
	bool active;
	int old_flag;
	struct sigaction old_chld;
	pid_t *before;
	size_t nbefore;
} tc_reaper;

void tc_reaper_begin(tc_reaper *r);
void tc_reaper_end(tc_reaper *r);

/* The parent of pid (from /proc/<pid>/stat), or 0 when unknown. */
long tc_proc_parent_of(long pid);

#endif
