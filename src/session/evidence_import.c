/*
 * evidence_import.c - docs/spec/controller.md "Session validation" step 8 for a
 * derived (non-full) session: the shape of its "evidence_import" reference and
 * the re-validation of the manifest it binds (docs/spec/controller.md
 * "Evidence-import manifest"), run on every load.
 *
 * This file owns the whole of
 * docs/spec/controller.md "Evidence-import manifest": the reference's shape
 * checks and the manifest's digest, schema and authorization checks (steps
 * 1-4), then the parent/BASE/artifact re-validation (steps 5-10,
 * check_bound_evidence()).  Beyond the reference, the child's and the parent's
 * artifact roots must still be disjoint, and the child's evidence policy
 * no looser than the parent's.
 */
#include <stdlib.h>
#include <string.h>

#include "derive_internal.h"
#include "session_internal.h"
#include "tunectl/canon.h"
#include "tunectl/evidence.h"
#include "tunectl/path.h"

/* docs/spec/controller.md "Evidence-import manifest" step 1: an object with
 * exactly the keys {path, sha256}. */
static int
check_reference(const tc_json *ref, tc_error *err)
{
	if (!tc_json_is(ref, TC_JSON_OBJECT) || ref->u.obj.len != 2 ||
	    tc_json_get(ref, "path") == NULL ||
	    tc_json_get(ref, "sha256") == NULL) {
		tc_error_set(err, "derived session requires one canonical "
		    "evidence_import reference");
		return -1;
	}
	if (tc_require_relative_artifact(tc_json_get(ref, "path"),
	    "evidence_import path", err) != 0)
		return -1;
	return tc_require_canonical(tc_json_get(ref, "sha256"),
	    "evidence_import sha256", err);
}

/* _read_object(path, label) */
static tc_json *
read_object(const char *path, const char *label, tc_error *err)
{
	tc_json *v = tc_json_parse_file(path, err);

	if (v == NULL) {
		tc_error_prefix(err, "%s cannot be read: ", label);
		return NULL;
	}
	if (!tc_json_is(v, TC_JSON_OBJECT)) {
		tc_json_free(v);
		tc_error_set(err, "%s must be a JSON object", label);
		return NULL;
	}
	return v;
}

/* docs/spec/controller.md "Evidence-import manifest" step 4. */
static int
check_authorization(const tc_json *manifest, tc_error *err)
{
	const tc_json *auth = tc_json_get(manifest, "authorization");
	const tc_json *approved = tc_json_get(auth, "approved");

	if (!tc_json_is(auth, TC_JSON_OBJECT) ||
	    !tc_json_is(approved, TC_JSON_BOOL) || !approved->u.b ||
	    !sess_str_is(tc_json_get(auth, "source"), "explicit-user-request") ||
	    !tc_is_nonblank_string(tc_json_get(auth, "approved_at"))) {
		tc_error_set(err, "evidence import lacks explicit approval");
		return -1;
	}
	return 0;
}

/* What steps 5-10 read, kept for the later steps. */
struct bound {
	const tc_json *doc, *manifest;
	const char *mode;
	const char *parent_root;	/* parent.artifact_root as written */
	tc_json *parent;		/* the parent session document */
	tc_json *base_result;		/* its BASE/SMAP phase result */
	struct der_file files[DER_ROLE_COUNT];
	tc_json *docs[DER_ROLE_COUNT];
};

static int
fail(tc_error *err, const char *msg)
{
	tc_error_set(err, "%s", msg);
	return -1;
}

/*
 * _path_within(parent_root, parent_root / <relative>, label), then read
 * the file once.  The relative path must be a relative artifact path
 * (name) without an embedded NUL.
 */
static int
read_within(const struct bound *b, const tc_json *relative, const char *name,
    const char *label, struct der_file *f, tc_error *err)
{
	char *joined, *resolved;
	int rc;

	if (tc_require_relative_artifact(relative, name, err) != 0 ||
	    tc_session__check_path_text(relative, err) != 0)
		return -1;
	joined = tc_path_join(b->parent_root, tc_json_string(relative));
	resolved = tc_path_within_strict(b->parent_root, joined, label, NULL,
	    err);
	free(joined);
	if (resolved == NULL)
		return -1;
	rc = tc_derive__file_read(f, resolved, err);
	free(resolved);
	return rc;
}

/* The child's and the parent's roots must stay disjoint (checked by
 * derivation; re-checked here so that evidence moved into the child's
 * own root, or a child moved into its parent, is refused). */
static int
check_disjoint(const struct bound *b, tc_error *err)
{
	char *child = tc_path_resolve(tc_json_get_string(b->doc,
	    "artifact_root"), err);
	char *parent;
	bool overlap;

	if (child == NULL)
		return -1;
	if ((parent = tc_path_resolve(b->parent_root, err)) == NULL) {
		free(child);
		return -1;
	}
	overlap = tc_derive__roots_overlap(child, parent);
	free(child);
	free(parent);
	if (overlap)
		return fail(err, "derived artifact root must be disjoint from "
		    "the parent artifact root");
	return 0;
}

/* docs/spec/controller.md "Evidence-import manifest" step 5: the parent
 * session, bound by bytes and fingerprint. */
static int
check_parent(struct bound *b, tc_error *err)
{
	const tc_json *parent = tc_json_get(b->manifest, "parent");
	const tc_json *root;
	struct der_file f = { NULL, 0, "" };
	char digest[65];
	int rc = -1;

	if (!tc_json_is(parent, TC_JSON_OBJECT))
		return fail(err, "evidence import parent must be an object");
	root = tc_json_get(parent, "artifact_root");
	if (tc_require_canonical(root, "parent artifact_root", err) != 0 ||
	    tc_session__check_path_text(root, err) != 0)
		return -1;
	b->parent_root = tc_json_string(root);
	if (b->parent_root[0] != '/')
		return fail(err, "parent artifact_root must be absolute");
	if (check_disjoint(b, err) != 0)
		return -1;
	if (read_within(b, tc_json_get(parent, "session_path"),
	    "parent session_path", "parent session", &f, err) != 0)
		return -1;
	if (!sess_str_is(tc_json_get(parent, "session_sha256"), f.sha256)) {
		fail(err, "imported parent session digest mismatch");
		goto out;
	}
	if ((b->parent = tc_derive__file_parse(&f, "parent session", true, err)) ==
	    NULL || tc_json_digest(b->parent, digest, err) != 0)
		goto out;
	if (!sess_str_is(tc_json_get(parent, "session_fingerprint"), digest)) {
		fail(err, "imported parent session fingerprint mismatch");
		goto out;
	}
	if (!tc_session__field_equal(b->parent, parent, "session_id")) {
		fail(err, "imported parent session identity mismatch");
		goto out;
	}
	rc = 0;
out:
	tc_derive__file_free(&f);
	return rc;
}

/* The parent's step that the manifest's base_handoff names, unchanged. */
static bool
parent_step_matches(const struct bound *b, const tc_json *base)
{
	const tc_json *steps = tc_json_get(b->parent, "steps");
	const tc_json *step = NULL;
	size_t i;

	for (i = 0; tc_json_is(steps, TC_JSON_ARRAY) && i < steps->u.arr.len;
	    i++) {
		const tc_json *s = steps->u.arr.items[i];

		if (tc_json_is(s, TC_JSON_OBJECT) &&
		    tc_session__field_equal(s, base, "step_id")) {
			step = s;
			break;
		}
	}
	return step != NULL &&
	    sess_str_is(tc_json_get(step, "phase"),
	    "base_profile_source_mapping") &&
	    sess_str_is(tc_json_get(step, "state"), "sealed") &&
	    tc_session__field_equal(step, base, "result_path") &&
	    tc_session__field_equal(step, base, "result_sha256") &&
	    tc_session__field_equal(step, base, "outcome_status");
}

/* docs/spec/controller.md "Evidence-import manifest" step 6: the BASE/SMAP
 * handoff, bound by bytes and semantics, and still the parent's. */
static int
check_base(struct bound *b, tc_error *err)
{
	const tc_json *base = tc_json_get(b->manifest, "base_handoff");
	struct der_file f = { NULL, 0, "" };
	char digest[65];
	int rc = -1;

	if (!tc_json_is(base, TC_JSON_OBJECT))
		return fail(err, "evidence import base_handoff must be an "
		    "object");
	if (read_within(b, tc_json_get(base, "result_path"),
	    "imported BASE/SMAP result_path", "imported BASE/SMAP result", &f,
	    err) != 0)
		return -1;
	if (!sess_str_is(tc_json_get(base, "file_sha256"), f.sha256)) {
		fail(err, "imported BASE/SMAP result digest mismatch");
		goto out;
	}
	if ((b->base_result = tc_derive__file_parse(&f, "imported BASE/SMAP result",
	    true, err)) == NULL ||
	    tc_json_digest(b->base_result, digest, err) != 0)
		goto out;
	if (!sess_str_is(tc_json_get(base, "result_sha256"), digest)) {
		fail(err, "imported BASE/SMAP semantic digest mismatch");
		goto out;
	}
	if (!parent_step_matches(b, base)) {
		fail(err, "imported BASE/SMAP handoff differs from the parent "
		    "session");
		goto out;
	}
	rc = 0;
out:
	tc_derive__file_free(&f);
	return rc;
}

/* docs/spec/controller.md "Evidence-import manifest" step 7: the roles, none
 * unknown, the required ones present. */
static int
check_roles(const struct bound *b, const tc_json *artifacts, tc_error *err)
{
	size_t i;

	if (!tc_json_is(artifacts, TC_JSON_OBJECT))
		return fail(err, "evidence import artifacts must be an object");
	for (i = 0; i < artifacts->u.obj.len; i++)
		if (tc_derive__role_of(artifacts->u.obj.members[i].key,
		    artifacts->u.obj.members[i].key_len) < 0)
			return fail(err, "evidence import contains an "
			    "unsupported artifact role");
	if (tc_json_get(artifacts, "profiling_analysis") == NULL ||
	    tc_json_get(artifacts, "ledger") == NULL ||
	    (tc_derive__mode_needs_source_map(b->mode) &&
	    tc_json_get(artifacts, "source_scope_map") == NULL))
		return fail(err, "evidence import is missing required "
		    "artifacts");
	return 0;
}

/* docs/spec/controller.md "Evidence-import manifest" step 8 for one descriptor.
 */
static int
check_descriptor(struct bound *b, int role, const tc_json *desc,
    tc_error *err)
{
	const char *name = tc_derive__role_names[role];
	struct der_file *f = &b->files[role];
	tc_json *size;
	char *label, *path_name;
	bool same;
	int rc;

	if (!tc_json_is(desc, TC_JSON_OBJECT)) {
		tc_error_set(err, "imported artifact %s descriptor must be an "
		    "object", name);
		return -1;
	}
	label = tc_xasprintf("imported artifact %s", name);
	path_name = tc_xasprintf("imported artifact %s path", name);
	rc = read_within(b, tc_json_get(desc, "path"), path_name, label, f,
	    err);
	free(path_name);
	free(label);
	if (rc != 0)
		return -1;
	if (!sess_str_is(tc_json_get(desc, "sha256"), f->sha256)) {
		tc_error_set(err, "imported artifact %s digest mismatch", name);
		return -1;
	}
	size = tc_json_new_int((int64_t)f->len);
	same = tc_json_get(desc, "size_bytes") != NULL &&
	    tc_json_equal(tc_json_get(desc, "size_bytes"), size);
	tc_json_free(size);
	if (!same) {
		tc_error_set(err, "imported artifact %s size mismatch", name);
		return -1;
	}
	if (!tc_derive__result_declares(b->base_result, tc_json_get(desc, "path"))) {
		tc_error_set(err, "imported artifact %s is not bound by BASE/SMAP",
		    name);
		return -1;
	}
	return 0;
}

/* docs/spec/controller.md "Evidence-import manifest" step 9: the content
 * checks, on the bytes digested in step 8. */
static int
check_contents(struct bound *b, tc_error *err)
{
	int role;

	for (role = 0; role < DER_ROLE_COUNT; role++) {
		if (b->files[role].bytes == NULL)
			continue;
		if (role == DER_SOURCE_MAP &&
		    !tc_derive__mode_needs_source_map(b->mode))
			continue;
		b->docs[role] = tc_derive__file_parse(&b->files[role],
		    tc_derive__role_labels[role], role == DER_ANALYSIS, err);
		if (b->docs[role] == NULL)
			return -1;
	}
	return tc_derive__check_contents(b->docs, b->mode, err);
}

/* docs/spec/controller.md "Evidence-import manifest" step 10: the identity the
 * manifest recorded is the analysis's. */
static int
check_identity(const struct bound *b, tc_error *err)
{
	static const char *const keys[] = {
		"experiment_id", "round_id", "candidate_name", "source_revision"
	};
	const tc_json *analysis = b->docs[DER_ANALYSIS];
	tc_json *want = tc_json_new_object();
	bool same;
	size_t i;

	for (i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
		tc_json_object_set(want, keys[i],
		    tc_json_clone(tc_json_get(analysis, keys[i])));
	same = tc_json_equal(tc_json_get(b->manifest, "identity"), want);
	tc_json_free(want);
	if (!same)
		return fail(err, "evidence import identity differs from "
		    "profiling analysis");
	return 0;
}

/* Beyond the reference, on every load and not only at derive-session
 * (issue 34): a derived session keeps its parent's evidence policy or a
 * stricter one.  Before the child's first seal no manifest repeats its
 * policy, so a worker that drops "evidence_policy" from the child's file
 * would otherwise seal its Final from a hand-written final_e2e.  A policy
 * that does not parse is the session validation's to report. */
static int
check_policy(const struct bound *b, tc_error *err)
{
	tc_policy mine, parents;

	if (tc_policy_of_doc(b->doc, &mine, NULL) != 0 ||
	    tc_policy_of_doc(b->parent, &parents, NULL) != 0)
		return 0;
	if (parents == TC_POLICY_STRICT && mine != TC_POLICY_STRICT)
		return fail(err, "derived session's evidence_policy reference "
		    "is looser than its parent's strict evidence policy (a "
		    "derived session keeps its parent's policy or a stricter "
		    "one): put \"evidence_policy\": \"strict\" back");
	return 0;
}

/*
 * docs/spec/controller.md "Evidence-import manifest" steps 5-10: the parent
 * session, the BASE/SMAP handoff and the imported artifacts, re-read and
 * digest-checked against the parent artifact root, then the
 * analysis/ledger/source-map content checks and the identity.  Every file is
 * read once; its digest and its content check are of the same bytes.
 */
static int
check_bound_evidence(const tc_json *doc, const tc_json *manifest,
    tc_error *err)
{
	struct bound b;
	const tc_json *artifacts = tc_json_get(manifest, "artifacts");
	int role, rc = -1;
	size_t i;

	memset(&b, 0, sizeof(b));
	b.doc = doc;
	b.manifest = manifest;
	b.mode = tc_json_get_string(doc, "optional_mode");
	if (check_parent(&b, err) != 0 || check_policy(&b, err) != 0 ||
	    check_base(&b, err) != 0 ||
	    check_roles(&b, artifacts, err) != 0)
		goto out;
	/* in the manifest's (sorted) key order, as the reference iterates
	 * the manifest it wrote with sort_keys */
	for (i = 0; i < artifacts->u.obj.len; i++) {
		const tc_json_member *m = &artifacts->u.obj.members[i];

		role = tc_derive__role_of(m->key, m->key_len);
		if (check_descriptor(&b, role, m->value, err) != 0)
			goto out;
	}
	if (check_contents(&b, err) != 0 || check_identity(&b, err) != 0)
		goto out;
	rc = 0;
out:
	for (role = 0; role < DER_ROLE_COUNT; role++) {
		tc_derive__file_free(&b.files[role]);
		tc_json_free(b.docs[role]);
	}
	tc_json_free(b.parent);
	tc_json_free(b.base_result);
	return rc;
}

int
tc_evidence_import_validate(const tc_json *doc, tc_error *err)
{
	const tc_json *ref = tc_json_get(doc, "evidence_import");
	const char *root = tc_json_get_string(doc, "artifact_root");
	char digest[65];
	tc_json *manifest;
	char *path;
	int rc = -1;

	if (check_reference(ref, err) != 0 ||
	    tc_session__check_path_text(tc_json_get(doc, "artifact_root"), err) != 0 ||
	    tc_session__check_path_text(tc_json_get(ref, "path"), err) != 0)
		return -1;
	path = tc_path_join(root, tc_json_get_string(ref, "path"));
	manifest = read_object(path, "evidence import", err);
	free(path);
	if (manifest == NULL)
		return -1;
	if (tc_json_digest(manifest, digest, err) != 0)
		goto out;
	if (!sess_str_is(tc_json_get(ref, "sha256"), digest)) {
		tc_error_set(err, "evidence import digest mismatch");
		goto out;
	}
	if (!sess_str_is(tc_json_get(manifest, "schema_version"),
	    TC_EVIDENCE_IMPORT_SCHEMA)) {
		tc_error_set(err, "evidence import schema_version is invalid");
		goto out;
	}
	if (check_authorization(manifest, err) != 0)
		goto out;
	rc = check_bound_evidence(doc, manifest, err);
out:
	tc_json_free(manifest);
	return rc;
}
