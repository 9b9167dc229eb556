/*
 * experiment_decisions.c - structural validation of an experiment result
 * (docs/spec/ledger.md "Structural validation"), second half: the decision
 * collections (D0-D25), whole-scope promotion (W1-W6), the derived sets and the
 * per-round semantic checks (K1-K4).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "experiment_internal.h"
#include "tunectl/ledger.h"

#define SCOPE "performance_scope_decisions"
#define UNRESOLVED "unresolved_performance_ranges"

static const char *const fingerprint_fields[] = {
	"source_revision", "baseline_config_fingerprint",
	"candidate_config_fingerprint", "control_fingerprint",
	"workload_fingerprint", NULL
};

struct tuple {
	const char *c, *a, *s;
};

/* D9: the legal (classification, action, status) tuples. */
static const struct tuple scope_tuples[] = {
	{ "beneficial", "keep", "proposed" },
	{ "beneficial", "keep", "applied" },
	{ "beneficial", "keep", "verified" },
	{ "neutral", "prune", "proposed" },
	{ "neutral", "prune", "applied" },
	{ "neutral", "prune", "verified" },
	{ "regressed", "prune", "proposed" },
	{ "regressed", "prune", "applied" },
	{ "regressed", "prune", "verified" },
	{ NULL, NULL, NULL }
};
static const struct tuple unresolved_tuples[] = {
	{ "neutral", "reprofile", "proposed" },
	{ "regressed", "reprofile", "proposed" },
	{ "insufficient_evidence", "reprofile", "proposed" },
	{ "neutral", "block", "blocked" },
	{ "regressed", "block", "blocked" },
	{ "insufficient_evidence", "block", "blocked" },
	{ NULL, NULL, NULL }
};
/* D21: automatic_aot source rounds. */
static const struct tuple aot_proposed[] = {
	{ "beneficial", "keep", "proposed" },
	{ "neutral", "prune", "proposed" },
	{ "regressed", "prune", "proposed" },
	{ NULL, NULL, NULL }
};
static const struct tuple aot_actionable[] = {
	{ "beneficial", "keep", "applied" },
	{ "neutral", "prune", "verified" },
	{ "regressed", "prune", "verified" },
	{ NULL, NULL, NULL }
};

static bool
tuple_in(const tc_json *d, const struct tuple *t)
{
	const tc_json *c = tc_json_get(d, "classification");
	const tc_json *a = tc_json_get(d, "action");
	const tc_json *s = tc_json_get(d, "status");

	for (; t->c != NULL; t++)
		if (tc_ledger__is(c, t->c) && tc_ledger__is(a, t->a) && tc_ledger__is(s, t->s))
			return true;
	return false;
}

static void
tuple_repr(tc_buf *b, const tc_json *d)
{
	tc_buf_putc(b, '(');
	{
		static const char *const keys[] = {
			"classification", "action", "status"
		};
		size_t i;

		for (i = 0; i < 3; i++) {
			const tc_json *v = tc_json_get(d, keys[i]);

			if (i > 0)
				tc_buf_puts(b, ", ");
			if (v == NULL)
				tc_buf_puts(b, "None");
			else
				tc_json_repr(b, v);
		}
	}
	tc_buf_putc(b, ')');
}

/* The effective-prune predicate of the derived sets. */
static bool
effective_prune(const tc_json *d)
{
	const tc_json *c = tc_json_get(d, "classification");
	const tc_json *s = tc_json_get(d, "status");

	return (tc_ledger__is(c, "neutral") || tc_ledger__is(c, "regressed")) &&
	    tc_ledger__is(tc_json_get(d, "action"), "prune") &&
	    (tc_ledger__is(s, "applied") || tc_ledger__is(s, "verified")) &&
	    tc_ledger_source_actionable(d);
}

static const tc_json *
round_obj(const struct xv *x, long idx)
{
	return idx < 0 ? NULL : x->rounds[idx].obj;
}

static bool
in_passed(const struct xv *x, const tc_json *id)
{
	return tc_json_is(id, TC_JSON_STRING) &&
	    tc_ledger__set_has(&x->passed, id->u.str.ptr, id->u.str.len);
}

/* mapping.get(key) for a string key, else NULL (None). */
static const tc_json *
map_get(const tc_json *map, const tc_json *key)
{
	if (!tc_json_is(key, TC_JSON_STRING))
		return NULL;
	return tc_json_getn(map, key->u.str.ptr, key->u.str.len);
}

/* "<len>:<round_id><range_id>": an unambiguous pair key. */
static void
pair_key(tc_buf *b, const tc_json *rid, const tc_json *range)
{
	tc_buf_reset(b);
	tc_buf_printf(b, "%zu:", rid->u.str.len);
	tc_buf_add(b, rid->u.str.ptr, rid->u.str.len);
	tc_buf_add(b, range->u.str.ptr, range->u.str.len);
}

/* ---- one decision (D1-D24) ---------------------------------------------- */

/* D2: the identifying strings. */
static void
check_ids(struct xv *x, const tc_json *d, const char *loc)
{
	static const char *const ids[] = {
		"round_id", "range_id", "sk_id", "source_scope", NULL
	};
	const tc_json *v;
	size_t k;

	for (k = 0; ids[k] != NULL; k++) {
		v = tc_json_get(d, ids[k]);
		if (!tc_is_nonblank_string(v))
			tc_ledger__err(x->errors, "%s.%s must be a non-empty string",
			    loc, ids[k]);
		else if (tc_ledger__has_surrounding_ws(v))
			tc_ledger__err(x->errors, "%s.%s must not contain surrounding "
			    "whitespace", loc, ids[k]);
	}
}

/* D3-D7: the mapping method and confidence, and the boundary.  Returns
 * false when an unhashable value ended the validation. */
static bool
check_mapping(struct xv *x, const tc_json *d, const char *loc)
{
	static const char *const pairs[][2] = {
		{ "source_scope_map", "exact" },
		{ "kernel_projection_structural", "exact_projected_trace" },
		{ "source_scope_map", "diagnostic_only" },
		{ "kernel_projection_structural", "diagnostic_only" },
		{ "kernel_projection_structural", "ambiguous" },
		{ "kernel_projection_structural", "unmapped" },
		{ "sk_meta_node_ids", "diagnostic_only" },
	};
	const tc_json *method = tc_json_get(d, "mapping_method");
	const tc_json *conf = tc_json_get(d, "mapping_confidence");
	const tc_json *bnd = tc_json_get(d, "boundary");
	bool ok = false;
	size_t k;

	if (tc_ledger__unhashable(method)) {			/* D3 */
		tc_experiment__raise_unhashable(x, method);
		return false;
	}
	if (!tc_ledger__in(method, tc_ledger_mapping_methods))
		tc_ledger__err(x->errors, "%s.mapping_method must preserve a producer "
		    "mapping method", loc);
	if (tc_ledger__unhashable(conf)) {			/* D4 */
		tc_experiment__raise_unhashable(x, conf);
		return false;
	}
	if (!tc_ledger__in(conf, tc_ledger_mapping_confidences))
		tc_ledger__err(x->errors, "%s.mapping_confidence is invalid", loc);
	for (k = 0; k < sizeof(pairs) / sizeof(pairs[0]); k++)	/* D5 */
		if (tc_ledger__is(method, pairs[k][0]) && tc_ledger__is(conf, pairs[k][1]))
			ok = true;
	if (!ok)
		tc_ledger__err(x->errors, "%s mapping method/confidence pair is "
		    "unsupported", loc);
	if (tc_json_get(d, "mapping_reliable") != NULL)		/* D6 */
		tc_ledger__err(x->errors, "%s.mapping_reliable is consumer-reported and "
		    "must be omitted", loc);
	if (!tc_json_is(bnd, TC_JSON_OBJECT)) {			/* D7 */
		tc_ledger__err(x->errors, "%s.boundary must be an object", loc);
	} else {
		if (!tc_is_nonblank_string(tc_json_get(bnd, "start_op")))
			tc_ledger__err(x->errors, "%s.boundary.start_op must be a "
			    "non-empty string", loc);
		if (!tc_is_nonblank_string(tc_json_get(bnd, "end_op")))
			tc_ledger__err(x->errors, "%s.boundary.end_op must be a "
			    "non-empty string", loc);
	}
	return true;
}

/* D8-D11: classification, action and status, alone and together. */
static void
check_tuple(struct xv *x, const tc_json *d, const char *field, bool scope,
    const char *loc)
{
	const tc_json *cls = tc_json_get(d, "classification");
	const tc_json *act = tc_json_get(d, "action");
	const tc_json *st = tc_json_get(d, "status");
	bool perf_exact;

	if (!tc_ledger__in(cls, tc_ledger_classifications))	/* D8 */
		tc_ledger__err(x->errors, "%s.classification is invalid", loc);
	if (!tc_ledger__in(act, tc_ledger_actions))
		tc_ledger__err(x->errors, "%s.action is invalid", loc);
	if (!tc_ledger__in(st, tc_ledger_decision_statuses))
		tc_ledger__err(x->errors, "%s.status is invalid", loc);
	if (!tuple_in(d, scope ? scope_tuples : unresolved_tuples)) {	/* D9 */
		tc_buf m = TC_BUF_INIT;

		tc_buf_printf(&m, "%s classification/action/status tuple ", loc);
		tuple_repr(&m, d);
		tc_buf_printf(&m, " is invalid for %s", field);
		tc_ledger__err_buf(x->errors, &m);
		tc_buf_free(&m);
	}
	perf_exact = tc_ledger_performance_exact(d);
	if (scope && tc_ledger__is(st, "proposed") && !perf_exact)	/* D10 */
		tc_ledger__err(x->errors, "%s proposed measured classification requires "
		    "performance-exact mapping evidence", loc);
	if (!perf_exact && !tc_ledger__is(cls, "insufficient_evidence"))	/* D11 */
		tc_ledger__err(x->errors, "%s non-exact mapping must remain "
		    "insufficient_evidence", loc);
}

/* D12-D18: the source round, its fingerprint, bindings and profiling
 * analysis.  Returns the round (NULL when undeclared), its index in
 * *src_idx. */
static const tc_json *
check_source_round(struct xv *x, const tc_json *d, const char *loc,
    long *src_idx)
{
	const tc_json *rid = tc_json_get(d, "round_id"), *src = NULL, *v;
	size_t k;

	if (tc_is_nonblank_string(rid)) {			/* D12 */
		*src_idx = tc_experiment__round_index(x, rid);
		src = round_obj(x, *src_idx);
	}
	if (src == NULL)
		tc_ledger__err(x->errors, "%s.round_id must reference a declared round",
		    loc);
	for (k = 0; fingerprint_fields[k] != NULL; k++) {	/* D13 */
		v = tc_json_get(d, fingerprint_fields[k]);
		if (!tc_is_nonblank_string(v))
			tc_ledger__err(x->errors, "%s.%s must be a non-empty string",
			    loc, fingerprint_fields[k]);
		else if (src != NULL &&
		    !tc_ledger__eq(v, tc_json_get(src, fingerprint_fields[k])))
			tc_ledger__err(x->errors, "%s.%s must match its declared round",
			    loc, fingerprint_fields[k]);
	}
	tc_experiment__binding_checks(x, d, loc, src);			/* D14 */
	if (!in_passed(x, rid))					/* D15 */
		tc_ledger__err(x->errors, "%s source round must have profiling passed",
		    loc);
	if (!tc_is_nonblank_string(map_get(x->agents, rid)))	/* D16 */
		tc_ledger__err(x->errors, "%s source round must have a profiling "
		    "analysis Agent", loc);
	if (!tc_is_relative_artifact(map_get(x->results, rid)))	/* D17 */
		tc_ledger__err(x->errors, "%s source round must have a profiling "
		    "analysis result", loc);
	if (!tc_ledger__eq(tc_json_get(d, "source_profiling_analysis_result"),
	    map_get(x->results, rid)))				/* D18 */
		tc_ledger__err(x->errors, "%s.source_profiling_analysis_result must "
		    "match its source round", loc);
	return src;
}

/* D19-D20: an applied or verified prune or keep needs a source-actionable
 * mapping of the matching classification. */
static void
check_effect(struct xv *x, const tc_json *d, const char *loc)
{
	const tc_json *cls = tc_json_get(d, "classification");
	const tc_json *act = tc_json_get(d, "action");
	const tc_json *st = tc_json_get(d, "status");
	bool actionable = tc_ledger_source_actionable(d);
	bool effective = tc_ledger__is(st, "applied") ||
	    tc_ledger__is(st, "verified");

	if (tc_ledger__is(act, "prune") && effective &&
	    !((tc_ledger__is(cls, "neutral") ||
	    tc_ledger__is(cls, "regressed")) && actionable))	/* D19 */
		tc_ledger__err(x->errors, "%s effective prune requires source-actionable "
		    "neutral/regressed mapping", loc);
	if (tc_ledger__is(act, "keep") && effective &&
	    !(tc_ledger__is(cls, "beneficial") && actionable))	/* D20 */
		tc_ledger__err(x->errors, "%s effective keep requires source-actionable "
		    "beneficial mapping", loc);
}

/* D21: what a decision sourced from an automatic_aot round may be.
 * Returns false when an unhashable value ended the validation. */
static bool
check_aot(struct xv *x, const tc_json *d, bool scope, const char *loc)
{
	const tc_json *cls = tc_json_get(d, "classification");
	const tc_json *act = tc_json_get(d, "action");
	const tc_json *st = tc_json_get(d, "status");
	bool ok;

	if (tc_ledger__unhashable(cls) || tc_ledger__unhashable(act) ||
	    tc_ledger__unhashable(st)) {
		tc_experiment__raise_unhashable(x, tc_ledger__unhashable(cls) ? cls :
		    tc_ledger__unhashable(act) ? act : st);
		return false;
	}
	if (scope)
		ok = tuple_in(d, aot_proposed) ||
		    (tc_ledger_source_actionable(d) && tuple_in(d, aot_actionable));
	else
		ok = tuple_in(d, unresolved_tuples);
	if (!ok)
		tc_ledger__err(x->errors, "%s automatic_aot may only retain "
		    "proposed carry-forward, source-actionable "
		    "later-verified, or blocked unresolved evidence", loc);
	return true;
}

/* D23: a verified prune is verified by a later performance_prune round
 * that references its range. */
static void
check_verified_prune(struct xv *x, const tc_json *d, long vr_idx,
    const char *loc)
{
	const tc_json *vround = round_obj(x, vr_idx);
	const tc_json *range = tc_json_get(d, "range_id");
	const tc_json *refs;
	bool found = false;
	size_t k;

	if (vround == NULL || x->rounds[vr_idx].kind != XK_PRUNE) {
		tc_ledger__err(x->errors, "%s.verified_in_round_id must "
		    "reference a later performance_prune round", loc);
		return;
	}
	refs = tc_json_get(vround, "performance_decision_range_ids");
	if (tc_is_canonical_string(range) && tc_json_is(refs, TC_JSON_ARRAY))
		for (k = 0; k < refs->u.arr.len; k++)
			if (tc_ledger__eq(refs->u.arr.items[k], range))
				found = true;
	if (!found)
		tc_ledger__err(x->errors, "%s verified prune range must be "
		    "referenced by its performance_prune verification round",
		    loc);
}

/* D22-D23: a verified decision names a later, profiling-passed round
 * with fresh profiling. */
static void
check_verified(struct xv *x, const tc_json *d, long src_idx, const char *loc)
{
	const tc_json *vr = tc_json_get(d, "verified_in_round_id");
	long vr_idx = -1;

	if (!tc_ledger__is(tc_json_get(d, "status"), "verified"))
		return;
	if (!tc_is_nonblank_string(vr) || !in_passed(x, vr))
		tc_ledger__err(x->errors, "%s.verified_in_round_id must reference "
		    "a profiling-passed round", loc);
	if (!tc_ledger__eq(tc_json_get(d, "profiling_analysis_result"),
	    map_get(x->results, vr)))
		tc_ledger__err(x->errors, "%s.profiling_analysis_result must "
		    "reference fresh verification profiling", loc);
	if (tc_is_nonblank_string(vr))
		vr_idx = tc_experiment__round_index(x, vr);
	if (src_idx >= 0 && vr_idx >= 0 && vr_idx <= src_idx)
		tc_ledger__err(x->errors, "%s.verified_in_round_id must be "
		    "strictly later than its source round", loc);
	if (tc_ledger__is(tc_json_get(d, "action"), "prune"))
		check_verified_prune(x, d, vr_idx, loc);
}

/* One decision, D2-D23, in the reference's order (its first unhashable
 * value ends the validation, as the reference's exception does). */
static void
check_decision(struct xv *x, const tc_json *d, const char *field,
    const char *loc)
{
	const bool scope = strcmp(field, SCOPE) == 0;
	const tc_json *src;
	long src_idx = -1;

	check_ids(x, d, loc);
	if (!check_mapping(x, d, loc))
		return;
	check_tuple(x, d, field, scope, loc);
	src = check_source_round(x, d, loc, &src_idx);
	check_effect(x, d, loc);
	if (src != NULL && x->rounds[src_idx].kind == XK_AOT &&
	    !check_aot(x, d, scope, loc))
		return;
	check_verified(x, d, src_idx, loc);
}

void
tc_experiment__check_decisions(struct xv *x)
{
	const char *fields[2] = { SCOPE, UNRESOLVED };
	lx_set seen[2] = { LX_SET_INIT, LX_SET_INIT };
	tc_buf key = TC_BUF_INIT;
	size_t f, i;

	for (f = 0; f < 2; f++) {
		const tc_json *list = tc_json_get(x->r, fields[f]);

		if (!tc_json_is(list, TC_JSON_ARRAY)) {		/* D0 */
			tc_ledger__err(x->errors, "%s must be a list", fields[f]);
			list = x->empty_list;
		}
		if (f == 0)
			x->decisions = list;
		else
			x->unresolved = list;
	}
	for (f = 0; f < 2 && x->exc == NULL; f++) {
		const tc_json *list = f == 0 ? x->decisions : x->unresolved;

		for (i = 0; i < list->u.arr.len && x->exc == NULL; i++) {
			const tc_json *d = list->u.arr.items[i];
			const tc_json *rid, *range;
			char loc[96];

			snprintf(loc, sizeof(loc), "%s[%zu]", fields[f], i);
			if (!tc_json_is(d, TC_JSON_OBJECT)) {	/* D1 */
				tc_ledger__err(x->errors, "%s must be an object", loc);
				continue;
			}
			check_decision(x, d, fields[f], loc);
			if (x->exc != NULL)
				break;
			rid = tc_json_get(d, "round_id");	/* D25 */
			range = tc_json_get(d, "range_id");
			if (!tc_is_nonblank_string(rid) ||
			    !tc_is_nonblank_string(range))
				continue;
			pair_key(&key, rid, range);
			if (tc_ledger__set_has(&seen[f], key.data, key.len))
				tc_ledger__err(x->errors, "%s contains duplicate "
				    "round/range identity", fields[f]);
			else if (tc_ledger__set_has(&seen[1 - f], key.data, key.len))
				tc_ledger__err(x->errors, "%s contains a conflicting "
				    "round/range identity already recorded in %s",
				    fields[f], fields[1 - f]);
			tc_ledger__set_add(&seen[f], key.data, key.len);
		}
	}
	tc_buf_free(&key);
	tc_ledger__set_free(&seen[0]);
	tc_ledger__set_free(&seen[1]);
}

/* ---- whole-scope promotion (W1-W6) --------------------------------------- */

/* The non-empty-string range ids of a collection's object records. */
static void
add_range_ids(const tc_json *list, lx_set *out)
{
	size_t i;

	for (i = 0; i < list->u.arr.len; i++) {
		const tc_json *d = list->u.arr.items[i];
		const tc_json *range = tc_json_get(d, "range_id");

		if (tc_json_is(d, TC_JSON_OBJECT) &&
		    tc_is_nonblank_string(range))
			tc_ledger__set_add(out, range->u.str.ptr, range->u.str.len);
	}
}

void
tc_experiment__check_whole_scope(struct xv *x)
{
	const tc_json *lists[2] = { x->decisions, x->unresolved };
	const tc_json *first = x->nrounds > 0 ? x->rounds[0].obj : NULL;
	size_t nrecords = 0, f, i;
	bool insufficient = false, inexact = false;

	if (!x->whole_scope)
		return;
	if (x->nrounds == 1 && first != NULL &&
	    tc_ledger__unhashable(tc_json_get(first, "round_kind"))) {
		tc_experiment__raise_unhashable(x, tc_json_get(first, "round_kind"));
		return;
	}
	if (x->nrounds != 1 || first == NULL ||			/* W1 */
	    (x->rounds[0].kind != XK_BASE && x->rounds[0].kind != XK_AOT)) {
		tc_ledger__err(x->errors, "whole_scope promotion requires exactly one "
		    "unchanged base or automatic_aot round");
	} else {
		const tc_json *id = tc_json_get(first, "round_id");	/* W2 */

		if (tc_ledger__unhashable(id)) {
			tc_experiment__raise_unhashable(x, id);
			return;
		}
		if (!in_passed(x, id))
			tc_ledger__err(x->errors, "whole_scope promotion requires "
			    "correctness-passed fresh profiling");
	}
	for (f = 0; f < 2; f++) {
		for (i = 0; i < lists[f]->u.arr.len; i++) {
			const tc_json *d = lists[f]->u.arr.items[i];

			if (!tc_json_is(d, TC_JSON_OBJECT))
				continue;
			nrecords++;
			if (tc_ledger__is(tc_json_get(d, "classification"),
			    "insufficient_evidence"))
				insufficient = true;
			if (!tc_ledger_performance_exact(d))
				inexact = true;
		}
	}
	if (nrecords == 0)					/* W3 */
		tc_ledger__err(x->errors, "whole_scope promotion requires complete "
		    "per-SK decisions");
	if (insufficient)					/* W4 */
		tc_ledger__err(x->errors, "whole_scope promotion must not contain "
		    "insufficient_evidence");
	if (inexact)						/* W5 */
		tc_ledger__err(x->errors, "whole_scope promotion requires "
		    "performance-exact mapping for every SK");
	if (first != NULL) {					/* W6 */
		lx_set recs = LX_SET_INIT, refs = LX_SET_INIT;

		add_range_ids(x->decisions, &recs);
		add_range_ids(x->unresolved, &recs);
		tc_experiment__string_set(tc_json_get(first, "performance_decision_range_ids"),
		    &refs);
		if (!tc_ledger__set_equal(&recs, &refs))
			tc_ledger__err(x->errors, "whole_scope promotion decisions must "
			    "cover the full profiled inventory");
		tc_ledger__set_free(&recs);
		tc_ledger__set_free(&refs);
	}
}

/* ---- derived sets and per-round semantics (K1-K4) ---------------------- */

static bool
applied_keep(const tc_json *d, bool verified_too)
{
	const tc_json *s = tc_json_get(d, "status");

	return tc_ledger__is(tc_json_get(d, "classification"), "beneficial") &&
	    tc_ledger__is(tc_json_get(d, "action"), "keep") &&
	    (tc_ledger__is(s, "applied") || (verified_too && tc_ledger__is(s, "verified")));
}

static void
retained_range_ids(const struct xv *x, lx_set *out)
{
	size_t i;

	for (i = 0; i < x->decisions->u.arr.len; i++) {
		const tc_json *d = x->decisions->u.arr.items[i];
		const tc_json *range = tc_json_get(d, "range_id");
		const tc_json *rid = tc_json_get(d, "round_id");
		long idx = -1;

		if (!tc_json_is(d, TC_JSON_OBJECT) || !applied_keep(d, true) ||
		    !tc_is_nonblank_string(range))
			continue;
		if (tc_is_nonblank_string(rid))
			idx = tc_experiment__round_index(x, rid);
		if (idx >= 0 && x->rounds[idx].kind == XK_FINAL)
			continue;
		tc_ledger__set_add(out, range->u.str.ptr, range->u.str.len);
	}
}

static void
check_option_pointers(struct xv *x, const tc_json *o, const char *loc)
{
	const tc_json *dcs = tc_json_get(o, "declared_change_set");
	const tc_json *ptrs = tc_json_get(dcs, "allowed_json_pointers");
	size_t i;

	if (!tc_json_is(dcs, TC_JSON_OBJECT) || !tc_json_is(ptrs, TC_JSON_ARRAY))
		return;
	for (i = 0; i < ptrs->u.arr.len; i++) {
		const tc_json *p = ptrs->u.arr.items[i];
		const char *s;
		size_t n, j;
		bool hit = false;

		if (!tc_ledger_rfc6901_pointer(p))
			continue;
		s = p->u.str.ptr;
		n = p->u.str.len;
		/* Tokens after the first '/': "option" never spans a '/' and
		 * decoding ~0/~1 cannot create or break the ASCII word, so
		 * the decoded lowercased token holds it iff the raw text does
		 * within one token. */
		for (j = 1; j + 6 <= n && !hit; j++) {
			size_t k;

			for (k = 0; k < 6; k++) {
				char c = s[j + k];

				if (c >= 'A' && c <= 'Z')
					c = (char)(c - 'A' + 'a');
				if (c != "option"[k])
					break;
			}
			if (k == 6)
				hit = true;
		}
		if (hit) {
			tc_ledger__err(x->errors, "%s.declared_change_set."
			    "allowed_json_pointers must not target options "
			    "after Sbest-BASE", loc);
			return;
		}
	}
}

/* ---- records by round ---------------------------------------------------- */

/* One decision or unresolved record, for lookups by round_id. */
struct xrec {
	const tc_json *d;
	const char *rid;	/* NULL: a non-string round_id */
	size_t rid_len;
	int coll;		/* 0 decisions, 1 unresolved */
	size_t idx;
};

struct xsem {
	struct xrec *recs;	/* string round ids, sorted by (rid, coll, idx) */
	size_t nrecs;
	struct xrec *odd;	/* non-string round ids, in order */
	size_t nodd;
	lx_set prune_ranges;	/* effective prunes: range -> earliest source */
	size_t *prune_pos;
	lx_set retained;
};

static int
xrec_cmp(const void *a, const void *b)
{
	const struct xrec *x = a, *y = b;
	size_t n = x->rid_len < y->rid_len ? x->rid_len : y->rid_len;
	int c = memcmp(x->rid, y->rid, n);

	if (c == 0)
		c = x->rid_len < y->rid_len ? -1 : x->rid_len > y->rid_len;
	if (c == 0)
		c = x->coll - y->coll;
	if (c == 0)
		c = x->idx < y->idx ? -1 : x->idx > y->idx;
	return c;
}

static void
sem_init(struct xv *x, struct xsem *m)
{
	size_t f, i, total = x->decisions->u.arr.len + x->unresolved->u.arr.len;

	memset(m, 0, sizeof(*m));
	m->recs = tc_xmalloc((total ? total : 1) * sizeof(*m->recs));
	m->odd = tc_xmalloc((total ? total : 1) * sizeof(*m->odd));
	for (f = 0; f < 2; f++) {
		const tc_json *list = f == 0 ? x->decisions : x->unresolved;

		for (i = 0; i < list->u.arr.len; i++) {
			const tc_json *d = list->u.arr.items[i];
			const tc_json *rid = tc_json_get(d, "round_id");
			struct xrec r = { d, NULL, 0, (int)f, i };

			if (!tc_json_is(d, TC_JSON_OBJECT))
				continue;
			if (tc_json_is(rid, TC_JSON_STRING)) {
				r.rid = rid->u.str.ptr;
				r.rid_len = rid->u.str.len;
				m->recs[m->nrecs++] = r;
			} else {
				m->odd[m->nodd++] = r;
			}
		}
	}
	qsort(m->recs, m->nrecs, sizeof(*m->recs), xrec_cmp);
	m->prune_pos = tc_xmalloc((x->decisions->u.arr.len ?
	    x->decisions->u.arr.len : 1) * sizeof(*m->prune_pos));
	for (i = 0; i < x->decisions->u.arr.len; i++) {
		const tc_json *d = x->decisions->u.arr.items[i];
		const tc_json *range = tc_json_get(d, "range_id");
		const tc_json *rid = tc_json_get(d, "round_id");
		long pos = -1, k;

		if (!tc_json_is(d, TC_JSON_OBJECT) || !effective_prune(d) ||
		    !tc_json_is(range, TC_JSON_STRING))
			continue;
		if (tc_is_nonblank_string(rid))
			pos = tc_experiment__round_index(x, rid);
		if (pos < 0)
			pos = (long)x->nrounds;
		k = tc_ledger__set_index(&m->prune_ranges, range->u.str.ptr,
		    range->u.str.len);
		if (k < 0) {
			tc_ledger__set_add(&m->prune_ranges, range->u.str.ptr,
			    range->u.str.len);
			m->prune_pos[m->prune_ranges.len - 1] = (size_t)pos;
		} else if ((size_t)pos < m->prune_pos[k]) {
			m->prune_pos[k] = (size_t)pos;
		}
	}
	retained_range_ids(x, &m->retained);
}

static void
sem_free(struct xsem *m)
{
	free(m->recs);
	free(m->odd);
	free(m->prune_pos);
	tc_ledger__set_free(&m->prune_ranges);
	tc_ledger__set_free(&m->retained);
}

/* The records whose round_id equals id (Python ==), decisions first, in
 * collection order.  *n receives the count; the caller frees. */
static const struct xrec **
records_of(const struct xsem *m, const tc_json *id, size_t *n)
{
	const struct xrec **out;
	size_t lo = 0, hi = m->nrecs, i;

	*n = 0;
	if (!tc_json_is(id, TC_JSON_STRING)) {
		out = tc_xmalloc((m->nodd ? m->nodd : 1) * sizeof(*out));
		for (i = 0; i < m->nodd; i++)
			if (tc_ledger__eq(tc_json_get(m->odd[i].d, "round_id"), id))
				out[(*n)++] = &m->odd[i];
		return out;
	}
	{
		struct xrec key = { NULL, id->u.str.ptr, id->u.str.len, -1, 0 };

		while (lo < hi) {
			size_t mid = lo + (hi - lo) / 2;

			if (xrec_cmp(&m->recs[mid], &key) < 0)
				lo = mid + 1;
			else
				hi = mid;
		}
	}
	for (hi = lo; hi < m->nrecs && m->recs[hi].rid_len == id->u.str.len &&
	    memcmp(m->recs[hi].rid, id->u.str.ptr, id->u.str.len) == 0; hi++)
		;
	out = tc_xmalloc((hi - lo ? hi - lo : 1) * sizeof(*out));
	for (i = lo; i < hi; i++)
		out[(*n)++] = &m->recs[i];
	return out;
}

/* Range ids of a round's records: non-empty strings, or every string. */
static void
record_ranges(const struct xsem *m, const tc_json *id, bool nes_only,
    lx_set *out)
{
	size_t n, i;
	const struct xrec **recs = records_of(m, id, &n);

	for (i = 0; i < n; i++) {
		const tc_json *range = tc_json_get(recs[i]->d, "range_id");

		if (nes_only ? tc_is_nonblank_string(range) :
		    tc_json_is(range, TC_JSON_STRING))
			tc_ledger__set_add(out, range->u.str.ptr, range->u.str.len);
	}
	free(recs);
}

/* ---- per-round checks ------------------------------------------------------ */

static void
check_prune_round(struct xv *x, const struct xsem *m, size_t i,
    const tc_json *o, const char *loc, const lx_set *refs,
    const tc_json *earlier_fp)
{
	lx_set same = LX_SET_INIT, both = LX_SET_INIT;
	bool covered = refs->len > 0;
	size_t r;

	if (earlier_fp != NULL && tc_ledger__eq(earlier_fp,
	    tc_json_get(o, "candidate_config_fingerprint")))
		tc_ledger__err(x->errors, "%s performance_prune candidate fingerprint must "
		    "change", loc);
	for (r = 0; r < refs->len && covered; r++) {
		long k = tc_ledger__set_index(&m->prune_ranges, refs->items[r].p,
		    refs->items[r].n);

		if (k < 0 || m->prune_pos[k] >= i)
			covered = false;
	}
	if (!covered)
		tc_ledger__err(x->errors, "%s performance_prune must reference exact "
		    "reliable neutral/regressed decisions", loc);
	record_ranges(m, tc_json_get(o, "round_id"), false, &same);
	tc_ledger__set_intersect(refs, &same, &both);
	if (both.len > 0) {
		tc_buf b = TC_BUF_INIT;

		tc_buf_printf(&b, "%s performance_prune removed range must not "
		    "have same-round performance evidence: ", loc);
		tc_ledger__set_join(&b, &both);
		tc_ledger__err_buf(x->errors, &b);
		tc_buf_free(&b);
	}
	tc_ledger__set_free(&same);
	tc_ledger__set_free(&both);
}

static void
check_final_round(struct xv *x, const struct xsem *m, const tc_json *o,
    const char *loc, const lx_set *refs)
{
	const tc_json *id = tc_json_get(o, "round_id");
	lx_set finals = LX_SET_INIT, recs = LX_SET_INIT;
	const struct xrec **rs = NULL;
	size_t *keeps = NULL, *others = NULL, nrs, r, k;
	char name[96];

	snprintf(name, sizeof(name), "%s.retained_range_ids", loc);
	tc_experiment__string_list_check(x, tc_json_get(o, "retained_range_ids"), name);
	tc_experiment__string_set(tc_json_get(o, "retained_range_ids"), &finals);
	tc_ledger__set_sort(&finals);
	if (!tc_ledger__set_equal(&finals, &m->retained))
		tc_ledger__err(x->errors, "%s final must reference all retained ranges",
		    loc);
	if (!tc_ledger__set_equal(refs, &finals))
		tc_ledger__err(x->errors, "%s final decision references must match final "
		    "ranges", loc);
	if (tc_ledger__unhashable(id)) {
		tc_experiment__raise_unhashable(x, id);
		goto out;
	}
	if (!in_passed(x, id))
		tc_ledger__err(x->errors, "%s final requires fresh profiling analysis",
		    loc);
	record_ranges(m, id, true, &recs);
	if (!tc_ledger__set_equal(&recs, &finals))
		tc_ledger__err(x->errors, "%s final decisions must match final ranges",
		    loc);
	keeps = tc_xcalloc(finals.len ? finals.len : 1, sizeof(*keeps));
	others = tc_xcalloc(finals.len ? finals.len : 1, sizeof(*others));
	rs = records_of(m, id, &nrs);
	for (k = 0; k < nrs; k++) {
		const tc_json *d = rs[k]->d;
		const tc_json *range = tc_json_get(d, "range_id");
		long f;

		if (!tc_json_is(range, TC_JSON_STRING) ||
		    (f = tc_ledger__set_index(&finals, range->u.str.ptr,
		    range->u.str.len)) < 0)
			continue;
		if (rs[k]->coll == 0 && applied_keep(d, false) &&
		    tc_ledger_source_actionable(d))
			keeps[f]++;
		else
			others[f]++;
	}
	for (r = 0; r < finals.len; r++) {
		tc_buf b = TC_BUF_INIT;

		if (keeps[r] != 1) {
			tc_buf_printf(&b, "%s final range ", loc);
			tc_buf_add(&b, finals.items[r].p, finals.items[r].n);
			tc_buf_puts(&b, " requires exactly one fresh applied keep "
			    "decision");
			tc_ledger__err_buf(x->errors, &b);
			tc_buf_reset(&b);
		}
		if (others[r] > 0) {
			tc_buf_printf(&b, "%s final range ", loc);
			tc_buf_add(&b, finals.items[r].p, finals.items[r].n);
			tc_buf_puts(&b, " must not contain unresolved, regressed, "
			    "or blocked outcomes");
			tc_ledger__err_buf(x->errors, &b);
		}
		tc_buf_free(&b);
	}
out:
	free(rs);
	free(keeps);
	free(others);
	tc_ledger__set_free(&finals);
	tc_ledger__set_free(&recs);
}

void
tc_experiment__check_round_semantics(struct xv *x)
{
	const tc_json *earlier_fp = NULL;
	struct xsem m;
	size_t i;

	sem_init(x, &m);
	for (i = 0; i < x->nrounds && x->exc == NULL; i++) {
		const tc_json *o = x->rounds[i].obj;
		const tc_json *kind, *changes, *fp;
		lx_set refs = LX_SET_INIT;
		char loc[48];

		if (o == NULL)
			continue;
		snprintf(loc, sizeof(loc), "rounds[%zu]", i);
		kind = tc_json_get(o, "round_kind");
		if (tc_ledger__unhashable(kind)) {			/* K1 */
			tc_experiment__raise_unhashable(x, kind);
			break;
		}
		tc_experiment__string_set(tc_json_get(o, "performance_decision_range_ids"),
		    &refs);
		if (x->rounds[i].kind == XK_PRUNE ||
		    x->rounds[i].kind == XK_FINAL) {
			changes = tc_json_get(o, "declared_option_changes");
			if (!tc_json_is(changes, TC_JSON_ARRAY) ||
			    changes->u.arr.len != 0)
				tc_ledger__err(x->errors, "%s %s forbids option changes "
				    "after Sbest-BASE; declared_option_changes "
				    "must be empty", loc, x->rounds[i].kind ==
				    XK_PRUNE ? "performance_prune" : "final");
			check_option_pointers(x, o, loc);
		}
		if (x->rounds[i].kind == XK_BASE) {		/* K2 */
			lx_set recs = LX_SET_INIT;

			record_ranges(&m, tc_json_get(o, "round_id"), true, &recs);
			if (!tc_ledger__set_equal(&refs, &recs))
				tc_ledger__err(x->errors, "%s base references must match "
				    "its decisions", loc);
			tc_ledger__set_free(&recs);
		} else if (x->rounds[i].kind == XK_PRUNE) {	/* K3 */
			check_prune_round(x, &m, i, o, loc, &refs, earlier_fp);
		} else if (x->rounds[i].kind == XK_FINAL) {	/* K4 */
			check_final_round(x, &m, o, loc, &refs);
		}
		fp = tc_json_get(o, "candidate_config_fingerprint");
		if (tc_is_nonblank_string(fp))
			earlier_fp = fp;
		tc_ledger__set_free(&refs);
	}
	sem_free(&m);
}
