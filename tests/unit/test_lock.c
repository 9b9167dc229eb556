/*
 * test_lock.c - "<path>.lock" flock locks: creation mode, holder details,
 * contention between processes, the timeout message and its environment
 * override, release on holder death.
 */
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "tunectl/buf.h"
#include "tunectl/fileio.h"
#include "tunectl/lock.h"
#include "unit_fixture.h"

struct fx {
	char *dir;
	char *doc;	/* <dir>/session.json: the locked document */
};

static int
fx_setup(void **state)
{
	struct fx *f = tc_xcalloc(1, sizeof(*f));

	f->dir = unit_tmpdir("lock");
	f->doc = tc_xasprintf("%s/session.json", f->dir);
	unsetenv("TUNECTL_LOCK_TIMEOUT");
	*state = f;
	return 0;
}

static int
fx_teardown(void **state)
{
	struct fx *f = *state;
	int rc = unit_rmtree(f->dir);

	unsetenv("TUNECTL_LOCK_TIMEOUT");
	free(f->doc);
	free(f->dir);
	free(f);
	return rc == 0 ? 0 : -1;
}

/* A child process that takes the lock, reports on `ready`, and holds it
 * until `release` is readable (or forever, until killed). */
struct holder {
	pid_t pid;
	int release_w;
};

static struct holder
start_holder(const char *doc)
{
	int ready[2], release[2];
	struct holder h;
	char c;

	assert_int_equal(pipe(ready), 0);
	assert_int_equal(pipe(release), 0);
	h.pid = fork();
	assert_true(h.pid >= 0);
	if (h.pid == 0) {
		tc_lock lk = TC_LOCK_INIT;
		tc_error err = TC_ERROR_INIT;

		close(ready[0]);
		close(release[1]);
		if (tc_lock_acquire(&lk, doc, 5, &err) != 0)
			_exit(2);
		if (write(ready[1], "r", 1) != 1)
			_exit(3);
		if (read(release[0], &c, 1) < 0)
			_exit(4);
		tc_lock_release(&lk);
		_exit(0);
	}
	close(ready[1]);
	close(release[0]);
	assert_int_equal(read(ready[0], &c, 1), 1);
	close(ready[0]);
	h.release_w = release[1];
	return h;
}

static void
stop_holder(struct holder *h)
{
	int status;

	close(h->release_w);	/* EOF: release */
	assert_int_equal(waitpid(h->pid, &status, 0), h->pid);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
}

static void
acquire_creates_lock_file_with_umask_mode_and_holder_info(void **state)
{
	struct fx *f = *state;
	tc_lock lk = TC_LOCK_INIT;
	tc_error err = TC_ERROR_INIT;
	char *lpath = tc_xasprintf("%s.lock", f->doc), *text, *want;
	mode_t old = umask(027);
	struct stat st;

	assert_int_equal(tc_lock_acquire(&lk, f->doc, 1, &err), 0);
	umask(old);
	assert_true(lk.fd >= 0);
	assert_string_equal(lk.path, lpath);
	assert_int_equal(stat(lpath, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0640);
	text = tc_read_file(lpath, 0, NULL, &err);
	want = tc_xasprintf("pid %ld\ncmdline ", (long)getpid());
	assert_non_null(text);
	assert_true(strncmp(text, want, strlen(want)) == 0);
	assert_non_null(strstr(text, "test_lock"));
	tc_lock_release(&lk);
	assert_int_equal(lk.fd, -1);
	assert_null(lk.path);
	assert_true(tc_path_exists(lpath));	/* never deleted */
	free(want);
	free(text);
	free(lpath);
}

static void
contended_lock_times_out_with_the_documented_message(void **state)
{
	struct fx *f = *state;
	struct holder h = start_holder(f->doc);
	tc_lock lk = TC_LOCK_INIT;
	tc_error err = TC_ERROR_INIT;
	char *want;

	assert_int_equal(tc_lock_acquire(&lk, f->doc, 0.2, &err), -1);
	want = tc_xasprintf("another tunectl process holds the lock on %s "
	    "(waited 0.2s)", f->doc);
	assert_string_equal(tc_error_msg(&err), want);
	assert_int_equal(lk.fd, -1);
	free(want);
	/* 0 means a single try */
	assert_int_equal(tc_lock_acquire(&lk, f->doc, 0, &err), -1);
	want = tc_xasprintf("another tunectl process holds the lock on %s "
	    "(waited 0s)", f->doc);
	assert_string_equal(tc_error_msg(&err), want);
	free(want);
	stop_holder(&h);
	assert_int_equal(tc_lock_acquire(&lk, f->doc, 0, &err), 0);
	tc_lock_release(&lk);
	tc_error_clear(&err);
}

static void
waiter_gets_the_lock_once_the_holder_releases(void **state)
{
	struct fx *f = *state;
	struct holder h = start_holder(f->doc);
	tc_lock lk = TC_LOCK_INIT;
	tc_error err = TC_ERROR_INIT;
	pid_t releaser = fork();

	assert_true(releaser >= 0);
	if (releaser == 0) {
		struct timespec ts = { 0, 200000000 };

		nanosleep(&ts, NULL);
		close(h.release_w);
		_exit(0);
	}
	close(h.release_w);	/* only the releaser's copy keeps it open */
	assert_int_equal(tc_lock_acquire(&lk, f->doc, 60, &err), 0);
	tc_lock_release(&lk);
	waitpid(releaser, NULL, 0);
	waitpid(h.pid, NULL, 0);
}

static void
environment_overrides_the_timeout(void **state)
{
	struct fx *f = *state;
	struct holder h = start_holder(f->doc);
	tc_lock lk = TC_LOCK_INIT;
	tc_error err = TC_ERROR_INIT;
	char *want = tc_xasprintf("another tunectl process holds the lock on %s "
	    "(waited 0.05s)", f->doc);

	setenv("TUNECTL_LOCK_TIMEOUT", "0.05", 1);
	assert_int_equal(tc_lock_acquire(&lk, f->doc, 3600, &err), -1);
	assert_string_equal(tc_error_msg(&err), want);
	/* an unusable value is ignored */
	setenv("TUNECTL_LOCK_TIMEOUT", "soon", 1);
	assert_int_equal(tc_lock_acquire(&lk, f->doc, 0.1, &err), -1);
	free(want);
	want = tc_xasprintf("another tunectl process holds the lock on %s "
	    "(waited 0.1s)", f->doc);
	assert_string_equal(tc_error_msg(&err), want);
	free(want);
	stop_holder(&h);
	tc_error_clear(&err);
}

static void
lock_is_released_when_the_holder_dies(void **state)
{
	struct fx *f = *state;
	struct holder h = start_holder(f->doc);
	tc_lock lk = TC_LOCK_INIT;
	tc_error err = TC_ERROR_INIT;

	assert_int_equal(tc_lock_acquire(&lk, f->doc, 0, &err), -1);
	kill(h.pid, SIGKILL);
	waitpid(h.pid, NULL, 0);
	close(h.release_w);
	assert_int_equal(tc_lock_acquire(&lk, f->doc, 0, &err), 0);
	tc_lock_release(&lk);
	tc_error_clear(&err);
}

static void
lock_in_a_missing_directory_reports_python_oserror(void **state)
{
	struct fx *f = *state;
	tc_lock lk = TC_LOCK_INIT;
	tc_error err = TC_ERROR_INIT;
	char *doc = tc_xasprintf("%s/nodir/s.json", f->dir);
	char *want = tc_xasprintf("[Errno 2] No such file or directory: "
	    "'%s.lock'", doc);

	assert_int_equal(tc_lock_acquire(&lk, doc, 0, &err), -1);
	assert_string_equal(tc_error_msg(&err), want);
	assert_int_equal(lk.fd, -1);
	tc_lock_release(&lk);	/* harmless on a lock not held */
	free(want);
	free(doc);
	tc_error_clear(&err);
}

#define FX(t) cmocka_unit_test_setup_teardown(t, fx_setup, fx_teardown)

int
main(void)
{
	const struct CMUnitTest tests[] = {
		FX(acquire_creates_lock_file_with_umask_mode_and_holder_info),
		FX(contended_lock_times_out_with_the_documented_message),
		FX(waiter_gets_the_lock_once_the_holder_releases),
		FX(environment_overrides_the_timeout),
		FX(lock_is_released_when_the_holder_dies),
		FX(lock_in_a_missing_directory_reports_python_oserror),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
