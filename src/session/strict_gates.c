/*
 * strict_gates.c - gate evidence under the strict evidence policy: the
 * gate reports a phase result cites (each computed again from the inputs
 * its provenance record names, so a hand-written or edited report is
 * refused), and what each status claim needs from them:
 *
 * Gate evidence is what a step produced; a report it only consumes was
 * checked when the step that produced it was sealed.
 *
 *   rule 3  S0 succeeded        a stable five-run stability report over a
 *                               run set S0 produced (the frozen S0);
 *   rule 4  Stage A accepted    a screening report against the frozen S0
 *                               that selects the result's
 *                               selected_candidate;
 *   rule 5  Stage O accepted /  a settled winner option matrix, and a
 *           no_gain             passing option trial for each accepted
 *                               option (none accepted for no_gain);
 *   rule 2  a measured Final    a final_e2e that `ledger final-e2e`
 *                               computes again from the frozen S0 and a
 *                               candidate run set the Final names.
 *
 * "The frozen S0" of rules 4 and 2 is S0's run set, or, when the spec's
 * gate.order interleaves, a run set the step produced that runs S0's very
 * command as side A of an interleaved measurement beside the candidate
 * (bench ab's runset.json records the sides): the same baseline, measured
 * again run for run with the candidate.
 */
#include <stdlib.h>
#include <string.h>

#include "session_internal.h"
#include "strict_internal.h"
#include "tunectl/bench.h"
#include "tunectl/evidence.h"
#include "tunectl/fileio.h"
#include "tunectl/ledger.h"
#include "tunectl/path.h"

#define STRICT "strict evidence policy"

/* ---- paths -------------------------------------------------------------- */

char *
tc_strict__root_relative(const tc_session *s, const char *path)
{
	char *root = tc_path_resolve(s->artifact_root, NULL);
	char *abs = root != NULL ? tc_path_resolve(path, NULL) : NULL;
	char *rel = NULL;

	if (abs != NULL && tc_path_is_within(abs, root) && strcmp(abs, root) != 0)
		rel = tc_path_relative_to(abs, root);
	free(abs);
	free(root);
	return rel;
}

static bool
list_names(const tc_json *list, const char *rel)
{
	size_t i, n = strlen(rel);

	for (i = 0; tc_json_is(list, TC_JSON_ARRAY) && i < list->u.arr.len;
	    i++) {
		char *c;
		bool hit;

		if (tc_json_string(list->u.arr.items[i]) == NULL)
			continue;
		c = tc_path_normalize(tc_json_string(list->u.arr.items[i]));
		hit = strcmp(c, rel) == 0 || (strlen(c) < n &&
		    strncmp(rel, c, strlen(c)) == 0 && rel[strlen(c)] == '/');
		free(c);
		if (hit)
			return true;
	}
	return false;
}

bool
tc_strict__names(const tc_json *result, const char *rel, bool produced_only)
{
	return list_names(tc_json_get(result, "produced_artifacts"), rel) ||
	    (!produced_only &&
	    list_names(tc_json_get(result, "consumed_artifacts"), rel));
}

/* ---- loading the cited gate reports ----------------------------------- */

void
tc_strict__gates_free(struct gate_set *set)
{
	size_t i;

	for (i = 0; i < set->len; i++) {
		free(set->items[i].rel);
		free(set->items[i].baseline);
		tc_json_free(set->items[i].report);
	}
	free(set->items);
	memset(set, 0, sizeof(*set));
}

/* Read <root>/<rel> through the root (NULL with err set). */
static tc_json *
read_under_root(const tc_session *s, const char *rel, const char *label,
    tc_error *err)
{
	char *path = tc_path_under_root(s->artifact_root, rel, label, err);
	tc_json *doc;

	if (path == NULL)
		return NULL;
	doc = tc_json_parse_file(path, err);
	free(path);
	return doc;
}

/* One input of a gate: inside the root and named by the result. */
static int
check_input(const tc_session *s, const tc_json *step, const tc_json *result,
    const char *report, const char *input, char **rel_out, tc_error *err)
{
	char *rel;

	if (input == NULL) {
		tc_error_set(err, STRICT ": gate provenance of %s names an input "
		    "that is not a path", report);
		return -1;
	}
	if ((rel = tc_strict__root_relative(s, input)) == NULL) {
		tc_error_set(err, STRICT ": gate report %s reads %s, outside the "
		    "artifact root", report, input);
		return -1;
	}
	if (!tc_strict__names(result, rel, false)) {
		tc_error_set(err, STRICT ": gate report %s reads %s, which %s "
		    "does not name among its artifacts (so it would not be "
		    "bound)", report, rel, tc_step_id(step));
		free(rel);
		return -1;
	}
	if (rel_out != NULL)
		*rel_out = rel;
	else
		free(rel);
	return 0;
}

static int
check_inputs(const tc_session *s, const tc_json *step, const tc_json *result,
    const tc_json *prov, struct gate_report *g, tc_error *err)
{
	static const char *const lists[] = { "candidates", "replay_evidence" };
	const tc_json *matrix = tc_json_get(prov, "screening_matrix");
	size_t i, k;

	if (check_input(s, step, result, g->rel,
	    tc_json_get_string(prov, "baseline"), &g->baseline, err) != 0)
		return -1;
	for (k = 0; k < 2; k++) {
		const tc_json *list = tc_json_get(prov, lists[k]);

		for (i = 0; tc_json_is(list, TC_JSON_ARRAY) &&
		    i < list->u.arr.len; i++)
			if (check_input(s, step, result, g->rel,
			    tc_json_get_string(list->u.arr.items[i], "path"), NULL,
			    err) != 0)
				return -1;
	}
	if (tc_json_string(matrix) != NULL &&
	    check_input(s, step, result, g->rel, tc_json_string(matrix), NULL,
	    err) != 0)
		return -1;
	return 0;
}

static enum gate_kind
kind_of(const tc_json *prov)
{
	const tc_json *cands = tc_json_get(prov, "candidates");

	if (tc_json_truthy(tc_json_get(prov, "selection_only")))
		return GATE_SCREENING;
	if (tc_json_truthy(tc_json_get(prov, "option_trial")))
		return GATE_OPTION_TRIAL;
	if (tc_json_is(cands, TC_JSON_ARRAY) && cands->u.arr.len == 0)
		return GATE_STABILITY;
	return GATE_PROMOTION;
}

/* The cited path rel is a gate report: recompute it and compare bytes. */
static int
load_one(const tc_session *s, const tc_json *step, const tc_json *result,
    const char *rel, tc_json *prov, struct gate_set *set, tc_error *err)
{
	tc_buf want = TC_BUF_INIT;
	struct gate_report g = { NULL, NULL, GATE_STABILITY, NULL };
	char *path, *have = NULL;
	size_t have_len = 0;
	int rc = -1;

	g.rel = tc_xstrdup(rel);
	/* The inputs first: a record naming files outside the root is not
	 * even read. */
	if (check_inputs(s, step, result, prov, &g, err) != 0)
		goto out;
	if (tc_analyze_recompute(prov, &want, err) != 0) {
		tc_error_prefix(err, STRICT ": gate report %s cannot be computed "
		    "again from %s%s: ", rel, rel, TC_PROVENANCE_SUFFIX);
		goto out;
	}
	if ((path = tc_path_under_root(s->artifact_root, rel, "gate report",
	    err)) == NULL)
		goto out;
	have = tc_read_file(path, 0, &have_len, err);
	free(path);
	if (have == NULL)
		goto out;
	if (have_len != want.len || memcmp(have, want.data, want.len) != 0) {
		tc_error_set(err, STRICT ": gate report %s is not what tunectl "
		    "gate computes from the inputs %s%s names", rel, rel,
		    TC_PROVENANCE_SUFFIX);
		goto out;
	}
	g.kind = kind_of(prov);
	g.report = tc_json_parse(have, have_len, err);
	if (g.report == NULL)
		goto out;
	set->items = tc_xrealloc(set->items, (set->len + 1) * sizeof(g));
	set->items[set->len++] = g;
	memset(&g, 0, sizeof(g));
	rc = 0;
out:
	free(g.rel);
	free(g.baseline);
	tc_json_free(g.report);
	free(have);
	tc_buf_free(&want);
	return rc;
}

static int
load_list(const tc_session *s, const tc_json *step, const tc_json *result,
    const tc_json *list, struct gate_set *set, tc_error *err)
{
	size_t i;

	for (i = 0; tc_json_is(list, TC_JSON_ARRAY) && i < list->u.arr.len;
	    i++) {
		const char *rel = tc_json_string(list->u.arr.items[i]);
		char *prov_rel, *prov_path;
		tc_json *prov;
		bool present;
		int rc;

		if (rel == NULL)
			continue;
		prov_rel = tc_xasprintf("%s%s", rel, TC_PROVENANCE_SUFFIX);
		prov_path = tc_session_artifact_path(s, prov_rel);
		present = tc_path_exists(prov_path);
		free(prov_path);
		if (!present) {
			free(prov_rel);
			continue;
		}
		prov = read_under_root(s, prov_rel, "gate provenance", err);
		free(prov_rel);
		if (prov == NULL) {
			tc_error_prefix(err, STRICT ": %s%s cannot be read: ", rel,
			    TC_PROVENANCE_SUFFIX);
			return -1;
		}
		/* The ledger's record is the Final's concern. */
		if (sess_str_is(tc_json_get(prov, "command"), "ledger final-e2e"))
			rc = 0;
		else
			rc = load_one(s, step, result, rel, prov, set, err);
		tc_json_free(prov);
		if (rc != 0)
			return -1;
	}
	return 0;
}

int
tc_strict__gates_load(const tc_session *s, const tc_json *step,
    const tc_json *result, struct gate_set *set, tc_error *err)
{
	/* Only what the step produced: a report it merely consumes was
	 * checked, and its inputs bound, by the step that produced it. */
	memset(set, 0, sizeof(*set));
	if (load_list(s, step, result, tc_json_get(result, "produced_artifacts"),
	    set, err) != 0) {
		tc_strict__gates_free(set);
		return -1;
	}
	return 0;
}

/* ---- looking into reports ---------------------------------------------- */

static const tc_json *
at(const tc_json *v, const char *a, const char *b)
{
	return tc_json_get(tc_json_get(v, a), b);
}

static bool
truthy_at(const tc_json *v, const char *a, const char *b)
{
	const tc_json *x = at(v, a, b);

	return tc_json_is(x, TC_JSON_BOOL) && x->u.b;
}

tc_json *
tc_strict__sealed_result(const tc_session *s, const char *step_id)
{
	const tc_json *step = tc_session_find_step(s, step_id, NULL);
	const char *rel;

	if (step == NULL || !tc_step_is_sealed(step) ||
	    (rel = tc_json_get_string(step, "result_path")) == NULL)
		return NULL;
	return read_under_root(s, rel, "result_path", NULL);
}

/* The stable stability report of the S0 gate set over a run set S0
 * produced, or NULL. */
static const struct gate_report *
stable_report(const tc_json *result, const struct gate_set *g)
{
	size_t i;

	for (i = 0; i < g->len; i++)
		if (g->items[i].kind == GATE_STABILITY &&
		    truthy_at(g->items[i].report, "baseline_stability",
		    "stable") &&
		    tc_strict__names(result, g->items[i].baseline, true))
			return &g->items[i];
	return NULL;
}

char *
tc_strict__frozen_s0(const tc_session *s, tc_error *err)
{
	const tc_json *step = tc_session_find_step(s, "s0-baseline", NULL);
	tc_json *result = NULL;
	struct gate_set g = { NULL, 0 };
	const struct gate_report *st;
	char *rel = NULL;

	if (step == NULL || !sess_str_is(tc_json_get(step, "outcome_status"),
	    "succeeded") || (result = tc_strict__sealed_result(s,
	    "s0-baseline")) == NULL) {
		tc_error_set(err, STRICT ": there is no frozen S0: s0-baseline "
		    "did not succeed");
		return NULL;
	}
	if (tc_strict__gates_load(s, step, result, &g, err) == 0) {
		if ((st = stable_report(result, &g)) != NULL)
			rel = tc_xstrdup(st->baseline);
		else
			tc_error_set(err, STRICT ": s0-baseline has no stable "
			    "stability report");
	}
	tc_strict__gates_free(&g);
	tc_json_free(result);
	return rel;
}

/* ---- rule 3: S0 --------------------------------------------------------- */

int
tc_strict__check_s0(const tc_session *s, const tc_json *step,
    const tc_json *result, const struct gate_set *g, tc_error *err)
{
	const struct gate_report *unstable = NULL;
	size_t i;

	(void)s;
	if (!sess_str_is(tc_json_get(result, "status"), "succeeded"))
		return 0;
	if (stable_report(result, g) != NULL)
		return 0;
	for (i = 0; i < g->len && unstable == NULL; i++)
		if (g->items[i].kind == GATE_STABILITY)
			unstable = &g->items[i];
	if (unstable != NULL && !truthy_at(unstable->report,
	    "baseline_stability", "stable")) {
		double spread = 0.0, limit = TC_S0_MAX_SPREAD_PCT;

		(void)tc_json_number(at(unstable->report, "baseline_stability",
		    "spread_pct"), &spread);
		(void)tc_json_number(at(unstable->report, "baseline_stability",
		    "max_spread_pct"), &limit);
		tc_error_set(err, STRICT ", rule 3: %s succeeded, but its "
		    "stability report %s is not stable (run count %s, spread "
		    "%.3f%%, at most 5 runs within %g%%)", tc_step_id(step),
		    unstable->rel, tc_json_is(at(unstable->report, "baseline",
		    "run_count"), TC_JSON_INT) ? at(unstable->report, "baseline",
		    "run_count")->u.int_text : "?", spread, limit);
		return -1;
	}
	if (unstable != NULL) {
		tc_error_set(err, STRICT ", rule 3: %s succeeded, but the run set "
		    "of its stability report %s (%s) is not one it produced",
		    tc_step_id(step), unstable->rel, unstable->baseline);
		return -1;
	}
	tc_error_set(err, STRICT ", rule 3: %s succeeded needs a stable "
	    "five-run stability report written by tunectl gate (with its %s "
	    "record) among its artifacts; it names none", tc_step_id(step),
	    TC_PROVENANCE_SUFFIX);
	return -1;
}

/* ---- the frozen S0, or S0 measured again beside a candidate ------------- */

/* Whether interleaved side `side` (a path as bench ab recorded it) is the
 * root-relative run set rel. */
static bool
side_is(const tc_session *s, const char *side, const char *rel)
{
	char *r = tc_strict__root_relative(s, side);
	size_t n = strlen(side), m = strlen(rel);
	bool hit = r != NULL && strcmp(r, rel) == 0;

	free(r);
	/* a session moved since: the recorded path still ends in rel */
	return hit || (n > m && side[n - m - 1] == '/' &&
	    strcmp(side + n - m, rel) == 0);
}

/* Whether the comparison's baseline run set base (root-relative) stands
 * for the frozen S0: it is S0, or (gate.order interleaved) a run set the
 * step produced that ran S0's very command (its configuration, from the
 * same build) as side A of an interleaved measurement, with cand (NULL:
 * any candidate) among its other sides. */
static bool
s0_or_remeasured(const tc_session *s, const tc_json *result,
    const char *base, const char *frozen, const char *cand)
{
	char *brel, *frel;
	tc_json *b = NULL, *f = NULL;
	const tc_json *il, *sides;
	bool ok = false;

	if (strcmp(base, frozen) == 0)
		return true;
	if (!tc_strict__names(result, base, true))
		return false;
	brel = tc_xasprintf("%s/runset.json", base);
	frel = tc_xasprintf("%s/runset.json", frozen);
	if ((b = read_under_root(s, brel, "run set", NULL)) == NULL ||
	    (f = read_under_root(s, frel, "run set", NULL)) == NULL)
		goto out;
	il = tc_json_get(b, "interleaved");
	sides = tc_json_get(il, "sides");
	if (!sess_str_is(tc_json_get(il, "role"), "A") ||
	    !tc_json_is(sides, TC_JSON_ARRAY) ||
	    tc_json_get(b, "command") == NULL ||
	    !tc_json_equal(tc_json_get(b, "command"),
	    tc_json_get(f, "command")))
		goto out;
	if (cand == NULL) {
		ok = true;
		goto out;
	}
	for (size_t i = 1; i < sides->u.arr.len && !ok; i++)
		ok = tc_json_string(sides->u.arr.items[i]) != NULL &&
		    side_is(s, tc_json_string(sides->u.arr.items[i]), cand);
out:
	tc_json_free(b);
	tc_json_free(f);
	free(brel);
	free(frel);
	return ok;
}

/* ---- rule 4: Stage A ---------------------------------------------------- */

int
tc_strict__check_stage_a(const tc_session *s, const tc_json *step,
    const tc_json *result, const struct gate_set *g, tc_error *err)
{
	const char *seed = tc_json_get_string(result, "selected_candidate");
	char *frozen;
	size_t i;
	int rc = -1;

	if (!sess_str_is(tc_json_get(result, "status"), "accepted"))
		return 0;
	if (seed == NULL) {
		tc_error_set(err, STRICT ", rule 4: %s accepted must name its "
		    "Sbest-SEED in \"selected_candidate\"", tc_step_id(step));
		return -1;
	}
	if ((frozen = tc_strict__frozen_s0(s, err)) == NULL)
		return -1;
	for (i = 0; i < g->len; i++) {
		const struct gate_report *r = &g->items[i];

		if (r->kind != GATE_SCREENING ||
		    !sess_str_is(at(r->report, "selection",
		    "selected_for_deep_analysis"), seed))
			continue;
		if (!s0_or_remeasured(s, result, r->baseline, frozen, NULL)) {
			tc_error_set(err, STRICT ", rule 4: screening report %s "
			    "compares against %s, not the frozen S0 %s", r->rel,
			    r->baseline, frozen);
			goto out;
		}
		if (!truthy_at(r->report, "screening_matrix",
		    "settlement_complete")) {
			tc_error_set(err, STRICT ", rule 4: screening report %s "
			    "selects %s from a matrix that is not settled", r->rel,
			    seed);
			goto out;
		}
		rc = 0;
		goto out;
	}
	tc_error_set(err, STRICT ", rule 4: %s accepted %s, but no screening "
	    "report written by tunectl gate among its artifacts selects it",
	    tc_step_id(step), seed);
out:
	free(frozen);
	return rc;
}

/* ---- rule 5: Stage O ---------------------------------------------------- */

/* A passing option trial for option id among the gate reports? */
static bool
trial_passed(const struct gate_set *g, const char *id)
{
	size_t i;

	for (i = 0; i < g->len; i++) {
		const tc_json *c = tc_json_get(tc_json_get(g->items[i].report,
		    "candidates"), id);

		if (g->items[i].kind == GATE_OPTION_TRIAL &&
		    truthy_at(c, "option_trial_evaluation", "accepted"))
			return true;
	}
	return false;
}

/* The settled option matrices the result names: their validation
 * objects, with the matrix path in "path". */
static tc_json *
settled_matrices(const tc_session *s, const tc_json *result)
{
	const tc_json *lists[2] = {
		tc_json_get(result, "consumed_artifacts"),
		tc_json_get(result, "produced_artifacts")
	};
	tc_json *found = tc_json_new_array();
	size_t k, i;

	for (k = 0; k < 2; k++) {
		for (i = 0; tc_json_is(lists[k], TC_JSON_ARRAY) &&
		    i < lists[k]->u.arr.len; i++) {
			const char *rel = tc_json_string(lists[k]->u.arr.items[i]);
			tc_json *doc, *v;

			if (rel == NULL || (doc = read_under_root(s, rel, "matrix",
			    NULL)) == NULL)
				continue;
			v = sess_str_is(tc_json_get(doc, "schema_version"),
			    "superkernel-winner-option-matrix-v1") ?
			    tc_option_matrix_validate(doc, NULL) : NULL;
			tc_json_free(doc);
			if (v != NULL && tc_json_truthy(tc_json_get(v, "valid")) &&
			    tc_json_truthy(tc_json_get(v, "settled"))) {
				tc_json_object_set_string(v, "path", rel);
				tc_json_array_push(found, v);
			} else {
				tc_json_free(v);
			}
		}
	}
	return found;
}

int
tc_strict__check_stage_o(const tc_session *s, const tc_json *step,
    const tc_json *result, const struct gate_set *g, tc_error *err)
{
	bool accepted = sess_str_is(tc_json_get(result, "status"), "accepted");
	tc_json *found;
	size_t i, k;
	int rc = -1;

	if (!accepted && !sess_str_is(tc_json_get(result, "status"), "no_gain"))
		return 0;
	found = settled_matrices(s, result);
	if (found->u.arr.len == 0) {
		tc_error_set(err, STRICT ", rule 5: %s %s needs a settled winner "
		    "option matrix (every item accepted, rejected, failed, "
		    "blocked or skipped) among its artifacts; it names none",
		    tc_step_id(step), accepted ? "accepted" : "no_gain");
		goto out;
	}
	for (i = 0; i < found->u.arr.len; i++) {
		const tc_json *v = found->u.arr.items[i];
		const tc_json *items = tc_json_get(v, "accepted_items");
		const char *path = tc_json_get_string(v, "path");
		size_t n = tc_json_is(items, TC_JSON_ARRAY) ? items->u.arr.len : 0;

		if (accepted && n == 0) {
			tc_error_set(err, STRICT ", rule 5: %s accepted, but its "
			    "settled matrix %s accepts no option", tc_step_id(step),
			    path);
			goto out;
		}
		if (!accepted && n > 0) {
			tc_error_set(err, STRICT ", rule 5: %s no_gain, but its "
			    "settled matrix %s accepts %s", tc_step_id(step), path,
			    tc_json_string(items->u.arr.items[0]));
			goto out;
		}
		for (k = 0; k < n; k++) {
			const char *id = tc_json_string(items->u.arr.items[k]);

			if (id != NULL && trial_passed(g, id))
				continue;
			tc_error_set(err, STRICT ", rule 5: option %s is accepted "
			    "in %s, but no passing option-trial report written by "
			    "tunectl gate among the artifacts of %s names it",
			    id != NULL ? id : "?", path, tc_step_id(step));
			goto out;
		}
	}
	rc = 0;
out:
	tc_json_free(found);
	return rc;
}

/* ---- rule 2: the measured Final ----------------------------------------- */

int
tc_strict__check_final(const tc_session *s, const tc_json *step,
    const tc_json *result, tc_error *err)
{
	const char *ledger_rel = tc_json_get_string(result, "ledger_path");
	const char *status = tc_json_get_string(result, "status");
	tc_json *ledger = NULL, *prov = NULL;
	char *prov_rel = NULL, *frozen = NULL, *base = NULL, *cand = NULL;
	int rc = -1;

	if (status == NULL || (strcmp(status, "accepted") != 0 &&
	    strcmp(status, "no_gain") != 0))
		return 0;
	if (ledger_rel == NULL)
		return 0;	/* the reference's checks refuse it first */
	prov_rel = tc_xasprintf("%s%s", ledger_rel, TC_PROVENANCE_SUFFIX);
	if ((prov = read_under_root(s, prov_rel, "final_e2e provenance",
	    err)) == NULL) {
		tc_error_prefix(err, STRICT ", rule 2: a measured Final needs a "
		    "final_e2e written by tunectl ledger final-e2e, with its "
		    "record %s: ", prov_rel);
		goto out;
	}
	if ((ledger = read_under_root(s, ledger_rel, "ledger_path",
	    err)) == NULL)
		goto out;
	if ((frozen = tc_strict__frozen_s0(s, err)) == NULL)
		goto out;
	/* Where the run sets are, before anything reads them. */
	if (tc_json_get_string(prov, "baseline") != NULL)
		base = tc_strict__root_relative(s, tc_json_get_string(prov,
		    "baseline"));
	if (tc_json_get_string(prov, "candidate") != NULL)
		cand = tc_strict__root_relative(s, tc_json_get_string(prov,
		    "candidate"));
	if (base == NULL || !s0_or_remeasured(s, result, base, frozen,
	    cand != NULL ? cand : "")) {
		tc_error_set(err, STRICT ", rule 2: final_e2e of %s compares "
		    "against %s, not the frozen S0 %s", ledger_rel,
		    base != NULL ? base : "a run set outside the artifact root",
		    frozen);
		goto out;
	}
	if (cand == NULL || !tc_strict__names(result, cand, false)) {
		tc_error_set(err, STRICT ", rule 2: the candidate run set of "
		    "final_e2e (%s) is not among the artifacts of %s",
		    cand != NULL ? cand : "outside the artifact root",
		    tc_step_id(step));
		goto out;
	}
	if (tc_final_e2e_recheck(prov, tc_json_get(ledger, "final_e2e"),
	    err) != 0) {
		tc_error_prefix(err, STRICT ", rule 2: %s (%s): ", ledger_rel,
		    prov_rel);
		goto out;
	}
	rc = 0;
out:
	free(prov_rel);
	free(frozen);
	free(base);
	free(cand);
	tc_json_free(prov);
	tc_json_free(ledger);
	return rc;
}
