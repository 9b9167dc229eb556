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
#include "tunectl/bench.h"
#include "tunectl/path.h"
#include "tunectl/refusal.h"
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

static const char *
candidates_problem(const tc_json *cands, enum tc_html_chart kind)
{
	const char *key, *block = decision_of(kind, &key);
	size_t i;

	if (!tc_json_is(cands, TC_JSON_OBJECT) || cands->u.obj.len == 0)
		return "candidates is not an object of at least one candidate";
	if (cands->u.obj.len > TC_HTML_MAX_CANDIDATES)
		return "more candidates than the page draws (64)";
	for (i = 0; i < cands->u.obj.len; i++) {
		const tc_json_member *m = &cands->u.obj.members[i];

		if (m->key_len == 0 || m->key_len > TC_HTML_MAX_NAME ||
		    strlen(m->key) != m->key_len)
			return "a candidate name is empty, longer than 128 "
			    "bytes or holds a NUL";
		if (!tc_json_is(m->value, TC_JSON_OBJECT) ||
		    !finite_num(tc_json_get(m->value, "worst_rank_mean_ms")) ||
		    !finite_num(tc_json_get(m->value, "improvement_pct")) ||
		    !run_list(tc_json_get(m->value, "run_worst_rank_means_ms")))
			return "a candidate lacks finite worst_rank_mean_ms, "
			    "improvement_pct or run_worst_rank_means_ms";
		if (!is_bool(tc_json_get(tc_json_get(m->value, block), key)))
			return "a candidate lacks its gate decision (screening_"
			    "eligibility.eligible, option_trial_evaluation."
			    "accepted or promotion.promoted)";
	}
	return NULL;
}

const char *
tc_html_gate_report_problem(const tc_json *doc, enum tc_html_chart kind)
{
	static const char *const stages[] = {
		"final_promotion", "candidate_screening", "winner_option_trial",
		"final_promotion"
	};
	const tc_json *st = tc_json_get(doc, "baseline_stability");
	const tc_json *base = tc_json_get(doc, "baseline");
	const tc_json *cands = tc_json_get(doc, "candidates");

	if (kind == TC_HTML_NONE || !tc_json_is(doc, TC_JSON_OBJECT) ||
	    !stage_is(doc, stages[kind]))
		return "selection.stage is not a gate stage (final_promotion, "
		    "candidate_screening, winner_option_trial)";
	if (!tc_json_is(st, TC_JSON_OBJECT) ||
	    !run_list(tc_json_get(st, "run_worst_rank_means_ms")) ||
	    !num_or_null(tc_json_get(st, "mean_ms")) ||
	    !num_or_null(tc_json_get(st, "spread_pct")) ||
	    !is_bool(tc_json_get(st, "stable")))
		return "baseline_stability lacks its runs, mean_ms, spread_pct "
		    "or stable";
	if (!tc_json_is(base, TC_JSON_OBJECT) ||
	    !finite_num(tc_json_get(base, "worst_rank_mean_ms")) ||
	    !run_list(tc_json_get(base, "run_worst_rank_means_ms")))
		return "baseline lacks a finite worst_rank_mean_ms or "
		    "run_worst_rank_means_ms";
	if (kind == TC_HTML_S0)
		return tc_json_is(cands, TC_JSON_OBJECT) && cands->u.obj.len == 0 ?
		    NULL : "a stability report has an empty candidates object";
	return candidates_problem(cands, kind);
}

bool
tc_html_gate_report(const tc_json *doc, enum tc_html_chart kind)
{
	return tc_html_gate_report_problem(doc, kind) == NULL;
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

/* The text of a parameter value: a string as it is, anything else as
 * its canonical JSON. */
static void
value_text(tc_buf *b, const tc_json *v)
{
	const char *str = tc_json_string(v);
	char *text;

	if (str != NULL) {
		tc_buf_puts(b, str);
	} else if ((text = tc_json_canonical(v, NULL, NULL)) != NULL) {
		tc_buf_puts(b, text);
		free(text);
	}
}

char *
tc_html_config_text(const tc_json *config)
{
	const tc_json *params = tc_json_get(config, "params");
	const char *variant = tc_json_get_string(config, "variant");
	tc_buf b = TC_BUF_INIT;
	size_t i;

	if (variant == NULL || !tc_json_is(params, TC_JSON_OBJECT))
		return NULL;
	tc_buf_puts(&b, variant);
	for (i = 0; i < params->u.obj.len; i++) {
		tc_buf_printf(&b, " %s=", params->u.obj.members[i].key);
		value_text(&b, params->u.obj.members[i].value);
	}
	return tc_buf_detach(&b, NULL);
}

static bool
schema_is(const tc_json *doc, const char *schema)
{
	const char *s = tc_json_get_string(doc, "schema_version");

	return s != NULL && strcmp(s, schema) == 0;
}

static void
set_label(tc_json *labels, const char *name, char *text)
{
	if (name != NULL && text != NULL && *name != '\0')
		tc_json_object_set_string(labels, name, text);
	free(text);
}

/*
 * The knobs of the candidates a step's document names: a tune config
 * "<dir>/<name>-config.json" ("fast n=2") and an option matrix item
 * ("n=2") go to strong (a later document over an earlier one: the
 * matrix follows the configs, so a trial reads as the option it
 * changed), a screening matrix candidate's only_change to weak; the
 * chart reads strong over weak.
 */
static void
labels_of(const char *rel, const tc_json *doc, tc_json *weak, tc_json *strong)
{
	const tc_json *items = tc_json_get(doc, "items");
	const tc_json *cands = tc_json_get(doc, "candidates");
	const char *base = strrchr(rel, '/');
	size_t i, n;

	base = base != NULL ? base + 1 : rel;
	n = strlen(base);
	if (schema_is(doc, "tunectl-tune-config-v1") && n > 12 &&
	    strcmp(base + n - 12, "-config.json") == 0) {
		char *name = tc_xstrndup(base, n - 12);

		set_label(strong, name, tc_html_config_text(doc));
		free(name);
	}
	for (i = 0; tc_json_is(items, TC_JSON_ARRAY) && i < items->u.arr.len;
	    i++) {
		const tc_json *it = items->u.arr.items[i];
		const char *opt = tc_json_get_string(it, "option");
		const char *status = tc_json_get_string(it, "status");
		tc_buf b = TC_BUF_INIT;

		if (opt == NULL || tc_json_get(it, "value") == NULL ||
		    (status != NULL && strcmp(status, "skipped") == 0))
			continue;
		tc_buf_printf(&b, "%s=", opt);
		value_text(&b, tc_json_get(it, "value"));
		set_label(strong, tc_json_get_string(it, "id"),
		    tc_buf_detach(&b, NULL));
	}
	for (i = 0; tc_json_is(cands, TC_JSON_ARRAY) && i < cands->u.arr.len;
	    i++) {
		const char *change = tc_json_get_string(cands->u.arr.items[i],
		    "only_change");

		if (change != NULL)
			set_label(weak, tc_json_get_string(cands->u.arr.items[i],
			    "id"), tc_xstrdup(change));
	}
}

/* weak, then strong over it, into the chart's labels. */
static void
merge_labels(tc_json *into, const tc_json *weak, const tc_json *strong)
{
	const tc_json *from[2] = { weak, strong };

	for (size_t k = 0; k < 2; k++)
		for (size_t i = 0; i < from[k]->u.obj.len; i++)
			tc_json_object_set(into, from[k]->u.obj.members[i].key,
			    tc_json_clone(from[k]->u.obj.members[i].value));
}

/* Keep doc for the chart it feeds, or free it.  accepted_s0: the S0
 * report the step's series document names (NULL: none named). */
static void
keep(struct tc_html_evidence *ev, enum tc_html_chart kind, tc_json *doc,
    const char *rel, const char *accepted_s0)
{
	tc_json **slot;
	bool take;

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
	if (kind == TC_HTML_S0 && accepted_s0 != NULL)
		take = strcmp(rel, accepted_s0) == 0;
	else if (kind == TC_HTML_S0)	/* the first stable one, else the first */
		take = *slot == NULL || (!tc_json_get(tc_json_get(*slot,
		    "baseline_stability"), "stable")->u.b &&
		    tc_json_get(tc_json_get(doc, "baseline_stability"),
		    "stable")->u.b);
	else	/* the first screening report, the last promotion */
		take = *slot == NULL || kind == TC_HTML_FINAL;
	if (take) {
		tc_json_free(*slot);
		*slot = doc;
	} else {
		tc_json_free(doc);
	}
}

/* "<step>: S0 stability gate (s0/stability.json)" and its refusal, when
 * doc is a gate report that refused something. */
static void
explain(struct tc_html_evidence *ev, const char *step_id, const char *rel,
    const tc_json *doc)
{
	const tc_json *cands = tc_json_get(doc, "candidates");
	const char *stage = tc_json_get_string(tc_json_get(doc, "selection"),
	    "stage");
	char *label;

	if (tc_json_get(doc, "baseline_stability") == NULL || stage == NULL)
		return;
	label = tc_xasprintf("%s: %s gate (%s)", step_id,
	    !tc_json_is(cands, TC_JSON_OBJECT) || cands->u.obj.len == 0 ?
	    "stability" : strcmp(stage, "candidate_screening") == 0 ?
	    "screening" : strcmp(stage, "winner_option_trial") == 0 ?
	    "option-trial" : "promotion", rel);
	tc_gate_explain(doc, label, &ev->refusals);
	free(label);
}

static tc_json *
load_json(const tc_session *s, const char *rel)
{
	char *file = tc_path_under_root(s->artifact_root, rel, "artifact", NULL);
	tc_json *doc = file != NULL ? tc_json_parse_file(file, NULL) : NULL;

	free(file);
	return doc;
}

/* The produced JSON documents of a step, in order (NULL where one is
 * no JSON inside the root). */
static tc_json **
load_produced(const tc_session *s, const tc_json *produced, size_t *n)
{
	tc_json **docs;
	size_t j;

	*n = tc_json_is(produced, TC_JSON_ARRAY) ? produced->u.arr.len : 0;
	docs = tc_xcalloc(*n + 1, sizeof(*docs));
	for (j = 0; j < *n; j++) {
		const char *rel = tc_json_string(produced->u.arr.items[j]);

		if (rel != NULL && ends_with_json(rel))
			docs[j] = load_json(s, rel);
	}
	return docs;
}

/* Is rel one of the produced documents, and a report the S0 chart draws? */
static bool
names_s0_report(const tc_json *produced, tc_json *const *docs, size_t n,
    const char *rel)
{
	for (size_t j = 0; j < n; j++) {
		const char *r = tc_json_string(produced->u.arr.items[j]);

		if (docs[j] != NULL && r != NULL && strcmp(r, rel) == 0 &&
		    tc_html_gate_report(docs[j], TC_HTML_S0))
			return true;
	}
	return false;
}

static void
collect_reports(const tc_session *s, const char *step_id, const char *phase,
    const tc_json *result, struct tc_html_evidence *ev)
{
	const tc_json *produced = tc_json_get(result, "produced_artifacts");
	tc_json *weak = tc_json_new_object(), *strong = tc_json_new_object();
	char *accepted_s0 = NULL;	/* owned: its document is freed below */
	enum tc_html_chart chart = TC_HTML_NONE;
	size_t j, n;
	tc_json **docs = load_produced(s, produced, &n);

	for (j = 0; j < n; j++) {
		const char *rel = tc_json_string(produced->u.arr.items[j]);

		if (docs[j] == NULL)
			continue;
		labels_of(rel, docs[j], weak, strong);
		/* s0/series.json: {"runset": ..., "stability": <report>} */
		if (tc_json_get_string(docs[j], "runset") != NULL &&
		    tc_json_get_string(docs[j], "stability") != NULL) {
			free(accepted_s0);
			accepted_s0 = tc_xstrdup(tc_json_get_string(docs[j],
			    "stability"));
		}
		if (ev->freeze == NULL &&
		    schema_is(docs[j], "tunectl-tune-freeze-v1")) {
			ev->freeze = tc_json_clone(docs[j]);
			ev->base_config = load_json(s, tc_json_get_string_or(
			    docs[j], "base_config", ""));
		}
	}
	/* a series document naming no S0 report of this step names none */
	if (accepted_s0 != NULL && !names_s0_report(produced, docs, n,
	    accepted_s0)) {
		free(accepted_s0);
		accepted_s0 = NULL;
	}
	for (j = 0; j < n; j++) {
		const char *rel = tc_json_string(produced->u.arr.items[j]);
		enum tc_html_chart kind;

		if (docs[j] == NULL)
			continue;
		explain(ev, step_id, rel, docs[j]);
		kind = tc_html_chart_of_phase(phase, docs[j]);
		if (kind == TC_HTML_STAGE_A || kind == TC_HTML_TRIAL)
			chart = kind;
		keep(ev, kind, docs[j], rel, accepted_s0);
		docs[j] = NULL;
	}
	if (chart != TC_HTML_NONE)
		merge_labels(ev->labels[chart], weak, strong);
	free(docs);
	free(accepted_s0);
	tc_json_free(weak);
	tc_json_free(strong);
}

/* The runset.json of a run set a gate report names by its absolute path,
 * read through the artifact root; NULL for one outside it or unreadable. */
static tc_json *
runset_manifest(const tc_session *s, const char *path)
{
	char *root = tc_path_resolve(s->artifact_root, NULL);
	char *abs = path != NULL && root != NULL ? tc_path_resolve(path, NULL) :
	    NULL;
	tc_json *rs = NULL;

	if (abs != NULL && tc_path_is_within(abs, root) &&
	    strcmp(abs, root) != 0) {
		char *rel_dir = tc_path_relative_to(abs, root);
		char *rel = tc_xasprintf("%s/runset.json", rel_dir);

		rs = load_json(s, rel);
		free(rel);
		free(rel_dir);
	}
	free(abs);
	free(root);
	return rs;
}

/* From the Final's run sets: the order its baseline was measured in
 * beside the winner (bench ab records it; NULL for a series measured on
 * its own), and per candidate whether it was one side of that
 * measurement (tc_runset_manifests_interleaved). */
static void
final_runsets(const tc_session *s, struct tc_html_evidence *ev)
{
	const tc_json *cands = tc_json_get(ev->final, "candidates");
	tc_json *base = runset_manifest(s, tc_json_get_string(tc_json_get(
	    ev->final, "baseline"), "path"));
	const char *order = tc_json_get_string(tc_json_get(base, "interleaved"),
	    "order");

	ev->final_order = order != NULL ? tc_xstrdup(order) : NULL;
	ev->final_interleaved = tc_json_new_object();
	for (size_t i = 0; tc_json_is(cands, TC_JSON_OBJECT) &&
	    i < cands->u.obj.len; i++) {
		const tc_json_member *m = &cands->u.obj.members[i];
		tc_json *rs = runset_manifest(s, tc_json_get_string(m->value,
		    "path"));

		tc_json_object_set_bool(ev->final_interleaved, m->key,
		    tc_runset_manifests_interleaved(base, rs));
		tc_json_free(rs);
	}
	tc_json_free(base);
}

void
tc_html_collect(const tc_session *s, struct tc_html_evidence *ev)
{
	size_t i, n = tc_session_step_count(s);
	enum tc_html_chart k;
	bool decisive_ok = true;

	memset(ev, 0, sizeof(*ev));
	ev->trials = tc_json_new_array();
	for (k = 0; k < TC_HTML_NONE; k++)
		ev->labels[k] = tc_json_new_object();
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
		collect_reports(s, tc_json_get_string_or(step, "step_id", "?"),
		    phase, hs->result, ev);
		if (phase != NULL && strcmp(phase, "final_e2e_report") == 0) {
			tc_json_free(ev->ledger);
			ev->ledger = tc_final_load_ledger_value(s->artifact_root,
			    tc_json_get(hs->result, "ledger_path"), NULL);
		}
	}
	if (ev->final != NULL)
		final_runsets(s, ev);
	/* the console's account of the refusal, when the step it reads
	 * still matches its seal */
	(void)tc_report_refusal(s, &ev->decisive_why, &ev->decisive);
	for (i = 0; ev->decisive != NULL && i < ev->nsteps; i++)
		if (strcmp(tc_json_get_string_or(ev->steps[i].step, "step_id",
		    ""), ev->decisive) == 0)
			decisive_ok = ev->steps[i].result != NULL;
	if (!decisive_ok) {
		ev->decisive = NULL;
		tc_buf_reset(&ev->decisive_why);
	}
}

void
tc_html_evidence_free(struct tc_html_evidence *ev)
{
	size_t i;
	enum tc_html_chart k;

	for (i = 0; i < ev->nsteps; i++)
		tc_json_free(ev->steps[i].result);
	free(ev->steps);
	tc_json_free(ev->s0);
	tc_json_free(ev->stage_a);
	tc_json_free(ev->final);
	free(ev->final_order);
	tc_json_free(ev->final_interleaved);
	tc_json_free(ev->trials);
	tc_json_free(ev->ledger);
	tc_json_free(ev->freeze);
	tc_json_free(ev->base_config);
	for (k = 0; k < TC_HTML_NONE; k++)
		tc_json_free(ev->labels[k]);
	tc_buf_free(&ev->refusals);
	tc_buf_free(&ev->decisive_why);
	memset(ev, 0, sizeof(*ev));
}
