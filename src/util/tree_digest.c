/*
 * tree_digest.c - the SHA-256 digest of a directory tree of evidence
 * files (tc_sha256_tree in sha256.h): the sha256sum manifest of every
 * regular file, sorted by relative path, and the digest of that manifest.
 *
 * The walk holds each directory open and opens every entry relative to
 * it with O_NOFOLLOW, so nothing swapped in while it runs can send it
 * outside the tree; files are opened O_NONBLOCK and checked to be regular
 * before they are read, so a FIFO cannot hang it.
 *
 * The same walk also takes snapshots (tc_tree_snapshot): every entry of a
 * tree, whatever its type, with a digest of its content, so that two
 * snapshots name exactly what changed between them.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tunectl/buf.h"
#include "tunectl/fileio.h"
#include "tunectl/path.h"
#include "tunectl/sha256.h"

#define TREE_MAX_DEPTH	64

struct tree_walk {
	const char *root;		/* as the caller named it, for messages */
	tc_tree_entry *entries;
	size_t n, cap;
	uint64_t bytes;
	/* Snapshot mode: every entry is recorded (links, directories and
	 * special files by type) and the paths in skip are left out. */
	bool snapshot;
	const char *const *skip;
	tc_error *err;
};

static void
refuse(struct tree_walk *w, const char *rel, const char *why)
{
	tc_buf shown;

	tc_buf_init(&shown);
	tc_path_repr(&shown, rel);
	tc_error_set(w->err, "%s in evidence directory %s: %s", why, w->root,
	    tc_buf_cstr(&shown));
	tc_buf_free(&shown);
}

static void
refuse_os(struct tree_walk *w, int errnum, const char *rel)
{
	char *full = tc_xasprintf("%s/%s", w->root, rel);

	tc_error_os(w->err, errnum, full);
	free(full);
}

/* Names sha256sum would print escaped are refused, not escaped. */
static int
check_name(struct tree_walk *w, const char *rel)
{
	if (strpbrk(rel, "\n\r\\") != NULL) {
		refuse(w, rel, "file name with a newline, carriage return or backslash");
		return -1;
	}
	return 0;
}

static void
add_entry(struct tree_walk *w, char *rel, char kind,
    const char hex[TC_SHA256_HEX_LEN + 1])
{
	if (w->n == w->cap) {
		w->cap = w->cap ? 2 * w->cap : 32;
		w->entries = tc_xrealloc(w->entries, w->cap * sizeof(*w->entries));
	}
	w->entries[w->n].rel = rel;
	w->entries[w->n].kind = kind;
	memcpy(w->entries[w->n].hex, hex, TC_SHA256_HEX_LEN + 1);
	w->n++;
}

/* A snapshot entry that is not a regular file: its digest covers what
 * identifies it (a link's target, a special file's type). */
static void
add_other(struct tree_walk *w, char *rel, char kind, const char *what)
{
	char hex[TC_SHA256_HEX_LEN + 1];

	tc_sha256_hex(what, strlen(what), hex);
	add_entry(w, rel, kind, hex);
}

static bool
skipped(const struct tree_walk *w, const char *rel)
{
	const char *const *p;

	for (p = w->skip; p != NULL && *p != NULL; p++)
		if (strcmp(*p, rel) == 0)
			return true;
	return false;
}

/* Snapshot mode: a symbolic link is recorded by its target, never
 * followed.  Takes ownership of rel. */
static int
add_link(struct tree_walk *w, int dirfd, const char *name, char *rel)
{
	char target[4096];
	ssize_t n = readlinkat(dirfd, name, target, sizeof(target) - 1);

	if (n < 0) {
		refuse_os(w, errno, rel);
		free(rel);
		return -1;
	}
	target[n] = '\0';
	add_other(w, rel, 'l', target);
	return 0;
}

/* On success the new entry takes ownership of rel. */
static int
hash_file(struct tree_walk *w, int dirfd, const char *name, char *rel)
{
	char hex[TC_SHA256_HEX_LEN + 1];
	struct stat st;
	uint64_t size = 0;
	int fd, rc;

	do
		fd = openat(dirfd, name,
		    O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
	while (fd < 0 && errno == EINTR);
	if (fd < 0) {
		if (errno == ELOOP)
			refuse(w, rel, "symbolic link");
		else
			refuse_os(w, errno, rel);
		return -1;
	}
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
		close(fd);
		if (w->snapshot) {	/* swapped for a special file meanwhile */
			add_other(w, rel, 'o', "special");
			return 0;
		}
		refuse(w, rel, "not a regular file");
		return -1;
	}
	rc = tc_sha256_fd(fd, rel, hex, &size, w->err);
	close(fd);
	if (rc != 0)
		return -1;
	w->bytes += size;
	add_entry(w, rel, 'f', hex);
	return 0;
}

static int walk_dir(struct tree_walk *w, int dirfd, const char *prefix,
    int depth);

static int
walk_entry(struct tree_walk *w, int dirfd, const char *name, const char *prefix,
    int depth)
{
	char *rel = *prefix ? tc_xasprintf("%s/%s", prefix, name) : tc_xstrdup(name);
	struct stat st;
	int sub, rc;

	if (w->snapshot && skipped(w, rel)) {
		free(rel);
		return 0;
	}
	if (!w->snapshot && check_name(w, rel) != 0)
		goto fail;
	if (fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) != 0) {
		refuse_os(w, errno, rel);
		goto fail;
	}
	if (S_ISREG(st.st_mode)) {
		if (hash_file(w, dirfd, name, rel) != 0)
			goto fail;
		return 0;	/* the entry owns rel now */
	}
	if (S_ISLNK(st.st_mode)) {
		if (w->snapshot)
			return add_link(w, dirfd, name, rel);
		refuse(w, rel, "symbolic link");
		goto fail;
	}
	if (!S_ISDIR(st.st_mode)) {
		if (w->snapshot) {
			add_other(w, rel, 'o', S_ISFIFO(st.st_mode) ? "fifo" :
			    S_ISSOCK(st.st_mode) ? "socket" : "device");
			return 0;
		}
		refuse(w, rel, "not a regular file");
		goto fail;
	}
	if (depth >= TREE_MAX_DEPTH) {
		refuse(w, rel, "nesting deeper than 64 directories");
		goto fail;
	}
	sub = openat(dirfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (sub < 0) {
		refuse_os(w, errno, rel);
		goto fail;
	}
	rc = walk_dir(w, sub, rel, depth + 1);	/* closes sub */
	if (rc == 0 && w->snapshot)
		add_other(w, rel, 'd', "directory");	/* owns rel */
	else
		free(rel);
	return rc;
fail:
	free(rel);
	return -1;
}

/* Takes ownership of dirfd. */
static int
walk_dir(struct tree_walk *w, int dirfd, const char *prefix, int depth)
{
	struct dirent *de;
	DIR *d = fdopendir(dirfd);
	int rc = 0;

	if (d == NULL) {
		refuse_os(w, errno, *prefix ? prefix : ".");
		close(dirfd);
		return -1;
	}
	errno = 0;
	while (rc == 0 && (de = readdir(d)) != NULL) {
		if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
			continue;
		rc = walk_entry(w, dirfd, de->d_name, prefix, depth);
		errno = 0;
	}
	if (rc == 0 && errno != 0) {
		refuse_os(w, errno, *prefix ? prefix : ".");
		rc = -1;
	}
	closedir(d);
	return rc;
}

static int
entry_cmp(const void *a, const void *b)
{
	return strcmp(((const tc_tree_entry *)a)->rel,
	    ((const tc_tree_entry *)b)->rel);
}

int
tc_sha256_tree(const char *dir, char hex[TC_SHA256_HEX_LEN + 1],
    uint64_t *files_out, uint64_t *bytes_out, tc_error *err)
{
	return tc_sha256_tree_manifest(dir, hex, NULL, files_out, bytes_out,
	    err);
}

int
tc_sha256_tree_manifest(const char *dir, char hex[TC_SHA256_HEX_LEN + 1],
    tc_buf *manifest, uint64_t *files_out, uint64_t *bytes_out, tc_error *err)
{
	struct tree_walk w = { .root = dir, .err = err };
	tc_sha256 *ctx;
	size_t i;
	int fd, rc;

	fd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0) {
		int errnum = errno;
		struct stat st;

		/* O_DIRECTORY is checked before O_NOFOLLOW: a link is ENOTDIR */
		if (lstat(dir, &st) == 0 && S_ISLNK(st.st_mode))
			tc_error_set(err, "evidence directory is a symbolic link: %s", dir);
		else
			tc_error_os(err, errnum, dir);
		return -1;
	}
	rc = walk_dir(&w, fd, "", 0);
	if (rc == 0) {
		if (w.n > 1)
			qsort(w.entries, w.n, sizeof(*w.entries), entry_cmp);
		ctx = tc_sha256_new();
		for (i = 0; i < w.n; i++) {
			tc_sha256_update(ctx, w.entries[i].hex, TC_SHA256_HEX_LEN);
			tc_sha256_update(ctx, "  ", 2);
			tc_sha256_update(ctx, w.entries[i].rel, strlen(w.entries[i].rel));
			tc_sha256_update(ctx, "\n", 1);
			if (manifest != NULL)
				tc_buf_printf(manifest, "%s  %s\n", w.entries[i].hex,
				    w.entries[i].rel);
		}
		tc_sha256_final_hex(ctx, hex);
		if (files_out != NULL)
			*files_out = w.n;
		if (bytes_out != NULL)
			*bytes_out = w.bytes;
	}
	for (i = 0; i < w.n; i++)
		free(w.entries[i].rel);
	free(w.entries);
	return rc;
}

int
tc_tree_snapshot(const char *dir, const char *const *skip,
    tc_tree_snap *out, tc_error *err)
{
	struct tree_walk w = { .root = dir, .snapshot = true, .skip = skip,
	    .err = err };
	size_t i;
	int fd;

	out->entries = NULL;
	out->n = 0;
	fd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0) {
		tc_error_os(err, errno, dir);
		return -1;
	}
	if (walk_dir(&w, fd, "", 0) != 0) {
		for (i = 0; i < w.n; i++)
			free(w.entries[i].rel);
		free(w.entries);
		return -1;
	}
	if (w.n > 1)
		qsort(w.entries, w.n, sizeof(*w.entries), entry_cmp);
	out->entries = w.entries;
	out->n = w.n;
	return 0;
}

void
tc_tree_snap_free(tc_tree_snap *s)
{
	size_t i;

	for (i = 0; i < s->n; i++)
		free(s->entries[i].rel);
	free(s->entries);
	s->entries = NULL;
	s->n = 0;
}

/* Both lists are sorted by path: one merge pass finds every path that
 * was added, removed or changed in kind or content. */
size_t
tc_tree_snap_diff(const tc_tree_snap *before,
    const tc_tree_snap *after, void (*changed)(const char *rel,
    void *ctx), void *ctx)
{
	size_t i = 0, j = 0, n = 0;

	while (i < before->n || j < after->n) {
		int c = i >= before->n ? 1 : j >= after->n ? -1 :
		    strcmp(before->entries[i].rel, after->entries[j].rel);
		const char *rel;

		if (c < 0) {
			rel = before->entries[i++].rel;
		} else if (c > 0) {
			rel = after->entries[j++].rel;
		} else {
			const tc_tree_entry *a = &before->entries[i++];
			const tc_tree_entry *b = &after->entries[j++];

			if (a->kind == b->kind && strcmp(a->hex, b->hex) == 0)
				continue;
			rel = b->rel;
		}
		n++;
		if (changed != NULL)
			changed(rel, ctx);
	}
	return n;
}
