/*
 * ledger_merge.c - merging an experiment result into a schema 2 ledger
 * (docs/spec/ledger.md "Merging into a schema 2 ledger"): ledger preparation
 * and re-validation (steps 2-9), immutability of stored experiments (steps
 * 10-11), freshness of analysis and profile evidence against history (steps
 * 12-16) and the store (step 17).
 *
 * Where the reference iterates Python sets (the historical registry,
 * step 9 and 16), tunectl iterates in sorted order so that the first
 * error is deterministic.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ledger_internal.h"
#include "tunectl/ledger.h"

#define E(...) (tc_error_set(err, __VA_ARGS__), -1)

static bool
member_key_canonical(const char *k, size_t n)
{
	tc_json *s = tc_json_new_stringn(k, n);
	bool ok = tc_is_canonical_string(s);

	tc_json_free(s);
	return ok;
}

static bool
lifecycle_passed(const tc_json *round)
{
	return tc_ledger__is(tc_json_get(tc_json_get(round, "lifecycle"), "profiling"),
	    "passed");
}

static bool
add_stripped(lx_set *s, const tc_json *v)
{
	size_t a, b;

	if (!tc_is_nonblank_string(v))
		return false;
	tc_py_strip(v->u.str.ptr, v->u.str.len, &a, &b);
	tc_ledger__set_add(s, v->u.str.ptr + a, b - a);
	return true;
}

static bool
add_posix(lx_set *s, const tc_json *v)
{
	char *p;

	if (!tc_is_relative_artifact(v))
		return false;
	p = tc_ledger__posix(v);
	tc_ledger__set_addz(s, p);
	free(p);
	return true;
}

static const tc_json *
rounds_of(const tc_json *exp)
{
	const tc_json *r = tc_json_get(exp, "rounds");

	return tc_json_is(r, TC_JSON_ARRAY) ? r : NULL;
}

/* ---- the historical artifact registry (steps 9, 16) --------------------- */

struct registry {
	lx_map roles;		/* path -> roles */
	lx_map owners;		/* "role\npath" -> owners */
};

static void
registry_add(struct registry *reg, const tc_json *doc, const char *owner,
    size_t owner_len)
{
	lx_map m = LX_MAP_INIT;
	tc_buf key = TC_BUF_INIT;
	size_t i, k;

	tc_ledger__collect_roles(doc, &m);
	for (i = 0; i < m.len; i++) {
		for (k = 0; k < m.vals[i].len; k++) {
			const lx_str *role = &m.vals[i].items[k];

			tc_ledger__map_add(&reg->roles, m.keys[i].p, m.keys[i].n,
			    role->p, role->n);
			tc_buf_reset(&key);
			tc_buf_add(&key, role->p, role->n);
			tc_buf_putc(&key, '\n');
			tc_buf_add(&key, m.keys[i].p, m.keys[i].n);
			tc_ledger__map_add(&reg->owners, key.data, key.len, owner,
			    owner_len);
		}
	}
	tc_buf_free(&key);
	tc_ledger__map_free(&m);
}

static void
registry_build(struct registry *reg, const tc_json *ledger)
{
	static const char *const sources[] = {
		"legacy_experiments", "experiments"
	};
	const tc_json *vx = tc_json_get(ledger, "legacy_verified_exclusions");
	size_t s, i;

	memset(reg, 0, sizeof(*reg));
	for (s = 0; s < 2; s++) {
		const tc_json *o = tc_json_get(ledger, sources[s]);

		for (i = 0; tc_json_is(o, TC_JSON_OBJECT) && i < o->u.obj.len; i++)
			registry_add(reg, o->u.obj.members[i].value,
			    o->u.obj.members[i].key, o->u.obj.members[i].key_len);
	}
	for (i = 0; tc_json_is(vx, TC_JSON_ARRAY) && i < vx->u.arr.len; i++) {
		const tc_json *x = vx->u.arr.items[i];
		const tc_json *id = tc_json_get(x, "experiment_id");
		char label[64];

		if (tc_is_canonical_string(id)) {
			registry_add(reg, x, id->u.str.ptr, id->u.str.len);
		} else {
			snprintf(label, sizeof(label),
			    "legacy_verified_exclusions[%zu]", i);
			registry_add(reg, x, label, strlen(label));
		}
	}
	tc_ledger__map_sort(&reg->roles);
	tc_ledger__map_sort(&reg->owners);
}

static void
registry_free(struct registry *reg)
{
	tc_ledger__map_free(&reg->roles);
	tc_ledger__map_free(&reg->owners);
}

static int
registry_check(const struct registry *reg, tc_error *err)
{
	size_t i;

	for (i = 0; i < reg->roles.len; i++) {
		tc_buf m = TC_BUF_INIT;

		if (reg->roles.vals[i].len <= 1)
			continue;
		tc_buf_puts(&m, "ledger artifact path ");
		tc_buf_add(&m, reg->roles.keys[i].p, reg->roles.keys[i].n);
		tc_buf_puts(&m, " has conflicting roles: ");
		tc_ledger__set_join(&m, &reg->roles.vals[i]);
		tc_error_set(err, "%s", tc_buf_cstr(&m));
		tc_buf_free(&m);
		return -1;
	}
	for (i = 0; i < reg->owners.len; i++) {
		const char *key = reg->owners.keys[i].p;
		const char *nl = memchr(key, '\n', reg->owners.keys[i].n);

		if (reg->owners.vals[i].len <= 1 ||
		    strncmp(key, "baseline_profile\n", 17) == 0)
			continue;
		return E("ledger %.*s artifact path is reused across experiments: "
		    "%s", (int)(nl - key), key, nl + 1);
	}
	return 0;
}

/* ---- preparation (steps 2-9) --------------------------------------------- */

static tc_json *
fresh_ledger(void)
{
	tc_json *l = tc_json_new_object();

	tc_json_object_set_int(l, "schema_version", TC_LEDGER_SCHEMA_VERSION);
	tc_json_object_set(l, "experiments", tc_json_new_object());
	tc_json_object_set(l, "legacy_experiments", tc_json_new_object());
	tc_json_object_set(l, "legacy_verified_exclusions", tc_json_new_array());
	tc_json_object_set(l, "artifact_validated_experiment_ids",
	    tc_json_new_array());
	tc_json_object_set(l, "conditional_performance_evidence",
	    tc_json_new_object());
	return l;
}

/* Member `key` of l, created as `dflt` (owned) when absent. */
static tc_json *
get_or_create(tc_json *l, const char *key, tc_json *dflt)
{
	tc_json *v = tc_json_get(l, key);

	if (v != NULL) {
		tc_json_free(dflt);
		return v;
	}
	tc_json_object_set(l, key, dflt);
	return tc_json_get(l, key);
}

static int
check_experiments(const tc_json *exps, tc_error *err)
{
	size_t i;

	if (!tc_json_is(exps, TC_JSON_OBJECT))
		return E("ledger experiments must be an object");
	for (i = 0; i < exps->u.obj.len; i++) {
		const tc_json_member *m = &exps->u.obj.members[i];
		tc_json *key, *errors;
		bool same;

		if (!member_key_canonical(m->key, m->key_len))
			return E("ledger experiment IDs must be canonical strings");
		if (!tc_json_is(m->value, TC_JSON_OBJECT))
			return E("ledger experiment %s must be an object", m->key);
		key = tc_json_new_stringn(m->key, m->key_len);
		same = tc_ledger__eq(tc_json_get(m->value, "experiment_id"), key);
		tc_json_free(key);
		if (!same)
			return E("ledger experiment %s identity mismatch", m->key);
		errors = tc_experiment_structural_errors(m->value);
		if (errors->u.arr.len > 0) {
			tc_buf b = TC_BUF_INIT;

			tc_ledger__join_errors(&b, errors);
			tc_error_set(err, "ledger experiment %s is invalid: %s",
			    m->key, tc_buf_cstr(&b));
			tc_buf_free(&b);
			tc_json_free(errors);
			return -1;
		}
		tc_json_free(errors);
	}
	return 0;
}

static int
check_validated_ids(const tc_json *ids, const tc_json *exps, tc_error *err)
{
	lx_set seen = LX_SET_INIT, unknown = LX_SET_INIT;
	bool dup = false;
	size_t i;
	int rc = 0;

	if (!tc_json_is(ids, TC_JSON_ARRAY))
		return E("ledger artifact_validated_experiment_ids must be a list");
	for (i = 0; i < ids->u.arr.len; i++)
		if (!tc_is_canonical_string(ids->u.arr.items[i]))
			return E("ledger artifact_validated_experiment_ids must "
			    "contain canonical strings");
	for (i = 0; i < ids->u.arr.len; i++) {
		const tc_json *id = ids->u.arr.items[i];

		if (!tc_ledger__set_add(&seen, id->u.str.ptr, id->u.str.len))
			dup = true;
		if (tc_json_getn(exps, id->u.str.ptr, id->u.str.len) == NULL)
			tc_ledger__set_add(&unknown, id->u.str.ptr, id->u.str.len);
	}
	if (dup) {
		rc = E("ledger artifact_validated_experiment_ids must be unique");
	} else if (unknown.len > 0) {
		tc_buf b = TC_BUF_INIT;

		tc_ledger__set_join(&b, &unknown);
		rc = E("ledger artifact_validated_experiment_ids references "
		    "unknown experiments: %s", tc_buf_cstr(&b));
		tc_buf_free(&b);
	}
	tc_ledger__set_free(&seen);
	tc_ledger__set_free(&unknown);
	return rc;
}

static int
check_disjoint_ids(const tc_json *exps, const tc_json *legacy, tc_error *err)
{
	lx_set both = LX_SET_INIT;
	size_t i;
	int rc = 0;

	for (i = 0; i < exps->u.obj.len; i++)
		if (tc_json_getn(legacy, exps->u.obj.members[i].key,
		    exps->u.obj.members[i].key_len) != NULL)
			tc_ledger__set_add(&both, exps->u.obj.members[i].key,
			    exps->u.obj.members[i].key_len);
	if (both.len > 0) {
		tc_buf b = TC_BUF_INIT;

		tc_ledger__set_join(&b, &both);
		rc = E("ledger active and legacy experiment IDs must be disjoint: "
		    "%s", tc_buf_cstr(&b));
		tc_buf_free(&b);
	}
	tc_ledger__set_free(&both);
	return rc;
}

/* Rebuild (and, unless migrated, verify) the derived index. */
static int
refresh_index(tc_json *l, bool verify, tc_error *err)
{
	const tc_json *stored = tc_json_get(l, "conditional_performance_evidence");
	tc_json *index;

	if (!tc_json_is(stored, TC_JSON_OBJECT))
		return E("ledger conditional_performance_evidence must be an "
		    "object");
	index = tc_ledger_conditional_index(tc_json_get(l, "experiments"),
	    tc_json_get(l, "artifact_validated_experiment_ids"), err);
	if (index == NULL)
		return -1;
	if (verify && !tc_ledger__canonical_equal(stored, index)) {
		tc_json_free(index);
		return E("ledger conditional_performance_evidence does not match "
		    "its derived index");
	}
	tc_json_object_set(l, "conditional_performance_evidence", index);
	return 0;
}

static tc_json *
prepare(const tc_json *in, tc_error *err)
{
	const tc_json *version;
	tc_json *l, *errors, *exps, *legacy;
	bool migrated = false;
	struct registry reg;

	if (!tc_json_is(in, TC_JSON_OBJECT)) {
		tc_error_set(err, "ledger must be an object");
		return NULL;
	}
	errors = tc_json_new_array();
	tc_ledger__value_scan(in, "ledger", errors);
	if (errors->u.arr.len > 0) {
		tc_buf b = TC_BUF_INIT;

		tc_ledger__join_errors(&b, errors);
		tc_error_set(err, "%s", tc_buf_cstr(&b));
		tc_buf_free(&b);
		tc_json_free(errors);
		return NULL;
	}
	tc_json_free(errors);
	version = tc_json_get(in, "schema_version");
	if (in->u.obj.len == 0) {
		l = fresh_ledger();
	} else if (version != NULL && (!tc_json_is(version, TC_JSON_INT) ||
	    (strcmp(version->u.int_text, "1") != 0 &&
	    strcmp(version->u.int_text, "2") != 0))) {
		tc_error_set(err, "unsupported ledger schema version");
		return NULL;
	} else if (version != NULL && strcmp(version->u.int_text, "1") == 0) {
		if ((l = tc_ledger_migrate_v1(in, err)) == NULL)
			return NULL;
		migrated = true;
	} else {
		l = tc_json_clone(in);
		if (tc_json_get(l, "artifact_validated_experiment_ids") == NULL) {
			tc_json_object_set(l, "artifact_validated_experiment_ids",
			    tc_json_new_array());
			migrated = true;
		}
	}
	exps = get_or_create(l, "experiments", tc_json_new_object());
	if (check_experiments(exps, err) != 0 ||
	    check_validated_ids(tc_json_get(l, "artifact_validated_experiment_ids"),
	    exps, err) != 0)
		goto fail;
	legacy = get_or_create(l, "legacy_experiments", tc_json_new_object());
	if (tc_ledger__check_legacy(legacy, err) != 0)
		goto fail;
	if (tc_ledger__check_verified(get_or_create(l, "legacy_verified_exclusions",
	    tc_json_new_array()), err) != 0)
		goto fail;
	if (check_disjoint_ids(exps, legacy, err) != 0)
		goto fail;
	(void)get_or_create(l, "conditional_performance_evidence",
	    tc_json_new_object());
	if (refresh_index(l, !migrated, err) != 0)
		goto fail;
	registry_build(&reg, l);
	if (registry_check(&reg, err) != 0) {
		registry_free(&reg);
		goto fail;
	}
	registry_free(&reg);
	return l;
fail:
	tc_json_free(l);
	return NULL;
}

tc_json *
tc_ledger_prepare(const tc_json *ledger, tc_error *err)
{
	tc_json *l = prepare(ledger, err);

	if (l != NULL)
		tc_json_object_set_int(l, "schema_version",
		    TC_LEDGER_SCHEMA_VERSION);
	return l;
}

/* ---- history (steps 12-15) ----------------------------------------------- */

struct profiles {
	lx_set agents, analysis;	/* stripped ids, posix paths */
	lx_set cand_paths, cand_fps;	/* profiling-passed rounds */
	lx_set base_paths, base_fps;
	lx_set profile_paths;		/* baseline + candidate, all rounds */
	lx_map path_keys, fp_keys, path_fps, fp_paths;
};

static void
profiles_free(struct profiles *p)
{
	tc_ledger__set_free(&p->agents);
	tc_ledger__set_free(&p->analysis);
	tc_ledger__set_free(&p->cand_paths);
	tc_ledger__set_free(&p->cand_fps);
	tc_ledger__set_free(&p->base_paths);
	tc_ledger__set_free(&p->base_fps);
	tc_ledger__set_free(&p->profile_paths);
	tc_ledger__map_free(&p->path_keys);
	tc_ledger__map_free(&p->fp_keys);
	tc_ledger__map_free(&p->path_fps);
	tc_ledger__map_free(&p->fp_paths);
}

/* The frozen-baseline reuse key: canonical JSON of the four raw values. */
static char *
reuse_key(const tc_json *exp, size_t *len)
{
	static const char *const fields[] = {
		"baseline_revision", "baseline_config_fingerprint",
		"control_fingerprint", "workload_fingerprint", NULL
	};
	tc_json *arr = tc_json_new_array();
	char *key;
	size_t i;

	for (i = 0; fields[i] != NULL; i++) {
		const tc_json *v = tc_json_get(exp, fields[i]);

		tc_json_array_push(arr, v != NULL ? tc_json_clone(v) :
		    tc_json_new_null());
	}
	key = tc_ledger__canonical(arr, len);
	tc_json_free(arr);
	return key;
}

/* The stripped fingerprint of a non-empty string (malloc'd) or NULL. */
static char *
stripped_dup(const tc_json *v, size_t *n)
{
	size_t a, b;

	if (!tc_is_nonblank_string(v))
		return NULL;
	tc_py_strip(v->u.str.ptr, v->u.str.len, &a, &b);
	*n = b - a;
	return tc_xstrndup(v->u.str.ptr + a, b - a);
}

/* Register one experiment's profiles.  strict: history, where profiling
 * rounds must carry complete profile evidence. */
static int
profiles_add(struct profiles *p, const tc_json *exp, const char *id,
    bool strict, tc_error *err)
{
	const tc_json *rounds = rounds_of(exp);
	size_t i, klen;
	char *key = reuse_key(exp, &klen);

	for (i = 0; rounds != NULL && i < rounds->u.arr.len; i++) {
		const tc_json *o = rounds->u.arr.items[i];
		const tc_json *bp = tc_json_get(o, "baseline_profile");
		const tc_json *cp = tc_json_get(o, "candidate_profile");
		const tc_json *bf = tc_json_get(o, "baseline_profile_fingerprint");
		const tc_json *cf = tc_json_get(o, "candidate_profile_fingerprint");
		char *path, *fp;
		size_t fpn;

		if (!tc_json_is(o, TC_JSON_OBJECT))
			continue;
		add_posix(&p->profile_paths, bp);
		add_posix(&p->profile_paths, cp);
		if (lifecycle_passed(o)) {
			if (strict && (!tc_is_relative_artifact(cp) ||
			    !tc_is_relative_artifact(bp) ||
			    !tc_is_nonblank_string(bf) ||
			    !tc_is_nonblank_string(cf))) {
				free(key);
				return E("ledger experiment %s has invalid profile "
				    "evidence", id);
			}
			add_posix(&p->cand_paths, cp);
			add_stripped(&p->cand_fps, cf);
		}
		if (!strict) {
			add_posix(&p->base_paths, bp);
			add_stripped(&p->base_fps, bf);
			continue;
		}
		if (!tc_is_relative_artifact(bp) ||
		    (fp = stripped_dup(bf, &fpn)) == NULL)
			continue;
		path = tc_ledger__posix(bp);
		tc_ledger__set_addz(&p->base_paths, path);
		tc_ledger__set_add(&p->base_fps, fp, fpn);
		tc_ledger__map_add(&p->path_keys, path, strlen(path), key, klen);
		tc_ledger__map_add(&p->fp_keys, fp, fpn, key, klen);
		tc_ledger__map_add(&p->path_fps, path, strlen(path), fp, fpn);
		tc_ledger__map_add(&p->fp_paths, fp, fpn, path, strlen(path));
		free(path);
		free(fp);
	}
	free(key);
	return 0;
}

static void
analysis_add(struct profiles *p, const tc_json *exp)
{
	const tc_json *agents = tc_json_get(exp, "profiling_analysis_agent_ids");
	const tc_json *results = tc_json_get(exp, "profiling_analysis_result");
	size_t i;

	for (i = 0; tc_json_is(agents, TC_JSON_OBJECT) &&
	    i < agents->u.obj.len; i++)
		add_stripped(&p->agents, agents->u.obj.members[i].value);
	for (i = 0; tc_json_is(results, TC_JSON_OBJECT) &&
	    i < results->u.obj.len; i++)
		add_posix(&p->analysis, results->u.obj.members[i].value);
}

static int
history_analysis_check(const tc_json *exp, const char *id, tc_error *err)
{
	const tc_json *agents = tc_json_get(exp, "profiling_analysis_agent_ids");
	const tc_json *results = tc_json_get(exp, "profiling_analysis_result");
	size_t i;

	if (!tc_json_is(agents, TC_JSON_OBJECT) ||
	    !tc_json_is(results, TC_JSON_OBJECT))
		return E("ledger experiment %s has invalid analysis evidence", id);
	for (i = 0; i < agents->u.obj.len; i++)
		if (!tc_is_nonblank_string(agents->u.obj.members[i].value))
			return E("ledger experiment %s has invalid analysis Agent "
			    "IDs", id);
	for (i = 0; i < results->u.obj.len; i++)
		if (!tc_is_relative_artifact(results->u.obj.members[i].value))
			return E("ledger experiment %s has invalid analysis paths",
			    id);
	return 0;
}

/* "<what>: <sorted a & b>" when a and b overlap. */
static int
overlap(const lx_set *a, const lx_set *b, const char *what, tc_error *err)
{
	lx_set both = LX_SET_INIT;
	int rc = 0;

	tc_ledger__set_intersect(a, b, &both);
	if (both.len > 0) {
		tc_buf m = TC_BUF_INIT;

		tc_buf_printf(&m, "%s: ", what);
		tc_ledger__set_join(&m, &both);
		tc_error_set(err, "%s", tc_buf_cstr(&m));
		tc_buf_free(&m);
		rc = -1;
	}
	tc_ledger__set_free(&both);
	return rc;
}

static bool
intersects(const lx_set *a, const lx_set *b)
{
	size_t i;

	for (i = 0; i < a->len; i++)
		if (tc_ledger__set_has(b, a->items[i].p, a->items[i].n))
			return true;
	return false;
}

static bool
map_multi(const lx_map *m)
{
	size_t i;

	for (i = 0; i < m->len; i++)
		if (m->vals[i].len != 1)
			return true;
	return false;
}

/* Every key in s is key (n bytes). */
static bool
only_key(const lx_set *s, const char *key, size_t n)
{
	size_t k;

	for (k = 0; s != NULL && k < s->len; k++)
		if (s->items[k].n != n || memcmp(s->items[k].p, key, n) != 0)
			return false;
	return true;
}

/* 15: a baseline profile of the result reused from history keeps its
 * path, its fingerprint and its frozen baseline (rkey). */
static int
check_baseline_pair(const struct profiles *h, const tc_json *o,
    const char *rkey, size_t rklen, tc_error *err)
{
	const tc_json *bp = tc_json_get(o, "baseline_profile");
	const lx_set *s;
	char *path, *fp;
	size_t fpn;
	int rc = -1;

	if (!tc_json_is(o, TC_JSON_OBJECT) ||
	    !tc_is_relative_artifact(bp) ||
	    (fp = stripped_dup(tc_json_get(o, "baseline_profile_fingerprint"),
	    &fpn)) == NULL)
		return 0;
	path = tc_ledger__posix(bp);
	s = tc_ledger__map_get(&h->path_fps, path, strlen(path));
	if (s != NULL && s->len > 0 && !(s->len == 1 &&
	    tc_ledger__set_has(s, fp, fpn))) {
		tc_error_set(err, "baseline profile path must retain its "
		    "content fingerprint: %s", path);
		goto out;
	}
	s = tc_ledger__map_get(&h->fp_paths, fp, fpn);
	if (s != NULL && s->len > 0 && !(s->len == 1 &&
	    tc_ledger__set_hasz(s, path))) {
		tc_error_set(err, "baseline profile fingerprint must retain "
		    "its artifact path: %s", fp);
		goto out;
	}
	if (!only_key(tc_ledger__map_get(&h->path_keys, path, strlen(path)),
	    rkey, rklen)) {
		tc_error_set(err, "baseline profile path may only be reused "
		    "with the same frozen baseline: %s", path);
		goto out;
	}
	if (!only_key(tc_ledger__map_get(&h->fp_keys, fp, fpn), rkey, rklen)) {
		tc_error_set(err, "baseline profile fingerprint may only be "
		    "reused with the same frozen baseline: %s", fp);
		goto out;
	}
	rc = 0;
out:
	free(path);
	free(fp);
	return rc;
}

/* 13-14: profile roles stay disjoint in history and between the result
 * and history. */
static int
check_profile_roles(struct profiles *h, struct profiles *r,
    const tc_json *exps, const tc_json *result, tc_error *err)
{
	size_t i;

	for (i = 0; i < exps->u.obj.len; i++)			/* 13 */
		if (profiles_add(h, exps->u.obj.members[i].value,
		    exps->u.obj.members[i].key, true, err) != 0)
			return -1;
	if (map_multi(&h->path_fps) || map_multi(&h->fp_paths)) {
		tc_error_set(err, "ledger contains a non-immutable baseline "
		    "profile registry");
		return -1;
	}
	if (intersects(&h->base_paths, &h->cand_paths) ||
	    intersects(&h->base_fps, &h->cand_fps)) {
		tc_error_set(err, "ledger baseline and candidate profile roles "
		    "must be disjoint");
		return -1;
	}
	(void)profiles_add(r, result, "", false, err);		/* 14 */
	if (intersects(&h->analysis, &h->profile_paths)) {
		tc_error_set(err, "ledger analysis result and profile path roles "
		    "must be disjoint");
		return -1;
	}
	if (overlap(&r->analysis, &h->profile_paths, "profiling analysis result "
	    "path cannot reuse a historical profile path", err) != 0 ||
	    overlap(&r->profile_paths, &h->analysis, "profile path cannot reuse "
	    "a historical profiling analysis result path", err) != 0 ||
	    overlap(&r->cand_paths, &h->base_paths, "candidate profile path "
	    "cannot reuse a historical baseline", err) != 0 ||
	    overlap(&r->cand_fps, &h->base_fps, "candidate profile fingerprint "
	    "cannot reuse a historical baseline", err) != 0 ||
	    overlap(&r->base_paths, &h->cand_paths, "baseline profile path "
	    "cannot reuse a historical candidate", err) != 0 ||
	    overlap(&r->base_fps, &h->cand_fps, "baseline profile fingerprint "
	    "cannot reuse a historical candidate", err) != 0 ||
	    overlap(&r->cand_paths, &h->cand_paths, "new experiment requires "
	    "fresh candidate profile paths", err) != 0 ||
	    overlap(&r->cand_fps, &h->cand_fps, "new experiment requires fresh "
	    "candidate profile fingerprints", err) != 0)
		return -1;
	return 0;
}

static int
check_history(const tc_json *exps, const tc_json *result, tc_error *err)
{
	struct profiles h, r;
	const tc_json *rounds;
	size_t i, rklen;
	char *rkey = NULL;
	int rc = -1;

	memset(&h, 0, sizeof(h));
	memset(&r, 0, sizeof(r));
	for (i = 0; i < exps->u.obj.len; i++) {			/* 12 */
		const tc_json_member *m = &exps->u.obj.members[i];

		if (history_analysis_check(m->value, m->key, err) != 0)
			goto out;
		analysis_add(&h, m->value);
	}
	analysis_add(&r, result);
	if (overlap(&r.agents, &h.agents, "new experiment requires fresh "
	    "profiling analysis Agent IDs", err) != 0 ||
	    overlap(&r.analysis, &h.analysis, "new experiment requires fresh "
	    "profiling analysis result paths", err) != 0)
		goto out;
	if (check_profile_roles(&h, &r, exps, result, err) != 0)
		goto out;
	rkey = reuse_key(result, &rklen);			/* 15 */
	rounds = rounds_of(result);
	for (i = 0; rounds != NULL && i < rounds->u.arr.len; i++)
		if (check_baseline_pair(&h, rounds->u.arr.items[i], rkey, rklen,
		    err) != 0)
			goto out;
	rc = 0;
out:
	free(rkey);
	profiles_free(&h);
	profiles_free(&r);
	return rc;
}

/* Step 16: the result's artifacts against the historical registry. */
static int
check_roles_against_history(const tc_json *ledger, const tc_json *result,
    tc_error *err)
{
	struct registry hist;
	lx_map mine = LX_MAP_INIT;
	size_t i, k;
	int rc = 0;

	registry_build(&hist, ledger);
	if (registry_check(&hist, err) != 0) {
		registry_free(&hist);
		return -1;
	}
	tc_ledger__collect_roles(result, &mine);
	tc_ledger__map_sort(&mine);
	for (i = 0; i < mine.len && rc == 0; i++) {
		const lx_set *h = tc_ledger__map_get(&hist.roles, mine.keys[i].p,
		    mine.keys[i].n);

		if (h == NULL || h->len == 0)
			continue;
		tc_ledger__set_sort(&mine.vals[i]);
		for (k = 0; k < mine.vals[i].len && rc == 0; k++) {
			const lx_str *role = &mine.vals[i].items[k];
			tc_buf m = TC_BUF_INIT;

			if (!(h->len == 1 && tc_ledger__set_has(h, role->p, role->n))) {
				tc_buf_puts(&m, "artifact role conflict for ");
				tc_buf_add(&m, mine.keys[i].p, mine.keys[i].n);
				tc_buf_puts(&m, ": historical ");
				tc_ledger__set_join(&m, h);
				tc_buf_puts(&m, ", new ");
				tc_buf_add(&m, role->p, role->n);
				tc_error_set(err, "%s", tc_buf_cstr(&m));
				rc = -1;
			} else if (strcmp(role->p, "baseline_profile") != 0) {
				tc_buf_puts(&m, "new experiment requires fresh ");
				tc_buf_add(&m, role->p, role->n);
				tc_buf_puts(&m, " artifact path: ");
				tc_buf_add(&m, mine.keys[i].p, mine.keys[i].n);
				tc_error_set(err, "%s", tc_buf_cstr(&m));
				rc = -1;
			}
			tc_buf_free(&m);
		}
	}
	tc_ledger__map_free(&mine);
	registry_free(&hist);
	return rc;
}

/* ---- the merge ------------------------------------------------------------ */

/* artifact_validated_experiment_ids := sorted(ids | {id}); rebuild index. */
static int
store_validated(tc_json *l, const tc_json *id, bool add, tc_error *err)
{
	const tc_json *ids = tc_json_get(l, "artifact_validated_experiment_ids");
	lx_set s = LX_SET_INIT;
	tc_json *arr = tc_json_new_array();
	size_t i;

	for (i = 0; i < ids->u.arr.len; i++)
		tc_ledger__set_add(&s, ids->u.arr.items[i]->u.str.ptr,
		    ids->u.arr.items[i]->u.str.len);
	if (add)
		tc_ledger__set_add(&s, id->u.str.ptr, id->u.str.len);
	tc_ledger__set_sort(&s);
	for (i = 0; i < s.len; i++)
		tc_json_array_push(arr, tc_json_new_stringn(s.items[i].p,
		    s.items[i].n));
	tc_ledger__set_free(&s);
	tc_json_object_set(l, "artifact_validated_experiment_ids", arr);
	return refresh_index(l, false, err);
}

tc_json *
tc_ledger_merge(const tc_json *ledger, const tc_json *result,
    const tc_ledger_opts *opts, tc_error *err)
{
	tc_json *v = tc_experiment_validate(result, opts), *l;
	const tc_json *id, *exps, *stored;
	bool backed;

	if (!tc_json_is(tc_json_get(v, "valid"), TC_JSON_BOOL) ||	/* 1 */
	    !tc_json_get(v, "valid")->u.b) {
		tc_buf b = TC_BUF_INIT;

		tc_ledger__join_errors(&b, tc_json_get(v, "errors"));
		tc_error_set(err, "%s", tc_buf_cstr(&b));
		tc_buf_free(&b);
		tc_json_free(v);
		return NULL;
	}
	backed = tc_json_get(v, "artifact_evidence_validated")->u.b;
	tc_json_free(v);
	if ((l = prepare(ledger, err)) == NULL)			/* 2-9 */
		return NULL;
	id = tc_json_get(result, "experiment_id");
	exps = tc_json_get(l, "experiments");
	if (tc_json_getn(tc_json_get(l, "legacy_experiments"), id->u.str.ptr,
	    id->u.str.len) != NULL) {				/* 10 */
		tc_error_set(err, "legacy experiment ID %s cannot be reused by an "
		    "active experiment", id->u.str.ptr);
		goto fail;
	}
	stored = tc_json_getn(exps, id->u.str.ptr, id->u.str.len);
	if (stored != NULL) {					/* 11 */
		if (!tc_ledger__canonical_equal(stored, result)) {
			tc_error_set(err, "experiment %s is immutable and cannot "
			    "be overwritten", id->u.str.ptr);
			goto fail;
		}
		if (backed && store_validated(l, id, true, err) != 0)
			goto fail;
		return l;
	}
	if (check_history(exps, result, err) != 0 ||		/* 12-15 */
	    check_roles_against_history(l, result, err) != 0)	/* 16 */
		goto fail;
	tc_json_object_setn(tc_json_get(l, "experiments"), id->u.str.ptr,
	    id->u.str.len, tc_json_clone(result));		/* 17 */
	if (store_validated(l, id, backed, err) != 0)
		goto fail;
	tc_json_object_set_int(l, "schema_version", TC_LEDGER_SCHEMA_VERSION);
	return l;
fail:
	tc_json_free(l);
	return NULL;
}
