/*
 * queue.c - the arrival-order queue in front of each device lock.
 *
 * flock(2) makes no promise about which of several waiters gets a lock
 * next, so under contention one request could starve.  Each device has a
 * queue directory "<root>/npu-device-<id>.queue/" holding one ticket file
 * per waiter, named by a zero-padded sequence number one above the
 * highest ticket present.  Tickets are created, and flock'd LOCK_EX by
 * their owner before they appear under their ticket name, while the
 * directory itself is flock'd; every scan of the directory happens under
 * that lock too, so a ticket a scan (or "lease status") can see is held
 * by a live waiter or was left by a dead one.
 *
 * A waiter blocks on a shared flock of its predecessor's ticket (the
 * highest sequence number below its own).  That returns when the
 * predecessor took the device (it unlinks, then closes its ticket), gave
 * up, or died.  A predecessor's ticket that is still linked once its lock
 * is free belongs to a dead waiter and is removed.  A waiter with no
 * predecessor is at the head: it alone waits on the device lock, so the
 * device goes to waiters in ticket order.
 *
 * An uncontended request skips the queue: when the device lock is free
 * and no ticket is queued, it simply keeps the lock (no file is created).
 * A request that finds the lock free but tickets queued lets go and
 * queues, so a waiter about to be woken is never overtaken.
 *
 * Processes that take the device lock without the queue (the reference's
 * runner) still exclude each other correctly; they are just not ordered.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lease_internal.h"
#include "tunectl/buf.h"
#include "tunectl/fileio.h"
#include "tunectl/lease.h"
#include "tunectl/timeutil.h"

char *
tc_lease__queue_path(const char *lease_root, long device_id)
{
	return tc_xasprintf("%s/npu-device-%ld.queue", lease_root, device_id);
}

/*
 * A ticket name is exactly 20 decimal digits naming 1 .. TICKET_MAX, so
 * that one above the highest ticket can never overflow; and a ticket is
 * a regular file.  Anything else in the directory (a subdirectory, FIFO
 * or symlink named like a ticket, a number past 2^64) is not a ticket:
 * it is never waited on, opened or removed, so it can neither hang nor
 * spin a waiter.
 */
#define TICKET_MAX 9999999999999999999ULL	/* 10^19 - 1: a leading '0' */

static bool
ticket_seq(const char *name, unsigned long long *seq)
{
	unsigned long long v = 0;
	size_t i;

	for (i = 0; name[i] != '\0'; i++) {
		if (name[i] < '0' || name[i] > '9' || i >= 20)
			return false;
		v = v * 10 + (unsigned long long)(name[i] - '0');
	}
	/* 20 digits with a leading '0' cannot overflow */
	if (i != 20 || name[0] != '0' || v == 0)
		return false;
	*seq = v;
	return true;
}

static bool
is_ticket(int dirfd, const char *name, unsigned long long *seq)
{
	struct stat st;

	return ticket_seq(name, seq) &&
	    fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
	    S_ISREG(st.st_mode);
}

/* Highest ticket below limit (or overall when limit is 0).  Returns
 * false when there is none.  names_only counts every ticket-shaped name
 * whatever it is, so that a new ticket is numbered above them all. */
static bool
scan(DIR *dir, unsigned long long limit, bool names_only,
    unsigned long long *found)
{
	struct dirent *de;
	bool any = false;

	rewinddir(dir);
	while ((de = readdir(dir)) != NULL) {
		unsigned long long seq;

		if (names_only ? !ticket_seq(de->d_name, &seq) :
		    !is_ticket(dirfd(dir), de->d_name, &seq))
			continue;
		if (limit != 0 && seq >= limit)
			continue;
		if (!any || seq > *found)
			*found = seq;
		any = true;
	}
	return any;
}

static int
lock_dir(tc_lease_ticket *t, const char *path, uint64_t deadline,
    tc_error *err)
{
	int errnum = 0;
	int rc = tc_lease__flock_until(t->dirfd, LOCK_EX, deadline, &errnum);

	if (rc < 0)
		tc_error_os(err, errnum, path);
	return rc;
}

static void
unlock_dir(tc_lease_ticket *t)
{
	flock(t->dirfd, LOCK_UN);
}

static int
open_queue(tc_lease_ticket *t, const char *path, tc_error *err)
{
	int fd;

	if (mkdir(path, 0777) != 0 && errno != EEXIST) {
		tc_error_os(err, errno, path);
		return -1;
	}
	t->dirfd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (t->dirfd < 0) {
		tc_error_os(err, errno, path);
		return -1;
	}
	fd = openat(t->dirfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0 || (t->dir = fdopendir(fd)) == NULL) {
		tc_error_os(err, errno, path);
		if (fd >= 0)
			close(fd);
		return -1;
	}
	return 0;
}

/*
 * The name a ticket is prepared under.  It is not ticket-shaped, so scans
 * and "tunectl lease status" pass over it; one can be left behind only by
 * a waiter that died between creating and publishing its ticket, and the
 * next waiter (under the same directory lock) removes it.
 */
#define TICKET_DRAFT ".ticket-draft"

/*
 * Under the directory lock: create our ticket, already locked.  The file
 * is made, flock'd and filled under the draft name and only then linked
 * under its ticket name, so no ticket is ever visible unlocked.  A ticket
 * created in place would be: "lease status" (which takes no directory
 * lock) probes each ticket with a non-blocking shared flock, and a probe
 * landing between the ticket's creation and its owner's flock made that
 * flock fail, so the waiter gave up with a lock error, no manifest and
 * its command never run.
 */
static int
create_ticket(tc_lease_ticket *t, const char *path, const char *command_id,
    tc_error *err)
{
	unsigned long long top = 0;
	char ts[40];
	char *info;
	size_t len;
	tc_json *doc;

	if (scan(t->dir, 0, true, &top) && top >= TICKET_MAX) {
		tc_error_set(err, "device queue has no ticket number left: %s",
		    path);
		return -1;
	}
	t->seq = top + 1;
	snprintf(t->name, sizeof(t->name), "%020llu", t->seq);
	unlinkat(t->dirfd, TICKET_DRAFT, 0);
	t->fd = openat(t->dirfd, TICKET_DRAFT,
	    O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666);
	if (t->fd < 0 || flock(t->fd, LOCK_EX | LOCK_NB) != 0)
		goto fail;
	/* Informational, for "tunectl lease status"; the ticket works
	 * without it, so a failed write is not an error. */
	tc_lease_timestamp(ts);
	doc = tc_json_new_object();
	tc_json_object_set_int(doc, "pid", (int64_t)getpid());
	tc_json_object_set_string(doc, "queued_at", ts);
	if (command_id != NULL)
		tc_json_object_set_string(doc, "command_id", command_id);
	if ((info = tc_json_canonical(doc, &len, NULL)) != NULL) {
		ssize_t w = write(t->fd, info, len);

		(void)w;
		free(info);
	}
	tc_json_free(doc);
	if (linkat(t->dirfd, TICKET_DRAFT, t->dirfd, t->name, 0) != 0)
		goto fail;
	unlinkat(t->dirfd, TICKET_DRAFT, 0);
	return 0;
fail:
	{
		int saved = errno;
		char *p = tc_xasprintf("%s/%s", path, t->name);

		tc_error_os(err, saved, p);
		free(p);
	}
	if (t->fd >= 0) {
		unlinkat(t->dirfd, TICKET_DRAFT, 0);
		close(t->fd);
		t->fd = -1;
	}
	return -1;
}

void
tc_lease__queue_leave(tc_lease_ticket *t)
{
	if (t->fd >= 0) {
		unlinkat(t->dirfd, t->name, 0);
		close(t->fd);
		t->fd = -1;
	}
	if (t->dir != NULL) {
		closedir(t->dir);
		t->dir = NULL;
	}
	if (t->dirfd >= 0) {
		close(t->dirfd);
		t->dirfd = -1;
	}
}

/* After the predecessor's lock came free: remove its ticket if it is
 * still the same file (its owner died holding it). */
static void
reap_if_stale(tc_lease_ticket *t, const char *name, const struct stat *seen)
{
	struct stat now;

	if (fstatat(t->dirfd, name, &now, AT_SYMLINK_NOFOLLOW) == 0 &&
	    now.st_ino == seen->st_ino && now.st_dev == seen->st_dev)
		unlinkat(t->dirfd, name, 0);
}

int
tc_lease__queue_wait(const char *lease_root, long device_id,
    const char *command_id, uint64_t deadline_ns, tc_lease_ticket *t,
    tc_error *err)
{
	char *path = tc_lease__queue_path(lease_root, device_id);
	bool have_ticket = false;
	int rc;

	if (open_queue(t, path, err) != 0)
		goto fail;
	for (bool first = true;; first = false) {
		unsigned long long pred;
		char pred_name[24];
		struct stat st;
		int pfd, errnum = 0;

		/* Every retry is bounded by the deadline: whatever is in the
		 * directory, a waiter never loops past it. */
		if (!first && tc_monotonic_ns() >= deadline_ns) {
			rc = 1;
			goto out_rc;
		}
		if ((rc = lock_dir(t, path, deadline_ns, err)) != 0)
			goto out_rc;
		if (!have_ticket) {
			if (create_ticket(t, path, command_id, err) != 0) {
				unlock_dir(t);
				goto fail;
			}
			have_ticket = true;
		}
		if (!scan(t->dir, t->seq, false, &pred)) {
			unlock_dir(t);
			free(path);
			return 0;		/* at the head */
		}
		snprintf(pred_name, sizeof(pred_name), "%020llu", pred);
		pfd = tc_open_regular_at(t->dirfd, pred_name, TC_OPEN_NOFOLLOW);
		if (pfd < 0) {
			unlock_dir(t);
			/* gone, or swapped for something that is no ticket
			 * since the scan: look again */
			if (errno == ENOENT || errno == ESPIPE ||
			    errno == EISDIR || errno == ELOOP)
				continue;
			tc_error_os(err, errno, path);
			goto fail;
		}
		if (fstat(pfd, &st) != 0) {
			tc_error_os(err, errno, path);
			close(pfd);
			unlock_dir(t);
			goto fail;
		}
		unlock_dir(t);
		rc = tc_lease__flock_until(pfd, LOCK_SH, deadline_ns, &errnum);
		if (rc == 0) {
			if ((rc = lock_dir(t, path, deadline_ns, err)) == 0) {
				reap_if_stale(t, pred_name, &st);
				unlock_dir(t);
			}
		} else if (rc < 0) {
			tc_error_os(err, errnum, path);
		}
		close(pfd);
		if (rc != 0)
			goto out_rc;
	}
out_rc:
	tc_lease__queue_leave(t);
	free(path);
	return rc;
fail:
	tc_lease__queue_leave(t);
	free(path);
	return -1;
}

bool
tc_lease__queue_empty(const char *lease_root, long device_id)
{
	char *path = tc_lease__queue_path(lease_root, device_id);
	DIR *dir = opendir(path);
	struct dirent *de;
	bool empty = true;

	free(path);
	if (dir == NULL)
		return errno == ENOENT;	/* nobody ever queued */
	while (empty && (de = readdir(dir)) != NULL) {
		unsigned long long seq;

		empty = !is_ticket(dirfd(dir), de->d_name, &seq);
	}
	closedir(dir);
	return empty;
}

size_t
tc_lease__queue_waiters(const char *queue_dir)
{
	DIR *dir = opendir(queue_dir);
	struct dirent *de;
	size_t n = 0;

	if (dir == NULL)
		return 0;
	while ((de = readdir(dir)) != NULL) {
		unsigned long long seq;
		int fd;

		if (!ticket_seq(de->d_name, &seq))
			continue;
		fd = tc_open_regular_at(dirfd(dir), de->d_name,
		    TC_OPEN_NOFOLLOW);
		if (fd < 0)
			continue;
		/* A ticket whose lock is free was left by a dead waiter. */
		if (flock(fd, LOCK_SH | LOCK_NB) != 0)
			n++;
		else
			flock(fd, LOCK_UN);
		close(fd);
	}
	closedir(dir);
	return n;
}
