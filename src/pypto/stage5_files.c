/*
 * stage5_files.c - what Stage 5 may and may not touch in an operator
 * directory: the walk that records every file (with its digest) at the
 * Stage 5 entry and again at the check, the frozen inputs (SPEC.md, both
 * Goldens, every class's KB_SELECTION.json, module_interfaces.yaml), the
 * updatable set (the final test, the performance deliverables, the
 * as-built DESIGN.md / DESIGN_BINDINGS.json / KB_USAGE.json) and the
 * selected KB obligations the as-built records must keep.
 *
 * The walk never follows a symbolic link (it is recorded as a link with
 * its target) and opens every file relative to its directory with
 * O_NOFOLLOW | O_NONBLOCK, so a planted link or FIFO can neither
 * redirect nor hang it.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "pypto_internal.h"
#include "stage5_internal.h"
#include "tunectl/fileio.h"
#include "tunectl/path.h"
#include "tunectl/sha256.h"

#define WALK_MAX_DEPTH		32
#define WALK_MAX_ENTRIES	100000

/* Never compared: the orchestrator's own records and the interpreter's
 * byte-code caches (they change whenever the code is run). */
bool
tc_pypto_path_excluded(const char *rel)
{
	const char *base = strrchr(rel, '/');
	size_t len = strlen(rel);

	base = base != NULL ? base + 1 : rel;
	if (strcmp(rel, TC_PYPTO_ORCH_DIR) == 0 ||
	    strncmp(rel, TC_PYPTO_ORCH_DIR "/",
	    sizeof(TC_PYPTO_ORCH_DIR)) == 0)
		return true;
	if (strncmp(rel, ".orchestrator_state.json", 24) == 0)
		return true;
	if (strcmp(base, "__pycache__") == 0 || strstr(rel, "/__pycache__/") ||
	    strncmp(rel, "__pycache__/", 12) == 0)
		return true;
	return len > 4 && strcmp(rel + len - 4, ".pyc") == 0;
}

static bool
has_prefix_dir(const char *rel, const char *dir)
{
	size_t n = strlen(dir);

	return strncmp(rel, dir, n) == 0 && (rel[n] == '/' || rel[n] == '\0');
}

/* The updatable set of docs/spec/pypto.md "Stage 5 inputs and boundary".  The
 * compiler's outputs (build/, kernel.cpp) are regenerated from the final code
 * and are evidence, not edits: they are updatable in the sense that a change
 * there is not a boundary violation. */
bool
tc_pypto_path_updatable(const char *rel, const char *op_name)
{
	static const char *const files[] = {
		"PERFORMANCE_CASES.json", "PERFORMANCE_REPORT.md",
		"performance.json", "performance.log", "perf_report.md",
		"quick_performance.json", "quick_performance.log",
		"quick_perf_report.md", "GOLDEN_PERF_REPORT.json",
		"GOLDEN_PERF_REPORT.md", "DESIGN.md", "DESIGN_BINDINGS.json",
		"KB_USAGE.json", "kernel.cpp", NULL
	};
	const char *slash = strchr(rel, '/');
	char *test = tc_xasprintf("test_%s.py", op_name);
	bool ok = strcmp(rel, test) == 0;
	size_t i;

	free(test);
	for (i = 0; !ok && files[i] != NULL; i++)
		ok = strcmp(rel, files[i]) == 0;
	if (!ok)
		ok = has_prefix_dir(rel, "docs/perf") ||
		    has_prefix_dir(rel, "prof/golden-reference") ||
		    has_prefix_dir(rel, "build");
	/* a split KB layout keeps KB_USAGE.json per class directory */
	if (!ok && slash != NULL && strchr(slash + 1, '/') == NULL)
		ok = strcmp(slash + 1, "KB_USAGE.json") == 0;
	return ok;
}

/* ---- the walk ----------------------------------------------------------------- */

struct walk {
	tc_json *files;
	size_t entries;
	tc_error *err;
};

static int walk_dir(struct walk *w, int dirfd, const char *rel, int depth);

static int
record_file(struct walk *w, int dirfd, const char *name, const char *rel)
{
	int fd = openat(dirfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK |
	    O_CLOEXEC);
	char hex[TC_SHA256_HEX_LEN + 1];
	uint64_t size = 0;
	tc_json *f;

	if (fd < 0) {
		tc_error_os(w->err, errno, rel);
		return -1;
	}
	if (tc_sha256_fd(fd, rel, hex, &size, w->err) != 0) {
		close(fd);
		return -1;
	}
	close(fd);
	f = tc_json_new_object();
	tc_json_object_set_string(f, "path", rel);
	tc_json_object_set_string(f, "type", "file");
	tc_json_object_set_string(f, "sha256", hex);
	tc_json_object_set_int(f, "size_bytes", (int64_t)size);
	tc_json_array_push(w->files, f);
	return 0;
}

static void
record_other(struct walk *w, int dirfd, const char *name, const char *rel,
    mode_t mode)
{
	tc_json *f = tc_json_new_object();

	tc_json_object_set_string(f, "path", rel);
	if (S_ISLNK(mode)) {
		char target[4096];
		ssize_t n = readlinkat(dirfd, name, target, sizeof(target) - 1);

		target[n > 0 ? n : 0] = '\0';
		tc_json_object_set_string(f, "type", "symlink");
		tc_json_object_set_string(f, "target", target);
	} else {
		tc_json_object_set_string(f, "type", S_ISFIFO(mode) ? "fifo" :
		    S_ISSOCK(mode) ? "socket" : "device");
	}
	tc_json_array_push(w->files, f);
}

static int
cmp_names(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static int
walk_entry(struct walk *w, int dirfd, const char *name, const char *rel,
    int depth)
{
	struct stat st;
	int sub, rc;

	if (tc_pypto_path_excluded(rel))
		return 0;
	if (++w->entries > WALK_MAX_ENTRIES) {
		tc_error_set(w->err, "the operator directory holds more than %d "
		    "entries", WALK_MAX_ENTRIES);
		return -1;
	}
	if (fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) != 0) {
		tc_error_os(w->err, errno, rel);
		return -1;
	}
	if (S_ISREG(st.st_mode))
		return record_file(w, dirfd, name, rel);
	if (!S_ISDIR(st.st_mode)) {
		record_other(w, dirfd, name, rel, st.st_mode);
		return 0;
	}
	if (depth >= WALK_MAX_DEPTH) {
		tc_error_set(w->err, "the operator directory nests deeper than %d "
		    "levels at %s", WALK_MAX_DEPTH, rel);
		return -1;
	}
	sub = openat(dirfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
	    O_CLOEXEC);
	if (sub < 0) {
		tc_error_os(w->err, errno, rel);
		return -1;
	}
	rc = walk_dir(w, sub, rel, depth + 1);
	return rc;
}

/* Takes dirfd (closed here). */
static int
walk_dir(struct walk *w, int dirfd, const char *rel, int depth)
{
	DIR *d = fdopendir(dirfd);
	struct dirent *e;
	char **names = NULL;
	size_t n = 0, i;
	int rc = 0;

	if (d == NULL) {
		tc_error_os(w->err, errno, rel[0] != '\0' ? rel : ".");
		close(dirfd);
		return -1;
	}
	while ((e = readdir(d)) != NULL) {
		if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
			continue;
		names = tc_xrealloc(names, (n + 1) * sizeof(*names));
		names[n++] = tc_xstrdup(e->d_name);
	}
	if (n > 0)
		qsort(names, n, sizeof(*names), cmp_names);
	for (i = 0; i < n && rc == 0; i++) {
		char *child = rel[0] != '\0' ? tc_xasprintf("%s/%s", rel,
		    names[i]) : tc_xstrdup(names[i]);

		rc = walk_entry(w, dirfd, names[i], child, depth);
		free(child);
	}
	for (i = 0; i < n; i++)
		free(names[i]);
	free(names);
	closedir(d);
	return rc;
}

tc_json *
tc_pypto_op_files(const char *op_dir, tc_error *err)
{
	struct walk w = { tc_json_new_array(), 0, err };
	int fd = open(op_dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

	if (fd < 0) {
		tc_error_os(err, errno, op_dir);
		tc_json_free(w.files);
		return NULL;
	}
	if (walk_dir(&w, fd, "", 0) != 0) {
		tc_json_free(w.files);
		return NULL;
	}
	return w.files;
}

/* ---- frozen inputs --------------------------------------------------------------- */

static void
push_input(tc_json *list, const char *op_dir, const char *rel,
    const char *role, const char *class_id)
{
	tc_json *f = tc_json_new_object();
	char *path = tc_path_join(op_dir, rel);
	char hex[TC_SHA256_HEX_LEN + 1];
	uint64_t size = 0;
	tc_error err = TC_ERROR_INIT;

	tc_json_object_set_string(f, "name", rel);
	tc_json_object_set_string(f, "role", role);
	if (class_id != NULL)
		tc_json_object_set_string(f, "class_id", class_id);
	if (tc_is_regular_file_nofollow(path) &&
	    tc_sha256_file(path, hex, &size, &err) == 0) {
		tc_json_object_set_string(f, "sha256", hex);
		tc_json_object_set_int(f, "size_bytes", (int64_t)size);
	} else {
		tc_json_object_set_null(f, "sha256");
		tc_json_object_set_string(f, "missing", tc_error_msg(&err)[0] ?
		    tc_error_msg(&err) : "no such regular file");
	}
	tc_error_clear(&err);
	free(path);
	tc_json_array_push(list, f);
}

tc_json *
tc_pypto_kb_selection_files(const char *op_dir)
{
	tc_json *list = tc_json_new_array();
	char *flat = tc_path_join(op_dir, "KB_SELECTION.json");
	DIR *d = opendir(op_dir);
	struct dirent *e;
	char **names = NULL;
	size_t n = 0, i;

	if (tc_path_exists(flat))
		tc_json_array_push(list, tc_json_new_string("KB_SELECTION.json"));
	free(flat);
	while (d != NULL && (e = readdir(d)) != NULL) {
		char *rel, *path;

		if (e->d_name[0] == '.' || strcmp(e->d_name, "docs") == 0 ||
		    strcmp(e->d_name, "build") == 0 ||
		    strcmp(e->d_name, "modules") == 0 ||
		    strcmp(e->d_name, "__pycache__") == 0)
			continue;
		rel = tc_xasprintf("%s/KB_SELECTION.json", e->d_name);
		path = tc_path_join(op_dir, rel);
		if (tc_path_exists(path)) {
			names = tc_xrealloc(names, (n + 1) * sizeof(*names));
			names[n++] = rel;
		} else {
			free(rel);
		}
		free(path);
	}
	if (d != NULL)
		closedir(d);
	if (n > 0)
		qsort(names, n, sizeof(*names), cmp_names);
	for (i = 0; i < n; i++) {
		tc_json_array_push(list, tc_json_new_string(names[i]));
		free(names[i]);
	}
	free(names);
	return list;
}

tc_json *
tc_pypto_frozen_inputs(const char *op_dir)
{
	const char *op = tc_path_basename(op_dir);
	tc_json *list = tc_json_new_array();
	tc_json *kb = tc_pypto_kb_selection_files(op_dir);
	char *golden = tc_xasprintf("%s_golden.py", op);
	char *golden_cpu = tc_xasprintf("%s_golden_cpu.py", op);
	size_t i;

	push_input(list, op_dir, "SPEC.md", "spec", NULL);
	push_input(list, op_dir, golden, "golden", NULL);
	push_input(list, op_dir, golden_cpu, "golden_cpu", NULL);
	push_input(list, op_dir, "module_interfaces.yaml", "module_interfaces",
	    NULL);
	if (kb->u.arr.len == 0)
		push_input(list, op_dir, "KB_SELECTION.json", "kb_selection", ".");
	for (i = 0; i < kb->u.arr.len; i++) {
		const char *rel = tc_json_string(kb->u.arr.items[i]);
		char *cls = strchr(rel, '/') != NULL ?
		    tc_xstrndup(rel, (size_t)(strchr(rel, '/') - rel)) :
		    tc_xstrdup(".");

		push_input(list, op_dir, rel, "kb_selection", cls);
		free(cls);
	}
	tc_json_free(kb);
	free(golden);
	free(golden_cpu);
	return list;
}

/* ---- the selected KB obligations --------------------------------------------------- */

/* Every active obligation of DESIGN_BINDINGS.json with its atomic key and
 * invariant; NULL with err when the file cannot be read as the bindings
 * document. */
tc_json *
tc_pypto_kb_obligations(const char *op_dir, tc_error *err)
{
	static const char *const of_binding[] = {
		"class_id", "selection_field", "reference", NULL
	};
	static const char *const of_requirement[] = {
		"req_id", "invariant", NULL
	};
	char *path = tc_path_join(op_dir, "DESIGN_BINDINGS.json");
	tc_json *doc = tc_pj_load_object(path, "DESIGN_BINDINGS.json", err);
	const tc_json *bindings = tc_json_get(doc, "bindings");
	tc_json *out;
	size_t i, k;

	free(path);
	if (doc == NULL)
		return NULL;
	if (!tc_json_is(bindings, TC_JSON_ARRAY)) {
		tc_json_free(doc);
		tc_error_set(err, "DESIGN_BINDINGS.json: bindings must be a list");
		return NULL;
	}
	out = tc_json_new_array();
	for (i = 0; i < bindings->u.arr.len; i++) {
		const tc_json *b = bindings->u.arr.items[i];
		const tc_json *reqs = tc_json_get(b, "requirements");

		for (k = 0; tc_json_is(reqs, TC_JSON_ARRAY) &&
		    k < reqs->u.arr.len; k++) {
			const tc_json *r = reqs->u.arr.items[k];
			const char *kind = tc_json_get_string(r, "kind");
			const char *status = tc_json_get_string(r, "status");
			tc_json *o;

			if (kind == NULL || strcmp(kind, "obligation") != 0)
				continue;
			o = tc_json_new_object();
			tc_pj_copy_members(o, b, of_binding);
			tc_pj_copy_members(o, r, of_requirement);
			tc_json_object_set_string(o, "status", status != NULL ?
			    status : "");
			tc_json_array_push(out, o);
		}
	}
	tc_json_free(doc);
	return out;
}
