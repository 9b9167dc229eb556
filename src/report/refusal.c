/*
 * refusal.c - why a finished session did not end beneficial: the step
 * whose outcome stopped the chain, the gate reports among that step's
 * produced artifacts explained with their numbers (tc_gate_explain), and
 * how busy the machine was while the refused run sets were measured.
 * Everything is read from sealed evidence; nothing is recomputed.
 */
#include <stdlib.h>
#include <string.h>

#include "tunectl/bench.h"
#include "tunectl/fileio.h"
#include "tunectl/path.h"
#include "tunectl/phases.h"
#include "tunectl/refusal.h"
#include "tunectl/session.h"

/* The step that stopped the chain: the first sealed step whose status
 * short-circuits the session, else a Final step that did not settle
 * beneficial (accepted). */
static const tc_json *
decisive_step(const tc_session *s)
{
	size_t n = tc_session_step_count(s);

	for (size_t i = 0; i < n; i++) {
		const tc_json *st = tc_session_step_at(s, i);
		const char *status = tc_step_outcome(st);

		if (!tc_step_is_sealed(st) || status == NULL)
			continue;
		if (tc_must_short_circuit(tc_step_phase(st), status))
			return st;
		if (tc_step_phase(st)->id == TC_PHASE_FINAL &&
		    strcmp(status, "accepted") != 0)
			return st;
	}
	return NULL;
}

/* An artifact named by a sealed document, resolved under the root. */
static tc_json *
load_artifact(const tc_session *s, const char *rel)
{
	char *path = tc_path_under_root(s->artifact_root, rel, "artifact", NULL);
	tc_json *doc = NULL;

	if (path != NULL && tc_is_regular_file(path))
		doc = tc_json_parse_file(path, NULL);
	free(path);
	return doc;
}

/* "load average 5.20 on 2 CPUs at the end of <dir>": from the baseline
 * run set's runset.json, when the report names a run set in the root. */
static void
load_note(const tc_session *s, const tc_json *report, tc_buf *out)
{
	const char *dir = tc_json_get_string(tc_json_get(report, "baseline"),
	    "path");
	size_t rl = strlen(s->artifact_root);
	const tc_json *la, *cores;
	tc_json *manifest;
	double load, ncpu;
	char *rel;

	if (dir == NULL || strncmp(dir, s->artifact_root, rl) != 0 ||
	    dir[rl] != '/')
		return;
	rel = tc_xasprintf("%s/runset.json", dir + rl + 1);
	manifest = load_artifact(s, rel);
	free(rel);
	la = tc_json_get(manifest, "load_average_end");
	cores = tc_json_get(tc_json_get(manifest, "environment"), "cores");
	if (tc_json_is(la, TC_JSON_ARRAY) && la->u.arr.len > 0 &&
	    tc_json_number(la->u.arr.items[0], &load) &&
	    tc_json_number(cores, &ncpu))
		tc_buf_printf(out, "machine load average %.2f on %.0f CPUs at the "
		    "end of %s\n", load, ncpu, dir + rl + 1);
	tc_json_free(manifest);
}

/* Explain every gate report the step produced; returns the kind. */
static enum tc_refusal_kind
explain_reports(const tc_session *s, const tc_json *result, tc_buf *out)
{
	const tc_json *produced = tc_json_get(result, "produced_artifacts");
	enum tc_refusal_kind kind = TC_REFUSAL_OTHER;

	for (size_t i = 0; tc_json_is(produced, TC_JSON_ARRAY) &&
	    i < produced->u.arr.len; i++) {
		const char *rel = tc_json_string(produced->u.arr.items[i]);
		const char *stage;
		tc_json *doc;
		char *label;
		const tc_json *cands;
		bool stability;

		if (rel == NULL || (doc = load_artifact(s, rel)) == NULL)
			continue;
		if (tc_json_get(doc, "baseline_stability") == NULL ||
		    tc_json_get(doc, "selection") == NULL) {
			tc_json_free(doc);
			continue;
		}
		cands = tc_json_get(doc, "candidates");
		stability = !tc_json_is(cands, TC_JSON_OBJECT) ||
		    cands->u.obj.len == 0;
		stage = tc_json_get_string(tc_json_get(doc, "selection"), "stage");
		label = tc_xasprintf("%s gate (%s)", stability ? "stability" :
		    stage != NULL && strcmp(stage, "candidate_screening") == 0 ?
		    "screening" : stage != NULL &&
		    strcmp(stage, "winner_option_trial") == 0 ? "option-trial" :
		    "promotion", rel);
		if (tc_gate_explain(doc, label, out)) {
			load_note(s, doc, out);
			if (stability)
				kind = TC_REFUSAL_NOISE;
			else if (kind != TC_REFUSAL_NOISE)
				kind = TC_REFUSAL_GATE;
		}
		free(label);
		tc_json_free(doc);
	}
	return kind;
}

enum tc_refusal_kind
tc_report_refusal(const tc_session *s, tc_buf *out, const char **step_id)
{
	const tc_json *st = decisive_step(s);
	const char *status, *rp;
	enum tc_refusal_kind kind;
	tc_json *result;

	*step_id = NULL;
	if (st == NULL)
		return TC_REFUSAL_NONE;
	*step_id = tc_step_id(st);
	status = tc_step_outcome(st);
	rp = tc_json_get_string(st, "result_path");
	result = rp != NULL ? load_artifact(s, rp) : NULL;
	tc_buf_printf(out, "%s ended %s\n", tc_step_id(st), status);
	kind = explain_reports(s, result, out);
	if (kind == TC_REFUSAL_OTHER) {
		const tc_json *blockers = tc_json_get(result, "blockers");

		for (size_t i = 0; tc_json_is(blockers, TC_JSON_ARRAY) &&
		    i < blockers->u.arr.len; i++) {
			const char *why = tc_json_get_string(blockers->u.arr.items[i],
			    "reason_zh");

			if (why != NULL)
				tc_buf_printf(out, "blocker: %s\n", why);
		}
		if (tc_step_phase(st)->id == TC_PHASE_INTAKE)
			kind = TC_REFUSAL_ENVIRONMENT;
		else if (strcmp(status, "failed") == 0 ||
		    strcmp(status, "invalid") == 0)
			kind = TC_REFUSAL_FAILURE;
	}
	tc_json_free(result);
	return kind;
}
