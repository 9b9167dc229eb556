/*
 * skm_replay.c - the fusion replay of "tunectl analyze sk-meta
 * --verify-root" (the reference's compare_fusion_replay): are the
 * effective fused groups of a compatibility build's metadata reproduced,
 * group for group, by a fresh verification build with the same config?
 *
 * Each root is summarized with a threshold of 1; a row of its per-SK table
 * takes part when its identity is complete (model, source scope, sorted
 * segments, boundary ops that open and close its op sequence, a reliable
 * child count equal to the sequence length, at least the minimum).  Its
 * signature (those fields as ASCII canonical JSON) must belong to exactly
 * one group on each side to match.  Paths in the report are relative to
 * the artifact base, so a report moved elsewhere no longer recomputes.
 */
#include <stdlib.h>
#include <string.h>

#include "skm_internal.h"
#include "tunectl/fileio.h"
#include "tunectl/path.h"
#include "tunectl/text.h"

/* The deep-fusion threshold of deep_fusion_reproducible. */
#define SKM_DEEP_MIN_CHILD_NODES 5

/* ---- paths ---------------------------------------------------------------- */

/* os.path.relpath(path, base) of two absolute normalised paths. */
static char *
relpath(const char *path, const char *base)
{
	struct an_parts p, b;
	tc_buf out = TC_BUF_INIT;
	size_t common = 0, i;

	tc_analysis__path_split(path, &p);
	tc_analysis__path_split(base, &b);
	while (common < p.n && common < b.n &&
	    strcmp(p.p[common], b.p[common]) == 0)
		common++;
	for (i = common; i < b.n; i++)
		tc_buf_printf(&out, "%s..", out.len ? "/" : "");
	for (i = common; i < p.n; i++)
		tc_buf_printf(&out, "%s%s", out.len ? "/" : "", p.p[i]);
	if (out.len == 0)
		tc_buf_puts(&out, ".");
	tc_analysis__parts_free(&p);
	tc_analysis__parts_free(&b);
	return tc_buf_detach(&out, NULL);
}

/* os.path.commonpath of absolute normalised paths. */
static char *
commonpath(const char *const *paths, size_t n)
{
	struct an_parts first, other;
	size_t common, i, k;
	tc_buf out = TC_BUF_INIT;

	tc_analysis__path_split(paths[0], &first);
	common = first.n;
	for (i = 1; i < n; i++) {
		tc_analysis__path_split(paths[i], &other);
		for (k = 0; k < common && k < other.n &&
		    strcmp(first.p[k], other.p[k]) == 0; k++)
			;
		common = k;
		tc_analysis__parts_free(&other);
	}
	for (k = 0; k < common; k++)
		tc_buf_printf(&out, "/%s", first.p[k]);
	if (out.len == 0)
		tc_buf_puts(&out, "/");
	tc_analysis__parts_free(&first);
	return tc_buf_detach(&out, NULL);
}

static char *
resolve(const char *path, tc_error *err)
{
	tc_error rerr = TC_ERROR_INIT;
	char *r = tc_path_resolve(path, &rerr);

	if (r == NULL) {
		tc_error_set(err, "%s", tc_error_msg(&rerr));
		tc_error_clear(&rerr);
	}
	return r;
}

/* ---- config manifests ----------------------------------------------------- */

/* {path, fingerprint, valid, failure_reason} of a config manifest. */
static tc_json *
config_manifest(const char *resolved, const char *base)
{
	tc_json *o = tc_json_new_object(), *doc = NULL;
	tc_error err = TC_ERROR_INIT;
	char *raw, *text, *rel = relpath(resolved, base), hex[65];
	size_t len, tlen;

	tc_json_object_set_string(o, "path", rel);
	tc_json_object_set_null(o, "fingerprint");
	free(rel);
	if ((raw = tc_read_file(resolved, 0, &len, &err)) != NULL) {
		text = tc_analysis__utf8_replace(raw, len, &tlen);
		doc = tc_json_parse_text(text, tlen, &err);
		free(text);
		free(raw);
	}
	tc_error_clear(&err);
	if (doc == NULL || doc->type != TC_JSON_OBJECT) {
		tc_json_object_set_bool(o, "valid", false);
		tc_json_object_set_string(o, "failure_reason", doc == NULL ?
		    "config_manifest_invalid" : "config_manifest_not_object");
		tc_json_free(doc);
		return o;
	}
	if (tc_json_digest_flags(doc, TC_JSON_ASCII, hex, &err) != 0) {
		/* a lone surrogate cannot come out of replaced UTF-8 text */
		tc_error_clear(&err);
		tc_json_object_set_bool(o, "valid", false);
		tc_json_object_set_string(o, "failure_reason",
		    "config_manifest_invalid");
	} else {
		tc_json_object_set_bool(o, "valid", true);
		tc_json_object_set_null(o, "failure_reason");
		tc_json_object_set_string(o, "fingerprint", hex);
	}
	tc_json_free(doc);
	return o;
}

/* ---- replay groups -------------------------------------------------------- */

static bool
nonblank(const tc_json *v)
{
	size_t a, b;

	if (!tc_json_is(v, TC_JSON_STRING))
		return false;
	tc_py_strip(v->u.str.ptr, v->u.str.len, &a, &b);
	return b > a;
}

static bool
all_digits(const tc_json *v)
{
	size_t i;

	if (!tc_json_is(v, TC_JSON_STRING) || v->u.str.len == 0)
		return false;
	for (i = 0; i < v->u.str.len; i++)
		if (v->u.str.ptr[i] < '0' || v->u.str.ptr[i] > '9')
			return false;
	return true;
}

/* A list of non-blank strings, sorted and without repeats. */
static bool
sorted_segments(const tc_json *v)
{
	size_t i;

	if (!tc_json_is(v, TC_JSON_ARRAY))
		return false;
	for (i = 0; i < v->u.arr.len; i++) {
		if (!nonblank(v->u.arr.items[i]))
			return false;
		if (i > 0 && strcmp(v->u.arr.items[i - 1]->u.str.ptr,
		    v->u.arr.items[i]->u.str.ptr) >= 0)
			return false;
	}
	return true;
}

/* The complete identity of a row (or a matched group, with seq_key
 * "ordered_child_op_sequence"). */
static bool
identity_complete(const tc_json *row, const char *seq_key)
{
	const tc_json *b = tc_json_get(row, "boundary");
	const tc_json *seq = tc_json_get(row, seq_key);
	const tc_json *start = tc_json_get(b, "start_op");
	const tc_json *end = tc_json_get(b, "end_op");
	const tc_json *rel = tc_json_get(row, "count_reliable");
	int64_t count;
	size_t i;

	if (!all_digits(tc_json_get(row, "model_id")) ||
	    !nonblank(tc_json_get(row, "source_scope")) ||
	    !sorted_segments(tc_json_get(row, "segments")) ||
	    !tc_json_is(b, TC_JSON_OBJECT) || !nonblank(start) ||
	    !nonblank(end) || !tc_json_is(seq, TC_JSON_ARRAY) ||
	    seq->u.arr.len == 0)
		return false;
	for (i = 0; i < seq->u.arr.len; i++)
		if (!nonblank(seq->u.arr.items[i]))
			return false;
	if (!tc_json_is(tc_json_get(row, "child_count"), TC_JSON_INT) ||
	    !tc_json_int64(tc_json_get(row, "child_count"), &count) ||
	    count < 0 || (uint64_t)count != seq->u.arr.len)
		return false;
	return tc_json_is(rel, TC_JSON_BOOL) && rel->u.b &&
	    tc_json_equal(start, seq->u.arr.items[0]) &&
	    tc_json_equal(end, seq->u.arr.items[seq->u.arr.len - 1]);
}

static size_t
len_of_list(const tc_json *v)
{
	return tc_json_is(v, TC_JSON_ARRAY) ? v->u.arr.len : 0;
}

struct rgroup {
	char *key;		/* the signature as ASCII canonical JSON */
	tc_json *group;
	int64_t child_count;
	size_t index;		/* the row's position: a stable sort */
};

struct rgroups {
	struct rgroup *v;
	size_t n;
};

static tc_json *
copy_of(const tc_json *o, const char *key)
{
	const tc_json *v = tc_json_get(o, key);

	return v != NULL ? tc_json_clone(v) : tc_json_new_null();
}

static void
add_group(struct rgroups *out, const tc_json *row)
{
	const tc_json *b = tc_json_get(row, "boundary");
	tc_json *sig = tc_json_new_object(), *sb = tc_json_new_object();
	tc_json *g = tc_json_new_object();
	struct rgroup *r;
	tc_buf key = TC_BUF_INIT;

	tc_json_object_set(sig, "model_id", copy_of(row, "model_id"));
	tc_json_object_set(sig, "source_scope", copy_of(row, "source_scope"));
	tc_json_object_set(sig, "segments", copy_of(row, "segments"));
	tc_json_object_set(sb, "start_op", copy_of(b, "start_op"));
	tc_json_object_set(sb, "end_op", copy_of(b, "end_op"));
	tc_json_object_set(sig, "boundary", sb);
	tc_json_object_set(sig, "op_sequence", copy_of(row, "op_sequence"));
	tc_json_object_set(sig, "child_count", copy_of(row, "child_count"));
	tc_json_write(&key, sig, TC_JSON_ASCII, NULL);
	tc_json_object_set(g, "model_id", copy_of(sig, "model_id"));
	tc_json_object_set(g, "source_scope", copy_of(sig, "source_scope"));
	tc_json_object_set(g, "segments", copy_of(sig, "segments"));
	tc_json_object_set(g, "boundary", copy_of(sig, "boundary"));
	tc_json_object_set(g, "ordered_child_op_sequence", copy_of(sig,
	    "op_sequence"));
	tc_json_object_set(g, "child_count", copy_of(row, "child_count"));
	tc_json_object_set_bool(g, "count_reliable", true);
	tc_json_object_set(g, "signature", sig);
	out->v = tc_xrealloc(out->v, (out->n + 1) * sizeof(*out->v));
	r = &out->v[out->n++];
	r->key = tc_buf_detach(&key, NULL);
	r->group = g;
	r->child_count = tc_analysis__skm_int(row, "child_count");
	r->index = out->n - 1;
}

static int
by_key_then_count(const void *x, const void *y)
{
	const struct rgroup *a = x, *b = y;
	int c = strcmp(a->key, b->key);

	if (c != 0)
		return c;
	if (a->child_count != b->child_count)
		return a->child_count < b->child_count ? -1 : 1;
	return (a->index > b->index) - (a->index < b->index);
}

/* The eligible groups of rows at minimum m, sorted by signature. */
static void
eligible(const tc_json *rows, long m, struct rgroups *out)
{
	size_t i;

	memset(out, 0, sizeof(*out));
	for (i = 0; rows != NULL && i < rows->u.arr.len; i++) {
		const tc_json *row = rows->u.arr.items[i];

		if (identity_complete(row, "op_sequence") &&
		    tc_analysis__skm_int(row, "child_count") >= m)
			add_group(out, row);
	}
	/* equal keys and counts keep their row order (index) */
	if (out->n > 1)
		qsort(out->v, out->n, sizeof(*out->v), by_key_then_count);
}

static void
rgroups_free(struct rgroups *g)
{
	size_t i;

	for (i = 0; i < g->n; i++) {
		free(g->v[i].key);
		tc_json_free(g->v[i].group);
	}
	free(g->v);
	memset(g, 0, sizeof(*g));
}

struct matching {
	tc_json *matched, *compat_only, *verify_only;
};

/* The run of groups with the key at g->v[*i]; *i moves past it. */
static size_t
run_of(const struct rgroups *g, size_t *i, const char *key)
{
	size_t st = *i;

	while (*i < g->n && strcmp(g->v[*i].key, key) == 0)
		(*i)++;
	return *i - st;
}

static void
match(const struct rgroups *c, const struct rgroups *v, struct matching *m)
{
	size_t i = 0, j = 0, k;

	m->matched = tc_json_new_array();
	m->compat_only = tc_json_new_array();
	m->verify_only = tc_json_new_array();
	while (i < c->n || j < v->n) {
		const char *key;
		size_t ci = i, vj = j, nc, nv;

		if (j >= v->n || (i < c->n && strcmp(c->v[i].key,
		    v->v[j].key) <= 0))
			key = c->v[i].key;
		else
			key = v->v[j].key;
		nc = run_of(c, &i, key);
		nv = run_of(v, &j, key);
		if (nc == 1 && nv == 1) {
			tc_json *g = tc_json_clone(c->v[ci].group);

			tc_json_object_set(g, "verify_child_count",
			    copy_of(v->v[vj].group, "child_count"));
			tc_json_object_set_bool(g, "verify_count_reliable", true);
			tc_json_array_push(m->matched, g);
			continue;
		}
		for (k = 0; k < nc; k++)
			tc_json_array_push(m->compat_only,
			    tc_json_clone(c->v[ci + k].group));
		for (k = 0; k < nv; k++)
			tc_json_array_push(m->verify_only,
			    tc_json_clone(v->v[vj + k].group));
	}
}

static void
matching_free(struct matching *m)
{
	tc_json_free(m->matched);
	tc_json_free(m->compat_only);
	tc_json_free(m->verify_only);
}

/* The per-SK table of a root summarized with threshold 1. */
static tc_json *
rows_of(const char *root, tc_error *err)
{
	struct tc_sk_meta_args a = { root, 20, NULL, NULL, 1 };
	tc_json *doc = tc_sk_meta_summary(&a, err), *rows;

	if (doc == NULL)
		return NULL;
	rows = tc_json_clone(tc_json_get(tc_json_get(doc, "round_report"),
	    "per_sk_fusion_table"));
	tc_json_free(doc);
	return rows;
}

static const char *
failure_reason(bool same_root, const tc_json *cm, const tc_json *vm,
    bool fp_match, const struct rgroups *c, const struct rgroups *v,
    const struct matching *m)
{
	if (same_root)
		return "verify_metadata_not_fresh";
	if (!tc_json_truthy(tc_json_get(cm, "valid")))
		return tc_json_get_string(cm, "failure_reason");
	if (!tc_json_truthy(tc_json_get(vm, "valid")))
		return tc_json_get_string(vm, "failure_reason");
	if (!fp_match)
		return "config_fingerprint_mismatch";
	if (c->n == 0)
		return "compat_has_no_effective_fusion";
	if (v->n == 0)
		return "verify_has_no_effective_fusion";
	if (m->matched->u.arr.len == 0)
		return "no_matching_effective_fusion_signature";
	return NULL;
}

/* Set the group lists under both of their names. */
static void
set_pair(tc_json *o, const char *effective, const char *fusion, tc_json *v)
{
	tc_json_object_set(o, fusion, tc_json_clone(v));
	tc_json_object_set(o, effective, v);
}

static tc_json *
report(const struct tc_sk_meta_replay_args *a, const char *base,
    const char *croot, const char *vroot, tc_json *cm, tc_json *vm,
    const tc_json *crows, const tc_json *vrows)
{
	tc_json *o = tc_json_new_object();
	struct rgroups c, v, cd, vd;
	struct matching m, md;
	bool same = strcmp(croot, vroot) == 0;
	bool fp_match = tc_json_truthy(tc_json_get(cm, "valid")) &&
	    tc_json_truthy(tc_json_get(vm, "valid")) &&
	    tc_json_equal(tc_json_get(cm, "fingerprint"),
	    tc_json_get(vm, "fingerprint"));
	const char *why;
	char *rel;

	eligible(crows, a->min_child_nodes, &c);
	eligible(vrows, a->min_child_nodes, &v);
	match(&c, &v, &m);
	eligible(crows, SKM_DEEP_MIN_CHILD_NODES, &cd);
	eligible(vrows, SKM_DEEP_MIN_CHILD_NODES, &vd);
	match(&cd, &vd, &md);
	why = failure_reason(same, cm, vm, fp_match, &c, &v, &m);
	tc_json_object_set_string(o, "candidate_name", a->candidate_name);
	tc_json_object_set_string(o, "round_id", a->round_id);
	tc_json_object_set_string(o, "source_revision", a->source_revision);
	tc_json_object_set_int(o, "replay_min_child_nodes", a->min_child_nodes);
	tc_json_object_set_int(o, "min_child_nodes", a->min_child_nodes);
	tc_json_object_set_string(o, "artifact_base", ".");
	rel = relpath(croot, base);
	tc_json_object_set_string(o, "compat_metadata_root", rel);
	free(rel);
	rel = relpath(vroot, base);
	tc_json_object_set_string(o, "verify_metadata_root", rel);
	free(rel);
	tc_json_object_set(o, "compat_config_manifest_path", copy_of(cm, "path"));
	tc_json_object_set(o, "verify_config_manifest_path", copy_of(vm, "path"));
	tc_json_object_set(o, "compat_config_fingerprint", copy_of(cm,
	    "fingerprint"));
	tc_json_object_set(o, "verify_config_fingerprint", copy_of(vm,
	    "fingerprint"));
	tc_json_object_set_bool(o, "config_fingerprint_match", fp_match);
	tc_json_object_set_int(o, "compat_effective_group_count", (int64_t)c.n);
	tc_json_object_set_int(o, "compat_fusion_group_count", (int64_t)c.n);
	tc_json_object_set_int(o, "verify_effective_group_count", (int64_t)v.n);
	tc_json_object_set_int(o, "verify_fusion_group_count", (int64_t)v.n);
	tc_json_object_set_int(o, "matched_effective_group_count",
	    (int64_t)m.matched->u.arr.len);
	tc_json_object_set_int(o, "matched_fusion_group_count",
	    (int64_t)m.matched->u.arr.len);
	set_pair(o, "matched_effective_groups", "matched_fusion_groups",
	    m.matched);
	set_pair(o, "compat_only_effective_groups", "compat_only_fusion_groups",
	    m.compat_only);
	set_pair(o, "verify_only_effective_groups", "verify_only_fusion_groups",
	    m.verify_only);
	tc_json_object_set_bool(o, "fusion_reproducible", why == NULL);
	tc_json_object_set_bool(o, "deep_fusion_reproducible", !same && fp_match &&
	    md.matched->u.arr.len > 0);
	tc_json_object_set_string_or_null(o, "failure_reason", why);
	tc_json_object_set(o, "compat_config_manifest", cm);
	tc_json_object_set(o, "verify_config_manifest", vm);
	matching_free(&md);
	rgroups_free(&c);
	rgroups_free(&v);
	rgroups_free(&cd);
	rgroups_free(&vd);
	return o;
}

tc_json *
tc_sk_meta_replay(const struct tc_sk_meta_replay_args *a, tc_error *err)
{
	char *croot = NULL, *vroot = NULL, *cman = NULL, *vman = NULL;
	char *base = NULL;
	tc_json *crows = NULL, *vrows = NULL, *out = NULL;

	if ((croot = resolve(a->compat_root, err)) == NULL ||
	    (vroot = resolve(a->verify_root, err)) == NULL ||
	    (cman = resolve(a->compat_manifest, err)) == NULL ||
	    (vman = resolve(a->verify_manifest, err)) == NULL)
		goto done;
	if (a->artifact_base != NULL) {
		if ((base = resolve(a->artifact_base, err)) == NULL)
			goto done;
	} else {
		const char *all[4] = { croot, vroot, cman, vman };

		base = commonpath(all, 4);
	}
	if ((crows = rows_of(croot, err)) == NULL ||
	    (vrows = rows_of(vroot, err)) == NULL)
		goto done;
	out = report(a, base, croot, vroot, config_manifest(cman, base),
	    config_manifest(vman, base), crows, vrows);
done:
	tc_json_free(crows);
	tc_json_free(vrows);
	free(croot);
	free(vroot);
	free(cman);
	free(vman);
	free(base);
	return out;
}

/* ---- the validator (validate_replay_report) -------------------------------- */

static const char *const check_names[] = {
	"candidate_name", "candidate_name_matches", "round_id",
	"round_id_matches", "source_revision", "source_revision_matches",
	"artifact_paths_valid", "fusion_reproducible",
	"config_fingerprint_match", "distinct_metadata_roots",
	"matched_fusion_group_count", "matched_reliable_signature",
	"report_matches_recomputed", NULL
};

static const char *const artifact_fields[] = { "compat_metadata_root",
	"verify_metadata_root", "compat_config_manifest_path",
	"verify_config_manifest_path", NULL };

static tc_json *
verdict(tc_json *o, const char *reason)
{
	tc_json_object_set_string(o, "failure_reason", reason);
	return o;
}

static void
pass(tc_json *o, const char *check, bool ok)
{
	tc_json_object_set_bool(tc_json_get(o, "checks"), check, ok);
}

/* A string without surrounding space: the value itself stripped. */
static bool
trimmed_string(const tc_json *v)
{
	size_t a, b;

	if (!nonblank(v))
		return false;
	tc_py_strip(v->u.str.ptr, v->u.str.len, &a, &b);
	return a == 0 && b == v->u.str.len;
}

/* The identity checks of the report (steps 2-4); the failure, or NULL.
 * name gets the stripped candidate (malloc'd). */
static const char *
identity_checks(tc_json *o, const tc_json *rep, const char *const expect[3],
    char **name)
{
	const tc_json *v = tc_json_get(rep, "candidate_name");
	const tc_json *round = tc_json_get(rep, "round_id");
	const tc_json *rev = tc_json_get(rep, "source_revision");
	size_t a, b, l;

	if (!nonblank(v))
		return "replay_candidate_name_invalid";
	tc_py_strip(v->u.str.ptr, v->u.str.len, &a, &b);
	*name = tc_xstrndup(v->u.str.ptr + a, b - a);
	tc_json_object_set_string(o, "candidate_name", *name);
	pass(o, "candidate_name", true);
	if (expect[0] != NULL && strcmp(expect[0], *name) != 0)
		return "replay_candidate_name_mismatch";
	pass(o, "candidate_name_matches", true);
	l = strlen(*name);
	if (!trimmed_string(round) || strncmp(round->u.str.ptr, *name, l) != 0 ||
	    round->u.str.ptr[l] != '-')
		return "replay_round_id_invalid";
	tc_json_object_set(o, "round_id", tc_json_clone(round));
	pass(o, "round_id", true);
	if (expect[1] != NULL && strcmp(expect[1], round->u.str.ptr) != 0)
		return "replay_round_id_mismatch";
	pass(o, "round_id_matches", true);
	if (!trimmed_string(rev))
		return "replay_source_revision_invalid";
	tc_json_object_set(o, "source_revision", tc_json_clone(rev));
	pass(o, "source_revision", true);
	if (expect[2] != NULL && strcmp(expect[2], rev->u.str.ptr) != 0)
		return "replay_source_revision_mismatch";
	pass(o, "source_revision_matches", true);
	return NULL;
}

/* The four artifact paths joined to base (step 5); the failure, or
 * NULL.  paths[] are malloc'd. */
static const char *
artifact_checks(tc_json *o, const tc_json *rep, const char *base,
    char *paths[4])
{
	size_t i;
	bool ok = true;

	for (i = 0; artifact_fields[i] != NULL; i++)
		if (!nonblank(tc_json_get(rep, artifact_fields[i])))
			return "replay_artifact_path_invalid";
	for (i = 0; artifact_fields[i] != NULL; i++) {
		paths[i] = tc_path_join(base, tc_json_get_string(rep,
		    artifact_fields[i]));
		ok = ok && (i < 2 ? tc_is_directory(paths[i]) :
		    tc_is_regular_file(paths[i]));
	}
	pass(o, "artifact_paths_valid", ok);
	return ok ? NULL : "replay_artifacts_invalid";
}

/* Every key of recomputed is in the report with an equal value. */
static bool
report_matches(const tc_json *rep, const tc_json *recomputed)
{
	size_t i;

	for (i = 0; i < recomputed->u.obj.len; i++) {
		const tc_json_member *m = &recomputed->u.obj.members[i];
		const tc_json *v = tc_json_getn(rep, m->key, m->key_len);

		if (v == NULL || !tc_json_equal(v, m->value))
			return false;
	}
	return true;
}

/* Every matched group passes the identity test on its own fields. */
static bool
matched_reliable(const tc_json *groups)
{
	size_t i;

	if (len_of_list(groups) == 0)
		return false;
	for (i = 0; i < groups->u.arr.len; i++) {
		const tc_json *g = groups->u.arr.items[i];
		const tc_json *vc = tc_json_get(g, "verify_child_count");
		const tc_json *vr = tc_json_get(g, "verify_count_reliable");

		if (!identity_complete(g, "ordered_child_op_sequence") ||
		    !tc_json_is(vr, TC_JSON_BOOL) || !vr->u.b ||
		    !tc_json_is(vc, TC_JSON_INT) ||
		    !tc_json_equal(vc, tc_json_get(g, "child_count")))
			return false;
	}
	return true;
}

/* Steps 6-9: recompute from base and compare. */
static tc_json *
recompute_checks(tc_json *o, const tc_json *rep, const char *base,
    char *const paths[4], const char *name)
{
	struct tc_sk_meta_replay_args a;
	const tc_json *mc = tc_json_get(rep, "replay_min_child_nodes");
	tc_error err = TC_ERROR_INIT;
	tc_json *re;
	char *c, *v;
	int64_t m;
	bool matches, all = true;
	size_t i;

	if (!tc_json_is(mc, TC_JSON_INT) || !tc_json_int64(mc, &m) || m < 1)
		return verdict(o, "replay_report_stale_or_tampered");
	a.compat_root = paths[0];
	a.verify_root = paths[1];
	a.compat_manifest = paths[2];
	a.verify_manifest = paths[3];
	a.candidate_name = name;
	a.round_id = tc_json_get_string(rep, "round_id");
	a.source_revision = tc_json_get_string(rep, "source_revision");
	a.artifact_base = base;
	a.min_child_nodes = (long)m;
	if ((re = tc_sk_meta_replay(&a, &err)) == NULL) {
		tc_error_clear(&err);
		return verdict(o, "replay_artifacts_invalid");
	}
	matches = report_matches(rep, re);
	pass(o, "fusion_reproducible", tc_json_truthy(tc_json_get(re,
	    "fusion_reproducible")));
	pass(o, "config_fingerprint_match", tc_json_truthy(tc_json_get(re,
	    "config_fingerprint_match")));
	c = tc_path_join(base, tc_json_get_string(re, "compat_metadata_root"));
	v = tc_path_join(base, tc_json_get_string(re, "verify_metadata_root"));
	{
		char *rc = tc_path_resolve(c, &err), *rv;

		tc_error_clear(&err);
		rv = tc_path_resolve(v, &err);
		tc_error_clear(&err);
		pass(o, "distinct_metadata_roots", rc != NULL && rv != NULL &&
		    strcmp(rc, rv) != 0);
		free(rc);
		free(rv);
	}
	free(c);
	free(v);
	pass(o, "matched_fusion_group_count", tc_analysis__skm_int(re,
	    "matched_fusion_group_count") >= 1);
	pass(o, "matched_reliable_signature",
	    matched_reliable(tc_json_get(re, "matched_fusion_groups")));
	pass(o, "report_matches_recomputed", matches);
	for (i = 0; check_names[i] != NULL; i++)
		all = all && tc_json_truthy(tc_json_get(tc_json_get(o, "checks"),
		    check_names[i]));
	tc_json_object_set_bool(o, "valid", all);
	tc_json_object_set(o, "fusion_reproducible", copy_of(re,
	    "fusion_reproducible"));
	tc_json_object_set(o, "deep_fusion_reproducible", copy_of(re,
	    "deep_fusion_reproducible"));
	if (!all) {
		if (!matches || tc_json_truthy(tc_json_get(re,
		    "fusion_reproducible")))
			verdict(o, "replay_report_stale_or_tampered");
		else
			tc_json_object_set(o, "failure_reason", copy_of(re,
			    "failure_reason"));
	}
	tc_json_object_set(o, "recomputed_replay", re);
	return o;
}

tc_json *
tc_sk_meta_validate_replay(const char *path, const char *expected_candidate,
    const char *expected_round, const char *expected_revision)
{
	const char *expect[3] = { expected_candidate, expected_round,
	    expected_revision };
	tc_json *o = tc_json_new_object(), *checks = tc_json_new_object();
	tc_json *rep = NULL;
	tc_error err = TC_ERROR_INIT;
	char *resolved = NULL, *raw, *text, *name = NULL, *base = NULL;
	char *paths[4] = { NULL, NULL, NULL, NULL };
	const char *why;
	size_t i, len, tlen;

	for (i = 0; check_names[i] != NULL; i++)
		tc_json_object_set_bool(checks, check_names[i], false);
	tc_json_object_set(o, "checks", checks);
	tc_json_object_set_bool(o, "valid", false);
	tc_json_object_set_null(o, "failure_reason");
	tc_json_object_set_string_or_null(o, "path", path);
	if (path == NULL)
		return verdict(o, "replay_evidence_missing");
	if ((resolved = tc_path_resolve(path, &err)) == NULL) {
		tc_error_clear(&err);
		return verdict(o, "replay_evidence_invalid");
	}
	tc_json_object_set_string(o, "path", resolved);
	if ((raw = tc_read_file(resolved, 0, &len, &err)) != NULL) {
		text = tc_analysis__utf8_replace(raw, len, &tlen);
		rep = tc_json_parse_text(text, tlen, &err);
		free(text);
		free(raw);
	}
	tc_error_clear(&err);
	if (rep == NULL)
		o = verdict(o, "replay_evidence_invalid");
	else if (rep->type != TC_JSON_OBJECT)
		o = verdict(o, "replay_evidence_not_object");
	else if ((why = identity_checks(o, rep, expect, &name)) != NULL)
		o = verdict(o, why);
	else if ((why = artifact_checks(o, rep, (base =
	    tc_path_dirname(resolved)), paths)) != NULL)
		o = verdict(o, why);
	else
		o = recompute_checks(o, rep, base, paths, name);
	for (i = 0; i < 4; i++)
		free(paths[i]);
	free(base);
	free(name);
	free(resolved);
	tc_json_free(rep);
	return o;
}
