/*
 * test_proc.c - tc_proc_run: exit codes and signal deaths (Python
 * returncode convention), exec failures in subprocess's words, log files
 * (streaming, exclusivity, shared), cwd/env/stdin handling, descriptor
 * hygiene, and timeouts that leave no member of the process group alive.
 */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "tunectl/buf.h"
#include "tunectl/fileio.h"
#include "tunectl/proc.h"
#include "unit_fixture.h"

struct fx {
	char *dir;
	char *out;	/* <dir>/out.log */
	char *err;	/* <dir>/err.log */
};

static int
fx_setup(void **state)
{
	struct fx *f = tc_xcalloc(1, sizeof(*f));

	f->dir = unit_tmpdir("proc");
	f->out = tc_xasprintf("%s/out.log", f->dir);
	f->err = tc_xasprintf("%s/err.log", f->dir);
	*state = f;
	return 0;
}

static int
fx_teardown(void **state)
{
	struct fx *f = *state;
	int rc = unit_rmtree(f->dir);

	free(f->dir);
	free(f->out);
	free(f->err);
	free(f);
	return rc == 0 ? 0 : -1;
}

static char *
slurp(const char *path)
{
	tc_error err = TC_ERROR_INIT;
	char *s = tc_read_file(path, 0, NULL, &err);

	if (s == NULL)
		fail_msg("read %s: %s", path, tc_error_msg(&err));
	return s;
}

/* Run "sh -c script" with stdout/stderr to the fixture's logs. */
static int
run_sh(struct fx *f, const char *script, tc_proc_result *res, tc_error *err)
{
	char *argv[] = { (char *)"sh", (char *)"-c", (char *)script, NULL };
	tc_proc_spec spec = { 0 };

	spec.argv = argv;
	spec.stdout_path = f->out;
	spec.stderr_path = f->err;
	spec.stdin_null = true;
	return tc_proc_run(&spec, res, err);
}

static void
exit_status_is_reported(void **state)
{
	struct fx *f = *state;
	tc_proc_result res;
	tc_error err = TC_ERROR_INIT;

	assert_int_equal(run_sh(f, "exit 3", &res, &err), 0);
	assert_true(res.started);
	assert_false(res.timed_out);
	assert_int_equal(res.exit_code, 3);
	assert_true(res.pid > 0);
	assert_true(res.wall_s > 0);
	assert_int_equal(run_sh(f, "exit 0", &res, &err), 0);
	assert_int_equal(res.exit_code, 0);
}

static void
signal_death_is_negative_signal_number(void **state)
{
	struct fx *f = *state;
	tc_proc_result res;
	tc_error err = TC_ERROR_INIT;

	assert_int_equal(run_sh(f, "kill -TERM $$", &res, &err), 0);
	assert_int_equal(res.exit_code, -SIGTERM);
	assert_int_equal(run_sh(f, "kill -KILL $$", &res, &err), 0);
	assert_int_equal(res.exit_code, -SIGKILL);
	assert_false(res.timed_out);
}

static void
stdout_and_stderr_go_to_their_files(void **state)
{
	struct fx *f = *state;
	tc_proc_result res;
	tc_error err = TC_ERROR_INIT;
	char *s;

	assert_int_equal(run_sh(f, "echo out; echo err >&2", &res, &err), 0);
	s = slurp(f->out);
	assert_string_equal(s, "out\n");
	free(s);
	s = slurp(f->err);
	assert_string_equal(s, "err\n");
	free(s);
	/* logs are truncated by default */
	assert_int_equal(run_sh(f, "echo 2", &res, &err), 0);
	s = slurp(f->out);
	assert_string_equal(s, "2\n");
	free(s);
}

static void
fifty_megabytes_of_output_are_streamed_to_the_log(void **state)
{
	struct fx *f = *state;
	tc_proc_result res;
	tc_error err = TC_ERROR_INIT;
	struct stat st;

	assert_int_equal(run_sh(f, "head -c 52428800 /dev/zero", &res, &err), 0);
	assert_int_equal(res.exit_code, 0);
	assert_int_equal(stat(f->out, &st), 0);
	assert_int_equal(st.st_size, 52428800);
}

static void
one_file_for_both_streams_keeps_every_line(void **state)
{
	struct fx *f = *state;
	char *argv[] = { (char *)"sh", (char *)"-c",
	    (char *)"echo one; echo two >&2; echo three", NULL };
	tc_proc_spec spec = { 0 };
	tc_proc_result res;
	tc_error err = TC_ERROR_INIT;
	char *s;

	spec.argv = argv;
	spec.stdout_path = f->out;
	spec.stderr_path = f->out;
	spec.exclusive_logs = true;
	assert_int_equal(tc_proc_run(&spec, &res, &err), 0);
	s = slurp(f->out);
	assert_string_equal(s, "one\ntwo\nthree\n");
	free(s);
}

static void
exclusive_logs_refuse_existing_files(void **state)
{
	struct fx *f = *state;
	char *argv[] = { (char *)"true", NULL };
	tc_proc_spec spec = { 0 };
	tc_proc_result res;
	tc_error err = TC_ERROR_INIT;
	char *want = tc_xasprintf("[Errno 17] File exists: '%s'", f->err);
	FILE *fp = fopen(f->err, "w");

	assert_non_null(fp);
	fputs("keep", fp);
	fclose(fp);
	spec.argv = argv;
	spec.stdout_path = f->out;
	spec.stderr_path = f->err;
	spec.exclusive_logs = true;
	assert_int_equal(tc_proc_run(&spec, &res, &err), -1);
	assert_false(res.started);
	assert_string_equal(tc_error_msg(&err), want);
	free(want);
	want = slurp(f->err);
	assert_string_equal(want, "keep");
	free(want);
	tc_error_clear(&err);
}

static void
exec_failure_reads_like_subprocess(void **state)
{
	struct fx *f = *state;
	char *argv[] = { (char *)"tunectl-no-such-command", NULL };
	char *argv2[] = { f->out, NULL };
	tc_proc_spec spec = { 0 };
	tc_proc_result res;
	tc_error err = TC_ERROR_INIT;
	char *want;
	FILE *fp;

	spec.argv = argv;
	assert_int_equal(tc_proc_run(&spec, &res, &err), -1);
	assert_false(res.started);
	assert_string_equal(tc_error_msg(&err), "[Errno 2] No such file or "
	    "directory: 'tunectl-no-such-command'");
	/* an existing file without execute permission */
	fp = fopen(f->out, "w");
	assert_non_null(fp);
	fputs("#!/bin/sh\n", fp);
	fclose(fp);
	chmod(f->out, 0644);
	spec.argv = argv2;
	assert_int_equal(tc_proc_run(&spec, &res, &err), -1);
	want = tc_xasprintf("[Errno 13] Permission denied: '%s'", f->out);
	assert_string_equal(tc_error_msg(&err), want);
	free(want);
	tc_error_clear(&err);
}

static void
cwd_is_applied_and_a_missing_cwd_is_named(void **state)
{
	struct fx *f = *state;
	char *argv[] = { (char *)"pwd", NULL };
	tc_proc_spec spec = { 0 };
	tc_proc_result res;
	tc_error err = TC_ERROR_INIT;
	char *s, *want = tc_xasprintf("%s\n", f->dir);

	spec.argv = argv;
	spec.cwd = f->dir;
	spec.stdout_path = f->out;
	assert_int_equal(tc_proc_run(&spec, &res, &err), 0);
	s = slurp(f->out);
	assert_string_equal(s, want);
	free(s);
	free(want);
	spec.cwd = "/nonexistent-tunectl-dir";
	assert_int_equal(tc_proc_run(&spec, &res, &err), -1);
	assert_string_equal(tc_error_msg(&err), "[Errno 2] No such file or "
	    "directory: '/nonexistent-tunectl-dir'");
	tc_error_clear(&err);
}

static void
explicit_environment_replaces_environ_and_drives_path_search(void **state)
{
	struct fx *f = *state;
	char *argv[] = { (char *)"sh", (char *)"-c",
	    (char *)"echo \"$TC_FOO|${HOME-unset}\"", NULL };
	char *envp[] = { (char *)"TC_FOO=bar", NULL };	/* no PATH: /bin:/usr/bin */
	char *envp_badpath[] = { (char *)"PATH=/nonexistent", NULL };
	tc_proc_spec spec = { 0 };
	tc_proc_result res;
	tc_error err = TC_ERROR_INIT;
	char *s;

	setenv("HOME", "/root-from-parent", 1);
	spec.argv = argv;
	spec.envp = envp;
	spec.stdout_path = f->out;
	assert_int_equal(tc_proc_run(&spec, &res, &err), 0);
	s = slurp(f->out);
	assert_string_equal(s, "bar|unset\n");
	free(s);
	spec.envp = envp_badpath;
	assert_int_equal(tc_proc_run(&spec, &res, &err), -1);
	assert_string_equal(tc_error_msg(&err),
	    "[Errno 2] No such file or directory: 'sh'");
	/* NULL envp inherits */
	spec.envp = NULL;
	setenv("TC_FOO", "inherited", 1);
	assert_int_equal(tc_proc_run(&spec, &res, &err), 0);
	s = slurp(f->out);
	assert_string_equal(s, "inherited|/root-from-parent\n");
	free(s);
	unsetenv("TC_FOO");
	tc_error_clear(&err);
}

static void
stdin_null_gives_immediate_eof(void **state)
{
	struct fx *f = *state;
	tc_proc_result res;
	tc_error err = TC_ERROR_INIT;
	char *s;

	assert_int_equal(run_sh(f, "wc -c", &res, &err), 0);
	s = slurp(f->out);
	assert_int_equal(atoi(s), 0);
	free(s);
}

static void
parent_descriptors_do_not_leak_into_the_child(void **state)
{
	struct fx *f = *state;
	tc_proc_result res;
	tc_error err = TC_ERROR_INIT;
	int fd = open("/dev/null", O_RDONLY);	/* deliberately not CLOEXEC */
	char *script = tc_xasprintf("test -e /proc/$$/fd/%d", fd);

	assert_true(fd >= 3);
	assert_int_equal(run_sh(f, script, &res, &err), 0);
	assert_int_equal(res.exit_code, 1);
	close(fd);
	free(script);
}

static void
child_runs_in_its_own_process_group(void **state)
{
	struct fx *f = *state;
	tc_proc_result res;
	tc_error err = TC_ERROR_INIT;
	char *s, *want;

	assert_int_equal(run_sh(f, "cut -d' ' -f5 /proc/$$/stat; echo $$",
	    &res, &err), 0);
	s = slurp(f->out);
	want = tc_xasprintf("%ld\n%ld\n", (long)res.pid, (long)res.pid);
	assert_string_equal(s, want);
	free(s);
	free(want);
}

/* Reap an orphaned grandchild (we are its subreaper) and check that it
 * was killed by SIGKILL and is gone. */
static void
expect_grandchild_killed(const char *pidfile)
{
	char *s = slurp(pidfile);
	pid_t g = (pid_t)atol(s);
	int status;

	pid_t r = 0;
	int i;

	free(s);
	assert_true(g > 0);
	/* It must already be dead (a zombie waiting for us); the bounded
	 * poll only keeps a regression from hanging the suite. */
	for (i = 0; i < 1000 && r == 0; i++) {
		struct timespec ts = { 0, 10000000 };

		if ((r = waitpid(g, &status, WNOHANG)) == 0)
			nanosleep(&ts, NULL);
	}
	if (r == 0) {
		kill(g, SIGKILL);
		waitpid(g, &status, 0);
		fail_msg("grandchild %ld survived the timeout", (long)g);
	}
	assert_int_equal(r, g);
	assert_true(WIFSIGNALED(status));
	assert_int_equal(WTERMSIG(status), SIGKILL);
	assert_int_equal(kill(g, 0), -1);
	assert_int_equal(errno, ESRCH);
}

static void
timeout_kills_a_group_that_ignores_sigterm(void **state)
{
	struct fx *f = *state;
	char *pidfile = tc_xasprintf("%s/grandchild.pid", f->dir);
	char *script = tc_xasprintf("trap '' TERM; (exec sleep 1000) & "
	    "echo $! > '%s'; wait; wait", pidfile);
	char *argv[] = { (char *)"sh", (char *)"-c", script, NULL };
	tc_proc_spec spec = { 0 };
	tc_proc_result res;
	tc_error err = TC_ERROR_INIT;

	assert_int_equal(prctl(PR_SET_CHILD_SUBREAPER, 1), 0);
	spec.argv = argv;
	spec.stdin_null = true;
	spec.timeout_s = 1.0;
	spec.grace_s = 0.2;
	assert_int_equal(tc_proc_run(&spec, &res, &err), 0);
	assert_true(res.timed_out);
	assert_int_equal(res.exit_code, -SIGKILL);
	expect_grandchild_killed(pidfile);
	free(script);
	free(pidfile);
}

static void
timeout_kills_survivors_after_the_leader_exits_on_sigterm(void **state)
{
	struct fx *f = *state;
	char *pidfile = tc_xasprintf("%s/grandchild.pid", f->dir);
	char *script = tc_xasprintf("(trap '' TERM; exec sleep 1000) & "
	    "echo $! > '%s'; wait", pidfile);
	char *argv[] = { (char *)"sh", (char *)"-c", script, NULL };
	tc_proc_spec spec = { 0 };
	tc_proc_result res;
	tc_error err = TC_ERROR_INIT;

	assert_int_equal(prctl(PR_SET_CHILD_SUBREAPER, 1), 0);
	spec.argv = argv;
	spec.stdin_null = true;
	spec.timeout_s = 1.0;
	spec.grace_s = 30;	/* the leader goes at once; no need to wait */
	assert_int_equal(tc_proc_run(&spec, &res, &err), 0);
	assert_true(res.timed_out);
	assert_int_equal(res.exit_code, -SIGTERM);
	expect_grandchild_killed(pidfile);
	free(script);
	free(pidfile);
}

/* A pid read from a file once the command wrote it (bounded wait). */
static pid_t
pid_from(const char *pidfile)
{
	tc_error err = TC_ERROR_INIT;
	char *s = tc_read_file(pidfile, 0, NULL, &err);
	pid_t p = s != NULL ? (pid_t)atol(s) : 0;

	if (s == NULL)
		fail_msg("no pid in %s: %s", pidfile, tc_error_msg(&err));
	free(s);
	return p;
}

static void
end_tree_ends_what_the_leader_leaves_behind(void **state)
{
	struct fx *f = *state;
	char *bg = tc_xasprintf("%s/bg.pid", f->dir);
	char *daemon = tc_xasprintf("%s/daemon.pid", f->dir);
	/* a background child in the group and a setsid daemon outside it;
	 * the leader waits (at most 5 s) until both are up, then exits 0 */
	char *script = tc_xasprintf("(exec sleep 1000) & echo $! > '%s'; "
	    "setsid sh -c 'echo $$ > \"$0\"; exec sleep 1000' '%s' & "
	    "i=0; while [ ! -s '%s' ] && [ $i -lt 500 ]; do sleep 0.01; "
	    "i=$((i + 1)); done; exit 0", bg, daemon, daemon);
	char *argv[] = { (char *)"sh", (char *)"-c", script, NULL };
	tc_proc_spec spec = { 0 };
	tc_proc_result res;
	tc_error err = TC_ERROR_INIT;
	pid_t b, d;

	spec.argv = argv;
	spec.stdin_null = true;
	spec.timeout_s = 30;
	spec.end_tree = true;
	assert_int_equal(tc_proc_run(&spec, &res, &err), 0);
	assert_false(res.timed_out);
	assert_int_equal(res.exit_code, 0);
	b = pid_from(bg);
	d = pid_from(daemon);
	assert_true(b > 0 && d > 0);
	/* killed and reaped before tc_proc_run returned */
	assert_int_equal(kill(b, 0), -1);
	assert_int_equal(errno, ESRCH);
	assert_int_equal(kill(d, 0), -1);
	assert_int_equal(errno, ESRCH);
	free(script);
	free(bg);
	free(daemon);
}

static void
logs_at_dirfd_are_created_in_that_directory_without_following_links(
    void **state)
{
	struct fx *f = *state;
	char *argv[] = { (char *)"sh", (char *)"-c", (char *)"echo hi", NULL };
	char *sub = tc_xasprintf("%s/sub", f->dir);
	char *moved = tc_xasprintf("%s/moved", f->dir);
	char *log = tc_xasprintf("%s/moved/o.log", f->dir);
	char *link = tc_xasprintf("%s/link.log", f->dir);
	tc_proc_spec spec = { 0 };
	tc_proc_result res;
	tc_error err = TC_ERROR_INIT;
	char *s;
	int dfd;

	assert_int_equal(mkdir(sub, 0700), 0);
	dfd = open(sub, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	assert_true(dfd >= 0);
	/* the directory is moved after it was opened: the log follows the
	 * descriptor, not the old path */
	assert_int_equal(rename(sub, moved), 0);
	spec.argv = argv;
	spec.stdin_null = true;
	spec.stdout_path = "o.log";
	spec.logs_at_dirfd = true;
	spec.log_dirfd = dfd;
	spec.exclusive_logs = true;
	assert_int_equal(tc_proc_run(&spec, &res, &err), 0);
	s = slurp(log);
	assert_string_equal(s, "hi\n");
	free(s);
	/* a planted symlink as the log is not followed */
	assert_int_equal(symlinkat(link, dfd, "l.log"), 0);
	spec.stdout_path = "l.log";
	spec.exclusive_logs = false;
	assert_int_equal(tc_proc_run(&spec, &res, &err), -1);
	assert_non_null(strstr(tc_error_msg(&err), "[Errno 40]"));
	tc_error_clear(&err);
	assert_int_equal(access(link, F_OK), -1);
	close(dfd);
	free(sub);
	free(moved);
	free(log);
	free(link);
}

static void
empty_argv_is_refused(void **state)
{
	char *argv[] = { NULL };
	tc_proc_spec spec = { 0 };
	tc_proc_result res;
	tc_error err = TC_ERROR_INIT;

	(void)state;
	spec.argv = argv;
	assert_int_equal(tc_proc_run(&spec, &res, &err), -1);
	assert_string_equal(tc_error_msg(&err), "cannot run an empty command");
	tc_error_clear(&err);
}

#define FX(t) cmocka_unit_test_setup_teardown(t, fx_setup, fx_teardown)

int
main(void)
{
	const struct CMUnitTest tests[] = {
		FX(exit_status_is_reported),
		FX(signal_death_is_negative_signal_number),
		FX(stdout_and_stderr_go_to_their_files),
		FX(fifty_megabytes_of_output_are_streamed_to_the_log),
		FX(one_file_for_both_streams_keeps_every_line),
		FX(exclusive_logs_refuse_existing_files),
		FX(exec_failure_reads_like_subprocess),
		FX(cwd_is_applied_and_a_missing_cwd_is_named),
		FX(explicit_environment_replaces_environ_and_drives_path_search),
		FX(stdin_null_gives_immediate_eof),
		FX(parent_descriptors_do_not_leak_into_the_child),
		FX(child_runs_in_its_own_process_group),
		FX(timeout_kills_a_group_that_ignores_sigterm),
		FX(timeout_kills_survivors_after_the_leader_exits_on_sigterm),
		FX(end_tree_ends_what_the_leader_leaves_behind),
		FX(logs_at_dirfd_are_created_in_that_directory_without_following_links),
		cmocka_unit_test(empty_argv_is_refused),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
