/*
 * html_result.c - the result an engineer reads first (html_internal.h):
 * the table at the top of a session's report.html (what was tuned, the
 * baseline's and the winner's knobs, the improvement with its interval,
 * the verdict and the rules that made it), and the page of one gate
 * report made outside a session (`tunectl report html --gate`).
 *
 * Everything comes from sealed documents (or, for --gate, the one file
 * named and the run sets it names); the interval and the Mann-Whitney
 * p-value that a gate deciding by the mean does not write are computed
 * from the report's own runs with the gate's default seed and resamples
 * (the interval paired by round when the runs were interleaved, as
 * --decide-by ci pairs them), and the page says so and that the gate
 * decided by the mean.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "html_internal.h"
#include "tunectl/bench.h"
#include "tunectl/html.h"
#include "tunectl/path.h"
#include "tunectl/stats.h"

static const char *const EVALS[] = {
	"promotion", "option_trial_evaluation", "screening_eligibility"
};

/* The gate's evaluation of a candidate, whichever mode wrote it. */
static const tc_json *
evaluation_of(const tc_json *cand)
{
	for (size_t k = 0; k < sizeof(EVALS) / sizeof(*EVALS); k++)
		if (tc_json_is(tc_json_get(cand, EVALS[k]), TC_JSON_OBJECT))
			return tc_json_get(cand, EVALS[k]);
	return NULL;
}

/* Its decision: promoted / accepted / eligible. */
static bool
passed(const tc_json *cand, const char **word)
{
	static const char *const keys[] = { "promoted", "accepted", "eligible" };

	for (size_t k = 0; k < 3; k++) {
		const tc_json *v = tc_json_get(tc_json_get(cand, EVALS[k]),
		    keys[k]);

		if (tc_json_is(v, TC_JSON_BOOL)) {
			*word = keys[k];
			return v->u.b;
		}
	}
	*word = "decided";
	return false;
}

/* A run list (validated by tc_html_gate_report) as doubles. */
static double *
runs_of(const tc_json *runs, size_t *n)
{
	double *v;

	*n = runs->u.arr.len;
	v = tc_xcalloc(*n + 1, sizeof(double));
	for (size_t i = 0; i < *n; i++)
		tc_json_number(runs->u.arr.items[i], &v[i]);
	return v;
}

/* Whether run k of the baseline and of the candidate ran in the same
 * round: as many runs, run k of each named alike (run-K). */
static bool
same_rounds(const tc_json *base, const tc_json *cand)
{
	const tc_json *br = tc_json_get(base, "runs");
	const tc_json *cr = tc_json_get(cand, "runs");

	if (!tc_json_is(br, TC_JSON_ARRAY) || !tc_json_is(cr, TC_JSON_ARRAY) ||
	    br->u.arr.len == 0 || br->u.arr.len != cr->u.arr.len)
		return false;
	for (size_t k = 0; k < br->u.arr.len; k++) {
		const char *bp = tc_json_get_string(br->u.arr.items[k], "path");
		const char *cp = tc_json_get_string(cr->u.arr.items[k], "path");

		if (bp == NULL || cp == NULL || strcmp(tc_path_basename(bp),
		    tc_path_basename(cp)) != 0)
			return false;
	}
	return true;
}

/* The gate's own interval's resampling, from ci_resampling. */
static const char *
gate_resampling(const tc_json *ev)
{
	const char *r = tc_json_get_string(ev, "ci_resampling");

	if (r == NULL)
		return NULL;
	return strncmp(r, "paired", 6) == 0 ? "paired" : "independent";
}

void
tc_html_figures(const tc_json *report, const tc_json *cand,
    bool interleaved, struct tc_html_figures *f)
{
	const tc_json *ev = evaluation_of(cand);
	const tc_json *ci = tc_json_get(ev, "ci95_improvement_pct");
	size_t nb, nc;
	double *b = runs_of(tc_json_get(tc_json_get(report, "baseline"),
	    "run_worst_rank_means_ms"), &nb);
	double *c = runs_of(tc_json_get(cand, "run_worst_rank_means_ms"), &nc);
	tc_mwu mwu;

	f->mean_pct = tc_report__num(ev, "mean_improvement_pct");
	if (!isfinite(f->mean_pct))
		f->mean_pct = tc_report__num(cand, "improvement_pct");
	f->ci_from_gate = tc_json_is(ci, TC_JSON_ARRAY) && ci->u.arr.len == 2 &&
	    tc_json_number(ci->u.arr.items[0], &f->lo) &&
	    tc_json_number(ci->u.arr.items[1], &f->hi) && isfinite(f->lo) &&
	    isfinite(f->hi);
	if (f->ci_from_gate || strcmp(tc_json_get_string_or(ev, "decide_by",
	    "mean"), "ci") == 0) {
		/* the gate's (its bounds null: it could compute none) */
		f->ci_ok = f->ci_from_gate;
		f->resampling = gate_resampling(ev);
	} else if (interleaved && nb == nc && same_rounds(tc_json_get(report,
	    "baseline"), cand)) {
		f->resampling = "paired";
		f->ci_ok = tc_bootstrap_paired_improvement_ci(b, c, nb,
		    TC_BOOTSTRAP_RESAMPLES, TC_BOOTSTRAP_SEED, &f->lo, &f->hi);
	} else {
		f->resampling = "independent";
		f->ci_ok = tc_bootstrap_improvement_ci(b, nb, c, nc,
		    TC_BOOTSTRAP_RESAMPLES, TC_BOOTSTRAP_SEED, &f->lo, &f->hi);
	}
	tc_mann_whitney(b, nb, c, nc, &mwu);
	f->p_value = mwu.p_value;
	free(b);
	free(c);
}

static void
pct(tc_buf *b, double v)
{
	if (isfinite(v))
		tc_buf_printf(b, "%+.2f %%", v);
	else if (isinf(v))
		tc_buf_puts(b, v > 0 ? "unbounded" : "-unbounded");
	else
		tc_buf_puts(b, "n/a");
}

/* The interval alone: "[+39.10 %, +43.00 %]", or "not computed". */
static void
interval_text(tc_buf *b, const struct tc_html_figures *f, double lo,
    double hi)
{
	if (!f->ci_ok) {
		tc_buf_puts(b, "not computed");
		return;
	}
	tc_buf_puts(b, "[");
	pct(b, lo);
	tc_buf_puts(b, ", ");
	pct(b, hi);
	tc_buf_puts(b, "]");
}

/* Whose interval it is and how it resampled the runs: the gate's, that
 * decided by it, or one computed for the page because the gate decided
 * by the mean and wrote none. */
static void
interval_source(tc_buf *b, const struct tc_html_figures *f)
{
	const char *how = f->resampling == NULL ? NULL :
	    strcmp(f->resampling, "paired") == 0 ?
	    "paired by round (interleaved runs)" :
	    "each run set resampled on its own";

	if (f->ci_from_gate) {
		tc_buf_puts(b, "the gate's, which decided by it");
		if (how != NULL)
			tc_buf_printf(b, "; %s", how);
		return;
	}
	tc_buf_printf(b, "the gate decided by the mean and wrote no interval: "
	    "a bootstrap of the report's runs, %s, computed for this page",
	    how);
}

/* "+41.20 % (95 % interval [+39.10 %, +43.00 %], computed ...; p = 0.008)" */
static void
figures_text(tc_buf *b, const struct tc_html_figures *f)
{
	pct(b, f->mean_pct);
	tc_buf_puts(b, " mean, 95 % interval ");
	interval_text(b, f, f->lo, f->hi);
	if (f->ci_ok) {
		tc_buf_puts(b, " (");
		interval_source(b, f);
		tc_buf_puts(b, ")");
	}
	if (isfinite(f->p_value))
		tc_buf_printf(b, "; Mann-Whitney p = %.3g", f->p_value);
}

/*
 * The same figures of a metric better higher, whose runs logged 1/value:
 * first in the figure's own unit and direction, the mean and each bound
 * of the interval mapped by tc_reciprocal_gain_pct (the map rises, so
 * the bounds stay in order), then the reciprocal's as the gate compared
 * them, each labelled.  The mean of the reciprocals is the reciprocal of
 * the figure's harmonic mean, hence "harmonic mean".
 */
static void
figures_text_higher(tc_buf *b, const struct tc_html_figures *f,
    const char *unit)
{
	tc_buf_puts(b, "<span class=\"figure\">in ");
	tc_html_cstr(b, unit);
	tc_buf_puts(b, ", higher is better: ");
	pct(b, tc_reciprocal_gain_pct(f->mean_pct));
	tc_buf_puts(b, " harmonic mean, 95 % interval ");
	interval_text(b, f, tc_reciprocal_gain_pct(f->lo),
	    tc_reciprocal_gain_pct(f->hi));
	if (f->ci_ok) {
		tc_buf_puts(b, " (");
		interval_source(b, f);
		tc_buf_puts(b, "; each bound of the reciprocal's mapped by "
		    "1/(1 - d) - 1)");
	}
	tc_buf_puts(b, "</span>; <span class=\"reciprocal\">of the reciprocal "
	    "1/value the gates compare, lower is better: ");
	pct(b, f->mean_pct);
	tc_buf_puts(b, " mean, 95 % interval ");
	interval_text(b, f, f->lo, f->hi);
	tc_buf_puts(b, "</span>");
	if (isfinite(f->p_value))
		tc_buf_printf(b, "; Mann-Whitney p = %.3g (the same for both: "
		    "ranks)", f->p_value);
}

void
tc_html_rules(tc_buf *b, const tc_json *ev, const tc_json *report,
    const tc_json *gate)
{
	const tc_json *st = tc_json_get(report, "baseline_stability");
	const tc_json *waived = tc_json_get(ev, "waived_by_interval");
	const char *decide = tc_json_get_string(ev, "decide_by");
	const char *rule = tc_json_get_string(ev, "stability_rule");
	const char *mrule = tc_json_get_string(ev, "mean_improvement_rule");
	double min = tc_report__num(ev, "min_improvement_pct");
	double spread = tc_report__num(st, "spread_pct");
	double limit = tc_report__num(st, "max_spread_pct");

	if (decide == NULL)	/* an evaluation without the key: the mean */
		decide = ev != NULL ? "mean" :
		    tc_json_get_string_or(gate, "decide_by", "mean");
	if (rule == NULL) {
		const char *frozen = ev != NULL ? NULL : tc_json_get_string(
		    tc_json_get(gate, "stability"), "rule");

		rule = frozen != NULL && strcmp(frozen, "relative") == 0 ?
		    "relative" : "reference";
	}
	if (!isfinite(min))
		min = tc_report__num(gate, "min_improvement_pct");
	if (!isfinite(limit))
		limit = tc_report__num(tc_json_get(gate, "stability"),
		    "max_spread_pct");
	tc_buf_puts(b, "decide-by rule <b>");
	tc_html_cstr(b, decide);
	tc_buf_puts(b, "</b>: ");
	if (strcmp(decide, "ci") == 0 && tc_json_get_string(ev,
	    "decision_rule") != NULL)
		tc_html_cstr(b, tc_json_get_string(ev, "decision_rule"));
	else if (strcmp(decide, "ci") == 0)
		tc_buf_puts(b, "bootstrap 95% interval of the improvement "
		    "excludes 0 and its lower bound is &gt;= min_improvement_pct");
	else if (mrule != NULL && strcmp(mrule, "strictly_positive") == 0)
		tc_buf_puts(b, "the reference's: mean improvement &gt; 0");
	else
		tc_buf_puts(b, "the reference's: mean improvement &gt;= "
		    "min_improvement_pct");
	if (isfinite(min))
		tc_buf_printf(b, " (min_improvement_pct %g %%)", min);
	tc_buf_puts(b, "; stability rule <b>");
	tc_html_cstr(b, rule);
	tc_buf_puts(b, "</b>");
	if (tc_json_is(waived, TC_JSON_ARRAY)) {
		tc_buf_puts(b, " (waived by the interval: ");
		for (size_t i = 0; i < waived->u.arr.len; i++) {
			if (i > 0)
				tc_buf_puts(b, ", ");
			tc_html_cstr(b, tc_json_string(waived->u.arr.items[i]));
		}
		tc_buf_puts(b, waived->u.arr.len == 0 ? "none)" : ")");
	}
	if (isfinite(spread)) {
		tc_buf_printf(b, "; baseline spread %.2f %% ", spread);
		if (isfinite(limit))
			tc_buf_printf(b, "%s %g %%", spread <= limit ? "&lt;=" :
			    "&gt;", limit);
		tc_buf_printf(b, " (%s, %zu runs)", tc_json_get(st,
		    "stable")->u.b ? "stable" : "unstable",
		    tc_json_get(st, "run_worst_rank_means_ms")->u.arr.len);
	}
}

void
tc_html_lines(tc_buf *b, const char *text)
{
	const char *line = text;

	if (text == NULL || *text == '\0')
		return;
	tc_buf_puts(b, "<ul class=\"refusals\">");
	while (line != NULL && *line != '\0') {
		const char *nl = strchr(line, '\n');
		size_t n = nl != NULL ? (size_t)(nl - line) : strlen(line);

		tc_buf_puts(b, "<li>");
		tc_html_text(b, line, n);
		tc_buf_puts(b, "</li>");
		line = nl != NULL ? nl + 1 : NULL;
	}
	tc_buf_puts(b, "</ul>");
}

static void
row_open(tc_buf *b, const char *id, const char *head)
{
	tc_buf_printf(b, "<tr id=\"result-%s\"><th>%s</th><td>", id, head);
}

static void
row_close(tc_buf *b)
{
	tc_buf_puts(b, "</td></tr>");
}

/* The Final report's candidate the ledger settled, else its first. */
static const tc_json_member *
final_candidate(const tc_json *report, const char *id, size_t *idx)
{
	const tc_json *cands = tc_json_get(report, "candidates");

	*idx = 0;
	for (size_t i = 0; id != NULL && i < cands->u.obj.len; i++)
		if (strcmp(cands->u.obj.members[i].key, id) == 0)
			*idx = i;
	return &cands->u.obj.members[*idx];
}

/* The spec's metric is better higher: its run sets log 1/value. */
static bool
higher_is_better(const struct tc_html_evidence *ev)
{
	const char *dir = tc_json_get_string(tc_json_get(ev->freeze, "metric"),
	    "direction");

	return dir != NULL && strcmp(dir, "higher") == 0;
}

static void
tuned_row(tc_buf *b, const struct tc_html_evidence *ev)
{
	const tc_json *spec = tc_json_get(ev->freeze, "spec");
	const tc_json *metric = tc_json_get(ev->freeze, "metric");
	const char *how = tc_json_get_string(metric, "regex");

	if (ev->freeze == NULL)
		return;
	row_open(b, "tuned", "What was tuned");
	tc_buf_puts(b, "the program of the workload spec <code>");
	tc_html_cstr(b, tc_json_get_string_or(spec, "path", "?"));
	tc_buf_puts(b, "</code>; metric read from ");
	tc_html_cstr(b, tc_json_get_string_or(metric, "from", "?"));
	if (how == NULL)
		how = tc_json_get_string(metric, "pointer");
	if (how != NULL) {
		tc_buf_puts(b, " by <code>");
		tc_html_cstr(b, how);
		tc_buf_puts(b, "</code>");
	}
	tc_buf_puts(b, " in ");
	tc_html_cstr(b, tc_json_get_string_or(metric, "unit", "?"));
	tc_buf_puts(b, ", ");
	tc_html_cstr(b, tc_json_get_string_or(metric, "direction", "?"));
	tc_buf_puts(b, " is better");
	if (higher_is_better(ev))
		tc_buf_puts(b, "; every run logs the reciprocal 1/value (the "
		    "time per unit), which the gates compare with lower as "
		    "better, and the figures below are converted back");
	row_close(b);
}

static void
config_row(tc_buf *b, const char *id, const char *head, const char *knobs,
    const tc_json *fe_metrics, const char *who,
    const struct tc_html_evidence *ev)
{
	double median = tc_report__num(fe_metrics, "median_ms");
	const tc_json *metric = tc_json_get(ev->freeze, "metric");

	row_open(b, id, head);
	if (knobs != NULL) {
		tc_buf_puts(b, "<code>");
		tc_html_cstr(b, knobs);
		tc_buf_puts(b, "</code>");
	}
	if (who != NULL) {
		tc_buf_puts(b, knobs != NULL ? " (" : "");
		tc_html_cstr(b, who);
		tc_buf_puts(b, knobs != NULL ? ")" : "");
	}
	if (isfinite(median) && higher_is_better(ev) && median > 0) {
		tc_buf_printf(b, ", %.6g ", 1.0 / median);
		tc_html_cstr(b, tc_json_get_string_or(metric, "unit", "?"));
		tc_buf_printf(b, " (the reciprocal of the median worst-rank "
		    "mean %.6g the runs logged) in the final clean E2E",
		    median);
	} else if (isfinite(median)) {
		tc_buf_printf(b, ", median worst-rank mean %.4f ms in the "
		    "final clean E2E", median);
	}
	row_close(b);
}

void
tc_html_result_table(tc_buf *b, const struct tc_html_evidence *ev)
{
	const tc_json *fe = tc_json_get(ev->ledger, "final_e2e");
	const char *cls = tc_json_get_string(fe, "classification");
	const char *cand_id = tc_json_get_string(fe, "candidate_id");
	const tc_json *gate = tc_json_get(ev->freeze, "gate");
	const tc_json *ev_final = NULL;
	const tc_json *report = ev->final != NULL ? ev->final : ev->s0;
	bool good = cls != NULL && strcmp(cls, "beneficial") == 0;
	char *base = tc_html_config_text(ev->base_config);
	double imp = tc_report__num(fe, "improvement_pct");

	tc_buf_puts(b, "<section id=\"result\"><h2>Result</h2>"
	    "<table class=\"result\"><tbody>");
	tuned_row(b, ev);
	config_row(b, "baseline", "Baseline", base, tc_json_get(fe, "baseline"),
	    base != NULL ? NULL : "the frozen S0 configuration", ev);
	if (good)
		config_row(b, "winner", "Winner", tc_json_get_string(fe,
		    "scope_strategy"), tc_json_get(fe, "candidate"), cand_id,
		    ev);
	else
		config_row(b, "winner", "Winner", NULL, NULL,
		    "none: the baseline is kept", ev);
	row_open(b, "improvement", "Improvement");
	if (isfinite(imp) && higher_is_better(ev))
		/* 1/c = (1 - imp/100) / b: the figure grew by 1/(1 - imp) */
		tc_buf_printf(b, "%+.2f %% of the median figure, %+.2f %% of "
		    "its reciprocal (final clean E2E)",
		    tc_reciprocal_gain_pct(imp), imp);
	else if (isfinite(imp))
		tc_buf_printf(b, "%+.2f %% of the median (final clean E2E)", imp);
	if (ev->final != NULL) {
		struct tc_html_figures f;
		size_t idx;
		const tc_json_member *m = final_candidate(ev->final, cand_id,
		    &idx);
		const tc_json *il = tc_json_get(ev->final_interleaved, m->key);

		tc_html_figures(ev->final, m->value, tc_json_is(il,
		    TC_JSON_BOOL) && il->u.b, &f);
		ev_final = evaluation_of(m->value);
		tc_buf_puts(b, isfinite(imp) ? "; " : "");
		if (higher_is_better(ev))
			figures_text_higher(b, &f, tc_json_get_string_or(
			    tc_json_get(ev->freeze, "metric"), "unit", "?"));
		else
			figures_text(b, &f);
	} else if (!isfinite(imp)) {
		tc_buf_puts(b, "not measured: no candidate reached the final "
		    "clean E2E");
	}
	row_close(b);
	if (ev->final_order != NULL) {
		row_open(b, "order", "Runs");
		tc_buf_puts(b, "runs interleaved: ");
		tc_html_cstr(b, ev->final_order);
		tc_buf_puts(b, " (the Final's baseline A and winner B, one run "
		    "of each in turn)");
		row_close(b);
	}
	row_open(b, "verdict", "Verdict");
	tc_buf_printf(b, "<b class=\"%s\">", good ? "ok" : "bad");
	tc_html_cstr(b, cls != NULL ? cls : "no final clean E2E yet");
	tc_buf_puts(b, "</b>");
	if (fe != NULL) {
		tc_buf_puts(b, ": ");
		tc_html_cstr(b, tc_json_get_string_or(fe, "reason_zh", ""));
	}
	row_close(b);
	row_open(b, "why", "Why");
	if (report != NULL || gate != NULL)
		tc_html_rules(b, ev_final, report, gate);
	if (ev->decisive != NULL) {
		tc_buf_puts(b, "<p>Stopped by step <code>");
		tc_html_cstr(b, ev->decisive);
		tc_buf_puts(b, "</code>:</p>");
		tc_html_lines(b, tc_buf_cstr(&ev->decisive_why));
	} else if (good) {
		tc_buf_puts(b, "<p>Every check of the Final gate passed.</p>");
	}
	row_close(b);
	tc_buf_puts(b, "</tbody></table></section>");
	free(base);
}

/* ---- report html --gate ------------------------------------------------ */

/* What the report is drawn as, or TC_HTML_NONE. */
static enum tc_html_chart
gate_kind(const tc_json *doc)
{
	const char *stage = tc_json_get_string(tc_json_get(doc, "selection"),
	    "stage");
	const tc_json *cands = tc_json_get(doc, "candidates");

	if (stage == NULL)
		return TC_HTML_NONE;
	if (strcmp(stage, "candidate_screening") == 0)
		return TC_HTML_STAGE_A;
	if (strcmp(stage, "winner_option_trial") == 0)
		return TC_HTML_TRIAL;
	if (strcmp(stage, "final_promotion") == 0)
		return tc_json_is(cands, TC_JSON_OBJECT) &&
		    cands->u.obj.len == 0 ? TC_HTML_S0 : TC_HTML_FINAL;
	return TC_HTML_NONE;
}

static const char *const KIND_NAMES[] = {
	"S0 stability (gate stability)", "screening (gate screen)",
	"option trial (gate option-trial)",
	"final promotion (gate promote / gate analyze)"
};

/* What a gate page shows beside the report: whether its run sets logged
 * 1/value (bench run --metric-higher), from the report's tunectl block,
 * else its provenance record, else the baseline run set's runset.json,
 * the order interleaved runs were taken in (bench ab), or NULL, and that
 * runset.json (NULL: moved or removed since), which tells with each
 * candidate's whether the two were measured side by side. */
struct gate_page {
	bool higher;
	char *order;
	tc_json *base_rs;
};

/* Whether candidate cand was measured interleaved with the page's
 * baseline: both run sets' runset.json, where the report names them. */
static bool
gate_interleaved(const struct gate_page *pg, const tc_json *cand)
{
	const char *path = tc_json_get_string(cand, "path");
	char *p;
	tc_json *rs;
	bool il;

	if (pg->base_rs == NULL || path == NULL)
		return false;
	p = tc_xasprintf("%s/runset.json", path);
	rs = tc_json_parse_file(p, NULL);
	free(p);
	il = tc_runset_manifests_interleaved(pg->base_rs, rs);
	tc_json_free(rs);
	return il;
}

static void
gate_page_read(const char *path, const tc_json *doc, struct gate_page *pg)
{
	const char *dir = tc_json_get_string(tc_json_get(tc_json_get(doc,
	    "tunectl"), "metric"), "direction");
	const char *base = tc_json_get_string(tc_json_get(doc, "baseline"),
	    "path");
	char *pp = tc_xasprintf("%s.provenance.json", path);
	tc_json *prov = tc_json_parse_file(pp, NULL), *rs = NULL;

	free(pp);
	memset(pg, 0, sizeof(*pg));
	/* a reference-shaped report has no tunectl block: its record says */
	if (dir == NULL)
		dir = tc_json_get_string(tc_json_get(prov, "metric"),
		    "direction");
	if (base != NULL) {
		char *p = tc_xasprintf("%s/runset.json", base);

		/* a run set moved or removed since: the report alone */
		rs = tc_json_parse_file(p, NULL);
		free(p);
	}
	if (dir == NULL)
		dir = tc_json_get_string(tc_json_get(rs, "metric"), "direction");
	pg->higher = dir != NULL && strcmp(dir, "higher") == 0;
	if (tc_json_get_string(tc_json_get(rs, "interleaved"), "order"))
		pg->order = tc_xstrdup(tc_json_get_string(tc_json_get(rs,
		    "interleaved"), "order"));
	pg->base_rs = rs;
	tc_json_free(prov);
}

/* A logged worst-rank mean: in ms, or for a reciprocal run set the
 * figure it stands for and the reciprocal, labelled. */
static void
logged_mean(tc_buf *b, const struct gate_page *pg, double v)
{
	if (!pg->higher)
		tc_buf_printf(b, "%.4f ms", v);
	else if (v > 0 && isfinite(v))
		tc_buf_printf(b, "%.6g per unit of the program's figure (higher "
		    "is better; logged as its reciprocal %.6g)", 1.0 / v, v);
	else
		tc_buf_puts(b, "n/a (a reciprocal that is not positive)");
}

static void
gate_candidates(tc_buf *b, const tc_json *doc, const struct gate_page *pg)
{
	const tc_json *cands = tc_json_get(doc, "candidates");

	tc_buf_puts(b, "<table class=\"result\"><thead><tr><th>candidate</th>"
	    "<th>worst-rank mean</th><th>improvement</th><th>verdict</th>"
	    "<th>why</th></tr></thead><tbody>");
	for (size_t i = 0; i < cands->u.obj.len; i++) {
		const tc_json_member *m = &cands->u.obj.members[i];
		struct tc_html_figures f;
		const char *word;
		bool ok = passed(m->value, &word);
		tc_buf why = TC_BUF_INIT;
		tc_json *one = tc_json_new_object(), *wrap = tc_json_new_object();

		tc_html_figures(doc, m->value, gate_interleaved(pg, m->value),
		    &f);
		tc_buf_puts(b, "<tr><td>");
		tc_html_text(b, m->key, m->key_len);
		tc_buf_puts(b, "</td><td>");
		logged_mean(b, pg, tc_report__num(m->value,
		    "worst_rank_mean_ms"));
		tc_buf_puts(b, "</td><td>");
		if (pg->higher)
			figures_text_higher(b, &f, "the program's unit");
		else
			figures_text(b, &f);
		tc_buf_printf(b, "</td><td><b class=\"%s\">%s%s</b></td><td>",
		    ok ? "ok" : "bad", ok ? "" : "not ", word);
		/* this candidate's refusal alone */
		tc_json_object_set(one, m->key, tc_json_clone(m->value));
		tc_json_object_set(wrap, "candidates", one);
		if (tc_gate_explain(wrap, "refused", &why))
			tc_html_lines(b, tc_buf_cstr(&why));
		else
			tc_buf_puts(b, "every check passed");
		tc_buf_puts(b, "</td></tr>");
		tc_buf_free(&why);
		tc_json_free(wrap);
	}
	tc_buf_puts(b, "</tbody></table>");
}

static void
runs_row(tc_buf *b, const char *who, size_t len, const tc_json *runs)
{
	double v;

	tc_buf_puts(b, "<tr><td>");
	tc_html_text(b, who, len);
	tc_buf_printf(b, "</td><td>%zu</td><td>", runs->u.arr.len);
	for (size_t i = 0; i < runs->u.arr.len; i++)
		if (tc_json_number(runs->u.arr.items[i], &v))
			tc_buf_printf(b, "%s%.4f", i > 0 ? ", " : "", v);
	tc_buf_puts(b, "</td></tr>");
}

static void
gate_runs(tc_buf *b, const tc_json *doc, enum tc_html_chart kind)
{
	const tc_json *cands = tc_json_get(doc, "candidates");
	tc_json *trials;

	tc_buf_puts(b, "<section id=\"runs\"><h2>Runs</h2>");
	switch (kind) {
	case TC_HTML_S0:
		tc_html_chart_s0(b, doc);
		break;
	case TC_HTML_STAGE_A:
		tc_html_chart_stage_a(b, doc, NULL);
		break;
	case TC_HTML_TRIAL:
		trials = tc_json_new_array();
		tc_json_array_push(trials, tc_json_clone(doc));
		tc_html_chart_trials(b, trials, NULL);
		tc_json_free(trials);
		break;
	default:
		for (size_t i = 0; i < cands->u.obj.len && i < 8; i++)
			tc_html_chart_final(b, doc, i, NULL);
		break;
	}
	tc_buf_puts(b, "<table><thead><tr><th>run set</th><th>runs</th>"
	    "<th>per-run worst-rank mean (ms)</th></tr></thead><tbody>");
	runs_row(b, "baseline", 8, tc_json_get(tc_json_get(doc, "baseline"),
	    "run_worst_rank_means_ms"));
	for (size_t i = 0; i < cands->u.obj.len; i++)
		runs_row(b, cands->u.obj.members[i].key,
		    cands->u.obj.members[i].key_len, tc_json_get(
		    cands->u.obj.members[i].value, "run_worst_rank_means_ms"));
	tc_buf_puts(b, "</tbody></table></section>");
}

static void
gate_body(tc_buf *b, const tc_json *doc, enum tc_html_chart kind,
    const struct gate_page *pg)
{
	const tc_json *st = tc_json_get(doc, "baseline_stability");
	const tc_json *cands = tc_json_get(doc, "candidates");
	const tc_json *first = kind == TC_HTML_S0 ? NULL :
	    evaluation_of(cands->u.obj.members[0].value);
	size_t npass = 0;
	const char *word = "stable";
	tc_buf why = TC_BUF_INIT;

	for (size_t i = 0; kind != TC_HTML_S0 && i < cands->u.obj.len; i++)
		npass += passed(cands->u.obj.members[i].value, &word);
	tc_buf_printf(b, "<header><h1>Gate report: %s</h1><p class=\"outcome\">",
	    KIND_NAMES[kind]);
	if (kind == TC_HTML_S0)
		tc_buf_printf(b, "The baseline is <b class=\"%s\">%s</b>.",
		    tc_json_get(st, "stable")->u.b ? "ok" : "bad",
		    tc_json_get(st, "stable")->u.b ? "stable" : "unstable");
	else
		tc_buf_printf(b, "<b class=\"%s\">%zu of %zu</b> candidates %s.",
		    npass > 0 ? "ok" : "bad", npass, cands->u.obj.len, word);
	tc_buf_puts(b, "</p></header><section id=\"result\"><h2>Result</h2>"
	    "<table class=\"result\"><tbody>");
	row_open(b, "baseline", "Baseline");
	tc_buf_puts(b, "worst-rank mean ");
	logged_mean(b, pg, tc_report__num(tc_json_get(doc, "baseline"),
	    "worst_rank_mean_ms"));
	tc_buf_printf(b, " over %zu runs",
	    tc_json_get(st, "run_worst_rank_means_ms")->u.arr.len);
	row_close(b);
	if (pg->order != NULL) {
		row_open(b, "order", "Runs");
		tc_buf_puts(b, "runs interleaved: ");
		tc_html_cstr(b, pg->order);
		row_close(b);
	}
	row_open(b, "rule", "Rule");
	tc_html_rules(b, first, doc, NULL);
	row_close(b);
	tc_buf_puts(b, "</tbody></table>");
	if (kind != TC_HTML_S0)
		gate_candidates(b, doc, pg);
	tc_buf_puts(b, "</section><section id=\"refusals\"><h2>Refusals</h2>");
	if (tc_gate_explain(doc, "gate", &why))
		tc_html_lines(b, tc_buf_cstr(&why));
	else
		tc_buf_puts(b, "<p>None: the gate refused nothing.</p>");
	tc_buf_puts(b, "</section>");
	tc_buf_free(&why);
	gate_runs(b, doc, kind);
}

int
tc_report_html_gate(const char *path, tc_buf *out, tc_error *err)
{
	tc_error perr = TC_ERROR_INIT;
	tc_json *doc = tc_json_parse_file(path, &perr);
	enum tc_html_chart kind;
	struct gate_page pg;
	const char *problem;

	if (doc == NULL) {
		tc_error_set(err, "cannot read the gate report %s: %s", path,
		    tc_error_msg(&perr));
		tc_error_clear(&perr);
		return -1;
	}
	kind = gate_kind(doc);
	problem = kind == TC_HTML_NONE ? "it has no selection.stage of a gate "
	    "(final_promotion, candidate_screening, winner_option_trial)" :
	    tc_html_gate_report_problem(doc, kind);
	if (problem != NULL) {
		tc_error_set(err, "%s is not a gate report that report html "
		    "draws: %s (write one with tunectl gate analyze|stability|"
		    "promote|screen|option-trial ... --json-out FILE)", path,
		    problem);
		tc_json_free(doc);
		return -1;
	}
	gate_page_read(path, doc, &pg);
	tc_html_page_open(out, "tunectl gate report: ", path, "");
	gate_body(out, doc, kind, &pg);
	free(pg.order);
	tc_json_free(pg.base_rs);
	tc_html_page_close(out, "one gate report, not a sealed session");
	tc_json_free(doc);
	return 0;
}

int
tc_report_html_gate_write(const char *gate_path, const char *output,
    tc_error *err)
{
	tc_buf b = TC_BUF_INIT;

	return tc_html_publish(tc_report_html_gate(gate_path, &b, err), &b,
	    output, err);
}
