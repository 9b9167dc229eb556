/*
 * experiment_validate.c - structural validation of an experiment result
 * (docs/spec/ledger.md "Structural validation"), first half: the short-circuit
 * steps, the top-level fields, the rounds and their profiling binding, the
 * profile registries, the optimisation sequence, the analysis maps and the
 * continuation rule.  The second half lives in experiment_decisions.c and
 * experiment_paths.c.  Errors are collected in the reference's order.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "experiment_internal.h"
#include "tunectl/ledger.h"

static const char *const required_fields[] = {	/* sorted */
	"baseline_config_fingerprint", "baseline_revision", "blockers",
	"child_agent_id", "control_fingerprint", "experiment_id",
	"inherited_exclusions_for_next_agents", "lifecycle",
	"next_agent_guidance_zh", "parent_experiment_id",
	"performance_scope_decisions", "profiling_analysis_agent_ids",
	"profiling_analysis_result", "rounds", "source_revision",
	"unresolved_performance_ranges", "workload_fingerprint", NULL
};

static const char *const fingerprint_fields[] = {
	"source_revision", "baseline_config_fingerprint",
	"candidate_config_fingerprint", "control_fingerprint",
	"workload_fingerprint", NULL
};

static const char *const binding_fields[] = {
	"baseline_profile", "baseline_profile_fingerprint",
	"candidate_profile", "candidate_profile_fingerprint",
	"declared_change_set", NULL
};

/* ---- shared helpers ------------------------------------------------------ */

long
tc_experiment__round_index(const struct xv *x, const tc_json *round_id)
{
	long i;

	if (!tc_json_is(round_id, TC_JSON_STRING))
		return -1;
	i = tc_ledger__set_index(&x->round_ids, round_id->u.str.ptr,
	    round_id->u.str.len);
	return i < 0 ? -1 : (long)x->round_pos[i];
}

void
tc_experiment__raise_unhashable(struct xv *x, const tc_json *v)
{
	if (x->exc == NULL)
		x->exc = tc_ledger__unhashable_message(v);
}

void
tc_experiment__string_set(const tc_json *v, lx_set *out)
{
	size_t i;

	if (!tc_json_is(v, TC_JSON_ARRAY))
		return;
	for (i = 0; i < v->u.arr.len; i++) {
		const tc_json *it = v->u.arr.items[i];

		if (tc_json_is(it, TC_JSON_STRING))
			tc_ledger__set_add(out, it->u.str.ptr, it->u.str.len);
	}
}

void
tc_experiment__string_list_check(struct xv *x, const tc_json *v, const char *prefix)
{
	lx_set seen = LX_SET_INIT;
	bool dup = false;
	size_t i;

	if (!tc_json_is(v, TC_JSON_ARRAY)) {
		tc_ledger__err(x->errors, "%s must be a list", prefix);
		return;
	}
	for (i = 0; i < v->u.arr.len; i++) {
		if (!tc_is_nonblank_string(v->u.arr.items[i])) {
			tc_ledger__err(x->errors, "%s must contain non-empty strings",
			    prefix);
			tc_ledger__set_free(&seen);
			return;
		}
	}
	for (i = 0; i < v->u.arr.len; i++) {
		const tc_json *it = v->u.arr.items[i];

		if (!tc_ledger__set_add(&seen, it->u.str.ptr, it->u.str.len))
			dup = true;
	}
	if (dup)
		tc_ledger__err(x->errors, "%s must not contain duplicate range IDs",
		    prefix);
	tc_ledger__set_free(&seen);
}

/* "{name} must be a non-empty string" / "... surrounding whitespace". */
static void
canonical_check(struct xv *x, const tc_json *v, const char *name)
{
	if (!tc_is_nonblank_string(v))
		tc_ledger__err(x->errors, "%s must be a non-empty string", name);
	else if (tc_ledger__has_surrounding_ws(v))
		tc_ledger__err(x->errors, "%s must not contain surrounding whitespace",
		    name);
}

void
tc_experiment__binding_checks(struct xv *x, const tc_json *obj, const char *P,
    const tc_json *source)
{
	static const char *const profiles[] = {
		"baseline_profile", "candidate_profile", NULL
	};
	static const char *const fps[] = {
		"baseline_profile_fingerprint",
		"candidate_profile_fingerprint", NULL
	};
	const tc_json *dcs, *ptrs;
	size_t i;

	for (i = 0; profiles[i] != NULL; i++)			/* B1 */
		if (!tc_is_relative_artifact(tc_json_get(obj, profiles[i])))
			tc_ledger__err(x->errors, "%s.%s must be a relative artifact "
			    "path", P, profiles[i]);
	for (i = 0; fps[i] != NULL; i++)			/* B2 */
		if (!tc_is_canonical_string(tc_json_get(obj, fps[i])))
			tc_ledger__err(x->errors, "%s.%s must be a non-empty canonical "
			    "string", P, fps[i]);
	dcs = tc_json_get(obj, "declared_change_set");		/* B3 */
	if (!tc_json_is(dcs, TC_JSON_OBJECT) || dcs->u.obj.len == 0) {
		tc_ledger__err(x->errors, "%s.declared_change_set must be a non-empty "
		    "object", P);
	} else {
		ptrs = tc_json_get(dcs, "allowed_json_pointers");
		if (!tc_json_is(ptrs, TC_JSON_ARRAY)) {
			tc_ledger__err(x->errors, "%s.declared_change_set."
			    "allowed_json_pointers must be a list", P);
		} else {
			bool bad = false, dup = false;
			lx_set seen = LX_SET_INIT;

			for (i = 0; i < ptrs->u.arr.len; i++)
				if (!tc_ledger_rfc6901_pointer(ptrs->u.arr.items[i]))
					bad = true;
			if (bad) {
				tc_ledger__err(x->errors, "%s.declared_change_set."
				    "allowed_json_pointers must contain "
				    "absolute RFC6901 pointers", P);
			} else {
				for (i = 0; i < ptrs->u.arr.len; i++) {
					const tc_json *p = ptrs->u.arr.items[i];

					if (!tc_ledger__set_add(&seen, p->u.str.ptr,
					    p->u.str.len))
						dup = true;
				}
				if (dup)
					tc_ledger__err(x->errors, "%s.declared_change_set"
					    ".allowed_json_pointers must not "
					    "contain duplicates", P);
			}
			tc_ledger__set_free(&seen);
		}
		if (!tc_ledger_contains_chinese(tc_json_get(dcs,
		    "only_change_zh")))
			tc_ledger__err(x->errors, "%s.declared_change_set.only_change_zh "
			    "must contain non-empty Chinese text", P);
	}
	if (source == NULL)					/* B4 */
		return;
	for (i = 0; binding_fields[i] != NULL; i++)
		if (!tc_ledger__eq(tc_json_get(obj, binding_fields[i]),
		    tc_json_get(source, binding_fields[i])))
			tc_ledger__err(x->errors, "%s.%s must match its source round",
			    P, binding_fields[i]);
}

/* ---- top level (S3-S14) -------------------------------------------------- */

static void
check_top_level(struct xv *x)
{
	static const char *const top_strings[] = {
		"baseline_revision", "source_revision",
		"baseline_config_fingerprint", "control_fingerprint",
		"workload_fingerprint", NULL
	};
	static const char *const lists[] = {
		"inherited_exclusions_for_next_agents", "blockers", NULL
	};
	const tc_json *r = x->r, *v, *parent;
	tc_buf missing = TC_BUF_INIT;
	size_t i;

	for (i = 0; required_fields[i] != NULL; i++) {		/* S3 */
		if (tc_json_get(r, required_fields[i]) != NULL)
			continue;
		if (missing.len > 0)
			tc_buf_puts(&missing, ", ");
		tc_buf_puts(&missing, required_fields[i]);
	}
	if (missing.len > 0)
		tc_ledger__err(x->errors, "missing fields: %s", missing.data);
	tc_buf_free(&missing);

	canonical_check(x, tc_json_get(r, "experiment_id"), "experiment_id");
	canonical_check(x, tc_json_get(r, "child_agent_id"), "child_agent_id");
	parent = tc_json_get(r, "parent_experiment_id");
	if (tc_ledger__has_surrounding_ws(parent))			/* S6 */
		tc_ledger__err(x->errors, "parent_experiment_id must not contain "
		    "surrounding whitespace");
	if (!tc_ledger__eq(parent, tc_json_get(r, "experiment_id")))	/* S7 */
		tc_ledger__err(x->errors, "parent_experiment_id must equal "
		    "experiment_id");
	if (!tc_ledger_contains_chinese(tc_json_get(r, "next_agent_guidance_zh")))
		tc_ledger__err(x->errors, "next_agent_guidance_zh must contain Chinese "
		    "guidance");
	for (i = 0; top_strings[i] != NULL; i++)		/* S9 */
		if (!tc_is_nonblank_string(tc_json_get(r, top_strings[i])))
			tc_ledger__err(x->errors, "%s must be a non-empty string",
			    top_strings[i]);
	for (i = 0; lists[i] != NULL; i++) {			/* S10 */
		v = tc_json_get(r, lists[i]);
		if (v != NULL && !tc_json_is(v, TC_JSON_ARRAY))
			tc_ledger__err(x->errors, "%s must be a list", lists[i]);
	}
	v = tc_json_get(r, "single_child_exclusions");		/* S11 */
	if (v != NULL && !tc_json_is(v, TC_JSON_ARRAY))
		tc_ledger__err(x->errors, "single_child_exclusions legacy evidence must "
		    "be a list");
	if (!tc_json_is(tc_json_get(r, "lifecycle"), TC_JSON_OBJECT))
		tc_ledger__err(x->errors, "lifecycle must be an object");	/* S12 */
	x->promotion_mode = tc_json_get(r, "promotion_mode");	/* S13 */
	if (x->promotion_mode != NULL &&
	    !tc_ledger__in(x->promotion_mode, tc_ledger_promotion_modes))
		tc_ledger__err(x->errors, "promotion_mode is invalid");
	x->whole_scope = tc_ledger__is(x->promotion_mode, "whole_scope");
	v = tc_json_get(r, "rounds");				/* S14 */
	if (!tc_json_is(v, TC_JSON_ARRAY) || v->u.arr.len == 0) {
		tc_ledger__err(x->errors, "rounds must be a non-empty list");
		x->nrounds = 0;
	} else {
		x->nrounds = v->u.arr.len;
	}
	x->rounds = tc_xcalloc(x->nrounds ? x->nrounds : 1,
	    sizeof(*x->rounds));
	for (i = 0; i < x->nrounds; i++) {
		const tc_json *it = v->u.arr.items[i];

		x->rounds[i].obj = tc_json_is(it, TC_JSON_OBJECT) ? it : NULL;
		x->rounds[i].kind = XK_NONE;
	}
}

/* ---- rounds (R1-R11) ----------------------------------------------------- */

static enum xkind
kind_of(const tc_json *v)
{
	if (tc_ledger__is(v, "base"))
		return XK_BASE;
	if (tc_ledger__is(v, "performance_prune"))
		return XK_PRUNE;
	if (tc_ledger__is(v, "final"))
		return XK_FINAL;
	if (tc_ledger__is(v, "automatic_aot"))
		return XK_AOT;
	return XK_NONE;
}

static void
check_round(struct xv *x, size_t i)
{
	static const char *const must_match[] = {
		"source_revision", "baseline_config_fingerprint",
		"control_fingerprint", "workload_fingerprint", NULL
	};
	struct xround *xr = &x->rounds[i];
	const tc_json *o = xr->obj, *id, *child, *life, *v, *arts;
	char loc[48], name[96];
	size_t k;

	snprintf(loc, sizeof(loc), "rounds[%zu]", i);
	if (o == NULL) {					/* R1 */
		tc_ledger__err(x->errors, "%s must be an object", loc);
		return;
	}
	id = tc_json_get(o, "round_id");			/* R2 */
	if (!tc_is_nonblank_string(id)) {
		tc_ledger__err(x->errors, "%s.round_id must be a non-empty string", loc);
	} else if (tc_ledger__has_surrounding_ws(id)) {
		tc_ledger__err(x->errors, "%s.round_id must not contain surrounding "
		    "whitespace", loc);
	} else if (tc_ledger__set_has(&x->round_ids, id->u.str.ptr, id->u.str.len)) {
		tc_buf m = TC_BUF_INIT;

		tc_buf_puts(&m, "duplicate round_id: ");
		tc_buf_add(&m, id->u.str.ptr, id->u.str.len);
		tc_ledger__err_buf(x->errors, &m);
		tc_buf_free(&m);
	} else {
		xr->registered = true;
		tc_ledger__set_add(&x->round_ids, id->u.str.ptr, id->u.str.len);
		x->round_pos[x->round_ids.len - 1] = i;
	}
	child = tc_json_get(o, "child_agent_id");		/* R3 */
	if (!tc_ledger__eq(child, tc_json_get(x->r, "child_agent_id")))
		tc_ledger__err(x->errors, "%s.child_agent_id must match parent "
		    "child_agent_id", loc);
	if (tc_ledger__has_surrounding_ws(child))
		tc_ledger__err(x->errors, "%s.child_agent_id must not contain "
		    "surrounding whitespace", loc);
	xr->kind = kind_of(tc_json_get(o, "round_kind"));	/* R4 */
	if (xr->kind == XK_NONE)
		tc_ledger__err(x->errors, "%s.round_kind is invalid", loc);
	v = tc_json_get(o, "scope_kind");
	if (!tc_ledger__in(v, tc_ledger_scope_kinds))
		tc_ledger__err(x->errors, "%s.scope_kind is invalid", loc);
	if (xr->kind == XK_AOT && !tc_ledger__is(v, "automatic_aot"))	/* R5 */
		tc_ledger__err(x->errors, "%s automatic_aot round requires automatic_aot "
		    "scope_kind", loc);
	if (xr->kind == XK_BASE && !tc_ledger__is(v, "manual"))
		tc_ledger__err(x->errors, "%s base round requires manual scope_kind",
		    loc);
	if (xr->kind != XK_NONE)				/* R6 */
		x->seq[x->nseq++] = i;
	life = tc_json_get(o, "lifecycle");			/* R7 */
	if (!tc_json_is(life, TC_JSON_OBJECT)) {
		tc_ledger__err(x->errors, "%s.lifecycle must be an object", loc);
	} else if (tc_ledger__is(tc_json_get(life, "profiling"), "passed") &&
	    tc_is_canonical_string(id)) {
		xr->passed = true;
		tc_ledger__set_add(&x->passed, id->u.str.ptr, id->u.str.len);
		if (!tc_ledger__is(tc_json_get(life, "correctness"), "passed"))
			tc_ledger__err(x->errors, "%s.lifecycle.correctness must be "
			    "passed before profiling", loc);
		tc_experiment__binding_checks(x, o, loc, NULL);
	}
	for (k = 0; fingerprint_fields[k] != NULL; k++)		/* R8 */
		if (!tc_is_nonblank_string(tc_json_get(o,
		    fingerprint_fields[k])))
			tc_ledger__err(x->errors, "%s.%s must be a non-empty string",
			    loc, fingerprint_fields[k]);
	for (k = 0; must_match[k] != NULL; k++) {		/* R9 */
		v = tc_json_get(o, must_match[k]);
		if (tc_is_nonblank_string(v) &&
		    !tc_ledger__eq(v, tc_json_get(x->r, must_match[k])))
			tc_ledger__err(x->errors, "%s.%s must match the experiment",
			    loc, must_match[k]);
	}
	v = tc_json_get(o, "performance_decision_range_ids");	/* R10 */
	if (!(xr->kind == XK_AOT && v == NULL)) {
		snprintf(name, sizeof(name), "%s.performance_decision_range_ids",
		    loc);
		tc_experiment__string_list_check(x, v, name);
	}
	arts = tc_json_get(o, "artifacts");			/* R11 */
	if (!tc_json_is(arts, TC_JSON_OBJECT)) {
		tc_ledger__err(x->errors, "%s.artifacts must be an object", loc);
	} else {
		if (!tc_is_relative_artifact(tc_json_get(arts,
		    "round_evidence")))
			tc_ledger__err(x->errors, "%s.artifacts.round_evidence must be a "
			    "relative path", loc);
		if (!tc_is_relative_artifact(tc_json_get(arts,
		    "round_report")))
			tc_ledger__err(x->errors, "%s.artifacts.round_report must be a "
			    "relative path", loc);
	}
}

/* ---- profile registries (P1, P2) ---------------------------------------- */

/* The stripped copy of a non-empty string value (malloc'd) or NULL. */
static char *
stripped(const tc_json *v, size_t *n)
{
	size_t a, b;

	if (!tc_is_nonblank_string(v))
		return NULL;
	tc_py_strip(v->u.str.ptr, v->u.str.len, &a, &b);
	*n = b - a;
	return tc_xstrndup(v->u.str.ptr + a, b - a);
}

static void
disjoint_error(struct xv *x, const lx_set *a, const lx_set *b,
    const char *what)
{
	lx_set both = LX_SET_INIT;

	tc_ledger__set_intersect(a, b, &both);
	if (both.len > 0) {
		tc_buf m = TC_BUF_INIT;

		tc_buf_printf(&m, "%s must be disjoint: ", what);
		tc_ledger__set_join(&m, &both);
		tc_ledger__err_buf(x->errors, &m);
		tc_buf_free(&m);
	}
	tc_ledger__set_free(&both);
}

static bool
map_has_multi(const lx_map *m)
{
	size_t i;

	for (i = 0; i < m->len; i++)
		if (m->vals[i].len != 1)
			return true;
	return false;
}

static void
check_profile_registries(struct xv *x)
{
	lx_set base_fps = LX_SET_INIT, cand_fps = LX_SET_INIT;
	lx_set pass_paths = LX_SET_INIT, pass_fps = LX_SET_INIT;
	lx_map path_fps = LX_MAP_INIT, fp_paths = LX_MAP_INIT;
	bool dup_path = false, dup_fp = false;
	size_t i;

	for (i = 0; i < x->nrounds; i++) {
		const tc_json *o = x->rounds[i].obj;
		char *bp = NULL, *cp = NULL, *bf, *cf;
		size_t bfn = 0, cfn = 0;

		if (o == NULL)
			continue;
		if (tc_is_relative_artifact(tc_json_get(o, "baseline_profile"))) {
			bp = tc_ledger__posix(tc_json_get(o, "baseline_profile"));
			tc_ledger__set_addz(&x->all_baseline_paths, bp);
		}
		if ((bf = stripped(tc_json_get(o,
		    "baseline_profile_fingerprint"), &bfn)) != NULL)
			tc_ledger__set_add(&base_fps, bf, bfn);
		if (bp != NULL && bf != NULL) {
			tc_ledger__map_add(&path_fps, bp, strlen(bp), bf, bfn);
			tc_ledger__map_add(&fp_paths, bf, bfn, bp, strlen(bp));
		}
		if (tc_is_relative_artifact(tc_json_get(o,
		    "candidate_profile"))) {
			cp = tc_ledger__posix(tc_json_get(o, "candidate_profile"));
			tc_ledger__set_addz(&x->all_candidate_paths, cp);
		}
		if ((cf = stripped(tc_json_get(o,
		    "candidate_profile_fingerprint"), &cfn)) != NULL)
			tc_ledger__set_add(&cand_fps, cf, cfn);
		if (x->rounds[i].passed) {
			if (cp != NULL && !tc_ledger__set_addz(&pass_paths, cp))
				dup_path = true;
			if (cf != NULL && !tc_ledger__set_add(&pass_fps, cf, cfn))
				dup_fp = true;
		}
		free(bp);
		free(cp);
		free(bf);
		free(cf);
	}
	if (dup_path)
		tc_ledger__err(x->errors, "candidate_profile must be unique across "
		    "profiling rounds");
	if (dup_fp)
		tc_ledger__err(x->errors, "candidate_profile_fingerprint must be unique "
		    "across profiling rounds");
	if (map_has_multi(&path_fps))
		tc_ledger__err(x->errors, "baseline profile path must map to exactly one "
		    "content fingerprint");
	if (map_has_multi(&fp_paths))
		tc_ledger__err(x->errors, "baseline profile fingerprint must map to "
		    "exactly one artifact path");
	disjoint_error(x, &x->all_baseline_paths, &x->all_candidate_paths,
	    "baseline and candidate profile paths");
	disjoint_error(x, &base_fps, &cand_fps,
	    "baseline and candidate profile fingerprints");
	tc_ledger__set_free(&base_fps);
	tc_ledger__set_free(&cand_fps);
	tc_ledger__set_free(&pass_paths);
	tc_ledger__set_free(&pass_fps);
	tc_ledger__map_free(&path_fps);
	tc_ledger__map_free(&fp_paths);
}

/* ---- optimisation sequence (O1-O6) -------------------------------------- */

static int
phase_of(enum xkind k)
{
	return k == XK_PRUNE ? 1 : k == XK_FINAL ? 2 : 0;
}

static bool
terminal_incomplete(const tc_json *round)
{
	static const char *const bad[] = { "failed", "blocked", "not_run", NULL };
	const tc_json *life = tc_json_get(round, "lifecycle");

	return tc_json_is(life, TC_JSON_OBJECT) &&
	    (tc_ledger__in(tc_json_get(life, "correctness"), bad) ||
	    tc_ledger__in(tc_json_get(life, "profiling"), bad));
}

static bool
explicit_blockers(const tc_json *blockers)
{
	size_t i;

	if (!tc_json_is(blockers, TC_JSON_ARRAY) || blockers->u.arr.len == 0)
		return false;
	for (i = 0; i < blockers->u.arr.len; i++)
		if (!tc_is_nonblank_string(blockers->u.arr.items[i]))
			return false;
	return true;
}

static void
check_sequence(struct xv *x)
{
	enum xkind first;
	size_t i, starters = 0, finals = 0;
	bool scope_bad = false, order_bad = false, need_final = false;
	const char *expected;

	if (x->nseq == 0)
		return;
	first = x->rounds[x->seq[0]].kind;
	for (i = 0; i < x->nseq; i++) {
		enum xkind k = x->rounds[x->seq[i]].kind;

		if (k == XK_BASE || k == XK_AOT)
			starters++;
		if (k == XK_FINAL)
			finals++;
	}
	if ((first != XK_BASE && first != XK_AOT) || starters != 1)	/* O1 */
		tc_ledger__err(x->errors, "optimization rounds must start with exactly "
		    "one base or automatic_aot round");
	expected = first == XK_AOT ? "automatic_aot" : "manual";	/* O2 */
	for (i = 0; i < x->nseq; i++)
		if (!tc_ledger__is(tc_json_get(x->rounds[x->seq[i]].obj, "scope_kind"),
		    expected))
			scope_bad = true;
	if (scope_bad)
		tc_ledger__err(x->errors, "optimization descendants must preserve the "
		    "starter scope_kind");
	for (i = 1; i < x->nseq; i++)					/* O3 */
		if (phase_of(x->rounds[x->seq[i]].kind) <
		    phase_of(x->rounds[x->seq[i - 1]].kind))
			order_bad = true;
	if (order_bad)
		tc_ledger__err(x->errors, "optimization round transition order must be "
		    "base/automatic_aot -> prune -> final");
	if (finals > 1)							/* O4 */
		tc_ledger__err(x->errors, "optimization rounds may contain at most one "
		    "final round");
	if (finals > 0 && x->rounds[x->seq[x->nseq - 1]].kind != XK_FINAL)
		tc_ledger__err(x->errors, "final must be the last optimization round");
	need_final = first == XK_BASE;					/* O6 */
	for (i = 1; i < x->nseq; i++) {
		enum xkind k = x->rounds[x->seq[i]].kind;

		if (k == XK_PRUNE || k == XK_FINAL)
			need_final = true;
	}
	if (need_final && finals == 0 && !x->whole_scope &&
	    !(explicit_blockers(tc_json_get(x->r, "blockers")) &&
	    terminal_incomplete(x->rounds[x->seq[x->nseq - 1]].obj)))
		tc_ledger__err(x->errors, "successful manual experiment requires a fresh "
		    "final round; automatic-optimized experiment has the same "
		    "requirement; missing final is only allowed for a terminal "
		    "incomplete round with explicit non-empty blockers");
}

/* ---- analysis maps (M1-M7) ---------------------------------------------- */

static void
mapping_keys_check(struct xv *x, const tc_json *map, const char *name)
{
	lx_set keys = LX_SET_INIT, missing = LX_SET_INIT, extra = LX_SET_INIT;
	size_t i;

	for (i = 0; i < map->u.obj.len; i++)
		tc_ledger__set_add(&keys, map->u.obj.members[i].key,
		    map->u.obj.members[i].key_len);
	for (i = 0; i < x->passed.len; i++)
		if (!tc_ledger__set_has(&keys, x->passed.items[i].p, x->passed.items[i].n))
			tc_ledger__set_add(&missing, x->passed.items[i].p,
			    x->passed.items[i].n);
	for (i = 0; i < keys.len; i++)
		if (!tc_ledger__set_has(&x->passed, keys.items[i].p, keys.items[i].n))
			tc_ledger__set_add(&extra, keys.items[i].p, keys.items[i].n);
	if (missing.len > 0) {
		tc_buf m = TC_BUF_INIT;

		tc_buf_printf(&m, "%s missing profiling rounds: ", name);
		tc_ledger__set_join(&m, &missing);
		tc_ledger__err_buf(x->errors, &m);
		tc_buf_free(&m);
	}
	if (extra.len > 0) {
		tc_buf m = TC_BUF_INIT;

		tc_buf_printf(&m, "%s has unknown rounds: ", name);
		tc_ledger__set_join(&m, &extra);
		tc_ledger__err_buf(x->errors, &m);
		tc_buf_free(&m);
	}
	tc_ledger__set_free(&keys);
	tc_ledger__set_free(&missing);
	tc_ledger__set_free(&extra);
}

static void
member_loc(tc_buf *m, const char *map, const tc_json_member *mem,
    const char *rest)
{
	tc_buf_reset(m);
	tc_buf_printf(m, "%s.", map);
	tc_buf_add(m, mem->key, mem->key_len);
	tc_buf_puts(m, rest);
}

static void
check_analysis_maps(struct xv *x)
{
	const tc_json *agents = tc_json_get(x->r, "profiling_analysis_agent_ids");
	const tc_json *results = tc_json_get(x->r, "profiling_analysis_result");
	const tc_json *child = tc_json_get(x->r, "child_agent_id");
	lx_set ids = LX_SET_INIT, paths = LX_SET_INIT, profiles = LX_SET_INIT;
	lx_set overlap = LX_SET_INIT;
	bool dup_ids = false, dup_paths = false;
	char *child_s = NULL;
	size_t child_n = 0, i;
	tc_buf m = TC_BUF_INIT;

	if (!tc_json_is(agents, TC_JSON_OBJECT)) {		/* M1 */
		tc_ledger__err(x->errors, "profiling_analysis_agent_ids must be an "
		    "object");
		agents = x->empty;
	}
	if (!tc_json_is(results, TC_JSON_OBJECT)) {
		tc_ledger__err(x->errors, "profiling_analysis_result must be an object");
		results = x->empty;
	}
	x->agents = agents;
	x->results = results;
	mapping_keys_check(x, agents, "profiling_analysis_agent_ids");	/* M2 */
	mapping_keys_check(x, results, "profiling_analysis_result");

	if (tc_json_is(child, TC_JSON_STRING)) {
		size_t a, b;

		tc_py_strip(child->u.str.ptr, child->u.str.len, &a, &b);
		child_s = child->u.str.ptr + a;
		child_n = b - a;
	}
	for (i = 0; i < agents->u.obj.len; i++) {		/* M3 */
		const tc_json_member *mem = &agents->u.obj.members[i];
		const tc_json *v = mem->value;
		size_t a, b;

		if (!tc_is_nonblank_string(v)) {
			member_loc(&m, "profiling_analysis_agent_ids", mem,
			    " must be a non-empty string");
			tc_ledger__err_buf(x->errors, &m);
			continue;
		}
		tc_py_strip(v->u.str.ptr, v->u.str.len, &a, &b);
		if (a != 0 || b != v->u.str.len) {
			member_loc(&m, "profiling_analysis_agent_ids", mem,
			    " must not contain surrounding whitespace");
			tc_ledger__err_buf(x->errors, &m);
		}
		if (child_s != NULL && child_n == b - a &&
		    memcmp(child_s, v->u.str.ptr + a, b - a) == 0) {
			member_loc(&m, "profiling_analysis_agent_ids", mem,
			    " must differ from child_agent_id");
			tc_ledger__err_buf(x->errors, &m);
		}
		if (!tc_ledger__set_add(&ids, v->u.str.ptr + a, b - a))
			dup_ids = true;
	}
	if (dup_ids)						/* M4 */
		tc_ledger__err(x->errors, "profiling analysis Agent IDs must be unique "
		    "across rounds");
	for (i = 0; i < results->u.obj.len; i++) {		/* M5 */
		const tc_json_member *mem = &results->u.obj.members[i];
		char *p;

		if (!tc_is_relative_artifact(mem->value)) {
			member_loc(&m, "profiling_analysis_result", mem,
			    " must be a relative artifact path");
			tc_ledger__err_buf(x->errors, &m);
			continue;
		}
		p = tc_ledger__posix(mem->value);
		if (!tc_ledger__set_addz(&paths, p))
			dup_paths = true;
		free(p);
	}
	if (dup_paths)						/* M6 */
		tc_ledger__err(x->errors, "profiling analysis result paths must be "
		    "unique across rounds");
	tc_ledger__set_union_into(&profiles, &x->all_baseline_paths);	/* M7 */
	tc_ledger__set_union_into(&profiles, &x->all_candidate_paths);
	tc_ledger__set_intersect(&paths, &profiles, &overlap);
	if (overlap.len > 0) {
		tc_buf_reset(&m);
		tc_buf_puts(&m, "profiling analysis result and profile paths "
		    "must be disjoint: ");
		tc_ledger__set_join(&m, &overlap);
		tc_ledger__err_buf(x->errors, &m);
	}
	tc_buf_free(&m);
	tc_ledger__set_free(&ids);
	tc_ledger__set_free(&paths);
	tc_ledger__set_free(&profiles);
	tc_ledger__set_free(&overlap);
}

/* ---- continuation (C1) -------------------------------------------------- */

static void
check_continuation(struct xv *x)
{
	size_t i;

	for (i = 0; i + 1 < x->nseq; i++) {
		const tc_json *o = x->rounds[x->seq[i]].obj;
		const tc_json *life = tc_json_get(o, "lifecycle");
		tc_buf m = TC_BUF_INIT;

		if (tc_ledger__is(tc_json_get(life, "correctness"), "passed") &&
		    tc_ledger__is(tc_json_get(life, "profiling"), "passed"))
			continue;
		tc_buf_printf(&m, "rounds[%zu] optimization round cannot be "
		    "followed by ", x->seq[i]);
		tc_json_str(&m, tc_json_get(x->rounds[x->seq[i + 1]].obj,
		    "round_id"));
		tc_buf_puts(&m, " unless correctness and profiling passed");
		tc_ledger__err_buf(x->errors, &m);
		tc_buf_free(&m);
	}
}

/* ---- the whole validation ----------------------------------------------- */

tc_json *
tc_experiment_structural_errors(const tc_json *result)
{
	struct xv x;
	tc_json *errors = tc_json_new_array();
	size_t i;

	if (!tc_json_is(result, TC_JSON_OBJECT)) {		/* S1 */
		tc_ledger__err(errors, "experiment result must be an object");
		return errors;
	}
	tc_ledger__value_scan(result, "experiment result", errors);	/* S2 */
	if (errors->u.arr.len > 0)
		return errors;

	memset(&x, 0, sizeof(x));
	x.r = result;
	x.errors = errors;
	x.empty = tc_json_new_object();
	check_top_level(&x);
	x.seq = tc_xcalloc(x.nrounds ? x.nrounds : 1, sizeof(*x.seq));
	x.round_pos = tc_xcalloc(x.nrounds ? x.nrounds : 1,
	    sizeof(*x.round_pos));
	for (i = 0; i < x.nrounds; i++)
		check_round(&x, i);
	check_profile_registries(&x);
	check_sequence(&x);
	check_analysis_maps(&x);
	check_continuation(&x);
	x.empty_list = tc_json_new_array();
	tc_experiment__check_decisions(&x);
	if (x.exc == NULL)
		tc_experiment__check_whole_scope(&x);
	if (x.exc == NULL)
		tc_experiment__check_round_semantics(&x);
	if (x.exc == NULL)
		tc_experiment__check_artifact_paths(&x);

	if (x.exc != NULL) {
		tc_json_free(errors);
		errors = tc_json_new_array();
		tc_json_array_push(errors, tc_json_new_string(x.exc));
		free(x.exc);
	}
	free(x.rounds);
	free(x.seq);
	free(x.round_pos);
	tc_ledger__set_free(&x.round_ids);
	tc_ledger__set_free(&x.passed);
	tc_ledger__set_free(&x.all_baseline_paths);
	tc_ledger__set_free(&x.all_candidate_paths);
	tc_json_free(x.empty);
	tc_json_free(x.empty_list);
	return errors;
}
