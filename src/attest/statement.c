/*
 * statement.c - the in-toto Statement v1 of a verified session and its
 * signed DSSE envelope (tunectl attest), and the check of an envelope
 * against the session as it is now (tunectl verify --attestation).
 *
 * Subjects are named by their path relative to the artifact root (an
 * absolute path when a file lies outside it, such as a session file kept
 * beside the root, or the sidecar) and carry the SHA-256 of their bytes;
 * a bound directory contributes every file under it.  A derived session
 * also names the parent evidence it imported (absolute paths under the
 * parent's root, with the digests its evidence-import manifest recorded).
 */
#include <stdlib.h>
#include <string.h>

#include "tunectl/attest.h"
#include "tunectl/evidence.h"
#include "tunectl/fileio.h"
#include "tunectl/path.h"
#include "tunectl/session.h"
#include "tunectl/sha256.h"

/*
 * subjects: object name -> sha256 hex (sorted, unique), or, for an
 * artifact that is not a file or a directory of files (a tree holding
 * links or special files, a dangling link, a FIFO), name -> {"kind",
 * "sha256"}: the identity its manifest entry binds (the tree digest, the
 * link text's digest, the digest of the special file's type), signed
 * with the annotation "tunectl_kind" so that a check recomputes it the
 * same way.
 */
static const char *
identity_of(const tc_json *entry, char hex[TC_SHA256_HEX_LEN + 1])
{
	const char *kind = tc_json_get_string(entry, "kind");
	const char *type = tc_json_get_string(entry, "type");

	if (kind != NULL && strcmp(kind, "special") == 0 && type != NULL) {
		tc_sha256_hex(type, strlen(type), hex);
		return hex;
	}
	return tc_json_get_string(entry, "sha256");
}

static void
add_identity(tc_json *subjects, const tc_json *entry)
{
	char hex[TC_SHA256_HEX_LEN + 1];
	const char *rel = tc_json_get_string(entry, "path");
	const char *id = identity_of(entry, hex);
	tc_json *o;

	if (rel == NULL || id == NULL)
		return;
	o = tc_json_new_object();
	tc_json_object_set_string(o, "kind", tc_json_get_string(entry, "kind"));
	tc_json_object_set_string(o, "sha256", id);
	tc_json_object_set(subjects, rel, o);
}

static int
add_file(tc_json *subjects, const char *name, const char *path,
    tc_error *err)
{
	char hex[TC_SHA256_HEX_LEN + 1];

	if (!tc_is_regular_file_nofollow(path)) {
		tc_error_set(err, "cannot attest %s: not a regular file", name);
		return -1;
	}
	if (tc_sha256_file(path, hex, NULL, err) != 0)
		return -1;
	tc_json_object_set_string(subjects, name, hex);
	return 0;
}

/* A path of the session (relative to its root) as a subject. */
static int
add_rel(tc_json *subjects, const tc_session *s, const char *rel,
    tc_error *err)
{
	char *path;
	int rc;

	if (rel == NULL)
		return 0;
	if ((path = tc_path_under_root(s->artifact_root, rel, "subject",
	    err)) == NULL)
		return -1;
	rc = add_file(subjects, rel, path, err);
	free(path);
	return rc;
}

/* Every file of a bound directory, from its tree manifest. */
static int
add_tree(tc_json *subjects, const tc_session *s, const char *rel,
    tc_error *err)
{
	char hex[TC_SHA256_HEX_LEN + 1];
	tc_buf lines = TC_BUF_INIT;
	char *path, *p, *nl;
	int rc = -1;

	if ((path = tc_path_under_root(s->artifact_root, rel, "subject",
	    err)) == NULL)
		return -1;
	if (tc_sha256_tree_manifest(path, hex, &lines, NULL, NULL, err) != 0)
		goto out;
	for (p = lines.data; p != NULL && *p != '\0'; p = nl + 1) {
		char *name;

		if ((nl = strchr(p, '\n')) == NULL)
			break;
		*nl = '\0';
		/* "<64 hex>  <relative path>" */
		name = tc_xasprintf("%s/%s", rel, p + TC_SHA256_HEX_LEN + 2);
		p[TC_SHA256_HEX_LEN] = '\0';
		tc_json_object_set_string(subjects, name, p);
		free(name);
	}
	rc = 0;
out:
	tc_buf_free(&lines);
	free(path);
	return rc;
}

static int
add_manifest(tc_json *subjects, const tc_session *s, const tc_json *step,
    tc_error *err)
{
	const tc_json *list;
	tc_json *m;
	size_t i;
	int rc = 0;

	if (tc_manifest_load(s, step, &m, err) != 0)
		return -1;
	list = tc_json_get(m, "artifacts");
	for (i = 0; rc == 0 && tc_json_is(list, TC_JSON_ARRAY) &&
	    i < list->u.arr.len; i++) {
		const tc_json *e = list->u.arr.items[i];
		const char *kind = tc_json_get_string(e, "kind");
		const char *rel = tc_json_get_string(e, "path");

		if (kind != NULL && strcmp(kind, "file") == 0)
			rc = add_rel(subjects, s, rel, err);
		else if (kind != NULL && strcmp(kind, "directory") == 0)
			rc = add_tree(subjects, s, rel, err);
		else if (kind != NULL && (strcmp(kind, "tree") == 0 ||
		    strcmp(kind, "symlink") == 0 || strcmp(kind, "special") == 0))
			add_identity(subjects, e);
	}
	tc_json_free(m);
	return rc;
}

/* The session file's own name: relative to the root when inside it. */
static char *
session_name(const tc_session *s)
{
	char *abs = tc_path_resolve(s->path, NULL);
	char *root = tc_path_resolve(s->artifact_root, NULL);
	char *name = NULL;

	if (abs != NULL && root != NULL && tc_path_is_within(abs, root) &&
	    strcmp(abs, root) != 0)
		name = tc_path_relative_to(abs, root);
	if (name == NULL)
		name = abs != NULL ? tc_xstrdup(abs) : tc_xstrdup(s->path);
	free(abs);
	free(root);
	return name;
}

/* The sidecar of a reference-policy session (tunectl's bindings),
 * named by its absolute path: once attested, deleting or rewriting it
 * fails verify --attestation. */
static int
add_sidecar(tc_json *subjects, const tc_session *s, tc_error *err)
{
	const tc_sidecar *sc = tc_session_sidecar(s);

	if (!tc_sidecar_present(sc))
		return 0;
	return add_file(subjects, tc_sidecar_where(sc), tc_sidecar_where(sc),
	    err);
}

/* One file of the parent that a derived session imported, named by its
 * absolute path under the parent's root, with the digest recorded at
 * import: the child's attestation covers what it was derived from. */
static void
add_imported(tc_json *subjects, const char *parent_root, const tc_json *rel,
    const tc_json *sha)
{
	char *name;

	if (!tc_json_is(rel, TC_JSON_STRING) || !tc_json_is(sha, TC_JSON_STRING))
		return;
	name = tc_path_join(parent_root, tc_json_string(rel));
	tc_json_object_set_string(subjects, name, tc_json_string(sha));
	free(name);
}

/* The parent evidence of a derived session (its evidence-import
 * manifest, re-validated when the session loaded): the parent session
 * file, the BASE/SMAP result and every imported artifact. */
static int
add_import(tc_json *subjects, const tc_session *s, tc_error *err)
{
	const char *rel = tc_json_get_string(tc_json_get(s->doc,
	    "evidence_import"), "path");
	const tc_json *parent, *base, *arts;
	const char *proot;
	tc_json *m;
	char *path;
	size_t i;

	if (rel == NULL)
		return 0;
	if ((path = tc_path_under_root(s->artifact_root, rel, "subject",
	    err)) == NULL)
		return -1;
	m = tc_json_parse_file(path, err);
	free(path);
	if (m == NULL)
		return -1;
	parent = tc_json_get(m, "parent");
	base = tc_json_get(m, "base_handoff");
	arts = tc_json_get(m, "artifacts");
	proot = tc_json_get_string(parent, "artifact_root");
	if (proot == NULL || proot[0] != '/') {
		tc_json_free(m);
		tc_error_set(err, "cannot attest the evidence import %s: it names "
		    "no absolute parent artifact_root", rel);
		return -1;
	}
	add_imported(subjects, proot, tc_json_get(parent, "session_path"),
	    tc_json_get(parent, "session_sha256"));
	add_imported(subjects, proot, tc_json_get(base, "result_path"),
	    tc_json_get(base, "file_sha256"));
	for (i = 0; tc_json_is(arts, TC_JSON_OBJECT) && i < arts->u.obj.len;
	    i++) {
		const tc_json *d = arts->u.obj.members[i].value;

		add_imported(subjects, proot, tc_json_get(d, "path"),
		    tc_json_get(d, "sha256"));
	}
	tc_json_free(m);
	return 0;
}

/* Every subject of a loaded session: name -> sha256. */
static tc_json *
session_subjects(const tc_session *s, tc_error *err)
{
	tc_json *subjects = tc_json_new_object();
	char *name = session_name(s);
	size_t i;
	int rc;

	rc = add_file(subjects, name, s->path, err);
	free(name);
	if (rc == 0)
		rc = add_sidecar(subjects, s, err);
	for (i = 0; rc == 0 && i < tc_session_step_count(s); i++) {
		const tc_json *step = tc_session_step_at(s, i);
		char *report;

		if (!tc_step_is_sealed(step))
			continue;
		report = tc_xasprintf("phases/%s/PHASE_REPORT.md", tc_step_id(step));
		rc = add_rel(subjects, s, tc_json_get_string(step, "result_path"),
		    err);
		if (rc == 0)
			rc = add_rel(subjects, s, report, err);
		if (rc == 0)
			rc = add_rel(subjects, s, tc_json_get_string(step,
			    "artifact_manifest_path"), err);
		if (rc == 0)
			rc = add_rel(subjects, s, tc_json_get_string(step,
			    "dispatch_receipt_path"), err);
		if (rc == 0)
			rc = add_manifest(subjects, s, step, err);
		free(report);
	}
	if (rc == 0 && tc_session_is_completed(s))
		rc = add_rel(subjects, s, "FINAL_E2E_REPORT.md", err);
	if (rc == 0 && tc_json_get(s->doc, "evidence_import") != NULL)
		rc = add_rel(subjects, s, tc_json_get_string(tc_json_get(s->doc,
		    "evidence_import"), "path"), err);
	if (rc == 0)
		rc = add_import(subjects, s, err);
	if (rc != 0) {
		tc_json_free(subjects);
		return NULL;
	}
	return subjects;
}

/* Load a session and require it to verify. */
static tc_session *
verified_session(const char *session_path, tc_error *err)
{
	tc_json *verdict = tc_verify_session(session_path, 0);
	const tc_json *errors = tc_json_get(verdict, "errors");
	tc_session *s = NULL;

	if (tc_json_is(errors, TC_JSON_ARRAY) && errors->u.arr.len > 0)
		tc_error_set(err, "session does not verify: %s",
		    tc_json_string(errors->u.arr.items[0]));
	else
		(void)tc_session_load(session_path, 0, &s, err);
	tc_json_free(verdict);
	return s;
}

/* The in-toto subject list of a name -> sha256 map, in its (name) order. */
static tc_json *
intoto_subjects(const tc_json *subjects)
{
	tc_json *list = tc_json_new_array();
	size_t i;

	for (i = 0; i < subjects->u.obj.len; i++) {
		tc_json *subj = tc_json_new_object(), *digest = tc_json_new_object();
		const tc_json *v = subjects->u.obj.members[i].value;

		tc_json_object_set_string(subj, "name",
		    subjects->u.obj.members[i].key);
		if (tc_json_is(v, TC_JSON_OBJECT)) {
			tc_json *notes = tc_json_new_object();

			tc_json_object_set(digest, "sha256",
			    tc_json_clone(tc_json_get(v, "sha256")));
			tc_json_object_set(notes, "tunectl_kind",
			    tc_json_clone(tc_json_get(v, "kind")));
			tc_json_object_set(subj, "annotations", notes);
		} else {
			tc_json_object_set(digest, "sha256", tc_json_clone(v));
		}
		tc_json_object_set(subj, "digest", digest);
		tc_json_array_push(list, subj);
	}
	return list;
}

/* The predicate: which session this is, and that it verified. */
static tc_json *
session_predicate(const tc_session *s, const char *fingerprint)
{
	tc_json *pred = tc_json_new_object();

	tc_json_object_set_string(pred, "session_id", s->session_id);
	tc_json_object_set_string(pred, "status", s->status);
	tc_json_object_set_string(pred, "artifact_root", s->artifact_root);
	tc_json_object_set_string(pred, "evidence_policy",
	    tc_policy_name(tc_session_policy(s)));
	tc_json_object_set_string(pred, "session_fingerprint", fingerprint);
	tc_json_object_set_bool(pred, "verified", true);
	tc_json_object_set_string(pred, "verifier", "tunectl " TUNECTL_VERSION);
	return pred;
}

tc_json *
tc_attest_statement(const char *session_path, tc_error *err)
{
	tc_session *s = verified_session(session_path, err);
	tc_json *subjects, *list, *st;
	char fingerprint[65];

	if (s == NULL)
		return NULL;
	if ((subjects = session_subjects(s, err)) == NULL ||
	    tc_session_fingerprint(s, fingerprint, err) != 0) {
		tc_json_free(subjects);
		tc_session_free(s);
		return NULL;
	}
	list = intoto_subjects(subjects);
	tc_json_free(subjects);
	st = tc_json_new_object();
	tc_json_object_set_string(st, "_type", TC_INTOTO_STATEMENT);
	tc_json_object_set(st, "subject", list);
	tc_json_object_set_string(st, "predicateType", TC_ATTEST_PREDICATE);
	tc_json_object_set(st, "predicate", session_predicate(s, fingerprint));
	tc_session_free(s);
	return st;
}

/* <root>.attestation.dsse.json, with the root's trailing slashes dropped;
 * NULL when that is still inside the root. */
static char *
default_output(const char *root, tc_error *err)
{
	size_t n = strlen(root);
	char *path;

	while (n > 1 && root[n - 1] == '/')
		n--;
	path = tc_xmalloc(n + sizeof(TC_ATTEST_DEFAULT_SUFFIX));
	memcpy(path, root, n);
	memcpy(path + n, TC_ATTEST_DEFAULT_SUFFIX,
	    sizeof(TC_ATTEST_DEFAULT_SUFFIX));
	if (tc_path_is_within(path, root)) {
		tc_error_set(err, "the default attestation path %s is inside the "
		    "artifact root %s; give --output outside it", path, root);
		free(path);
		return NULL;
	}
	return path;
}

int
tc_attest_session(const char *session_path, const char *key_path,
    const char *output, char **written, tc_error *err)
{
	tc_key *k = NULL;
	tc_json *st = NULL, *env = NULL;
	tc_session *s = NULL;
	char *payload = NULL, *target = NULL;
	size_t len;
	int rc = -1;

	if (written != NULL)
		*written = NULL;
	if ((k = tc_key_load_private(key_path, err)) == NULL)
		goto out;
	if ((st = tc_attest_statement(session_path, err)) == NULL)
		goto out;
	if ((payload = tc_json_canonical(st, &len, err)) == NULL)
		goto out;
	if ((env = tc_dsse_sign(k, TC_DSSE_PAYLOAD_TYPE, payload, len,
	    err)) == NULL)
		goto out;
	if (output != NULL) {
		target = tc_xstrdup(output);
	} else {
		if (tc_session_load(session_path, 0, &s, err) != 0 ||
		    (target = default_output(s->artifact_root, err)) == NULL)
			goto out;
	}
	if (tc_write_json(target, env, TC_WRITE_MKDIRS, err) != 0)
		goto out;
	if (written != NULL) {
		*written = target;
		target = NULL;
	}
	rc = 0;
out:
	free(target);
	free(payload);
	tc_json_free(env);
	tc_json_free(st);
	tc_session_free(s);
	tc_key_free(k);
	return rc;
}

/* ---- checking ------------------------------------------------------------ */

static bool
kind_is(const tc_json *entry, const char *kind)
{
	const char *k = tc_json_get_string(entry, "kind");

	return k != NULL && strcmp(k, kind) == 0;
}

/* The file a subject names: relative names lie under the artifact root
 * the signed predicate names. */
static char *
subject_path(const char *root, const char *name, tc_error *err)
{
	if (name[0] == '/')
		return tc_xstrdup(name);
	return tc_path_under_root(root, name, "subject", err);
}

static int
check_subjects(const char *root, const tc_json *list, tc_error *err)
{
	size_t i;

	if (!tc_json_is(list, TC_JSON_ARRAY) || list->u.arr.len == 0) {
		tc_error_set(err, "attestation statement has no subjects");
		return -1;
	}
	for (i = 0; i < list->u.arr.len; i++) {
		const tc_json *subj = list->u.arr.items[i];
		const char *name = tc_json_get_string(subj, "name");
		const char *want = tc_json_get_string(tc_json_get(subj, "digest"),
		    "sha256");
		char hex[TC_SHA256_HEX_LEN + 1];
		tc_error inner = TC_ERROR_INIT;
		const char *kind;
		char *path;
		bool same;

		if (name == NULL || want == NULL) {
			tc_error_set(err, "attestation subject %zu has no name or "
			    "sha256", i);
			return -1;
		}
		kind = tc_json_get_string(tc_json_get(subj, "annotations"),
		    "tunectl_kind");
		if (kind != NULL && name[0] != '/') {
			/* described again the way its manifest entry was */
			tc_json *now = tc_artifact_describe(root, name);
			const char *id = identity_of(now, hex);

			same = kind_is(now, kind) && id != NULL &&
			    strcmp(id, want) == 0;
			tc_json_free(now);
			if (!same) {
				tc_error_set(err, "attestation subject changed: %s",
				    name);
				return -1;
			}
			continue;
		}
		path = subject_path(root, name, &inner);
		same = path != NULL && tc_is_regular_file_nofollow(path) &&
		    tc_sha256_file(path, hex, NULL, &inner) == 0 &&
		    strcmp(hex, want) == 0;
		if (!same) {
			tc_error_set(err, "attestation subject %s: %s", path != NULL &&
			    tc_path_exists(path) ? "changed" : "is missing", name);
			tc_error_clear(&inner);
			free(path);
			return -1;
		}
		free(path);
	}
	return 0;
}

int
tc_attest_check(const char *session_path, const char *attestation_path,
    const char *pubkey_path, size_t *subjects, char keyid[65],
    tc_error *err)
{
	tc_key *k = NULL;
	tc_json *env = NULL, *st = NULL, *now = NULL;
	tc_session *s = NULL;
	const tc_json *list;
	const char *root;
	char *payload = NULL;
	size_t len, i;
	int rc = -1;

	if ((k = tc_key_load_public(pubkey_path, err)) == NULL)
		goto out;
	if ((env = tc_json_parse_file(attestation_path, err)) == NULL)
		goto out;
	if ((payload = tc_dsse_open(env, k, TC_DSSE_PAYLOAD_TYPE, &len,
	    err)) == NULL)
		goto out;
	if ((st = tc_json_parse(payload, len, err)) == NULL ||
	    !tc_json_is(st, TC_JSON_OBJECT) ||
	    tc_json_get_string(st, "_type") == NULL ||
	    strcmp(tc_json_get_string(st, "_type"), TC_INTOTO_STATEMENT) != 0 ||
	    tc_json_get_string(st, "predicateType") == NULL ||
	    strcmp(tc_json_get_string(st, "predicateType"),
	    TC_ATTEST_PREDICATE) != 0) {
		tc_error_set(err, "attestation payload is not a %s statement of "
		    "type %s", TC_INTOTO_STATEMENT, TC_ATTEST_PREDICATE);
		goto out;
	}
	/* The subjects first, as signed: a changed session file is a
	 * changed subject before it is anything else. */
	list = tc_json_get(st, "subject");
	root = tc_json_get_string(tc_json_get(st, "predicate"), "artifact_root");
	if (root == NULL) {
		tc_error_set(err, "attestation predicate names no artifact_root");
		goto out;
	}
	if (check_subjects(root, list, err) != 0)
		goto out;
	if (tc_session_load(session_path, 0, &s, err) != 0)
		goto out;
	if (!tc_json_equal(tc_json_get(tc_json_get(st, "predicate"),
	    "session_id"), tc_json_get(s->doc, "session_id")) ||
	    strcmp(root, s->artifact_root) != 0) {
		tc_error_set(err, "attestation is about another session, not %s",
		    s->session_id);
		goto out;
	}
	/* Everything sealed now must have been attested. */
	if ((now = session_subjects(s, err)) == NULL)
		goto out;
	for (i = 0; i < now->u.obj.len; i++) {
		const char *name = now->u.obj.members[i].key;
		size_t k2;
		bool covered = false;

		for (k2 = 0; k2 < list->u.arr.len && !covered; k2++)
			covered = tc_json_get_string(list->u.arr.items[k2], "name") !=
			    NULL && strcmp(tc_json_get_string(list->u.arr.items[k2],
			    "name"), name) == 0;
		if (!covered) {
			tc_error_set(err, "attestation does not cover %s", name);
			goto out;
		}
	}
	if (subjects != NULL)
		*subjects = list->u.arr.len;
	if (keyid != NULL)
		tc_key_id(k, keyid);
	rc = 0;
out:
	free(payload);
	tc_json_free(env);
	tc_json_free(st);
	tc_json_free(now);
	tc_session_free(s);
	tc_key_free(k);
	return rc;
}
