/*
 * proc.h - running child processes: own process group, stdout/stderr
 * streamed to files, a timeout that ends the whole group (SIGTERM, grace
 * period, SIGKILL).
 */
#ifndef TUNECTL_PROC_H
#define TUNECTL_PROC_H

#include <stdbool.h>
#include <sys/types.h>

#include "tunectl/error.h"

typedef struct tc_proc_spec {
	char *const *argv;		/* argv[0] looked up in PATH */
	const char *cwd;		/* NULL: inherit */
	char *const *envp;		/* NULL: inherit environ */
	const char *stdout_path;	/* NULL: inherit; else created (O_EXCL if exclusive_logs) */
	const char *stderr_path;
	bool exclusive_logs;		/* refuse existing log files */
	bool stdin_null;		/* stdin from /dev/null */
	double timeout_s;		/* <= 0: no timeout */
	double grace_s;			/* SIGTERM→SIGKILL grace; default 5 when 0 */
	bool die_with_parent;		/* the direct child gets SIGKILL if tunectl dies */
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

#endif
