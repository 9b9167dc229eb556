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
 * manifest_borrow() (under tc_manifest_load()) is the one reader of either.  A manifest is also
 * the intent record of an interrupted seal: resume completes only a
 * scene whose manifest names the session as it is on disk.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "session_internal.h"
#include "tunectl/buf.h"
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

/* e describes a regular file of these bytes. */
static tc_json *
file_entry(tc_json *e, const char *sha256, uint64_t size)
{
	tc_json_object_set_string(e, "kind", "file");
	tc_json_object_set_string(e, "sha256", sha256);
	tc_json_object_set_int(e, "size_bytes", (int64_t)size);
	return e;
}

/* A symbolic link at <root>/<rel> that does not lead to something inside
 * the root (dangling, or out of it): bound by what it is, its link text. */
static tc_json *
describe_link(const char *root, const char *rel)
{
	char *lexical = tc_path_join(root, rel);
	char target[4096], hex[TC_SHA256_HEX_LEN + 1];
	struct stat st;
	ssize_t n = -1;
	tc_json *e = NULL;

	if (lstat(lexical, &st) == 0 && S_ISLNK(st.st_mode) &&
	    (n = readlink(lexical, target, sizeof(target) - 1)) >= 0) {
		target[n] = '\0';
		tc_sha256_hex(target, (size_t)n, hex);
		e = entry_new(rel, "symlink");
		tc_json_object_set_string(e, "target", target);
		tc_json_object_set_string(e, "sha256", hex);
	}
	free(lexical);
	return e;
}

/*
 * A directory whose tree digest refuses it because of what it holds
 * (symbolic links, FIFOs, sockets, devices): bound as a "tree", every
 * entry by its type and identity (a file's SHA-256, a link's text, a
 * special file's type; tc_tree_snapshot), the digest over the lines
 * "<kind> <sha256>  <path>\n" sorted by path.  NULL when the snapshot
 * holds no such entry (the refusal was for something else).
 */
static tc_json *
describe_tree(const char *dir, const char *rel)
{
	tc_tree_snap snap = { NULL, 0 };
	tc_error err = TC_ERROR_INIT;
	tc_buf lines = TC_BUF_INIT;
	char hex[TC_SHA256_HEX_LEN + 1];
	const char *first = NULL;
	int64_t links = 0, special = 0, files = 0;
	tc_json *e = NULL;
	size_t i;

	if (tc_tree_snapshot(dir, NULL, &snap, &err) != 0) {
		tc_error_clear(&err);
		return NULL;
	}
	for (i = 0; i < snap.n; i++) {
		const tc_tree_entry *t = &snap.entries[i];

		if (strpbrk(t->rel, "\n\r\\") != NULL)
			goto out;	/* names the tree digest refuses too */
		tc_buf_printf(&lines, "%c %s  %s\n", t->kind, t->hex, t->rel);
		files += t->kind == 'f';
		links += t->kind == 'l';
		special += t->kind == 'o';
		if (first == NULL && (t->kind == 'l' || t->kind == 'o'))
			first = t->rel;
	}
	if (first == NULL)
		goto out;
	tc_sha256_hex(lines.data != NULL ? lines.data : "", lines.len, hex);
	e = entry_new(rel, "tree");
	tc_json_object_set_string(e, "sha256", hex);
	tc_json_object_set_int(e, "file_count", files);
	tc_json_object_set_int(e, "link_count", links);
	tc_json_object_set_int(e, "special_count", special);
	tc_json_object_set_string(e, "first_irregular", first);
out:
	tc_buf_free(&lines);
	tc_tree_snap_free(&snap);
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
	tc_json *link;

	if ((resolved = tc_path_under_root(root, rel, "artifact", &err)) == NULL) {
		if ((link = describe_link(root, rel)) != NULL) {
			tc_json_free(e);
			e = link;
		} else {
			unbound(e, tc_error_msg(&err));
		}
		tc_error_clear(&err);
		return e;
	}
	if (stat(resolved, &st) != 0) {
		if ((link = describe_link(root, rel)) != NULL) {
			tc_json_free(e);
			e = link;
		} else if (errno != ENOENT) {
			tc_error_os(&err, errno, rel);
			unbound(e, tc_error_msg(&err));
		}
	} else if (S_ISREG(st.st_mode)) {
		if (tc_sha256_file(resolved, hex, &size, &err) != 0)
			unbound(e, tc_error_msg(&err));
		else
			file_entry(e, hex, size);
	} else if (S_ISDIR(st.st_mode)) {
		if (tc_sha256_tree(resolved, hex, &files, &size, &err) != 0) {
			if ((link = describe_tree(resolved, rel)) != NULL) {
				tc_json_free(e);
				e = link;
			} else {
				unbound(e, tc_error_msg(&err));
			}
		} else {
			tc_json_object_set_string(e, "kind", "directory");
			tc_json_object_set_string(e, "sha256", hex);
			tc_json_object_set_int(e, "file_count", (int64_t)files);
			tc_json_object_set_int(e, "size_bytes", (int64_t)size);
		}
	} else {
		/* a FIFO, socket or device: bound by its type */
		tc_json_object_set_string(e, "kind", "special");
		tc_json_object_set_string(e, "type", S_ISFIFO(st.st_mode) ?
		    "fifo" : S_ISSOCK(st.st_mode) ? "socket" : "device");
	}
	tc_error_clear(&err);
	free(resolved);
	return e;
}

/* ---- one description per artifact and command ----------------------------- */

bool
tc_session_memo_begin(tc_session *s)
{
	if (s->described != NULL)
		return false;
	s->described = tc_json_new_object();
	return true;
}

void
tc_session_memo_end(tc_session *s)
{
	tc_json_free(s->described);
	s->described = NULL;
}

void
tc_session__memo_file(const tc_session *s, const char *rel,
    const char *sha256, uint64_t size)
{
	tc_json *memo = s->described;

	if (memo == NULL || tc_json_get(memo, rel) != NULL)
		return;
	tc_json_object_set(memo, rel, file_entry(entry_new(rel, "missing"),
	    sha256, size));
}

/* tc_artifact_describe(), once per path while a memo is kept.  (The memo
 * is the session's scratch, not part of what the session is: updating it
 * through a const session is deliberate.) */
static tc_json *
describe(const tc_session *s, const char *rel)
{
	tc_json *memo = s->described;
	const tc_json *known;
	tc_json *e;

	if (memo != NULL && (known = tc_json_get(memo, rel)) != NULL)
		return tc_json_clone(known);
	e = tc_artifact_describe(s->artifact_root, rel);
	if (memo != NULL)
		tc_json_object_set(memo, rel, tc_json_clone(e));
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

static bool
plain_kind(const char *kind)
{
	return strcmp(kind, "file") == 0 || strcmp(kind, "directory") == 0 ||
	    strcmp(kind, "missing") == 0 || strcmp(kind, "unbound") == 0;
}

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
		tc_json *e = describe(s, p->key);
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
		/* strict evidence is regular files and directories of them */
		if (policy == TC_POLICY_STRICT && !plain_kind(kind)) {
			char *where = strcmp(kind, "tree") == 0 ?
			    tc_xasprintf("%s/%s", p->key, tc_json_get_string(e,
			    "first_irregular")) : tc_xstrdup(p->key);

			tc_error_set(err, "strict evidence policy: %s names %s, "
			    "which is or holds %s (%s); strict evidence is regular "
			    "files and directories of them", tc_step_id(step),
			    p->key, strcmp(kind, "tree") == 0 ?
			    "a symbolic link or special file" :
			    strcmp(kind, "symlink") == 0 ? "a symbolic link" :
			    "a special file", where);
			free(where);
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

/*
 * The manifest bound to a sealed step: *out borrows it (from the
 * session's sidecar) or points at *owned (read from the artifact root),
 * which the caller frees; both NULL when the step binds none.
 */
static int
manifest_borrow(const tc_session *s, const tc_json *step, const tc_json **out,
    tc_json **owned, tc_error *err)
{
	const tc_json *rel = tc_json_get(step, "artifact_manifest_path");
	char hex[TC_SHA256_HEX_LEN + 1];
	char *resolved, *bytes;
	tc_json *m;
	size_t len;

	*out = NULL;
	*owned = NULL;
	/* In the session document: strict sessions, and reference sessions
	 * sealed by a tunectl that kept its bindings there.  Else the
	 * sidecar's binding (reference policy; its chain checked first). */
	if (rel == NULL)
		return tc_session_policy(s) == TC_POLICY_STRICT ? 0 :
		    tc_sidecar_checked_manifest(s, tc_step_id(step), out, err);
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
	m = tc_json_parse(bytes, len, err);
	free(bytes);
	if (m == NULL || !tc_json_is(m, TC_JSON_OBJECT) ||
	    !sess_str_is(tc_json_get(m, "schema_version"),
	    TC_MANIFEST_SCHEMA)) {
		tc_json_free(m);
		tc_error_set(err, "artifact manifest of %s is not a %s document",
		    tc_step_id(step), TC_MANIFEST_SCHEMA);
		return -1;
	}
	*out = *owned = m;
	return 0;
}

int
tc_manifest_load(const tc_session *s, const tc_json *step, tc_json **out,
    tc_error *err)
{
	const tc_json *m;
	tc_json *owned;

	*out = NULL;
	if (manifest_borrow(s, step, &m, &owned, err) != 0)
		return -1;
	*out = owned != NULL ? owned : m != NULL ? tc_json_clone(m) : NULL;
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
	now = describe(s, rel);
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
	const tc_json *list, *m;
	tc_json *owned;
	size_t i;
	int rc = -1;

	if (manifest_borrow(s, step, &m, &owned, err) != 0)
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
	tc_json_free(owned);
	return rc;
}

int
tc_session_check_root(const tc_session *s, tc_error *err)
{
	size_t i;

	for (i = 0; i < tc_session_step_count(s); i++) {
		const tc_json *step = tc_session_step_at(s, i), *m;
		tc_json *owned;
		int rc;

		if (!tc_step_is_sealed(step))
			continue;
		if (manifest_borrow(s, step, &m, &owned, err) != 0)
			return -1;
		if (m == NULL)
			continue;
		rc = check_root(s, step, m, err);
		tc_json_free(owned);
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

/* The entry of list for path rel, or NULL. */
static const tc_json *
entry_for(const tc_json *list, const char *rel)
{
	size_t i;

	for (i = 0; tc_json_is(list, TC_JSON_ARRAY) && i < list->u.arr.len; i++)
		if (sess_str_is(tc_json_get(list->u.arr.items[i], "path"), rel))
			return list->u.arr.items[i];
	return NULL;
}

/* The first path whose entry differs between two artifact lists (one
 * that only one of them has included); NULL when they agree. */
static const char *
first_changed(const tc_json *was, const tc_json *now)
{
	const tc_json *lists[2] = { was, now };
	size_t k, i;

	for (k = 0; k < 2; k++) {
		const tc_json *list = lists[k], *other = lists[1 - k];

		for (i = 0; tc_json_is(list, TC_JSON_ARRAY) &&
		    i < list->u.arr.len; i++) {
			const tc_json *e = list->u.arr.items[i];
			const char *rel = tc_json_get_string(e, "path");

			if (rel != NULL && !tc_json_equal(e, entry_for(other,
			    rel)))
				return rel;
		}
	}
	return NULL;
}

void
tc_session__refuse_adoption(const char *step_id,
    const tc_json *intent, const tc_json *now, tc_error *err)
{
	const char *rel = first_changed(tc_json_get(intent, "artifacts"),
	    tc_json_get(now, "artifacts"));

	/* The artifacts agree: the record itself was edited. */
	if (rel == NULL) {
		tc_error_set(err, "cannot complete the interrupted seal of %s: "
		    "phases/%s/%s, the record that seal began with, was changed "
		    "since: move phases/%s/ out of the artifact root and run the "
		    "step again", step_id, step_id, TC_MANIFEST_FILE, step_id);
		return;
	}
	tc_error_set(err, "cannot complete the interrupted seal of %s: %s "
	    "changed since that seal began (an interrupted seal is completed "
	    "only over the evidence it bound): put %s back as it was, or move "
	    "phases/%s/ out of the artifact root and run the step again",
	    step_id, rel, rel, step_id);
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

/* paths (an object used as a set) gets each key of more. */
static void
merge_keys(tc_json *paths, const tc_json *more)
{
	size_t i;

	for (i = 0; i < more->u.obj.len; i++)
		if (tc_json_get(paths, more->u.obj.members[i].key) == NULL)
			tc_json_object_set(paths, more->u.obj.members[i].key,
			    tc_json_new_bool(true));
}

/* The entries of a sealed step's manifest (borrowed from the sidecar,
 * or held by *m, which the caller frees), or NULL when it binds none or
 * it cannot be read. */
static const tc_json *
manifest_entries(const tc_session *s, const tc_json *step, tc_json **m)
{
	const tc_json *list, *manifest;

	*m = NULL;
	if (!tc_step_is_sealed(step) ||
	    manifest_borrow(s, step, &manifest, m, NULL) != 0 ||
	    manifest == NULL)
		return NULL;
	list = tc_json_get(manifest, "artifacts");
	return tc_json_is(list, TC_JSON_ARRAY) ? list : NULL;
}

tc_json *
tc_session_bound_paths(const tc_session *s)
{
	tc_json *paths = tc_json_new_object();
	size_t i, k;

	for (i = 0; i < tc_session_step_count(s); i++) {
		const tc_json *step = tc_session_step_at(s, i);
		const tc_json *list;
		tc_json *m, *result, *named;
		char *abs;

		if (!tc_step_is_sealed(step))
			continue;
		if ((list = manifest_entries(s, step, &m)) != NULL) {
			for (k = 0; k < list->u.arr.len; k++)
				add_path(paths, tc_json_get(list->u.arr.items[k],
				    "path"), "bound");
			tc_json_free(m);
			continue;
		}
		tc_json_free(m);
		/* no manifest (or a broken one): what the result names */
		if (tc_json_get_string(step, "result_path") == NULL)
			continue;
		abs = tc_session_artifact_path(s,
		    tc_json_get_string(step, "result_path"));
		result = tc_is_regular_file_nofollow(abs) ?
		    tc_json_parse_file(abs, NULL) : NULL;
		free(abs);
		if (!tc_json_is(result, TC_JSON_OBJECT)) {
			tc_json_free(result);
			continue;
		}
		named = named_paths(s, step, result);
		merge_keys(paths, named);
		tc_json_free(named);
		tc_json_free(result);
	}
	return paths;
}

/* notes gets text (which it frees). */
static void
note(tc_json *notes, char *text)
{
	tc_json_array_push(notes, tc_json_new_string(text));
	free(text);
}

tc_json *
tc_session_unbound_all(const tc_session *s, tc_json **steps_unbound)
{
	size_t i, k, n = tc_session_step_count(s);
	tc_json *notes = tc_json_new_array();

	if (steps_unbound != NULL)
		*steps_unbound = tc_json_new_array();
	for (i = 0; i < n; i++) {
		const tc_json *list = NULL, *manifest, *step;
		tc_error ignored = TC_ERROR_INIT;
		tc_json *owned = NULL;

		step = tc_session_step_at(s, i);
		if (!tc_step_is_sealed(step))
			continue;
		/* one load of each manifest for both answers */
		if (manifest_borrow(s, step, &manifest, &owned, &ignored) == 0) {
			if (manifest == NULL && steps_unbound != NULL)
				tc_json_array_push(*steps_unbound,
				    tc_json_new_string(tc_step_id(step)));
			list = tc_json_get(manifest, "artifacts");
		}
		tc_error_clear(&ignored);
		/* (a broken manifest is verify's to name) */
		for (k = 0; tc_json_is(list, TC_JSON_ARRAY) &&
		    k < list->u.arr.len; k++) {
			const tc_json *e = list->u.arr.items[k];
			const char *kind = tc_json_get_string(e, "kind");
			const char *rel = tc_json_get_string(e, "path");

			if (kind == NULL || rel == NULL)
				continue;
			if (strcmp(kind, "unbound") == 0)
				note(notes, tc_xasprintf("%s: %s is unbound (%s)",
				    tc_step_id(step), rel,
				    tc_json_get_string(e, "reason") != NULL ?
				    tc_json_get_string(e, "reason") : "no reason"));
			else if (strcmp(kind, "missing") == 0)
				note(notes, tc_xasprintf("%s: %s was missing when "
				    "it was sealed", tc_step_id(step), rel));
		}
		tc_json_free(owned);
	}
	return notes;
}

tc_json *
tc_session_unbound(const tc_session *s)
{
	return tc_session_unbound_all(s, NULL);
}

int
tc_session_check_bound(const tc_session *s, tc_error *err)
{
	/* an artifact two steps bind (S0's run set, consumed by the Final)
	 * is hashed once: a memo for this check when the caller keeps none */
	tc_session *scratch = (tc_session *)s;
	bool mine = tc_session_memo_begin(scratch);
	size_t i;
	int rc = 0;

	for (i = 0; rc == 0 && i < tc_session_step_count(s); i++) {
		const tc_json *step = tc_session_step_at(s, i);

		if (tc_step_is_sealed(step) &&
		    tc_manifest_check(s, step, err) != 0)
			rc = -1;
	}
	if (mine)
		tc_session_memo_end(scratch);
	return rc;
}

tc_json *
tc_session_unbound_steps(const tc_session *s)
{
	tc_json *ids, *notes = tc_session_unbound_all(s, &ids);

	tc_json_free(notes);
	return ids;
}
