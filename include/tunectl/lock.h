/*
 * lock.h - exclusive advisory locks on a lock file beside a document.
 *
 * Mutating commands hold "<path>.lock" (flock, exclusive) for their whole
 * read-validate-write cycle, so two controllers never interleave writes.
 * The lock file is created on demand (0666 & ~umask) and never deleted;
 * after acquiring, the holder writes "pid <pid>\ncmdline <argv...>\n" into
 * it, for diagnostics only.  The kernel drops the lock when the holder
 * exits, so there are no stale locks to clean up.
 */
#ifndef TUNECTL_LOCK_H
#define TUNECTL_LOCK_H

#include <stdbool.h>

#include "tunectl/error.h"

typedef struct tc_lock {
	int fd;			/* -1 when not held */
	char *path;		/* the lock file, "<path>.lock" */
} tc_lock;

#define TC_LOCK_INIT { -1, NULL }
/* How the message of a lock held by someone else begins. */
#define TC_LOCK_HELD_PREFIX "another tunectl process holds the lock"
#define TC_LOCK_DEFAULT_TIMEOUT_S 30.0

/* Lock "<path>.lock", waiting at most timeout_s seconds (0 = try once),
 * polling every 50 ms.  A valid TUNECTL_LOCK_TIMEOUT (seconds, >= 0)
 * replaces a positive timeout_s; 0 always means try once.  On timeout:
 * "another tunectl process holds the lock on PATH (waited Ns)" with N
 * printed like %g.  A lock path that is not a regular file (a directory,
 * symlink, FIFO, socket or device planted there) is refused with one
 * message naming it and the fix: "lock file 'PATH.lock' is a directory,
 * not a regular file; tunectl creates it as one: remove it (rm -r
 * 'PATH.lock') ..."; any other unusable lock file gives Python's OSError
 * form.
 * Locks are per open file: a second acquire of the same path in the same
 * process waits like any other contender.  On failure lock->fd is -1. */
int tc_lock_acquire(tc_lock *lock, const char *path, double timeout_s,
    tc_error *err);
/* After open(lpath, ... O_NOFOLLOW) returned fd (or -1): false, with the
 * message above in err, when lpath is not a regular file (fd is not
 * closed); true otherwise, errno as the open left it. */
bool tc_lock_path_usable(const char *lpath, int fd, tc_error *err);
/* Release and free; safe on a lock that is not held. */
void tc_lock_release(tc_lock *lock);

#endif
