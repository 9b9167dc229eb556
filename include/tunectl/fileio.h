/*
 * fileio.h - reading files and writing them atomically and durably.
 *
 * Every file tunectl writes goes through tc_write_atomic(): a temp file
 * ".<name>.<random>.tmp" in the target's directory, write, fsync, rename,
 * fsync the directory.  The temp file is removed on any failure, so a
 * reader sees either the old file or the complete new one.
 *
 * Errors read like Python's OSError: "[Errno N] <strerror>: 'PATH'", the
 * path quoted as Python's repr() (tc_path_repr).
 */
#ifndef TUNECTL_FILEIO_H
#define TUNECTL_FILEIO_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/stat.h>

#include "tunectl/error.h"

enum {
	TC_WRITE_EXCLUSIVE = 1 << 0,	/* refuse to replace an existing file */
	TC_WRITE_MKDIRS    = 1 << 1,	/* create missing parent directories */
	TC_WRITE_PRIVATE   = 1 << 2	/* mode 0600 instead of 0666 & ~umask */
};

/*
 * Write data to path atomically.  The temp file is created O_EXCL with a
 * random suffix (getrandom), filled with a full write loop, fsync'd,
 * given its final mode with fchmod (0666 & ~umask, or 0600 with
 * TC_WRITE_PRIVATE), then renamed over path; finally the directory is
 * fsync'd.  TC_WRITE_EXCLUSIVE publishes with renameat2(RENAME_NOREPLACE)
 * (link(2) + unlink where the filesystem lacks it), so an existing file is
 * never replaced, even by a racing writer: "[Errno 17] File exists:
 * 'PATH'".  TC_WRITE_MKDIRS creates missing parents (tc_mkdirs).
 *
 * Errors name PATH (never the random temp name), e.g.
 * "[Errno 13] Permission denied: 'PATH'" -- except a TC_WRITE_MKDIRS
 * failure, which names the directory it could not create (tc_mkdirs);
 * a path ending in '/' or naming
 * "." / ".." is "[Errno 21] Is a directory: 'PATH'".  After a failure the
 * temp file is gone and the target is untouched -- except a failure of the
 * final directory fsync, reported after the new file is already in place.
 */
int tc_write_atomic(const char *path, const void *data, size_t len,
    unsigned flags, tc_error *err);

/* The same for a file name (one component) in the directory open as
 * dirfd, so that a directory swapped by someone else meanwhile cannot
 * redirect the write; display names the file in errors.  The temp file
 * is created O_NOFOLLOW in dirfd; TC_WRITE_MKDIRS does not apply. */
int tc_write_atomic_at(int dirfd, const char *name, const char *display,
    const void *data, size_t len, unsigned flags, tc_error *err);

/* Writing a JSON document: tc_write_json() in tunectl/json.h. */

/*
 * Open a file for reading the way every reader of tunectl does, so that
 * nothing a worker plants where a document belongs can block or redirect
 * the command: O_RDONLY | O_NONBLOCK (opening a FIFO never waits for a
 * writer) | O_NOCTTY | O_CLOEXEC, plus O_NOFOLLOW with TC_OPEN_NOFOLLOW;
 * then fstat.  A directory fails with EISDIR; a FIFO, socket or device
 * (anything but a regular file) with ESPIPE, Python's "[Errno 29]
 * Illegal seek" for a pipe.  The returned descriptor keeps O_NONBLOCK,
 * which Linux ignores for a regular file (no fcntl per document); a
 * reader retries a failed read with tc_read_retry.
 * name is relative to dirfd (AT_FDCWD: an ordinary path).  Returns the
 * descriptor, or -1 with errno set; callers word the error.
 */
enum { TC_OPEN_NOFOLLOW = 1 << 0 };
int tc_open_regular_at(int dirfd, const char *name, unsigned flags);
/* The same, leaving the descriptor's fstat in *st (a reader sizes its
 * buffer from it instead of asking again). */
int tc_open_regular_stat_at(int dirfd, const char *name, unsigned flags,
    struct stat *st);

/* After a read(2) failed: true when it is to be retried (EINTR; EAGAIN
 * of a regular file, after clearing the O_NONBLOCK tc_open_regular_at
 * left), false with errno kept otherwise. */
bool tc_read_retry(int fd, bool regular);

/* The most a whole-file read takes by default: 1 GiB (the JSON reader's
 * limit, TC_JSON_MAX_BYTES, is this one). */
#define TC_READ_MAX_BYTES	((size_t)1 << 30)

/* Read a whole file (at most max_bytes; 0 = TC_READ_MAX_BYTES).  The
 * result is NUL-terminated and malloc'd; *len (when len is not NULL) gets
 * the size without the NUL.  Errors: Python's open()/read() messages
 * ("[Errno 2] No such file or directory: 'PATH'", a directory is
 * "[Errno 21] Is a directory: 'PATH'"); anything but a regular file is
 * refused without blocking (tc_open_regular_at: "[Errno 29] Illegal
 * seek: 'PATH'"); a file over the limit is
 * "file is too large: 'PATH' (more than N bytes)". */
char *tc_read_file(const char *path, size_t max_bytes, size_t *len,
    tc_error *err);
/* The same for an open descriptor (read to EOF, not closed); path names
 * the file in messages. */
char *tc_read_fd(int fd, const char *path, size_t max_bytes, size_t *len,
    tc_error *err);

/* Copy the rest of in (from its offset to EOF) to out: sendfile where
 * the kernel takes these descriptors, else read and write.  0, or -1
 * with errno. */
int tc_copy_fd(int in, int out);

/* mkdir -p (mode 0777 & ~umask), like os.makedirs(exist_ok=True): an
 * existing directory (or a symlink to one) is fine; a non-directory in the
 * way is "[Errno 17] File exists: 'PATH'" or "[Errno 20] Not a directory:
 * 'PATH'" naming the prefix that failed. */
int tc_mkdirs(const char *path, tc_error *err);

/* A fresh private directory "$TMPDIR/<prefix>.XXXXXX" ($TMPDIR or /tmp);
 * malloc'd, or NULL with the OS error in err.  The caller removes it. */
char *tc_make_temp_dir(const char *prefix, tc_error *err);

/* Store Python's OSError text for errno errnum and path in err:
 * "[Errno 2] No such file or directory: 'path'". */
void tc_error_os(tc_error *err, int errnum, const char *path);

/*
 * Crash-consistency fault injection for tests.  A no-op in the production
 * library; in test builds (TUNECTL_TEST_HOOKS: the library the unit tests
 * link, and build/tunectl-test) it reads the environment variable
 * TUNECTL_FAULT_POINT once per process.  When it names
 * a boundary and TUNECTL_FAULT_COUNT=N (default 1), the Nth crossing of
 * that boundary in this process raises SIGKILL.  tc_write_atomic crosses,
 * once per call and in this order:
 *   "write"    temp file created, nothing written yet
 *   "fsync"    data written, not yet fsync'd
 *   "rename"   temp file durable, not yet published at PATH
 *   "dirsync"  published at PATH, directory not yet fsync'd
 * so a kill at "write"/"fsync"/"rename" leaves the old file (plus a stray
 * ".<name>.*.tmp"), and a kill at "dirsync" leaves the new one.
 */
void tc_fault_point(const char *name);

bool tc_path_exists(const char *path);		/* lstat succeeds */
bool tc_is_regular_file(const char *path);	/* stat (follows) */
bool tc_is_directory(const char *path);		/* stat (follows) */
/* lstat: a regular file, and not a symlink to one. */
bool tc_is_regular_file_nofollow(const char *path);

#endif
