/*
 * smap_bridge.c - the marker-only calibration bridge of a stable_source
 * source_scope_map_v2 bundle (marker_only_calibration_v1): the proof that
 * the calibration source, the one with scope markers, is the stable
 * source plus marker insertions and nothing else.  The bridge is rebuilt
 * from the two source manifests and their snapshots (every unit's marker
 * insertion removed from the calibration file must leave the stable file
 * byte for byte) and must equal the recorded one; messages are the
 * reference's (marker_only_calibration.py).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "analysis_internal.h"
#include "tunectl/fileio.h"
#include "tunectl/path.h"
#include "tunectl/sha256.h"

struct sfile {
	const char *name;
	char *data;
	size_t len;
};

struct sfiles {
	struct sfile *f;
	size_t n;
};

static void
sfiles_free(struct sfiles *s)
{
	size_t i;

	for (i = 0; i < s->n; i++)
		free(s->f[i].data);
	free(s->f);
	s->f = NULL;
	s->n = 0;
}

static const struct sfile *
sfile_find(const struct sfiles *s, const char *name)
{
	size_t i;

	for (i = 0; name != NULL && i < s->n; i++)
		if (strcmp(s->f[i].name, name) == 0)
			return &s->f[i];
	return NULL;
}

static bool
fingerprint_ok(const tc_json *v, const char *key)
{
	tc_json *c = tc_json_clone(v), *fp = tc_json_object_take(c, key);
	char hex[65];
	bool ok = fp != NULL && fp->type == TC_JSON_STRING &&
	    tc_json_digest(c, hex, NULL) == 0 && strcmp(hex, fp->u.str.ptr) == 0;

	tc_json_free(fp);
	tc_json_free(c);
	return ok;
}

static bool
opt_streq(const char *a, const char *b)
{
	return a != NULL && b != NULL && strcmp(a, b) == 0;
}

static bool
same(const tc_json *a, const tc_json *b)
{
	if (a == NULL || b == NULL)
		return (a == NULL || a->type == TC_JSON_NULL) &&
		    (b == NULL || b->type == TC_JSON_NULL);
	return tc_json_equal(a, b);
}

static bool
text(const tc_json *v)
{
	return v != NULL && v->type == TC_JSON_STRING &&
	    tc_text_is_canonical(v->u.str.ptr, v->u.str.len);
}

/* _manifest_units: the units by unit_id (no duplicates) */
static int
units_of(const tc_json *m, const char *label, tc_json **out, tc_error *err)
{
	const tc_json *u = tc_json_get(m, "units");
	size_t i;

	if (u == NULL || u->type != TC_JSON_ARRAY) {
		tc_error_set(err, "%s.units must be a list", label);
		return -1;
	}
	*out = tc_json_new_object();
	for (i = 0; i < u->u.arr.len; i++) {
		const tc_json *x = u->u.arr.items[i], *id;

		if (x->type != TC_JSON_OBJECT) {
			tc_error_set(err, "%s.units[%zu] must be an object", label,
			    i);
			return -1;
		}
		id = tc_json_get(x, "unit_id");
		if (!text(id)) {
			tc_error_set(err, "%s.units[%zu].unit_id must be a "
			    "non-empty trimmed string", label, i);
			return -1;
		}
		if (tc_json_get(*out, id->u.str.ptr) != NULL) {
			tc_error_set(err, "%s contains duplicate unit_id %s", label,
			    id->u.str.ptr);
			return -1;
		}
		tc_json_object_set(*out, id->u.str.ptr, tc_json_clone(x));
	}
	return 0;
}

/* _snapshot_files: every file of the manifest's file_sha256, read */
static int
snapshot_files(const char *snapshot_root, const tc_json *m,
    const char *label, struct sfiles *out, tc_error *err)
{
	const tc_json *fs = tc_json_get(m, "file_sha256");
	tc_error e = TC_ERROR_INIT;
	char *root = tc_path_resolve(snapshot_root, &e), lab[64];
	struct stat st;
	size_t i;
	int rc = -1;

	tc_error_clear(&e);
	memset(out, 0, sizeof(*out));
	if (root == NULL || lstat(root, &st) != 0 || !S_ISDIR(st.st_mode)) {
		tc_error_set(err, "%s snapshot root must be a regular directory",
		    label);
		goto done;
	}
	snprintf(lab, sizeof(lab), "%s source file", label);
	for (i = 0; fs != NULL && fs->type == TC_JSON_OBJECT &&
	    i < fs->u.obj.len; i++) {
		const char *name = fs->u.obj.members[i].key;
		const tc_json *want = fs->u.obj.members[i].value;
		tc_json *nv = tc_json_new_string(name);
		char *p = tc_analysis__smap_resolve(root, nv, lab, err), hex[65];
		struct sfile *f;

		tc_json_free(nv);
		if (p == NULL)
			goto done;
		if (lstat(p, &st) != 0 || !S_ISREG(st.st_mode)) {
			free(p);
			tc_error_set(err, "%s source file is missing: %s", label,
			    name);
			goto done;
		}
		out->f = tc_xrealloc(out->f, (out->n + 1) * sizeof(*out->f));
		f = &out->f[out->n++];
		f->name = name;
		f->data = tc_read_file(p, TC_READ_MAX_BYTES, &f->len, err);
		free(p);
		if (f->data == NULL)
			goto done;
		if (!text(want) || want->u.str.len != 64) {
			tc_error_set(err, "%s file SHA must be a lowercase SHA-256 "
			    "hex digest", label);
			goto done;
		}
		tc_sha256_hex(f->data, f->len, hex);
		if (strcmp(hex, want->u.str.ptr) != 0) {
			tc_error_set(err, "%s source SHA mismatch: %s", label, name);
			goto done;
		}
	}
	rc = 0;
done:
	free(root);
	return rc;
}

static int
cmp_ins(const void *a, const void *b)
{
	int64_t x, y;

	tc_json_int64(tc_json_get(*(tc_json *const *)a, "start_offset"), &x);
	tc_json_int64(tc_json_get(*(tc_json *const *)b, "start_offset"), &y);
	return x < y ? -1 : x > y;
}

static int
cmp_name(const void *a, const void *b)
{
	return strcmp(((const struct sfile *)a)->name,
	    ((const struct sfile *)b)->name);
}

/* _build_file_proofs: the calibration units in manifest order */
static tc_json *
file_proofs(struct sfiles *stable, const struct sfiles *cal,
    const tc_json *ulist, tc_error *err)
{
	tc_json *proofs = tc_json_new_array(), **ins = NULL;
	size_t nins = 0, i, k, j;
	char hex[65];

	if (stable->n != cal->n)
		goto sets;
	for (i = 0; i < stable->n; i++)
		if (sfile_find(cal, stable->f[i].name) == NULL)
			goto sets;
	for (i = 0; i < ulist->u.arr.len; i++) {
		const tc_json *u = ulist->u.arr.items[i];
		const char *uid = tc_json_get_string(u, "unit_id");
		const tc_json *ops = tc_json_get(u, "marker_operations");
		const struct sfile *f = sfile_find(cal,
		    tc_json_get_string(u, "source_file"));

		for (k = 0; k < 2; k++) {
			const char *kind = k == 0 ? "begin" : "end";
			const tc_json *m = ops != NULL && ops->type ==
			    TC_JSON_OBJECT ? tc_json_get(ops, kind) : NULL;
			const tc_json *s, *e;
			int64_t a, b;
			tc_json *o;

			if (m == NULL || m->type != TC_JSON_OBJECT) {
				tc_error_set(err, "calibration unit %s %s marker "
				    "must be an object", uid, kind);
				goto fail;
			}
			s = tc_json_get(m, "insertion_start_offset");
			e = tc_json_get(m, "insertion_end_offset");
			if (s == NULL || e == NULL) {
				tc_error_set(err, "calibration unit %s %s lacks "
				    "insertion span", uid, kind);
				goto fail;
			}
			if (f == NULL) {
				tc_error_set(err, "calibration unit %s source file "
				    "is not archived", uid);
				goto fail;
			}
			if (s->type != TC_JSON_INT || e->type != TC_JSON_INT ||
			    !tc_json_int64(s, &a) || !tc_json_int64(e, &b) ||
			    !(0 <= a && a < b && (uint64_t)b <= f->len)) {
				tc_error_set(err, "calibration unit %s %s insertion "
				    "span is invalid", uid, kind);
				goto fail;
			}
			tc_sha256_hex(f->data + a, (size_t)(b - a), hex);
			if (!opt_streq(tc_json_get_string(m, "insertion_sha256"),
			    hex)) {
				tc_error_set(err, "calibration unit %s %s insertion "
				    "SHA mismatch", uid, kind);
				goto fail;
			}
			o = tc_json_new_object();
			tc_json_object_set_string(o, "unit_id", uid);
			tc_json_object_set_string(o, "marker_kind", kind);
			tc_json_object_set_int(o, "start_offset", a);
			tc_json_object_set_int(o, "end_offset", b);
			tc_json_object_set_string(o, "sha256", hex);
			tc_json_object_set_string(o, "source_file", f->name);
			ins = tc_xrealloc(ins, (nins + 1) * sizeof(*ins));
			ins[nins++] = o;
		}
	}
	qsort(stable->f, stable->n, sizeof(*stable->f), cmp_name);
	for (i = 0; i < stable->n; i++) {
		const struct sfile *sf = &stable->f[i];
		const struct sfile *cf = sfile_find(cal, sf->name);
		tc_json *list = tc_json_new_array(), *p;
		tc_buf kept = TC_BUF_INIT;
		int64_t cursor = 0;

		for (k = 0; k < nins; k++)
			if (strcmp(tc_json_get_string(ins[k], "source_file"),
			    sf->name) == 0) {
				tc_json *c = tc_json_clone(ins[k]);

				tc_json_object_remove(c, "source_file");
				tc_json_array_push(list, c);
			}
		/* by start offset, ties in insertion order */
		for (k = 1; k < list->u.arr.len; k++)
			for (j = k; j > 0 && cmp_ins(&list->u.arr.items[j - 1],
			    &list->u.arr.items[j]) > 0; j--) {
				tc_json *t = list->u.arr.items[j - 1];

				list->u.arr.items[j - 1] = list->u.arr.items[j];
				list->u.arr.items[j] = t;
			}
		for (k = 0; k < list->u.arr.len; k++) {
			int64_t a, b;

			tc_json_int64(tc_json_get(list->u.arr.items[k],
			    "start_offset"), &a);
			tc_json_int64(tc_json_get(list->u.arr.items[k],
			    "end_offset"), &b);
			if (a < cursor) {
				tc_error_set(err, "marker-only calibration "
				    "insertions overlap in %s", sf->name);
				tc_buf_free(&kept);
				tc_json_free(list);
				goto fail;
			}
			tc_buf_add(&kept, cf->data + cursor, (size_t)(a - cursor));
			cursor = b;
		}
		tc_buf_add(&kept, cf->data + cursor, cf->len - (size_t)cursor);
		if (kept.len != sf->len || memcmp(kept.data, sf->data,
		    sf->len) != 0) {
			tc_error_set(err, "calibration source does not reduce to "
			    "stable source after marker removal: %s", sf->name);
			tc_buf_free(&kept);
			tc_json_free(list);
			goto fail;
		}
		p = tc_json_new_object();
		tc_json_object_set_string(p, "source_file", sf->name);
		tc_sha256_hex(sf->data, sf->len, hex);
		tc_json_object_set_string(p, "stable_sha256", hex);
		tc_sha256_hex(cf->data, cf->len, hex);
		tc_json_object_set_string(p, "calibration_sha256", hex);
		tc_sha256_hex(kept.data != NULL ? kept.data : "", kept.len, hex);
		tc_json_object_set_string(p, "stripped_calibration_sha256", hex);
		tc_json_object_set(p, "insertions", list);
		tc_json_array_push(proofs, p);
		tc_buf_free(&kept);
	}
	for (k = 0; k < nins; k++)
		tc_json_free(ins[k]);
	free(ins);
	return proofs;
sets:
	tc_error_set(err, "marker-only calibration source file sets differ");
fail:
	for (k = 0; k < nins; k++)
		tc_json_free(ins[k]);
	free(ins);
	tc_json_free(proofs);
	return NULL;
}

/* build_marker_only_calibration */
static tc_json *
bridge_build(const tc_json *stable, const tc_json *cal,
    const char *stable_root, const char *cal_root, tc_error *err)
{
	static const char *const same_fields[4] = { "block_template_id",
	    "source_symbol", "source_file", "syntax_tree_hash" };
	tc_json *su = NULL, *cu = NULL, *v = NULL, *proofs, *ids;
	struct sfiles sf = { NULL, 0 }, cf = { NULL, 0 };
	size_t i, k;
	char hex[65];

	if (stable == NULL || stable->type != TC_JSON_OBJECT) {
		tc_error_set(err, "stable source manifest must be an object");
		return NULL;
	}
	if (cal == NULL || cal->type != TC_JSON_OBJECT) {
		tc_error_set(err, "calibration source manifest must be an "
		    "object");
		return NULL;
	}
	if (!fingerprint_ok(stable, "manifest_fingerprint")) {
		tc_error_set(err, "stable source manifest fingerprint mismatch");
		return NULL;
	}
	if (!fingerprint_ok(cal, "manifest_fingerprint")) {
		tc_error_set(err, "calibration source manifest fingerprint "
		    "mismatch");
		return NULL;
	}
	if (!opt_streq(tc_json_get_string(stable, "revision_role"),
	    "stable_source")) {
		tc_error_set(err, "marker-only calibration requires a "
		    "stable_source manifest");
		return NULL;
	}
	if (!opt_streq(tc_json_get_string(cal, "revision_role"),
	    "calibration")) {
		tc_error_set(err, "marker-only calibration requires a "
		    "calibration manifest");
		return NULL;
	}
	if (!same(tc_json_get(stable, "base_revision"), tc_json_get(cal,
	    "base_revision"))) {
		tc_error_set(err, "marker-only calibration base revisions "
		    "differ");
		return NULL;
	}
	if (!same(tc_json_get(stable, "calibration_revision"),
	    tc_json_get(cal, "source_revision"))) {
		tc_error_set(err, "calibration manifest is not the declared "
		    "calibration revision");
		return NULL;
	}
	if (!same(tc_json_get(stable, "model_adapter"), tc_json_get(cal,
	    "model_adapter"))) {
		tc_error_set(err, "marker-only calibration model adapter "
		    "identity differs");
		return NULL;
	}
	if (!same(tc_json_get(stable, "block_templates"), tc_json_get(cal,
	    "block_templates"))) {
		tc_error_set(err, "marker-only calibration block templates "
		    "differ");
		return NULL;
	}
	if (units_of(stable, "stable", &su, err) != 0 ||
	    units_of(cal, "calibration", &cu, err) != 0)
		goto done;
	if (su->u.obj.len != cu->u.obj.len)
		goto unit_sets;
	for (i = 0; i < su->u.obj.len; i++)
		if (tc_json_get(cu, su->u.obj.members[i].key) == NULL)
			goto unit_sets;
	/* members are kept sorted: sorted(stable_units) */
	for (i = 0; i < su->u.obj.len; i++)
		for (k = 0; k < 4; k++)
			if (!same(tc_json_get(su->u.obj.members[i].value,
			    same_fields[k]), tc_json_get(tc_json_get(cu,
			    su->u.obj.members[i].key), same_fields[k]))) {
				tc_error_set(err, "marker-only calibration unit %s "
				    "%s differs", su->u.obj.members[i].key,
				    same_fields[k]);
				goto done;
			}
	if (snapshot_files(stable_root, stable, "stable", &sf, err) != 0 ||
	    snapshot_files(cal_root, cal, "calibration", &cf, err) != 0)
		goto done;
	proofs = file_proofs(&sf, &cf, tc_json_get(cal, "units"), err);
	if (proofs == NULL)
		goto done;
	v = tc_json_new_object();
	tc_json_object_set_string(v, "schema_version", "1.0");
	tc_json_object_set_string(v, "protocol", "marker_only_calibration_v1");
	tc_json_object_set(v, "stable_source_revision", tc_json_clone(
	    tc_json_get(stable, "source_revision")));
	tc_json_object_set(v, "calibration_revision", tc_json_clone(
	    tc_json_get(cal, "source_revision")));
	tc_json_object_set(v, "stable_source_manifest_fingerprint",
	    tc_json_clone(tc_json_get(stable, "manifest_fingerprint")));
	tc_json_object_set(v, "calibration_source_manifest_fingerprint",
	    tc_json_clone(tc_json_get(cal, "manifest_fingerprint")));
	ids = tc_json_new_array();
	for (i = 0; i < su->u.obj.len; i++)
		tc_json_array_push(ids, tc_json_new_string(
		    su->u.obj.members[i].key));
	tc_json_object_set(v, "unit_ids", ids);
	tc_json_object_set(v, "files", proofs);
	tc_json_digest(v, hex, NULL);
	tc_json_object_set_string(v, "bridge_fingerprint", hex);
	goto done;
unit_sets:
	tc_error_set(err, "marker-only calibration unit sets differ");
done:
	tc_json_free(su);
	tc_json_free(cu);
	sfiles_free(&sf);
	sfiles_free(&cf);
	return v;
}

int
tc_analysis__marker_bridge_check(const tc_json *value, const tc_json *stable,
    const tc_json *cal, const char *stable_root, const char *cal_root,
    tc_error *err)
{
	tc_json *rebuilt;
	const tc_json *ef, *of;
	size_t i;

	if (value == NULL || value->type != TC_JSON_OBJECT) {
		tc_error_set(err, "marker-only calibration bridge must be an "
		    "object");
		return -1;
	}
	if (!opt_streq(tc_json_get_string(value, "protocol"),
	    "marker_only_calibration_v1")) {
		tc_error_set(err, "marker-only calibration protocol is "
		    "unsupported");
		return -1;
	}
	if (!opt_streq(tc_json_get_string(value, "schema_version"), "1.0")) {
		tc_error_set(err, "marker-only calibration schema version is "
		    "unsupported");
		return -1;
	}
	if (!fingerprint_ok(value, "bridge_fingerprint")) {
		tc_error_set(err, "marker-only calibration bridge fingerprint "
		    "mismatch");
		return -1;
	}
	if ((rebuilt = bridge_build(stable, cal, stable_root, cal_root,
	    err)) == NULL)
		return -1;
	if (tc_json_equal(rebuilt, value)) {
		tc_json_free(rebuilt);
		return 0;
	}
	ef = tc_json_get(rebuilt, "files");
	of = tc_json_get(value, "files");
	for (i = 0; of != NULL && of->type == TC_JSON_ARRAY &&
	    i < ef->u.arr.len && i < of->u.arr.len; i++)
		if (!same(tc_json_get(ef->u.arr.items[i], "stable_sha256"),
		    of->u.arr.items[i]->type == TC_JSON_OBJECT ?
		    tc_json_get(of->u.arr.items[i], "stable_sha256") : NULL)) {
			tc_json_free(rebuilt);
			tc_error_set(err, "marker-only calibration stable source "
			    "SHA mismatch");
			return -1;
		}
	tc_json_free(rebuilt);
	tc_error_set(err, "marker-only calibration bridge cannot be "
	    "reproduced");
	return -1;
}
