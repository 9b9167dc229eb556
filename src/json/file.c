/*
 * file.c - reading JSON documents from files and descriptors with
 * read(2), under the TC_JSON_MAX_BYTES limit, reporting OS errors in
 * Python's OSError form: "[Errno 2] No such file or directory: 'PATH'";
 * and writing them, pretty, through the atomic-write helper.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "json_internal.h"
#include "tunectl/fileio.h"
#include "tunectl/heap.h"

static void
os_error(tc_error *err, int e, const char *path)
{
	tc_buf b = TC_BUF_INIT;

	if (path != NULL) {
		tc_json_repr_string(&b, path, strlen(path));
		tc_error_set(err, "[Errno %d] %s: %s", e, strerror(e),
		    tc_buf_cstr(&b));
		tc_buf_free(&b);
	} else {
		tc_error_set(err, "[Errno %d] %s", e, strerror(e));
	}
}

static void
too_large(tc_error *err)
{
	tc_error_set(err, "JSON document too large: more than %zu bytes",
	    TC_JSON_MAX_BYTES);
}

/* tc_json_read_fd with the descriptor's fstat made (st NULL: it
 * failed). */
static char *
read_fd_stat(int fd, const struct stat *st, size_t *len, tc_error *err)
{
	size_t cap = 65536, n = 0, sized = 0;
	bool regular = st != NULL && S_ISREG(st->st_mode);
	char *buf;

	if (regular) {
		if ((uint64_t)st->st_size > TC_JSON_MAX_BYTES) {
			too_large(err);
			return NULL;
		}
		/* st_size is a hint (procfs says 0, files grow); one byte
		 * more shows a file longer than fstat said. */
		if (st->st_size > 0) {
			sized = (size_t)st->st_size;
			cap = sized + 1;
		}
		tc_heap_expect(cap);
	}
	buf = tc_xmalloc(cap + 1);
	for (;;) {
		ssize_t r;

		if (n == cap) {
			if (cap > TC_JSON_MAX_BYTES) {
				free(buf);
				too_large(err);
				return NULL;
			}
			cap *= 2;
			buf = tc_xrealloc(buf, cap + 1);
		}
		r = read(fd, buf + n, cap - n);
		if (r < 0) {
			if (tc_read_retry(fd, regular))
				continue;
			os_error(err, errno, NULL);
			free(buf);
			return NULL;
		}
		if (r == 0)
			break;
		n += (size_t)r;
		/* short, and ending where fstat put the end: EOF, without a
		 * read of 0 bytes to hear it */
		if (n == sized && n < cap)
			break;
	}
	if (n > TC_JSON_MAX_BYTES) {
		free(buf);
		too_large(err);
		return NULL;
	}
	buf[n] = '\0';
	if (len != NULL)
		*len = n;
	return buf;
}

char *
tc_json_read_fd(int fd, size_t *len, tc_error *err)
{
	struct stat st;

	return read_fd_stat(fd, fstat(fd, &st) == 0 ? &st : NULL, len, err);
}

char *
tc_json_read_path(const char *path, size_t *len, tc_error *err)
{
	struct stat st;
	char *text;
	int fd;

	/* Never blocks on a FIFO planted where a document belongs (it would
	 * hang the command and the session lock it holds); a directory is
	 * refused before any read, as Python's open() does. */
	if ((fd = tc_open_regular_stat_at(AT_FDCWD, path, 0, &st)) < 0) {
		os_error(err, errno, path);
		return NULL;
	}
	text = read_fd_stat(fd, &st, len, err);
	close(fd);
	return text;
}

tc_json *
tc_json_parse_file(const char *path, tc_error *err)
{
	size_t len;
	char *text = tc_json_read_path(path, &len, err);
	tc_json *v;

	if (text == NULL)
		return NULL;
	v = tc_json_parse_text(text, len, err);
	free(text);
	return v;
}

int
tc_write_json(const char *path, const tc_json *v, unsigned flags,
    tc_error *err)
{
	size_t len;
	char *text = tc_json_pretty(v, &len, err);
	int rc;

	if (text == NULL)
		return -1;
	rc = tc_write_atomic(path, text, len, flags, err);
	free(text);
	return rc;
}

int
tc_write_json_at(int dirfd, const char *name, const char *display,
    const tc_json *v, unsigned flags, tc_error *err)
{
	size_t len;
	char *text = tc_json_pretty(v, &len, err);
	int rc;

	if (text == NULL)
		return -1;
	rc = tc_write_atomic_at(dirfd, name, display, text, len, flags, err);
	free(text);
	return rc;
}
