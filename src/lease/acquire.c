/*
 * acquire.c - device_leases (docs/spec/controller.md "Lease primitives"): lock
 * one file per device, in ascending device order, under one deadline for the
 * whole acquisition; record who holds each lock in the file (informational
 * only: the kernel releases a flock when its holder exits, so there are no
 * stale leases).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <unistd.h>

#include "lease_internal.h"
#include "tunectl/buf.h"
#include "tunectl/fileio.h"
#include "tunectl/lock.h"
#include "tunectl/lease.h"
#include "tunectl/timeutil.h"

/* {"pid": P, "device_id": N, "acquired_at": "...Z", "command_id": "..."}:
 * the reference's content (Python's default separators, insertion order)
 * plus the command, for "tunectl lease status". */
static void
write_holder(int fd, long device_id, const char *acquired_at,
    const char *command_id)
{
	tc_buf b = TC_BUF_INIT;
	ssize_t w = 0;

	tc_buf_printf(&b, "{\"pid\": %ld, \"device_id\": %ld, "
	    "\"acquired_at\": \"%s\"", (long)getpid(), device_id, acquired_at);
	if (command_id != NULL) {
		tc_json *s = tc_json_new_string(command_id);

		tc_buf_puts(&b, ", \"command_id\": ");
		if (tc_json_write(&b, s, TC_JSON_ASCII, NULL) != 0)
			tc_buf_puts(&b, "null");
		tc_json_free(s);
	}
	tc_buf_putc(&b, '}');
	if (ftruncate(fd, 0) == 0)
		w = write(fd, b.data, b.len);
	(void)w;
	tc_buf_free(&b);
}

void
tc_lease_release(tc_lease_hold *hold)
{
	while (hold->len > 0) {
		tc_lease_lock *l = &hold->locks[--hold->len];

		flock(l->fd, LOCK_UN);
		close(l->fd);
	}
	free(hold->locks);
	hold->locks = NULL;
}

static int
lock_one(const char *lease_root, long id, const char *command_id,
    uint64_t deadline, tc_lease_lock *out, tc_error *err)
{
	tc_lease_ticket ticket = TC_LEASE_TICKET_INIT;
	char *path = tc_lease_lock_path(lease_root, id);
	int fd, rc, errnum = 0;

	/* A FIFO planted as the lock file must neither block the open nor,
	 * later, the holder record written into it. */
	fd = open(path, O_RDWR | O_CREAT | O_APPEND | O_NOFOLLOW | O_NONBLOCK |
	    O_CLOEXEC, 0666);
	if (!tc_lock_path_usable(path, fd, err)) {
		if (fd >= 0)
			close(fd);
		free(path);
		return TC_LEASE_LOCK_ERROR;
	}
	if (fd < 0) {
		tc_error_os(err, errno, path);
		free(path);
		return TC_LEASE_LOCK_ERROR;
	}
	/* Uncontended: the lock is free and nobody is queued for it. */
	if (flock(fd, LOCK_EX | LOCK_NB) == 0) {
		if (tc_lease__queue_empty(lease_root, id)) {
			rc = 0;
			goto acquired;
		}
		flock(fd, LOCK_UN);
	}
	rc = tc_lease__queue_wait(lease_root, id, command_id, deadline,
	    &ticket, err);
	if (rc == 0) {
		rc = tc_lease__flock_until(fd, LOCK_EX, deadline, &errnum);
		tc_lease__queue_leave(&ticket);
		if (rc < 0)
			tc_error_os(err, errnum, path);
	}
acquired:
	free(path);
	if (rc != 0) {
		close(fd);
		if (rc > 0) {
			tc_error_set(err, "timed out acquiring NPU device lease "
			    "%ld", id);
			return TC_LEASE_TIMEOUT;
		}
		return TC_LEASE_LOCK_ERROR;
	}
	out->device_id = id;
	out->fd = fd;
	out->acquired_ns = tc_monotonic_ns();
	tc_lease_timestamp(out->acquired_at);
	write_holder(fd, id, out->acquired_at, command_id);
	return TC_LEASE_ACQUIRED;
}

int
tc_lease_acquire(const char *lease_root, const long *ids, size_t n,
    double timeout_s, const char *command_id, tc_lease_hold *hold,
    tc_error *err)
{
	uint64_t deadline = tc_lease__deadline(timeout_s);
	size_t i;

	hold->locks = tc_xcalloc(n > 0 ? n : 1, sizeof(*hold->locks));
	hold->len = 0;
	hold->timed_out_device = -1;
	if (tc_mkdirs(lease_root, err) != 0) {
		tc_lease_release(hold);
		return TC_LEASE_LOCK_ERROR;
	}
	for (i = 0; i < n; i++) {
		int rc = lock_one(lease_root, ids[i], command_id, deadline,
		    &hold->locks[hold->len], err);

		if (rc != TC_LEASE_ACQUIRED) {
			if (rc == TC_LEASE_TIMEOUT)
				hold->timed_out_device = ids[i];
			tc_lease_release(hold);
			return rc;
		}
		hold->len++;
	}
	return TC_LEASE_ACQUIRED;
}
