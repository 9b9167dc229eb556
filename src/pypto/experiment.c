/*
 * experiment.c - the Stage 5 experiment loop per item
 * (docs/spec/pypto.md "Experiment loop"), recorded in the item ledger:
 *
 *   start        one registered item (or several a single change serves),
 *                one main hypothesis, exactly one change, the metric and
 *                risk; the current runner is copied as the restore point
 *   correctness  the full final test on the candidate, now
 *   quick        a quick screening compare (never a formal result)
 *   formal       a formal compare; the candidate joins the candidate table
 *                (docs/perf/candidates.json) with the next evaluation_order
 *   accept       the item(s) close as accepted (kb_selected: implemented)
 *                with the formal round as evidence
 *   restore      the restore point's bytes back into test_<op>.py
 *   reject       the item(s) close as rejected with a reason; the code must
 *                be back at the restore point's digest first
 *   baseline     the frozen baseline round as candidate 0
 *
 * An experiment that carries more than one change is refused: one change
 * per experiment, so every measured difference has one cause.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pypto_internal.h"
#include "tunectl/fileio.h"
#include "tunectl/path.h"
#include "tunectl/pypto_cases.h"
#include "tunectl/pypto_compare.h"
#include "tunectl/pypto_items.h"
#include "tunectl/pypto_stage5.h"
#include "tunectl/sha256.h"

#define CANDIDATES_DEFAULT	"docs/perf/candidates.json"

static bool
blank(const char *s)
{
	return s == NULL || tc_js_is_blank(s);
}

static const tc_json *
last_step(const tc_json *exp, const char *kind, const char *sha)
{
	const tc_json *steps = tc_json_get(exp, "steps");
	size_t i;

	for (i = tc_json_is(steps, TC_JSON_ARRAY) ? steps->u.arr.len : 0; i > 0;
	    i--) {
		const tc_json *s = steps->u.arr.items[i - 1];
		const char *k = tc_json_get_string(s, "kind");
		const char *c = tc_json_get_string(s, "candidate_sha256");

		if (k != NULL && strcmp(k, kind) == 0 &&
		    (sha == NULL || (c != NULL && strcmp(c, sha) == 0)))
			return s;
	}
	return NULL;
}

/* An experiment carries exactly one change, and names it. */
static void
check_change(const tc_json *e, const char *id, tc_json *errors)
{
	const tc_json *change = tc_json_get(e, "change");
	const tc_json *changes = tc_json_get(e, "changes");

	if (tc_json_is(changes, TC_JSON_ARRAY) && changes->u.arr.len > 1)
		tc_pj_push_fmt(errors, "experiment %s carries %zu changes; an "
		    "experiment carries exactly one change", id,
		    changes->u.arr.len);
	else if (!tc_json_is(change, TC_JSON_OBJECT) ||
	    blank(tc_json_get_string(change, "summary")))
		tc_pj_push_fmt(errors, "experiment %s names no change (change."
		    "summary)", id);
}

/* An experiment that is not open is closed with a decision: a rejected
 * one says why and is back at its restore point, an accepted one has a
 * formal compare of its candidate. */
static void
check_closed(const tc_json *e, const char *id, const char *status,
    const char *restore, tc_json *errors)
{
	const char *decision = tc_json_get_string(e, "decision");

	if (status == NULL || strcmp(status, "closed") != 0 ||
	    decision == NULL) {
		tc_pj_push_fmt(errors, "experiment %s must be open, or closed with a "
		    "decision", id);
	} else if (strcmp(decision, "rejected") == 0) {
		const char *back = tc_json_get_string(e, "restored_sha256");

		if (blank(tc_json_get_string(e, "reason")))
			tc_pj_push_fmt(errors, "rejected experiment %s records no "
			    "reason", id);
		if (back == NULL || restore == NULL ||
		    strcmp(back, restore) != 0)
			tc_pj_push_fmt(errors, "rejected experiment %s was not restored "
			    "to its restore point", id);
	} else if (strcmp(decision, "accepted") == 0) {
		if (last_step(e, "formal", tc_json_get_string(e,
		    "candidate_sha256")) == NULL)
			tc_pj_push_fmt(errors, "accepted experiment %s has no formal "
			    "compare of its candidate", id);
	} else {
		tc_pj_push_fmt(errors, "experiment %s: decision must be accepted or "
		    "rejected", id);
	}
}

void
tc_pypto_experiments_validate(const tc_json *l, tc_json *errors)
{
	const tc_json *exps = tc_json_get(l, "experiments");
	size_t i, open = 0;

	if (exps == NULL)
		return;
	if (!tc_json_is(exps, TC_JSON_ARRAY)) {
		tc_pj_push_fmt(errors, "experiments must be a list");
		return;
	}
	for (i = 0; i < exps->u.arr.len; i++) {
		const tc_json *e = exps->u.arr.items[i];
		const char *id = tc_json_get_string(e, "experiment_id");
		const tc_json *items = tc_json_get(e, "item_ids");
		const char *status = tc_json_get_string(e, "status");
		const char *restore = tc_json_get_string(tc_json_get(e,
		    "restore_point"), "sha256");

		if (id == NULL) {
			tc_pj_push_fmt(errors, "experiments[%zu] has no experiment_id", i);
			continue;
		}
		check_change(e, id, errors);
		if (!tc_json_is(items, TC_JSON_ARRAY) || items->u.arr.len == 0)
			tc_pj_push_fmt(errors, "experiment %s serves no item", id);
		if (blank(tc_json_get_string(e, "hypothesis")))
			tc_pj_push_fmt(errors, "experiment %s has no main hypothesis", id);
		if (restore == NULL)
			tc_pj_push_fmt(errors, "experiment %s has no restore point", id);
		if (status != NULL && strcmp(status, "open") == 0)
			open++;
		else
			check_closed(e, id, status, restore, errors);
	}
	if (open > 1)
		tc_pj_push_fmt(errors, "%zu experiments are open at once; one at a time",
		    open);
}

/* ---- the commands ------------------------------------------------------------------- */

struct ctx {
	const tc_pypto_experiment_opts *o;
	const char *verb;
	char *op_dir;
	char *runner;
	char sha[TC_SHA256_HEX_LEN + 1];
	tc_json *out;
};

static tc_json *
experiments(tc_json *l)
{
	tc_json *e = tc_json_get(l, "experiments");

	if (!tc_json_is(e, TC_JSON_ARRAY)) {
		e = tc_json_new_array();
		tc_json_object_set(l, "experiments", e);
	}
	return e;
}

static tc_json *
open_experiment(tc_json *l, tc_error *err)
{
	tc_json *exps = experiments(l);
	size_t i;

	for (i = 0; i < exps->u.arr.len; i++) {
		const char *st = tc_json_get_string(exps->u.arr.items[i], "status");

		if (st != NULL && strcmp(st, "open") == 0)
			return exps->u.arr.items[i];
	}
	tc_error_set(err, "no experiment is open (pypto experiment start)");
	return NULL;
}

static void
step(tc_json *exp, tc_json *s, const char *kind, const char *now,
    const char *sha)
{
	tc_json_object_set_string(s, "kind", kind);
	tc_json_object_set_string(s, "at", now);
	tc_json_object_set_string(s, "candidate_sha256", sha);
	tc_json_array_push(tc_json_get(exp, "steps"), s);
}

static int
do_start(tc_json *l, struct ctx *c, const char *now, tc_error *err)
{
	const tc_pypto_experiment_opts *o = c->o;
	tc_json *exps = experiments(l), *e, *ids, *ch, *rp;
	char *rel = NULL, *path = NULL, *data = NULL;
	size_t i, len;
	int rc = -1;

	if (o->n_changes != 1) {
		tc_error_set(err, "an experiment carries exactly one change (got "
		    "%zu): register one experiment per change", o->n_changes);
		return -1;
	}
	if (blank(o->changes[0]) || blank(o->hypothesis)) {
		tc_error_set(err, "an experiment states its one main hypothesis "
		    "(--hypothesis) and its change (--change)");
		return -1;
	}
	if (o->n_items == 0) {
		tc_error_set(err, "an experiment serves a registered item (--item); "
		    "no anonymous experiments");
		return -1;
	}
	for (i = 0; i < exps->u.arr.len; i++)
		if (strcmp(tc_json_get_string(exps->u.arr.items[i], "status"),
		    "open") == 0) {
			tc_error_set(err, "experiment %s is still open: accept or "
			    "reject it first", tc_json_get_string(
			    exps->u.arr.items[i], "experiment_id"));
			return -1;
		}
	for (i = 0; i < o->n_items; i++) {
		const tc_json *it = tc_pypto__ledger_item(l, o->item_ids[i]);
		const char *st = tc_json_get_string(it, "status");

		if (it == NULL) {
			tc_error_set(err, "no item %s in the ledger: register it "
			    "(items add) before the experiment", o->item_ids[i]);
			return -1;
		}
		if (st == NULL || (strcmp(st, "pending") != 0 &&
		    strcmp(st, "unknown") != 0 && strcmp(st, "enabler") != 0)) {
			tc_error_set(err, "item %s is %s: only an open item "
			    "(pending, unknown, enabler) gets an experiment",
			    o->item_ids[i], st != NULL ? st : "?");
			return -1;
		}
	}
	e = tc_json_new_object();
	tc_json_object_set_string(e, "experiment_id", "");
	{
		char id[32];

		snprintf(id, sizeof(id), "exp-%03zu", exps->u.arr.len + 1);
		tc_json_object_set_string(e, "experiment_id", id);
		rel = tc_xasprintf("docs/perf/experiments/%s/restore/%s", id,
		    tc_path_basename(c->runner));
	}
	ids = tc_json_new_array();
	for (i = 0; i < o->n_items; i++)
		tc_json_array_push(ids, tc_json_new_string(o->item_ids[i]));
	tc_json_object_set(e, "item_ids", ids);
	tc_json_object_set_string(e, "hypothesis", o->hypothesis);
	ch = tc_json_new_object();
	tc_json_object_set_string(ch, "summary", o->changes[0]);
	tc_json_object_set(e, "change", ch);
	tc_json_object_set(e, "target_metric", o->metric != NULL ?
	    tc_json_new_string(o->metric) : tc_json_new_null());
	tc_json_object_set(e, "risk", o->risk != NULL ?
	    tc_json_new_string(o->risk) : tc_json_new_null());
	/* The restore point: the bytes of the current (best) version. */
	path = tc_path_join(c->op_dir, rel);
	if ((data = tc_read_file(c->runner, 0, &len, err)) == NULL ||
	    tc_write_atomic(path, data, len, TC_WRITE_EXCLUSIVE | TC_WRITE_MKDIRS,
	    err) != 0) {
		tc_json_free(e);
		goto out;
	}
	rp = tc_json_new_object();
	tc_json_object_set_string(rp, "path", rel);
	tc_json_object_set_string(rp, "sha256", c->sha);
	tc_json_object_set(e, "restore_point", rp);
	tc_json_object_set_string(e, "status", "open");
	tc_json_object_set_int(e, "started_seq", tc_pypto__ledger_next_seq(l));
	tc_json_object_set_string(e, "started_at", now);
	tc_json_object_set(e, "steps", tc_json_new_array());
	tc_json_array_push(exps, e);
	tc_json_object_set(c->out, "experiment", tc_pj_clone(e));
	rc = 0;
out:
	free(data);
	free(path);
	free(rel);
	return rc;
}

static int
do_correctness(tc_json *l, struct ctx *c, const char *now, tc_error *err)
{
	tc_json *exp = open_experiment(l, err), *run;
	int64_t n = 0;

	if (exp == NULL)
		return -1;
	{
		char *mp = tc_path_join(c->op_dir, "PERFORMANCE_CASES.json");
		tc_pypto_manifest m;
		tc_error merr = TC_ERROR_INIT;

		if (tc_pypto_manifest_load(mp, &m, &merr) == 0) {
			n = (int64_t)m.n;
			tc_pypto_manifest_free(&m);
		}
		tc_error_clear(&merr);
		free(mp);
	}
	if ((run = tc_pypto_run_final_test(c->op_dir, c->o->interpreter,
	    c->o->timeout_s, (size_t)n, err)) == NULL)
		return -1;
	step(exp, run, "correctness", now, c->sha);
	tc_json_object_set(c->out, "correctness", tc_pj_clone(run));
	if (!tc_json_truthy(tc_json_get(run, "passed")))
		tc_json_object_set_string(c->out, "instruction", "the candidate is "
		    "not correct: restore immediately (pypto experiment restore) "
		    "and reject it with its reason");
	return 0;
}

static int
need_correct(const tc_json *exp, const struct ctx *c, tc_error *err)
{
	const tc_json *s = last_step(exp, "correctness", c->sha);

	if (s == NULL || !tc_json_truthy(tc_json_get(s, "passed"))) {
		tc_error_set(err, "the candidate (sha256 %s) has no passing full "
		    "correctness run (pypto experiment correctness)", c->sha);
		return -1;
	}
	return 0;
}

static tc_json *
run_compare(struct ctx *c, bool quick, const char *id, char **round,
    tc_error *err)
{
	tc_pypto_compare_opts co;
	char *mp = tc_path_join(c->op_dir, "PERFORMANCE_CASES.json");
	tc_json *s;

	tc_pypto_compare_opts_init(&co);
	co.op_dir = c->op_dir;
	co.manifest_path = mp;
	co.quick = quick;
	co.collection_id = id;
	co.interpreter = c->o->interpreter;
	co.timeout_s = c->o->timeout_s;
	s = tc_pypto_compare(&co, round, err);
	free(mp);
	return s;
}

static tc_json *
case_aggregates(const tc_json *summary)
{
	const tc_json *pcs = tc_json_get(summary, "per_case");
	tc_json *o = tc_json_new_object();
	size_t i;

	for (i = 0; tc_json_is(pcs, TC_JSON_ARRAY) && i < pcs->u.arr.len; i++)
		tc_json_object_set(o, tc_json_get_string(pcs->u.arr.items[i],
		    "case"), tc_json_clone(tc_json_get(pcs->u.arr.items[i],
		    "asc_us")));
	return o;
}

static char *
rel_of(const struct ctx *c, const char *abs)
{
	char *r = tc_path_relative_to(abs, c->op_dir);

	return r != NULL ? r : tc_xstrdup(abs);
}

static int
candidates_load(const struct ctx *c, tc_json **doc, char **path,
    tc_error *err)
{
	*path = tc_path_join(c->op_dir, c->o->candidates_path != NULL ?
	    c->o->candidates_path : CANDIDATES_DEFAULT);
	if (!tc_path_exists(*path)) {
		*doc = tc_json_new_object();
		tc_json_object_set_int(*doc, "schema_version", 1);
		tc_json_object_set(*doc, "candidates", tc_json_new_array());
		return 0;
	}
	if ((*doc = tc_pj_load_object(*path, "candidates.json", err)) == NULL ||
	    !tc_json_is(tc_json_get(*doc, "candidates"), TC_JSON_ARRAY)) {
		if (*doc != NULL)
			tc_error_set(err, "candidates.json has no candidates list");
		tc_json_free(*doc);
		*doc = NULL;
		return -1;
	}
	return 0;
}

static int
add_candidate(const struct ctx *c, tc_json *row, tc_error *err)
{
	tc_json *doc;
	char *path;
	tc_json *list;
	int64_t next = 0, o;
	size_t i;
	int rc;

	if (candidates_load(c, &doc, &path, err) != 0) {
		free(path);
		tc_json_free(row);
		return -1;
	}
	list = tc_json_get(doc, "candidates");
	for (i = 0; i < list->u.arr.len; i++)
		if (tc_pj_int(tc_json_get(list->u.arr.items[i], "evaluation_order"),
		    &o) && o + 1 > next)
			next = o + 1;
	if (tc_json_get(row, "evaluation_order") == NULL)
		tc_json_object_set_int(row, "evaluation_order", next);
	else if (list->u.arr.len > 0) {
		tc_error_set(err, "the frozen baseline is candidate 0 and is "
		    "registered first");
		tc_json_free(row);
		tc_json_free(doc);
		free(path);
		return -1;
	}
	tc_json_array_push(list, row);
	rc = tc_write_json(path, doc, TC_WRITE_MKDIRS, err);
	tc_json_free(doc);
	free(path);
	return rc;
}

static int
do_compare(tc_json *l, struct ctx *c, bool quick, const char *now,
    tc_error *err)
{
	tc_json *exp = open_experiment(l, err), *s, *summary;
	char *round = NULL, *id;
	const char *eid;

	if (exp == NULL || need_correct(exp, c, err) != 0)
		return -1;
	eid = tc_json_get_string(exp, "experiment_id");
	id = tc_xasprintf("%s_%s_%zu", eid, quick ? "quick" : "formal",
	    tc_json_get(exp, "steps")->u.arr.len + 1);
	summary = run_compare(c, quick, id, &round, err);
	free(id);
	if (summary == NULL) {
		free(round);
		return -1;
	}
	s = tc_json_new_object();
	{
		char *rel = rel_of(c, round);

		tc_json_object_set_string(s, quick ? "quick_dir" : "round", rel);
		free(rel);
	}
	tc_json_object_set(s, "collection_id", tc_pj_clone(tc_json_get(summary,
	    "collection_id")));
	tc_json_object_set(s, "per_case_us", case_aggregates(summary));
	step(exp, s, quick ? "quick" : "formal", now, c->sha);
	tc_json_object_set(c->out, quick ? "quick" : "formal", tc_json_clone(s));
	if (!quick) {
		tc_json *row = tc_json_new_object();
		char *rel = rel_of(c, round);
		const tc_json *cs = last_step(exp, "correctness", c->sha);

		tc_json_object_set_string(row, "candidate_id", eid);
		tc_json_object_set_string(row, "round", rel);
		tc_json_object_set(row, "source_items", tc_pj_clone(tc_json_get(
		    exp, "item_ids")));
		tc_json_object_set_bool(row, "correct", true);
		tc_json_object_set_bool(row, "compliant", !c->o->not_compliant);
		{
			char *ce = tc_xasprintf("tunectl pypto experiment "
			    "correctness: exit %lld, PASS (stdout sha256 %s)",
			    (long long)tc_pj_int_or(tc_json_get(cs, "exit_code"), -1),
			    tc_json_get_string(cs, "stdout_sha256"));

			tc_json_object_set_string(row, "correctness_evidence", ce);
			free(ce);
		}
		tc_json_object_set_string(row, "compliance_evidence",
		    !blank(c->o->compliance_evidence) ? c->o->compliance_evidence :
		    "not stated");
		tc_json_object_set_string(row, "executable_sha256", c->sha);
		free(rel);
		if (add_candidate(c, row, err) != 0) {
			tc_json_free(summary);
			free(round);
			return -1;
		}
		tc_json_object_set_string(exp, "candidate_sha256", c->sha);
	}
	tc_json_free(summary);
	free(round);
	return 0;
}

static int
close_items(tc_json *l, tc_json *exp, const char *status, const char *reason,
    const char *code, const char *now, tc_error *err)
{
	const tc_json *ids = tc_json_get(exp, "item_ids");
	tc_json *ev = tc_json_new_object();
	const tc_json *fs = last_step(exp, "formal", NULL);
	size_t i;
	int rc = 0;

	tc_json_object_set(ev, "experiment", tc_pj_clone(tc_json_get(exp,
	    "experiment_id")));
	tc_json_object_set(ev, "change", tc_pj_clone(tc_json_get(exp,
	    "change")));
	if (fs != NULL)
		tc_json_object_set(ev, "round", tc_pj_clone(tc_json_get(fs,
		    "round")));
	for (i = 0; i < ids->u.arr.len && rc == 0; i++) {
		const char *id = tc_json_string(ids->u.arr.items[i]);
		const tc_json *it = tc_pypto__ledger_item(l, id);
		const char *kind = tc_json_get_string(it, "source_kind");
		const char *st = status;

		if (strcmp(status, "accepted") == 0 && kind != NULL &&
		    strcmp(kind, "kb_selected") == 0)
			st = "implemented";
		if (strcmp(status, "rejected") == 0 && kind != NULL &&
		    strcmp(kind, "kb_selected") == 0) {
			tc_error_set(err, "kb_selected item %s is a selected KB "
			    "obligation: a triggered gap must be implemented and "
			    "cannot be rejected for lack of gain (if impossible "
			    "under the frozen contract: stage5_contract_blocked)",
			    id);
			rc = -1;
			break;
		}
		rc = tc_pypto_ledger_close(l, id, st, reason, code, ev, now, err);
	}
	tc_json_free(ev);
	return rc;
}

static int
do_decide(tc_json *l, struct ctx *c, bool accept, const char *now,
    tc_error *err)
{
	tc_json *exp = open_experiment(l, err);
	const char *restore;

	if (exp == NULL)
		return -1;
	restore = tc_json_get_string(tc_json_get(exp, "restore_point"),
	    "sha256");
	if (accept) {
		const char *cand = tc_json_get_string(exp, "candidate_sha256");

		if (cand == NULL || last_step(exp, "formal", cand) == NULL) {
			tc_error_set(err, "accepting needs a formal compare of the "
			    "candidate (pypto experiment formal)");
			return -1;
		}
		if (strcmp(cand, c->sha) != 0) {
			tc_error_set(err, "the code changed after the formal compare "
			    "(sha256 %s, compared %s): the accepted version is the "
			    "one that was measured", c->sha, cand);
			return -1;
		}
		if (close_items(l, exp, "accepted", NULL, NULL, now, err) != 0)
			return -1;
		tc_json_object_set_string(exp, "decision", "accepted");
		tc_json_object_set_string(exp, "accepted_sha256", c->sha);
	} else {
		if (blank(c->o->reason)) {
			tc_error_set(err, "a rejected item records its concrete reason "
			    "(--reason)");
			return -1;
		}
		if (restore == NULL || strcmp(restore, c->sha) != 0) {
			tc_error_set(err, "reject refused: test_<op>.py (sha256 %s) is "
			    "not back at the restore point (sha256 %s): pypto "
			    "experiment restore first", c->sha,
			    restore != NULL ? restore : "?");
			return -1;
		}
		if (close_items(l, exp, "rejected", c->o->reason,
		    c->o->reason_code, now, err) != 0)
			return -1;
		tc_json_object_set_string(exp, "decision", "rejected");
		tc_json_object_set_string(exp, "reason", c->o->reason);
		if (c->o->reason_code != NULL)
			tc_json_object_set_string(exp, "reason_code",
			    c->o->reason_code);
		tc_json_object_set_string(exp, "restored_sha256", c->sha);
	}
	tc_json_object_set_string(exp, "status", "closed");
	tc_json_object_set_int(exp, "closed_seq", tc_pypto__ledger_next_seq(l));
	tc_json_object_set_string(exp, "closed_at", now);
	tc_json_object_set(c->out, "experiment", tc_pj_clone(exp));
	return 0;
}

static int
do_restore(tc_json *l, struct ctx *c, tc_error *err)
{
	tc_json *exp = open_experiment(l, err);
	const tc_json *rp;
	char *path, *data, hex[TC_SHA256_HEX_LEN + 1];
	size_t len;
	int rc = -1;

	if (exp == NULL)
		return -1;
	rp = tc_json_get(exp, "restore_point");
	if ((path = tc_path_under_root(c->op_dir, tc_json_get_string(rp, "path"),
	    "restore point", err)) == NULL)
		return -1;
	if ((data = tc_read_file(path, 0, &len, err)) == NULL)
		goto out;
	tc_sha256_hex(data, len, hex);
	if (strcmp(hex, tc_json_get_string(rp, "sha256")) != 0) {
		tc_error_set(err, "the restore copy %s no longer has its recorded "
		    "digest", tc_json_get_string(rp, "path"));
		goto out;
	}
	if (tc_write_atomic(c->runner, data, len, 0, err) != 0)
		goto out;
	memcpy(c->sha, hex, sizeof(hex));
	tc_json_object_set_string(c->out, "restored_sha256", hex);
	rc = 0;
out:
	free(data);
	free(path);
	return rc;
}

static int
do_baseline(struct ctx *c, tc_error *err)
{
	tc_pypto_round r;
	tc_json *row;
	const char *sha;

	if (c->o->round == NULL || tc_pypto_round_verify(c->op_dir, c->o->round,
	    &r, err) != 0) {
		if (c->o->round == NULL)
			tc_error_set(err, "baseline needs the frozen baseline round "
			    "(--round docs/perf/round_NNN)");
		return -1;
	}
	sha = tc_json_get_string(r.collection, "executable_sha256");
	row = tc_json_new_object();
	tc_json_object_set_string(row, "candidate_id", "baseline");
	tc_json_object_set_int(row, "evaluation_order", 0);
	{
		char *rel = rel_of(c, r.path);

		tc_json_object_set_string(row, "round", rel);
		free(rel);
	}
	tc_json_object_set(row, "source_items", tc_json_new_array());
	tc_json_object_set_bool(row, "correct", true);
	tc_json_object_set_bool(row, "compliant", !c->o->not_compliant);
	tc_json_object_set_string(row, "correctness_evidence",
	    !blank(c->o->correctness_evidence) ? c->o->correctness_evidence :
	    "Stage 4 verifier PASS on the unmodified implementation");
	tc_json_object_set_string(row, "compliance_evidence",
	    !blank(c->o->compliance_evidence) ? c->o->compliance_evidence :
	    "not stated");
	tc_json_object_set_string(row, "executable_sha256", sha != NULL ? sha :
	    "");
	tc_pypto_round_free(&r);
	tc_json_object_set(c->out, "candidate", tc_pj_clone(row));
	return add_candidate(c, row, err);
}

static int
dispatch_verb(tc_json *l, void *vctx, const char *now, tc_error *err)
{
	struct ctx *c = vctx;

	if (strcmp(c->verb, "start") == 0)
		return do_start(l, c, now, err);
	if (strcmp(c->verb, "correctness") == 0)
		return do_correctness(l, c, now, err);
	if (strcmp(c->verb, "quick") == 0)
		return do_compare(l, c, true, now, err);
	if (strcmp(c->verb, "formal") == 0)
		return do_compare(l, c, false, now, err);
	if (strcmp(c->verb, "accept") == 0)
		return do_decide(l, c, true, now, err);
	if (strcmp(c->verb, "reject") == 0)
		return do_decide(l, c, false, now, err);
	if (strcmp(c->verb, "restore") == 0)
		return do_restore(l, c, err);
	tc_error_set(err, "unknown experiment verb %s", c->verb);
	return -1;
}

tc_json *
tc_pypto_experiment(const char *verb, const tc_pypto_experiment_opts *o,
    tc_error *err)
{
	struct ctx c;
	tc_json *l = NULL, *out = NULL;
	char *lp = NULL;

	memset(&c, 0, sizeof(c));
	c.o = o;
	c.verb = verb;
	if ((c.op_dir = tc_pypto_op_dir_resolve(o->op_dir, err)) == NULL)
		return NULL;
	if ((c.runner = tc_pypto_find_runner(c.op_dir, err)) == NULL ||
	    tc_sha256_file(c.runner, c.sha, NULL, err) != 0)
		goto out;
	c.out = tc_json_new_object();
	tc_json_object_set_string(c.out, "verb", verb);
	if (strcmp(verb, "baseline") == 0) {
		if (do_baseline(&c, err) != 0)
			goto out;
	} else {
		lp = tc_path_join(c.op_dir, o->ledger_path != NULL ?
		    o->ledger_path : TC_PYPTO_LEDGER_DEFAULT);
		if ((l = tc_pypto_ledger_update(lp, dispatch_verb, &c, err)) ==
		    NULL)
			goto out;
		tc_json_object_set(c.out, "next", tc_pypto_ledger_next(l));
	}
	tc_json_object_set_string(c.out, "runner_sha256", c.sha);
	out = c.out;
	c.out = NULL;
out:
	tc_json_free(c.out);
	tc_json_free(l);
	free(lp);
	free(c.runner);
	free(c.op_dir);
	return out;
}
