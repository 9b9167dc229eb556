/*
 * consent.c - the Stage 5 entry (docs/spec/pypto.md
 * "Stage 5 entry confirmation"): the user's confirmation (or refusal) recorded
 * with the frozen optimization_target, the entry snapshot written at that
 * moment (frozen inputs, every file of the operator directory, the selected KB
 * obligations), and the checks that hang off it: no Stage 5 collection before
 * the confirmation, and complete_stage(5) only on a bound stage5-check PASS.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pypto_internal.h"
#include "orch_internal.h"
#include "stage5_internal.h"
#include "tunectl/fileio.h"
#include "tunectl/path.h"
#include "tunectl/pypto_check.h"
#include "tunectl/pypto_compare.h"
#include "tunectl/pypto_stage5.h"
#include "tunectl/sha256.h"

const tc_json *
tc_pypto_consent(const tc_json *state)
{
	const tc_json *c = tc_json_get(tc_json_get(tc_pypto_orch_get(state),
	    "stage5"), "consent");
	const char *d = tc_json_get_string(c, "decision");

	return d != NULL && strcmp(d, "consented") == 0 ? c : NULL;
}

static const tc_json *
stage5_decision(const tc_json *state)
{
	return tc_json_get(tc_json_get(tc_pypto_orch_get(state), "stage5"),
	    "consent");
}

int
tc_pypto_require_consent(const char *op_dir, const char *what, tc_error *err)
{
	char *path = tc_path_join(op_dir, TC_PYPTO_STATE_FILE);
	tc_json *state;
	int rc = 0;

	if (!tc_path_exists(path)) {
		free(path);
		return 0;
	}
	state = tc_json_parse_file(path, err);
	free(path);
	if (state == NULL) {
		tc_error_prefix(err, "%s refused: the orchestrator state cannot "
		    "be read: ", what);
		return -1;
	}
	if (tc_pypto_consent(state) == NULL) {
		const tc_json *d = stage5_decision(state);

		if (d != NULL)
			tc_error_set(err, "%s refused: the user declined Stage 5 "
			    "(%s); the pipeline ended after Stage 4", what,
			    tc_json_get_string(d, "statement") != NULL ?
			    tc_json_get_string(d, "statement") : "no reason");
		else
			tc_error_set(err, "%s refused: no Stage 5 collection before "
			    "the Stage 5 entry confirmation (the user asked for "
			    "optimisation and the target cases are frozen): "
			    "tunectl pypto state --op-dir DIR consent ...", what);
		rc = -1;
	}
	tc_json_free(state);
	return rc;
}

/* ---- the entry snapshot ----------------------------------------------------------- */

static tc_json *
kb_usage_invariants(const char *op_dir)
{
	static const char *const copied[] = { "reference", "invariant", NULL };
	tc_json *sel = tc_pypto_kb_selection_files(op_dir);
	tc_json *out = tc_json_new_array();
	size_t i, k;

	for (i = 0; i < sel->u.arr.len; i++) {
		const char *rel = tc_json_string(sel->u.arr.items[i]);
		char *dir = tc_path_dirname(rel);
		char *urel = strcmp(dir, ".") == 0 ? tc_xstrdup("KB_USAGE.json") :
		    tc_xasprintf("%s/KB_USAGE.json", dir);
		char *path = tc_path_join(op_dir, urel);
		tc_json *doc = tc_json_parse_file(path, NULL);
		const tc_json *inv = tc_json_get(doc, "invariants");

		for (k = 0; tc_json_is(inv, TC_JSON_ARRAY) && k < inv->u.arr.len;
		    k++) {
			const tc_json *it = inv->u.arr.items[k];
			tc_json *o = tc_json_new_object();

			tc_json_object_set_string(o, "file", urel);
			tc_pj_copy_members(o, it, copied);
			tc_json_array_push(out, o);
		}
		tc_json_free(doc);
		free(path);
		free(urel);
		free(dir);
	}
	tc_json_free(sel);
	return out;
}

/* doc written once as .orchestrator/stage5/<stem>-NNN.json, NNN the first
 * number below limit not taken (earlier ones are evidence and stay):
 * {path (under the op dir), sha256}, or NULL with err. */
static tc_json *
write_stage5_record(const char *op_dir, const char *stem, int limit,
    const tc_json *doc, tc_error *err)
{
	char *dir = tc_pypto_orch_dir(op_dir), *sdir, *path = NULL, *rel;
	char hex[TC_SHA256_HEX_LEN + 1];
	tc_json *rec = NULL;
	int n;

	sdir = tc_path_join(dir, "stage5");
	free(dir);
	if (tc_mkdirs(sdir, err) != 0)
		goto out;
	for (n = 1; n < limit; n++) {
		free(path);
		path = tc_xasprintf("%s/%s-%03d.json", sdir, stem, n);
		if (!tc_path_exists(path))
			break;
	}
	if (tc_write_json(path, doc, TC_WRITE_EXCLUSIVE, err) != 0 ||
	    tc_sha256_file(path, hex, NULL, err) != 0)
		goto out;
	rel = tc_xasprintf("%s/stage5/%s-%03d.json", TC_PYPTO_ORCH_DIR, stem, n);
	rec = tc_json_new_object();
	tc_json_object_set_string(rec, "path", rel);
	tc_json_object_set_string(rec, "sha256", hex);
	free(rel);
out:
	free(path);
	free(sdir);
	return rec;
}

tc_json *
tc_pypto_entry_write(const char *op_dir, tc_error *err)
{
	tc_json *doc, *files, *oblig, *out;
	tc_error kerr = TC_ERROR_INIT;
	char now[32];

	if ((files = tc_pypto_op_files(op_dir, err)) == NULL)
		return NULL;
	tc_pypto_orch_now(now);
	doc = tc_json_new_object();
	tc_pj_doc_header(doc, "pypto_stage5_entry");
	tc_json_object_set_string(doc, "operator", tc_path_basename(op_dir));
	tc_json_object_set_string(doc, "operator_dir", op_dir);
	tc_json_object_set_string(doc, "recorded_at", now);
	tc_json_object_set(doc, "frozen_inputs", tc_pypto_frozen_inputs(op_dir));
	tc_json_object_set(doc, "files", files);
	if ((oblig = tc_pypto_kb_obligations(op_dir, &kerr)) != NULL) {
		tc_json_object_set(doc, "kb_obligations", oblig);
	} else {
		tc_json_object_set_null(doc, "kb_obligations");
		tc_json_object_set_string(doc, "kb_obligations_error",
		    tc_error_msg(&kerr));
	}
	tc_error_clear(&kerr);
	tc_json_object_set(doc, "kb_usage", kb_usage_invariants(op_dir));
	/* One snapshot per confirmation; an earlier one (before a permitted
	 * rollback) is evidence and stays. */
	out = write_stage5_record(op_dir, "entry", 1000, doc, err);
	tc_json_free(doc);
	return out;
}

/* A file named by a record bound in the state: under the op dir's
 * .orchestrator/, a regular file, with the recorded digest. */
static tc_json *
load_bound(const char *op_dir, const tc_json *rec, const char *what,
    tc_error *err)
{
	const char *rel = tc_json_get_string(rec, "path");
	const char *sha = tc_json_get_string(rec, "sha256");
	char hex[TC_SHA256_HEX_LEN + 1];
	char *path;
	tc_json *doc;

	if (rel == NULL || sha == NULL ||
	    strncmp(rel, TC_PYPTO_ORCH_DIR "/", sizeof(TC_PYPTO_ORCH_DIR)) != 0) {
		tc_error_set(err, "the state's %s record is malformed", what);
		return NULL;
	}
	if ((path = tc_path_under_root(op_dir, rel, what, err)) == NULL)
		return NULL;
	if (!tc_is_regular_file_nofollow(path) ||
	    tc_sha256_file(path, hex, NULL, err) != 0 || strcmp(hex, sha) != 0) {
		tc_error_set(err, "the bound %s %s changed or disappeared "
		    "(recorded sha256 %s)", what, rel, sha);
		free(path);
		return NULL;
	}
	doc = tc_pj_load_object(path, what, err);
	free(path);
	return doc;
}

tc_json *
tc_pypto_entry_load(const char *op_dir, const tc_json *state, tc_error *err)
{
	const tc_json *rec = tc_json_get(tc_json_get(tc_pypto_orch_get(state),
	    "stage5"), "entry");

	if (tc_pypto_consent(state) == NULL || rec == NULL) {
		tc_error_set(err, "no Stage 5 entry confirmation is recorded");
		return NULL;
	}
	return load_bound(op_dir, rec, "Stage 5 entry snapshot", err);
}

/* A bound PASS is only a claim: the check runs again, now, on the files
 * and the review the report carries, and must say PASS again.  A report
 * bound by someone else (a worker that wrote the state) is no
 * shortcut. */
static int
recomputed_pass(const char *op_dir, const tc_json *state,
    const tc_json *report, const char *interpreter, tc_error *err)
{
	tc_pypto_check_opts co;
	tc_json *dispatch = tc_pypto_stage5_dispatch_of(state), *again;
	const char *verdict;
	char *text;
	int rc = -1;

	memset(&co, 0, sizeof(co));
	co.op_dir = op_dir;
	co.dispatch = dispatch;
	co.review = tc_json_is(tc_json_get(report, "review"), TC_JSON_OBJECT) ?
	    tc_json_get(report, "review") : NULL;
	co.interpreter = interpreter;
	again = tc_pypto_check_stage5(&co, err);
	tc_json_free(dispatch);
	if (again == NULL)
		return -1;
	verdict = tc_json_get_string(again, "verdict");
	if (verdict != NULL && strcmp(verdict, "PASS") == 0 &&
	    tc_json_equal(tc_json_get(again, "runner_sha256"),
	    tc_json_get(report, "runner_sha256"))) {
		rc = 0;
	} else {
		text = tc_pypto_check_render(again);
		tc_error_set(err, "the bound stage5-check PASS does not hold: "
		    "recomputed now from the operator directory and the review "
		    "bound with it, stage5-check says %s\n%s",
		    verdict != NULL ? verdict : "nothing", text);
		free(text);
	}
	tc_json_free(again);
	return rc;
}

int
tc_pypto_check_bound(const char *op_dir, const tc_json *state,
    const char *interpreter, tc_error *err)
{
	const tc_json *s5 = tc_json_get(tc_pypto_orch_get(state), "stage5");
	const tc_json *rec = tc_json_get(s5, "check");
	const char *verdict = tc_json_get_string(rec, "verdict");
	tc_json *report;
	char *runner;
	char hex[TC_SHA256_HEX_LEN + 1];
	int rc = -1;

	if (tc_pypto_consent(state) == NULL) {
		tc_error_set(err, "no Stage 5 entry confirmation is recorded");
		return -1;
	}
	if (!tc_json_is(rec, TC_JSON_OBJECT)) {
		tc_error_set(err, "no stage5-check report is bound (tunectl pypto "
		    "check stage5 --record, or pypto run-next accepting the "
		    "verifier, binds one)");
		return -1;
	}
	if (verdict == NULL || strcmp(verdict, "PASS") != 0) {
		tc_error_set(err, "the bound stage5-check report %s says %s, not "
		    "PASS", tc_json_get_string(rec, "path") ?
		    tc_json_get_string(rec, "path") : "?",
		    verdict != NULL ? verdict : "nothing");
		return -1;
	}
	if ((report = load_bound(op_dir, rec, "stage5-check report", err)) ==
	    NULL)
		return -1;
	if (strcmp(tc_json_get_string(report, "verdict") ?
	    tc_json_get_string(report, "verdict") : "", "PASS") != 0) {
		tc_error_set(err, "the bound stage5-check report is not a PASS");
		goto out;
	}
	if ((runner = tc_pypto_find_runner(op_dir, err)) == NULL)
		goto out;
	if (tc_sha256_file(runner, hex, NULL, err) != 0) {
		free(runner);
		goto out;
	}
	free(runner);
	if (tc_json_get_string(report, "runner_sha256") == NULL ||
	    strcmp(tc_json_get_string(report, "runner_sha256"), hex) != 0) {
		tc_error_set(err, "the bound stage5-check PASS is for another "
		    "version of the final test (sha256 %s; now %s): check again",
		    tc_json_get_string(report, "runner_sha256") ?
		    tc_json_get_string(report, "runner_sha256") : "?", hex);
		goto out;
	}
	if (!tc_json_equal(tc_json_get(report, "entry_sha256"),
	    tc_json_get(tc_json_get(s5, "entry"), "sha256"))) {
		tc_error_set(err, "the bound stage5-check PASS was not made "
		    "against the recorded Stage 5 entry snapshot");
		goto out;
	}
	rc = recomputed_pass(op_dir, state, report, interpreter, err);
out:
	tc_json_free(report);
	return rc;
}

/* ---- the consent and decline actions ---------------------------------------------- */

static int
awaiting_entry(const tc_json *state, const char *action, tc_error *err)
{
	const tc_json *ss = tc_json_get(state, "stage_status");
	const char *s4 = tc_json_get_string(ss, "4");
	const char *s5 = tc_json_get_string(ss, "5");
	double cur = tc_js_number(tc_json_get(state, "current_stage"));
	const tc_json *d = stage5_decision(state);

	if (d != NULL) {
		tc_error_set(err, "%s refused: the Stage 5 entry was already "
		    "decided (%s at %s)", action,
		    tc_json_get_string(d, "decision") ?
		    tc_json_get_string(d, "decision") : "?",
		    tc_json_get_string(d, "recorded_at") ?
		    tc_json_get_string(d, "recorded_at") : "?");
		return -1;
	}
	if (cur != 5 || s4 == NULL || strcmp(s4, "completed") != 0 ||
	    s5 == NULL || strcmp(s5, "in_progress") != 0) {
		tc_error_set(err, "%s refused: the Stage 5 entry confirmation "
		    "follows complete_stage(4), while Stage 5 waits in_progress "
		    "(current_stage %g, Stage 4 %s, Stage 5 %s)", action, cur,
		    s4 != NULL ? s4 : "?", s5 != NULL ? s5 : "?");
		return -1;
	}
	return 0;
}

/* The frozen target cases (docs/spec/pypto.md "Stage 5 entry confirmation"):
 * the user's subset, the single P0, or (no questions) every P0; any other
 * multi-P0 situation must ask. */
static tc_json *
target_cases(const tc_json *p0, const tc_pypto_orch_input *in,
    tc_error *err)
{
	tc_json *t = tc_json_new_object(), *ids = tc_json_new_array();
	const char *mode;
	size_t i;

	if (in->case_ids != NULL) {
		char *copy = tc_xstrdup(in->case_ids), *save = NULL, *tok;

		for (tok = strtok_r(copy, ",", &save); tok != NULL;
		    tok = strtok_r(NULL, ",", &save)) {
			char *id = tc_py_strip_dup(tok);

			if (id == NULL)
				continue;
			if (!tc_pj_array_has_string(p0, id)) {
				tc_error_set(err, "consent refused: target case %s is "
				    "not a SPEC P0 case", id);
			} else if (tc_pj_array_has_string(ids, id)) {
				tc_error_set(err, "consent refused: target case %s is "
				    "listed twice", id);
			} else {
				tc_json_array_push(ids, tc_json_new_string(id));
				free(id);
				continue;
			}
			free(id);
			free(copy);
			goto fail;
		}
		free(copy);
		if (ids->u.arr.len == 0) {
			tc_error_set(err, "consent refused: --case-ids names no case");
			goto fail;
		}
		mode = "user_selected";
	} else if (p0->u.arr.len == 1) {
		tc_json_array_push(ids, tc_pj_clone(p0->u.arr.items[0]));
		mode = "single_p0";
	} else if (in->no_questions) {
		for (i = 0; i < p0->u.arr.len; i++)
			tc_json_array_push(ids, tc_pj_clone(p0->u.arr.items[i]));
		mode = "all_p0_no_questions";
	} else {
		tc_error_set(err, "consent refused: SPEC has %zu P0 cases and no "
		    "target cases were chosen: ask the user which to optimise "
		    "(--case-ids) or record that they asked not to be asked "
		    "(--no-questions)", p0->u.arr.len);
		goto fail;
	}
	tc_json_object_set(t, "case_ids", ids);
	tc_json_object_set_string(t, "selection_mode", mode);
	return t;
fail:
	tc_json_free(ids);
	tc_json_free(t);
	return NULL;
}

int
tc_pypto_consent_apply(const tc_pypto_store *st, tc_json *state,
    const tc_pypto_orch_input *in, tc_json *out, tc_error *err)
{
	bool decline = strcmp(in->action, "decline") == 0;
	const char *text = decline ? (in->reason != NULL ? in->reason :
	    in->statement) : in->statement;
	tc_json *spec = NULL, *p0 = NULL, *target = NULL, *entry = NULL;
	tc_json *rec, *s5;
	char now[32];
	int rc = -1;

	if (awaiting_entry(state, in->action, err) != 0)
		return -1;
	if (text == NULL || tc_js_is_blank(text)) {
		tc_error_set(err, "%s refused: record what the user said (%s)",
		    in->action, decline ? "--reason" : "--statement");
		return -1;
	}
	tc_pypto_orch_now(now);
	rec = tc_json_new_object();
	tc_json_object_set_string(rec, "recorded_at", now);
	tc_json_object_set_string(rec, "statement", text);
	if (decline) {
		tc_json_object_set_string(rec, "decision", "declined");
		tc_json_object_set_string(rec, "outcome", "functional development "
		    "done: Stage 4 passed and its artifacts are the deliverable; "
		    "no optimizer, no collection");
		goto record;
	}
	if (in->basis == NULL || (strcmp(in->basis, "user_requested") != 0 &&
	    strcmp(in->basis, "user_confirmed") != 0)) {
		tc_error_set(err, "consent refused: --basis must be user_requested "
		    "(the user asked for optimisation or gave a target) or "
		    "user_confirmed (asked, and agreed)");
		goto fail;
	}
	if ((spec = tc_pypto_spec_contract(st->op_dir, err)) == NULL) {
		tc_error_prefix(err, "consent refused: ");
		goto fail;
	}
	p0 = tc_pypto_spec_p0_names(spec);
	if (p0->u.arr.len == 0) {
		tc_error_set(err, "consent refused: SPEC.md lists no P0 case");
		goto fail;
	}
	if ((target = target_cases(p0, in, err)) == NULL)
		goto fail;
	if ((entry = tc_pypto_entry_write(st->op_dir, err)) == NULL) {
		tc_error_prefix(err, "consent refused: the Stage 5 entry snapshot "
		    "cannot be written: ");
		goto fail;
	}
	tc_json_object_set_string(rec, "decision", "consented");
	tc_json_object_set_string(rec, "basis", in->basis);
	tc_json_object_set_bool(rec, "no_questions", in->no_questions);
	tc_json_object_set(rec, "optimization_target", target);
	target = NULL;
	tc_json_object_set(rec, "p0_cases", p0);
	p0 = NULL;
	tc_json_object_set(rec, "spec_perf_target", tc_json_get(spec,
	    "perf_target") != NULL ? tc_json_clone(tc_json_get(spec,
	    "perf_target")) : tc_json_new_null());
record:
	s5 = tc_json_new_object();
	tc_json_object_set(s5, "consent", rec);
	if (entry != NULL)
		tc_json_object_set(s5, "entry", tc_pj_clone(entry));
	tc_json_object_set_null(s5, "check");
	tc_json_object_set(tc_pypto_orch(state), "stage5", s5);
	{
		tc_json *ev = tc_json_new_object();

		tc_json_object_set_string(ev, "decision", decline ? "declined" :
		    "consented");
		tc_pypto_orch_event(state, "stage5_entry", ev);
	}
	tc_json_object_set(out, "stage5", tc_pj_clone(s5));
	rc = 0;
	goto done;
fail:
	tc_json_free(rec);
done:
	tc_json_free(entry);
	tc_json_free(target);
	tc_json_free(p0);
	tc_json_free(spec);
	return rc;
}

/* ---- binding a stage5-check report ---------------------------------------------- */

int
tc_pypto_check_bind(const char *op_dir, tc_json *state, const tc_json *report,
    tc_error *err)
{
	char now[32];
	tc_json *rec, *orch, *s5;

	if (tc_json_truthy(tc_json_get(report, "partial"))) {
		tc_error_set(err, "a stage5-check of a gate selection (--gates) is "
		    "never bound");
		return -1;
	}
	if ((rec = write_stage5_record(op_dir, "check", 10000, report,
	    err)) == NULL)
		return -1;
	tc_pypto_orch_now(now);
	tc_json_object_set(rec, "verdict", tc_pj_clone(tc_json_get(report,
	    "verdict")));
	tc_json_object_set_string(rec, "recorded_at", now);
	orch = tc_pypto_orch(state);
	s5 = tc_json_get(orch, "stage5");
	if (!tc_json_is(s5, TC_JSON_OBJECT)) {
		s5 = tc_json_new_object();
		tc_json_object_set(orch, "stage5", s5);
	}
	tc_json_object_set(s5, "check", rec);
	return 0;
}

/* The boundary check against the entry snapshot bound in the op dir's
 * state (pypto boundary). */
tc_json *
tc_pypto_boundary_now(const char *op_dir, tc_error *err)
{
	char *abs = tc_path_resolve(op_dir, err), *sp;
	tc_json *state = NULL, *entry = NULL, *r = NULL;

	if (abs == NULL)
		return NULL;
	sp = tc_path_join(abs, TC_PYPTO_STATE_FILE);
	if ((state = tc_json_parse_file(sp, err)) != NULL &&
	    (entry = tc_pypto_entry_load(abs, state, err)) != NULL &&
	    (r = tc_pypto_boundary_check(abs, entry, err)) != NULL)
		tc_json_object_set(r, "entry", tc_pj_clone(tc_json_get(
		    tc_json_get(tc_pypto_orch_get(state), "stage5"), "entry")));
	tc_json_free(entry);
	tc_json_free(state);
	free(sp);
	free(abs);
	return r;
}
