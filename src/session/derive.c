/*
 * derive.c - derive_session (docs/spec/controller.md
 * "Derivation preconditions"): a new optional-experiment session started from a
 * completed, verified parent's latest accepted BASE/SMAP handoff, with the
 * imported evidence bound by digest in an evidence-import manifest
 * (docs/spec/controller.md "Evidence-import manifest").
 *
 * Every precondition runs in the reference's order with its message
 * before anything is created.  Then the child's directories, the manifest
 * and the session are written (exclusively: an existing file is never
 * replaced) and the session is loaded back with full validation; if any
 * of that fails, the files and directories this call created are removed
 * again, so a refused derivation leaves nothing behind.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "derive_internal.h"
#include "session_internal.h"
#include "tunectl/canon.h"
#include "tunectl/derive.h"
#include "tunectl/evidence.h"
#include "tunectl/fileio.h"
#include "tunectl/path.h"
#include "tunectl/timeutil.h"

struct derive {
	const struct tc_derive_args *a;
	char *parent_path;		/* resolved --parent-session */
	tc_session *parent;
	char *parent_root;		/* resolved parent artifact_root */
	char *child_root;		/* resolved --artifact-root */
	char *child_session;		/* resolved --session */
	char *parent_rel;		/* parent session, relative to its root */
	struct der_file parent_file;
	const tc_json *base_step;
	char base_file_sha256[65];
	tc_json *base_result;
	bool have[DER_ROLE_COUNT];
	char *rel[DER_ROLE_COUNT];	/* relative to the parent root */
	struct der_file files[DER_ROLE_COUNT];
	tc_json *docs[DER_ROLE_COUNT];
	char *manifest_path;
	tc_json *manifest;
	tc_json *session;
	tc_policy policy;		/* the child's evidence policy */
};

static int
fail(tc_error *err, const char *msg)
{
	tc_error_set(err, "%s", msg);
	return -1;
}

static bool
derivable_mode(const char *mode)
{
	return mode != NULL && (strcmp(mode, "multistream") == 0 ||
	    strcmp(mode, "source-range") == 0 || strcmp(mode, "both") == 0);
}

/* Steps 1-3: approval, mode, the child's session_id. */
static int
check_request(const struct tc_derive_args *a, tc_error *err)
{
	tc_json *id;
	int rc;

	if (!a->approved)
		return fail(err, "deriving a session requires explicit approval "
		    "of imported evidence");
	if (!derivable_mode(a->optional_mode))
		return fail(err, "derived optional_mode must be multistream, "
		    "source-range, or both");
	id = a->session_id != NULL ? tc_json_new_string(a->session_id) :
	    tc_json_new_null();
	rc = tc_require_canonical(id, "session_id", err);
	tc_json_free(id);
	return rc;
}

/* Steps 4-6: the parent verifies, is completed, has another id. */
static int
check_parent(struct derive *d, tc_error *err)
{
	tc_json *verdict, *errors, *id;
	bool same;

	if ((d->parent_path = tc_path_resolve(d->a->parent_session, err)) ==
	    NULL)
		return -1;
	/* the analysis it imports is checked below, with its message */
	verdict = tc_verify_session(d->parent_path, TC_VERIFY_NO_ANALYSES);
	errors = tc_json_get_array(verdict, "errors");
	if (errors != NULL) {
		tc_session__set_errors(err, "parent session is invalid: ", errors);
		tc_json_free(verdict);
		return -1;
	}
	tc_json_free(verdict);
	if (tc_session_load(d->parent_path, 0, &d->parent, err) != 0)
		return -1;
	if (!tc_session_is_completed(d->parent))
		return fail(err, "parent session must be completed");
	id = tc_json_new_string(d->a->session_id);
	same = tc_json_equal(id, tc_json_get(d->parent->doc, "session_id"));
	tc_json_free(id);
	if (same)
		return fail(err, "derived session_id must differ from the parent "
		    "session_id");
	return 0;
}

/* tunectl's own step after 6: the child's evidence policy is the
 * parent's, or a stricter one asked for; strictness is never lost on the
 * way from a campaign to its derived sessions. */
static int
choose_policy(struct derive *d, tc_error *err)
{
	tc_policy want;

	d->policy = tc_session_policy(d->parent);
	if (d->a->evidence_policy == NULL)
		return 0;
	if (tc_policy_parse(d->a->evidence_policy, &want) != 0) {
		tc_error_set(err, "derived evidence_policy must be reference or "
		    "strict");
		return -1;
	}
	if (want == TC_POLICY_REFERENCE && d->policy == TC_POLICY_STRICT) {
		tc_error_set(err, "derived evidence_policy reference would loosen "
		    "the parent's strict evidence policy (a derived session "
		    "keeps its parent's policy or a stricter one)");
		return -1;
	}
	d->policy = want;
	return 0;
}

/* Steps 7-10: the roots, the child's paths, the parent's own file. */
static int
check_paths(struct derive *d, tc_error *err)
{
	char *resolved, digest[65], other[65];
	tc_json *doc;
	bool same;

	if ((d->parent_root = tc_path_resolve(d->parent->artifact_root,
	    err)) == NULL ||
	    (d->child_root = tc_path_resolve(d->a->artifact_root, err)) ==
	    NULL ||
	    (d->child_session = tc_path_resolve(d->a->session, err)) == NULL)
		return -1;
	if (tc_derive__roots_overlap(d->parent_root, d->child_root))
		return fail(err, "derived artifact root must be disjoint from "
		    "the parent artifact root");
	if (!tc_path_is_within(d->child_session, d->child_root))
		return fail(err, "derived session path must be inside its "
		    "artifact root");
	if (tc_path_exists(d->child_session)) {
		tc_error_set(err, "session already exists: %s",
		    d->child_session);
		return -1;
	}
	resolved = tc_path_within_strict(d->parent_root, d->parent_path,
	    "parent session", &d->parent_rel, err);
	if (resolved == NULL)
		return -1;
	if (tc_derive__file_read(&d->parent_file, resolved, err) != 0) {
		free(resolved);
		return -1;
	}
	free(resolved);
	/* The bytes bound below must be the session that was verified. */
	doc = tc_derive__file_parse(&d->parent_file, "parent session", true, err);
	if (doc == NULL)
		return -1;
	same = tc_json_digest(doc, digest, err) == 0 &&
	    tc_json_digest(d->parent->doc, other, err) == 0 &&
	    strcmp(digest, other) == 0;
	tc_json_free(doc);
	if (!same) {
		if (tc_error_msg(err)[0] == '\0')
			tc_error_set(err, "parent session changed during "
			    "derivation");
		return -1;
	}
	return 0;
}

static bool
accepted_base(const tc_json *step)
{
	const tc_phase *phase = tc_step_phase(step);
	const char *outcome = tc_step_outcome(step);

	return phase != NULL && phase->id == TC_PHASE_BASE && outcome != NULL &&
	    (strcmp(outcome, "succeeded") == 0 ||
	    strcmp(outcome, "no_gain") == 0);
}

int
tc_derive_latest_base(const tc_session *parent, const char *parent_root,
    const tc_json **stepp, tc_json **resultp, char file_sha256[65],
    tc_error *err)
{
	size_t i, n = tc_session_step_count(parent), at = 0;
	const tc_json *base = NULL;
	struct der_file f = { NULL, 0, "" };
	tc_json *result = NULL;
	char digest[65], *path;
	int rc;

	*stepp = NULL;
	*resultp = NULL;
	for (i = 0; i < n; i++) {
		if (accepted_base(tc_session_step_at(parent, i))) {
			base = tc_session_step_at(parent, i);
			at = i;
		}
	}
	if (base == NULL)
		return fail(err, "parent session has no accepted BASE/SMAP "
		    "handoff");
	for (i = at + 1; i < n; i++) {
		const tc_json *step = tc_session_step_at(parent, i);
		const char *outcome = tc_step_outcome(step);

		if (strcmp(tc_step_id(step), "optional-multistream") == 0 &&
		    outcome != NULL && strcmp(outcome, "accepted") == 0)
			return fail(err, "accepted multistream requires a later "
			    "derived BASE/SMAP handoff");
	}
	path = tc_path_join(parent_root, tc_json_get_string(base,
	    "result_path"));
	rc = tc_derive__file_read(&f, path, err);
	free(path);
	if (rc != 0) {
		tc_error_prefix(err, "BASE/SMAP phase result cannot be read: ");
		return -1;
	}
	result = tc_derive__file_parse(&f, "BASE/SMAP phase result", true, err);
	if (result == NULL || tc_json_digest(result, digest, err) != 0)
		goto fail;
	if (!sess_str_is(tc_json_get(base, "result_sha256"), digest)) {
		fail(err, "BASE/SMAP phase result digest mismatch");
		goto fail;
	}
	memcpy(file_sha256, f.sha256, sizeof(f.sha256));
	tc_derive__file_free(&f);
	*stepp = base;
	*resultp = result;
	return 0;
fail:
	tc_derive__file_free(&f);
	tc_json_free(result);
	return -1;
}

static const char *
role_argument(const struct tc_derive_args *a, int role)
{
	switch (role) {
	case DER_ANALYSIS:
		return a->profiling_analysis;
	case DER_LEDGER:
		return a->ledger;
	default:
		return a->source_scope_map;
	}
}

/* Steps 12-14: the roles, each file inside the parent root and declared
 * by the BASE result; its bytes read once for digest and content. */
static int
bind_artifacts(struct derive *d, tc_error *err)
{
	int role;

	d->have[DER_ANALYSIS] = d->have[DER_LEDGER] = true;
	if (tc_derive__mode_needs_source_map(d->a->optional_mode) &&
	    d->a->source_scope_map == NULL)
		return fail(err, "source-range derivation requires "
		    "source_scope_map");
	d->have[DER_SOURCE_MAP] = d->a->source_scope_map != NULL;
	for (role = 0; role < DER_ROLE_COUNT; role++) {
		const char *value = role_argument(d->a, role);
		char *resolved;
		tc_json *rel;
		bool bound;

		if (!d->have[role])
			continue;
		resolved = tc_path_within_strict(d->parent_root, value,
		    tc_derive__role_names[role], &d->rel[role], err);
		if (resolved == NULL)
			return -1;
		if (tc_derive__file_read(&d->files[role], resolved, err) != 0) {
			free(resolved);
			return -1;
		}
		free(resolved);
		rel = tc_json_new_string(d->rel[role]);
		bound = tc_derive__result_declares(d->base_result, rel);
		tc_json_free(rel);
		if (!bound) {
			tc_error_set(err, "%s is not bound by the selected "
			    "BASE/SMAP handoff", tc_derive__role_names[role]);
			return -1;
		}
	}
	return 0;
}

/* Step 15: content checks (a source map given in multistream mode is
 * bound by digest but not content-validated). */
static int
check_contents(struct derive *d, tc_error *err)
{
	int role;

	for (role = 0; role < DER_ROLE_COUNT; role++) {
		if (!d->have[role] || (role == DER_SOURCE_MAP &&
		    !tc_derive__mode_needs_source_map(d->a->optional_mode)))
			continue;
		d->docs[role] = tc_derive__file_parse(&d->files[role],
		    tc_derive__role_labels[role], role == DER_ANALYSIS, err);
		if (d->docs[role] == NULL)
			return -1;
	}
	return tc_derive__check_contents(d->docs, d->a->optional_mode, err);
}

static tc_json *
descriptor(const char *rel, const struct der_file *f)
{
	tc_json *o = tc_json_new_object();

	tc_json_object_set_string(o, "path", rel);
	tc_json_object_set_string(o, "sha256", f->sha256);
	tc_json_object_set_int(o, "size_bytes", (int64_t)f->len);
	return o;
}

static tc_json *
build_manifest(struct derive *d, const char *now)
{
	static const char *const identity_keys[] = {
		"experiment_id", "round_id", "candidate_name", "source_revision"
	};
	tc_json *m = tc_json_new_object(), *o;
	char fingerprint[65];
	size_t i;
	int role;

	tc_json_object_set_string(m, "schema_version",
	    TC_EVIDENCE_IMPORT_SCHEMA);
	o = tc_json_new_object();
	tc_json_object_set_bool(o, "approved", true);
	tc_json_object_set_string(o, "source", "explicit-user-request");
	tc_json_object_set_string(o, "approved_at", now);
	tc_json_object_set(m, "authorization", o);

	(void)tc_json_digest(d->parent->doc, fingerprint, NULL);
	o = tc_json_new_object();
	tc_json_object_set(o, "session_id",
	    tc_json_clone(tc_json_get(d->parent->doc, "session_id")));
	tc_json_object_set_string(o, "artifact_root", d->parent_root);
	tc_json_object_set_string(o, "session_path", d->parent_rel);
	tc_json_object_set_string(o, "session_sha256", d->parent_file.sha256);
	tc_json_object_set_string(o, "session_fingerprint", fingerprint);
	tc_json_object_set(m, "parent", o);

	o = tc_json_new_object();
	tc_json_object_set(o, "step_id",
	    tc_json_clone(tc_json_get(d->base_step, "step_id")));
	tc_json_object_set(o, "result_path",
	    tc_json_clone(tc_json_get(d->base_step, "result_path")));
	tc_json_object_set(o, "result_sha256",
	    tc_json_clone(tc_json_get(d->base_step, "result_sha256")));
	tc_json_object_set_string(o, "file_sha256", d->base_file_sha256);
	tc_json_object_set(o, "outcome_status",
	    tc_json_clone(tc_json_get(d->base_step, "outcome_status")));
	tc_json_object_set(m, "base_handoff", o);

	o = tc_json_new_object();
	for (role = 0; role < DER_ROLE_COUNT; role++)
		if (d->have[role])
			tc_json_object_set(o, tc_derive__role_names[role],
			    descriptor(d->rel[role], &d->files[role]));
	tc_json_object_set(m, "artifacts", o);

	o = tc_json_new_object();
	for (i = 0; i < sizeof(identity_keys) / sizeof(identity_keys[0]); i++)
		tc_json_object_set(o, identity_keys[i], tc_json_clone(
		    tc_json_get(d->docs[DER_ANALYSIS], identity_keys[i])));
	tc_json_object_set(m, "identity", o);
	return m;
}

/* Steps 16-18 before writing: the manifest, its path, the session. */
static int
build_documents(struct derive *d, tc_error *err)
{
	const char *mode = d->a->optional_mode;
	const char *entrypoint = strcmp(mode, "source-range") == 0 ?
	    "source-range-from-smap" : "optional-from-base";
	char now[TC_TIMESTAMP_LEN + 1], digest[65];
	tc_json *ref, *steps;

	tc_now_iso(now);
	d->manifest = build_manifest(d, now);
	d->manifest_path = tc_path_join(d->child_root, TC_EVIDENCE_IMPORT_PATH);
	if (strcmp(d->manifest_path, d->child_session) == 0)
		return fail(err, "derived session path must differ from the "
		    "evidence import path");
	if (tc_path_exists(d->manifest_path)) {
		tc_error_set(err, "evidence import already exists: %s",
		    d->manifest_path);
		return -1;
	}
	if (tc_json_digest(d->manifest, digest, err) != 0)
		return -1;
	if ((steps = tc_schedule_build(mode, entrypoint, false, err)) == NULL)
		return -1;
	d->session = tc_json_new_object();
	tc_json_object_set_string(d->session, "schema_version",
	    TC_SESSION_SCHEMA);
	tc_json_object_set_string(d->session, "session_id", d->a->session_id);
	tc_json_object_set_string(d->session, "artifact_root", d->child_root);
	tc_json_object_set_string(d->session, "optional_mode", mode);
	tc_json_object_set_string(d->session, "entrypoint", entrypoint);
	ref = tc_json_new_object();
	tc_json_object_set_string(ref, "path", TC_EVIDENCE_IMPORT_PATH);
	tc_json_object_set_string(ref, "sha256", digest);
	tc_json_object_set(d->session, "evidence_import", ref);
	tc_json_object_set_string(d->session, "status", "active");
	tc_json_object_set_string(d->session, "created_at", now);
	tc_json_object_set(d->session, "steps", steps);
	/* as init writes it: a reference session has no key at all */
	if (d->policy == TC_POLICY_STRICT)
		tc_json_object_set_string(d->session, "evidence_policy",
		    "strict");
	return tc_session_validate(d->session, TC_SESSION_NO_IMPORT, err);
}

/* ---- writing, and undoing it ------------------------------------------- */

struct created {
	char *dirs[64];		/* directories this call made, outermost first */
	size_t ndirs;
	const char *files[2];
	size_t nfiles;
};

/* Record the missing directories from dir's first missing ancestor down
 * to dir, then create them. */
static int
make_dirs(struct created *c, const char *dir, tc_error *err)
{
	char *chain[64];
	size_t n = 0, i;
	char *p = tc_xstrdup(dir);

	while (!tc_path_exists(p) && n < 64) {
		char *up = tc_path_dirname(p);

		chain[n++] = p;
		if (strcmp(up, p) == 0) {
			free(up);
			p = NULL;
			break;
		}
		p = up;
	}
	free(p);
	for (i = n; i > 0; i--) {
		if (c->ndirs < 64)
			c->dirs[c->ndirs++] = chain[i - 1];
		else
			free(chain[i - 1]);
	}
	return tc_mkdirs(dir, err);
}

static void
undo(struct created *c)
{
	size_t i;

	for (i = c->nfiles; i > 0; i--)
		(void)unlink(c->files[i - 1]);
	/* innermost first; rmdir refuses a directory someone else filled */
	for (i = c->ndirs; i > 0; i--)
		(void)rmdir(c->dirs[i - 1]);
}

static void
created_free(struct created *c)
{
	size_t i;

	for (i = 0; i < c->ndirs; i++)
		free(c->dirs[i]);
}

static tc_session *
write_documents(struct derive *d, tc_error *err)
{
	struct created c;
	char *imports = tc_path_dirname(d->manifest_path);
	char *session_dir = tc_path_dirname(d->child_session);
	tc_session *s = NULL;

	memset(&c, 0, sizeof(c));
	if (make_dirs(&c, d->child_root, err) != 0 ||
	    make_dirs(&c, imports, err) != 0 ||
	    make_dirs(&c, session_dir, err) != 0)
		goto fail;
	if (tc_write_json(d->manifest_path, d->manifest, TC_WRITE_EXCLUSIVE,
	    err) != 0)
		goto fail;
	c.files[c.nfiles++] = d->manifest_path;
	/* the child's policy record and sidecar start before it is
	 * written, as at init */
	if (tc_policy_record_start(d->child_session, d->session,
	    "derive-session", err) != 0 ||
	    tc_sidecar_start_doc(d->child_session, d->session, err) != 0 ||
	    tc_write_json(d->child_session, d->session, TC_WRITE_EXCLUSIVE,
	    err) != 0)
		goto fail;
	c.files[c.nfiles++] = d->child_session;
	if (tc_session_load(d->child_session, 0, &s, err) != 0)
		goto fail;
	goto out;
fail:
	undo(&c);
out:
	created_free(&c);
	free(imports);
	free(session_dir);
	return s;
}

static void
derive_free(struct derive *d)
{
	int role;

	free(d->parent_path);
	tc_session_free(d->parent);
	free(d->parent_root);
	free(d->child_root);
	free(d->child_session);
	free(d->parent_rel);
	tc_derive__file_free(&d->parent_file);
	tc_json_free(d->base_result);
	for (role = 0; role < DER_ROLE_COUNT; role++) {
		free(d->rel[role]);
		tc_derive__file_free(&d->files[role]);
		tc_json_free(d->docs[role]);
	}
	free(d->manifest_path);
	tc_json_free(d->manifest);
	tc_json_free(d->session);
}

tc_session *
tc_derive_session(const struct tc_derive_args *args, tc_error *err)
{
	struct derive d;
	tc_session *s = NULL;

	memset(&d, 0, sizeof(d));
	d.a = args;
	if (check_request(args, err) != 0 || check_parent(&d, err) != 0 ||
	    choose_policy(&d, err) != 0 || check_paths(&d, err) != 0 ||
	    tc_derive_latest_base(d.parent, d.parent_root, &d.base_step,
	    &d.base_result, d.base_file_sha256, err) != 0 ||
	    bind_artifacts(&d, err) != 0 || check_contents(&d, err) != 0 ||
	    build_documents(&d, err) != 0)
		goto out;
	s = write_documents(&d, err);
out:
	derive_free(&d);
	return s;
}
