/*
 * smap_build.c - "tunectl analyze smap build": assemble a
 * source_scope_map_v2 bundle (the reference's source_scope_map_v2.py
 * build) from the evidence artifacts under one artifact root: each named
 * by its path relative to the root and its SHA-256, the three collection
 * manifests with their manifest_fingerprint, the snapshot root with the
 * SHA-256 of its manifest, one source range per exact_cover mapping of
 * the sk-source-map, and the content fingerprint.  Building checks only
 * what it reads; "analyze smap validate" is the check.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "analysis_internal.h"
#include "tunectl/analysis.h"
#include "tunectl/fileio.h"
#include "tunectl/path.h"
#include "tunectl/sha256.h"
#include "tunectl/text.h"

/* Path(p).resolve(); err in Python's words */
static char *
resolved(const char *p, tc_error *err)
{
	return tc_path_resolve(p, err);
}

/* Path.relative_to of Python 3.11, with its message */
static char *
relative(const char *path, const char *root, tc_error *err)
{
	char *r = tc_path_relative_to(path, root);

	if (r == NULL)
		tc_error_set(err, "'%s' is not in the subpath of '%s' OR one "
		    "path is relative and the other is absolute.", path, root);
	return r;
}

/* artifact_reference(path, relative_to=root) */
static tc_json *
reference(const char *p, const char *root, tc_error *err)
{
	char *abs = resolved(p, err), *rel = NULL, hex[65];
	struct stat st;
	tc_json *r = NULL;

	if (abs == NULL)
		return NULL;
	if (!tc_path_is_within(abs, root)) {
		tc_error_set(err, "artifact %s is outside %s", abs, root);
		goto done;
	}
	rel = tc_path_relative_to(abs, root);
	if (lstat(abs, &st) != 0 || !S_ISREG(st.st_mode)) {
		tc_error_set(err, "artifact must be a regular non-symlink "
		    "file: %s", abs);
		goto done;
	}
	if (tc_sha256_file(abs, hex, NULL, err) != 0)
		goto done;
	r = tc_json_new_object();
	tc_json_object_set_string(r, "relative_path", rel);
	tc_json_object_set_string(r, "sha256", hex);
done:
	free(abs);
	free(rel);
	return r;
}

static bool
sha_text(const char *t)
{
	size_t i;

	for (i = 0; t != NULL && t[i] != '\0'; i++)
		if (!((t[i] >= '0' && t[i] <= '9') || (t[i] >= 'a' &&
		    t[i] <= 'f')))
			return false;
	return t != NULL && i == 64;
}

/* {relative_path, manifest_sha256} of a snapshot root */
static tc_json *
snapshot_ref(const char *dir, const char *root, tc_error *err)
{
	char *abs = resolved(dir, err), *rel = NULL, *m = NULL, hex[65];
	tc_json *r = NULL;

	if (abs == NULL)
		return NULL;
	if ((rel = relative(abs, root, err)) == NULL)
		goto done;
	m = tc_path_join(abs, "source-snapshot-manifest.json");
	if (tc_sha256_file(m, hex, NULL, err) != 0)
		goto done;
	r = tc_json_new_object();
	tc_json_object_set_string(r, "relative_path", rel);
	tc_json_object_set_string(r, "manifest_sha256", hex);
done:
	free(abs);
	free(rel);
	free(m);
	return r;
}

static const tc_json *
unit_of(const tc_json *units, const tc_json *id)
{
	size_t i;

	/* a dict comprehension: the last unit of an id wins */
	for (i = units->u.arr.len; i-- > 0;)
		if (tc_json_equal(tc_json_get(units->u.arr.items[i], "unit_id"),
		    id))
			return units->u.arr.items[i];
	return NULL;
}

static int
cmp_range(const void *a, const void *b)
{
	return strcmp(tc_json_get_string(*(tc_json *const *)a,
	    "sk_occurrence_fingerprint"), tc_json_get_string(
	    *(tc_json *const *)b, "sk_occurrence_fingerprint"));
}

/* the source ranges: every exact_cover mapping of source-unit exact
 * confidence, over its one covered unit */
static tc_json *
ranges(const tc_json *skmap, const tc_json *smf, tc_error *err)
{
	static const char *const copied[] = { "device_id", "model_id",
	    "block_instance_id", "structural_family", "source_scope",
	    "candidate_source_scope", "sk_occurrence_fingerprint",
	    "baseline_projection_fingerprint" };
	const tc_json *maps = tc_json_get(skmap, "mappings");
	const tc_json *units = tc_json_get(smf, "units");
	tc_json *out = tc_json_new_array();
	size_t i, k;

	if (maps == NULL || maps->type != TC_JSON_ARRAY || units == NULL ||
	    units->type != TC_JSON_ARRAY) {
		tc_error_set(err, "sk-source-map mappings and source manifest "
		    "units must be lists");
		goto fail;
	}
	for (i = 0; i < maps->u.arr.len; i++) {
		const tc_json *m = maps->u.arr.items[i], *cov, *u, *occ;
		const char *rel = tc_json_get_string(m, "relation");
		const char *conf = tc_json_get_string(m, "confidence");
		tc_json *r, *b, *ops;

		if (rel == NULL || strcmp(rel, "exact_cover") != 0 ||
		    conf == NULL || (strcmp(conf, "source_unit_exact") != 0 &&
		    strcmp(conf, "source_unit_template_exact") != 0))
			continue;
		cov = tc_json_get(m, "covered_unit_ids");
		occ = tc_json_get(m, "original_child_occurrences");
		if (cov == NULL || cov->type != TC_JSON_ARRAY ||
		    cov->u.arr.len == 0 || occ == NULL ||
		    occ->type != TC_JSON_ARRAY || occ->u.arr.len == 0 ||
		    tc_json_get_string(m, "sk_occurrence_fingerprint") == NULL) {
			tc_error_set(err, "sk-source-map mapping %zu is "
			    "incomplete", i);
			goto fail;
		}
		if ((u = unit_of(units, cov->u.arr.items[0])) == NULL) {
			tc_error_set(err, "sk-source-map mapping %zu covers a unit "
			    "the source manifest lacks", i);
			goto fail;
		}
		ops = tc_json_new_array();
		for (k = 0; k < occ->u.arr.len; k++) {
			const tc_json *o = occ->u.arr.items[k];

			if (o->type != TC_JSON_ARRAY || o->u.arr.len < 3) {
				tc_json_free(ops);
				tc_error_set(err, "sk-source-map mapping %zu is "
				    "incomplete", i);
				goto fail;
			}
			tc_json_array_push(ops, tc_json_clone(o->u.arr.items[2]));
		}
		r = tc_json_new_object();
		for (k = 0; k < sizeof(copied) / sizeof(copied[0]); k++) {
			const tc_json *v = tc_json_get(m, copied[k]);

			tc_json_object_set(r, copied[k], v ? tc_json_clone(v) :
			    tc_json_new_null());
		}
		tc_json_object_set(r, "unit_id", tc_json_clone(
		    cov->u.arr.items[0]));
		tc_json_object_set_string(r, "relation", "exact_cover");
		b = tc_json_new_object();
		tc_json_object_set(b, "start_op", tc_json_clone(
		    ops->u.arr.items[0]));
		tc_json_object_set(b, "end_op", tc_json_clone(
		    ops->u.arr.items[ops->u.arr.len - 1]));
		for (k = 0; k < 3; k++) {
			static const char *const f[3] = { "source_file",
			    "start_offset", "end_offset" };
			const tc_json *v = tc_json_get(u, f[k]);

			tc_json_object_set(b, f[k], v ? tc_json_clone(v) :
			    tc_json_new_null());
		}
		tc_json_object_set(r, "boundary", b);
		tc_json_object_set(r, "ordered_child_op_sequence", ops);
		tc_json_array_push(out, r);
	}
	qsort(out->u.arr.items, out->u.arr.len, sizeof(tc_json *), cmp_range);
	return out;
fail:
	tc_json_free(out);
	return NULL;
}

tc_json *
tc_source_scope_map_build(const struct tc_smap_build_args *a, tc_error *err)
{
	static const char *const collections[3] = {
	    "original_candidate_collection_manifest",
	    "calibration_collection_manifest", "baseline_collection_manifest" };
	const bool source = a->stable_source_revision != NULL;
	const char *rev = source ? a->stable_source_revision :
	    a->stable_marker_revision;
	tc_json *prov = tc_json_new_object(), *v = NULL, *skmap = NULL;
	tc_json *smf = NULL, *rs, *r;
	char *root = NULL, hex[65];
	size_t i;

	if ((a->stable_marker_revision == NULL) == !source) {
		tc_error_set(err, "declare exactly one of stable_marker_revision "
		    "or stable_source_revision");
		goto fail;
	}
	if (!tc_text_is_canonical(rev, strlen(rev))) {
		tc_error_set(err, "%s_revision must be a non-empty trimmed "
		    "string", source ? "stable_source" : "stable_marker");
		goto fail;
	}
	if ((root = resolved(a->artifact_root, err)) == NULL)
		goto fail;
	if (source) {
		tc_buf b = TC_BUF_INIT;

		if (a->calibration_source_manifest == NULL)
			tc_buf_puts(&b, "calibration_source_manifest");
		if (a->marker_only_calibration == NULL)
			tc_buf_printf(&b, "%smarker_only_calibration",
			    b.len ? ", " : "");
		if (a->calibration_source_snapshot_root == NULL)
			tc_buf_printf(&b, "%scalibration_source_snapshot_root",
			    b.len ? ", " : "");
		if (b.len > 0) {
			tc_error_set(err, "stable_source source map is missing "
			    "marker-only evidence: %s", tc_buf_cstr(&b));
			tc_buf_free(&b);
			goto fail;
		}
	}
	for (i = 0; i < TC_SMAP_NARTIFACTS + 2; i++) {
		const char *path = i < TC_SMAP_NARTIFACTS ? a->artifacts[i] :
		    i == TC_SMAP_NARTIFACTS ? a->calibration_source_manifest :
		    a->marker_only_calibration;

		if (i >= TC_SMAP_NARTIFACTS && !source)
			break;
		if ((r = reference(path, root, err)) == NULL)
			goto fail;
		tc_json_object_set(prov, tc_smap_artifact_keys[i], r);
	}
	if (source) {
		tc_json_object_set_string(prov, "source_revision", rev);
		tc_json_object_set_string(prov, "source_revision_role",
		    "stable_source");
	} else {
		tc_json_object_set_string(prov, "stable_marker_revision", rev);
	}
	for (i = 0; i < 3; i++) {
		tc_json *m = tc_analysis__smap_load_json(a->artifacts[7 + i],
		    collections[i], err);
		const char *fp = m != NULL ? tc_json_get_string(m,
		    "manifest_fingerprint") : NULL;

		if (m == NULL)
			goto fail;
		if (!sha_text(fp)) {
			tc_error_set(err, "%s.manifest_fingerprint must be a "
			    "lowercase SHA-256 hex digest", collections[i]);
			tc_json_free(m);
			goto fail;
		}
		tc_json_object_set_string(tc_json_get(prov, collections[i]),
		    "fingerprint", fp);
		tc_json_free(m);
	}
	if ((r = snapshot_ref(a->source_snapshot_root, root, err)) == NULL)
		goto fail;
	tc_json_object_set(prov, "source_snapshot_root", r);
	if (source) {
		if ((r = snapshot_ref(a->calibration_source_snapshot_root, root,
		    err)) == NULL)
			goto fail;
		tc_json_object_set(prov, "calibration_source_snapshot_root", r);
	}
	if ((skmap = tc_analysis__smap_load_json(a->artifacts[2],
	    "JSON artifact", err)) == NULL ||
	    (smf = tc_analysis__smap_load_json(a->artifacts[1],
	    "JSON artifact", err)) == NULL ||
	    (rs = ranges(skmap, smf, err)) == NULL)
		goto fail;
	v = tc_json_new_object();
	tc_json_object_set_string(v, "schema_version", source ? "2.1" : "2.0");
	tc_json_object_set_string(v, "protocol", "source_scope_map_v2");
	tc_json_object_set(v, "provenance", prov);
	tc_json_object_set(v, "source_ranges", rs);
	prov = NULL;
	if (tc_json_digest(v, hex, err) != 0) {
		tc_json_free(v);
		v = NULL;
		goto fail;
	}
	tc_json_object_set_string(tc_json_get(v, "provenance"),
	    "source_scope_map_content_fingerprint", hex);
fail:
	tc_json_free(prov);
	tc_json_free(skmap);
	tc_json_free(smf);
	free(root);
	return v;
}
