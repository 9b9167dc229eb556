/*
 * scene.c - phase scenes: the files a sealed step leaves under
 * <artifact_root>/phases/<step_id>/ -- under the strict policy
 * artifact-manifest.json (tunectl's, written first; under the reference
 * policy the manifest goes to the sidecar instead, also first), then the
 * reference's phase-result.json and PHASE_REPORT.md, written exclusively
 * -- plus the comparisons that let an interrupted seal be completed
 * instead of stranded (docs/controller.md, "Recovery").
 */
#include <stdlib.h>
#include <string.h>

#include "session_internal.h"
#include "tunectl/evidence.h"
#include "tunectl/fileio.h"
#include "tunectl/path.h"
#include "tunectl/sha256.h"
#include "tunectl/timeutil.h"

void
tc_session__set_errors(tc_error *err, const char *prefix,
    const tc_json *errors)
{
	tc_buf msg = TC_BUF_INIT;
	size_t i;

	tc_buf_puts(&msg, prefix);
	for (i = 0; i < errors->u.arr.len; i++) {
		if (i > 0)
			tc_buf_puts(&msg, "; ");
		tc_buf_puts(&msg, tc_json_string(errors->u.arr.items[i]));
	}
	tc_error_set(err, "%s", tc_buf_cstr(&msg));
	tc_buf_free(&msg);
}

bool
tc_session__field_equal(const tc_json *a, const tc_json *b, const char *key)
{
	const tc_json *x = tc_json_get(a, key);
	const tc_json *y = tc_json_get(b, key);

	if (x == NULL || y == NULL)
		return (x == NULL || tc_json_is(x, TC_JSON_NULL)) &&
		    (y == NULL || tc_json_is(y, TC_JSON_NULL));
	return tc_json_equal(x, y);
}

int
tc_session__check_path_text(const tc_json *v, tc_error *err)
{
	if (tc_json_is(v, TC_JSON_STRING) &&
	    memchr(v->u.str.ptr, '\0', v->u.str.len) != NULL) {
		tc_error_set(err, "embedded null byte");
		return -1;
	}
	return 0;
}

int
tc_session__check_root(const tc_session *s, tc_error *err)
{
	return tc_session__check_path_text(tc_json_get(s->doc, "artifact_root"), err);
}

void
tc_session__scene_init(struct sess_scene *sc, const tc_session *s,
    const char *step_id)
{
	char *report_rel;

	sc->result_rel = tc_xasprintf("phases/%s/phase-result.json", step_id);
	report_rel = tc_xasprintf("phases/%s/PHASE_REPORT.md", step_id);
	sc->manifest_rel = tc_xasprintf("phases/%s/%s", step_id,
	    TC_MANIFEST_FILE);
	sc->result_path = tc_session_artifact_path(s, sc->result_rel);
	sc->report_path = tc_session_artifact_path(s, report_rel);
	sc->manifest_path = tc_session_artifact_path(s, sc->manifest_rel);
	sc->bind_in_doc = tc_session_policy(s) == TC_POLICY_STRICT;
	free(report_rel);
}

void
tc_session__texts_free(struct sess_texts *t)
{
	free(t->result);
	free(t->report);
	free(t->manifest);
	memset(t, 0, sizeof(*t));
}

void
tc_session__scene_free(struct sess_scene *sc)
{
	free(sc->result_rel);
	free(sc->result_path);
	free(sc->report_path);
	free(sc->manifest_rel);
	free(sc->manifest_path);
	memset(sc, 0, sizeof(*sc));
}

bool
tc_session__scene_present(const struct sess_scene *sc)
{
	return tc_path_exists(sc->result_path) ||
	    tc_path_exists(sc->report_path);
}

char *
tc_session__scene_read_result(const struct sess_scene *sc, size_t *len)
{
	if (!tc_is_regular_file_nofollow(sc->result_path))
		return NULL;
	return tc_read_file(sc->result_path, 0, len, NULL);
}

bool
tc_session__file_equals(const char *path, const char *data, size_t len)
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
tc_session__scene_matches(const struct sess_scene *sc, const struct sess_texts *t)
{
	if (!tc_session__file_equals(sc->result_path, t->result, t->result_len))
		return false;
	return !tc_path_exists(sc->report_path) ||
	    tc_session__file_equals(sc->report_path, t->report, t->report_len);
}

/* The manifest on disk differs from the one this seal built: name what
 * changed (both are tunectl's manifests; one that does not parse counts
 * as the record edited). */
static void
refuse_adoption(const struct sess_scene *sc, const struct sess_texts *t,
    tc_error *err)
{
	tc_json *was = tc_json_parse_file(sc->manifest_path, NULL);
	tc_json *now = tc_json_parse(t->manifest, t->manifest_len, NULL);
	const char *step_id = tc_json_get_string(now, "step_id");

	tc_session__refuse_adoption(step_id != NULL ? step_id : "?", was, now,
	    err);
	tc_json_free(now);
	tc_json_free(was);
}

/* The manifest: when completing an interrupted seal, the one that seal
 * wrote must still say the same; otherwise it is written first (over an
 * intent left by a seal that stopped before its result was written). */
static int
write_manifest(const struct sess_scene *sc, const struct sess_texts *t,
    bool adopt, tc_error *err)
{
	if (adopt && tc_path_exists(sc->manifest_path)) {
		if (tc_session__file_equals(sc->manifest_path, t->manifest,
		    t->manifest_len))
			return 0;
		refuse_adoption(sc, t, err);
		return -1;
	}
	return tc_write_atomic(sc->manifest_path, t->manifest, t->manifest_len,
	    (adopt ? TC_WRITE_EXCLUSIVE : 0) | TC_WRITE_MKDIRS, err);
}

int
tc_session__scene_write(const tc_session *s, const struct sess_scene *sc,
    const struct sess_texts *t, bool adopt, tc_error *err)
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
	if (sc->bind_in_doc && write_manifest(sc, t, adopt, err) != 0)
		return -1;
	if (!adopt && tc_write_atomic(sc->result_path, t->result, t->result_len,
	    TC_WRITE_EXCLUSIVE | TC_WRITE_MKDIRS, err) != 0)
		return -1;
	if (adopt && tc_session__file_equals(sc->report_path, t->report,
	    t->report_len))
		return 0;
	return tc_write_atomic(sc->report_path, t->report, t->report_len,
	    TC_WRITE_EXCLUSIVE | TC_WRITE_MKDIRS, err);
}

void
tc_session__mark_sealed(tc_json *step, const struct sess_scene *sc,
    const struct sess_texts *t, const char *digest, const char *status)
{
	char now[TC_TIMESTAMP_LEN + 1];
	char hex[TC_SHA256_HEX_LEN + 1];

	tc_now_iso(now);
	tc_sha256_hex(t->manifest, t->manifest_len, hex);
	tc_json_object_set_string(step, "state", "sealed");
	tc_json_object_set_string(step, "result_path", sc->result_rel);
	tc_json_object_set_string(step, "result_sha256", digest);
	tc_json_object_set_string(step, "outcome_status", status);
	tc_json_object_set_string(step, "sealed_at", now);
	if (!sc->bind_in_doc)
		return;
	tc_json_object_set_string(step, "artifact_manifest_path",
	    sc->manifest_rel);
	tc_json_object_set_string(step, "artifact_manifest_sha256", hex);
}

int
tc_session__bind_sidecar(tc_session *s, const struct sess_scene *sc,
    const struct sess_texts *t, bool first, bool adopt, tc_error *err)
{
	tc_json *m;
	int rc = 0;

	if (sc->bind_in_doc)
		return 0;
	if ((m = tc_json_parse(t->manifest, t->manifest_len, err)) == NULL)
		return -1;
	if (first)
		rc = tc_sidecar_begin_seal(s, m, adopt, err);
	else
		tc_sidecar_add_manifest(s, m);
	tc_json_free(m);
	return rc;
}

int
tc_session__write_sealed(tc_session *s, tc_error *err)
{
	char hex[TC_SHA256_HEX_LEN + 1];
	size_t len;
	char *text = tc_json_pretty(s->doc, &len, err);
	int rc = -1;

	if (text == NULL)
		return -1;
	tc_sha256_hex(text, len, hex);
	if ((tc_session_policy(s) == TC_POLICY_STRICT ||
	    tc_sidecar_commit(s, hex, err) == 0) &&
	    tc_write_atomic(s->path, text, len, 0, err) == 0)
		rc = 0;
	free(text);
	return rc;
}

int
tc_session__render_scene(const tc_json *result, const tc_json *step,
    struct sess_texts *t, tc_error *err)
{
	free(t->result);
	free(t->report);
	t->report = NULL;
	if ((t->result = tc_json_pretty(result, &t->result_len, err)) == NULL)
		return -1;
	if ((t->report = tc_session__phase_report(result, step, err)) == NULL) {
		free(t->result);
		t->result = NULL;
		return -1;
	}
	t->report_len = strlen(t->report);
	return 0;
}

int
tc_session__render_manifest(const tc_session *s, const tc_json *step,
    const tc_json *result, const char *sealed_over, struct sess_texts *t,
    tc_error *err)
{
	tc_json *m = tc_manifest_build(s, step, result, sealed_over, err);

	if (m == NULL)
		return -1;
	free(t->manifest);
	t->manifest = tc_json_pretty(m, &t->manifest_len, err);
	tc_json_free(m);
	return t->manifest != NULL ? 0 : -1;
}
