/*
 * html_evidence.c - what the HTML report may draw (html_internal.h).
 *
 * A worker writes its produced artifacts itself, so a file it lists is a
 * claim, not a measurement.  The charts take a gate report only from the
 * step of the phase that measures it (S0 from s0_baseline, the screening
 * from stage_a_scope_selection, trials from stage_o_option_tuning and
 * optional_experiments, the promotion from final_e2e_report), only when
 * the step's result still matches the digest it was sealed with, and only
 * when the report has the shape the chart reads; the headline comes only
 * from the Final step's ledger, validated as the seal validated it.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "html_internal.h"
#include "tunectl/fileio.h"
#include "tunectl/final.h"
#include "tunectl/path.h"
#include "tunectl/sha256.h"

static bool
finite_num(const tc_json *v)
{
	double d;

	return tc_json_number(v, &d) && isfinite(d);
}

/* A finite number, or null (a stability figure with too few runs). */
static bool
num_or_null(const tc_json *v)
{
	return finite_num(v) || tc_json_is(v, TC_JSON_NULL);
}

static bool
is_bool(const tc_json *v)
{
	return tc_json_is(v, TC_JSON_BOOL);
}

/* A list of 1..TC_HTML_MAX_RUNS finite numbers. */
static bool
run_list(const tc_json *v)
{
	size_t i;

	if (!tc_json_is(v, TC_JSON_ARRAY) || v->u.arr.len == 0 ||
	    v->u.arr.len > TC_HTML_MAX_RUNS)
		return false;
	for (i = 0; i < v->u.arr.len; i++)
		if (!finite_num(v->u.arr.items[i]))
			return false;
	return true;
}

static bool
stage_is(const tc_json *doc, const char *stage)
{
	const char *s = tc_json_get_string(tc_json_get(doc, "selection"),
	    "stage");

	return s != NULL && strcmp(s, stage) == 0;
}

/* The gate decision a candidate of this chart carries. */
static const char *
decision_of(enum tc_html_chart kind, const char **key)
{
	switch (kind) {
	case TC_HTML_STAGE_A:
		*key = "eligible";
		return "screening_eligibility";
	case TC_HTML_TRIAL:
		*key = "accepted";
		return "option_trial_evaluation";
	case TC_HTML_FINAL:
		*key = "promoted";
		return "promotion";
	default:
		*key = NULL;
		return NULL;
	}
}

static bool
candidates_ok(const tc_json *cands, enum tc_html_chart kind)
{
	const char *key, *block = decision_of(kind, &key);
	size_t i;

	if (!tc_json_is(cands, TC_JSON_OBJECT) || cands->u.obj.len == 0 ||
	    cands->u.obj.len > TC_HTML_MAX_CANDIDATES)
		return false;
	for (i = 0; i < cands->u.obj.len; i++) {
		const tc_json_member *m = &cands->u.obj.members[i];

		if (m->key_len == 0 || m->key_len > TC_HTML_MAX_NAME ||
		    strlen(m->key) != m->key_len ||
		    !tc_json_is(m->value, TC_JSON_OBJECT) ||
		    !finite_num(tc_json_get(m->value, "worst_rank_mean_ms")) ||
		    !finite_num(tc_json_get(m->value, "improvement_pct")) ||
		    !run_list(tc_json_get(m->value, "run_worst_rank_means_ms")) ||
		    !is_bool(tc_json_get(tc_json_get(m->value, block), key)))
			return false;
	}
	return true;
}

bool
tc_html_gate_report(const tc_json *doc, enum tc_html_chart kind)
{
	static const char *const stages[] = {
		"final_promotion", "candidate_screening", "winner_option_trial",
		"final_promotion"
	};
	const tc_json *st = tc_json_get(doc, "baseline_stability");
	const tc_json *base = tc_json_get(doc, "baseline");
	const tc_json *cands = tc_json_get(doc, "candidates");

	if (kind == TC_HTML_NONE || !tc_json_is(doc, TC_JSON_OBJECT) ||
	    !stage_is(doc, stages[kind]) || !tc_json_is(st, TC_JSON_OBJECT) ||
	    !run_list(tc_json_get(st, "run_worst_rank_means_ms")) ||
	    !num_or_null(tc_json_get(st, "mean_ms")) ||
	    !num_or_null(tc_json_get(st, "spread_pct")) ||
	    !is_bool(tc_json_get(st, "stable")) ||
	    !tc_json_is(base, TC_JSON_OBJECT) ||
	    !finite_num(tc_json_get(base, "worst_rank_mean_ms")) ||
	    !run_list(tc_json_get(base, "run_worst_rank_means_ms")))
		return false;
	if (kind == TC_HTML_S0)
		return tc_json_is(cands, TC_JSON_OBJECT) && cands->u.obj.len == 0;
	return candidates_ok(cands, kind);
}

enum tc_html_chart
tc_html_chart_of_phase(const char *phase, const tc_json *doc)
{
	if (phase == NULL)
		return TC_HTML_NONE;
	if (strcmp(phase, "s0_baseline") == 0)
		return TC_HTML_S0;
	if (strcmp(phase, "stage_a_scope_selection") == 0)
		return TC_HTML_STAGE_A;
	/* Stage O also seals stability reports of its incumbent: only the
	 * trials are drawn. */
	if ((strcmp(phase, "stage_o_option_tuning") == 0 ||
	    strcmp(phase, "optional_experiments") == 0) &&
	    stage_is(doc, "winner_option_trial"))
		return TC_HTML_TRIAL;
	if (strcmp(phase, "final_e2e_report") == 0)
		return TC_HTML_FINAL;
	return TC_HTML_NONE;
}

static bool
ends_with_json(const char *s)
{
	size_t n = strlen(s);

	return n >= 5 && strcmp(s + n - 5, ".json") == 0;
}

/* The step's result file, when it is what was sealed. */
static tc_json *
sealed_result(const tc_session *s, const tc_json *step, bool *changed)
{
	const char *rp = tc_json_get_string(step, "result_path");
	const char *sealed = tc_json_get_string(step, "result_sha256");
	char digest[TC_SHA256_HEX_LEN + 1];
	tc_error ignored = TC_ERROR_INIT;
	tc_json *result = NULL;
	char *path;

	*changed = false;
	if (rp == NULL || sealed == NULL)
		return NULL;
	path = tc_session_artifact_path(s, rp);
	result = tc_json_parse_file(path, &ignored);
	free(path);
	if (result == NULL || tc_json_digest(result, digest, &ignored) != 0 ||
	    strcmp(digest, sealed) != 0) {
		tc_json_free(result);
		result = NULL;
		*changed = true;
	}
	tc_error_clear(&ignored);
	return result;
}

/* Keep doc for the chart it feeds, or free it. */
static void
keep(struct tc_html_evidence *ev, enum tc_html_chart kind, tc_json *doc)
{
	tc_json **slot;

	if (!tc_html_gate_report(doc, kind)) {
		tc_json_free(doc);
		return;
	}
	if (kind == TC_HTML_TRIAL) {
		if (ev->trials->u.arr.len < TC_HTML_MAX_TRIALS)
			tc_json_array_push(ev->trials, doc);
		else
			tc_json_free(doc);
		return;
	}
	slot = kind == TC_HTML_S0 ? &ev->s0 : kind == TC_HTML_STAGE_A ?
	    &ev->stage_a : &ev->final;
	/* the first S0 and screening report, the last promotion */
	if (*slot == NULL || kind == TC_HTML_FINAL) {
		tc_json_free(*slot);
		*slot = doc;
	} else {
		tc_json_free(doc);
	}
}

static void
collect_reports(const tc_session *s, const char *phase, const tc_json *result,
    struct tc_html_evidence *ev)
{
	const tc_json *produced = tc_json_get(result, "produced_artifacts");
	size_t j;

	for (j = 0; tc_json_is(produced, TC_JSON_ARRAY) &&
	    j < produced->u.arr.len; j++) {
		const char *rel = tc_json_string(produced->u.arr.items[j]);
		char *file;
		tc_json *doc;

		if (rel == NULL || !ends_with_json(rel))
			continue;
		file = tc_path_under_root(s->artifact_root, rel, "artifact", NULL);
		doc = file != NULL ? tc_json_parse_file(file, NULL) : NULL;
		free(file);
		if (doc != NULL)
			keep(ev, tc_html_chart_of_phase(phase, doc), doc);
	}
}

void
tc_html_collect(const tc_session *s, struct tc_html_evidence *ev)
{
	size_t i, n = tc_session_step_count(s);

	memset(ev, 0, sizeof(*ev));
	ev->trials = tc_json_new_array();
	ev->steps = tc_xcalloc(n + 1, sizeof(*ev->steps));
	for (i = 0; i < n; i++) {
		const tc_json *step = tc_session_step_at(s, i);
		struct tc_html_step *hs;
		const char *phase;

		if (!tc_step_is_sealed(step))
			continue;
		hs = &ev->steps[ev->nsteps++];
		hs->step = step;
		hs->result = sealed_result(s, step, &hs->changed);
		if (hs->result == NULL)
			continue;
		phase = tc_json_get_string(step, "phase");
		collect_reports(s, phase, hs->result, ev);
		if (phase != NULL && strcmp(phase, "final_e2e_report") == 0) {
			tc_json_free(ev->ledger);
			ev->ledger = tc_final_load_ledger_value(s->artifact_root,
			    tc_json_get(hs->result, "ledger_path"), NULL);
		}
	}
}

void
tc_html_evidence_free(struct tc_html_evidence *ev)
{
	size_t i;

	for (i = 0; i < ev->nsteps; i++)
		tc_json_free(ev->steps[i].result);
	free(ev->steps);
	tc_json_free(ev->s0);
	tc_json_free(ev->stage_a);
	tc_json_free(ev->final);
	tc_json_free(ev->trials);
	tc_json_free(ev->ledger);
	memset(ev, 0, sizeof(*ev));
}
