/*
 * install.c - copying skills into the layout an agent host reads them
 * from (Claude Code: .claude/skills, Codex: .agents/skills, OpenCode:
 * .opencode/skills, each below a project directory).
 *
 * A project directory may be one a worker can write (an artifact root),
 * so nothing is written through a symbolic link: every directory on the
 * way is checked with lstat as it is made, every file is replaced
 * atomically, and a skill's own files must be plain files.
 */
#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "tunectl/buf.h"
#include "tunectl/fileio.h"
#include "tunectl/path.h"
#include "tunectl/sha256.h"
#include "tunectl/skills.h"

#define SKILL_MAX_DEPTH 4

struct skill_file {
	char *rel;		/* relative to the skill directory */
	char *data;
	size_t len;
};

struct skill_files {
	struct skill_file *items;
	size_t n, cap;
};

static void
files_free(struct skill_files *f)
{
	size_t i;

	for (i = 0; i < f->n; i++) {
		free(f->items[i].rel);
		free(f->items[i].data);
	}
	free(f->items);
	memset(f, 0, sizeof(*f));
}

const char *
tc_skills_host_subdir(const char *host)
{
	if (strcmp(host, "claude") == 0)
		return ".claude/skills";
	if (strcmp(host, "codex") == 0)
		return ".agents/skills";
	if (strcmp(host, "opencode") == 0)
		return ".opencode/skills";
	return NULL;
}

/* Read every file of a skill directory (plain files and directories
 * only, bounded in number, size and depth). */
static int
collect(const char *dir, const char *prefix, int depth,
    struct skill_files *out, tc_error *err)
{
	char *path = *prefix ? tc_path_join(dir, prefix) : tc_xstrdup(dir);
	DIR *d = opendir(path);
	struct dirent *de;
	int rc = 0;

	if (d == NULL) {
		tc_error_os(err, errno, path);
		free(path);
		return -1;
	}
	while (rc == 0 && (de = readdir(d)) != NULL) {
		char *rel, *full;
		struct stat st;

		if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
			continue;
		rel = *prefix ? tc_xasprintf("%s/%s", prefix, de->d_name) :
		    tc_xstrdup(de->d_name);
		full = tc_path_join(dir, rel);
		if (lstat(full, &st) != 0) {
			tc_error_os(err, errno, full);
			rc = -1;
		} else if (S_ISDIR(st.st_mode) && depth < SKILL_MAX_DEPTH) {
			rc = collect(dir, rel, depth + 1, out, err);
		} else if (S_ISDIR(st.st_mode)) {
			tc_error_set(err, "skill directory is nested deeper than "
			    "%d levels: %s", SKILL_MAX_DEPTH, full);
			rc = -1;
		} else if (!S_ISREG(st.st_mode)) {
			tc_error_set(err, "skill file is not a plain file or "
			    "directory: %s", full);
			rc = -1;
		} else if (out->n >= TC_SKILL_MAX_FILES) {
			tc_error_set(err, "skill directory %s has more than %d "
			    "files", dir, TC_SKILL_MAX_FILES);
			rc = -1;
		} else {
			struct skill_file f = { rel, NULL, 0 };

			f.data = tc_read_file(full, TC_SKILL_MAX_FILE_BYTES, &f.len,
			    err);
			if (f.data == NULL) {
				rc = -1;
			} else {
				if (out->n == out->cap) {
					out->cap = out->cap ? 2 * out->cap : 8;
					out->items = tc_xrealloc(out->items,
					    out->cap * sizeof(*out->items));
				}
				out->items[out->n++] = f;
				rel = NULL;
			}
		}
		free(rel);
		free(full);
	}
	closedir(d);
	free(path);
	return rc;
}

/* mkdir that refuses to go through a link: *created tells whether the
 * directory is new. */
static int
ensure_dir(const char *path, bool *created, tc_error *err)
{
	struct stat st;

	*created = false;
	if (lstat(path, &st) != 0) {
		if (errno != ENOENT) {
			tc_error_os(err, errno, path);
			return -1;
		}
		if (mkdir(path, 0777) == 0)
			*created = true;
		else if (errno != EEXIST) {
			tc_error_os(err, errno, path);
			return -1;
		}
		if (lstat(path, &st) != 0) {
			tc_error_os(err, errno, path);
			return -1;
		}
	}
	if (S_ISLNK(st.st_mode)) {
		tc_error_set(err, "refusing to install skills through a symbolic "
		    "link: %s", path);
		return -1;
	}
	if (!S_ISDIR(st.st_mode)) {
		tc_error_os(err, ENOTDIR, path);
		return -1;
	}
	return 0;
}

/* Every directory from base (exclusive) down to base/rel. */
static int
ensure_dirs(const char *base, const char *rel, bool *created, tc_error *err)
{
	char *copy = tc_xstrdup(rel), *p = copy;
	int rc = 0;

	*created = false;
	while (rc == 0 && p != NULL) {
		char *slash = strchr(p, '/');
		char *path;
		bool made;

		if (slash != NULL)
			*slash = '\0';
		path = tc_path_join(base, copy);
		rc = ensure_dir(path, &made, err);
		*created = made;
		free(path);
		if (slash != NULL) {
			*slash = '/';
			p = slash + 1;
		} else {
			p = NULL;
		}
	}
	free(copy);
	return rc;
}

/* 1 written, 0 already there, -1 error. */
static int
install_file(const char *target, const struct skill_file *f, tc_error *err)
{
	char want[TC_SHA256_HEX_LEN + 1], have[TC_SHA256_HEX_LEN + 1];
	struct stat st;
	tc_error ignored = TC_ERROR_INIT;

	if (lstat(target, &st) == 0) {
		if (!S_ISREG(st.st_mode)) {
			tc_error_set(err, "refusing to replace %s: it is not a "
			    "regular file", target);
			return -1;
		}
		tc_sha256_hex(f->data, f->len, want);
		if (tc_sha256_file(target, have, NULL, &ignored) == 0 &&
		    strcmp(want, have) == 0)
			return 0;
		tc_error_clear(&ignored);
	}
	return tc_write_atomic(target, f->data, f->len, 0, err) == 0 ? 1 : -1;
}

static tc_json *
install_one(const char *skills_dir, const char *name, const char *dest,
    const char *subdir, tc_error *err)
{
	struct skill_files files = { NULL, 0, 0, };
	tc_skill skill;
	char *rel = NULL, *target_dir = NULL;
	bool created;
	size_t i, written = 0;
	tc_json *out = NULL;

	if (tc_skill_load(skills_dir, name, &skill, err) != 0)
		return NULL;
	if (collect(skill.dir, "", 0, &files, err) != 0)
		goto done;
	rel = tc_xasprintf("%s/%s", subdir, name);
	if (ensure_dirs(dest, rel, &created, err) != 0)
		goto done;
	target_dir = tc_path_join(dest, rel);
	for (i = 0; i < files.n; i++) {
		char *target = tc_path_join(target_dir, files.items[i].rel);
		char *parent = tc_path_dirname(files.items[i].rel);
		bool made;
		int rc = 0;

		if (strcmp(parent, ".") != 0)
			rc = ensure_dirs(target_dir, parent, &made, err);
		if (rc == 0)
			rc = install_file(target, &files.items[i], err);
		free(parent);
		free(target);
		if (rc < 0)
			goto done;
		written += (size_t)rc;
	}
	out = tc_json_new_object();
	tc_json_object_set_string(out, "name", name);
	{
		char *path = tc_path_join(target_dir, TC_SKILL_FILE);

		tc_json_object_set_string(out, "path", path);
		free(path);
	}
	tc_json_object_set_int(out, "files", (int64_t)files.n);
	tc_json_object_set_string(out, "state", created ? "installed" :
	    written > 0 ? "updated" : "unchanged");
done:
	files_free(&files);
	tc_skill_free(&skill);
	free(rel);
	free(target_dir);
	return out;
}

tc_json *
tc_skills_install(const char *skills_dir, const char *host, const char *dest,
    const char *const *names, size_t nnames, tc_error *err)
{
	const char *subdir = tc_skills_host_subdir(host);
	tc_json *listing = NULL, *installed, *out = NULL;
	char *abs = NULL, *host_dir;
	size_t i, n;

	if (subdir == NULL) {
		tc_error_set(err, "unknown agent host: %s (choose from claude, "
		    "codex, opencode)", host);
		return NULL;
	}
	/* A project without the directory yet gets it, as mkdir -p would. */
	if (!tc_path_exists(dest) && tc_mkdirs(dest, err) != 0)
		return NULL;
	if ((abs = tc_path_resolve(dest, err)) == NULL)
		return NULL;
	if (!tc_is_directory(abs)) {
		tc_error_set(err, "install directory is not a directory: %s",
		    dest);
		free(abs);
		return NULL;
	}
	if (nnames == 0) {
		if ((listing = tc_skills_list(skills_dir, err)) == NULL) {
			free(abs);
			return NULL;
		}
	}
	installed = tc_json_new_array();
	n = nnames > 0 ? nnames : tc_json_get_array(listing, "skills")->u.arr.len;
	for (i = 0; i < n; i++) {
		const char *name = nnames > 0 ? names[i] : tc_json_get_string(
		    tc_json_get_array(listing, "skills")->u.arr.items[i], "name");
		tc_json *one = install_one(skills_dir, name, abs, subdir, err);

		if (one == NULL) {
			tc_json_free(installed);
			goto out;
		}
		tc_json_array_push(installed, one);
	}
	out = tc_json_new_object();
	tc_json_object_set_string(out, "host", host);
	tc_json_object_set_string(out, "dir", abs);
	host_dir = tc_path_join(abs, subdir);
	tc_json_object_set_string(out, "skills_dir", host_dir);
	free(host_dir);
	tc_json_object_set(out, "installed", installed);
out:
	tc_json_free(listing);
	free(abs);
	return out;
}
