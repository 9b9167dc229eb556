/*
 * lock.h - exclusive advisory locks on a lock file beside a document.
 *
 * Mutating commands hold "<path>.lock" (flock, exclusive) for their whole
 * read-validate-write cycle, so two controllers never interleave writes.
 */
#ifndef TUNECTL_LOCK_H
#define TUNECTL_LOCK_H

#include "tunectl/error.h"

typedef struct tc_lock {
	int fd;
	char *path;
} tc_lock;

#define TC_LOCK_DEFAULT_TIMEOUT_S 30.0

/* Lock "<path>.lock", waiting at most timeout_s seconds (0 = try once).
 * The wait can be overridden by TUNECTL_LOCK_TIMEOUT (seconds).  On
 * timeout: "another tunectl process holds the lock on PATH (waited Ns)". */
int tc_lock_acquire(tc_lock *lock, const char *path, double timeout_s,
    tc_error *err);
void tc_lock_release(tc_lock *lock);

#endif
