/*
 * holder.c - proof that an inherited lease is really held: the three
 * SUPERKERNEL_DEVICE_* markers are only environment variables, which any
 * process can set, so a runner that is told it inherits a lease also
 * checks, for every device, that the kernel has the device's lock file
 * flock'd by this process or one of its ancestors.
 *
 * The kernel lists every flock in /proc/locks with the pid that took it
 * and the inode it is on ("1: FLOCK  ADVISORY  WRITE <pid> <maj>:<min>:
 * <ino> 0 EOF"); waiters are marked "->" and do not hold anything.  The
 * inode is matched by number only: on overlay and btrfs file systems the
 * device numbers there and in stat(2) can differ, while an ancestor that
 * holds a flock on another file with the same inode number is not a
 * realistic accident.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lease_internal.h"
#include "tunectl/buf.h"
#include "tunectl/fileio.h"
#include "tunectl/lease.h"
#include "tunectl/proc.h"

#define MAX_ANCESTORS 4096

/* This process and its ancestors up to init, nearest first. */
static size_t
lineage(long *pids, size_t max)
{
	size_t n = 0;
	long pid = (long)getpid();

	while (pid > 0 && n < max) {
		pids[n++] = pid;
		pid = n == 1 ? (long)getppid() : tc_proc_parent_of(pid);
	}
	return n;
}

static bool
in_lineage(long pid, const long *pids, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (pids[i] == pid)
			return true;
	return false;
}

/* Does a line of /proc/locks say that a pid of the lineage holds a flock
 * on inode ino? */
static bool
line_holds(const char *line, unsigned long long ino, const long *pids,
    size_t n)
{
	char kind[16], mode[16];
	unsigned long long lino;
	unsigned maj, min;
	long pid;

	if (strstr(line, "->") != NULL)
		return false;		/* a waiter */
	if (sscanf(line, "%*d: %15s %*s %15s %ld %x:%x:%llu", kind, mode, &pid,
	    &maj, &min, &lino) != 6)
		return false;
	return strcmp(kind, "FLOCK") == 0 && strcmp(mode, "WRITE") == 0 &&
	    lino == ino && in_lineage(pid, pids, n);
}

int
tc_lease__check_inherited(const char *lease_root, const long *ids, size_t n,
    tc_error *err)
{
	long *pids = tc_xmalloc(MAX_ANCESTORS * sizeof(*pids));
	size_t npids = lineage(pids, MAX_ANCESTORS), i;
	tc_error rerr = TC_ERROR_INIT;
	char *locks = tc_read_file("/proc/locks", 0, NULL, &rerr);
	int rc = 0;

	if (locks == NULL) {
		tc_error_set(err, "cannot check the parent device lease: %s",
		    tc_error_msg(&rerr));
		tc_error_clear(&rerr);
		free(pids);
		return -1;
	}
	for (i = 0; i < n && rc == 0; i++) {
		char *path = tc_lease_lock_path(lease_root, ids[i]);
		struct stat st;
		bool held = false;
		char *line, *save = NULL;

		if (lstat(path, &st) == 0 && S_ISREG(st.st_mode)) {
			char *copy = tc_xstrdup(locks);

			for (line = strtok_r(copy, "\n", &save);
			    line != NULL && !held;
			    line = strtok_r(NULL, "\n", &save))
				held = line_holds(line,
				    (unsigned long long)st.st_ino, pids, npids);
			free(copy);
		}
		if (!held) {
			tc_error_set(err, "parent device lease is not held by "
			    "this process or its ancestors: device %ld", ids[i]);
			rc = -1;
		}
		free(path);
	}
	free(locks);
	free(pids);
	return rc;
}
