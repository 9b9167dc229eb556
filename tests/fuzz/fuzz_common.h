/*
 * fuzz_common.h - shared helpers of the libFuzzer targets in tests/fuzz/:
 * scratch directories that outlive one input (removed at exit), writing
 * an input as a file, splitting one input into several documents, and
 * quiet JSON parsing.
 *
 * Every target is also compiled into tests/unit/test_fuzz_replay.c (each
 * LLVMFuzzerTestOneInput renamed by a macro), so everything here is
 * static inline, and each target prefixes its own file-local names.
 *
 * Multi-document inputs: the parts of an input are separated by the line
 * FZ_SEP ("\n%%\n"); a target documents what each part is.
 */
#ifndef TUNECTL_FUZZ_COMMON_H
#define TUNECTL_FUZZ_COMMON_H

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tunectl/buf.h"
#include "tunectl/error.h"
#include "tunectl/fileio.h"
#include "tunectl/json.h"
#include "tunectl/report.h"

#define FZ_SEP "\n%%\n"
#define FZ_SEP_LEN 4
#define FZ_MAX_PARTS 8
#define FZ_MAX_ROOTS 32

/* An invariant a target checks: abort() is a finding for libFuzzer and a
 * failed test for the replay. */
#define FZ_REQUIRE(cond) do {						\
	if (!(cond)) {							\
		fprintf(stderr, "%s:%d: invariant failed: %s\n",	\
		    __FILE__, __LINE__, #cond);				\
		abort();						\
	}								\
} while (0)

/* Progress notes for a person checking what a seed reaches:
 * FUZZ_VERBOSE=1 build/fuzz/replay-<target> seed */
#define FZ_NOTE(...) do {						\
	if (getenv("FUZZ_VERBOSE") != NULL)				\
		fprintf(stderr, __VA_ARGS__);				\
} while (0)

/* The session layer renders its reports through the report layer, as
 * the tunectl CLI registers it first thing (tunectl/session_reports.h). */
static void fz_register_reports(void) __attribute__((constructor));

static void
fz_register_reports(void)
{
	tc_report_register();
}

static char *fz_roots[FZ_MAX_ROOTS];
static size_t fz_nroots;

static inline int
fz_rm_entry(const char *path, const struct stat *st, int flag,
    struct FTW *ftw)
{
	(void)st;
	(void)ftw;
	if (flag == FTW_DP)
		(void)rmdir(path);
	else
		(void)unlink(path);
	return 0;
}

/* rm -rf without a shell; never follows symlinks. */
static inline void
fz_rmtree(const char *dir)
{
	(void)nftw(dir, fz_rm_entry, 16, FTW_DEPTH | FTW_PHYS);
}

static inline void
fz_cleanup_roots(void)
{
	size_t i;

	for (i = 0; i < fz_nroots; i++) {
		/* a target may have left a directory unwritable */
		(void)chmod(fz_roots[i], 0700);
		fz_rmtree(fz_roots[i]);
		free(fz_roots[i]);
	}
	fz_nroots = 0;
}

/* A new scratch directory "$TMPDIR/tunectl-fuzz-<name>-XXXXXX", removed
 * when the process exits normally.  The path is owned by this file. */
static inline const char *
fz_mkroot(const char *name)
{
	const char *tmp = getenv("TMPDIR");
	char *dir;

	if (tmp == NULL || *tmp == '\0')
		tmp = "/tmp";
	dir = tc_xasprintf("%s/tunectl-fuzz-%s-XXXXXX", tmp, name);
	if (mkdtemp(dir) == NULL || fz_nroots == FZ_MAX_ROOTS) {
		perror("fuzz: mkdtemp");
		abort();
	}
	if (fz_nroots == 0)
		atexit(fz_cleanup_roots);
	fz_roots[fz_nroots++] = dir;
	return dir;
}

/* Empty a scratch root (its contents go; the directory stays). */
static inline void
fz_reset_root(const char *dir)
{
	(void)chmod(dir, 0700);
	fz_rmtree(dir);
	if (mkdir(dir, 0700) != 0) {
		perror(dir);
		abort();
	}
}

/* mkdir -p of the parent directories of path. */
static inline void
fz_mkparents(const char *path)
{
	char *copy = tc_xstrdup(path), *p;

	for (p = copy + 1; *p != '\0'; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		if (mkdir(copy, 0755) != 0 && errno != EEXIST) {
			perror(copy);
			abort();
		}
		*p = '/';
	}
	free(copy);
}

/* Write data to <dir>/<rel> (parents created, replacing the file). */
static inline void
fz_write(const char *dir, const char *rel, const void *data, size_t len)
{
	char *path = tc_xasprintf("%s/%s", dir, rel);
	int fd;

	fz_mkparents(path);
	(void)unlink(path);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0 || (len > 0 && write(fd, data, len) != (ssize_t)len) ||
	    close(fd) != 0) {
		perror(path);
		abort();
	}
	free(path);
}

static inline void
fz_write_str(const char *dir, const char *rel, const char *text)
{
	fz_write(dir, rel, text, strlen(text));
}

/* Pretty JSON of v at <dir>/<rel>; false (nothing written) when v holds
 * a lone surrogate, which no UTF-8 file can. */
static inline bool
fz_write_json(const char *dir, const char *rel, const tc_json *v)
{
	tc_error err = TC_ERROR_INIT;
	size_t len;
	char *text = tc_json_pretty(v, &len, &err);

	tc_error_clear(&err);
	if (text == NULL)
		return false;
	fz_write(dir, rel, text, len);
	free(text);
	return true;
}

/* Split an input at FZ_SEP into at most max parts (the last part keeps
 * any further separators).  Returns the number of parts (>= 1). */
static inline size_t
fz_split(const uint8_t *data, size_t size, const char **parts, size_t *lens,
    size_t max)
{
	const char *p = (const char *)data, *end = p + size;
	size_t n = 0;

	while (n + 1 < max) {
		const char *sep = size >= FZ_SEP_LEN ?
		    memmem(p, (size_t)(end - p), FZ_SEP, FZ_SEP_LEN) : NULL;

		if (sep == NULL)
			break;
		parts[n] = p;
		lens[n++] = (size_t)(sep - p);
		p = sep + FZ_SEP_LEN;
	}
	parts[n] = p;
	lens[n++] = (size_t)(end - p);
	return n;
}

/* Parse JSON (the CPython reader); NULL when it does not parse. */
static inline tc_json *
fz_parse(const char *text, size_t len)
{
	tc_error err = TC_ERROR_INIT;
	tc_json *v = tc_json_parse(text, len, &err);

	tc_error_clear(&err);
	return v;
}

/* RFC 7386 JSON merge patch: a new value, patch applied to a copy of
 * target (an object patch merges member-wise, null removes a member, any
 * other patch replaces).  Lets a target fuzz small edits of a document
 * whose digests only exist at run time. */
static inline tc_json *
fz_merge_patch(const tc_json *target, const tc_json *patch)
{
	tc_json *out;
	size_t i;

	if (!tc_json_is(patch, TC_JSON_OBJECT))
		return tc_json_clone(patch);
	out = tc_json_is(target, TC_JSON_OBJECT) ? tc_json_clone(target) :
	    tc_json_new_object();
	for (i = 0; i < patch->u.obj.len; i++) {
		const tc_json_member *m = &patch->u.obj.members[i];

		if (m->value->type == TC_JSON_NULL) {
			/* a key with an embedded NUL cannot be removed by
			 * name; it is simply not merged */
			if (m->key_len == strlen(m->key))
				(void)tc_json_object_remove(out, m->key);
			continue;
		}
		tc_json_object_setn(out, m->key, m->key_len,
		    fz_merge_patch(tc_json_getn(out, m->key, m->key_len),
		    m->value));
	}
	return out;
}

/* Replace every "@NAME@" placeholder of the text (names and values in
 * pairs, NULL-terminated) so a seed can refer to digests and paths that
 * only exist at run time.  malloc'd, NUL-terminated; *out_len the size. */
static inline char *
fz_subst(const char *text, size_t len, const char *const *pairs,
    size_t *out_len)
{
	tc_buf b = TC_BUF_INIT;
	size_t i = 0;

	while (i < len) {
		const char *const *p;
		bool hit = false;

		if (text[i] == '@') {
			for (p = pairs; *p != NULL; p += 2) {
				size_t k = strlen(p[0]);

				if (i + k <= len && memcmp(text + i, p[0], k) == 0) {
					tc_buf_puts(&b, p[1]);
					i += k;
					hit = true;
					break;
				}
			}
		}
		if (!hit)
			tc_buf_add(&b, text + i++, 1);
	}
	return tc_buf_detach(&b, out_len);
}

/* Is s (len bytes) well-formed UTF-8 (no overlongs, no surrogates, at
 * most U+10FFFF)? */
static inline bool
fz_utf8_valid(const char *s, size_t len)
{
	const unsigned char *p = (const unsigned char *)s, *end = p + len;

	while (p < end) {
		unsigned c = *p;
		size_t n, i;
		unsigned cp;

		if (c < 0x80) {
			p++;
			continue;
		}
		if (c >= 0xc2 && c <= 0xdf)
			n = 1, cp = c & 0x1f;
		else if (c >= 0xe0 && c <= 0xef)
			n = 2, cp = c & 0x0f;
		else if (c >= 0xf0 && c <= 0xf4)
			n = 3, cp = c & 0x07;
		else
			return false;
		if ((size_t)(end - p) <= n)
			return false;
		for (i = 1; i <= n; i++) {
			if ((p[i] & 0xc0) != 0x80)
				return false;
			cp = (cp << 6) | (p[i] & 0x3f);
		}
		if ((n == 2 && cp < 0x800) || (n == 3 && cp < 0x10000) ||
		    cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
			return false;
		p += n + 1;
	}
	return true;
}

/* Does any string or key of v hold a lone surrogate (which no UTF-8
 * writer can encode)? */
static inline bool
fz_has_surrogate(const tc_json *v)
{
	size_t i;

	if (v == NULL)
		return false;
	switch (v->type) {
	case TC_JSON_STRING:
		return tc_json_has_surrogate(v->u.str.ptr, v->u.str.len);
	case TC_JSON_ARRAY:
		for (i = 0; i < v->u.arr.len; i++)
			if (fz_has_surrogate(v->u.arr.items[i]))
				return true;
		return false;
	case TC_JSON_OBJECT:
		for (i = 0; i < v->u.obj.len; i++)
			if (tc_json_has_surrogate(v->u.obj.members[i].key,
			    v->u.obj.members[i].key_len) ||
			    fz_has_surrogate(v->u.obj.members[i].value))
				return true;
		return false;
	default:
		return false;
	}
}

/* The source tree (for shipped data such as share/phases). */
static inline const char *
fz_src(void)
{
	const char *src = getenv("TUNECTL_SRC");

	return src != NULL && *src != '\0' ? src : ".";
}

/* A NUL-terminated copy of len bytes (malloc'd). */
static inline char *
fz_strndup(const char *p, size_t len)
{
	char *s = tc_xmalloc(len + 1);

	if (len > 0)
		memcpy(s, p, len);
	s[len] = '\0';
	return s;
}

/* Every failure must come with a message; returns the status. */
static inline int
fz_status(int rc, tc_error *err)
{
	if (rc != 0)
		FZ_REQUIRE(tc_error_msg(err)[0] != '\0');
	tc_error_clear(err);
	return rc;
}

/* The same for a pointer-returning call. */
static inline void *
fz_result(void *p, tc_error *err)
{
	if (p == NULL)
		FZ_REQUIRE(tc_error_msg(err)[0] != '\0');
	tc_error_clear(err);
	return p;
}

#endif
