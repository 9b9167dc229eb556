/*
 * atomic.c - tc_write_atomic: the one way tunectl writes a
 * file.  Temp file in the target's directory, full write, fchmod, fsync,
 * rename (or a no-replace publish for sealed evidence), fsync the
 * directory.  Every failure before the publish removes the temp file.
 * Everything happens relative to the directory's descriptor
 * (tc_write_atomic_at), so a caller that holds a directory open writes
 * into exactly that directory.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "tunectl/buf.h"
#include "tunectl/fileio.h"
#include "tunectl/path.h"

#define TEMP_ATTEMPTS	100
#define NAME_MAX_BYTES	255
#define TEMP_EXTRA	22	/* "." + "." + 16 hex + ".tmp" */

static void
random_bytes(unsigned char *buf, size_t n)
{
	static unsigned long counter;
	size_t got = 0;
	int fd;

	while (got < n) {
		ssize_t r = getrandom(buf + got, n - got, GRND_NONBLOCK);

		if (r <= 0)
			break;
		got += (size_t)r;
	}
	if (got == n)
		return;
	fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC);
	if (fd >= 0) {
		while (got < n) {
			ssize_t r = read(fd, buf + got, n - got);

			if (r <= 0)
				break;
			got += (size_t)r;
		}
		close(fd);
	}
	if (got < n) {
		/* O_EXCL still guarantees uniqueness; this only has to
		 * differ between attempts. */
		struct timespec ts;
		uint64_t x;

		clock_gettime(CLOCK_MONOTONIC, &ts);
		x = (uint64_t)ts.tv_nsec ^ ((uint64_t)getpid() << 32) ^
		    ++counter;
		for (; got < n; got++, x >>= 8)
			buf[got] = (unsigned char)x;
	}
}

/* The process umask.  Reading it means setting it; tunectl is single-
 * threaded, so the brief window with umask 0 affects nothing. */
static mode_t
current_umask(void)
{
	mode_t m = umask(0);

	umask(m);
	return m;
}

static int
write_all(int fd, const void *data, size_t len)
{
	const char *p = data;

	while (len > 0) {
		ssize_t n = write(fd, p, len);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

/* Create ".<base>.<16 hex>.tmp" in dirfd; returns the fd, *tmp (the
 * name in dirfd) malloc'd. */
static int
create_temp(int dirfd, const char *base, char **tmp)
{
	int i, fd = -1, e = EEXIST;
	int baselen = (int)strlen(base);

	if (baselen > NAME_MAX_BYTES - TEMP_EXTRA)
		baselen = NAME_MAX_BYTES - TEMP_EXTRA;
	for (i = 0; i < TEMP_ATTEMPTS; i++) {
		unsigned char r[8];

		random_bytes(r, sizeof(r));
		*tmp = tc_xasprintf(".%.*s.%02x%02x%02x%02x%02x%02x%02x%02x"
		    ".tmp", baselen, base, r[0], r[1], r[2], r[3], r[4],
		    r[5], r[6], r[7]);
		fd = openat(dirfd, *tmp, O_WRONLY | O_CREAT | O_EXCL |
		    O_CLOEXEC | O_NOFOLLOW | O_NOCTTY, 0600);
		if (fd >= 0)
			return fd;
		e = errno;
		free(*tmp);
		*tmp = NULL;
		if (e != EEXIST && e != EINTR)
			break;
	}
	errno = e;
	return -1;
}

/* Publish tmp as name (both in dirfd) without ever replacing an existing
 * file. */
static int
publish_exclusive(int dirfd, const char *tmp, const char *name)
{
	int e;

	if (renameat2(dirfd, tmp, dirfd, name, RENAME_NOREPLACE) == 0)
		return 0;
	if (errno != EINVAL && errno != ENOSYS && errno != EOPNOTSUPP)
		return -1;
	/* Filesystems without RENAME_NOREPLACE: link(2) refuses to
	 * overwrite as well. */
	if (linkat(dirfd, tmp, dirfd, name, 0) != 0)
		return -1;
	if (unlinkat(dirfd, tmp, 0) != 0) {
		e = errno;
		unlinkat(dirfd, name, 0);
		errno = e;
		return -1;
	}
	return 0;
}

static int
sync_directory(int dirfd)
{
	int fd = openat(dirfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	int rc = 0;

	if (fd < 0)
		return errno == EACCES ? 0 : -1;	/* nothing we can sync */
	if (fsync(fd) != 0 && errno != EINVAL && errno != EROFS)
		rc = -1;
	if (rc != 0) {
		int e = errno;

		close(fd);
		errno = e;
		return -1;
	}
	close(fd);
	return 0;
}

/* Paths that cannot name a file to create: "", "x/", ".", "..". */
static int
check_target(const char *path)
{
	const char *name;
	size_t n = strlen(path);

	if (n == 0)
		return ENOENT;
	if (path[n - 1] == '/')
		return EISDIR;
	name = strrchr(path, '/');
	name = name != NULL ? name + 1 : path;
	if (strcmp(name, ".") == 0 || strcmp(name, "..") == 0)
		return EISDIR;
	return 0;
}

int
tc_write_atomic_at(int dirfd, const char *name, const char *display,
    const void *data, size_t len, unsigned flags, tc_error *err)
{
	struct stat st;
	char *tmp = NULL;
	mode_t mode;
	int fd = -1, e;

	if ((e = check_target(name)) != 0 || strchr(name, '/') != NULL) {
		tc_error_os(err, e != 0 ? e : EINVAL, display);
		return -1;
	}
	if ((flags & TC_WRITE_EXCLUSIVE) &&
	    fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) == 0) {
		tc_error_os(err, EEXIST, display);
		return -1;
	}
	mode = (flags & TC_WRITE_PRIVATE) ? 0600 : (0666 & ~current_umask());
	if ((fd = create_temp(dirfd, name, &tmp)) < 0)
		goto fail_errno;
	tc_fault_point("write");
	if (write_all(fd, data, len) != 0 || fchmod(fd, mode) != 0)
		goto fail_errno;
	tc_fault_point("fsync");
	if (fsync(fd) != 0)
		goto fail_errno;
	e = close(fd);
	fd = -1;
	if (e != 0)
		goto fail_errno;
	tc_fault_point("rename");
	if ((flags & TC_WRITE_EXCLUSIVE) ? publish_exclusive(dirfd, tmp,
	    name) != 0 : renameat(dirfd, tmp, dirfd, name) != 0)
		goto fail_errno;
	free(tmp);
	tmp = NULL;
	tc_fault_point("dirsync");
	if (sync_directory(dirfd) != 0)
		goto fail_errno;
	return 0;

fail_errno:
	tc_error_os(err, errno, display);
	if (fd >= 0)
		close(fd);
	if (tmp != NULL) {
		unlinkat(dirfd, tmp, 0);
		free(tmp);
	}
	return -1;
}

int
tc_write_atomic(const char *path, const void *data, size_t len,
    unsigned flags, tc_error *err)
{
	char *dir, *norm;
	int dirfd, e, rc = -1;

	if ((e = check_target(path)) != 0) {
		tc_error_os(err, e, path);
		return -1;
	}
	norm = tc_path_normalize(path);
	dir = tc_path_dirname(norm);
	if ((flags & TC_WRITE_MKDIRS) && tc_mkdirs(dir, err) != 0)
		goto out;
	/* O_PATH: a directory we may write but not list works as well */
	if ((dirfd = open(dir, O_PATH | O_DIRECTORY | O_CLOEXEC)) < 0) {
		tc_error_os(err, errno, path);
		goto out;
	}
	rc = tc_write_atomic_at(dirfd, tc_path_basename(norm), path, data,
	    len, flags & ~TC_WRITE_MKDIRS, err);
	close(dirfd);
out:
	free(dir);
	free(norm);
	return rc;
}
