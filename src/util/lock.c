/*
 * lock.c - "<path>.lock" advisory locks: flock(LOCK_EX | LOCK_NB) polled
 * until a deadline on the monotonic clock, holder details written into
 * the lock file for whoever is left waiting.
 */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "tunectl/buf.h"
#include "tunectl/fileio.h"
#include "tunectl/lock.h"
#include "tunectl/timeutil.h"

#define POLL_NS	50000000L	/* 50 ms, as the reference's lease loop */

static double
effective_timeout(double timeout_s)
{
	const char *env = getenv("TUNECTL_LOCK_TIMEOUT");
	char *end;
	double v;

	/* "Try once" is a decision of the caller (run-next's one-runner
	 * rule), not a default the environment may stretch. */
	if (!(timeout_s > 0))		/* also NaN */
		return 0;
	if (env != NULL && *env != '\0') {
		v = strtod(env, &end);
		if (end != env && *end == '\0' && isfinite(v) && v >= 0)
			return v < 1e9 ? v : 1e9;
	}
	return timeout_s < 1e9 ? timeout_s : 1e9;	/* ~31 years */
}

/* Informational: who holds the lock.  Failures are ignored. */
static void
write_holder(int fd)
{
	tc_buf b = TC_BUF_INIT;
	char chunk[4096];
	ssize_t n;
	size_t i, start;
	int cfd;

	tc_buf_printf(&b, "pid %ld\ncmdline", (long)getpid());
	start = b.len;
	cfd = open("/proc/self/cmdline", O_RDONLY | O_CLOEXEC);
	if (cfd >= 0) {
		while ((n = read(cfd, chunk, sizeof(chunk))) > 0 &&
		    b.len - start < 65536) {
			tc_buf_putc(&b, ' ');
			for (i = 0; i < (size_t)n; i++)
				tc_buf_putc(&b, chunk[i] == '\0' ? ' ' :
				    chunk[i] == '\n' ? ' ' : chunk[i]);
		}
		close(cfd);
	}
	while (b.len > start && b.data[b.len - 1] == ' ')
		b.data[--b.len] = '\0';
	tc_buf_putc(&b, '\n');
	if (ftruncate(fd, 0) == 0 && pwrite(fd, b.data, b.len, 0) < 0)
		b.len = 0;	/* nothing to do: the content is advisory */
	tc_buf_free(&b);
}

static const char *
kind_of(mode_t m)
{
	return S_ISDIR(m) ? "a directory" : S_ISLNK(m) ? "a symbolic link" :
	    S_ISFIFO(m) ? "a FIFO" : S_ISSOCK(m) ? "a socket" :
	    S_ISCHR(m) || S_ISBLK(m) ? "a device" : "not a regular file";
}

/* A lock path that is not a regular file (a worker may plant anything
 * there) stops every later command until someone removes it: say so
 * once, with the path and the fix, instead of the open's errno. */
bool
tc_lock_path_usable(const char *lpath, int fd, tc_error *err)
{
	struct stat st;
	int saved = errno;

	if (fd >= 0 ? fstat(fd, &st) != 0 : lstat(lpath, &st) != 0) {
		errno = saved;
		return true;
	}
	if (S_ISREG(st.st_mode)) {
		errno = saved;
		return true;
	}
	tc_error_set(err, "lock file '%s' is %s, not a regular file; tunectl "
	    "creates it as one: remove it (rm -r '%s'), after checking that "
	    "it holds nothing you need, and run the command again", lpath,
	    kind_of(st.st_mode), lpath);
	return false;
}

int
tc_lock_acquire(tc_lock *lock, const char *path, double timeout_s,
    tc_error *err)
{
	double wait = effective_timeout(timeout_s);
	uint64_t start = tc_monotonic_ns();
	uint64_t deadline = start + (uint64_t)(wait * 1e9);
	char *lpath = tc_xasprintf("%s.lock", path);
	int fd;

	lock->fd = -1;
	lock->path = NULL;
	/* O_NOFOLLOW: the lock file lives where workers can write; a
	 * symlink planted there must not make us truncate its target, nor a
	 * FIFO block the open. */
	do
		fd = open(lpath, O_RDWR | O_CREAT | O_CLOEXEC | O_NOCTTY |
		    O_NOFOLLOW | O_NONBLOCK, 0666);
	while (fd < 0 && errno == EINTR);
	if (!tc_lock_path_usable(lpath, fd, err)) {
		if (fd >= 0)
			close(fd);
		free(lpath);
		return -1;
	}
	if (fd < 0) {
		tc_error_os(err, errno, lpath);
		free(lpath);
		return -1;
	}
	for (;;) {
		struct timespec ts = { 0, POLL_NS };
		uint64_t now;

		if (flock(fd, LOCK_EX | LOCK_NB) == 0)
			break;
		if (errno != EWOULDBLOCK && errno != EINTR) {
			tc_error_os(err, errno, lpath);
			goto fail;
		}
		now = tc_monotonic_ns();
		if (now >= deadline) {
			tc_error_set(err, TC_LOCK_HELD_PREFIX " on %s (waited "
			    "%gs)", path, wait);
			goto fail;
		}
		if ((uint64_t)ts.tv_nsec > deadline - now)
			ts.tv_nsec = (long)(deadline - now);
		nanosleep(&ts, NULL);
	}
	write_holder(fd);
	lock->fd = fd;
	lock->path = lpath;
	return 0;
fail:
	close(fd);
	free(lpath);
	return -1;
}

void
tc_lock_release(tc_lock *lock)
{
	if (lock->fd >= 0) {
		flock(lock->fd, LOCK_UN);
		close(lock->fd);
	}
	lock->fd = -1;
	free(lock->path);
	lock->path = NULL;
}
