/*
 * smap.c - source_scope_map_v2 bundles (--source-scope-map): the
 * fail-closed loader that either proves every source range of a bundle
 * against the sealed evidence beside it, or stops the analysis with one
 * message; the source_scope_mapping object; and the exact rung of the
 * mapping ladder, which lends a structurally exact SK its source
 * interval (docs/analysis.md "Source scope maps").
 *
 * Every message is the reference's (source_scope_map_v2.py and
 * source_calibration_common.py), so an agent reading either tool's
 * refusal learns the same thing.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "analysis_internal.h"
#include "tunectl/buf.h"
#include "tunectl/fileio.h"
#include "tunectl/path.h"
#include "tunectl/sha256.h"
#include "tunectl/text.h"

/* provenance's artifacts, then the two of a stable_source map */
const char *const tc_smap_artifact_keys[TC_SMAP_NARTIFACTS + 2] = {
	"provenance_dag", "source_manifest", "sk_source_map",
	"block_instance_inventory", "calibration_projection",
	"original_fused_inventory", "unit_assignments",
	"original_candidate_collection_manifest",
	"calibration_collection_manifest", "baseline_collection_manifest",
	"calibration_source_manifest", "marker_only_calibration",
};
#define NARTIFACT TC_SMAP_NARTIFACTS
static const char *const *const artifact_keys = tc_smap_artifact_keys;
enum { A_DAG, A_SOURCE, A_SKMAP, A_BLOCKS, A_PROJ, A_FUSED, A_UNITS,
	A_CAND, A_CALIB, A_BASE };

static const char *const *const auto_keys = tc_smap_artifact_keys +
    TC_SMAP_NARTIFACTS;

/* ---- the reference's small checks ------------------------------------- */

static bool
nonfinite(const tc_json *v)
{
	size_t i;

	if (v->type == TC_JSON_FLOAT)
		return !isfinite(v->u.f);
	if (v->type == TC_JSON_ARRAY) {
		for (i = 0; i < v->u.arr.len; i++)
			if (nonfinite(v->u.arr.items[i]))
				return true;
	} else if (v->type == TC_JSON_OBJECT) {
		for (i = 0; i < v->u.obj.len; i++)
			if (nonfinite(v->u.obj.members[i].value))
				return true;
	}
	return false;
}

/* load_json(path, label): UTF-8, strict JSON, no NaN or Infinity */
tc_json *
tc_analysis__smap_load_json(const char *path, const char *label,
    tc_error *err)
{
	size_t len;
	char *raw = tc_read_file(path, TC_READ_MAX_BYTES, &len, err);
	tc_json *v;
	tc_error e = TC_ERROR_INIT;

	if (raw == NULL)
		return NULL;
	if (!tc_utf8_check(raw, len, err)) {
		free(raw);
		return NULL;
	}
	v = tc_json_parse_text(raw, len, &e);
	free(raw);
	if (v == NULL) {
		tc_error_set(err, "%s is invalid JSON: %s", label,
		    tc_error_msg(&e));
		tc_error_clear(&e);
		return NULL;
	}
	if (nonfinite(v)) {
		tc_error_set(err, "%s contains invalid constant NaN", label);
		tc_json_free(v);
		return NULL;
	}
	return v;
}

static bool
is_text(const tc_json *v)
{
	return v != NULL && v->type == TC_JSON_STRING &&
	    tc_text_is_canonical(v->u.str.ptr, v->u.str.len);
}

static const char *
require_text(const tc_json *v, const char *label, tc_error *err)
{
	if (!is_text(v)) {
		tc_error_set(err, "%s must be a non-empty trimmed string", label);
		return NULL;
	}
	return v->u.str.ptr;
}

static const char *
require_sha256(const tc_json *v, const char *label, tc_error *err)
{
	const char *t = require_text(v, label, err);
	size_t i;

	if (t == NULL)
		return NULL;
	for (i = 0; t[i] != '\0'; i++)
		if (!((t[i] >= '0' && t[i] <= '9') ||
		    (t[i] >= 'a' && t[i] <= 'f')))
			break;
	if (i != 64 || t[i] != '\0') {
		tc_error_set(err, "%s must be a lowercase SHA-256 hex digest",
		    label);
		return NULL;
	}
	return t;
}

static const tc_json *
require_object(const tc_json *v, const char *label, tc_error *err)
{
	if (v == NULL || v->type != TC_JSON_OBJECT) {
		tc_error_set(err, "%s must be an object", label);
		return NULL;
	}
	return v;
}

static const tc_json *
require_list(const tc_json *v, const char *label, tc_error *err)
{
	if (v == NULL || v->type != TC_JSON_ARRAY) {
		tc_error_set(err, "%s must be a list", label);
		return NULL;
	}
	return v;
}

static bool
in_list(const char *const *list, size_t n, const char *s)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (strcmp(list[i], s) == 0)
			return true;
	return false;
}

static int
cmp_str(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* validate_exact_keys: missing fields first, then unknown ones, each
 * list sorted and joined with ", " */
static const tc_json *
exact_keys(const tc_json *v, const char *const *allowed, size_t nallowed,
    const char *const *required, size_t nrequired, const char *label,
    tc_error *err)
{
	const char **names;
	size_t i, n = 0;
	tc_buf b = TC_BUF_INIT;

	if (require_object(v, label, err) == NULL)
		return NULL;
	names = tc_xmalloc((nrequired + v->u.obj.len + 1) * sizeof(*names));
	for (i = 0; i < nrequired; i++)
		if (tc_json_get(v, required[i]) == NULL)
			names[n++] = required[i];
	if (n == 0) {
		for (i = 0; i < v->u.obj.len; i++)
			if (!in_list(allowed, nallowed, v->u.obj.members[i].key))
				names[n++] = v->u.obj.members[i].key;
		if (n == 0) {
			free(names);
			return v;
		}
		tc_buf_printf(&b, "%s has unknown fields: ", label);
	} else {
		tc_buf_printf(&b, "%s is missing fields: ", label);
	}
	qsort(names, n, sizeof(*names), cmp_str);
	for (i = 0; i < n; i++)
		tc_buf_printf(&b, "%s%s", i ? ", " : "", names[i]);
	tc_error_set(err, "%s", tc_buf_cstr(&b));
	tc_buf_free(&b);
	free(names);
	return NULL;
}

/* Python's str() of a JSON scalar (None when absent) */
static char *
py_str(const tc_json *v)
{
	tc_buf b = TC_BUF_INIT;

	if (v == NULL)
		return tc_xstrdup("None");
	tc_json_str(&b, v);
	return tc_buf_detach(&b, NULL);
}

static bool
json_eq(const tc_json *a, const tc_json *b)
{
	/* a missing member reads as None, like null */
	if (a == NULL || b == NULL)
		return (a == NULL || a->type == TC_JSON_NULL) &&
		    (b == NULL || b->type == TC_JSON_NULL);
	return tc_json_equal(a, b);
}

const char *
tc_analysis__smap_text(const tc_json *v, const char *label, tc_error *err)
{
	return require_text(v, label, err);
}

const char *
tc_analysis__smap_sha256(const tc_json *v, const char *label, tc_error *err)
{
	return require_sha256(v, label, err);
}

const tc_json *
tc_analysis__smap_object(const tc_json *v, const char *label, tc_error *err)
{
	return require_object(v, label, err);
}

const tc_json *
tc_analysis__smap_list(const tc_json *v, const char *label, tc_error *err)
{
	return require_list(v, label, err);
}

bool
tc_analysis__smap_same(const tc_json *a, const tc_json *b)
{
	return json_eq(a, b);
}

/* canonical_sha256 of v without one member of obj (obj inside v) */
static void
digest_without(tc_json *v, tc_json *obj, const char *key, char hex[65])
{
	tc_json *saved = tc_json_object_take(obj, key);

	hex[0] = '\0';
	if (tc_json_digest(v, hex, NULL) != 0)
		hex[0] = '\0';
	if (saved != NULL)
		tc_json_object_set(obj, key, saved);
}

static bool
fingerprint_is(const tc_json *v, const char *key)
{
	tc_json *copy;
	const char *want;
	char hex[65];
	bool ok;

	if (v == NULL || v->type != TC_JSON_OBJECT)
		return false;
	want = tc_json_get_string(v, key);
	copy = tc_json_clone(v);
	digest_without(copy, copy, key, hex);
	ok = want != NULL && hex[0] != '\0' && strcmp(want, hex) == 0;
	tc_json_free(copy);
	return ok;
}

static bool
opt_str_eq(const char *a, const char *b)
{
	return a != NULL && b != NULL && strcmp(a, b) == 0;
}

static bool
regular_file(const char *path)
{
	struct stat st;

	return lstat(path, &st) == 0 && S_ISREG(st.st_mode);
}

static bool
regular_dir(const char *path)
{
	struct stat st;

	return lstat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

static bool
file_sha_is(const char *path, const char *want)
{
	char hex[65];

	return want != NULL && regular_file(path) &&
	    tc_sha256_file(path, hex, NULL, NULL) == 0 &&
	    strcmp(hex, want) == 0;
}

/* safe_relative_path: relative, no ".." component; the "." and empty
 * components pathlib drops are dropped.  malloc'd normalised path. */
static char *
safe_relative(const tc_json *v, const char *label, tc_error *err)
{
	const char *t = require_text(v, label, err);
	const char *p;

	if (t == NULL)
		return NULL;
	for (p = t; *p != '\0';) {
		size_t n = strcspn(p, "/");

		if (n == 2 && p[0] == '.' && p[1] == '.')
			break;
		p += n;
		if (*p == '/')
			p++;
	}
	if (t[0] == '/' || *p != '\0') {
		tc_error_set(err, "%s must be a normalized relative path "
		    "without '..'", label);
		return NULL;
	}
	return tc_path_normalize(t);
}

/* resolve_evidence_path: root is resolved; the result is the resolved
 * path of value under it, never a link, never outside it. */
char *
tc_analysis__smap_resolve(const char *root, const tc_json *v,
    const char *label, tc_error *err)
{
	char *rel = safe_relative(v, label, err), *cand, *parent, *rp, *res;
	struct stat st;
	tc_error e = TC_ERROR_INIT;

	if (rel == NULL)
		return NULL;
	cand = tc_path_join(root, rel);
	free(rel);
	parent = tc_path_dirname(cand);
	rp = tc_path_resolve(parent, &e);
	free(parent);
	if (rp == NULL || !tc_path_is_within(rp, root)) {
		tc_error_set(err, "%s escapes the artifact root", label);
		goto fail;
	}
	free(rp);
	rp = NULL;
	if (lstat(cand, &st) == 0 && S_ISLNK(st.st_mode)) {
		tc_error_set(err, "%s must not be a symlink", label);
		goto fail;
	}
	res = tc_path_resolve(cand, &e);
	if (res == NULL || !tc_path_is_within(res, root)) {
		free(res);
		tc_error_set(err, "%s resolves outside the artifact root",
		    label);
		goto fail;
	}
	free(cand);
	tc_error_clear(&e);
	return res;
fail:
	free(rp);
	free(cand);
	tc_error_clear(&e);
	return NULL;
}

/* load_hashed_json(root, reference, label) */
static tc_json *
load_hashed(const char *root, const tc_json *ref, const char *label,
    tc_error *err)
{
	char *l = tc_xasprintf("%s.relative_path", label), *path;
	const char *want;
	tc_json *v = NULL;

	if (require_object(ref, label, err) == NULL) {
		free(l);
		return NULL;
	}
	path = tc_analysis__smap_resolve(root, tc_json_get(ref, "relative_path"), l,
	    err);
	free(l);
	if (path == NULL)
		return NULL;
	l = tc_xasprintf("%s.sha256", label);
	want = require_sha256(tc_json_get(ref, "sha256"), l, err);
	free(l);
	if (want == NULL)
		goto done;
	if (!regular_file(path)) {
		tc_error_set(err, "%s artifact does not exist: %s", label,
		    path);
		goto done;
	}
	if (!file_sha_is(path, want)) {
		tc_error_set(err, "%s SHA-256 mismatch", label);
		goto done;
	}
	v = tc_analysis__smap_load_json(path, label, err);
done:
	free(path);
	return v;
}

/* validate_byte_span: 0 <= start < end <= size */
static int
byte_span(const tc_json *span, size_t size, const char *label,
    int64_t *start, int64_t *end, tc_error *err)
{
	const tc_json *s, *e;

	if (require_object(span, label, err) == NULL)
		return -1;
	s = tc_json_get(span, "start_offset");
	e = tc_json_get(span, "end_offset");
	if (s == NULL || s->type != TC_JSON_INT || !tc_json_int64(s, start) ||
	    *start < 0) {
		tc_error_set(err, "%s.start_offset must be an integer >= 0",
		    label);
		return -1;
	}
	if (e == NULL || e->type != TC_JSON_INT || !tc_json_int64(e, end) ||
	    *end < 1) {
		tc_error_set(err, "%s.end_offset must be an integer >= 1",
		    label);
		return -1;
	}
	if (*end <= *start || (uint64_t)*end > size) {
		tc_error_set(err, "%s must be an increasing span inside the "
		    "source file", label);
		return -1;
	}
	return 0;
}

static bool
span_sha_is(const char *content, int64_t s, int64_t e, const tc_json *want)
{
	char hex[65];

	tc_sha256_hex(content + s, (size_t)(e - s), hex);
	return want != NULL && want->type == TC_JSON_STRING &&
	    strcmp(want->u.str.ptr, hex) == 0;
}

/* ---- the archived source snapshot -------------------------------------- */

struct snap_file {
	char *name, *path;
};

static const char *
snap_find(const struct snap_file *f, size_t n, const char *name)
{
	size_t i;

	for (i = n; i-- > 0;)
		if (strcmp(f[i].name, name) == 0)
			return f[i].path;
	return NULL;
}

static int
snapshot_units(const tc_json *smf, const struct snap_file *files,
    size_t nfiles, tc_error *err)
{
	const tc_json *units = require_list(tc_json_get(smf, "units"),
	    "source units", err);
	bool marker = !opt_str_eq(tc_json_get_string(smf, "revision_role"),
	    "stable_source");
	size_t i, k;

	if (units == NULL)
		return -1;
	for (i = 0; i < units->u.arr.len; i++) {
		const tc_json *u = units->u.arr.items[i];
		const char *sf = u->type == TC_JSON_OBJECT ?
		    tc_json_get_string(u, "source_file") : NULL;
		const char *path = sf != NULL ? snap_find(files, nfiles, sf) :
		    NULL;
		char label[64], *content, hex[65];
		size_t len;
		int64_t s, e;
		const tc_json *ns;

		if (path == NULL) {
			tc_error_set(err, "source unit %zu references an "
			    "unarchived file", i);
			return -1;
		}
		if ((content = tc_read_file(path, TC_READ_MAX_BYTES, &len,
		    err)) == NULL)
			return -1;
		snprintf(label, sizeof(label), "source units[%zu]", i);
		if (byte_span(u, len, label, &s, &e, err) != 0)
			goto bad;
		if (!span_sha_is(content, s, e, tc_json_get(u,
		    "source_span_sha256"))) {
			tc_error_set(err, "source unit %zu byte span "
			    "fingerprint mismatch", i);
			goto bad;
		}
		snprintf(label, sizeof(label),
		    "source unit %zu.normalized_syntax", i);
		if ((ns = require_object(tc_json_get(u, "normalized_syntax"),
		    label, err)) == NULL)
			goto bad;
		if (tc_json_digest(ns, hex, NULL) != 0 ||
		    tc_json_get_string(u, "syntax_tree_hash") == NULL ||
		    strcmp(hex, tc_json_get_string(u, "syntax_tree_hash")) !=
		    0) {
			tc_error_set(err, "source unit %zu syntax-tree "
			    "fingerprint mismatch", i);
			goto bad;
		}
		for (k = 0; marker && k < 2; k++) {
			const char *name = k == 0 ? "begin" : "end";
			const tc_json *ops = tc_json_get(u,
			    "marker_operations"), *m;
			int64_t ms, me;

			snprintf(label, sizeof(label), "source unit %zu %s", i,
			    name);
			m = ops != NULL && ops->type == TC_JSON_OBJECT ?
			    tc_json_get(ops, name) : NULL;
			if (require_object(m, label, err) == NULL ||
			    byte_span(m, len, label, &ms, &me, err) != 0)
				goto bad;
			if (tc_json_get_string(m, "operation_kind") == NULL ||
			    strcmp(tc_json_get_string(m, "operation_kind"),
			    k == 0 ? "scope_begin" : "scope_end") != 0 ||
			    !(s <= ms && ms < me && me <= e)) {
				tc_error_set(err, "source unit %zu %s marker "
				    "is invalid", i, name);
				goto bad;
			}
			if (!span_sha_is(content, ms, me, tc_json_get(m,
			    "operation_sha256"))) {
				tc_error_set(err, "source unit %zu %s marker "
				    "fingerprint mismatch", i, name);
				goto bad;
			}
		}
		free(content);
		continue;
bad:
		free(content);
		return -1;
	}
	return 0;
}

/* _validate_snapshot: the archived files, their manifest and every
 * source unit's bytes */
static int
snapshot(const char *root, const tc_json *prov, const tc_json *smf,
    tc_error *err)
{
	const tc_json *ref = require_object(tc_json_get(prov,
	    "source_snapshot_root"), "provenance.source_snapshot_root", err);
	const tc_json *list, *fsha;
	char *rel = NULL, *sroot = NULL, *mpath = NULL;
	const char *want;
	tc_json *sm = NULL;
	struct snap_file *files = NULL;
	size_t n = 0, i;
	int rc = -1;

	if (ref == NULL || (rel = safe_relative(tc_json_get(ref,
	    "relative_path"), "provenance.source_snapshot_root.relative_path",
	    err)) == NULL)
		goto done;
	{
		tc_json *r = tc_json_new_string(rel);

		sroot = tc_analysis__smap_resolve(root, r,
		    "provenance.source_snapshot_root.relative_path", err);
		tc_json_free(r);
	}
	if (sroot == NULL)
		goto done;
	if (!regular_dir(sroot)) {
		tc_error_set(err, "source snapshot root must be a regular "
		    "directory");
		goto done;
	}
	mpath = tc_path_join(sroot, "source-snapshot-manifest.json");
	if ((want = require_sha256(tc_json_get(ref, "manifest_sha256"),
	    "provenance.source_snapshot_root.manifest_sha256", err)) == NULL)
		goto done;
	if (!file_sha_is(mpath, want)) {
		tc_error_set(err, "source snapshot manifest SHA-256 mismatch");
		goto done;
	}
	if ((sm = tc_analysis__smap_load_json(mpath,
	    "source snapshot manifest", err)) == NULL)
		goto done;
	if (sm->type != TC_JSON_OBJECT ||
	    tc_json_get_string(sm, "protocol") == NULL ||
	    strcmp(tc_json_get_string(sm, "protocol"),
	    "source_snapshot_manifest_v1") != 0) {
		tc_error_set(err, "source snapshot manifest protocol is "
		    "unsupported");
		goto done;
	}
	if (!fingerprint_is(sm, "manifest_fingerprint")) {
		tc_error_set(err, "source snapshot manifest fingerprint "
		    "mismatch");
		goto done;
	}
	if ((list = require_list(tc_json_get(sm, "files"), "snapshot files",
	    err)) == NULL)
		goto done;
	files = tc_xcalloc(list->u.arr.len + 1, sizeof(*files));
	for (i = 0; i < list->u.arr.len; i++) {
		const tc_json *it = list->u.arr.items[i], *sha;
		char label[64], *p;

		snprintf(label, sizeof(label), "snapshot files[%zu]", i);
		if (require_object(it, label, err) == NULL)
			goto done;
		snprintf(label, sizeof(label),
		    "snapshot files[%zu].relative_path", i);
		if ((p = tc_analysis__smap_resolve(sroot, tc_json_get(it,
		    "relative_path"), label, err)) == NULL)
			goto done;
		snprintf(label, sizeof(label), "snapshot files[%zu].sha256", i);
		if ((sha = tc_json_get(it, "sha256"), require_sha256(sha, label,
		    err)) == NULL) {
			free(p);
			goto done;
		}
		if (!file_sha_is(p, sha->u.str.ptr)) {
			tc_error_set(err, "snapshot file evidence mismatch: %s",
			    p);
			free(p);
			goto done;
		}
		files[n].path = p;
		files[n++].name = safe_relative(tc_json_get(it,
		    "relative_path"), "snapshot path", NULL);
	}
	fsha = tc_json_get(smf, "file_sha256");
	{
		/* the file set equals the manifest's */
		size_t nkeys = fsha != NULL && fsha->type == TC_JSON_OBJECT ?
		    fsha->u.obj.len : 0, distinct = 0, j;
		bool same = true;

		for (i = 0; i < n; i++) {
			for (j = 0; j < i; j++)
				if (strcmp(files[j].name, files[i].name) == 0)
					break;
			if (j == i)
				distinct++;
			if (nkeys == 0 || tc_json_get(fsha, files[i].name) ==
			    NULL)
				same = false;
		}
		if (!same || distinct != nkeys) {
			tc_error_set(err, "source snapshot file set differs "
			    "from source manifest");
			goto done;
		}
		for (i = 0; i < nkeys; i++) {
			const tc_json *w = fsha->u.obj.members[i].value;
			const char *name = fsha->u.obj.members[i].key;

			if (w->type != TC_JSON_STRING ||
			    !file_sha_is(snap_find(files, n, name),
			    w->u.str.ptr)) {
				tc_error_set(err, "source manifest file SHA-256 "
				    "mismatch for %s", name);
				goto done;
			}
		}
	}
	rc = snapshot_units(smf, files, n, err);
done:
	for (i = 0; i < n; i++) {
		free(files[i].name);
		free(files[i].path);
	}
	free(files);
	tc_json_free(sm);
	free(mpath);
	free(sroot);
	free(rel);
	return rc;
}

/* _snapshot_root: a snapshot root reference resolved under root */
static char *
snapshot_root(const char *root, const tc_json *ref, const char *label,
    tc_error *err)
{
	char *l, *rel, *out;
	tc_json *r;

	if (require_object(ref, label, err) == NULL)
		return NULL;
	l = tc_xasprintf("%s.relative_path", label);
	rel = safe_relative(tc_json_get(ref, "relative_path"), l, err);
	if (rel == NULL) {
		free(l);
		return NULL;
	}
	r = tc_json_new_string(rel);
	out = tc_analysis__smap_resolve(root, r, l, err);
	tc_json_free(r);
	free(rel);
	free(l);
	return out;
}

/* _validate_current_source: --source-root holds the archived bytes */
static int
current_source(const char *source_root, const tc_json *smf, tc_error *err)
{
	tc_error e = TC_ERROR_INIT;
	char *root = tc_path_resolve(source_root, &e);
	const tc_json *fsha = tc_json_get(smf, "file_sha256");
	size_t i;
	int rc = -1;

	tc_error_clear(&e);
	if (root == NULL || !regular_dir(root)) {
		struct stat st;

		if (root == NULL || stat(root, &st) != 0 ||
		    !S_ISDIR(st.st_mode)) {
			tc_error_set(err, "current source root must be an "
			    "existing directory");
			goto done;
		}
	}
	for (i = 0; fsha != NULL && fsha->type == TC_JSON_OBJECT &&
	    i < fsha->u.obj.len; i++) {
		const char *name = fsha->u.obj.members[i].key;
		const tc_json *w = fsha->u.obj.members[i].value;
		tc_json *nv = tc_json_new_string(name);
		char *label = tc_xasprintf("current source file %s", name);
		char *p = tc_analysis__smap_resolve(root, nv, label, err);

		free(label);
		tc_json_free(nv);
		if (p == NULL)
			goto done;
		if (w->type != TC_JSON_STRING || !file_sha_is(p,
		    w->u.str.ptr)) {
			free(p);
			tc_error_set(err, "current source differs from archived "
			    "source snapshot: %s", name);
			goto done;
		}
		free(p);
	}
	rc = 0;
done:
	free(root);
	return rc;
}

/* ---- the provenance DAG ----------------------------------------------- */

struct dag_node {
	const char *id, *path, *sha;
	const tc_json *deps;
	bool *dep_on;		/* by node index (the original edges) */
	size_t pending;
};

struct dag {
	struct dag_node *n;
	size_t len;
};

static ssize_t
dag_find(const struct dag *d, const char *id)
{
	size_t i;

	for (i = 0; i < d->len; i++)
		if (strcmp(d->n[i].id, id) == 0)
			return (ssize_t)i;
	return -1;
}

/* by_path and ids_by_path keep the last node of a path */
static ssize_t
dag_by_path(const struct dag *d, const char *path)
{
	size_t i;

	for (i = d->len; i-- > 0;)
		if (strcmp(d->n[i].path, path) == 0)
			return (ssize_t)i;
	return -1;
}

static bool
dag_depends(const struct dag *d, size_t owner, size_t dep)
{
	bool *seen = tc_xcalloc(d->len, sizeof(*seen));
	size_t *stack = tc_xmalloc((d->len * d->len + 1) * sizeof(*stack));
	size_t top = 0, i;
	bool found = false;

	for (i = 0; i < d->len; i++)
		if (d->n[owner].dep_on[i])
			stack[top++] = i;
	while (top > 0 && !found) {
		size_t cur = stack[--top];

		if (cur == dep) {
			found = true;
			break;
		}
		if (seen[cur])
			continue;
		seen[cur] = true;
		for (i = 0; i < d->len; i++)
			if (d->n[cur].dep_on[i])
				stack[top++] = i;
	}
	free(seen);
	free(stack);
	return found;
}

/* the relative_path of every {relative_path, sha256} object below v */
static void
referenced_paths(const tc_json *v, tc_json *out)
{
	size_t i;

	if (v == NULL)
		return;
	if (v->type == TC_JSON_OBJECT) {
		const char *p = tc_json_get_string(v, "relative_path");

		if (p != NULL && tc_json_get(v, "sha256") != NULL)
			tc_analysis__list_add_unique(out, p);
		for (i = 0; i < v->u.obj.len; i++)
			referenced_paths(v->u.obj.members[i].value, out);
	} else if (v->type == TC_JSON_ARRAY) {
		for (i = 0; i < v->u.arr.len; i++)
			referenced_paths(v->u.arr.items[i], out);
	}
}

static int
cmp_json_str(const void *a, const void *b)
{
	return strcmp((*(tc_json *const *)a)->u.str.ptr,
	    (*(tc_json *const *)b)->u.str.ptr);
}

/* Python's repr of a sorted list of strings */
static void
set_list_error(tc_error *err, const char *what, tc_json *list)
{
	tc_buf b = TC_BUF_INIT;

	qsort(list->u.arr.items, list->u.arr.len, sizeof(tc_json *),
	    cmp_json_str);
	tc_json_repr(&b, list);
	tc_error_set(err, "%s: %s", what, tc_buf_cstr(&b));
	tc_buf_free(&b);
}

/* references: the provenance's artifacts but the DAG, and the snapshot
 * manifest, as {key: {relative_path, sha256}} */
static int
dag_check(const char *root, const tc_json *dagdoc, const tc_json *refs,
    const char *const *order, size_t norder, const tc_json *proj,
    const tc_json *units, const tc_json *fused, tc_error *err)
{
	static const char *const node_keys[] = { "artifact_id",
	    "relative_path", "sha256", "depends_on" };
	struct dag d = { NULL, 0 };
	const tc_json *nodes, *cat;
	tc_json *pe = tc_json_new_array(), *ae = tc_json_new_array();
	tc_json *fe = tc_json_new_array(), *all = tc_json_new_array(), *miss;
	size_t i, j, visited = 0;
	size_t *queue = NULL, qh = 0, qt = 0;
	char label[256];
	int rc = -1;

	if (dagdoc->type != TC_JSON_OBJECT ||
	    tc_json_get_string(dagdoc, "protocol") == NULL ||
	    strcmp(tc_json_get_string(dagdoc, "protocol"),
	    "source_mapping_provenance_dag_v1") != 0) {
		tc_error_set(err, "provenance DAG protocol is unsupported");
		goto done;
	}
	if ((nodes = require_list(tc_json_get(dagdoc, "nodes"),
	    "provenance DAG nodes", err)) == NULL)
		goto done;
	d.n = tc_xcalloc(nodes->u.arr.len + 1, sizeof(*d.n));
	for (i = 0; i < nodes->u.arr.len; i++) {
		const tc_json *it = nodes->u.arr.items[i];
		const char *id;

		snprintf(label, sizeof(label), "provenance DAG nodes[%zu]", i);
		if (exact_keys(it, node_keys, 4, node_keys, 4, label, err) ==
		    NULL)
			goto done;
		snprintf(label, sizeof(label), "DAG node %zu.artifact_id", i);
		if ((id = require_text(tc_json_get(it, "artifact_id"), label,
		    err)) == NULL)
			goto done;
		if (dag_find(&d, id) >= 0) {
			tc_error_set(err, "duplicate provenance DAG artifact_id "
			    "%s", id);
			goto done;
		}
		d.n[d.len].id = id;
		d.n[d.len].deps = tc_json_get(it, "depends_on");
		d.n[d.len].sha = tc_json_get_string(it, "sha256");
		d.n[d.len++].path = NULL;
	}
	for (i = 0; i < d.len; i++) {
		snprintf(label, sizeof(label), "provenance DAG %s.relative_path",
		    d.n[i].id);
		if ((d.n[i].path = require_text(tc_json_get(
		    nodes->u.arr.items[i], "relative_path"), label, err)) ==
		    NULL)
			goto done;
	}
	for (i = 0; i < d.len; i++) {
		const tc_json *it = nodes->u.arr.items[i];
		char *p;

		snprintf(label, sizeof(label), "provenance DAG %s.relative_path",
		    d.n[i].id);
		if ((p = tc_analysis__smap_resolve(root, tc_json_get(it,
		    "relative_path"), label, err)) == NULL)
			goto done;
		snprintf(label, sizeof(label), "provenance DAG %s.sha256",
		    d.n[i].id);
		if (require_sha256(tc_json_get(it, "sha256"), label, err) ==
		    NULL) {
			free(p);
			goto done;
		}
		if (!file_sha_is(p, d.n[i].sha)) {
			tc_error_set(err, "provenance DAG artifact mismatch: %s",
			    d.n[i].id);
			free(p);
			goto done;
		}
		free(p);
	}
	/* in the reference's order: the artifacts, then the snapshots */
	for (i = 0; i < norder; i++) {
		const char *key = order[i];
		const tc_json *r = tc_json_get(refs, key);
		const char *p = tc_json_get_string(r, "relative_path");
		ssize_t k = p != NULL ? dag_by_path(&d, p) : -1;

		if (k < 0 || !json_eq(tc_json_get(r, "sha256"),
		    tc_json_get(nodes->u.arr.items[k], "sha256"))) {
			tc_error_set(err, "provenance DAG does not seal %s", key);
			goto done;
		}
	}
	for (i = 0; i < d.len; i++) {
		const tc_json *deps;

		snprintf(label, sizeof(label), "DAG %s.depends_on", d.n[i].id);
		if ((deps = require_list(d.n[i].deps, label, err)) == NULL)
			goto done;
		d.n[i].dep_on = tc_xcalloc(d.len, sizeof(bool));
		for (j = 0; j < deps->u.arr.len; j++) {
			const tc_json *x = deps->u.arr.items[j];
			ssize_t k = x->type == TC_JSON_STRING ?
			    dag_find(&d, x->u.str.ptr) : -1;

			if (k < 0 || (size_t)k == i) {
				tc_error_set(err, "DAG %s has an invalid "
				    "dependency", d.n[i].id);
				goto done;
			}
			if (!d.n[i].dep_on[k])
				d.n[i].pending++;
			d.n[i].dep_on[k] = true;
		}
	}
	/* Kahn's order: every node is reached when there is no cycle */
	queue = tc_xmalloc((d.len + 1) * sizeof(*queue));
	for (i = 0; i < d.len; i++)
		if (d.n[i].pending == 0)
			queue[qt++] = i;
	while (qh < qt) {
		size_t k = queue[qh++];

		visited++;
		for (i = 0; i < d.len; i++)
			if (d.n[i].dep_on[k] && --d.n[i].pending == 0)
				queue[qt++] = i;
	}
	if (visited != d.len) {
		tc_error_set(err, "provenance DAG contains a cycle");
		goto done;
	}
	if ((cat = require_object(tc_json_get(proj, "evidence_catalog"),
	    "projection.evidence_catalog", err)) == NULL)
		goto done;
	if (tc_json_get(cat, "original_graph") == NULL ||
	    tc_json_get(cat, "calibration_graph") == NULL ||
	    tc_json_get(cat, "runtime_validation") == NULL) {
		tc_error_set(err, "projection evidence_catalog is incomplete");
		goto done;
	}
	referenced_paths(cat, pe);
	referenced_paths(tc_json_get(proj, "runtime_validation"), pe);
	referenced_paths(tc_json_get(units, "evidence_catalog"), ae);
	referenced_paths(tc_json_get(fused, "evidence_catalog"), fe);
	for (i = 0; i < pe->u.arr.len; i++)
		tc_analysis__list_add_unique(all, tc_json_string(pe->u.arr.items[i]));
	for (i = 0; i < ae->u.arr.len; i++)
		tc_analysis__list_add_unique(all, tc_json_string(ae->u.arr.items[i]));
	for (i = 0; i < fe->u.arr.len; i++)
		tc_analysis__list_add_unique(all, tc_json_string(fe->u.arr.items[i]));
	miss = tc_json_new_array();
	for (i = 0; i < all->u.arr.len; i++)
		if (dag_by_path(&d, tc_json_string(all->u.arr.items[i])) < 0)
			tc_json_array_push(miss, tc_json_clone(
			    all->u.arr.items[i]));
	if (miss->u.arr.len > 0) {
		set_list_error(err, "provenance DAG omits projection evidence",
		    miss);
		tc_json_free(miss);
		goto done;
	}
	tc_json_free(miss);
	miss = tc_json_new_array();
	for (i = 0; i < d.len; i++) {
		bool declared = false;

		if (dag_by_path(&d, d.n[i].path) != (ssize_t)i)
			continue;	/* one entry per path */
		for (j = 0; j < refs->u.obj.len; j++) {
			const char *p = tc_json_get_string(
			    refs->u.obj.members[j].value, "relative_path");

			if (p != NULL && strcmp(p, d.n[i].path) == 0)
				declared = true;
		}
		if (!declared && !tc_analysis__list_has(all, d.n[i].path))
			tc_json_array_push(miss, tc_json_new_string(
			    d.n[i].path));
	}
	if (miss->u.arr.len > 0) {
		set_list_error(err, "provenance DAG contains unreachable "
		    "artifacts", miss);
		tc_json_free(miss);
		goto done;
	}
	tc_json_free(miss);
	{
		/* the required transitive dependencies */
		struct { const char *owner; tc_json *ev; const char *msg; }
		    want[] = {
			{ "calibration_projection", pe, "projection evidence "
			    "is not a dependency of calibration projection" },
			{ "unit_assignments", ae, "assignment evidence is not "
			    "a dependency of unit assignments" },
			{ "original_fused_inventory", fe, "fused log evidence "
			    "is not a dependency of fused inventory" },
		};
		static const char *const skdeps[] = { "source_manifest",
		    "block_instance_inventory", "calibration_projection",
		    "original_fused_inventory", "unit_assignments" };
		ssize_t owner, dep;
#define REF_NODE(key) dag_by_path(&d, tc_json_get_string(tc_json_get(refs, \
		(key)), "relative_path"))

		for (i = 0; i < 3; i++) {
			owner = REF_NODE(want[i].owner);
			for (j = 0; j < want[i].ev->u.arr.len; j++) {
				dep = dag_by_path(&d, tc_json_string(
				    want[i].ev->u.arr.items[j]));
				if (!dag_depends(&d, (size_t)owner,
				    (size_t)dep)) {
					tc_error_set(err, "%s", want[i].msg);
					goto done;
				}
			}
		}
		owner = REF_NODE("source_manifest");
		dep = REF_NODE("source_snapshot_manifest");
		if (!dag_depends(&d, (size_t)owner, (size_t)dep)) {
			tc_error_set(err, "source snapshot is not a dependency "
			    "of source manifest");
			goto done;
		}
		owner = REF_NODE("sk_source_map");
		for (i = 0; i < 5; i++) {
			dep = REF_NODE(skdeps[i]);
			if (!dag_depends(&d, (size_t)owner, (size_t)dep)) {
				tc_error_set(err, "%s is not a dependency of "
				    "sk-source-map", skdeps[i]);
				goto done;
			}
		}
#undef REF_NODE
	}
	rc = 0;
done:
	for (i = 0; i < d.len; i++)
		free(d.n[i].dep_on);
	free(d.n);
	free(queue);
	tc_json_free(pe);
	tc_json_free(ae);
	tc_json_free(fe);
	tc_json_free(all);
	return rc;
}

/* ---- normalized log records -------------------------------------------- */

static int
record_evidence(const char *root, const tc_json *artifact,
    const tc_json *items, const char *label, const char *const *fields,
    size_t nfields, tc_error *err)
{
	const tc_json *cat;
	tc_json **loaded = NULL;
	char *l;
	size_t i, j, k, ncat;
	int rc = -1;

	l = tc_xasprintf("%s.evidence_catalog", label);
	cat = require_object(tc_json_get(artifact, "evidence_catalog"), l, err);
	free(l);
	if (cat == NULL)
		return -1;
	ncat = cat->u.obj.len;
	loaded = tc_xcalloc(ncat + 1, sizeof(*loaded));
	for (i = 0; i < ncat; i++) {
		const char *id = cat->u.obj.members[i].key;
		const tc_json *recs;
		tc_json *idv = tc_json_new_string(id);

		l = tc_xasprintf("%s evidence artifact_id", label);
		if (require_text(idv, l, err) == NULL) {
			free(l);
			tc_json_free(idv);
			goto done;
		}
		free(l);
		tc_json_free(idv);
		l = tc_xasprintf("%s.evidence_catalog.%s", label, id);
		loaded[i] = load_hashed(root, cat->u.obj.members[i].value, l,
		    err);
		free(l);
		if (loaded[i] == NULL)
			goto done;
		if (loaded[i]->type != TC_JSON_OBJECT ||
		    tc_json_get_string(loaded[i], "protocol") == NULL ||
		    strcmp(tc_json_get_string(loaded[i], "protocol"),
		    "normalized_log_records_v1") != 0) {
			tc_error_set(err, "%s evidence %s protocol is "
			    "unsupported", label, id);
			goto done;
		}
		l = tc_xasprintf("%s evidence records", label);
		recs = require_list(tc_json_get(loaded[i], "records"), l, err);
		free(l);
		if (recs == NULL)
			goto done;
		for (j = 0; j < recs->u.arr.len; j++) {
			const tc_json *r = recs->u.arr.items[j];
			const char *rid;

			l = tc_xasprintf("%s evidence %s record %zu", label, id,
			    j);
			r = require_object(r, l, err);
			free(l);
			if (r == NULL)
				goto done;
			l = tc_xasprintf("%s evidence record_id", label);
			rid = require_text(tc_json_get(r, "record_id"), l, err);
			free(l);
			if (rid == NULL)
				goto done;
			for (k = 0; k < j; k++)
				if (strcmp(tc_json_get_string(
				    recs->u.arr.items[k], "record_id"), rid) ==
				    0) {
					tc_error_set(err, "%s evidence %s has "
					    "duplicate record_id", label, id);
					goto done;
				}
			l = tc_xasprintf("%s evidence record fingerprint",
			    label);
			if (require_sha256(tc_json_get(r, "record_fingerprint"),
			    l, err) == NULL) {
				free(l);
				goto done;
			}
			free(l);
			if (!fingerprint_is(r, "record_fingerprint")) {
				tc_error_set(err, "%s evidence record "
				    "fingerprint mismatch", label);
				goto done;
			}
		}
	}
	for (i = 0; i < items->u.arr.len; i++) {
		const tc_json *it = items->u.arr.items[i], *refs;
		bool matched = false;

		l = tc_xasprintf("%s[%zu].evidence_records", label, i);
		refs = it->type == TC_JSON_OBJECT ? tc_json_get(it,
		    "evidence_records") : NULL;
		refs = require_list(refs, l, err);
		free(l);
		if (refs == NULL)
			goto done;
		for (j = 0; j < refs->u.arr.len; j++) {
			const tc_json *r = refs->u.arr.items[j], *rec = NULL;
			const char *aid, *rid, *fp;
			ssize_t a;

			l = tc_xasprintf("%s[%zu].evidence_records[%zu]", label,
			    i, j);
			r = require_object(r, l, err);
			free(l);
			if (r == NULL ||
			    (aid = require_text(tc_json_get(r, "artifact_id"),
			    "evidence artifact_id", err)) == NULL ||
			    (rid = require_text(tc_json_get(r, "record_id"),
			    "evidence record_id", err)) == NULL ||
			    (fp = require_sha256(tc_json_get(r,
			    "record_fingerprint"), "evidence record fingerprint",
			    err)) == NULL)
				goto done;
			for (a = (ssize_t)ncat - 1; a >= 0; a--)
				if (strcmp(cat->u.obj.members[a].key, aid) == 0)
					break;
			if (a >= 0) {
				const tc_json *recs = tc_json_get(loaded[a],
				    "records");

				/* the last record of an id wins */
				for (k = recs->u.arr.len; k-- > 0;)
					if (strcmp(tc_json_get_string(
					    recs->u.arr.items[k], "record_id"),
					    rid) == 0) {
						rec = recs->u.arr.items[k];
						break;
					}
			}
			if (rec == NULL || strcmp(tc_json_get_string(rec,
			    "record_fingerprint"), fp) != 0) {
				tc_error_set(err, "%s[%zu] evidence record "
				    "cannot be resolved", label, i);
				goto done;
			}
			for (k = 0; k < nfields; k++)
				if (!json_eq(tc_json_get(rec, fields[k]),
				    tc_json_get(it, fields[k])))
					break;
			if (k == nfields)
				matched = true;
		}
		if (!matched) {
			tc_error_set(err, "%s[%zu] lacks an identity-matching log "
			    "record", label, i);
			goto done;
		}
	}
	rc = 0;
done:
	for (i = 0; i < ncat; i++)
		tc_json_free(loaded[i]);
	free(loaded);
	return rc;
}

/* ---- the source ranges ------------------------------------------------- */

static const char *const range_keys[] = {
	"device_id", "model_id", "block_instance_id", "structural_family",
	"source_scope", "candidate_source_scope", "unit_id",
	"sk_occurrence_fingerprint", "baseline_projection_fingerprint",
	"relation", "boundary", "ordered_child_op_sequence",
};
#define NRANGE (sizeof(range_keys) / sizeof(range_keys[0]))

static bool
str_eq(const tc_json *a, const tc_json *b)
{
	char *x = py_str(a), *y = py_str(b);
	bool eq = strcmp(x, y) == 0;

	free(x);
	free(y);
	return eq;
}

static const tc_json *
find_mapping(const tc_json *skmap, const char *fp)
{
	const tc_json *list = tc_json_get(skmap, "mappings");
	size_t i;

	/* a dict comprehension: the last mapping of a fingerprint wins */
	for (i = list->u.arr.len; i-- > 0;) {
		const char *f = tc_json_get_string(list->u.arr.items[i],
		    "sk_occurrence_fingerprint");

		if (f != NULL && strcmp(f, fp) == 0)
			return list->u.arr.items[i];
	}
	return NULL;
}

/* the op (third member) of every original child occurrence, or NULL
 * when the mapping does not hold them */
static tc_json *
child_ops(const tc_json *m)
{
	const tc_json *occ = tc_json_get(m, "original_child_occurrences");
	tc_json *ops;
	size_t i;

	if (occ == NULL || occ->type != TC_JSON_ARRAY)
		return NULL;
	ops = tc_json_new_array();
	for (i = 0; i < occ->u.arr.len; i++) {
		const tc_json *o = occ->u.arr.items[i];

		if (o->type != TC_JSON_ARRAY || o->u.arr.len < 3) {
			tc_json_free(ops);
			return NULL;
		}
		tc_json_array_push(ops, tc_json_clone(o->u.arr.items[2]));
	}
	return ops;
}

static int
one_range(const tc_json *item, size_t index, const tc_json *skmap,
    tc_json *lookup, tc_error *err)
{
	static const char *const same[] = { "device_id", "model_id",
	    "block_instance_id", "structural_family", "source_scope",
	    "candidate_source_scope", "relation" };
	static const char *const bkeys[] = { "start_op", "end_op",
	    "source_file", "start_offset", "end_offset" };
	const tc_json *m, *cov, *b, *ivs, *iv, *cons, *steps;
	const char *fp;
	tc_json *ops = NULL;
	char label[96];
	size_t i, j, distinct = 0;
	int rc = -1;

	snprintf(label, sizeof(label), "source_ranges[%zu]", index);
	if (exact_keys(item, range_keys, NRANGE, range_keys, NRANGE, label,
	    err) == NULL)
		return -1;
	snprintf(label, sizeof(label),
	    "source_ranges[%zu].sk_occurrence_fingerprint", index);
	if ((fp = require_sha256(tc_json_get(item, "sk_occurrence_fingerprint"),
	    label, err)) == NULL)
		return -1;
	m = find_mapping(skmap, fp);
	if (m == NULL || !opt_str_eq(tc_json_get_string(m, "relation"),
	    "exact_cover")) {
		tc_error_set(err, "source range %zu is not backed by "
		    "exact_cover", index);
		return -1;
	}
	{
		const char *c = tc_json_get_string(m, "confidence");

		if (c == NULL || (strcmp(c, "source_unit_exact") != 0 &&
		    strcmp(c, "source_unit_template_exact") != 0)) {
			tc_error_set(err, "source range %zu lacks source-unit "
			    "exact confidence", index);
			return -1;
		}
	}
	cov = tc_json_get(m, "covered_unit_ids");
	if (cov == NULL || cov->type != TC_JSON_ARRAY || cov->u.arr.len != 1 ||
	    !json_eq(tc_json_get(item, "unit_id"), cov->u.arr.items[0])) {
		tc_error_set(err, "source range %zu unit identity mismatch",
		    index);
		return -1;
	}
	for (i = 0; i < sizeof(same) / sizeof(same[0]); i++)
		if (!str_eq(tc_json_get(item, same[i]), tc_json_get(m,
		    same[i]))) {
			tc_error_set(err, "source range %zu %s mismatch", index,
			    same[i]);
			return -1;
		}
	ops = child_ops(m);
	if (ops == NULL || !json_eq(tc_json_get(item,
	    "ordered_child_op_sequence"), ops)) {
		tc_error_set(err, "source range %zu child op sequence mismatch",
		    index);
		goto done;
	}
	if (!json_eq(tc_json_get(item, "baseline_projection_fingerprint"),
	    tc_json_get(m, "baseline_projection_fingerprint"))) {
		tc_error_set(err, "source range %zu baseline projection "
		    "fingerprint mismatch", index);
		goto done;
	}
	snprintf(label, sizeof(label), "source_ranges[%zu].boundary", index);
	if ((b = exact_keys(tc_json_get(item, "boundary"), bkeys, 5, bkeys, 5,
	    label, err)) == NULL)
		goto done;
	ivs = tc_json_get(m, "source_intervals");
	iv = ivs != NULL && ivs->type == TC_JSON_ARRAY && ivs->u.arr.len > 0 ?
	    ivs->u.arr.items[0] : NULL;
	for (i = 2; i < 5; i++)
		if (iv == NULL || iv->type != TC_JSON_OBJECT ||
		    !json_eq(tc_json_get(b, bkeys[i]), tc_json_get(iv,
		    bkeys[i]))) {
			tc_error_set(err, "source range %zu boundary differs "
			    "from source manifest", index);
			goto done;
		}
	if (ops->u.arr.len == 0 || !json_eq(tc_json_get(b, "start_op"),
	    ops->u.arr.items[0]) || !json_eq(tc_json_get(b, "end_op"),
	    ops->u.arr.items[ops->u.arr.len - 1])) {
		tc_error_set(err, "source range %zu fusion boundary mismatch",
		    index);
		goto done;
	}
	cons = tc_json_get(m, "consensus");
	steps = cons != NULL && cons->type == TC_JSON_OBJECT ?
	    tc_json_get(cons, "validated_step_ids") : NULL;
	for (i = 0; steps != NULL && steps->type == TC_JSON_ARRAY &&
	    i < steps->u.arr.len; i++) {
		for (j = 0; j < i; j++)
			if (json_eq(steps->u.arr.items[i], steps->u.arr.items[j]))
				break;
		if (j == i)
			distinct++;
	}
	if (distinct < 3) {
		tc_error_set(err, "source range %zu lacks three validated steps",
		    index);
		goto done;
	}
	if (tc_json_get(lookup, fp) != NULL) {
		tc_error_set(err, "duplicate source range fingerprint %s", fp);
		goto done;
	}
	tc_json_object_set(lookup, fp, tc_json_clone(item));
	rc = 0;
done:
	tc_json_free(ops);
	return rc;
}

/* the sk-source-map's mappings, each an object with a fingerprint */
static int
skmap_shape(const tc_json *skmap, tc_error *err)
{
	const tc_json *list = skmap->type == TC_JSON_OBJECT ?
	    tc_json_get(skmap, "mappings") : NULL;
	size_t i;

	if (list == NULL || list->type != TC_JSON_ARRAY) {
		tc_error_set(err, "sk-source-map mappings must be a list");
		return -1;
	}
	for (i = 0; i < list->u.arr.len; i++)
		if (list->u.arr.items[i]->type != TC_JSON_OBJECT ||
		    tc_json_get_string(list->u.arr.items[i],
		    "sk_occurrence_fingerprint") == NULL) {
			tc_error_set(err, "sk-source-map mapping %zu lacks an "
			    "sk_occurrence_fingerprint", i);
			return -1;
		}
	return 0;
}

/* ---- the bundle -------------------------------------------------------- */

/* an expected SHA-256 given on the command line (NULL: none) */
static bool
sha_arg(const char *v, const char *label, tc_error *err)
{
	tc_json *s;
	bool ok;

	if (v == NULL)
		return true;
	s = tc_json_new_string(v);
	ok = require_sha256(s, label, err) != NULL;
	tc_json_free(s);
	return ok;
}

static tc_json *
status_object(const char *protocol, const char *status, const char *blocker)
{
	tc_json *m = tc_json_new_object(), *b = tc_json_new_array();

	tc_json_object_set_string(m, "protocol", protocol);
	tc_json_object_set_string(m, "status", status);
	if (blocker != NULL)
		tc_json_array_push(b, tc_json_new_string(blocker));
	tc_json_object_set(m, "blockers", b);
	return m;
}

static int
collection_bindings(const tc_json *prov, tc_json *const *loaded,
    tc_error *err)
{
	static const int keys[] = { A_CAND, A_CALIB, A_BASE };
	const tc_json *proj = loaded[A_PROJ];
	size_t i;

	for (i = 0; i < 3; i++) {
		const char *key = artifact_keys[keys[i]];
		char *l = tc_xasprintf("provenance.%s.fingerprint", key);
		const char *want = require_sha256(tc_json_get(tc_json_get(prov,
		    key), "fingerprint"), l, err);

		free(l);
		if (want == NULL)
			return -1;
		if (loaded[keys[i]]->type != TC_JSON_OBJECT ||
		    tc_json_get_string(loaded[keys[i]],
		    "manifest_fingerprint") == NULL ||
		    strcmp(tc_json_get_string(loaded[keys[i]],
		    "manifest_fingerprint"), want) != 0) {
			tc_error_set(err, "%s fingerprint mismatch", key);
			return -1;
		}
	}
	if (!json_eq(tc_json_get(proj, "original_collection_fingerprint"),
	    tc_json_get(tc_json_get(prov,
	    "original_candidate_collection_manifest"), "fingerprint"))) {
		tc_error_set(err, "calibration projection original collection "
		    "fingerprint mismatch");
		return -1;
	}
	if (!json_eq(tc_json_get(proj, "calibration_collection_fingerprint"),
	    tc_json_get(tc_json_get(prov, "calibration_collection_manifest"),
	    "fingerprint"))) {
		tc_error_set(err, "calibration projection calibration "
		    "collection fingerprint mismatch");
		return -1;
	}
	return 0;
}

/* the SHA-256 of this analysis's two collection manifests */
static int
current_bindings(const tc_json *prov, const char *cand_sha,
    const char *base_sha, tc_error *err)
{
	if (!sha_arg(cand_sha, "expected candidate collection manifest "
	    "SHA-256", err))
		return -1;
	if (cand_sha != NULL && strcmp(tc_json_get_string(tc_json_get(prov,
	    "original_candidate_collection_manifest"), "sha256"), cand_sha) !=
	    0) {
		tc_error_set(err, "source map is not bound to the current "
		    "candidate collection manifest");
		return -1;
	}
	if (!sha_arg(base_sha, "expected baseline collection manifest "
	    "SHA-256", err))
		return -1;
	if (base_sha != NULL && strcmp(tc_json_get_string(tc_json_get(prov,
	    "baseline_collection_manifest"), "sha256"), base_sha) != 0) {
		tc_error_set(err, "source map is not bound to the current "
		    "baseline collection manifest");
		return -1;
	}
	return 0;
}

/* The sk-source-map rebuilt from the artifacts it was made from must be
 * the bundle's. */
static int
skmap_rebuild(tc_json *const *loaded, const tc_json *calibration_source,
    tc_error *err)
{
	tc_json *rebuilt = tc_analysis__skmap_build(loaded[A_PROJ],
	    loaded[A_SOURCE], loaded[A_BLOCKS], loaded[A_FUSED],
	    loaded[A_UNITS], calibration_source, err);
	bool same;

	if (rebuilt == NULL)
		return -1;
	same = tc_json_equal(rebuilt, loaded[A_SKMAP]);
	tc_json_free(rebuilt);
	if (!same) {
		tc_error_set(err, "sk-source-map cannot be reproduced from "
		    "occurrence evidence");
		return -1;
	}
	return 0;
}

/* _replay_calibration_projection: the projection's sealed graph
 * evidence, present and intact, gives exactly the recorded projection */
static int
projection_evidence(const char *root, const tc_json *proj, tc_error *err)
{
	static const char *const keys[] = { "original_graph",
	    "calibration_graph", "runtime_validation" };
	const tc_json *cat = require_object(tc_json_get(proj,
	    "evidence_catalog"), "projection.evidence_catalog", err);
	tc_json *v[3] = { NULL, NULL, NULL }, *replayed;
	size_t i;
	int rc = -1;

	if (cat == NULL)
		return -1;
	for (i = 0; i < 3; i++) {
		char *l;

		if (tc_json_get(cat, keys[i]) == NULL) {
			tc_error_set(err, "projection evidence_catalog is "
			    "missing %s", keys[i]);
			goto done;
		}
		l = tc_xasprintf("projection.evidence_catalog.%s", keys[i]);
		v[i] = load_hashed(root, tc_json_get(cat, keys[i]), l, err);
		free(l);
		if (v[i] == NULL)
			goto done;
	}
	if ((replayed = tc_analysis__project_graphs(v[0], v[1], v[2], cat,
	    tc_json_get(proj, "original_collection_fingerprint"),
	    tc_json_get(proj, "calibration_collection_fingerprint"), err)) ==
	    NULL)
		goto done;
	if (!tc_json_equal(replayed, proj))
		tc_error_set(err, "calibration projection cannot be reproduced "
		    "from sealed graph evidence");
	else
		rc = 0;
	tc_json_free(replayed);
done:
	for (i = 0; i < 3; i++)
		tc_json_free(v[i]);
	return rc;
}

/* the stable_source bridge: the calibration snapshot (markers checked,
 * as its manifest is no stable_source one) and the marker-only proof */
static int
marker_bridge(const char *root, const tc_json *prov, const tc_json *smf,
    tc_json *const *loaded, tc_error *err)
{
	const tc_json *cref = tc_json_get(prov,
	    "calibration_source_snapshot_root");
	tc_json *fake = tc_json_new_object();
	char *sroot = NULL, *croot = NULL;
	int rc = -1;

	tc_json_object_set(fake, "source_snapshot_root", tc_json_clone(cref));
	if (snapshot(root, fake, loaded[NARTIFACT], err) != 0)
		goto done;
	if ((sroot = snapshot_root(root, tc_json_get(prov,
	    "source_snapshot_root"), "provenance.source_snapshot_root",
	    err)) == NULL || (croot = snapshot_root(root, cref,
	    "provenance.calibration_source_snapshot_root", err)) == NULL)
		goto done;
	rc = tc_analysis__marker_bridge_check(loaded[NARTIFACT + 1], smf,
	    loaded[NARTIFACT], sroot, croot, err);
done:
	tc_json_free(fake);
	free(sroot);
	free(croot);
	return rc;
}

static int
validate_v2(tc_json *v, const char *map_path, const struct an_smap_expect *x,
    struct an_smap *out, tc_error *err)
{
	static const char *const top[] = { "schema_version", "protocol",
	    "provenance", "source_ranges" };
	static const char *const extra[] = { "stable_marker_revision",
	    "source_revision", "source_revision_role", "source_snapshot_root",
	    "calibration_source_snapshot_root",
	    "source_scope_map_content_fingerprint" };
	const char *allowed[NARTIFACT + 8], *required[NARTIFACT + 4];
	const char *sv = tc_json_get_string(v, "schema_version");
	const char *role, *rev, *want;
	size_t na = 0, nr = 0, i;
	tc_json *prov, *loaded[NARTIFACT + 2], *refs = NULL, *smf;
	size_t nactive = NARTIFACT, norder = 0;
	const char *order[NARTIFACT + 4];
	const tc_json *ranges;
	char *root = NULL, *dir, hex[65];
	tc_error e = TC_ERROR_INIT;
	int rc = -1;

	memset(loaded, 0, sizeof(loaded));
	if (sv == NULL || (strcmp(sv, "2.0") != 0 && strcmp(sv, "2.1") != 0)) {
		tc_error_set(err, "source_scope_map_v2 schema_version must be "
		    "2.0 or 2.1");
		return -1;
	}
	if (exact_keys(v, top, 4, top, 4, "source_scope_map_v2", err) == NULL)
		return -1;
	for (i = 0; i < 6; i++)
		allowed[na++] = extra[i];
	for (i = 0; i < NARTIFACT; i++)
		allowed[na++] = required[nr++] = artifact_keys[i];
	allowed[na++] = auto_keys[0];
	allowed[na++] = auto_keys[1];
	required[nr++] = "source_snapshot_root";
	required[nr++] = "source_scope_map_content_fingerprint";
	if (strcmp(sv, "2.0") == 0) {
		required[nr++] = "stable_marker_revision";
	} else {
		required[nr++] = "source_revision";
		required[nr++] = "source_revision_role";
	}
	if ((prov = (tc_json *)exact_keys(tc_json_get(v, "provenance"),
	    allowed, na, required, nr, "provenance", err)) == NULL)
		return -1;
	digest_without(v, prov, "source_scope_map_content_fingerprint", hex);
	want = tc_json_get_string(prov, "source_scope_map_content_fingerprint");
	if (want == NULL || hex[0] == '\0' || strcmp(want, hex) != 0) {
		tc_error_set(err, "source_scope_map_v2 content fingerprint "
		    "mismatch");
		return -1;
	}
	if (strcmp(sv, "2.0") == 0)
		role = "stable_marker";
	else if ((role = require_text(tc_json_get(prov, "source_revision_role"),
	    "provenance.source_revision_role", err)) == NULL)
		return -1;
	if (strcmp(role, "stable_marker") != 0 &&
	    strcmp(role, "stable_source") != 0) {
		tc_error_set(err, "source_scope_map_v2 source revision role is "
		    "unsupported");
		return -1;
	}
	if ((rev = require_text(tc_json_get(prov, "source_revision") != NULL ?
	    tc_json_get(prov, "source_revision") : tc_json_get(prov,
	    "stable_marker_revision"), "provenance.source_revision", err)) ==
	    NULL)
		return -1;
	{
		tc_json *want_rev = tc_json_new_string(x->source_revision);
		bool ok = require_text(want_rev, "expected source revision",
		    err) != NULL;

		tc_json_free(want_rev);
		if (!ok)
			return -1;
	}
	if (strcmp(rev, x->source_revision) != 0) {
		tc_error_set(err, "source_scope_map_v2 source revision differs "
		    "from --source-revision");
		return -1;
	}
	if (strcmp(role, "stable_marker") == 0) {
		const char *smr = require_text(tc_json_get(prov,
		    "stable_marker_revision"), "provenance.stable_marker_revision",
		    err);

		if (smr == NULL)
			return -1;
		if (strcmp(smr, rev) != 0) {
			tc_error_set(err, "stable marker revision differs from "
			    "source revision");
			return -1;
		}
	} else {
		tc_buf b = TC_BUF_INIT;
		const tc_json *smr = tc_json_get(prov, "stable_marker_revision");

		if (strcmp(sv, "2.1") != 0) {
			tc_error_set(err, "stable_source source maps require "
			    "schema_version 2.1");
			return -1;
		}
		if (smr != NULL && smr->type != TC_JSON_NULL) {
			tc_error_set(err, "stable_source source maps must not "
			    "declare stable_marker_revision");
			return -1;
		}
		if (tc_json_get(prov, "calibration_source_manifest") == NULL)
			tc_buf_puts(&b, "calibration_source_manifest");
		if (tc_json_get(prov, "calibration_source_snapshot_root") ==
		    NULL)
			tc_buf_printf(&b, "%scalibration_source_snapshot_root",
			    b.len ? ", " : "");
		if (tc_json_get(prov, "marker_only_calibration") == NULL)
			tc_buf_printf(&b, "%smarker_only_calibration",
			    b.len ? ", " : "");
		if (b.len > 0) {
			tc_error_set(err, "stable_source source map is missing "
			    "marker-only evidence: %s", tc_buf_cstr(&b));
			tc_buf_free(&b);
			return -1;
		}
		tc_buf_free(&b);
		nactive = NARTIFACT + 2;
	}
	dir = tc_path_dirname(map_path);
	root = tc_path_resolve(dir, &e);
	free(dir);
	tc_error_clear(&e);
	if (root == NULL) {
		tc_error_set(err, "source scope map directory cannot be "
		    "resolved");
		return -1;
	}
	refs = tc_json_new_object();
	for (i = 0; i < nactive; i++) {
		static const char *const rk[] = { "relative_path", "sha256",
		    "fingerprint", "protocol" };
		char *l = tc_xasprintf("provenance.%s", artifact_keys[i]);
		const tc_json *r = exact_keys(tc_json_get(prov,
		    artifact_keys[i]), rk, 4, rk, 2, l, err);

		if (r != NULL)
			loaded[i] = load_hashed(root, r, l, err);
		free(l);
		if (loaded[i] == NULL)
			goto done;
		if (i != A_DAG) {
			tc_json *o = tc_json_new_object();

			tc_json_object_set(o, "relative_path", tc_json_clone(
			    tc_json_get(r, "relative_path")));
			tc_json_object_set(o, "sha256", tc_json_clone(
			    tc_json_get(r, "sha256")));
			tc_json_object_set(refs, artifact_keys[i], o);
			order[norder++] = artifact_keys[i];
		}
	}
	for (i = 0; i < (nactive > NARTIFACT ? 2u : 1u); i++) {
		static const char *const roots[2] = { "source_snapshot_root",
		    "calibration_source_snapshot_root" };
		static const char *const names[2] = { "source_snapshot_manifest",
		    "calibration_source_snapshot_manifest" };
		char *l = tc_xasprintf("provenance.%s", roots[i]);
		const tc_json *sr = require_object(tc_json_get(prov, roots[i]),
		    l, err);
		tc_json *o;
		char *p, *n;

		free(l);
		if (sr == NULL)
			goto done;
		p = tc_path_join(tc_json_get_string(sr, "relative_path") ?
		    tc_json_get_string(sr, "relative_path") : "",
		    "source-snapshot-manifest.json");
		n = tc_path_normalize(p);
		o = tc_json_new_object();
		tc_json_object_set_string(o, "relative_path", n);
		tc_json_object_set(o, "sha256", tc_json_get(sr,
		    "manifest_sha256") ? tc_json_clone(tc_json_get(sr,
		    "manifest_sha256")) : tc_json_new_null());
		tc_json_object_set(refs, names[i], o);
		order[norder++] = names[i];
		free(p);
		free(n);
	}
	smf = loaded[A_SOURCE];
	if (smf->type != TC_JSON_OBJECT ||
	    !opt_str_eq(tc_json_get_string(smf, "revision_role"), role) ||
	    !opt_str_eq(tc_json_get_string(smf, "source_revision"), rev) ||
	    !fingerprint_is(smf, "manifest_fingerprint") ||
	    (nactive == NARTIFACT ? !opt_str_eq(tc_json_get_string(smf,
	    "stable_marker_revision"), rev) : !json_eq(tc_json_get(smf,
	    "stable_marker_revision"), NULL))) {
		tc_error_set(err, "source manifest is not bound to the %s "
		    "revision", role);
		goto done;
	}
	if (snapshot(root, prov, smf, err) != 0)
		goto done;
	if (nactive > NARTIFACT && marker_bridge(root, prov, smf, loaded,
	    err) != 0)
		goto done;
	if (x->source_root != NULL && current_source(x->source_root, smf,
	    err) != 0)
		goto done;
	if (dag_check(root, loaded[A_DAG], refs, order, norder,
	    loaded[A_PROJ], loaded[A_UNITS], loaded[A_FUSED], err) != 0)
		goto done;
	if (projection_evidence(root, loaded[A_PROJ], err) != 0)
		goto done;
	{
		static const char *const af[] = { "calibration_node_key",
		    "block_instance_id", "unit_id" };
		static const char *const gf[] = { "device_id", "model_id",
		    "block_instance_id", "candidate_source_scope",
		    "sk_occurrence_fingerprint", "original_child_node_keys" };
		const tc_json *items;

		if ((items = require_list(tc_json_get(loaded[A_UNITS],
		    "assignments"), "assignments", err)) == NULL ||
		    record_evidence(root, loaded[A_UNITS], items,
		    "assignments", af, 3, err) != 0)
			goto done;
		if ((items = require_list(tc_json_get(loaded[A_FUSED],
		    "sk_groups"), "sk_groups", err)) == NULL ||
		    record_evidence(root, loaded[A_FUSED], items, "sk_groups",
		    gf, 6, err) != 0)
			goto done;
	}
	if (collection_bindings(prov, loaded, err) != 0)
		goto done;
	if (skmap_rebuild(loaded, nactive > NARTIFACT ? loaded[NARTIFACT] :
	    NULL, err) != 0)
		goto done;
	if (current_bindings(prov, x->candidate_manifest_sha256,
	    x->baseline_manifest_sha256, err) != 0)
		goto done;
	if (skmap_shape(loaded[A_SKMAP], err) != 0)
		goto done;
	if ((ranges = require_list(tc_json_get(v, "source_ranges"),
	    "source_ranges", err)) == NULL)
		goto done;
	out->lookup = tc_json_new_object();
	for (i = 0; i < ranges->u.arr.len; i++)
		if (one_range(ranges->u.arr.items[i], i, loaded[A_SKMAP],
		    out->lookup, err) != 0)
			goto done;
	out->mapping = status_object("source_scope_map_v2", "exact", NULL);
	tc_json_object_set_string(out->mapping, "source_revision", rev);
	tc_json_object_set_string(out->mapping, "source_revision_role", role);
	if (nactive == NARTIFACT)
		tc_json_object_set_string(out->mapping,
		    "stable_marker_revision", rev);
	rc = 0;
done:
	for (i = 0; i < nactive; i++)
		tc_json_free(loaded[i]);
	tc_json_free(refs);
	free(root);
	return rc;
}

int
tc_analysis__smap_load(const char *path, const struct an_smap_expect *x,
    struct an_smap *out, tc_error *err)
{
	tc_json *v;
	const tc_json *p;
	int rc;

	memset(out, 0, sizeof(*out));
	if (path == NULL) {
		out->mapping = status_object("source_scope_map_v2",
		    "not_requested", "source_scope_map_missing");
		out->lookup = tc_json_new_object();
		return 0;
	}
	if ((v = tc_analysis__smap_load_json(path, "source scope map",
	    err)) == NULL)
		return -1;
	p = v->type == TC_JSON_OBJECT ? tc_json_get(v, "protocol") : NULL;
	if (p == NULL || p->type != TC_JSON_STRING ||
	    strcmp(p->u.str.ptr, "source_scope_map_v2") != 0) {
		out->mapping = status_object("legacy_source_scope_map",
		    "diagnostic_only", "legacy_task_range_source_map_not_exact");
		out->lookup = tc_json_new_object();
		tc_json_free(v);
		return 0;
	}
	rc = validate_v2(v, path, x, out, err);
	tc_json_free(v);
	if (rc != 0) {
		tc_analysis__smap_free(out);
		return -1;
	}
	if (x->require_current && (x->candidate_manifest_sha256 == NULL ||
	    x->baseline_manifest_sha256 == NULL || x->source_root == NULL)) {
		tc_error_set(err, "source_scope_map_v2 exact requires current "
		    "baseline/candidate manifests and --source-root");
		tc_analysis__smap_free(out);
		return -1;
	}
	return 0;
}

void
tc_analysis__smap_free(struct an_smap *s)
{
	tc_json_free(s->mapping);
	tc_json_free(s->lookup);
	s->mapping = s->lookup = NULL;
}

/* _source_scope_entry_matches: the entry of a structurally exact SK's
 * graph occurrence names the same device, model, scope, children and
 * boundary ops, and the same projection */
const tc_json *
tc_analysis__smap_exact_entry(const struct an_smap *s,
    const struct an_binding *b, const tc_json *device_id, const char *model,
    const tc_json *identity)
{
	const tc_json *e, *eb, *ib;
	tc_json *mv;
	bool ok;

	if (s == NULL || s->lookup == NULL || b == NULL || !b->valid ||
	    b->occurrence_fp[0] == '\0' || b->mapping_fp == NULL)
		return NULL;
	if ((e = tc_json_get(s->lookup, b->occurrence_fp)) == NULL)
		return NULL;
	eb = tc_json_get(e, "boundary");
	ib = tc_json_get(identity, "boundary");
	mv = model != NULL ? tc_json_new_string(model) : NULL;
	ok = str_eq(tc_json_get(e, "device_id"), device_id) &&
	    str_eq(tc_json_get(e, "model_id"), mv) &&
	    json_eq(tc_json_get(e, "candidate_source_scope"),
	    tc_json_get(identity, "source_scope")) &&
	    json_eq(tc_json_get(e, "ordered_child_op_sequence"),
	    tc_json_get(identity, "ordered_child_op_sequence")) &&
	    opt_str_eq(tc_json_get_string(e, "sk_occurrence_fingerprint"),
	    b->occurrence_fp) &&
	    opt_str_eq(tc_json_get_string(e, "baseline_projection_fingerprint"),
	    b->mapping_fp);
	if (ok) {
		tc_json *w = tc_json_new_object();
		const tc_json *so = eb != NULL && eb->type == TC_JSON_OBJECT ?
		    tc_json_get(eb, "start_op") : NULL;
		const tc_json *eo = eb != NULL && eb->type == TC_JSON_OBJECT ?
		    tc_json_get(eb, "end_op") : NULL;

		tc_json_object_set(w, "start_op", so ? tc_json_clone(so) :
		    tc_json_new_null());
		tc_json_object_set(w, "end_op", eo ? tc_json_clone(eo) :
		    tc_json_new_null());
		ok = ib != NULL && tc_json_equal(w, ib);
		tc_json_free(w);
	}
	tc_json_free(mv);
	return ok ? e : NULL;
}

char *
tc_source_scope_map_validate(const char *path, const char *source_revision,
    const char *candidate_manifest_sha256,
    const char *baseline_manifest_sha256, const char *source_root,
    tc_error *err)
{
	struct an_smap_expect x;
	struct an_smap m;
	char *status;

	memset(&x, 0, sizeof(x));
	x.source_revision = source_revision;
	x.candidate_manifest_sha256 = candidate_manifest_sha256;
	x.baseline_manifest_sha256 = baseline_manifest_sha256;
	x.source_root = source_root;
	if (tc_analysis__smap_load(path, &x, &m, err) != 0)
		return NULL;
	status = tc_xstrdup(tc_json_get_string(m.mapping, "status"));
	tc_analysis__smap_free(&m);
	return status;
}
