/*
 * select.c - Stage 5 best-version selection (docs/spec/pypto.md
 * "Best-version selection"): the exact ranking with the anchor-based tie rule,
 * and the candidate table built from re-verified formal compare rounds.
 */
#include <ctype.h>
#include <gmp.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pypto_internal.h"
#include "tunectl/decimal.h"
#include "tunectl/fileio.h"
#include "tunectl/path.h"
#include "tunectl/pypto_cases.h"
#include "tunectl/pypto_compare.h"
#include "tunectl/pypto_select.h"

static double
q_to_double(const mpq_t q)
{
	mpz_t num;
	double d;

	if (mpq_sgn(q) == 0)
		return 0.0;
	mpz_init(num);
	mpz_abs(num, mpq_numref(q));
	d = tc_mpz_ratio_to_double(num, mpq_denref(q), 0);
	mpz_clear(num);
	return mpq_sgn(q) < 0 ? -d : d;
}

static char *
q_text(const mpq_t q)
{
	char *s = mpq_get_str(NULL, 10, q), *out = tc_xstrdup(s);
	void (*freefn)(void *, size_t);

	mp_get_memory_functions(NULL, NULL, &freefn);
	freefn(s, strlen(s) + 1);
	return out;
}

/* "0.02" -> 2/100; false unless digits[.digits]. */
static bool
decimal_to_q(mpq_t out, const char *s)
{
	tc_buf num = TC_BUF_INIT;
	size_t i = 0, frac = 0, digits = 0;
	bool dot = false;
	mpz_t den;

	if (s == NULL)
		return false;
	for (i = 0; s[i] != '\0'; i++) {
		if (isdigit((unsigned char)s[i])) {
			tc_buf_putc(&num, s[i]);
			digits++;
			if (dot)
				frac++;
		} else if (s[i] == '.' && !dot) {
			dot = true;
		} else {
			tc_buf_free(&num);
			return false;
		}
	}
	if (digits == 0 || digits > 400) {
		tc_buf_free(&num);
		return false;
	}
	mpz_set_str(mpq_numref(out), tc_buf_cstr(&num), 10);
	mpz_init(den);
	mpz_ui_pow_ui(den, 10, frac);
	mpz_set(mpq_denref(out), den);
	mpq_canonicalize(out);
	mpz_clear(den);
	tc_buf_free(&num);
	return true;
}

/* Every baseline and candidate duration is a finite positive number, and
 * at least one case is a target. */
static int
check_durations(const tc_pypto_selection_rule *rule,
    const tc_pypto_score_in *cands, size_t n, tc_error *err)
{
	size_t i, c, ntarget = 0;

	for (c = 0; c < rule->n_cases; c++) {
		if (!(isfinite(rule->baseline[c]) && rule->baseline[c] > 0)) {
			tc_error_set(err, "the frozen baseline duration of case %s is "
			    "not a finite positive number", rule->case_ids[c]);
			return -1;
		}
		ntarget += rule->target[c];
	}
	if (ntarget == 0) {
		tc_error_set(err, "no frozen target case to score");
		return -1;
	}
	for (i = 0; i < n; i++)
		for (c = 0; c < rule->n_cases; c++)
			if (!(isfinite(cands[i].durations[c]) &&
			    cands[i].durations[c] > 0)) {
				tc_error_set(err, "candidate %s: duration of case %s is "
				    "not a finite positive number", cands[i].id,
				    rule->case_ids[c]);
				return -1;
			}
	return 0;
}

/* A candidate's row: its per-case speedups and its score, the weighted
 * mean speedup over the target cases (exactly, into score). */
static tc_json *
score_row(const tc_pypto_selection_rule *rule, const tc_pypto_score_in *cand,
    mpq_t score)
{
	tc_json *row = tc_json_new_object(), *pc = tc_json_new_array();
	mpq_t sp, b, d, w, sum, wsum, tmp;
	char *txt;
	size_t c;

	mpq_inits(sp, b, d, w, sum, wsum, tmp, NULL);
	for (c = 0; c < rule->n_cases; c++) {
		tc_json *e = tc_json_new_object();

		mpq_set_d(b, rule->baseline[c]);
		mpq_set_d(d, cand->durations[c]);
		mpq_div(sp, b, d);
		tc_json_object_set_string(e, "case", rule->case_ids[c]);
		tc_json_object_set_bool(e, "target", rule->target[c]);
		tc_json_object_set(e, "baseline_us",
		    tc_json_new_float(rule->baseline[c]));
		tc_json_object_set(e, "duration_us",
		    tc_json_new_float(cand->durations[c]));
		tc_json_object_set(e, "speedup",
		    tc_json_new_float(q_to_double(sp)));
		tc_json_array_push(pc, e);
		if (!rule->target[c])
			continue;
		if (rule->weights != NULL)
			mpq_set_d(w, rule->weights[c]);
		else
			mpq_set_ui(w, 1, 1);
		mpq_mul(tmp, sp, w);
		mpq_add(sum, sum, tmp);
		mpq_add(wsum, wsum, w);
	}
	mpq_div(score, sum, wsum);
	tc_json_object_set_string(row, "candidate_id", cand->id);
	tc_json_object_set_int(row, "evaluation_order", cand->evaluation_order);
	tc_json_object_set_bool(row, "rankable", cand->rankable);
	tc_json_object_set(row, "per_case", pc);
	tc_json_object_set(row, "score", tc_json_new_float(q_to_double(score)));
	txt = q_text(score);
	tc_json_object_set_string(row, "score_exact", txt);
	free(txt);
	mpq_clears(sp, b, d, w, sum, wsum, tmp, NULL);
	return row;
}

/* Mark every row with its distance from the anchor and whether it is in
 * the tie set (rankable and within thr of the anchor); return the tie
 * set, and in *selected its member evaluated first. */
static tc_json *
mark_ties(const tc_pypto_score_in *cands, size_t n, mpq_t *scores,
    size_t anchor, const mpq_t thr, tc_json *list, size_t *selected)
{
	tc_json *ties = tc_json_new_array();
	mpq_t diff;
	size_t i;

	mpq_init(diff);
	for (i = 0; i < n; i++) {
		tc_json *row = list->u.arr.items[i];
		bool within, in_s;

		mpq_sub(diff, scores[anchor], scores[i]);
		tc_json_object_set(row, "difference_from_anchor",
		    tc_json_new_float(q_to_double(diff)));
		mpq_abs(diff, diff);
		within = mpq_cmp(diff, thr) <= 0;
		tc_json_object_set_bool(row, "within_stability_range", within);
		in_s = cands[i].rankable && (i == anchor || within);
		tc_json_object_set_bool(row, "in_tie_set", in_s);
		if (in_s) {
			tc_json_array_push(ties, tc_json_new_string(cands[i].id));
			if (*selected == (size_t)-1 || cands[i].evaluation_order <
			    cands[*selected].evaluation_order)
				*selected = i;
		}
	}
	mpq_clear(diff);
	return ties;
}

tc_json *
tc_pypto_rank(const tc_pypto_selection_rule *rule,
    const tc_pypto_score_in *cands, size_t n, tc_error *err)
{
	mpq_t *scores, delta, thr, tmp;
	tc_json *out = NULL, *list, *s;
	size_t i, anchor = (size_t)-1, selected = (size_t)-1;

	if (check_durations(rule, cands, n, err) != 0)
		return NULL;
	mpq_inits(delta, thr, tmp, NULL);
	if (!decimal_to_q(delta, rule->stability_value)) {
		tc_error_set(err, "the stability range must be a non-negative "
		    "decimal number, got %s", rule->stability_value != NULL ?
		    rule->stability_value : "(none)");
		mpq_clears(delta, thr, tmp, NULL);
		return NULL;
	}
	scores = tc_xcalloc(n + 1, sizeof(*scores));
	list = tc_json_new_array();
	for (i = 0; i < n; i++) {
		mpq_init(scores[i]);
		tc_json_array_push(list, score_row(rule, &cands[i], scores[i]));
		if (cands[i].rankable && (anchor == (size_t)-1 ||
		    mpq_cmp(scores[i], scores[anchor]) > 0 ||
		    (mpq_cmp(scores[i], scores[anchor]) == 0 &&
		    cands[i].evaluation_order < cands[anchor].evaluation_order)))
			anchor = i;
	}
	if (anchor == (size_t)-1) {
		tc_error_set(err, "no correct and compliant candidate completed a "
		    "formal compare; nothing can be selected");
		tc_json_free(list);
		goto out;
	}
	mpq_set(thr, delta);
	if (rule->relative) {
		mpq_abs(tmp, scores[anchor]);
		mpq_mul(thr, delta, tmp);
	}
	out = tc_json_new_object();
	tc_json_object_set(out, "tie_set", mark_ties(cands, n, scores, anchor,
	    thr, list, &selected));
	tc_json_object_set(out, "candidates", list);
	tc_json_object_set_string(out, "anchor", cands[anchor].id);
	s = tc_json_new_object();
	tc_json_object_set_string(s, "candidate_id", cands[selected].id);
	tc_json_object_set_int(s, "evaluation_order",
	    cands[selected].evaluation_order);
	tc_json_object_set(s, "score",
	    tc_json_new_float(q_to_double(scores[selected])));
	tc_json_object_set(out, "selected", s);
	tc_json_object_set_bool(out, "baseline_kept",
	    cands[selected].evaluation_order == 0);
out:
	for (i = 0; i < n; i++)
		mpq_clear(scores[i]);
	free(scores);
	mpq_clears(delta, thr, tmp, NULL);
	return out;
}

/* ---- the candidate table from rounds -------------------------------------------- */

struct cand {
	const tc_json *doc;
	const char *id;
	long order;
	bool rankable;
	tc_pypto_round round;
	double *durations;
};

static int
check_round_protocol(const tc_pypto_round *r, const tc_json *contract,
    const char *id, tc_error *err)
{
	const tc_json *c = r->collection;
	const tc_json *p = tc_json_get(contract, "protocol");
	const tc_json *pc = tc_json_get(contract, "performance_cases");
	static const char *const keys[] = { "warmup", "repeats", NULL };
	size_t i;

	if (contract == NULL)
		return 0;
	if (!tc_json_equal(tc_json_get(c, "target_op_name"),
	    tc_json_get(p, "target_op_name")) ||
	    !tc_json_equal(tc_json_get(c, "timing_source"),
	    tc_json_get(p, "timing_source")) ||
	    !tc_json_equal(tc_json_get(tc_json_get(c, "performance_cases"),
	    "sha256"), tc_json_get(pc, "sha256"))) {
		tc_error_set(err, "candidate %s: round %s was not collected under "
		    "the frozen protocol (Op Name, timing source, manifest)", id,
		    r->path);
		return -1;
	}
	for (i = 0; keys[i] != NULL; i++)
		if (!tc_json_equal(tc_json_get(c, keys[i]), tc_json_get(p,
		    keys[i]))) {
			tc_error_set(err, "candidate %s: round %s used %s different "
			    "from the frozen contract", id, r->path, keys[i]);
			return -1;
		}
	return 0;
}

static int
load_candidates(const char *path, struct cand **out, size_t *n, tc_json **doc,
    tc_error *err)
{
	const tc_json *list;
	size_t i, j;

	*out = NULL;
	*n = 0;
	if ((*doc = tc_pj_load_object(path, "the candidate table", err)) == NULL) {
		tc_error_prefix(err, "cannot load candidates %s: ", path);
		return -1;
	}
	list = tc_json_get(*doc, "candidates");
	if (!tc_json_is(list, TC_JSON_ARRAY) || list->u.arr.len == 0) {
		tc_error_set(err, "the candidate table needs a non-empty "
		    "\"candidates\" list");
		return -1;
	}
	*out = tc_xcalloc(list->u.arr.len, sizeof(**out));
	for (i = 0; i < list->u.arr.len; i++) {
		const tc_json *c = list->u.arr.items[i];
		struct cand *k = &(*out)[i];
		const tc_json *cor = tc_json_get(c, "correct");
		const tc_json *com = tc_json_get(c, "compliant");
		int64_t order;

		k->doc = c;
		k->id = tc_json_get_string(c, "candidate_id");
		(*n)++;
		if (k->id == NULL || tc_js_is_blank(k->id)) {
			tc_error_set(err, "candidates[%zu].candidate_id must be a "
			    "non-empty string", i);
			return -1;
		}
		if (!tc_pj_int(tc_json_get(c, "evaluation_order"), &order) ||
		    order < 0) {
			tc_error_set(err, "candidate %s: evaluation_order must be an "
			    "integer >= 0", k->id);
			return -1;
		}
		k->order = (long)order;
		if (!tc_json_is(cor, TC_JSON_BOOL) || !tc_json_is(com, TC_JSON_BOOL)) {
			tc_error_set(err, "candidate %s: correct and compliant must be "
			    "booleans backed by evidence", k->id);
			return -1;
		}
		k->rankable = cor->u.b && com->u.b;
		if (tc_json_get_string(c, "round") == NULL) {
			tc_error_set(err, "candidate %s: round must name its formal "
			    "compare round (docs/perf/round_NNN)", k->id);
			return -1;
		}
		if (k->rankable && (!tc_json_is(tc_json_get(c, "correctness_evidence"),
		    TC_JSON_STRING) || !tc_json_is(tc_json_get(c,
		    "compliance_evidence"), TC_JSON_STRING))) {
			tc_error_set(err, "candidate %s: a correct and compliant "
			    "candidate cites correctness_evidence and "
			    "compliance_evidence", k->id);
			return -1;
		}
		for (j = 0; j < i; j++) {
			if (strcmp((*out)[j].id, k->id) == 0) {
				tc_error_set(err, "candidate %s appears twice", k->id);
				return -1;
			}
			if ((*out)[j].order == k->order) {
				tc_error_set(err, "candidates %s and %s share "
				    "evaluation_order %ld", (*out)[j].id, k->id,
				    k->order);
				return -1;
			}
		}
	}
	return 0;
}

static void
free_cands(struct cand *c, size_t n)
{
	size_t i;

	for (i = 0; c != NULL && i < n; i++) {
		tc_pypto_round_free(&c[i].round);
		free(c[i].durations);
	}
	free(c);
}

/* What a selection is computed from, and the arrays its rule points into. */
struct selection {
	struct cand *cands;
	size_t n, base;
	const tc_json *target, *weights;
	const char *kind, *value;
	tc_pypto_selection_rule rule;
	tc_pypto_score_in *in;
	bool *tmask;
	double *w;
	char **ids;
};

/* The stability range: the frozen one (options may only repeat it) or,
 * without a frozen contract, the one the options declare. */
static int
stability_range(const tc_pypto_select_opts *o, const tc_json *contract,
    const char **kind, const char **value, tc_error *err)
{
	const tc_json *stab = tc_json_get(tc_json_get(contract, "selection"),
	    "stability_range");

	*kind = tc_json_get_string(stab, "kind");
	*value = tc_json_get_string(stab, "value");
	if (contract == NULL) {
		if (o->stability_kind == NULL || o->stability_value == NULL ||
		    o->manifest_path == NULL) {
			tc_error_set(err, "no frozen contract (%s): pass --case-manifest, "
			    "--stability-kind and --stability-range (no numeric "
			    "default exists; the range is declared before results "
			    "are seen)", TC_PYPTO_FROZEN_CONTRACT);
			return -1;
		}
		*kind = o->stability_kind;
		*value = o->stability_value;
	} else if ((o->stability_value != NULL && (*value == NULL ||
	    strcmp(o->stability_value, *value) != 0)) ||
	    (o->stability_kind != NULL && (*kind == NULL ||
	    strcmp(o->stability_kind, *kind) != 0))) {
		tc_error_set(err, "the stability range is frozen in %s (%s %s); it "
		    "may not be changed after seeing results",
		    TC_PYPTO_FROZEN_CONTRACT, *kind != NULL ? *kind : "?",
		    *value != NULL ? *value : "?");
		return -1;
	}
	if (*kind == NULL || (strcmp(*kind, "absolute") != 0 &&
	    strcmp(*kind, "relative") != 0)) {
		tc_error_set(err, "--stability-kind must be absolute or relative");
		return -1;
	}
	return 0;
}

/* evaluation_order numbers the candidates 0..n-1, 0 being the frozen
 * baseline; each candidate's round verifies, was collected under the
 * frozen protocol and is later than the rounds of earlier candidates. */
static int
check_candidates(const char *op_dir, const tc_json *contract,
    struct selection *s, tc_error *err)
{
	struct cand *cands = s->cands;
	size_t i, j, n = s->n;

	s->base = (size_t)-1;
	for (i = 0; i < n; i++) {
		if (cands[i].order == 0)
			s->base = i;
		if (cands[i].order >= (long)n) {
			tc_error_set(err, "evaluation_order must number the %zu "
			    "candidates 0..%zu without gaps (candidate %s has %ld)",
			    n, n - 1, cands[i].id, cands[i].order);
			return -1;
		}
	}
	if (s->base == (size_t)-1) {
		tc_error_set(err, "the frozen baseline (evaluation_order 0) is "
		    "missing from the candidate table");
		return -1;
	}
	for (i = 0; i < n; i++) {
		if (tc_pypto_round_verify(op_dir, tc_json_get_string(cands[i].doc,
		    "round"), &cands[i].round, err) != 0) {
			tc_error_prefix(err, "candidate %s: ", cands[i].id);
			return -1;
		}
		if (check_round_protocol(&cands[i].round, contract, cands[i].id,
		    err) != 0)
			return -1;
	}
	for (i = 0; i < n; i++)
		for (j = 0; j < n; j++)
			if (cands[i].order < cands[j].order &&
			    cands[i].round.index >= cands[j].round.index) {
				tc_error_set(err, "evaluation_order follows the order in "
				    "which candidates first obtained a formal result: %s "
				    "(order %ld, round_%03d) cannot precede %s (order "
				    "%ld, round_%03d)", cands[i].id, cands[i].order,
				    cands[i].round.index, cands[j].id, cands[j].order,
				    cands[j].round.index);
				return -1;
			}
	return 0;
}

/* A candidate's duration of each baseline case, from its own round. */
static int
candidate_durations(struct cand *c, const tc_pypto_round *br, char **ids,
    tc_error *err)
{
	size_t j, k;

	c->durations = tc_xcalloc(br->n + 1, sizeof(double));
	if (c->round.n != br->n) {
		tc_error_set(err, "candidate %s: round %s measures %zu cases, the "
		    "baseline %zu", c->id, c->round.path, c->round.n, br->n);
		return -1;
	}
	for (j = 0; j < br->n; j++) {
		for (k = 0; k < c->round.n; k++)
			if (strcmp(c->round.cases[k].id, ids[j]) == 0)
				break;
		if (k == c->round.n) {
			tc_error_set(err, "candidate %s: round %s lacks case %s",
			    c->id, c->round.path, ids[j]);
			return -1;
		}
		c->durations[j] = c->round.cases[k].aggregate_us;
	}
	return 0;
}

/* The ranking rule: the cases of the baseline round, in its order, the
 * frozen target cases and weights among them, every candidate's
 * durations. */
static int
build_rule(struct selection *s, tc_error *err)
{
	const tc_pypto_round *br = &s->cands[s->base].round;
	const tc_json *tids = tc_json_get(s->target, "case_ids");
	bool weighted = tc_json_is(s->weights, TC_JSON_OBJECT);
	size_t i, nt = 0;

	s->ids = tc_xcalloc(br->n + 1, sizeof(*s->ids));
	s->tmask = tc_xcalloc(br->n + 1, sizeof(*s->tmask));
	s->w = tc_xcalloc(br->n + 1, sizeof(*s->w));
	for (i = 0; i < br->n; i++) {
		s->ids[i] = br->cases[i].id;
		s->tmask[i] = tc_pj_array_has_string(tids, s->ids[i]);
		nt += s->tmask[i];
		if (weighted)
			(void)tc_json_number(tc_json_get(s->weights, s->ids[i]),
			    &s->w[i]);
	}
	if (!tc_json_is(tids, TC_JSON_ARRAY) || nt != tids->u.arr.len) {
		tc_error_set(err, "the baseline round does not measure every "
		    "frozen target case");
		return -1;
	}
	s->in = tc_xcalloc(s->n, sizeof(*s->in));
	for (i = 0; i < s->n; i++) {
		if (candidate_durations(&s->cands[i], br, s->ids, err) != 0)
			return -1;
		s->in[i].id = s->cands[i].id;
		s->in[i].evaluation_order = s->cands[i].order;
		s->in[i].rankable = s->cands[i].rankable;
		s->in[i].durations = s->cands[i].durations;
	}
	memset(&s->rule, 0, sizeof(s->rule));
	s->rule.n_cases = br->n;
	s->rule.case_ids = (const char *const *)s->ids;
	s->rule.baseline = s->cands[s->base].durations;
	s->rule.target = s->tmask;
	s->rule.weights = weighted ? s->w : NULL;
	s->rule.relative = strcmp(s->kind, "relative") == 0;
	s->rule.stability_value = s->value;
	return 0;
}

/*
 * The noise rule, beyond the reference's tie rule: under a frozen contract
 * a candidate other than the frozen baseline is ranked only when it was
 * measured against the baseline in an interleaved compare (pypto compare
 * --interleaved) and every such compare says faster (the target cases'
 * 95 % interval lies above 1).  Two separate rounds cannot tell a change
 * from the machine's drift; a difference inside the noise never selects.
 * noise[i] tells each candidate's standing.
 */
static int
noise_rule(const char *op_dir, struct selection *s, tc_json **noise,
    tc_error *err)
{
	const char *bsha = tc_json_get_string(s->cands[s->base].round.collection,
	    "executable_sha256");
	tc_json *recs = tc_pypto_ab_find(op_dir, bsha, NULL, err);
	size_t i, k;

	if (recs == NULL) {
		tc_error_prefix(err, "interleaved compares: ");
		return -1;
	}
	*noise = tc_json_new_array();
	for (i = 0; i < s->n; i++) {
		const char *sha = tc_json_get_string(s->cands[i].round.collection,
		    "executable_sha256");
		tc_json *row = tc_json_new_object(), *paths = tc_json_new_array();
		const tc_json *last = NULL;
		const char *status = "not_measured";

		for (k = 0; i != s->base && k < recs->u.arr.len; k++) {
			const tc_json *r = recs->u.arr.items[k];
			const char *ch = tc_json_get_string(tc_json_get(r,
			    "aggregate"), "change");

			if (sha == NULL || strcmp(tc_json_get_string_or(
			    tc_json_get(r, "final"), "sha256", ""), sha) != 0)
				continue;
			tc_json_array_push(paths, tc_pj_clone(tc_json_get(r,
			    "path")));
			last = tc_json_get(r, "aggregate");
			if (strcmp(status, "not_measured") == 0 ||
			    strcmp(status, "faster") == 0 ||
			    (ch != NULL && strcmp(ch, "slower") == 0))
				status = ch != NULL ? ch : "no_change";
		}
		if (i == s->base)
			status = "baseline";
		else if (strcmp(status, "faster") != 0)
			s->in[i].rankable = false;
		tc_json_object_set_string(row, "status", status);
		tc_json_object_set(row, "interleaved", paths);
		tc_json_object_set(row, "median_ratio", last != NULL ?
		    tc_pj_clone(tc_json_get(last, "median_ratio")) :
		    tc_json_new_null());
		tc_json_object_set(row, "ci95", last != NULL ?
		    tc_pj_clone(tc_json_get(last, "ci95")) : tc_json_new_null());
		tc_json_array_push(*noise, row);
	}
	tc_json_free(recs);
	return 0;
}

/* What the ranking does not know: each row's evidence and round, the
 * selected version's round and executable, the rule it was chosen by. */
static void
annotate(tc_json *out, const struct selection *s, const tc_json *contract,
    const tc_json *noise)
{
	static const char *const copied[] = { "source_items", "correct",
	    "compliant", "correctness_evidence", "compliance_evidence",
	    "round", "note", NULL };
	tc_json *rows = tc_json_get(out, "candidates"), *sr, *stab;
	const struct cand *cands = s->cands;
	size_t i, k;

	for (i = 0; i < s->n; i++) {
		tc_json *row = rows->u.arr.items[i];

		for (k = 0; copied[k] != NULL; k++)
			if (tc_json_get(cands[i].doc, copied[k]) != NULL)
				tc_json_object_set(row, copied[k], tc_json_clone(
				    tc_json_get(cands[i].doc, copied[k])));
		tc_json_object_set(row, "collection_id", tc_json_clone(
		    tc_json_get(cands[i].round.collection, "collection_id")));
		tc_json_object_set(row, "executable_sha256", tc_json_clone(
		    tc_json_get(cands[i].round.collection, "executable_sha256")));
		tc_json_object_set_string(row, "round_path", cands[i].round.path);
		if (!cands[i].rankable)
			tc_json_object_set_string(row, "not_rankable_reason",
			    "not correct and compliant: recorded, never ranked");
		else if (!s->in[i].rankable)
			tc_json_object_set_string(row, "not_rankable_reason",
			    "no interleaved compare shows it faster than the frozen "
			    "baseline beyond the noise: recorded, never ranked");
		if (noise != NULL)
			tc_json_object_set(row, "noise", tc_json_clone(
			    noise->u.arr.items[i]));
	}
	for (i = 0; i < s->n; i++)
		if (strcmp(cands[i].id, tc_json_get_string(tc_json_get(out,
		    "selected"), "candidate_id")) == 0) {
			sr = tc_json_get(out, "selected");
			tc_json_object_set(sr, "round", tc_json_clone(
			    tc_json_get(cands[i].doc, "round")));
			tc_json_object_set(sr, "executable_sha256", tc_json_clone(
			    tc_json_get(cands[i].round.collection,
			    "executable_sha256")));
		}
	tc_json_object_set(out, "optimization_target", tc_json_clone(s->target));
	tc_json_object_set_string(out, "aggregate_metric",
	    tc_json_is(s->weights, TC_JSON_OBJECT) ?
	    "weighted_mean_case_speedup" : "equal_weight_mean_case_speedup");
	stab = tc_json_new_object();
	tc_json_object_set_string(stab, "kind", s->kind);
	tc_json_object_set_string(stab, "value", s->value);
	tc_json_object_set(out, "stability_range", stab);
	tc_json_object_set_string(out, "tie_rule", "anchor A = raw highest "
	    "score; S = {A} + candidates within the stability range of A "
	    "(judged against A only); select the smallest "
	    "evaluation_order in S");
	tc_json_object_set_string(out, "baseline_candidate", cands[s->base].id);
	tc_json_object_set_string(out, "noise_rule", noise != NULL ?
	    "a candidate other than the frozen baseline is ranked only when "
	    "every interleaved compare of it against the baseline says faster "
	    "(the target cases' 95% interval of the median ratio above 1)" :
	    "none (no frozen contract)");
	tc_json_object_set_bool(out, "frozen_contract", contract != NULL);
}

tc_json *
tc_pypto_select(const tc_pypto_select_opts *o, tc_error *err)
{
	tc_json *contract = NULL, *doc = NULL, *out = NULL, *noise = NULL;
	tc_pypto_manifest m;
	struct selection s;
	char *op_dir;

	memset(&m, 0, sizeof(m));
	memset(&s, 0, sizeof(s));
	if ((op_dir = tc_pypto_op_dir_resolve(o->op_dir, err)) == NULL)
		return NULL;
	if (tc_pypto_contract_load(op_dir, &contract, err) < 0 ||
	    stability_range(o, contract, &s.kind, &s.value, err) != 0)
		goto out;
	if (contract != NULL) {
		s.target = tc_json_get(contract, "optimization_target");
	} else {
		if (tc_pypto_manifest_load(o->manifest_path, &m, err) != 0 ||
		    tc_pypto_manifest_check_target(&m, err) != 0)
			goto out;
		s.target = tc_json_get(m.doc, "optimization_target");
	}
	s.weights = tc_json_get(tc_json_get(contract, "selection"), "weights");
	if (load_candidates(o->candidates_path, &s.cands, &s.n, &doc,
	    err) != 0 || check_candidates(op_dir, contract, &s, err) != 0 ||
	    build_rule(&s, err) != 0)
		goto out;
	if (contract != NULL && noise_rule(op_dir, &s, &noise, err) != 0)
		goto out;
	if ((out = tc_pypto_rank(&s.rule, s.in, s.n, err)) == NULL)
		goto out;
	annotate(out, &s, contract, noise);
out:
	tc_json_free(noise);
	free(s.in);
	free(s.tmask);
	free(s.w);
	free(s.ids);
	free_cands(s.cands, s.n);
	tc_json_free(doc);
	tc_json_free(contract);
	tc_pypto_manifest_free(&m);
	free(op_dir);
	return out;
}

/* "faster: 1.2345x [1.1000, 1.3000]", the status alone, or "-". */
static void
noise_cell(tc_buf *b, const tc_json *noise)
{
	const tc_json *ci = tc_json_get(noise, "ci95");
	double m = 0, lo = 0, hi = 0;

	if (noise == NULL) {
		tc_buf_puts(b, "-");
		return;
	}
	tc_buf_puts(b, tc_json_get_string_or(noise, "status", "?"));
	if (!tc_json_number(tc_json_get(noise, "median_ratio"), &m) ||
	    !tc_json_is(ci, TC_JSON_ARRAY) || ci->u.arr.len != 2)
		return;
	(void)tc_json_number(ci->u.arr.items[0], &lo);
	(void)tc_json_number(ci->u.arr.items[1], &hi);
	tc_buf_puts(b, ": ");
	tc_py_fixed(b, m, 4);
	tc_buf_puts(b, "x [");
	tc_py_fixed(b, lo, 4);
	tc_buf_puts(b, ", ");
	tc_py_fixed(b, hi, 4);
	tc_buf_puts(b, "]");
}

char *
tc_pypto_selection_markdown(const tc_json *s)
{
	tc_buf b = TC_BUF_INIT;
	const tc_json *rows = tc_json_get(s, "candidates");
	size_t i, c;

	tc_buf_puts(&b, "| candidate | evaluation_order | source items | correct | "
	    "compliant | collection / round | per-case duration (us) / speedup | "
	    "score | within range of anchor | interleaved vs baseline | "
	    "selected |\n");
	tc_buf_puts(&b, "| --- | --- | --- | --- | --- | --- | --- | --- | --- | "
	    "--- | --- |\n");
	for (i = 0; tc_json_is(rows, TC_JSON_ARRAY) && i < rows->u.arr.len; i++) {
		const tc_json *r = rows->u.arr.items[i];
		const tc_json *pc = tc_json_get(r, "per_case");
		const char *id = tc_json_get_string(r, "candidate_id");

		tc_buf_printf(&b, "| %s | ", id);
		tc_json_str(&b, tc_json_get(r, "evaluation_order"));
		tc_buf_puts(&b, " | ");
		tc_pj_pylist(&b, tc_json_get(r, "source_items"));
		tc_buf_printf(&b, " | %s | %s | %s / %s | ",
		    tc_json_is(tc_json_get(r, "correct"), TC_JSON_BOOL) &&
		    tc_json_get(r, "correct")->u.b ? "yes" : "no",
		    tc_json_is(tc_json_get(r, "compliant"), TC_JSON_BOOL) &&
		    tc_json_get(r, "compliant")->u.b ? "yes" : "no",
		    tc_json_get_string(r, "collection_id") != NULL ?
		    tc_json_get_string(r, "collection_id") : "?",
		    tc_json_get_string(r, "round") != NULL ?
		    tc_json_get_string(r, "round") : "?");
		for (c = 0; tc_json_is(pc, TC_JSON_ARRAY) && c < pc->u.arr.len;
		    c++) {
			const tc_json *e = pc->u.arr.items[c];
			double d = 0, sp = 0;

			(void)tc_json_number(tc_json_get(e, "duration_us"), &d);
			(void)tc_json_number(tc_json_get(e, "speedup"), &sp);
			tc_buf_printf(&b, "%s%s%s: ", c > 0 ? "; " : "",
			    tc_json_get_string(e, "case"),
			    tc_json_get(e, "target")->u.b ? "*" : "");
			tc_py_fixed(&b, d, 3);
			tc_buf_puts(&b, " / ");
			tc_py_fixed(&b, sp, 4);
			tc_buf_puts(&b, "x");
		}
		tc_buf_puts(&b, " | ");
		{
			double sc = 0;

			(void)tc_json_number(tc_json_get(r, "score"), &sc);
			tc_py_fixed(&b, sc, 6);
		}
		tc_buf_printf(&b, " | %s | ",
		    tc_json_get(r, "within_stability_range")->u.b ? "yes" : "no");
		noise_cell(&b, tc_json_get(r, "noise"));
		tc_buf_printf(&b, " | %s |\n", strcmp(id, tc_json_get_string(tc_json_get(s, "selected"),
		    "candidate_id")) == 0 ? "**selected**" : "");
	}
	tc_buf_puts(&b, "\n(* = frozen target case; score = mean case speedup "
	    "over the target cases)\n");
	return tc_buf_detach(&b, NULL);
}
