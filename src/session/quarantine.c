/*
 * quarantine.c - planted files: a phase-result.json or PHASE_REPORT.md in
 * the scene of a step that is still pending, which no seal of tunectl
 * began (a worker wrote a later phase's result before that phase was
 * dispatched).  The reference refuses to seal over such a scene ("current
 * step is already sealed: <step>") and has no way out; tunectl names the
 * files (status) and moves them, kept as evidence, into
 * <root>/quarantine/<step_id>-NNN/ (tunectl quarantine; under the strict
 * policy run-next does it itself before it seals).  Each move is recorded
 * in the session's sidecar first (what, from where, to where, its digest),
 * then made with rename(2).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "session_internal.h"
#include "tunectl/evidence.h"
#include "tunectl/fileio.h"
#include "tunectl/lock.h"
#include "tunectl/path.h"

static const char *const scene_files[] = { "phase-result.json",
    "PHASE_REPORT.md", NULL };

/* Is the step's scene the trace of a seal tunectl began for the session
 * as it is (resume completes it), rather than something planted? */
static bool
is_interrupted_seal(const tc_session *s, const tc_json *step)
{
	struct sess_scene sc;
	tc_json *result = NULL;
	char *bytes;
	size_t len;
	bool ours = false;

	if (step != tc_session_next_step(s, NULL))
		return false;
	tc_session__scene_init(&sc, s, tc_step_id(step));
	if ((bytes = tc_session__scene_read_result(&sc, &len)) != NULL)
		result = tc_json_parse(bytes, len, NULL);
	if (result != NULL)
		ours = tc_manifest_is_intent(s, step, result);
	tc_json_free(result);
	free(bytes);
	tc_session__scene_free(&sc);
	return ours;
}

static void
add_scene_files(const tc_session *s, const tc_json *step, tc_json *out)
{
	size_t k;

	for (k = 0; scene_files[k] != NULL; k++) {
		char *rel = tc_xasprintf("phases/%s/%s", tc_step_id(step),
		    scene_files[k]);
		char *abs = tc_session_artifact_path(s, rel);
		struct stat st;

		if (lstat(abs, &st) == 0) {
			tc_json *e = tc_json_new_object();

			tc_json_object_set_string(e, "step_id", tc_step_id(step));
			tc_json_object_set_string(e, "path", rel);
			tc_json_array_push(out, e);
		}
		free(abs);
		free(rel);
	}
}

tc_json *
tc_planted_files(const tc_session *s)
{
	tc_json *out = tc_json_new_array();
	size_t i;

	for (i = 0; i < tc_session_step_count(s); i++) {
		const tc_json *step = tc_session_step_at(s, i);

		if (tc_step_is_sealed(step) || is_interrupted_seal(s, step))
			continue;
		add_scene_files(s, step, out);
	}
	return out;
}

/* <root>/quarantine/<step_id>-NNN, made now (exclusive); *rel receives
 * its path relative to the root. */
static char *
new_quarantine_dir(const tc_session *s, const char *step_id, char **rel,
    tc_error *err)
{
	char *top = tc_session_artifact_path(s, "quarantine");
	int n;

	if (tc_mkdirs(top, err) != 0) {
		free(top);
		return NULL;
	}
	free(top);
	for (n = 1; n <= 999; n++) {
		char *r = tc_xasprintf("quarantine/%s-%03d", step_id, n);
		char *abs = tc_path_under_root(s->artifact_root, r, "quarantine",
		    err);

		if (abs == NULL) {
			free(r);
			return NULL;
		}
		if (mkdir(abs, 0777) == 0) {
			*rel = r;
			return abs;
		}
		free(abs);
		free(r);
		if (errno != EEXIST) {
			tc_error_os(err, errno, "quarantine");
			return NULL;
		}
	}
	tc_error_set(err, "quarantine limit reached for %s", step_id);
	return NULL;
}

/* The entries of one step: described, given a destination. */
static int
plan_step(const tc_session *s, const char *step_id, tc_json *files,
    size_t from, size_t to, tc_error *err)
{
	char *dir_rel = NULL, *dir, *scene;
	size_t i;

	/* the scene directory must be the root's, not a link out of it */
	scene = tc_xasprintf("phases/%s", step_id);
	dir = tc_path_under_root(s->artifact_root, scene, "phase scene", err);
	free(scene);
	if (dir == NULL)
		return -1;
	free(dir);
	if ((dir = new_quarantine_dir(s, step_id, &dir_rel, err)) == NULL)
		return -1;
	free(dir);
	for (i = from; i < to; i++) {
		tc_json *e = files->u.arr.items[i];
		const char *rel = tc_json_get_string(e, "path");
		tc_json *now = tc_artifact_describe(s->artifact_root, rel);
		char *dest = tc_xasprintf("%s/%s", dir_rel, tc_path_basename(rel));

		tc_json_object_set_string(e, "moved_to", dest);
		tc_json_object_remove(now, "path");
		tc_json_object_set(e, "was", now);
		free(dest);
	}
	free(dir_rel);
	return 0;
}

/* fsync a directory, so a rename in it outlives a power cut. */
static void
sync_dir(const char *path)
{
	int fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

	if (fd >= 0) {
		(void)fsync(fd);
		close(fd);
	}
}

static int
move_one(const tc_session *s, const tc_json *e, tc_error *err)
{
	char *from = tc_session_artifact_path(s, tc_json_get_string(e, "path"));
	char *to = tc_session_artifact_path(s, tc_json_get_string(e,
	    "moved_to"));
	char *from_dir = tc_path_dirname(from), *to_dir = tc_path_dirname(to);
	int rc = 0;

	tc_fault_point("rename");
	if (rename(from, to) != 0) {
		tc_error_os(err, errno, tc_json_get_string(e, "path"));
		rc = -1;
	} else {
		sync_dir(to_dir);
		sync_dir(from_dir);
	}
	free(from_dir);
	free(to_dir);
	free(to);
	free(from);
	return rc;
}

int
tc_quarantine_files(tc_session *s, tc_json *files, tc_error *err)
{
	size_t i, start;

	if (files->u.arr.len == 0)
		return 0;
	/* one folder per step, in the order found */
	for (start = 0; start < files->u.arr.len; start = i) {
		const char *id = tc_json_get_string(files->u.arr.items[start],
		    "step_id");

		for (i = start; i < files->u.arr.len &&
		    strcmp(tc_json_get_string(files->u.arr.items[i], "step_id"),
		    id) == 0; i++)
			;
		if (plan_step(s, id, files, start, i, err) != 0)
			return -1;
	}
	if (tc_sidecar_record_quarantine(s, files, err) != 0)
		return -1;
	for (i = 0; i < files->u.arr.len; i++)
		if (move_one(s, files->u.arr.items[i], err) != 0)
			return -1;
	return 0;
}

int
tc_quarantine_scene(tc_session *s, const tc_json *step,
    const tc_json *result, tc_json **moved, tc_error *err)
{
	struct sess_scene sc;
	struct sess_texts t = { 0 };
	bool same;

	*moved = tc_json_new_array();
	tc_session__scene_init(&sc, s, tc_step_id(step));
	same = !tc_session__scene_present(&sc) ||
	    (tc_session__render_scene(result, step, &t, NULL) == 0 &&
	    tc_session__scene_matches(&sc, &t));
	tc_session__texts_free(&t);
	tc_session__scene_free(&sc);
	if (same)
		return 0;
	add_scene_files(s, step, *moved);
	return tc_quarantine_files(s, *moved, err);
}

tc_json *
tc_quarantine_session(const char *session_path, tc_error *err)
{
	tc_session *s = NULL;
	tc_json *files = NULL, *out = NULL;
	tc_lock lock;

	if (tc_session_lock(session_path, &lock, err) != 0)
		return NULL;
	if (tc_session_load(session_path, 0, &s, err) != 0)
		goto done;
	files = tc_planted_files(s);
	if (tc_quarantine_files(s, files, err) != 0)
		goto done;
	out = tc_json_new_object();
	tc_json_object_set(out, "quarantined", files);
	files = NULL;
	tc_json_object_set(out, "session_id",
	    tc_json_clone(tc_json_get(s->doc, "session_id")));
done:
	tc_json_free(files);
	tc_session_free(s);
	tc_lock_release(&lock);
	return out;
}
