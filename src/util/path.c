/*
 * path.c - lexical path operations with Python pathlib semantics
 * (normalise, join, parent/name, containment), the ledger's relative
 * artifact predicate, the artifact-root containment policy
 * (tc_path_under_root, tc_path_within_strict) and Python's repr() of a
 * filesystem path.  The symlink-following resolution itself lives in
 * resolve.c.
 */
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "tunectl/buf.h"
#include "tunectl/path.h"
#include "tunectl/text.h"

/*
 * Normalise the NUL-terminated path in buf, in place: pathlib's rules
 * (below).  The result is never longer than the path, or is "." (buf
 * holds at least 2 bytes).  In place is safe: every byte is written at
 * or before where it was read, because a separator written before a
 * component stands for at least one the walk has already passed.
 */
static void
normalize_in_place(char *buf)
{
	const char *p = buf;
	size_t lead = 0, len = 0;

	while (p[lead] == '/')
		lead++;
	/* POSIX leaves exactly two leading slashes implementation-defined;
	 * pathlib keeps them, three or more collapse to one. */
	if (lead == 2) {
		buf[len++] = '/';
		buf[len++] = '/';
	} else if (lead > 0) {
		buf[len++] = '/';
	}
	p += lead;
	while (*p != '\0') {
		const char *end = strchrnul(p, '/');
		size_t n = (size_t)(end - p);

		if (n > 0 && !(n == 1 && p[0] == '.')) {
			if (len > 0 && buf[len - 1] != '/')
				buf[len++] = '/';
			memmove(buf + len, p, n);
			len += n;
		}
		p = end;
		while (*p == '/')
			p++;
	}
	if (len == 0)
		buf[len++] = '.';
	buf[len] = '\0';
}

char *
tc_path_normalize(const char *path)
{
	size_t n = strlen(path);
	char *buf = tc_xmalloc(n + 2);

	memcpy(buf, path, n + 1);
	normalize_in_place(buf);
	return buf;
}

char *
tc_path_join(const char *a, const char *b)
{
	size_t n = strlen(a), m;
	char *joined;

	if (b[0] == '/' || n == 0)
		return tc_path_normalize(b);
	m = strlen(b);
	joined = tc_xmalloc(n + m + 2);
	memcpy(joined, a, n);
	/* No separator after a trailing '/': "//" + "b" must stay "//b". */
	if (a[n - 1] != '/')
		joined[n++] = '/';
	memcpy(joined + n, b, m + 1);
	normalize_in_place(joined);
	return joined;
}

/* Length of the anchor ("", "/" or "//") of a normalised path. */
static size_t
anchor_len(const char *norm)
{
	if (norm[0] != '/')
		return 0;
	return norm[1] == '/' ? 2 : 1;
}

char *
tc_path_dirname(const char *path)
{
	char *norm = tc_path_normalize(path);
	size_t anchor = anchor_len(norm);
	char *slash = strrchr(norm, '/');

	if (strcmp(norm, ".") == 0 || norm[anchor] == '\0')
		return norm;			/* ".", "/", "//" are their own parent */
	if (slash == NULL) {
		free(norm);
		return tc_xstrdup(".");
	}
	if ((size_t)(slash - norm) < anchor)
		norm[anchor] = '\0';		/* "/a" -> "/", "//a" -> "//" */
	else
		*slash = '\0';
	return norm;
}

const char *
tc_path_basename(const char *path)
{
	const char *slash = strrchr(path, '/');
	const char *name = slash != NULL ? slash + 1 : path;

	return strcmp(name, ".") == 0 ? name + 1 : name;
}

bool
tc_path_is_within(const char *path, const char *root)
{
	size_t n = strlen(root);

	while (n > 1 && root[n - 1] == '/')
		n--;
	if (n == 1 && root[0] == '/')
		return path[0] == '/';
	if (strncmp(path, root, n) != 0)
		return false;
	return path[n] == '\0' || path[n] == '/';
}

char *
tc_path_relative_to(const char *path, const char *root)
{
	size_t n = strlen(root);
	const char *rest;

	if (!tc_path_is_within(path, root))
		return NULL;
	while (n > 1 && root[n - 1] == '/')
		n--;
	rest = n == 1 && root[0] == '/' ? path : path + n;
	while (*rest == '/')
		rest++;
	return *rest == '\0' ? tc_xstrdup(".") : tc_path_normalize(rest);
}

enum rel_check { REL_OK, REL_BLANK, REL_SPACE, REL_ABSOLUTE, REL_DOTDOT };

static enum rel_check
check_relative(const char *value)
{
	size_t n;

	if (value == NULL || !tc_text_has_content(value, n = strlen(value)))
		return REL_BLANK;
	if (!tc_text_is_canonical(value, n))
		return REL_SPACE;
	if (value[0] == '/')
		return REL_ABSOLUTE;
	if (!tc_text_is_relative_artifact(value, n))
		return REL_DOTDOT;
	return REL_OK;
}

bool
tc_path_is_relative_artifact(const char *value)
{
	return check_relative(value) == REL_OK;
}

void
tc_path_repr(tc_buf *out, const char *path)
{
	/* os.fsdecode: each undecodable byte b reads as U+DC00+b */
	tc_py_repr_str(out, path, strlen(path), TC_UTF8_ESCAPE);
}

/* "'<repr>'" of value, malloc'd, for messages. */
static char *
repr_dup(const char *value)
{
	tc_buf b = TC_BUF_INIT;

	tc_path_repr(&b, value);
	return tc_buf_detach(&b, NULL);
}

/*
 * The artifact root as last resolved: a command checks dozens of paths
 * under one root, and resolving it walks every component with lstat.  The
 * memo is used only while root still names the same directory (device and
 * inode, followed through links, as now) and the resolved spelling still
 * names it too; anything else resolves afresh.
 */
static pthread_mutex_t root_memo_lock = PTHREAD_MUTEX_INITIALIZER;
static struct {
	char *root, *resolved;
	dev_t dev;
	ino_t ino;
} root_memo;

static bool
same_dir(const char *path, dev_t dev, ino_t ino)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISDIR(st.st_mode) &&
	    st.st_dev == dev && st.st_ino == ino;
}

/* The resolved artifact root, malloc'd; NULL when root is not an
 * existing directory. */
static char *
resolve_root(const char *root)
{
	char *res = NULL;
	struct stat st;

	pthread_mutex_lock(&root_memo_lock);
	if (root_memo.root != NULL && strcmp(root_memo.root, root) == 0 &&
	    same_dir(root, root_memo.dev, root_memo.ino) &&
	    (strcmp(root, root_memo.resolved) == 0 ||
	    same_dir(root_memo.resolved, root_memo.dev, root_memo.ino)))
		res = tc_xstrdup(root_memo.resolved);
	pthread_mutex_unlock(&root_memo_lock);
	if (res != NULL)
		return res;
	res = tc_path_resolve(root, NULL);
	if (res == NULL || stat(res, &st) != 0 || !S_ISDIR(st.st_mode)) {
		free(res);
		return NULL;
	}
	pthread_mutex_lock(&root_memo_lock);
	free(root_memo.root);
	free(root_memo.resolved);
	root_memo.root = tc_xstrdup(root);
	root_memo.resolved = tc_xstrdup(res);
	root_memo.dev = st.st_dev;
	root_memo.ino = st.st_ino;
	pthread_mutex_unlock(&root_memo_lock);
	return res;
}

char *
tc_path_under_root(const char *root, const char *value, const char *label,
    tc_error *err)
{
	enum rel_check check = check_relative(value);
	char *root_res = NULL, *res = NULL, *q = NULL, *q2;

	if (check != REL_OK) {
		q = value != NULL ? repr_dup(value) : NULL;
		switch (check) {
		case REL_BLANK:
			tc_error_set(err, "%s must be a non-empty relative path",
			    label);
			break;
		case REL_SPACE:
			tc_error_set(err, "%s must not begin or end with "
			    "whitespace: %s", label, q);
			break;
		case REL_ABSOLUTE:
			tc_error_set(err, "%s must be a relative path inside "
			    "the artifact root, not an absolute path: %s",
			    label, q);
			break;
		default:
			tc_error_set(err, "%s must not contain a '..' "
			    "component: %s", label, q);
			break;
		}
		free(q);
		return NULL;
	}
	if ((root_res = resolve_root(root)) == NULL) {
		q = repr_dup(root);
		tc_error_set(err, "artifact root must be an existing "
		    "directory: %s", q);
		goto out;
	}
	/* value has no ".." (checked above): resolving it below the
	 * resolved root is resolving the joined path. */
	res = tc_path_resolve_below(root_res, value, err);
	if (res == NULL) {
		tc_error_prefix(err, "%s cannot be resolved: ", label);
		goto out;
	}
	if (!tc_path_is_within(res, root_res)) {
		q = repr_dup(value);
		q2 = repr_dup(res);
		tc_error_set(err, "%s escapes the artifact root: %s resolves "
		    "to %s", label, q, q2);
		free(q2);
		free(res);
		res = NULL;
	}
out:
	free(q);
	free(root_res);
	return res;
}

char *
tc_path_within_strict(const char *root, const char *path, const char *label,
    char **rel, tc_error *err)
{
	char *root_res, *res;
	struct stat st;

	if (rel != NULL)
		*rel = NULL;
	root_res = tc_path_resolve(root, err);
	if (root_res == NULL) {
		tc_error_prefix(err, "%s cannot be read: ", label);
		return NULL;
	}
	res = tc_path_resolve_strict(path, err);
	if (res == NULL) {
		tc_error_prefix(err, "%s cannot be read: ", label);
		free(root_res);
		return NULL;
	}
	if (!tc_path_is_within(res, root_res)) {
		tc_error_set(err, "%s must be inside the parent artifact root",
		    label);
		goto fail;
	}
	if (stat(res, &st) != 0 || !S_ISREG(st.st_mode)) {
		tc_error_set(err, "%s must be a regular file", label);
		goto fail;
	}
	if (rel != NULL)
		*rel = tc_path_relative_to(res, root_res);
	free(root_res);
	return res;
fail:
	free(root_res);
	free(res);
	return NULL;
}
