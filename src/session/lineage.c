/*
 * lineage.c - audit views of derived sessions, beyond the reference: the
 * chain child -> parent -> ... with what each session imported
 * ("tunectl lineage"), and a verify that re-verifies every ancestor
 * instead of only digest-binding the parent ("tunectl verify --deep").
 *
 * Both walk the chain through each derived session's evidence-import
 * manifest.  The walk only locates; trust comes from loading each session
 * with full validation (which re-validates its import) and, for --deep,
 * from verifying it.
 */
#include <stdlib.h>
#include <string.h>

#include "session_internal.h"
#include "tunectl/derive.h"
#include "tunectl/path.h"
#include "tunectl/sha256.h"

char *
tc_derived_parent_path(const tc_json *doc, tc_json **manifest, tc_error *err)
{
	const tc_json *ref = tc_json_get(doc, "evidence_import");
	const char *root = tc_json_get_string(doc, "artifact_root");
	const char *rel = tc_json_get_string(ref, "path");
	const tc_json *parent;
	const char *proot, *psession;
	char *path;
	tc_json *m;

	if (manifest != NULL)
		*manifest = NULL;
	tc_error_clear(err);
	if (ref == NULL)
		return NULL;
	if (root == NULL || rel == NULL) {
		tc_error_set(err, "derived session requires one canonical "
		    "evidence_import reference");
		return NULL;
	}
	path = tc_path_join(root, rel);
	m = tc_json_parse_file(path, err);
	free(path);
	if (m == NULL) {
		tc_error_prefix(err, "evidence import cannot be read: ");
		return NULL;
	}
	parent = tc_json_get(m, "parent");
	proot = tc_json_get_string(parent, "artifact_root");
	psession = tc_json_get_string(parent, "session_path");
	if (proot == NULL || psession == NULL) {
		tc_json_free(m);
		tc_error_set(err, "evidence import does not name its parent "
		    "session");
		return NULL;
	}
	path = tc_path_join(proot, psession);
	if (manifest != NULL)
		*manifest = m;
	else
		tc_json_free(m);
	return path;
}

/* ---- lineage --------------------------------------------------------- */

static void
copy_member(tc_json *to, const char *key, const tc_json *from,
    const char *from_key)
{
	const tc_json *v = tc_json_get(from, from_key);

	tc_json_object_set(to, key, v != NULL ? tc_json_clone(v) :
	    tc_json_new_null());
}

/* What a derived session imported, from its manifest, with each
 * artifact's path resolved against the parent root as written. */
static tc_json *
imported(const tc_json *manifest)
{
	const tc_json *parent = tc_json_get(manifest, "parent");
	const tc_json *artifacts = tc_json_get(manifest, "artifacts");
	const char *proot = tc_json_get_string(parent, "artifact_root");
	tc_json *o = tc_json_new_object(), *arts = tc_json_new_object();
	size_t i;

	copy_member(o, "approved_at", tc_json_get(manifest, "authorization"),
	    "approved_at");
	copy_member(o, "parent_session_id", parent, "session_id");
	copy_member(o, "parent_artifact_root", parent, "artifact_root");
	copy_member(o, "parent_session_sha256", parent, "session_sha256");
	copy_member(o, "parent_session_fingerprint", parent,
	    "session_fingerprint");
	copy_member(o, "base_handoff", manifest, "base_handoff");
	copy_member(o, "identity", manifest, "identity");
	for (i = 0; tc_json_is(artifacts, TC_JSON_OBJECT) &&
	    i < artifacts->u.obj.len; i++) {
		const tc_json_member *m = &artifacts->u.obj.members[i];
		tc_json *d = tc_json_clone(m->value);
		const char *rel = tc_json_get_string(m->value, "path");

		if (tc_json_is(d, TC_JSON_OBJECT) && proot != NULL &&
		    rel != NULL) {
			char *abs = tc_path_join(proot, rel);

			tc_json_object_set_string(d, "resolved_path", abs);
			free(abs);
		}
		tc_json_object_setn(arts, m->key, m->key_len, d);
	}
	tc_json_object_set(o, "artifacts", arts);
	return o;
}

/* One entry of the chain; *next receives the parent's path (or NULL). */
static tc_json *
lineage_entry(const char *path, char **next, bool *valid)
{
	tc_error err = TC_ERROR_INIT;
	tc_json *e = tc_json_new_object(), *errors = tc_json_new_array();
	tc_json *doc, *manifest = NULL;
	tc_session *s = NULL;
	char hex[65];

	*next = NULL;
	tc_json_object_set_string(e, "session_path", path);
	if (tc_session_load(path, 0, &s, &err) != 0) {
		tc_json_array_push(errors, tc_json_new_string(tc_error_msg(&err)));
		tc_error_clear(&err);
	}
	/* Describe the document even when it does not validate. */
	doc = s != NULL ? s->doc : tc_json_parse_file(path, NULL);
	copy_member(e, "session_id", doc, "session_id");
	copy_member(e, "status", doc, "status");
	copy_member(e, "optional_mode", doc, "optional_mode");
	copy_member(e, "entrypoint", doc, "entrypoint");
	if (tc_json_is(tc_json_get(e, "entrypoint"), TC_JSON_NULL) &&
	    tc_json_is(doc, TC_JSON_OBJECT))
		tc_json_object_set_string(e, "entrypoint", "full");
	if (doc != NULL && tc_json_digest(doc, hex, NULL) == 0)
		tc_json_object_set_string(e, "fingerprint", hex);
	else
		tc_json_object_set_null(e, "fingerprint");
	if (tc_sha256_file(path, hex, NULL, NULL) == 0)
		tc_json_object_set_string(e, "session_sha256", hex);
	else
		tc_json_object_set_null(e, "session_sha256");
	copy_member(e, "evidence_import", doc, "evidence_import");
	if (doc != NULL)
		*next = tc_derived_parent_path(doc, &manifest, &err);
	if (*next == NULL && tc_error_msg(&err)[0] != '\0')
		tc_json_array_push(errors, tc_json_new_string(tc_error_msg(&err)));
	tc_json_object_set(e, "imported", manifest != NULL ?
	    imported(manifest) : tc_json_new_null());
	tc_json_object_set_bool(e, "valid", errors->u.arr.len == 0);
	if (errors->u.arr.len > 0)
		*valid = false;
	tc_json_object_set(e, "errors", errors);
	tc_json_free(manifest);
	if (s == NULL)
		tc_json_free(doc);
	tc_session_free(s);
	tc_error_clear(&err);
	return e;
}

static bool
seen(const tc_json *chain, const char *path)
{
	size_t i;

	for (i = 0; i < chain->u.arr.len; i++)
		if (sess_str_is(tc_json_get(chain->u.arr.items[i],
		    "session_path"), path))
			return true;
	return false;
}

tc_json *
tc_session_lineage(const char *session_path)
{
	tc_json *out = tc_json_new_object(), *chain = tc_json_new_array();
	char *path = tc_path_resolve(session_path, NULL);
	bool valid = true;

	if (path == NULL)
		path = tc_path_normalize(session_path);
	while (path != NULL) {
		char *next = NULL, *resolved;

		if (chain->u.arr.len >= TC_LINEAGE_MAX_DEPTH || seen(chain,
		    path)) {
			tc_json *e = tc_json_new_object();
			tc_json *errors = tc_json_new_array();

			tc_json_object_set_string(e, "session_path", path);
			tc_json_array_push(errors, tc_json_new_string(
			    chain->u.arr.len >= TC_LINEAGE_MAX_DEPTH ?
			    "lineage is too deep" : "lineage has a cycle"));
			tc_json_object_set(e, "errors", errors);
			tc_json_object_set_bool(e, "valid", false);
			tc_json_array_push(chain, e);
			valid = false;
			free(path);
			break;
		}
		tc_json_array_push(chain, lineage_entry(path, &next, &valid));
		free(path);
		path = NULL;
		if (next != NULL) {
			resolved = tc_path_resolve(next, NULL);
			path = resolved != NULL ? resolved : tc_xstrdup(next);
			free(next);
		}
	}
	tc_json_object_set_int(out, "depth", (int64_t)chain->u.arr.len);
	tc_json_object_set(out, "chain", chain);
	tc_json_object_set_bool(out, "valid", valid);
	return out;
}

/* ---- verify --deep ------------------------------------------------------ */

static bool
is_valid(const tc_json *verdict)
{
	const tc_json *v = tc_json_get(verdict, "valid");

	return tc_json_is(v, TC_JSON_BOOL) && v->u.b;
}

/* Mark verdict invalid because of its parent's verdict. */
static void
invalidate(tc_json *verdict, const tc_json *parent_verdict, const char *why)
{
	tc_json *errors = tc_json_get_array(verdict, "errors");
	const tc_json *perr = tc_json_get_array(parent_verdict, "errors");
	tc_buf msg = TC_BUF_INIT;
	size_t i;

	tc_buf_puts(&msg, "parent session is invalid: ");
	if (why != NULL)
		tc_buf_puts(&msg, why);
	for (i = 0; perr != NULL && i < perr->u.arr.len; i++) {
		if (i > 0 || why != NULL)
			tc_buf_puts(&msg, "; ");
		tc_buf_puts(&msg, tc_json_string(perr->u.arr.items[i]));
	}
	if (errors == NULL) {
		tc_json_object_set(verdict, "errors", tc_json_new_array());
		errors = tc_json_get_array(verdict, "errors");
	}
	tc_json_array_push(errors, tc_json_new_string(tc_buf_cstr(&msg)));
	tc_buf_free(&msg);
	tc_json_object_remove(verdict, "session_id");
	tc_json_object_remove(verdict, "status");
	tc_json_object_set_bool(verdict, "valid", false);
}

/* verify --deep of the session at path; *loaded (when not NULL) gets the
 * session as its verify loaded it.  root: the path of the session the
 * walk started from, while its resolution is not yet in visited (it is
 * resolved only when a parent is found: most sessions have none). */
static tc_json *
verify_deep(const char *path, unsigned flags, tc_json *visited,
    const char *root, tc_session **loaded)
{
	tc_error err = TC_ERROR_INIT;
	tc_session *s = NULL;
	tc_json *verdict = tc_verify_session_keep(path, flags, &s);
	/* the parent is located from the document verify loaded; one that
	 * does not load may still name it */
	tc_json *parsed = s == NULL ? tc_json_parse_file(path, NULL) : NULL;
	const tc_json *doc = s != NULL ? s->doc : parsed;
	tc_json *parent = NULL;
	char *ppath = NULL, *resolved = NULL;

	tc_json_array_push(visited, tc_json_new_string(path));
	if (doc != NULL)
		ppath = tc_derived_parent_path(doc, NULL, &err);
	if (ppath == NULL && tc_error_msg(&err)[0] != '\0' &&
	    is_valid(verdict)) {
		/* a valid session always locates its parent; keep the case */
		invalidate(verdict, NULL, tc_error_msg(&err));
	}
	if (ppath != NULL && root != NULL) {
		char *r = tc_path_resolve(root, NULL);

		if (r != NULL)
			tc_json_array_push(visited, tc_json_new_string(r));
		free(r);
	}
	if (ppath != NULL) {
		resolved = tc_path_resolve(ppath, NULL);
		if (resolved == NULL)
			resolved = tc_xstrdup(ppath);
		if (visited->u.arr.len >= TC_LINEAGE_MAX_DEPTH) {
			invalidate(verdict, NULL, "lineage is too deep");
		} else {
			size_t i;
			bool cycle = false;

			for (i = 0; i < visited->u.arr.len; i++)
				cycle |= sess_str_is(visited->u.arr.items[i],
				    resolved);
			if (cycle) {
				invalidate(verdict, NULL, "lineage has a cycle");
			} else {
				parent = verify_deep(resolved, flags, visited,
				    NULL, NULL);
				tc_json_object_set_string(parent, "session_path",
				    resolved);
				if (!is_valid(parent) && is_valid(verdict))
					invalidate(verdict, parent, NULL);
			}
		}
	}
	tc_json_object_set(verdict, "parent", parent != NULL ? parent :
	    tc_json_new_null());
	free(resolved);
	free(ppath);
	tc_json_free(parsed);
	if (loaded != NULL)
		*loaded = s;
	else
		tc_session_free(s);
	tc_error_clear(&err);
	return verdict;
}

tc_json *
tc_verify_session_deep(const char *session_path, unsigned flags)
{
	return tc_verify_session_deep_keep(session_path, flags, NULL);
}

tc_json *
tc_verify_session_deep_keep(const char *session_path, unsigned flags,
    tc_session **loaded)
{
	tc_json *visited = tc_json_new_array();
	tc_json *out;

	/* The session itself is verified by the path as given, so that its
	 * messages read as plain verify's do; its resolved path joins
	 * visited when it names a parent. */
	out = verify_deep(session_path, flags, visited, session_path, loaded);
	tc_json_free(visited);
	return out;
}

tc_json *
tc_verify_session_covered(const char *session_path, unsigned flags)
{
	return tc_verify_session_covered_keep(session_path, flags, NULL);
}

tc_json *
tc_verify_session_covered_keep(const char *session_path, unsigned flags,
    tc_session **loaded)
{
	tc_json *out = tc_verify_session_deep_keep(session_path, flags, loaded);

	/* the ancestors' verdicts decide; the document keeps plain verify's
	 * shape (no "parent" object), so a valid answer is the reference's */
	tc_json_object_remove(out, "parent");
	return out;
}
