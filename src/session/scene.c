/*
 * scene.c - phase scenes: the phase-result.json + PHASE_REPORT.md pair a
 * sealed step leaves under <artifact_root>/phases/<step_id>/, written
 * exclusively, plus the comparisons that let an interrupted seal be
 * completed instead of stranded (docs/controller.md, "Recovery").
 */
#include <stdlib.h>
#include <string.h>

#include "session_int.h"
#include "tunectl/fileio.h"
#include "tunectl/path.h"
#include "tunectl/report.h"
#include "tunectl/sha256.h"
#include "tunectl/timeutil.h"

bool
sess_field_equal(const tc_json *a, const tc_json *b, const char *key)
{
	const tc_json *x = tc_json_get(a, key);
	const tc_json *y = tc_json_get(b, key);

	if (x == NULL || y == NULL)
		return (x == NULL || tc_json_is(x, TC_JSON_NULL)) &&
		    (y == NULL || tc_json_is(y, TC_JSON_NULL));
	return tc_json_equal(x, y);
}

int
sess_check_path_text(const tc_json *v, tc_error *err)
{
	if (tc_json_is(v, TC_JSON_STRING) &&
	    memchr(v->u.str.ptr, '\0', v->u.str.len) != NULL) {
		tc_error_set(err, "embedded null byte");
		return -1;
	}
	return 0;
}

int
sess_check_root(const tc_session *s, tc_error *err)
{
	return sess_check_path_text(tc_json_get(s->doc, "artifact_root"), err);
}

void
sess_scene_init(struct sess_scene *sc, const tc_session *s,
    const char *step_id)
{
	char *report_rel;

	sc->result_rel = tc_xasprintf("phases/%s/phase-result.json", step_id);
	report_rel = tc_xasprintf("phases/%s/PHASE_REPORT.md", step_id);
	sc->result_path = tc_session_artifact_path(s, sc->result_rel);
	sc->report_path = tc_session_artifact_path(s, report_rel);
	free(report_rel);
}

void
sess_scene_free(struct sess_scene *sc)
{
	free(sc->result_rel);
	free(sc->result_path);
	free(sc->report_path);
	memset(sc, 0, sizeof(*sc));
}

bool
sess_scene_present(const struct sess_scene *sc)
{
	return tc_path_exists(sc->result_path) ||
	    tc_path_exists(sc->report_path);
}

char *
sess_scene_read_result(const struct sess_scene *sc, size_t *len)
{
	if (!tc_is_regular_file_nofollow(sc->result_path))
		return NULL;
	return tc_read_file(sc->result_path, 0, len, NULL);
}

bool
sess_file_equals(const char *path, const char *data, size_t len)
{
	size_t have;
	char *bytes;
	bool same;

	if (!tc_is_regular_file_nofollow(path))
		return false;
	if ((bytes = tc_read_file(path, len + 1, &have, NULL)) == NULL)
		return false;
	same = have == len && memcmp(bytes, data, len) == 0;
	free(bytes);
	return same;
}

bool
sess_scene_matches(const struct sess_scene *sc, const char *result_text,
    size_t result_len, const char *report_text, size_t report_len)
{
	if (!sess_file_equals(sc->result_path, result_text, result_len))
		return false;
	return !tc_path_exists(sc->report_path) ||
	    sess_file_equals(sc->report_path, report_text, report_len);
}

int
sess_scene_write(const tc_session *s, const struct sess_scene *sc,
    const char *result_text, size_t result_len, const char *report_text,
    size_t report_len, bool adopt, tc_error *err)
{
	char *resolved;

	/* phases/<step_id> is ours; a symlink that leads it out of the
	 * artifact root would make sealed evidence land elsewhere. */
	if (tc_mkdirs(s->artifact_root, err) != 0)
		return -1;
	resolved = tc_path_under_root(s->artifact_root, sc->result_rel,
	    "result_path", err);
	if (resolved == NULL)
		return -1;
	free(resolved);
	if (!adopt && tc_write_atomic(sc->result_path, result_text, result_len,
	    TC_WRITE_EXCLUSIVE | TC_WRITE_MKDIRS, err) != 0)
		return -1;
	if (adopt && sess_file_equals(sc->report_path, report_text, report_len))
		return 0;
	return tc_write_atomic(sc->report_path, report_text, report_len,
	    TC_WRITE_EXCLUSIVE | TC_WRITE_MKDIRS, err);
}

void
sess_mark_sealed(tc_json *step, const char *result_rel, const char *digest,
    const char *status)
{
	char now[TC_TIMESTAMP_LEN + 1];

	tc_now_iso(now);
	tc_json_object_set_string(step, "state", "sealed");
	tc_json_object_set_string(step, "result_path", result_rel);
	tc_json_object_set_string(step, "result_sha256", digest);
	tc_json_object_set_string(step, "outcome_status", status);
	tc_json_object_set_string(step, "sealed_at", now);
}

int
sess_render_scene(const tc_json *result, const tc_json *step,
    char **result_text, size_t *result_len, char **report_text,
    size_t *report_len, tc_error *err)
{
	*report_text = NULL;
	if ((*result_text = tc_json_pretty(result, result_len, err)) == NULL)
		return -1;
	if ((*report_text = tc_report_phase_md(result, step, err)) == NULL) {
		free(*result_text);
		*result_text = NULL;
		return -1;
	}
	*report_len = strlen(*report_text);
	return 0;
}
