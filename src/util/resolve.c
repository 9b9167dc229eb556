/*
 * resolve.c - symlink-following path resolution with the exact semantics
 * of Python 3.11's pathlib.Path.resolve() (posixpath.realpath underneath):
 * components are walked left to right, each link is expanded once and
 * memoised, ".." is applied to the already-resolved prefix, a loop is
 * detected through the memo.  Non-strict mode keeps a missing tail as
 * written; strict mode fails on the first missing component.  The error
 * texts, including the path spelling inside them, are Python's.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tunectl/buf.h"
#include "tunectl/fileio.h"
#include "tunectl/path.h"

struct seen_link {
	char *link;		/* the path of the symlink as walked */
	char *resolved;		/* NULL while its expansion is in progress */
};

struct seen {
	struct seen_link *v;
	size_t len, cap;
	bool gap;	/* a component could not be lstat'd (non-strict) */
};

enum walk { WALK_OK, WALK_LOOP, WALK_ERROR };

static struct seen_link *
seen_find(struct seen *s, const char *link)
{
	size_t i;

	for (i = 0; i < s->len; i++)
		if (strcmp(s->v[i].link, link) == 0)
			return &s->v[i];
	return NULL;
}

/* Returns the index of the new entry (the array may move later). */
static size_t
seen_add(struct seen *s, const char *link)
{
	if (s->len == s->cap) {
		s->cap = s->cap ? s->cap * 2 : 8;
		s->v = tc_xrealloc(s->v, s->cap * sizeof(*s->v));
	}
	s->v[s->len].link = tc_xstrdup(link);
	s->v[s->len].resolved = NULL;
	return s->len++;
}

static void
seen_free(struct seen *s)
{
	size_t i;

	for (i = 0; i < s->len; i++) {
		free(s->v[i].link);
		free(s->v[i].resolved);
	}
	free(s->v);
}

static void
set_str(tc_buf *b, const char *s)
{
	tc_buf_reset(b);
	tc_buf_puts(b, s);
}

/* posixpath.join(b, name) in place (name is never absolute here). */
static void
join_in(tc_buf *b, const char *name, size_t n)
{
	if (b->len > 0 && b->data[b->len - 1] != '/')
		tc_buf_putc(b, '/');
	tc_buf_add(b, name, n);
}

/* posixpath.split(b)[0] in place; returns true when the tail was "..". */
static bool
split_head(tc_buf *b)
{
	const char *s = tc_buf_cstr(b);
	const char *slash = strrchr(s, '/');
	size_t head = slash != NULL ? (size_t)(slash - s) + 1 : 0;
	bool dotdot = strcmp(s + head, "..") == 0;
	size_t i;

	/* Strip the head's trailing slashes unless it is all slashes. */
	for (i = 0; i < head && s[i] == '/'; i++)
		;
	if (i < head)
		while (head > 0 && s[head - 1] == '/')
			head--;
	b->len = head;
	if (b->data != NULL)
		b->data[head] = '\0';
	return dotdot;
}

static char *
read_link(const char *path, int *errnum)
{
	size_t cap = 256;

	for (;;) {
		char *buf = tc_xmalloc(cap);
		ssize_t n = readlink(path, buf, cap);

		if (n < 0) {
			*errnum = errno;
			free(buf);
			return NULL;
		}
		if ((size_t)n < cap) {
			buf[n] = '\0';
			return buf;
		}
		free(buf);
		cap *= 2;
	}
}

/*
 * posixpath._joinrealpath: extend path (in place) by rest.  WALK_LOOP
 * (non-strict only) leaves "<link>/<rest>" in path, unresolved, as Python
 * returns it.
 */
static enum walk
join_realpath(tc_buf *path, const char *rest, bool strict, struct seen *seen,
    tc_error *err)
{
	tc_buf newpath = TC_BUF_INIT;
	enum walk rc = WALK_OK;

	if (rest[0] == '/') {
		rest++;
		set_str(path, "/");
	}
	while (*rest != '\0') {
		const char *slash = strchr(rest, '/');
		size_t n = slash != NULL ? (size_t)(slash - rest) : strlen(rest);
		const char *name = rest;
		struct seen_link *memo;
		struct stat st;
		char *target;
		size_t idx;
		int errnum;

		rest = slash != NULL ? slash + 1 : rest + n;
		if (n == 0 || (n == 1 && name[0] == '.'))
			continue;
		if (n == 2 && name[0] == '.' && name[1] == '.') {
			if (path->len == 0)
				set_str(path, "..");
			else if (split_head(path))
				join_in(path, "../..", 5);
			continue;
		}
		set_str(&newpath, tc_buf_cstr(path));
		join_in(&newpath, name, n);
		if (lstat(newpath.data, &st) != 0) {
			if (strict) {
				tc_error_os(err, errno, newpath.data);
				rc = WALK_ERROR;
				break;
			}
			seen->gap = true;
			st.st_mode = 0;
		}
		if (!S_ISLNK(st.st_mode)) {
			set_str(path, newpath.data);
			continue;
		}
		if ((memo = seen_find(seen, newpath.data)) != NULL) {
			if (memo->resolved != NULL) {
				set_str(path, memo->resolved);
				continue;
			}
			if (strict) {
				/* Python stats the link to raise ELOOP, which
				 * pathlib turns into this RuntimeError. */
				tc_buf q = TC_BUF_INIT;

				tc_path_repr(&q, newpath.data);
				tc_error_set(err, "Symlink loop from %s",
				    tc_buf_cstr(&q));
				tc_buf_free(&q);
				rc = WALK_ERROR;
				break;
			}
			set_str(path, newpath.data);
			join_in(path, rest, strlen(rest));
			rc = WALK_LOOP;
			break;
		}
		idx = seen_add(seen, newpath.data);
		if ((target = read_link(newpath.data, &errnum)) == NULL) {
			tc_error_os(err, errnum, newpath.data);
			rc = WALK_ERROR;
			break;
		}
		rc = join_realpath(path, target, strict, seen, err);
		free(target);
		if (rc == WALK_LOOP) {
			join_in(path, rest, strlen(rest));
			break;
		}
		if (rc == WALK_ERROR)
			break;
		seen->v[idx].resolved = tc_xstrdup(tc_buf_cstr(path));
	}
	tc_buf_free(&newpath);
	return rc;
}

/* os.path.normpath of a path that is already absolute. */
static char *
normpath_abs(const char *path)
{
	tc_buf b = TC_BUF_INIT;
	size_t *stack = NULL, depth = 0, cap = 0;
	const char *p = path;
	size_t lead = 0;

	while (p[lead] == '/')
		lead++;
	tc_buf_puts(&b, lead == 2 ? "//" : "/");
	p += lead;
	while (*p != '\0') {
		const char *slash = strchr(p, '/');
		size_t n = slash != NULL ? (size_t)(slash - p) : strlen(p);

		if (n == 2 && p[0] == '.' && p[1] == '.') {
			if (depth > 0) {
				b.len = stack[--depth];
				b.data[b.len] = '\0';
			}
		} else if (n > 0 && !(n == 1 && p[0] == '.')) {
			if (depth == cap) {
				cap = cap ? cap * 2 : 16;
				stack = tc_xrealloc(stack, cap * sizeof(*stack));
			}
			stack[depth++] = b.len;
			if (b.data[b.len - 1] != '/')
				tc_buf_putc(&b, '/');
			tc_buf_add(&b, p, n);
		}
		p += n;
		while (*p == '/')
			p++;
	}
	free(stack);
	return tc_buf_detach(&b, NULL);
}

/* os.path.abspath. */
static char *
abspath(const char *path, tc_error *err)
{
	char *cwd, *joined, *res;

	if (path[0] == '/')
		return normpath_abs(path);
	if ((cwd = getcwd(NULL, 0)) == NULL) {
		int e = errno;

		tc_error_set(err, "[Errno %d] %s", e, strerror(e));
		return NULL;
	}
	joined = tc_xasprintf("%s/%s", cwd, path);
	res = normpath_abs(joined);
	free(joined);
	free(cwd);
	return res;
}

/* Resolve input; with base (a resolved directory), input is relative to
 * it and the walk starts there. */
static char *
resolve(const char *base, const char *input, bool strict, tc_error *err)
{
	char *norm = tc_path_normalize(input);
	struct seen seen = { NULL, 0, 0, false };
	tc_buf path = TC_BUF_INIT;
	enum walk rc;
	char *res = NULL;
	struct stat st;

	if (base != NULL)
		tc_buf_puts(&path, base);
	rc = join_realpath(&path, norm, strict, &seen, err);
	seen_free(&seen);
	free(norm);
	if (rc != WALK_ERROR)
		res = abspath(tc_buf_cstr(&path), err);
	tc_buf_free(&path);
	/* Non-strict: pathlib stats the result so that a loop, which
	 * realpath leaves unresolved, still raises.  A walk that lstat'd
	 * every component and expanded every link has no loop left for the
	 * stat to find: it is made only after a loop or a component that
	 * could not be lstat'd (which is all the stat could fail on, but
	 * for a change made since). */
	if (res != NULL && !strict && (rc == WALK_LOOP || seen.gap) &&
	    stat(res, &st) != 0 && errno == ELOOP) {
		tc_buf q = TC_BUF_INIT;

		tc_path_repr(&q, res);
		tc_error_set(err, "Symlink loop from %s", tc_buf_cstr(&q));
		tc_buf_free(&q);
		free(res);
		res = NULL;
	}
	return res;
}

char *
tc_path_resolve(const char *path, tc_error *err)
{
	return resolve(NULL, path, false, err);
}

char *
tc_path_resolve_strict(const char *path, tc_error *err)
{
	return resolve(NULL, path, true, err);
}

char *
tc_path_resolve_below(const char *base, const char *rel, tc_error *err)
{
	return resolve(base, rel, false, err);
}
