/*
 * manifest.c - artifact manifests: what every file a sealed result names
 * looked like when it was sealed, and the checks that it still does.
 *
 * A manifest is written first when tunectl seals a step, before the
 * result, the report and the session, and it records the fingerprint of
 * the session the seal started from ("sealed_over") and the digest of
 * the result.  Where it is kept depends on the policy:
 *   - strict: phases/<step_id>/artifact-manifest.json, bound by file
 *     digest from the step (artifact_manifest_path /
 *     artifact_manifest_sha256, keys a reference reader ignores);
 *   - reference: the session's sidecar (sidecar.c), so the session and
 *     the artifact root stay exactly the reference's.
 * tc_manifest_load() is the one reader of either.  A manifest is also
 * the intent record of an interrupted seal: resume completes only a
 * scene whose manifest names the session as it is on disk.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "session_internal.h"
#include "tunectl/canon.h"
#include "tunectl/evidence.h"
#include "tunectl/fileio.h"
#include "tunectl/final.h"
#include "tunectl/path.h"
#include "tunectl/sha256.h"

/* ---- describing one artifact ------------------------------------------- */

static tc_json *
entry_new(const char *rel, const char *kind)
{
	tc_json *e = tc_json_new_object();

	tc_json_object_set_string(e, "path", rel);
	tc_json_object_set_string(e, "kind", kind);
	return e;
}

static tc_json *
unbound(tc_json *e, const char *reason)
{
	tc_json_object_set_string(e, "kind", "unbound");
	tc_json_object_set_string(e, "reason", reason);
	return e;
}

tc_json *
tc_artifact_describe(const char *root, const char *rel)
{
	char hex[TC_SHA256_HEX_LEN + 1];
	tc_json *e = entry_new(rel, "missing");
	tc_error err = TC_ERROR_INIT;
	uint64_t size = 0, files = 0;
	struct stat st;
	char *resolved;

	if ((resolved = tc_path_under_root(root, rel, "artifact", &err)) == NULL) {
		unbound(e, tc_error_msg(&err));
		tc_error_clear(&err);
		return e;
	}
	if (stat(resolved, &st) != 0) {
		if (errno != ENOENT) {
			tc_error_os(&err, errno, rel);
			unbound(e, tc_error_msg(&err));
		}
	} else if (S_ISREG(st.st_mode)) {
		if (tc_sha256_file(resolved, hex, &size, &err) != 0) {
			unbound(e, tc_error_msg(&err));
		} else {
			tc_json_object_set_string(e, "kind", "file");
			tc_json_object_set_string(e, "sha256", hex);
			tc_json_object_set_int(e, "size_bytes", (int64_t)size);
		}
	} else if (S_ISDIR(st.st_mode)) {
		if (tc_sha256_tree(resolved, hex, &files, &size, &err) != 0) {
			unbound(e, tc_error_msg(&err));
		} else {
			tc_json_object_set_string(e, "kind", "directory");
			tc_json_object_set_string(e, "sha256", hex);
			tc_json_object_set_int(e, "file_count", (int64_t)files);
			tc_json_object_set_int(e, "size_bytes", (int64_t)size);
		}
	} else {
		unbound(e, "not a regular file or directory");
	}
	tc_error_clear(&err);
	free(resolved);
	return e;
}

/* ---- which paths a result names ----------------------------------------- */

/* paths: object path -> array of roles (an object keeps them sorted and
 * unique by path). */
static void
add_path(tc_json *paths, const tc_json *value, const char *role)
{
	const char *rel = tc_json_string(value);
	tc_json *roles;
	size_t i;

	if (rel == NULL || strlen(rel) != value->u.str.len ||
	    !tc_text_is_relative_path(rel, value->u.str.len))
		return;
	if ((roles = tc_json_get(paths, rel)) == NULL) {
		roles = tc_json_new_array();
		tc_json_object_set(paths, rel, roles);
	}
	for (i = 0; i < roles->u.arr.len; i++)
		if (sess_str_is(roles->u.arr.items[i], role))
			return;
	tc_json_array_push(roles, tc_json_new_string(role));
}

static void
add_list(tc_json *paths, const tc_json *list, const char *role)
{
	size_t i;

	if (!tc_json_is(list, TC_JSON_ARRAY))
		return;
	for (i = 0; i < list->u.arr.len; i++)
		add_path(paths, list->u.arr.items[i], role);
}

/* The evidence files of a report_summary row or role object. */
static void
add_summary_row(tc_json *paths, const tc_json *row)
{
	add_list(paths, tc_json_get(row, "evidence_artifacts"),
	    "report_summary_evidence");
	add_path(paths, tc_json_get(row, "config_path"),
	    "report_summary_evidence");
}

/* The Final's ledger and the evidence its final_e2e and report_summary
 * name (the ledger was validated with the result). */
static void
add_final_paths(const tc_session *s, tc_json *paths, const tc_json *result)
{
	const tc_json *ledger_path = tc_json_get(result, "ledger_path");
	const tc_json *summary, *stages;
	tc_json *ledger;
	size_t i;

	add_path(paths, ledger_path, "ledger");
	ledger = tc_final_load_ledger_value(s->artifact_root, ledger_path,
	    NULL);
	if (ledger == NULL)
		return;
	add_list(paths, tc_json_get(tc_json_get(ledger, "final_e2e"),
	    "evidence_artifacts"), "final_e2e_evidence");
	summary = tc_json_get(ledger, "report_summary");
	add_summary_row(paths, tc_json_get(summary, "baseline"));
	stages = tc_json_get(summary, "stages");
	for (i = 0; tc_json_is(stages, TC_JSON_ARRAY) && i < stages->u.arr.len;
	    i++)
		add_summary_row(paths, stages->u.arr.items[i]);
	add_summary_row(paths, tc_json_get(summary, "winner"));
	add_summary_row(paths, tc_json_get(summary, "fallback"));
	tc_json_free(ledger);
}

/* The provenance file beside each named path, when there is one: it says
 * how tunectl computed that evidence, and strict verification reads it. */
static void
add_provenance(const tc_session *s, tc_json *paths)
{
	tc_json *names = tc_json_new_array();
	size_t i;

	for (i = 0; i < paths->u.obj.len; i++)
		tc_json_array_push(names,
		    tc_json_new_string(paths->u.obj.members[i].key));
	for (i = 0; i < names->u.arr.len; i++) {
		char *rel = tc_xasprintf("%s%s",
		    tc_json_string(names->u.arr.items[i]), TC_PROVENANCE_SUFFIX);
		char *abs = tc_session_artifact_path(s, rel);
		tc_json *v = tc_json_new_string(rel);

		if (tc_path_exists(abs))
			add_path(paths, v, "provenance");
		tc_json_free(v);
		free(abs);
		free(rel);
	}
	tc_json_free(names);
}

/* Every path a result names, with its roles. */
static tc_json *
named_paths(const tc_session *s, const tc_json *step, const tc_json *result)
{
	tc_json *paths = tc_json_new_object();

	add_list(paths, tc_json_get(result, "consumed_artifacts"), "consumed");
	add_list(paths, tc_json_get(result, "produced_artifacts"), "produced");
	if (tc_step_phase(step)->id == TC_PHASE_FINAL)
		add_final_paths(s, paths, result);
	add_provenance(s, paths);
	return paths;
}

/* ---- building ------------------------------------------------------------ */

tc_json *
tc_manifest_build(const tc_session *s, const tc_json *step,
    const tc_json *result, const char *sealed_over, tc_error *err)
{
	tc_policy policy = tc_session_policy(s);
	tc_json *paths = named_paths(s, step, result);
	tc_json *list = tc_json_new_array(), *m;
	char digest[65];
	size_t i;

	if (tc_json_digest(result, digest, err) != 0) {
		tc_json_free(paths);
		tc_json_free(list);
		return NULL;
	}
	for (i = 0; i < paths->u.obj.len; i++) {
		const tc_json_member *p = &paths->u.obj.members[i];
		tc_json *e = tc_artifact_describe(s->artifact_root, p->key);
		const char *kind = tc_json_get_string(e, "kind");

		if (policy == TC_POLICY_STRICT &&
		    (strcmp(kind, "missing") == 0 ||
		    strcmp(kind, "unbound") == 0)) {
			tc_error_set(err, "strict evidence policy: %s names %s, "
			    "which cannot be bound: %s", tc_step_id(step), p->key,
			    strcmp(kind, "missing") == 0 ? "it does not exist" :
			    tc_json_get_string(e, "reason"));
			tc_json_free(e);
			tc_json_free(paths);
			tc_json_free(list);
			return NULL;
		}
		tc_json_object_set(e, "roles", tc_json_clone(p->value));
		tc_json_array_push(list, e);
	}
	tc_json_free(paths);
	m = tc_json_new_object();
	tc_json_object_set_string(m, "schema_version", TC_MANIFEST_SCHEMA);
	tc_json_object_set_string(m, "session_id", s->session_id);
	tc_json_object_set_string(m, "step_id", tc_step_id(step));
	tc_json_object_set_string(m, "artifact_root", s->artifact_root);
	tc_json_object_set_string(m, "evidence_policy", tc_policy_name(policy));
	tc_json_object_set_string(m, "sealed_over", sealed_over);
	tc_json_object_set_string(m, "result_sha256", digest);
	tc_json_object_set(m, "artifacts", list);
	return m;
}

/* ---- reading and checking ---------------------------------------------- */

/* The binding in the sidecar of a reference-policy session. */
static int
load_from_sidecar(const tc_session *s, const tc_json *step, tc_json **out,
    tc_error *err)
{
	const tc_json *m;

	if (tc_session_policy(s) == TC_POLICY_STRICT)
		return 0;
	if (tc_sidecar_check(s, err) != 0)
		return -1;
	if ((m = tc_sidecar_manifest(s, tc_step_id(step))) != NULL)
		*out = tc_json_clone(m);
	return 0;
}

int
tc_manifest_load(const tc_session *s, const tc_json *step, tc_json **out,
    tc_error *err)
{
	const tc_json *rel = tc_json_get(step, "artifact_manifest_path");
	char hex[TC_SHA256_HEX_LEN + 1];
	char *resolved, *bytes;
	size_t len;

	*out = NULL;
	/* In the session document: strict sessions, and reference sessions
	 * sealed by a tunectl that kept its bindings there. */
	if (rel == NULL)
		return load_from_sidecar(s, step, out, err);
	if (tc_require_relative_artifact(rel, "artifact_manifest_path",
	    err) != 0 || tc_session__check_path_text(rel, err) != 0)
		return -1;
	resolved = tc_path_under_root(s->artifact_root, tc_json_string(rel),
	    "artifact_manifest_path", err);
	if (resolved == NULL)
		return -1;
	bytes = tc_read_file(resolved, 0, &len, err);
	free(resolved);
	if (bytes == NULL)
		return -1;
	tc_sha256_hex(bytes, len, hex);
	if (!sess_str_is(tc_json_get(step, "artifact_manifest_sha256"), hex)) {
		tc_error_set(err, "artifact manifest digest mismatch: %s",
		    tc_step_id(step));
		free(bytes);
		return -1;
	}
	*out = tc_json_parse(bytes, len, err);
	free(bytes);
	if (*out == NULL || !tc_json_is(*out, TC_JSON_OBJECT) ||
	    !sess_str_is(tc_json_get(*out, "schema_version"),
	    TC_MANIFEST_SCHEMA)) {
		tc_json_free(*out);
		*out = NULL;
		tc_error_set(err, "artifact manifest of %s is not a %s document",
		    tc_step_id(step), TC_MANIFEST_SCHEMA);
		return -1;
	}
	return 0;
}

static int
check_root(const tc_session *s, const tc_json *step, const tc_json *m,
    tc_error *err)
{
	if (!sess_str_is(tc_json_get(m, "artifact_root"), s->artifact_root)) {
		tc_error_set(err, "artifact_root differs from the root %s was "
		    "sealed under: %s", tc_step_id(step),
		    tc_json_get_string(m, "artifact_root") != NULL ?
		    tc_json_get_string(m, "artifact_root") : "(none)");
		return -1;
	}
	return 0;
}

/* An entry as recorded against the same path described now. */
static int
check_entry(const tc_session *s, const tc_json *step, const tc_json *sealed,
    tc_error *err)
{
	const char *rel = tc_json_get_string(sealed, "path");
	const char *kind = tc_json_get_string(sealed, "kind");
	tc_json *now, *was;
	int rc = 0;

	if (rel == NULL || kind == NULL ||
	    !tc_text_is_relative_path(rel, strlen(rel))) {
		tc_error_set(err, "artifact manifest of %s has a malformed entry",
		    tc_step_id(step));
		return -1;
	}
	/* What could not be bound was recorded as such, nothing more. */
	if (strcmp(kind, "unbound") == 0)
		return 0;
	now = tc_artifact_describe(s->artifact_root, rel);
	was = tc_json_clone(sealed);
	tc_json_object_remove(was, "roles");
	if (!tc_json_equal(was, now)) {
		const char *kind_now = tc_json_get_string(now, "kind");

		if (strcmp(kind, "missing") == 0)
			tc_error_set(err, "bound artifact changed since %s was "
			    "sealed: %s (absent when sealed, present now)",
			    tc_step_id(step), rel);
		else if (strcmp(kind_now, "missing") == 0)
			tc_error_set(err, "bound artifact changed since %s was "
			    "sealed: %s (removed)", tc_step_id(step), rel);
		else
			tc_error_set(err, "bound artifact changed since %s was "
			    "sealed: %s", tc_step_id(step), rel);
		rc = -1;
	}
	tc_json_free(was);
	tc_json_free(now);
	return rc;
}

int
tc_manifest_check(const tc_session *s, const tc_json *step, tc_error *err)
{
	tc_policy policy = tc_session_policy(s);
	const tc_json *list;
	tc_json *m;
	size_t i;
	int rc = -1;

	if (tc_manifest_load(s, step, &m, err) != 0)
		return -1;
	if (m == NULL) {
		if (policy != TC_POLICY_STRICT)
			return 0;
		tc_error_set(err, "strict evidence policy: sealed step binds no "
		    "artifact manifest: %s", tc_step_id(step));
		return -1;
	}
	if (!sess_str_is(tc_json_get(m, "step_id"), tc_step_id(step)) ||
	    !tc_session__field_equal(m, s->doc, "session_id") ||
	    !tc_session__field_equal(m, step, "result_sha256")) {
		tc_error_set(err, "artifact manifest does not belong to the "
		    "sealed result: %s", tc_step_id(step));
		goto out;
	}
	if (check_root(s, step, m, err) != 0)
		goto out;
	if (!sess_str_is(tc_json_get(m, "evidence_policy"),
	    tc_policy_name(policy))) {
		tc_error_set(err, "evidence_policy differs from the policy %s "
		    "was sealed under: %s", tc_step_id(step),
		    tc_json_get_string(m, "evidence_policy") != NULL ?
		    tc_json_get_string(m, "evidence_policy") : "(none)");
		goto out;
	}
	list = tc_json_get(m, "artifacts");
	if (!tc_json_is(list, TC_JSON_ARRAY)) {
		tc_error_set(err, "artifact manifest of %s has a malformed entry",
		    tc_step_id(step));
		goto out;
	}
	for (i = 0; i < list->u.arr.len; i++)
		if (check_entry(s, step, list->u.arr.items[i], err) != 0)
			goto out;
	rc = 0;
out:
	tc_json_free(m);
	return rc;
}

int
tc_session_check_root(const tc_session *s, tc_error *err)
{
	size_t i;

	for (i = 0; i < tc_session_step_count(s); i++) {
		const tc_json *step = tc_session_step_at(s, i);
		tc_json *m;
		int rc;

		if (!tc_step_is_sealed(step))
			continue;
		if (tc_manifest_load(s, step, &m, err) != 0)
			return -1;
		if (m == NULL)
			continue;
		rc = check_root(s, step, m, err);
		tc_json_free(m);
		return rc;
	}
	return 0;
}

bool
tc_manifest_is_intent(const tc_session *s, const tc_json *step,
    const tc_json *result)
{
	char *rel = tc_xasprintf("phases/%s/%s", tc_step_id(step),
	    TC_MANIFEST_FILE);
	char *path = tc_session_artifact_path(s, rel);
	const tc_json *intent = tc_session_policy(s) == TC_POLICY_STRICT ?
	    NULL : tc_sidecar_intent(s);
	char fingerprint[65], digest[65];
	tc_json *m = NULL;
	bool ok = false;

	/* A reference-policy intent is only ever in the sidecar: a manifest
	 * file in the artifact root is anybody's. */
	if (intent != NULL)
		m = tc_json_clone(intent);
	else if (tc_session_policy(s) == TC_POLICY_STRICT &&
	    tc_is_regular_file_nofollow(path))
		m = tc_json_parse_file(path, NULL);
	if (m != NULL && tc_session_fingerprint(s, fingerprint, NULL) == 0 &&
	    tc_json_digest(result, digest, NULL) == 0)
		ok = sess_str_is(tc_json_get(m, "schema_version"),
		    TC_MANIFEST_SCHEMA) &&
		    sess_str_is(tc_json_get(m, "step_id"), tc_step_id(step)) &&
		    sess_str_is(tc_json_get(m, "sealed_over"), fingerprint) &&
		    sess_str_is(tc_json_get(m, "result_sha256"), digest);
	tc_json_free(m);
	free(path);
	free(rel);
	return ok;
}

int
tc_session_check_final_evidence(const tc_session *s, tc_error *err)
{
	size_t i;

	for (i = 0; i < tc_session_step_count(s); i++) {
		const tc_json *step = tc_session_step_at(s, i);

		if (tc_step_is_sealed(step) &&
		    tc_step_phase(step)->id == TC_PHASE_FINAL)
			return tc_manifest_check(s, step, err);
	}
	return 0;
}

int
tc_session_check_bound(const tc_session *s, tc_error *err)
{
	size_t i;

	for (i = 0; i < tc_session_step_count(s); i++) {
		const tc_json *step = tc_session_step_at(s, i);

		if (tc_step_is_sealed(step) &&
		    tc_manifest_check(s, step, err) != 0)
			return -1;
	}
	return 0;
}

tc_json *
tc_session_unbound_steps(const tc_session *s)
{
	tc_json *ids = tc_json_new_array();
	size_t i;

	for (i = 0; i < tc_session_step_count(s); i++) {
		const tc_json *step = tc_session_step_at(s, i);
		tc_error ignored = TC_ERROR_INIT;
		tc_json *m = NULL;

		if (!tc_step_is_sealed(step))
			continue;
		if (tc_manifest_load(s, step, &m, &ignored) == 0 && m == NULL)
			tc_json_array_push(ids, tc_json_new_string(
			    tc_step_id(step)));
		tc_json_free(m);
		tc_error_clear(&ignored);
	}
	return ids;
}
