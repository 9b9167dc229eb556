/*
 * collection.c - collection manifests (schema "1.0", the reference's
 * artifact_contract.py): checking a set of them as the structural
 * association requires.  A manifest lies in its capture root beside the
 * root marker .collection-session.json; it binds the capture session
 * (role, absolute root, start), the producer run, the normalized
 * workload, config and control, and every role file by SHA-256, size,
 * ctime and mtime, each ctime inside the capture window.  The set's
 * summary carries the set fingerprint the analysis records.
 *
 * Paths inside a capture never pass through a symbolic link, and nothing
 * in a capture root may be a link or a special file.
 */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <dirent.h>

#include "analysis_internal.h"
#include "tunectl/fileio.h"
#include "tunectl/path.h"
#include "tunectl/sha256.h"
#include "tunectl/text.h"

#define MARKER ".collection-session.json"

static const char *const profile_files[] = { "kernel_details", "task_time",
	"trace_view", NULL };
static const char *const candidate_files[] = { "kernel_details",
	"sk_fused_nodes", "sk_graph_origin", "sk_graph_updated",
	"sk_scope_split", "super_kernel", "task_time", "trace_view", NULL };
static const char *const meta_files[] = { "sk_fused_nodes",
	"sk_graph_origin", "sk_graph_updated", "sk_scope_split",
	"super_kernel", NULL };

/* The files a role must record (sorted), or NULL for an unknown role. */
static const char *const *
role_files(const char *role)
{
	if (strcmp(role, "baseline_profile") == 0)
		return profile_files;
	if (strcmp(role, "candidate_profile") == 0)
		return candidate_files;
	if (strcmp(role, "candidate_compat") == 0 ||
	    strcmp(role, "candidate_verify") == 0)
		return meta_files;
	return NULL;
}

static bool
known_file_role(const char *r)
{
	const char *const *f;

	for (f = candidate_files; *f != NULL; f++)
		if (strcmp(*f, r) == 0)
			return true;
	return strcmp(r, "sk_prof") == 0;
}

/* An open descriptor of path, refusing symbolic links on the way. */
static int
open_nofollow(int dirfd, const char *rel, const char *label, struct stat *st,
    tc_error *err)
{
	char *copy = tc_xstrdup(rel), *p = copy, *slash;
	int fd, next;

	if (dirfd == AT_FDCWD)
		fd = open(rel[0] == '/' ? "/" : ".", O_RDONLY | O_DIRECTORY |
		    O_CLOEXEC);
	else
		fd = dup(dirfd);
	if (fd < 0) {
		tc_error_set(err, "%s does not exist or cannot be opened", label);
		free(copy);
		return -1;
	}

	while ((slash = strchr(p, '/')) != NULL) {
		*slash = '\0';
		if (*p != '\0' && strcmp(p, ".") != 0) {
			next = openat(fd, p, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
			    O_CLOEXEC);
			if (next < 0) {
				struct stat ls;

				tc_error_set(err, fstatat(fd, p, &ls,
				    AT_SYMLINK_NOFOLLOW) == 0 && S_ISLNK(ls.st_mode) ?
				    "%s path contains a symlink" : "%s path contains "
				    "a missing or non-directory component", label);
				close(fd);
				free(copy);
				return -1;
			}
			close(fd);
			fd = next;
		}
		p = slash + 1;
	}
	next = openat(fd, p, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	close(fd);
	free(copy);
	if (next < 0) {
		tc_error_set(err, errno == ELOOP ? "%s path contains a symlink" :
		    "%s does not exist or cannot be opened", label);
		return -1;
	}
	if (fstat(next, st) != 0 || !S_ISREG(st->st_mode)) {
		tc_error_set(err, "%s must be a regular file", label);
		close(next);
		return -1;
	}
	return next;
}

static char *
read_all(int fd, size_t *len)
{
	tc_buf b = TC_BUF_INIT;
	char block[65536];
	ssize_t n;

	while ((n = read(fd, block, sizeof(block))) > 0)
		tc_buf_add(&b, block, (size_t)n);
	tc_buf_grow(&b, 0);
	*len = b.len;
	return tc_buf_detach(&b, NULL);
}

/* _load_json: a regular file reached without links, strict UTF-8, no
 * NaN or Infinity.  dev/ino in *st, the absolute path in *abs. */
static tc_json *
load_strict(const char *path, const char *label, struct stat *st, char **abs,
    tc_error *err)
{
	tc_error e = TC_ERROR_INIT;
	int fd = open_nofollow(AT_FDCWD, path, label, st, err);
	size_t len;
	char *text, *cwd;
	tc_json *v;

	if (fd < 0)
		return NULL;
	text = read_all(fd, &len);
	close(fd);
	if (!tc_utf8_valid(text, len)) {
		tc_error_set(err, "%s must be UTF-8 JSON", label);
		free(text);
		return NULL;
	}
	v = tc_json_parse(text, len, &e);
	free(text);
	if (v == NULL) {
		const char *m = tc_error_msg(&e), *at = strstr(m, ": line ");

		tc_error_set(err, "invalid %s JSON: %.*s", label,
		    at ? (int)(at - m) : (int)strlen(m), m);
		tc_error_clear(&e);
		return NULL;
	}
	if (path[0] == '/') {
		*abs = tc_path_normalize(path);
	} else {
		cwd = getcwd(NULL, 0);
		*abs = tc_path_join(cwd ? cwd : ".", path);
		free(cwd);
	}
	return v;
}

static int
exact_keys(const tc_json *v, const char *const *keys, const char *label,
    tc_error *err)
{
	tc_buf miss = TC_BUF_INIT, extra = TC_BUF_INIT;
	size_t i, k;
	int rc = 0;

	if (v == NULL || v->type != TC_JSON_OBJECT) {
		tc_error_set(err, "%s must be an object", label);
		return -1;
	}
	for (k = 0; keys[k] != NULL; k++)	/* keys are sorted */
		if (tc_json_get(v, keys[k]) == NULL)
			tc_buf_printf(&miss, "%s%s", miss.len ? ", " : "", keys[k]);
	for (i = 0; i < v->u.obj.len; i++) {
		for (k = 0; keys[k] != NULL; k++)
			if (strcmp(v->u.obj.members[i].key, keys[k]) == 0)
				break;
		if (keys[k] == NULL)
			tc_buf_printf(&extra, "%s%s", extra.len ? ", " : "",
			    v->u.obj.members[i].key);
	}
	if (miss.len) {
		tc_error_set(err, "%s missing fields: %s", label,
		    tc_buf_cstr(&miss));
		rc = -1;
	} else if (extra.len) {
		tc_error_set(err, "%s has unknown fields: %s", label,
		    tc_buf_cstr(&extra));
		rc = -1;
	}
	tc_buf_free(&miss);
	tc_buf_free(&extra);
	return rc;
}

static bool
is_sha(const tc_json *v)
{
	size_t i;

	if (v == NULL || v->type != TC_JSON_STRING || v->u.str.len != 64)
		return false;
	for (i = 0; i < 64; i++)
		if (!strchr("0123456789abcdef", v->u.str.ptr[i]))
			return false;
	return true;
}

static int
sha_field(const tc_json *o, const char *key, const char *label, tc_error *err)
{
	if (is_sha(tc_json_get(o, key)))
		return 0;
	tc_error_set(err, "%s must be a lowercase SHA-256 fingerprint", label);
	return -1;
}

/* _integer: a non-negative (or positive) JSON integer. */
static int
integer(const tc_json *v, const char *label, bool positive, int64_t *out,
    tc_error *err)
{
	if (v == NULL || v->type != TC_JSON_INT || !tc_json_int64(v, out) ||
	    (positive ? *out <= 0 : *out < 0)) {
		tc_error_set(err, "%s must be a %s integer", label,
		    positive ? "positive" : "nonnegative");
		return -1;
	}
	return 0;
}

static int
trimmed(const tc_json *v, const char *label, tc_error *err)
{
	if (v == NULL || v->type != TC_JSON_STRING || v->u.str.len == 0 ||
	    !tc_text_is_canonical(v->u.str.ptr, v->u.str.len)) {
		tc_error_set(err, "%s must be a trimmed non-empty string", label);
		return -1;
	}
	return 0;
}

static bool
digest_is(const tc_json *v, const char *want)
{
	char hex[65];

	return tc_analysis__ascii_digest(v, hex, NULL) == 0 && strcmp(hex, want) == 0;
}

/* The session record's fingerprint for role, root and start. */
static tc_json *
session_record(const char *role, const char *root, int64_t started)
{
	tc_json *p = tc_json_new_object();
	char hex[65];

	tc_json_object_set_string(p, "schema_version", "1.0");
	tc_json_object_set_string(p, "capture_role", role);
	tc_json_object_set_string(p, "capture_root", root);
	tc_json_object_set_int(p, "started_ns", started);
	tc_json_object_set_bool(p, "root_was_empty", true);
	tc_analysis__ascii_digest(p, hex, NULL);
	tc_json_object_set_string(p, "session_fingerprint", hex);
	return p;
}

/* A recorded artifact path: printable ASCII, relative, canonical. */
static int
artifact_path(const char *p, tc_error *err)
{
	const char *s;
	char *copy, *part, *save = NULL;
	int rc = 0;

	for (s = p; *s != '\0'; s++)
		if (*s < 0x20 || *s > 0x7e) {
			tc_error_set(err, "artifact path must use printable ASCII "
			    "POSIX characters");
			return -1;
		}
	if (strchr(p, '\\') != NULL) {
		tc_error_set(err, "artifact path must use POSIX '/' separators");
		return -1;
	}
	if (p[0] == '/') {
		tc_error_set(err, "artifact path must be relative");
		return -1;
	}
	if (strcmp(p, MARKER) == 0) {
		tc_error_set(err, "collection marker is not a role artifact");
		return -1;
	}
	copy = tc_xstrdup(p);
	for (s = p; rc == 0 && s != NULL; s = strchr(s, '/') ? strchr(s, '/') + 1 :
	    NULL) {
		size_t n = strcspn(s, "/");

		if (n == 2 && strncmp(s, "..", 2) == 0) {
			tc_error_set(err, "artifact path must not contain "
			    "traversal ('..')");
			rc = -1;
		}
	}
	for (s = p; rc == 0 && s != NULL; s = strchr(s, '/') ? strchr(s, '/') + 1 :
	    NULL) {
		size_t n = strcspn(s, "/");

		if (n == 0 || (n == 1 && s[0] == '.')) {
			tc_error_set(err, "artifact path must be a canonical "
			    "relative path");
			rc = -1;
		}
	}
	(void)part;
	(void)save;
	free(copy);
	return rc;
}

/* _scan_capture_directory: no links, no special files, nothing older
 * than the session. */
static int
scan(int dirfd, const char *prefix, int64_t started, tc_error *err)
{
	int fd = dup(dirfd);
	DIR *d = fdopendir(fd);
	struct dirent *de;
	int rc = 0;

	if (d == NULL) {
		close(fd);
		tc_error_set(err, "capture root must be an openable regular "
		    "directory");
		return -1;
	}
	rewinddir(d);
	while (rc == 0 && (de = readdir(d)) != NULL) {
		struct stat st;
		char *rel;
		int64_t ct;

		if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
			continue;
		rel = prefix[0] ? tc_xasprintf("%s/%s", prefix, de->d_name) :
		    tc_xstrdup(de->d_name);
		if (fstatat(dirfd, de->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0) {
			tc_error_set(err, "capture entry changed during scan: %s",
			    rel);
			rc = -1;
		} else if (strcmp(rel, MARKER) == 0) {
			if (!S_ISREG(st.st_mode)) {
				tc_error_set(err, "collection marker must be a "
				    "regular file");
				rc = -1;
			}
		} else if (S_ISLNK(st.st_mode)) {
			tc_error_set(err, "capture root contains symlink: %s", rel);
			rc = -1;
		} else if (!S_ISDIR(st.st_mode) && !S_ISREG(st.st_mode)) {
			tc_error_set(err, "capture root contains unsafe special "
			    "file: %s", rel);
			rc = -1;
		} else if ((ct = (int64_t)st.st_ctim.tv_sec * 1000000000 +
		    st.st_ctim.tv_nsec) < started) {
			tc_error_set(err, "capture content predates capture "
			    "session: %s", rel);
			rc = -1;
		} else if (S_ISDIR(st.st_mode)) {
			int child = openat(dirfd, de->d_name, O_RDONLY |
			    O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);

			if (child < 0) {
				tc_error_set(err, "capture entry changed during "
				    "scan: %s", rel);
				rc = -1;
			} else {
				rc = scan(child, rel, started, err);
				close(child);
			}
		}
		free(rel);
	}
	closedir(d);
	return rc;
}

static int64_t
ns(const struct timespec *t)
{
	return (int64_t)t->tv_sec * 1000000000 + t->tv_nsec;
}

/* _validate_file_record; its (dev, ino) in *id. */
static int
file_record(const tc_json *rec, int rootfd, int64_t started, int64_t final,
    const struct an_digests *memo, dev_t *dev, ino_t *ino, tc_error *err)
{
	static const char *const keys[] = { "ctime_ns", "mtime_ns", "path",
	    "sha256", "size", NULL };
	const tc_json *p;
	struct stat st;
	char hex[65];
	int64_t size, ct, mt;
	int fd;
	const char *path;

	if (exact_keys(rec, keys, "file record", err) != 0)
		return -1;
	p = tc_json_get(rec, "path");
	if (trimmed(p, "file.path", err) != 0)
		return -1;
	path = p->u.str.ptr;
	if (artifact_path(path, err) != 0)
		return -1;
	if ((fd = open_nofollow(rootfd, path, "artifact", &st, err)) < 0)
		return -1;
	if (!tc_analysis__digest_known(memo, &st, hex) &&
	    tc_sha256_fd(fd, path, hex, NULL, err) != 0) {
		close(fd);
		return -1;
	}
	close(fd);
	{
		const tc_json *sha = tc_json_get(rec, "sha256");

		if (sha->type != TC_JSON_STRING || strcmp(sha->u.str.ptr, hex)) {
			tc_error_set(err, "artifact content fingerprint changed: %s",
			    path);
			return -1;
		}
	}
	if (integer(tc_json_get(rec, "size"), "file.size", false, &size, err) ||
	    integer(tc_json_get(rec, "ctime_ns"), "file.ctime_ns", false, &ct,
	    err) || integer(tc_json_get(rec, "mtime_ns"), "file.mtime_ns", false,
	    &mt, err))
		return -1;
	if (size != (int64_t)st.st_size || ct != ns(&st.st_ctim) ||
	    mt != ns(&st.st_mtim)) {
		tc_error_set(err, "artifact stat fingerprint changed: %s", path);
		return -1;
	}
	if (ct < started || ct > final) {
		tc_error_set(err, "artifact ctime is outside capture session: %s",
		    path);
		return -1;
	}
	*dev = st.st_dev;
	*ino = st.st_ino;
	return 0;
}

struct ident {
	dev_t dev;
	ino_t ino;
};

static int
check_files(const tc_json *files, const char *role, const char *root,
    int64_t started, int64_t final, const tc_json *session,
    const struct an_digests *memo, tc_error *err)
{
	const char *const *need = role_files(role);
	struct ident *seen = NULL;
	size_t nseen = 0, i, j, k;
	tc_buf miss = TC_BUF_INIT;
	int rootfd, rc = -1, fd;
	struct stat st;
	char *expected, *marker;
	size_t len;

	if (files == NULL || files->type != TC_JSON_OBJECT) {
		tc_error_set(err, "files must be an object");
		return -1;
	}
	for (i = 0; i < files->u.obj.len; i++)
		if (!known_file_role(files->u.obj.members[i].key)) {
			tc_buf_printf(&miss, "%s%s", miss.len ? ", " : "",
			    files->u.obj.members[i].key);
		}
	if (miss.len) {
		tc_error_set(err, "files has unknown roles: %s",
		    tc_buf_cstr(&miss));
		tc_buf_free(&miss);
		return -1;
	}
	for (k = 0; need[k] != NULL; k++)
		if (tc_json_get(files, need[k]) == NULL)
			tc_buf_printf(&miss, "%s%s", miss.len ? ", " : "", need[k]);
	if (miss.len) {
		tc_error_set(err, "%s missing required files: %s", role,
		    tc_buf_cstr(&miss));
		tc_buf_free(&miss);
		return -1;
	}
	rootfd = open(root, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (rootfd < 0) {
		tc_error_set(err, "capture root must be an openable regular "
		    "directory");
		return -1;
	}
	if ((fd = open_nofollow(rootfd, MARKER, "collection marker", &st,
	    err)) < 0)
		goto done;
	marker = read_all(fd, &len);
	close(fd);
	expected = tc_json_canonical(session, NULL, NULL);
	{
		tc_buf b = TC_BUF_INIT;

		tc_json_write(&b, session, TC_JSON_ASCII, NULL);
		tc_buf_putc(&b, '\n');
		if (b.len != len || memcmp(b.data, marker, len) != 0) {
			tc_error_set(err, "collection marker does not match "
			    "session record");
			tc_buf_free(&b);
			free(marker);
			free(expected);
			goto done;
		}
		tc_buf_free(&b);
	}
	free(marker);
	free(expected);
	if (scan(rootfd, "", started, err) != 0)
		goto done;
	for (i = 0; i < files->u.obj.len; i++) {	/* sorted roles */
		const tc_json *recs = files->u.obj.members[i].value;
		const char *fr = files->u.obj.members[i].key;

		if (recs->type != TC_JSON_ARRAY || recs->u.arr.len == 0) {
			tc_error_set(err, "files.%s must be a non-empty array", fr);
			goto done;
		}
		for (j = 0; j < recs->u.arr.len; j++) {
			struct ident id;
			const char *p;

			if (file_record(recs->u.arr.items[j], rootfd, started,
			    final, memo, &id.dev, &id.ino, err) != 0)
				goto done;
			p = tc_json_get_string(recs->u.arr.items[j], "path");
			for (k = 0; k < nseen; k++)
				if (seen[k].dev == id.dev && seen[k].ino == id.ino) {
					tc_error_set(err, "artifact is repeated "
					    "across file roles: %s", p);
					goto done;
				}
			seen = tc_xrealloc(seen, (nseen + 1) * sizeof(*seen));
			seen[nseen++] = id;
			if (j > 0 && strcmp(tc_json_get_string(
			    recs->u.arr.items[j - 1], "path"), p) >= 0) {
				tc_error_set(err, "files.%s is not canonical", fr);
				goto done;
			}
		}
	}
	rc = 0;
done:
	free(seen);
	close(rootfd);
	return rc;
}

/* _validate_manifest of one role whose manifest lies in root. */
static int
check_manifest(const tc_json *m, const char *role, const char *root,
    const struct an_digests *memo, tc_error *err)
{
	static const char *const keys[] = { "capture", "capture_role",
	    "capture_root", "config", "config_fingerprint", "control",
	    "control_fingerprint", "files", "manifest_fingerprint", "producer",
	    "schema_version", "source_revision", "workload",
	    "workload_fingerprint", NULL };
	static const char *const ckeys[] = { "finalized_ns", "root_was_empty",
	    "session_fingerprint", "started_ns", NULL };
	static const char *const pkeys[] = { "command_fingerprint", "ended_ns",
	    "native_pid", "started_ns", NULL };
	char *label = tc_xasprintf("%s manifest", role);
	const tc_json *cap, *prod, *root_empty, *v;
	int64_t started, final, pid, pstart, pend;
	tc_json *session = NULL, *payload;
	int rc = -1;

	if (exact_keys(m, keys, label, err) != 0)
		goto done;
	v = tc_json_get(m, "schema_version");
	if (v->type != TC_JSON_STRING || strcmp(v->u.str.ptr, "1.0") != 0) {
		tc_error_set(err, "%s schema_version mismatch", role);
		goto done;
	}
	v = tc_json_get(m, "capture_role");
	if (v->type != TC_JSON_STRING || strcmp(v->u.str.ptr, role) != 0) {
		tc_error_set(err, "%s capture_role mismatch", role);
		goto done;
	}
	v = tc_json_get(m, "capture_root");
	if (v->type != TC_JSON_STRING || strcmp(v->u.str.ptr, ".") != 0) {
		tc_error_set(err, "%s capture_root must be '.'", role);
		goto done;
	}
	if (trimmed(tc_json_get(m, "source_revision"), "source_revision", err) ||
	    sha_field(m, "config_fingerprint", "config_fingerprint", err) ||
	    sha_field(m, "control_fingerprint", "control_fingerprint", err))
		goto done;
	if (!digest_is(tc_json_get(m, "config"),
	    tc_json_get_string(m, "config_fingerprint"))) {
		tc_error_set(err, "config fingerprint mismatch");
		goto done;
	}
	if (!digest_is(tc_json_get(m, "control"),
	    tc_json_get_string(m, "control_fingerprint"))) {
		tc_error_set(err, "control fingerprint mismatch");
		goto done;
	}
	cap = tc_json_get(m, "capture");
	if (exact_keys(cap, ckeys, "capture", err) != 0)
		goto done;
	root_empty = tc_json_get(cap, "root_was_empty");
	if (root_empty->type != TC_JSON_BOOL || !root_empty->u.b) {
		tc_error_set(err, "capture.root_was_empty must be true");
		goto done;
	}
	if (integer(tc_json_get(cap, "started_ns"), "capture.started_ns", false,
	    &started, err) || integer(tc_json_get(cap, "finalized_ns"),
	    "capture.finalized_ns", false, &final, err))
		goto done;
	if (final <= started) {
		tc_error_set(err, "capture.finalized_ns must be greater than "
		    "capture.started_ns");
		goto done;
	}
	session = session_record(role, root, started);
	v = tc_json_get(cap, "session_fingerprint");
	if (v->type != TC_JSON_STRING || strcmp(v->u.str.ptr,
	    tc_json_get_string(session, "session_fingerprint")) != 0) {
		tc_error_set(err, "%s session fingerprint mismatch", role);
		goto done;
	}
	prod = tc_json_get(m, "producer");
	if (exact_keys(prod, pkeys, "producer", err) != 0 ||
	    integer(tc_json_get(prod, "native_pid"), "native_pid", true, &pid,
	    err) || integer(tc_json_get(prod, "started_ns"), "started_ns",
	    false, &pstart, err) || integer(tc_json_get(prod, "ended_ns"),
	    "ended_ns", false, &pend, err))
		goto done;
	if (pend <= pstart) {
		tc_error_set(err, "ended_ns must be greater than started_ns");
		goto done;
	}
	if (sha_field(prod, "command_fingerprint", "command_fingerprint", err))
		goto done;
	if (pstart < started) {
		tc_error_set(err, "producer run started before capture session");
		goto done;
	}
	if (pend > final) {
		tc_error_set(err, "producer run ended after manifest finalization");
		goto done;
	}
	if (tc_analysis__workload_normalized(tc_json_get(m, "workload"), err) != 0)
		goto done;
	if (!digest_is(tc_json_get(m, "workload"),
	    tc_json_get_string(m, "workload_fingerprint"))) {
		tc_error_set(err, "workload fingerprint mismatch");
		goto done;
	}
	if (check_files(tc_json_get(m, "files"), role, root, started, final,
	    session, memo, err) != 0)
		goto done;
	if (sha_field(m, "manifest_fingerprint", "manifest_fingerprint", err))
		goto done;
	payload = tc_json_clone(m);
	tc_json_object_remove(payload, "manifest_fingerprint");
	if (!digest_is(payload, tc_json_get_string(m, "manifest_fingerprint"))) {
		tc_error_set(err, "%s manifest fingerprint mismatch", role);
		tc_json_free(payload);
		goto done;
	}
	tc_json_free(payload);
	rc = 0;
done:
	tc_json_free(session);
	free(label);
	return rc;
}

tc_json *
tc_analysis__collection_validate_set(const char *const *roles, const char *const *paths,
    size_t n, tc_json **manifests_out, const struct an_digests *memo,
    tc_error *err)
{
	tc_json **m = tc_xcalloc(n + 1, sizeof(*m)), *summary = NULL, *r;
	struct stat *st = tc_xcalloc(n + 1, sizeof(*st));
	char **abs = tc_xcalloc(n + 1, sizeof(*abs)), **root;
	static const char *const match[][2] = {
		{ "source_revision", "source_revision" }, { "config", "config" },
		{ "control", "control" }, { "workload_fingerprint", "workload" },
		{ "workload", "workload" }, { "config_fingerprint", "config" },
		{ "control_fingerprint", "control" },
	};
	size_t i, j, k;
	char hex[65];

	root = tc_xcalloc(n + 1, sizeof(*root));
	for (i = 0; i < n; i++) {
		char *label = tc_xasprintf("%s manifest", roles[i]);

		m[i] = load_strict(paths[i], label, &st[i], &abs[i], err);
		free(label);
		if (m[i] == NULL)
			goto done;
		root[i] = tc_path_dirname(abs[i]);
	}
	for (i = 0; i < n; i++)
		for (j = 0; j < i; j++) {
			if (st[i].st_dev == st[j].st_dev &&
			    st[i].st_ino == st[j].st_ino) {
				tc_error_set(err, "collection manifest inputs must "
				    "be distinct");
				goto done;
			}
			if (strcmp(root[i], root[j]) == 0) {
				tc_error_set(err, "capture roots must be pairwise "
				    "distinct");
				goto done;
			}
		}
	for (i = 0; i < n; i++) {
		for (j = 0; j < i; j++) {
			const char *a = tc_json_get_string(tc_json_get(m[i],
			    "capture"), "session_fingerprint");
			const char *b = tc_json_get_string(tc_json_get(m[j],
			    "capture"), "session_fingerprint");

			if (a != NULL && b != NULL && strcmp(a, b) == 0) {
				tc_error_set(err, "capture session fingerprints "
				    "must be pairwise distinct");
				goto done;
			}
		}
	}
	for (i = 0; i < n; i++)
		for (j = 0; j < i; j++) {
			const tc_json *a = tc_json_get(m[i], "producer");
			const tc_json *b = tc_json_get(m[j], "producer");
			const char *const f[] = { "native_pid", "started_ns",
			    "command_fingerprint" };
			bool same = a != NULL && b != NULL &&
			    a->type == TC_JSON_OBJECT && b->type == TC_JSON_OBJECT;

			for (k = 0; same && k < 3; k++) {
				const tc_json *x = tc_json_get(a, f[k]);
				const tc_json *y = tc_json_get(b, f[k]);

				same = (x == NULL && y == NULL) || (x && y &&
				    x->type == y->type && tc_json_equal(x, y));
			}
			if (same) {
				tc_error_set(err, "producer identities must be "
				    "pairwise distinct");
				goto done;
			}
		}
	for (i = 0; i < n; i++)
		if (check_manifest(m[i], roles[i], root[i], memo, err) != 0)
			goto done;
	for (k = 0; k < sizeof(match) / sizeof(match[0]); k++)
		for (i = 1; i < n; i++)
			if (!tc_json_equal(tc_json_get(m[i], match[k][0]),
			    tc_json_get(m[0], match[k][0]))) {
				tc_error_set(err, "%s mismatch across collection "
				    "manifests", match[k][1]);
				goto done;
			}
	summary = tc_json_new_object();
	tc_json_object_set_string(summary, "schema_version", "1.0");
	for (k = 0; k < 7; k++)
		if (k == 0 || k == 3 || k == 5 || k == 6)
			tc_json_object_set(summary, match[k][0],
			    tc_json_clone(tc_json_get(m[0], match[k][0])));
	r = tc_json_new_object();
	for (i = 0; i < n; i++) {
		tc_json *e = tc_json_new_object();

		tc_json_object_set(e, "manifest_fingerprint",
		    tc_json_clone(tc_json_get(m[i], "manifest_fingerprint")));
		tc_json_object_set(e, "session_fingerprint", tc_json_clone(
		    tc_json_get(tc_json_get(m[i], "capture"),
		    "session_fingerprint")));
		tc_json_object_set(r, roles[i], e);
	}
	tc_json_object_set(summary, "roles", r);
	tc_analysis__ascii_digest(summary, hex, NULL);
	tc_json_object_set_string(summary, "set_fingerprint", hex);
	if (manifests_out != NULL)
		for (i = 0; i < n; i++) {
			manifests_out[i] = m[i];
			m[i] = NULL;
		}
done:
	for (i = 0; i < n; i++) {
		tc_json_free(m[i]);
		free(abs[i]);
		free(root[i]);
	}
	free(m);
	free(st);
	free(abs);
	free(root);
	return summary;
}

tc_json *
tc_collection_validate_set(const char *const *roles, const char *const *paths,
    size_t n, tc_error *err)
{
	return tc_analysis__collection_validate_set(roles, paths, n, NULL, NULL,
	    err);
}

/* ---- writing: begin and finalize -------------------------------------- */

static int64_t
now_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_REALTIME, &t);
	return ns(&t);
}

/* Write cj(v) + "\n" to path, which must not exist yet.  Mode 0600, as
 * the reference's artifact_contract.py leaves its session records, root
 * markers and manifests: they bind a capture to a session, readable by
 * the capturing account only. */
static int
publish(const char *path, const tc_json *v, tc_error *err)
{
	tc_buf b = TC_BUF_INIT;
	tc_error e = TC_ERROR_INIT;
	int rc;

	tc_json_write(&b, v, TC_JSON_ASCII, NULL);
	tc_buf_putc(&b, '\n');
	rc = tc_write_atomic(path, b.data, b.len, TC_WRITE_EXCLUSIVE |
	    TC_WRITE_MKDIRS | TC_WRITE_PRIVATE, &e);
	if (rc != 0) {
		if (tc_path_exists(path))
			tc_error_set(err, "output already exists: %s", path);
		else
			tc_error_set(err, "%s", tc_error_msg(&e));
	}
	tc_error_clear(&e);
	tc_buf_free(&b);
	return rc;
}

/* Path(p).parent.resolve() / name */
static char *
publication_path(const char *p, tc_error *err)
{
	char *dir = tc_path_dirname(p), *r = tc_path_resolve(dir, err), *out;

	free(dir);
	if (r == NULL)
		return NULL;
	out = tc_path_join(r, tc_path_basename(p));
	free(r);
	return out;
}

int
tc_collection_output_check(const char *out, const char *const *paths,
    size_t n, tc_error *err)
{
	char *op, *mp, *root;
	bool overlap = false;
	size_t i;

	if ((op = publication_path(out, err)) == NULL)
		return -1;
	for (i = 0; i < n && !overlap; i++) {
		if ((mp = tc_path_resolve(paths[i], err)) == NULL) {
			free(op);
			return -1;
		}
		root = tc_path_dirname(mp);
		overlap = strcmp(op, mp) == 0 || tc_path_is_within(op, root);
		free(root);
		free(mp);
	}
	free(op);
	if (overlap) {
		tc_error_set(err, "validation output overlaps capture input");
		return -1;
	}
	return 0;
}

/* The entries of dir other than "." and ".."; -1 when it cannot be read. */
static int
entries(const char *dir, bool *only_marker, size_t *n)
{
	DIR *d = opendir(dir);
	struct dirent *de;

	*n = 0;
	*only_marker = true;
	if (d == NULL)
		return -1;
	while ((de = readdir(d)) != NULL) {
		if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
			continue;
		(*n)++;
		if (strcmp(de->d_name, MARKER) != 0)
			*only_marker = false;
	}
	closedir(d);
	return 0;
}

static int
marker_matches(const char *root, const tc_json *record, tc_error *err)
{
	struct stat st;
	tc_buf want = TC_BUF_INIT;
	size_t len;
	char *got;
	int fd = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC), mfd, rc = 0;

	if (fd < 0) {
		tc_error_set(err, "capture root must be an openable regular "
		    "directory");
		return -1;
	}
	mfd = open_nofollow(fd, MARKER, "collection marker", &st, err);
	close(fd);
	if (mfd < 0)
		return -1;
	got = read_all(mfd, &len);
	close(mfd);
	tc_json_write(&want, record, TC_JSON_ASCII, NULL);
	tc_buf_putc(&want, '\n');
	if (want.len != len || memcmp(want.data, got, len) != 0) {
		tc_error_set(err, "collection marker does not match session record");
		rc = -1;
	}
	free(got);
	tc_buf_free(&want);
	return rc;
}

/* _validate_session_record: its role and resolved root. */
static int
session_check(const tc_json *rec, const char **role, char **root,
    int64_t *started, tc_error *err)
{
	static const char *const keys[] = { "capture_role", "capture_root",
	    "root_was_empty", "schema_version", "session_fingerprint",
	    "started_ns", NULL };
	const tc_json *v;
	tc_error e = TC_ERROR_INIT;
	struct stat lst;
	tc_json *want;
	char *r;
	bool ok;

	if (exact_keys(rec, keys, "session record", err) != 0)
		return -1;
	v = tc_json_get(rec, "schema_version");
	if (v->type != TC_JSON_STRING || strcmp(v->u.str.ptr, "1.0") != 0) {
		tc_error_set(err, "unsupported session schema_version");
		return -1;
	}
	v = tc_json_get(rec, "capture_role");
	if (v->type != TC_JSON_STRING || role_files(v->u.str.ptr) == NULL) {
		tc_error_set(err, "unknown capture role: %s",
		    v->type == TC_JSON_STRING ? v->u.str.ptr : "?");
		return -1;
	}
	*role = v->u.str.ptr;
	v = tc_json_get(rec, "capture_root");
	if (trimmed(v, "capture_root", err) != 0)
		return -1;
	if (v->u.str.ptr[0] != '/') {
		tc_error_set(err, "session capture_root must be absolute");
		return -1;
	}
	if ((r = tc_path_resolve_strict(v->u.str.ptr, &e)) == NULL) {
		tc_error_clear(&e);
		tc_error_set(err, "capture root no longer exists");
		return -1;
	}
	if (strcmp(r, v->u.str.ptr) != 0 || !tc_is_directory(r) ||
	    (lstat(v->u.str.ptr, &lst) == 0 && S_ISLNK(lst.st_mode))) {
		free(r);
		tc_error_set(err, "session capture_root must be a resolved regular "
		    "directory");
		return -1;
	}
	if (integer(tc_json_get(rec, "started_ns"), "capture.started_ns", false,
	    started, err) != 0) {
		free(r);
		return -1;
	}
	v = tc_json_get(rec, "root_was_empty");
	if (v->type != TC_JSON_BOOL || !v->u.b) {
		free(r);
		tc_error_set(err, "capture root was not empty at session start");
		return -1;
	}
	want = session_record(*role, r, *started);
	ok = tc_json_equal(tc_json_get(want, "session_fingerprint"),
	    tc_json_get(rec, "session_fingerprint"));
	tc_json_free(want);
	if (!ok) {
		free(r);
		tc_error_set(err, "session fingerprint mismatch");
		return -1;
	}
	*root = r;
	return 0;
}

tc_json *
tc_collection_begin(const char *role, const char *root_arg,
    const char *session_out, tc_error *err)
{
	struct stat lst, st;
	char *root = NULL, *sp = NULL, *marker = NULL;
	tc_json *record = NULL, *existing = NULL;
	bool only_marker, session_exists;
	size_t n;
	tc_error e = TC_ERROR_INIT;

	if (role_files(role) == NULL) {
		tc_error_set(err, "unknown capture role: %s", role);
		return NULL;
	}
	if (lstat(root_arg, &lst) == 0 && S_ISLNK(lst.st_mode)) {
		tc_error_set(err, "capture root must not be a symlink");
		return NULL;
	}
	if (tc_mkdirs(root_arg, err) != 0)
		return NULL;
	if ((root = tc_path_resolve_strict(root_arg, err)) == NULL)
		return NULL;
	if (!tc_is_directory(root)) {
		tc_error_set(err, "capture root must be a directory");
		goto fail;
	}
	if ((sp = publication_path(session_out, err)) == NULL)
		goto fail;
	if (tc_path_is_within(sp, root)) {
		tc_error_set(err, "session record must be outside the capture root");
		goto fail;
	}
	if (entries(root, &only_marker, &n) != 0 || !only_marker) {
		tc_error_set(err, "capture root must be empty");
		goto fail;
	}
	session_exists = lstat(sp, &st) == 0;
	if (n == 1 && !session_exists) {
		tc_error_set(err, "collection marker exists without a recoverable "
		    "session record");
		goto fail;
	}
	if (session_exists) {
		const char *r2;
		char *root2 = NULL, *abs = NULL;
		int64_t started;

		existing = load_strict(sp, "session record", &st, &abs, &e);
		free(abs);
		if (existing == NULL || session_check(existing, &r2, &root2,
		    &started, &e) != 0) {
			tc_error_set(err, "existing session_out is not a "
			    "recoverable session record: %s", tc_error_msg(&e));
			goto fail;
		}
		if (strcmp(r2, role) != 0 || strcmp(root2, root) != 0) {
			free(root2);
			tc_error_set(err, "session record does not match requested "
			    "collection");
			goto fail;
		}
		free(root2);
		record = tc_json_clone(existing);
	} else {
		record = session_record(role, root, now_ns());
		if (publish(sp, record, err) != 0)
			goto fail;
	}
	marker = tc_path_join(root, MARKER);
	if (!tc_path_exists(marker) && publish(marker, record, err) != 0)
		goto fail;
	if (marker_matches(root, record, err) != 0)
		goto fail;
	if (entries(root, &only_marker, &n) != 0 || !only_marker || n != 1) {
		tc_error_set(err, "capture root changed before collection marker "
		    "was established");
		goto fail;
	}
	goto done;
fail:
	tc_json_free(record);
	record = NULL;
done:
	tc_error_clear(&e);
	tc_json_free(existing);
	free(root);
	free(sp);
	free(marker);
	return record;
}

struct spec {
	const char *role;
	char *path;
};

static int
parse_spec(const char *s, struct spec *out, tc_error *err)
{
	const char *eq = strchr(s, '=');
	char *role;

	if (eq == NULL) {
		tc_error_set(err, "file must use ROLE=RELATIVE_PATH");
		return -1;
	}
	role = tc_xstrndup(s, (size_t)(eq - s));
	if (role[0] == '\0' || !tc_text_is_canonical(role, strlen(role))) {
		tc_error_set(err, "file role must be a trimmed non-empty string");
		free(role);
		return -1;
	}
	if (eq[1] == '\0' || !tc_text_is_canonical(eq + 1, strlen(eq + 1))) {
		tc_error_set(err, "artifact path must be a trimmed non-empty "
		    "string");
		free(role);
		return -1;
	}
	if (!known_file_role(role)) {
		tc_error_set(err, "unknown artifact file role: %s", role);
		free(role);
		return -1;
	}
	if (artifact_path(eq + 1, err) != 0) {
		free(role);
		return -1;
	}
	out->role = role;
	out->path = tc_xstrdup(eq + 1);
	return 0;
}

tc_json *
tc_collection_finalize(const struct tc_collection_finalize_args *a,
    tc_error *err)
{
	struct stat st[4];
	char *abs[4] = { NULL, NULL, NULL, NULL }, *root = NULL, *op = NULL;
	tc_json *in[4] = { NULL, NULL, NULL, NULL }, *m = NULL, *files = NULL;
	const char *labels[4] = { "session record", "workload", "config",
	    "control" };
	const char *paths[4] = { a->session, a->workload, a->config, a->control };
	const char *role;
	const char *const *need;
	struct spec *specs = NULL;
	struct ident *ids = NULL;
	int64_t started, finalized;
	size_t i, j, k, nids = 0;
	tc_buf miss = TC_BUF_INIT;
	int rootfd = -1;
	char hex[65];

	for (i = 0; i < 4; i++)
		if ((in[i] = load_strict(paths[i], labels[i], &st[i], &abs[i],
		    err)) == NULL)
			goto fail;
	if (session_check(in[0], &role, &root, &started, err) != 0)
		goto fail;
	if (tc_path_is_within(abs[0], root)) {
		tc_error_set(err, "session record must be outside the capture root");
		goto fail;
	}
	if (marker_matches(root, in[0], err) != 0)
		goto fail;
	if (a->source_revision[0] == '\0' || !tc_text_is_canonical(
	    a->source_revision, strlen(a->source_revision))) {
		tc_error_set(err, "source_revision must be a trimmed non-empty "
		    "string");
		goto fail;
	}
	if (a->native_pid <= 0) {
		tc_error_set(err, "native_pid must be a positive integer");
		goto fail;
	}
	if (a->started_ns < 0 || a->ended_ns < 0) {
		tc_error_set(err, "%s must be a nonnegative integer",
		    a->started_ns < 0 ? "started_ns" : "ended_ns");
		goto fail;
	}
	if (a->ended_ns <= a->started_ns) {
		tc_error_set(err, "ended_ns must be greater than started_ns");
		goto fail;
	}
	{
		tc_json *s = tc_json_new_string(a->command_fingerprint);

		if (!is_sha(s)) {
			tc_json_free(s);
			tc_error_set(err, "command_fingerprint must be a lowercase "
			    "SHA-256 fingerprint");
			goto fail;
		}
		tc_json_free(s);
	}
	if (a->started_ns < started) {
		tc_error_set(err, "producer run started before capture session");
		goto fail;
	}
	if (tc_analysis__workload_normalized_copy(in[1], &files, err) != 0)
		goto fail;
	specs = tc_xcalloc(a->nfiles + 1, sizeof(*specs));
	for (i = 0; i < a->nfiles; i++)
		if (parse_spec(a->files[i], &specs[i], err) != 0)
			goto fail;
	need = role_files(role);
	for (k = 0; need[k] != NULL; k++) {
		for (i = 0; i < a->nfiles; i++)
			if (strcmp(specs[i].role, need[k]) == 0)
				break;
		if (i == a->nfiles)
			tc_buf_printf(&miss, "%s%s", miss.len ? ", " : "", need[k]);
	}
	if (miss.len) {
		tc_error_set(err, "%s missing required files: %s", role,
		    tc_buf_cstr(&miss));
		goto fail;
	}
	for (i = 0; i < 4; i++)
		for (j = 0; j < i; j++)
			if (strcmp(abs[i], abs[j]) == 0 || (st[i].st_dev ==
			    st[j].st_dev && st[i].st_ino == st[j].st_ino)) {
				tc_error_set(err, "session, workload, config, and "
				    "control inputs must be distinct");
				goto fail;
			}
	m = tc_json_new_object();
	{
		tc_json *fobj = tc_json_new_object();

		rootfd = open(root, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
		    O_CLOEXEC);
		if (rootfd < 0 || scan(rootfd, "", started, err) != 0) {
			if (rootfd < 0)
				tc_error_set(err, "capture root must be an "
				    "openable regular directory");
			tc_json_free(fobj);
			goto fail;
		}
		for (i = 0; i < a->nfiles; i++) {
			struct stat fs;
			int fd = open_nofollow(rootfd, specs[i].path, "artifact",
			    &fs, err);
			tc_json *rec, *list;

			if (fd < 0 || tc_sha256_fd(fd, specs[i].path, hex, NULL,
			    err) != 0) {
				if (fd >= 0)
					close(fd);
				tc_json_free(fobj);
				goto fail;
			}
			close(fd);
			if (ns(&fs.st_ctim) < started) {
				tc_error_set(err, "artifact predates capture "
				    "session: %s", specs[i].path);
				tc_json_free(fobj);
				goto fail;
			}
			for (k = 0; k < nids; k++)
				if (ids[k].dev == fs.st_dev &&
				    ids[k].ino == fs.st_ino)
					break;
			if (k < nids) {
				tc_error_set(err, "artifact input is repeated: %s",
				    specs[i].path);
				tc_json_free(fobj);
				goto fail;
			}
			for (k = 0; k < 4; k++)
				if (st[k].st_dev == fs.st_dev &&
				    st[k].st_ino == fs.st_ino)
					break;
			if (k < 4) {
				tc_error_set(err, "artifact overlaps a JSON input: "
				    "%s", specs[i].path);
				tc_json_free(fobj);
				goto fail;
			}
			ids = tc_xrealloc(ids, (nids + 1) * sizeof(*ids));
			ids[nids].dev = fs.st_dev;
			ids[nids++].ino = fs.st_ino;
			rec = tc_json_new_object();
			tc_json_object_set_string(rec, "path", specs[i].path);
			tc_json_object_set_string(rec, "sha256", hex);
			tc_json_object_set_int(rec, "size", (int64_t)fs.st_size);
			tc_json_object_set_int(rec, "ctime_ns", ns(&fs.st_ctim));
			tc_json_object_set_int(rec, "mtime_ns", ns(&fs.st_mtim));
			if ((list = tc_json_get(fobj, specs[i].role)) == NULL) {
				list = tc_json_new_array();
				tc_json_object_set(fobj, specs[i].role, list);
			}
			tc_json_array_push(list, rec);
		}
		/* records by path within each role */
		for (i = 0; i < fobj->u.obj.len; i++) {
			tc_json *l = fobj->u.obj.members[i].value;

			for (j = 1; j < l->u.arr.len; j++)
				for (k = j; k > 0 && strcmp(tc_json_get_string(
				    l->u.arr.items[k - 1], "path"),
				    tc_json_get_string(l->u.arr.items[k], "path"))
				    > 0; k--) {
					tc_json *t = l->u.arr.items[k - 1];

					l->u.arr.items[k - 1] = l->u.arr.items[k];
					l->u.arr.items[k] = t;
				}
		}
		tc_json_object_set(m, "files", fobj);
	}
	if ((op = publication_path(a->out, err)) == NULL)
		goto fail;
	for (i = 0; i < 4; i++)
		if (strcmp(op, abs[i]) == 0)
			break;
	for (k = 0; i == 4 && k < a->nfiles; k++) {
		char *ap = tc_path_join(root, specs[k].path);

		if (strcmp(ap, op) == 0)
			i = 0;
		free(ap);
	}
	if (i < 4) {
		tc_error_set(err, "output overlaps an input");
		goto fail;
	}
	{
		char *parent = tc_path_dirname(op);
		bool direct = strcmp(parent, root) == 0;

		free(parent);
		if (!direct) {
			tc_error_set(err, "manifest output must be directly inside "
			    "the capture root");
			goto fail;
		}
	}
	finalized = now_ns();
	if (finalized <= started) {
		tc_error_set(err, "finalize time must be after capture session "
		    "start");
		goto fail;
	}
	if (a->ended_ns > finalized) {
		tc_error_set(err, "producer run ended after manifest finalization");
		goto fail;
	}
	{
		tc_json *cap = tc_json_new_object(), *prod = tc_json_new_object();

		tc_json_object_set_string(m, "schema_version", "1.0");
		tc_json_object_set_string(m, "capture_role", role);
		tc_json_object_set_string(m, "capture_root", ".");
		tc_json_object_set(cap, "session_fingerprint", tc_json_clone(
		    tc_json_get(in[0], "session_fingerprint")));
		tc_json_object_set_int(cap, "started_ns", started);
		tc_json_object_set_int(cap, "finalized_ns", finalized);
		tc_json_object_set_bool(cap, "root_was_empty", true);
		tc_json_object_set(m, "capture", cap);
		tc_json_object_set_string(m, "source_revision", a->source_revision);
		tc_json_object_set(m, "config", tc_json_clone(in[2]));
		tc_analysis__ascii_digest(in[2], hex, NULL);
		tc_json_object_set_string(m, "config_fingerprint", hex);
		tc_json_object_set(m, "control", tc_json_clone(in[3]));
		tc_analysis__ascii_digest(in[3], hex, NULL);
		tc_json_object_set_string(m, "control_fingerprint", hex);
		tc_json_object_set_int(prod, "native_pid", a->native_pid);
		tc_json_object_set_int(prod, "started_ns", a->started_ns);
		tc_json_object_set_int(prod, "ended_ns", a->ended_ns);
		tc_json_object_set_string(prod, "command_fingerprint",
		    a->command_fingerprint);
		tc_json_object_set(m, "producer", prod);
		tc_analysis__ascii_digest(files, hex, NULL);
		tc_json_object_set(m, "workload", files);
		files = NULL;
		tc_json_object_set_string(m, "workload_fingerprint", hex);
	}
	for (i = 0; i < tc_json_get(m, "files")->u.obj.len; i++) {
		tc_json *l = tc_json_get(m, "files")->u.obj.members[i].value;

		for (j = 0; j < l->u.arr.len; j++) {
			int64_t c = 0;

			tc_json_int64(tc_json_get(l->u.arr.items[j], "ctime_ns"), &c);
			if (c > finalized) {
				tc_error_set(err, "artifact ctime is after "
				    "finalization: %s", tc_json_get_string(
				    l->u.arr.items[j], "path"));
				goto fail;
			}
		}
	}
	tc_analysis__ascii_digest(m, hex, NULL);
	tc_json_object_set_string(m, "manifest_fingerprint", hex);
	if (publish(op, m, err) != 0)
		goto fail;
	goto done;
fail:
	tc_json_free(m);
	m = NULL;
done:
	if (rootfd >= 0)
		close(rootfd);
	for (i = 0; i < 4; i++) {
		tc_json_free(in[i]);
		free(abs[i]);
	}
	for (i = 0; specs != NULL && i < a->nfiles; i++) {
		free((char *)specs[i].role);
		free(specs[i].path);
	}
	free(specs);
	free(ids);
	free(root);
	free(op);
	tc_json_free(files);
	tc_buf_free(&miss);
	return m;
}
