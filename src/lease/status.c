/*
 * status.c - "tunectl lease status": which devices under a lease root
 * are held, by whom and since when (the lock files' informational
 * content), which are free, and how many waiters are queued for each.
 *
 * Whether a device is held is asked of the kernel with a non-blocking
 * shared flock that is dropped at once; the file content alone cannot
 * tell, since it is left in place when its holder releases the lock.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <unistd.h>

#include "lease_internal.h"
#include "tunectl/buf.h"
#include "tunectl/fileio.h"
#include "tunectl/lease.h"
#include "tunectl/path.h"

/* "npu-device-<digits>.lock" → id */
static bool
lock_name_id(const char *name, long *id)
{
	const char *p = name + strlen("npu-device-");
	char *end;

	if (strncmp(name, "npu-device-", strlen("npu-device-")) != 0 ||
	    *p < '0' || *p > '9')
		return false;
	errno = 0;
	*id = strtol(p, &end, 10);
	return errno == 0 && strcmp(end, ".lock") == 0;
}

static int
cmp_long(const void *a, const void *b)
{
	long x = *(const long *)a, y = *(const long *)b;

	return (x > y) - (x < y);
}

/* The holder recorded in a lock file, or NULL. */
static tc_json *
read_holder(int fd)
{
	char buf[4096];
	ssize_t n = pread(fd, buf, sizeof(buf) - 1, 0);
	tc_json *doc, *out;
	int64_t pid;

	if (n <= 0)
		return NULL;
	buf[n] = '\0';
	if ((doc = tc_json_parse(buf, (size_t)n, NULL)) == NULL)
		return NULL;
	if (!tc_json_is(doc, TC_JSON_OBJECT)) {
		tc_json_free(doc);
		return NULL;
	}
	out = doc;
	if (tc_json_int64(tc_json_get(doc, "pid"), &pid))
		tc_json_object_set_bool(out, "pid_alive", pid > 0 &&
		    (kill((pid_t)pid, 0) == 0 || errno == EPERM));
	return out;
}

static tc_json *
device_status(const char *root, long id)
{
	tc_json *d = tc_json_new_object(), *holder;
	char *lock = tc_lease_lock_path(root, id);
	char *queue = tc_lease__queue_path(root, id);
	bool held = false;
	int fd = tc_open_regular_at(AT_FDCWD, lock, TC_OPEN_NOFOLLOW);

	tc_json_object_set_int(d, "device_id", id);
	tc_json_object_set_string(d, "lock_file", lock);
	if (fd >= 0) {
		if (flock(fd, LOCK_SH | LOCK_NB) != 0)
			held = errno == EWOULDBLOCK;
		else
			flock(fd, LOCK_UN);
		holder = read_holder(fd);
		close(fd);
	} else {
		holder = NULL;
	}
	tc_json_object_set_string(d, "state", held ? "held" : "free");
	if (held) {
		tc_json_object_set(d, "holder", holder != NULL ? holder :
		    tc_json_new_null());
		tc_json_object_set_null(d, "last_holder");
	} else {
		tc_json_object_set_null(d, "holder");
		tc_json_object_set(d, "last_holder", holder != NULL ? holder :
		    tc_json_new_null());
	}
	tc_json_object_set_int(d, "waiting",
	    (int64_t)tc_lease__queue_waiters(queue));
	free(lock);
	free(queue);
	return d;
}

tc_json *
tc_lease_status(const char *lease_root, tc_error *err)
{
	tc_json *out, *devices, *held, *free_ids;
	char *root;
	DIR *dir;
	struct dirent *de;
	long *ids = NULL;
	size_t n = 0, i;

	if ((root = tc_path_resolve(lease_root, err)) == NULL)
		return NULL;
	if ((dir = opendir(root)) == NULL) {
		tc_error_os(err, errno, root);
		free(root);
		return NULL;
	}
	while ((de = readdir(dir)) != NULL) {
		long id;

		if (!lock_name_id(de->d_name, &id))
			continue;
		ids = tc_xrealloc(ids, (n + 1) * sizeof(*ids));
		ids[n++] = id;
	}
	closedir(dir);
	if (n > 0)
		qsort(ids, n, sizeof(*ids), cmp_long);

	out = tc_json_new_object();
	devices = tc_json_new_array();
	held = tc_json_new_array();
	free_ids = tc_json_new_array();
	for (i = 0; i < n; i++) {
		tc_json *d = device_status(root, ids[i]);
		const char *state = tc_json_get_string(d, "state");

		tc_json_array_push(strcmp(state, "held") == 0 ? held : free_ids,
		    tc_json_new_int(ids[i]));
		tc_json_array_push(devices, d);
	}
	tc_json_object_set_string(out, "lease_root", root);
	tc_json_object_set(out, "devices", devices);
	tc_json_object_set(out, "held", held);
	tc_json_object_set(out, "free", free_ids);
	free(ids);
	free(root);
	return out;
}
