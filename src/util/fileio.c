/*
 * fileio.c - reading whole files, copying the rest of a descriptor,
 * mkdir -p, existence tests, and the Python OSError message form every
 * I/O error uses.  Atomic writes are in atomic.c, fault injection in
 * fault.c.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/sendfile.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tunectl/buf.h"
#include "tunectl/fileio.h"
#include "tunectl/heap.h"
#include "tunectl/path.h"

void
tc_error_os(tc_error *err, int errnum, const char *path)
{
	tc_buf q = TC_BUF_INIT;

	if (err == NULL)
		return;
	tc_path_repr(&q, path);
	tc_error_set(err, "[Errno %d] %s: %s", errnum, strerror(errnum),
	    tc_buf_cstr(&q));
	tc_buf_free(&q);
}

int
tc_open_regular_stat_at(int dirfd, const char *name, unsigned flags,
    struct stat *st)
{
	int fd, e;

	do
		fd = openat(dirfd, name, O_RDONLY | O_NONBLOCK | O_NOCTTY |
		    O_CLOEXEC | ((flags & TC_OPEN_NOFOLLOW) ? O_NOFOLLOW : 0));
	while (fd < 0 && errno == EINTR);
	if (fd < 0)
		return -1;
	if (fstat(fd, st) != 0) {
		e = errno;
		goto fail;
	}
	if (S_ISDIR(st->st_mode)) {
		e = EISDIR;
		goto fail;
	}
	if (!S_ISREG(st->st_mode)) {
		e = ESPIPE;
		goto fail;
	}
	/* O_NONBLOCK stays: Linux ignores it for a regular file's read
	 * (no fcntl to clear it, one system call per document); a reader
	 * that meets EAGAIN anyway clears it then (tc_read_retry). */
	return fd;
fail:
	close(fd);
	errno = e;
	return -1;
}

int
tc_open_regular_at(int dirfd, const char *name, unsigned flags)
{
	struct stat st;

	return tc_open_regular_stat_at(dirfd, name, flags, &st);
}

bool
tc_read_retry(int fd, bool regular)
{
	int e = errno;

	if (e == EINTR)
		return true;
	/* A regular file opened O_NONBLOCK by tc_open_regular_at: where a
	 * filesystem honours the flag, wait as a blocking read would.  (A
	 * pipe's or terminal's flags are its owner's: left alone.) */
	if (regular && (e == EAGAIN || e == EWOULDBLOCK) &&
	    fcntl(fd, F_SETFL, 0) == 0)
		return true;
	errno = e;
	return false;
}

/* tc_read_fd with the descriptor's fstat already made. */
static char *
read_fd_stat(int fd, const struct stat *st, const char *path,
    size_t max_bytes, size_t *len, tc_error *err)
{
	tc_buf b = TC_BUF_INIT;
	size_t sized = 0;

	if (max_bytes == 0)
		max_bytes = TC_READ_MAX_BYTES;
	/* st_size is only a hint (procfs reports 0, files grow): read to EOF
	 * and enforce the limit on what actually arrives. */
	if (S_ISREG(st->st_mode) && st->st_size > 0 &&
	    (uint64_t)st->st_size <= max_bytes) {
		sized = (size_t)st->st_size;
		tc_heap_expect(sized);
		/* room for one byte more than fstat said, and the NUL */
		tc_buf_grow(&b, sized + 2);
	}
	for (;;) {
		size_t room;
		ssize_t n;

		if (b.data == NULL || b.cap - b.len - 1 == 0)
			tc_buf_grow(&b, 65536);
		room = b.cap - b.len - 1;
		if (max_bytes - b.len < room)
			room = max_bytes - b.len + 1;	/* one byte over shows excess */
		n = read(fd, b.data + b.len, room);
		if (n < 0) {
			if (tc_read_retry(fd, S_ISREG(st->st_mode)))
				continue;
			tc_error_os(err, errno, path);
			goto fail;
		}
		if (n == 0)
			break;
		b.len += (size_t)n;
		b.data[b.len] = '\0';
		/* A short read that ends where fstat put the end is EOF: no
		 * read of 0 bytes to hear it again (more bytes than that, a
		 * file growing, are still read to EOF and the limit). */
		if (b.len == sized && (size_t)n < room)
			break;
		if (b.len > max_bytes) {
			tc_buf q = TC_BUF_INIT;

			tc_path_repr(&q, path);
			tc_error_set(err, "file is too large: %s (more than %zu "
			    "bytes)", tc_buf_cstr(&q), max_bytes);
			tc_buf_free(&q);
			goto fail;
		}
	}
	return tc_buf_detach(&b, len);
fail:
	tc_buf_free(&b);
	return NULL;
}

char *
tc_read_fd(int fd, const char *path, size_t max_bytes, size_t *len,
    tc_error *err)
{
	struct stat st;

	if (fstat(fd, &st) != 0) {
		tc_error_os(err, errno, path);
		return NULL;
	}
	return read_fd_stat(fd, &st, path, max_bytes, len, err);
}

char *
tc_read_file(const char *path, size_t max_bytes, size_t *len, tc_error *err)
{
	struct stat st;
	char *text;
	int fd = tc_open_regular_stat_at(AT_FDCWD, path, 0, &st);

	if (fd < 0) {
		tc_error_os(err, errno, path);
		return NULL;
	}
	text = read_fd_stat(fd, &st, path, max_bytes, len, err);
	close(fd);
	return text;
}

int
tc_copy_fd(int in, int out)
{
	char buf[65536];
	bool plain = false;	/* sendfile refused these descriptors */

	for (;;) {
		ssize_t n, w, off;

		if (!plain) {
			n = sendfile(out, in, NULL, (size_t)1 << 30);
			if (n > 0)
				continue;
			if (n == 0)
				return 0;
			if (errno == EINTR)
				continue;
			if (errno != EINVAL && errno != ENOSYS)
				return -1;
			plain = true;
		}
		if ((n = read(in, buf, sizeof(buf))) < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		if (n == 0)
			return 0;
		for (off = 0; off < n; off += w)
			if ((w = write(out, buf + off, (size_t)(n - off))) < 0) {
				if (errno != EINTR)
					return -1;
				w = 0;
			}
	}
}

static int
mkdir_one(const char *dir, tc_error *err)
{
	struct stat st;
	int e;

	if (mkdir(dir, 0777) == 0)
		return 0;
	e = errno;
	/* Like os.makedirs(exist_ok=True): fine if a directory is there
	 * (also through a symlink), whatever mkdir said. */
	if (stat(dir, &st) == 0 && S_ISDIR(st.st_mode))
		return 0;
	tc_error_os(err, e, dir);
	return -1;
}

char *
tc_make_temp_dir(const char *prefix, tc_error *err)
{
	const char *tmp = getenv("TMPDIR");
	char *dir = tc_xasprintf("%s/%s.XXXXXX", tmp != NULL && *tmp != '\0' ?
	    tmp : "/tmp", prefix);

	if (mkdtemp(dir) == NULL) {
		tc_error_os(err, errno, dir);
		free(dir);
		return NULL;
	}
	return dir;
}

/* As os.makedirs, stat-ing every prefix from the top: create the prefixes
 * that do not exist (whatever is there otherwise fails later, naming the
 * first path mkdir could not create), then the path itself.  norm is
 * normalised and restored. */
static int
mkdirs_walk(char *norm, tc_error *err)
{
	char *p;
	int rc = 0;

	for (p = norm; *p == '/'; p++)
		;
	while (*p != '\0') {
		char *slash = strchr(p, '/');
		struct stat st;

		if (slash == NULL) {
			rc = mkdir_one(norm, err);
			break;
		}
		*slash = '\0';
		if (stat(norm, &st) != 0 && (rc = mkdir_one(norm, err)) != 0) {
			*slash = '/';
			break;
		}
		*slash = '/';
		p = slash + 1;
	}
	return rc;
}

/* From the bottom up: most calls find the directory there, or only its
 * last few components missing, and mkdir says which without a stat of
 * every prefix.  Anything but "missing" or "there" is left to
 * mkdirs_walk, so that failures name what they did before. */
static int
mkdirs_up(char *norm, tc_error *err)
{
	char *slash;
	struct stat st;
	int rc;

	if (mkdir(norm, 0777) == 0 || (errno == EEXIST &&
	    stat(norm, &st) == 0 && S_ISDIR(st.st_mode)))
		return 0;
	if (errno != ENOENT || (slash = strrchr(norm, '/')) == NULL ||
	    slash == norm)
		return mkdirs_walk(norm, err);
	*slash = '\0';
	rc = mkdirs_up(norm, err);
	*slash = '/';
	return rc != 0 ? rc : mkdir_one(norm, err);
}

int
tc_mkdirs(const char *path, tc_error *err)
{
	char *norm = tc_path_normalize(path);
	int rc = mkdirs_up(norm, err);

	free(norm);
	return rc;
}

bool
tc_path_exists(const char *path)
{
	struct stat st;

	return lstat(path, &st) == 0;
}

bool
tc_is_regular_file(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

bool
tc_is_regular_file_nofollow(const char *path)
{
	struct stat st;

	return lstat(path, &st) == 0 && S_ISREG(st.st_mode);
}

bool
tc_is_directory(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}
