/*
 * attempt.c - the attempt directory of one dispatch or support run, held
 * open from its creation to its receipt (host_internal.h).
 *
 * The agent host runs as the same user and may move, remove or replace
 * dispatches/<step>-attempt-NNN (or dispatches/ itself) while it runs.
 * Paths would follow such a swap out of the artifact root; descriptors do
 * not: the directory tunectl made stays the one it reads the result from
 * and writes the receipt into, and tc_attempt_in_place() tells whether
 * the path still leads there before anything is sealed.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "host_internal.h"
#include "tunectl/buf.h"
#include "tunectl/fileio.h"
#include "tunectl/host.h"
#include "tunectl/path.h"

#define DIR_FLAGS (O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)

const tc_attempt_layout tc_dispatch_layout = {
	"dispatches", TC_ATTEMPT_TASK, TC_ATTEMPT_RESULT, TC_ATTEMPT_RECEIPT
};

static void
set_names(tc_attempt *a, const char *artifact_root, const char *step_id,
    int n)
{
	const tc_attempt_layout *l = a->layout;

	a->number = n;
	a->name = tc_xasprintf("%s-attempt-%03d", step_id, n);
	a->rel = tc_xasprintf("%s/%s", l->area, a->name);
	a->parent = tc_path_join(artifact_root, l->area);
	a->dir = tc_path_join(a->parent, a->name);
	a->task = tc_path_join(a->dir, l->task);
	a->result = tc_path_join(a->dir, l->result);
	a->out_log = tc_path_join(a->dir, TC_ATTEMPT_STDOUT);
	a->err_log = tc_path_join(a->dir, TC_ATTEMPT_STDERR);
	a->receipt = tc_path_join(a->dir, l->receipt);
}

static void
clear_names(tc_attempt *a)
{
	free(a->name);
	free(a->rel);
	free(a->parent);
	free(a->dir);
	free(a->task);
	free(a->result);
	free(a->out_log);
	free(a->err_log);
	free(a->receipt);
	a->name = a->rel = a->parent = a->dir = NULL;
	a->task = a->result = a->out_log = a->err_log = a->receipt = NULL;
}

void
tc_attempt_free(tc_attempt *a)
{
	clear_names(a);
	if (a->fd >= 0)
		close(a->fd);
	if (a->parent_fd >= 0)
		close(a->parent_fd);
	a->fd = a->parent_fd = -1;
	a->number = 0;
}

/* The area itself (dispatches/): a real directory, never a symlink
 * (which would put every attempt's evidence wherever it points). */
static int
open_parent(const char *artifact_root, const tc_attempt_layout *layout,
    bool create, tc_error *err)
{
	char *parent = tc_path_join(artifact_root, layout->area);
	int fd;

	if (create && mkdir(parent, 0777) != 0 && errno != EEXIST) {
		tc_error_os(err, errno, parent);
		free(parent);
		return -1;
	}
	if ((fd = open(parent, DIR_FLAGS)) < 0) {
		if (errno == ELOOP || errno == ENOTDIR)
			tc_error_set(err, "dispatch attempt directory escapes "
			    "the artifact root: %s", parent);
		else
			tc_error_os(err, errno, parent);
	}
	free(parent);
	return fd;
}

int
tc_attempt_create(const char *artifact_root, const tc_attempt_layout *layout,
    const char *step_id, tc_attempt *a, tc_error *err)
{
	int n;

	*a = (tc_attempt)TC_ATTEMPT_INIT;
	a->layout = layout;
	if (tc_mkdirs(artifact_root, err) != 0 ||
	    (a->parent_fd = open_parent(artifact_root, layout, true, err)) < 0)
		return -1;
	for (n = 1; n <= TC_ATTEMPT_LIMIT; n++) {
		set_names(a, artifact_root, step_id, n);
		if (mkdirat(a->parent_fd, a->name, 0777) == 0) {
			a->fd = openat(a->parent_fd, a->name, DIR_FLAGS);
			if (a->fd >= 0)
				return 0;
			tc_error_os(err, errno, a->dir);
			return -1;
		}
		if (errno != EEXIST) {
			tc_error_os(err, errno, a->dir);
			return -1;
		}
		clear_names(a);
	}
	tc_error_set(err, "dispatch attempt limit reached for %s", step_id);
	return -1;
}

int
tc_attempt_open_newest(const char *artifact_root,
    const tc_attempt_layout *layout, const char *step_id, tc_attempt *a,
    tc_error *err)
{
	struct stat st;
	int n, newest = 0;

	*a = (tc_attempt)TC_ATTEMPT_INIT;
	a->layout = layout;
	if ((a->parent_fd = open_parent(artifact_root, layout, false,
	    err)) < 0) {
		if (errno == ENOENT) {
			tc_error_clear(err);
			return 0;
		}
		return -1;
	}
	for (n = 1; n <= TC_ATTEMPT_LIMIT; n++) {
		char name[300];

		snprintf(name, sizeof(name), "%s-attempt-%03d", step_id, n);
		if (fstatat(a->parent_fd, name, &st, AT_SYMLINK_NOFOLLOW) != 0)
			break;
		newest = n;
	}
	if (newest == 0)
		return 0;
	set_names(a, artifact_root, step_id, newest);
	if ((a->fd = openat(a->parent_fd, a->name, DIR_FLAGS)) < 0)
		return 0;	/* a link or a file where the attempt was */
	return 1;
}

static bool
same_file(const struct stat *x, const struct stat *y)
{
	return x->st_dev == y->st_dev && x->st_ino == y->st_ino;
}

int
tc_attempt_in_place(const tc_attempt *a, tc_error *err)
{
	struct stat held_parent, held, now_parent, now;

	if (fstat(a->parent_fd, &held_parent) == 0 &&
	    fstat(a->fd, &held) == 0 &&
	    lstat(a->parent, &now_parent) == 0 &&
	    same_file(&held_parent, &now_parent) &&
	    fstatat(a->parent_fd, a->name, &now, AT_SYMLINK_NOFOLLOW) == 0 &&
	    same_file(&held, &now))
		return 0;
	tc_error_set(err, "dispatch attempt directory was replaced while the "
	    "agent host ran: %s", a->dir);
	return -1;
}

bool
tc_attempt_has(const tc_attempt *a, const char *name)
{
	struct stat st;

	return fstatat(a->fd, name, &st, AT_SYMLINK_NOFOLLOW) == 0;
}

bool
tc_attempt_is_regular(const tc_attempt *a, const char *name)
{
	struct stat st;

	return fstatat(a->fd, name, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
	    S_ISREG(st.st_mode);
}

void
tc_attempt_touch(const tc_attempt *a, const char *name)
{
	int fd = openat(a->fd, name, O_WRONLY | O_CREAT | O_NOFOLLOW |
	    O_NONBLOCK | O_CLOEXEC | O_NOCTTY, 0666);

	if (fd >= 0)
		close(fd);
}

/* The absolute path of name, for messages (malloc'd). */
static char *
display(const tc_attempt *a, const char *name)
{
	return tc_path_join(a->dir, name);
}

tc_json *
tc_attempt_read_json(const tc_attempt *a, const char *name, tc_error *err)
{
	char *path = display(a, name), *text;
	tc_json *v = NULL;
	size_t len;
	int fd = tc_open_regular_at(a->fd, name, TC_OPEN_NOFOLLOW);

	if (fd < 0) {
		tc_error_os(err, errno, path);
		free(path);
		return NULL;
	}
	text = tc_json_read_fd(fd, &len, err);
	close(fd);
	if (text != NULL)
		v = tc_json_parse_text(text, len, err);
	free(text);
	free(path);
	return v;
}

int
tc_attempt_sha256(const tc_attempt *a, const char *name,
    char hex[TC_SHA256_HEX_LEN + 1], tc_error *err)
{
	char *path = display(a, name);
	int rc = tc_sha256_file_at(a->fd, name, TC_OPEN_NOFOLLOW, path, hex,
	    NULL, err);

	free(path);
	return rc;
}

int
tc_attempt_write_json(const tc_attempt *a, const char *name,
    const tc_json *v, unsigned flags, tc_error *err)
{
	char *path = display(a, name);
	int rc = tc_write_json_at(a->fd, name, path, v, flags, err);

	free(path);
	return rc;
}

char *
tc_attempt_rel(const tc_attempt *a, const char *file)
{
	return tc_xasprintf("%s/%s", a->rel, file);
}

int
tc_attempt_left_alone(const tc_attempt *a, tc_error *err)
{
	if (tc_attempt_in_place(a, err) != 0)
		return -1;
	if (tc_attempt_has(a, a->layout->receipt)) {
		tc_error_set(err, "Agent host wrote %s, which only tunectl "
		    "writes", a->receipt);
		return -1;
	}
	return 0;
}
