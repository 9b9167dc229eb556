/*
 * test_fileio.c - atomic writes (content, modes, exclusivity, mkdirs, no
 * temp file left on any failure, crash points), whole-file reads and
 * mkdir -p, with Python's OSError messages.
 */
#include <dirent.h>
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
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "tunectl/buf.h"
#include "tunectl/fileio.h"
#include "tunectl/json.h"
#include "unit_fixture.h"

static const char *self_exe;

struct fx {
	char *dir;
};

static int
fx_setup(void **state)
{
	struct fx *f = tc_xcalloc(1, sizeof(*f));

	f->dir = unit_tmpdir("fileio");
	*state = f;
	return 0;
}

static int
fx_teardown(void **state)
{
	struct fx *f = *state;
	int rc = unit_rmtree(f->dir);

	free(f->dir);
	free(f);
	return rc == 0 ? 0 : -1;
}

static char *
path_in(struct fx *f, const char *name)
{
	return tc_xasprintf("%s/%s", f->dir, name);
}

static void
put(const char *path, const char *text)
{
	FILE *fp = fopen(path, "w");

	assert_non_null(fp);
	fputs(text, fp);
	assert_int_equal(fclose(fp), 0);
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

/* Number of ".*.tmp" entries in dir. */
static int
count_temps(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int n = 0;

	assert_non_null(d);
	while ((e = readdir(d)) != NULL) {
		size_t len = strlen(e->d_name);

		if (e->d_name[0] == '.' && len > 4 &&
		    strcmp(e->d_name + len - 4, ".tmp") == 0)
			n++;
	}
	closedir(d);
	return n;
}

static mode_t
mode_of(const char *path)
{
	struct stat st;

	assert_int_equal(stat(path, &st), 0);
	return st.st_mode & 07777;
}

/* ---- tc_write_atomic ------------------------------------------------------ */

static void
atomic_write_creates_the_file_with_exact_content(void **state)
{
	struct fx *f = *state;
	tc_error err = TC_ERROR_INIT;
	char *p = path_in(f, "out.json");
	char *s;
	size_t len;
	static const char data[] = "a\0b\nc";

	assert_int_equal(tc_write_atomic(p, data, sizeof(data) - 1, 0, &err), 0);
	s = tc_read_file(p, 0, &len, &err);
	assert_int_equal(len, sizeof(data) - 1);
	assert_memory_equal(s, data, len);
	assert_int_equal(count_temps(f->dir), 0);
	free(s);
	free(p);
}

static void
atomic_write_replaces_an_existing_file(void **state)
{
	struct fx *f = *state;
	tc_error err = TC_ERROR_INIT;
	char *p = path_in(f, "out.txt"), *s;

	put(p, "old content that is longer");
	assert_int_equal(tc_write_atomic(p, "new", 3, 0, &err), 0);
	s = slurp(p);
	assert_string_equal(s, "new");
	assert_int_equal(count_temps(f->dir), 0);
	free(s);
	free(p);
}

static void
atomic_write_mode_honours_umask(void **state)
{
	struct fx *f = *state;
	tc_error err = TC_ERROR_INIT;
	char *p = path_in(f, "m");
	mode_t old = umask(022);

	assert_int_equal(tc_write_atomic(p, "x", 1, 0, &err), 0);
	assert_int_equal(mode_of(p), 0644);
	umask(077);
	assert_int_equal(tc_write_atomic(p, "x", 1, 0, &err), 0);
	assert_int_equal(mode_of(p), 0600);
	umask(0);
	assert_int_equal(tc_write_atomic(p, "x", 1, 0, &err), 0);
	assert_int_equal(mode_of(p), 0666);
	umask(027);
	assert_int_equal(tc_write_atomic(p, "x", 1, 0, &err), 0);
	assert_int_equal(mode_of(p), 0640);
	umask(old);
	free(p);
}

static void
atomic_write_private_is_0600_whatever_the_umask(void **state)
{
	struct fx *f = *state;
	tc_error err = TC_ERROR_INIT;
	char *p = path_in(f, "secret");
	mode_t old = umask(0);

	assert_int_equal(tc_write_atomic(p, "x", 1, TC_WRITE_PRIVATE, &err), 0);
	assert_int_equal(mode_of(p), 0600);
	umask(old);
	free(p);
}

static void
exclusive_write_refuses_an_existing_file_and_leaves_it(void **state)
{
	struct fx *f = *state;
	tc_error err = TC_ERROR_INIT;
	char *p = path_in(f, "sealed.json"), *want, *s;

	put(p, "original");
	assert_int_equal(tc_write_atomic(p, "replacement", 11,
	    TC_WRITE_EXCLUSIVE, &err), -1);
	want = tc_xasprintf("[Errno 17] File exists: '%s'", p);
	assert_string_equal(tc_error_msg(&err), want);
	s = slurp(p);
	assert_string_equal(s, "original");
	assert_int_equal(count_temps(f->dir), 0);
	free(s);
	free(want);
	free(p);
	tc_error_clear(&err);
}

static void
exclusive_write_refuses_a_dangling_symlink(void **state)
{
	struct fx *f = *state;
	tc_error err = TC_ERROR_INIT;
	char *p = path_in(f, "link"), *target = path_in(f, "target");

	assert_int_equal(symlink(target, p), 0);
	assert_int_equal(tc_write_atomic(p, "x", 1, TC_WRITE_EXCLUSIVE, &err),
	    -1);
	assert_true(strncmp(tc_error_msg(&err), "[Errno 17] File exists: ",
	    24) == 0);
	assert_false(tc_path_exists(target));
	assert_int_equal(count_temps(f->dir), 0);
	free(p);
	free(target);
	tc_error_clear(&err);
}

static void
exclusive_write_creates_a_new_file(void **state)
{
	struct fx *f = *state;
	tc_error err = TC_ERROR_INIT;
	char *p = path_in(f, "new.json"), *s;

	assert_int_equal(tc_write_atomic(p, "{}\n", 3, TC_WRITE_EXCLUSIVE,
	    &err), 0);
	s = slurp(p);
	assert_string_equal(s, "{}\n");
	assert_int_equal(count_temps(f->dir), 0);
	free(s);
	free(p);
}

static void
mkdirs_flag_creates_missing_parents(void **state)
{
	struct fx *f = *state;
	tc_error err = TC_ERROR_INIT;
	char *p = path_in(f, "a/b/c/out.txt"), *s, *d;

	assert_int_equal(tc_write_atomic(p, "deep", 4, TC_WRITE_MKDIRS, &err),
	    0);
	s = slurp(p);
	assert_string_equal(s, "deep");
	d = path_in(f, "a/b/c");
	assert_int_equal(count_temps(d), 0);
	free(d);
	free(s);
	free(p);
}

static void
missing_parent_without_mkdirs_is_enoent_naming_the_target(void **state)
{
	struct fx *f = *state;
	tc_error err = TC_ERROR_INIT;
	char *p = path_in(f, "nodir/out.txt");
	char *want = tc_xasprintf("[Errno 2] No such file or directory: '%s'",
	    p);

	assert_int_equal(tc_write_atomic(p, "x", 1, 0, &err), -1);
	assert_string_equal(tc_error_msg(&err), want);
	free(want);
	free(p);
	tc_error_clear(&err);
}

static void
mkdirs_through_a_file_fails_naming_the_blocked_directory(void **state)
{
	struct fx *f = *state;
	tc_error err = TC_ERROR_INIT;
	char *file = path_in(f, "plain");
	char *p = path_in(f, "plain/sub/out.txt");
	char *want = tc_xasprintf("[Errno 20] Not a directory: '%s/sub'", file);

	put(file, "x");
	assert_int_equal(tc_write_atomic(p, "x", 1, TC_WRITE_MKDIRS, &err), -1);
	assert_string_equal(tc_error_msg(&err), want);
	free(want);
	free(p);
	free(file);
	tc_error_clear(&err);
}

static void
rename_onto_a_directory_fails_and_removes_the_temp(void **state)
{
	struct fx *f = *state;
	tc_error err = TC_ERROR_INIT;
	char *p = path_in(f, "adir"), *inner = path_in(f, "adir/keep");
	char *want = tc_xasprintf("[Errno 21] Is a directory: '%s'", p);

	assert_int_equal(mkdir(p, 0755), 0);
	put(inner, "x");
	assert_int_equal(tc_write_atomic(p, "x", 1, 0, &err), -1);
	assert_string_equal(tc_error_msg(&err), want);
	assert_int_equal(count_temps(f->dir), 0);
	assert_true(tc_is_directory(p));
	free(want);
	free(inner);
	free(p);
	tc_error_clear(&err);
}

static void
paths_that_cannot_name_a_file_are_refused(void **state)
{
	struct fx *f = *state;
	tc_error err = TC_ERROR_INIT;
	char *p = path_in(f, "dir/"), *want;

	assert_int_equal(tc_write_atomic(p, "x", 1, TC_WRITE_MKDIRS, &err), -1);
	want = tc_xasprintf("[Errno 21] Is a directory: '%s'", p);
	assert_string_equal(tc_error_msg(&err), want);
	free(want);
	free(p);
	assert_int_equal(tc_write_atomic("", "x", 1, 0, &err), -1);
	assert_string_equal(tc_error_msg(&err),
	    "[Errno 2] No such file or directory: ''");
	p = path_in(f, "..");
	assert_int_equal(tc_write_atomic(p, "x", 1, 0, &err), -1);
	assert_true(strncmp(tc_error_msg(&err), "[Errno 21] Is a directory",
	    25) == 0);
	free(p);
	assert_int_equal(count_temps(f->dir), 0);
	tc_error_clear(&err);
}

static void
long_names_still_get_a_temp_file(void **state)
{
	struct fx *f = *state;
	tc_error err = TC_ERROR_INIT;
	char name[256];
	char *p, *s;

	memset(name, 'n', 250);
	memcpy(name + 245, ".json", 6);	/* 250 bytes + NUL */
	p = path_in(f, name);
	assert_int_equal(tc_write_atomic(p, "ok", 2, 0, &err), 0);
	s = slurp(p);
	assert_string_equal(s, "ok");
	assert_int_equal(count_temps(f->dir), 0);
	free(s);
	free(p);
}

/* As an unprivileged user (root ignores permissions): a read-only
 * directory refuses the temp file, nothing is left behind. */
static void
write_into_read_only_directory(struct fx *f)
{
	tc_error err = TC_ERROR_INIT;
	char *ro = path_in(f, "ro"), *p = path_in(f, "ro/out.json");
	char *want = tc_xasprintf("[Errno 13] Permission denied: '%s'", p);

	if (tc_write_atomic(p, "x", 1, 0, &err) != -1)
		_exit(10);
	if (strcmp(tc_error_msg(&err), want) != 0) {
		fprintf(stderr, "got: %s\n", tc_error_msg(&err));
		_exit(11);
	}
	if (count_temps(ro) != 0 || tc_path_exists(p))
		_exit(12);
	free(want);
	free(p);
	free(ro);
	tc_error_clear(&err);
}

static void
read_only_directory_fails_with_eacces_and_no_temp(void **state)
{
	struct fx *f = *state;
	char *ro = path_in(f, "ro");
	pid_t pid;
	int status;

	assert_int_equal(mkdir(ro, 0555), 0);
	assert_int_equal(chmod(ro, 0555), 0);
	free(ro);	/* before fork: the child must not leak it */
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		if (geteuid() == 0 && (setgid(65534) != 0 || setuid(65534) != 0))
			_exit(20);
		write_into_read_only_directory(f);
		_exit(0);
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
}

/* ---- crash points ---------------------------------------------------------- */

/* Re-exec this binary as "fault-child PATH1 PATH2" with the fault
 * environment: it writes "new" to PATH1 then PATH2. */
static int
run_fault_child(const char *point, const char *count, const char *p1,
    const char *p2)
{
	pid_t pid = fork();
	int status;

	assert_true(pid >= 0);
	if (pid == 0) {
		setenv("TUNECTL_FAULT_POINT", point, 1);
		if (count != NULL)
			setenv("TUNECTL_FAULT_COUNT", count, 1);
		execl(self_exe, self_exe, "fault-child", p1, p2, (char *)NULL);
		_exit(99);
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	return status;
}

static int
fault_child_main(const char *p1, const char *p2)
{
	tc_error err = TC_ERROR_INIT;

	if (tc_write_atomic(p1, "new", 3, 0, &err) != 0 ||
	    tc_write_atomic(p2, "new", 3, 0, &err) != 0)
		return 1;
	return 0;
}

static void
expect_crash_state(struct fx *f, const char *point, const char *count,
    const char *want1, const char *want2, int temps)
{
	char *p1 = path_in(f, "one"), *p2 = path_in(f, "two"), *s;
	int status;

	put(p1, "old");
	put(p2, "old");
	status = run_fault_child(point, count, p1, p2);
	if (!WIFSIGNALED(status) || WTERMSIG(status) != SIGKILL)
		fail_msg("%s/%s: child was not killed (status %d)", point,
		    count ? count : "-", status);
	s = slurp(p1);
	assert_string_equal(s, want1);
	free(s);
	s = slurp(p2);
	assert_string_equal(s, want2);
	free(s);
	assert_int_equal(count_temps(f->dir), temps);
	free(p1);
	free(p2);
}

static void
fault_points_kill_at_each_boundary_of_the_first_write(void **state)
{
	struct fx *f = *state;
	char *cmd;

	expect_crash_state(f, "write", NULL, "old", "old", 1);
	cmd = tc_xasprintf("rm -f '%s'/.*.tmp", f->dir);
	assert_int_equal(system(cmd), 0);
	expect_crash_state(f, "fsync", NULL, "old", "old", 1);
	assert_int_equal(system(cmd), 0);
	expect_crash_state(f, "rename", NULL, "old", "old", 1);
	assert_int_equal(system(cmd), 0);
	expect_crash_state(f, "dirsync", NULL, "new", "old", 0);
	free(cmd);
}

static void
fault_count_selects_the_nth_crossing(void **state)
{
	struct fx *f = *state;

	expect_crash_state(f, "rename", "2", "new", "old", 1);
}

static void
unknown_fault_point_changes_nothing(void **state)
{
	struct fx *f = *state;
	char *p1 = path_in(f, "one"), *p2 = path_in(f, "two"), *s;
	int status = run_fault_child("elsewhere", NULL, p1, p2);

	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
	s = slurp(p2);
	assert_string_equal(s, "new");
	free(s);
	free(p1);
	free(p2);
}

/* ---- tc_write_json ----------------------------------------------------------- */

static void
write_json_writes_the_pretty_form(void **state)
{
	struct fx *f = *state;
	tc_error err = TC_ERROR_INIT;
	char *p = path_in(f, "doc.json"), *s, *want;
	tc_json *doc = tc_json_new_object();
	size_t len;

	want = tc_json_pretty(doc, &len, &err);
	assert_non_null(want);
	assert_int_equal(tc_write_json(p, doc, TC_WRITE_EXCLUSIVE, &err), 0);
	s = slurp(p);
	assert_string_equal(s, want);
	assert_int_equal(tc_write_json(p, doc, TC_WRITE_EXCLUSIVE, &err), -1);
	free(s);
	free(want);
	free(p);
	tc_json_free(doc);
	tc_error_clear(&err);
}

/* ---- tc_read_file ---------------------------------------------------------- */

static void
read_file_reports_missing_and_directories_like_python(void **state)
{
	struct fx *f = *state;
	tc_error err = TC_ERROR_INIT;
	char *p = path_in(f, "missing.json"), *want;

	assert_null(tc_read_file(p, 0, NULL, &err));
	want = tc_xasprintf("[Errno 2] No such file or directory: '%s'", p);
	assert_string_equal(tc_error_msg(&err), want);
	free(want);
	assert_null(tc_read_file(f->dir, 0, NULL, &err));
	want = tc_xasprintf("[Errno 21] Is a directory: '%s'", f->dir);
	assert_string_equal(tc_error_msg(&err), want);
	free(want);
	free(p);
	tc_error_clear(&err);
}

static void
read_file_enforces_the_size_limit(void **state)
{
	struct fx *f = *state;
	tc_error err = TC_ERROR_INIT;
	char *p = path_in(f, "ten"), *s, *want;
	size_t len = 0;

	put(p, "0123456789");
	s = tc_read_file(p, 10, &len, &err);
	assert_non_null(s);
	assert_int_equal(len, 10);
	assert_string_equal(s, "0123456789");
	free(s);
	assert_null(tc_read_file(p, 9, &len, &err));
	want = tc_xasprintf("file is too large: '%s' (more than 9 bytes)", p);
	assert_string_equal(tc_error_msg(&err), want);
	free(want);
	free(p);
	tc_error_clear(&err);
}

static void
read_file_handles_empty_and_sizeless_files(void **state)
{
	struct fx *f = *state;
	tc_error err = TC_ERROR_INIT;
	char *p = path_in(f, "empty"), *s;
	size_t len = 99;

	put(p, "");
	s = tc_read_file(p, 0, &len, &err);
	assert_non_null(s);
	assert_int_equal(len, 0);
	assert_string_equal(s, "");
	free(s);
	/* procfs reports size 0 but has content */
	s = tc_read_file("/proc/self/status", 0, &len, &err);
	assert_non_null(s);
	assert_true(len > 0 && strstr(s, "Pid:") != NULL);
	assert_int_equal(strlen(s), len);
	free(s);
	free(p);
}

static void
read_retry_leaves_a_pipe_alone_and_keeps_errno(void **state)
{
	int p[2];

	(void)state;
	assert_int_equal(pipe2(p, O_NONBLOCK), 0);
	errno = EINTR;
	assert_true(tc_read_retry(p[0], false));
	/* a pipe's flags are its owner's: EAGAIN is an error, O_NONBLOCK
	 * stays */
	errno = EAGAIN;
	assert_false(tc_read_retry(p[0], false));
	assert_int_equal(errno, EAGAIN);
	assert_int_equal(fcntl(p[0], F_GETFL) & O_NONBLOCK, O_NONBLOCK);
	errno = EIO;
	assert_false(tc_read_retry(p[0], true));
	assert_int_equal(errno, EIO);
	close(p[0]);
	close(p[1]);
}

/* The read stops early only where a short read ends at fstat's size: a
 * file rewritten longer after its open is read to its end, and a
 * descriptor read partly before (its offset short of the size) to its
 * end too. */
static void
read_fd_reads_past_the_size_fstat_gave(void **state)
{
	struct fx *f = *state;
	tc_error err = TC_ERROR_INIT;
	char *p = path_in(f, "grows"), *s;
	struct stat st;
	size_t len = 0;
	int fd;

	put(p, "0123456789");
	fd = tc_open_regular_stat_at(AT_FDCWD, p, 0, &st);
	assert_true(fd >= 0);
	assert_int_equal(st.st_size, 10);
	put(p, "0123456789abcdefghij");	/* same inode, rewritten longer */
	s = tc_read_fd(fd, p, 0, &len, &err);
	assert_non_null(s);
	assert_int_equal(len, 20);
	assert_string_equal(s, "0123456789abcdefghij");
	free(s);
	assert_int_equal(lseek(fd, 4, SEEK_SET), 4);
	s = tc_read_fd(fd, p, 0, &len, &err);
	assert_non_null(s);
	assert_int_equal(len, 16);
	assert_string_equal(s, "456789abcdefghij");
	free(s);
	close(fd);
	free(p);
}

/* ---- tc_mkdirs, exists ------------------------------------------------------ */

static void
mkdirs_is_idempotent_and_refuses_files_in_the_way(void **state)
{
	struct fx *f = *state;
	tc_error err = TC_ERROR_INIT;
	char *d = path_in(f, "x/y/z"), *file = path_in(f, "x/file"), *want;
	mode_t old = umask(022);

	assert_int_equal(tc_mkdirs(d, &err), 0);
	assert_int_equal(tc_mkdirs(d, &err), 0);
	assert_true(tc_is_directory(d));
	assert_int_equal(mode_of(d), 0755);
	assert_int_equal(tc_mkdirs(f->dir, &err), 0);
	assert_int_equal(tc_mkdirs("/", &err), 0);
	put(file, "x");
	assert_int_equal(tc_mkdirs(file, &err), -1);
	want = tc_xasprintf("[Errno 17] File exists: '%s'", file);
	assert_string_equal(tc_error_msg(&err), want);
	free(want);
	umask(old);
	free(d);
	free(file);
	tc_error_clear(&err);
}

static void
error_os_formats_like_python_oserror(void **state)
{
	tc_error err = TC_ERROR_INIT;

	(void)state;
	tc_error_os(&err, ENOENT, "it's");
	assert_string_equal(tc_error_msg(&err),
	    "[Errno 2] No such file or directory: \"it's\"");
	tc_error_os(&err, EACCES, "a\\b");
	assert_string_equal(tc_error_msg(&err),
	    "[Errno 13] Permission denied: 'a\\\\b'");
	tc_error_clear(&err);
}

static void
open_regular_refuses_fifos_directories_and_links_without_blocking(
    void **state)
{
	struct fx *f = *state;
	char *fifo = path_in(f, "fifo"), *file = path_in(f, "file");
	char *link = path_in(f, "link");
	tc_error err = TC_ERROR_INIT;
	int fd;

	assert_int_equal(mkfifo(fifo, 0600), 0);
	put(file, "x");
	assert_int_equal(symlink(file, link), 0);
	/* a FIFO without a writer: opening it must not wait */
	assert_int_equal(tc_open_regular_at(AT_FDCWD, fifo, 0), -1);
	assert_int_equal(errno, ESPIPE);
	assert_int_equal(tc_open_regular_at(AT_FDCWD, f->dir, 0), -1);
	assert_int_equal(errno, EISDIR);
	assert_int_equal(tc_open_regular_at(AT_FDCWD, "/dev/null", 0), -1);
	assert_int_equal(errno, ESPIPE);
	assert_int_equal(tc_open_regular_at(AT_FDCWD, link, TC_OPEN_NOFOLLOW),
	    -1);
	assert_int_equal(errno, ELOOP);
	fd = tc_open_regular_at(AT_FDCWD, link, 0);
	assert_true(fd >= 0);
	/* O_NONBLOCK is left on (no fcntl per document): a read that
	 * fails with EAGAIN anyway clears it and is retried */
	assert_int_equal(fcntl(fd, F_GETFL) & O_NONBLOCK, O_NONBLOCK);
	errno = EAGAIN;
	assert_true(tc_read_retry(fd, true));
	assert_int_equal(fcntl(fd, F_GETFL) & O_NONBLOCK, 0);
	close(fd);
	/* the readers built on it */
	assert_null(tc_read_file(fifo, 0, NULL, &err));
	assert_non_null(strstr(tc_error_msg(&err), "[Errno 29] Illegal seek"));
	assert_null(tc_json_parse_file(fifo, &err));
	assert_non_null(strstr(tc_error_msg(&err), "[Errno 29] Illegal seek"));
	tc_error_clear(&err);
	free(fifo);
	free(file);
	free(link);
}

static void
atomic_write_at_writes_into_the_held_directory(void **state)
{
	struct fx *f = *state;
	char *sub = path_in(f, "sub"), *moved = path_in(f, "moved");
	char *outside = path_in(f, "outside"), *got;
	char *in_moved = path_in(f, "moved/r.json");
	char *in_outside = path_in(f, "outside/r.json");
	tc_error err = TC_ERROR_INIT;
	int dfd;

	assert_int_equal(mkdir(sub, 0755), 0);
	assert_int_equal(mkdir(outside, 0755), 0);
	dfd = open(sub, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	assert_true(dfd >= 0);
	/* someone moves the directory and leaves a link in its place */
	assert_int_equal(rename(sub, moved), 0);
	assert_int_equal(symlink(outside, sub), 0);
	assert_int_equal(tc_write_atomic_at(dfd, "r.json", "DISPLAY", "{}", 2,
	    TC_WRITE_EXCLUSIVE, &err), 0);
	got = tc_read_file(in_moved, 0, NULL, &err);
	assert_non_null(got);
	assert_string_equal(got, "{}");
	free(got);
	assert_int_equal(access(in_outside, F_OK), -1);
	/* exclusive: a second write is refused, naming the display path */
	assert_int_equal(tc_write_atomic_at(dfd, "r.json", "DISPLAY", "[]", 2,
	    TC_WRITE_EXCLUSIVE, &err), -1);
	assert_string_equal(tc_error_msg(&err),
	    "[Errno 17] File exists: 'DISPLAY'");
	/* a name with a slash is not a name in the directory */
	assert_int_equal(tc_write_atomic_at(dfd, "a/b", "DISPLAY", "[]", 2, 0,
	    &err), -1);
	tc_error_clear(&err);
	close(dfd);
	free(sub);
	free(moved);
	free(outside);
	free(in_moved);
	free(in_outside);
}

#define FX(t) cmocka_unit_test_setup_teardown(t, fx_setup, fx_teardown)

int
main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		FX(atomic_write_creates_the_file_with_exact_content),
		FX(atomic_write_replaces_an_existing_file),
		FX(atomic_write_mode_honours_umask),
		FX(atomic_write_private_is_0600_whatever_the_umask),
		FX(exclusive_write_refuses_an_existing_file_and_leaves_it),
		FX(exclusive_write_refuses_a_dangling_symlink),
		FX(exclusive_write_creates_a_new_file),
		FX(mkdirs_flag_creates_missing_parents),
		FX(missing_parent_without_mkdirs_is_enoent_naming_the_target),
		FX(mkdirs_through_a_file_fails_naming_the_blocked_directory),
		FX(rename_onto_a_directory_fails_and_removes_the_temp),
		FX(paths_that_cannot_name_a_file_are_refused),
		FX(long_names_still_get_a_temp_file),
		FX(read_only_directory_fails_with_eacces_and_no_temp),
		FX(fault_points_kill_at_each_boundary_of_the_first_write),
		FX(fault_count_selects_the_nth_crossing),
		FX(unknown_fault_point_changes_nothing),
		FX(write_json_writes_the_pretty_form),
		FX(read_file_reports_missing_and_directories_like_python),
		FX(read_file_enforces_the_size_limit),
		FX(read_file_handles_empty_and_sizeless_files),
		FX(read_fd_reads_past_the_size_fstat_gave),
		cmocka_unit_test(read_retry_leaves_a_pipe_alone_and_keeps_errno),
		FX(mkdirs_is_idempotent_and_refuses_files_in_the_way),
		FX(open_regular_refuses_fifos_directories_and_links_without_blocking),
		FX(atomic_write_at_writes_into_the_held_directory),
		cmocka_unit_test(error_os_formats_like_python_oserror),
	};
	static char exe[4096];
	ssize_t n;

	if (argc == 4 && strcmp(argv[1], "fault-child") == 0)
		return fault_child_main(argv[2], argv[3]);
	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n <= 0)
		return 1;
	exe[n] = '\0';
	self_exe = exe;
	return cmocka_run_group_tests(tests, NULL, NULL);
}
