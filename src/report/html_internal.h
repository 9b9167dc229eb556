/*
 * html_internal.h - the parts of the HTML report (html.h): what markup a
 * document's text may become (html_markup.c), which sealed evidence the
 * charts may draw and how it is checked (html_evidence.c), and the SVG
 * charts (html_charts.c).  html.c puts the page together; html_analysis.c
 * draws the view of a fusion analysis on the same skeleton.
 *
 * Every byte of the page that comes from a document goes through
 * tc_html_text() or tc_html_href(); a chart draws only numbers and names
 * that tc_html_gate_report() accepted.
 */
#ifndef TUNECTL_HTML_INTERNAL_H
#define TUNECTL_HTML_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>

#include "tunectl/buf.h"
#include "tunectl/json.h"
#include "tunectl/session.h"

/* ---- html_markup.c -------------------------------------------------------- */

/*
 * Text (element content or a double-quoted attribute value) from a
 * document: & < > " ' become entities, and every code point XML 1.0 does
 * not allow or HTML calls a control (C0 but tab/newline/return, DEL and
 * C1, lone surrogates, U+FFFE/U+FFFF, bytes that are not UTF-8) becomes
 * U+FFFD, so the page stays well-formed whatever the document holds.
 */
void tc_html_text(tc_buf *b, const char *s, size_t len);
/* The same for a NUL-terminated string (NULL writes nothing). */
void tc_html_cstr(tc_buf *b, const char *s);

/* A link target for an artifact path that was resolved inside the
 * artifact root: "./" and the path with every byte outside
 * [A-Za-z0-9._~/-] percent-encoded, so it is always a relative URL (never
 * "javascript:" or another scheme) and needs no further escaping. */
void tc_html_href(tc_buf *b, const char *rel);

/* ---- html.c --------------------------------------------------------------- */

/* The page around a report: the doctype, <head> with title (a fixed
 * text) + subject (escaped) and the shared style + style (fixed CSS), and
 * <body>; then the footer naming the fixed source and the closing tags. */
void tc_html_page_open(tc_buf *b, const char *title, const char *subject,
    const char *style);
void tc_html_page_close(tc_buf *b, const char *source);

/* Write the page in b atomically to output (parents made) and free b;
 * a failed render (rendered != 0) frees b and writes nothing. */
int tc_html_publish(int rendered, tc_buf *b, const char *output,
    tc_error *err);

/* The number v[key] holds, or NaN when it holds none. */
double tc_report__num(const tc_json *v, const char *key);

/* ---- html_evidence.c ------------------------------------------------------ */

/* What a gate report is drawn as, by the phase that sealed it. */
enum tc_html_chart {
	TC_HTML_S0,		/* s0_baseline: stability, no candidates */
	TC_HTML_STAGE_A,	/* stage_a_scope_selection: candidate_screening */
	TC_HTML_TRIAL,		/* stage_o / optional: winner_option_trial */
	TC_HTML_FINAL,		/* final_e2e_report: final_promotion */
	TC_HTML_NONE
};

#define TC_HTML_MAX_CANDIDATES	64	/* per report */
#define TC_HTML_MAX_RUNS	1000	/* per run list */
#define TC_HTML_MAX_NAME	128	/* bytes of a candidate name */
#define TC_HTML_MAX_TRIALS	64	/* trial bars in the Stage O chart */

/*
 * Is doc an analyze_performance report that chart kind may draw?  Checks
 * every field the chart reads: selection.stage, the baseline's run list
 * and stability numbers (finite, or null where a stability figure can be
 * null), and for the candidate charts 1..TC_HTML_MAX_CANDIDATES
 * candidates with names of 1..TC_HTML_MAX_NAME bytes, finite means and
 * improvements and their gate decision as a bool.  Any other shape is not
 * chart data: the report is skipped, never half drawn.
 */
bool tc_html_gate_report(const tc_json *doc, enum tc_html_chart kind);

/* A tune config (tunectl-tune-config-v1) in words: "fast n=2"; NULL
 * when doc is none.  malloc'd. */
char *tc_html_config_text(const tc_json *config);

/*
 * A fusion analysis (html_analysis.c): is doc one of schema "1.2" whose
 * analysis_content_fingerprint matches its content (-1 with err naming
 * path otherwise); its actions counted ("3 SKs: keep 2, ..."); and its
 * per-SK table (one row per per_sk_decisions entry, with the bars).
 * Only a checked document may be drawn.
 */
int tc_html_analysis_check(const tc_json *doc, const char *path,
    tc_error *err);
void tc_html_analysis_actions(tc_buf *b, const tc_json *doc);
void tc_html_analysis_table(tc_buf *b, const tc_json *doc);

/* The chart a phase's gate reports feed (TC_HTML_NONE: none). */
enum tc_html_chart tc_html_chart_of_phase(const char *phase,
    const tc_json *doc);

/* One sealed step: its result as read now, when it still matches the
 * digest it was sealed with (else NULL: nothing of it is used). */
struct tc_html_step {
	const tc_json *step;
	tc_json *result;
	bool changed;		/* the result file no longer matches its seal */
};

/* The evidence the page draws. */
struct tc_html_evidence {
	struct tc_html_step *steps;
	size_t nsteps;
	tc_json *s0;		/* owned documents, each validated */
	tc_json *stage_a;
	tc_json *final;
	tc_json *trials;	/* array of winner_option_trial reports */
	tc_json *ledger;	/* the Final step's ledger (tc_final_load_ledger) */
	tc_json *freeze;	/* intake's tunectl-tune-freeze-v1, or NULL */
	tc_json *base_config;	/* the baseline it names (tune config), or NULL */
	/* candidate name -> its knobs in words ("fast n=2"), per chart:
	 * from the tune configs, option matrix items and screening matrix
	 * candidates the same step produced */
	tc_json *labels[TC_HTML_NONE];
	tc_buf refusals;	/* every sealed gate refusal, one line each */
	char *final_order;	/* the Final's interleaved run order ("A B A
				 * B ..."), or NULL: measured sequentially */
	tc_json *final_interleaved;	/* Final candidate name -> true when
				 * measured beside its baseline (bench ab) */
	const char *decisive;	/* the step that stopped the chain, or NULL */
	tc_buf decisive_why;	/* its refusal (tc_report_refusal) */
};

/*
 * Read every sealed step's result and the gate reports and ledger the
 * charts may use.  S0 is drawn from the series s0/series.json names as
 * accepted (a stable report when no step names one), never from an
 * attempt S0 rejected and ran again.
 */
void tc_html_collect(const tc_session *s, struct tc_html_evidence *ev);
void tc_html_evidence_free(struct tc_html_evidence *ev);

/* ---- html_charts.c -------------------------------------------------------- */

/* Each draws one <svg class="chart" data-chart=... data-points=...>;
 * labels (NULL: none) map a candidate name to its knobs, drawn beside
 * the name. */
void tc_html_chart_s0(tc_buf *b, const tc_json *report);
void tc_html_chart_stage_a(tc_buf *b, const tc_json *report,
    const tc_json *labels);
void tc_html_chart_trials(tc_buf *b, const tc_json *reports,
    const tc_json *labels);
/* The runs of the baseline and of candidate number idx. */
void tc_html_chart_final(tc_buf *b, const tc_json *report, size_t idx,
    const tc_json *labels);

/* ---- html_result.c -------------------------------------------------------- */

/* The figures of one candidate of a gate report: the mean improvement,
 * its bootstrap 95% interval and the Mann-Whitney p-value (computed).
 * The interval is the evaluation's when the gate decided by it (paired
 * as its ci_resampling says); when the gate decided by the mean it is
 * computed from the report's runs with the gate's default seed and
 * resamples as --decide-by ci would: paired by round when `interleaved`
 * (the caller read both run sets' runset.json:
 * tc_runset_manifests_interleaved) and the report's runs are the same
 * rounds, else each run set resampled on its own. */
struct tc_html_figures {
	double mean_pct, lo, hi, p_value;
	bool ci_ok, ci_from_gate;
	const char *resampling;	/* "paired", "independent", or NULL: a
				 * gate's interval that does not say */
};
void tc_html_figures(const tc_json *report, const tc_json *cand,
    bool interleaved, struct tc_html_figures *f);

/* The decision rules of an evaluation (or, without one, of a frozen
 * tune gate policy) in words: decide-by, threshold, stability rule. */
void tc_html_rules(tc_buf *b, const tc_json *evaluation,
    const tc_json *report, const tc_json *frozen_gate);

/* The result-first table of a session page. */
void tc_html_result_table(tc_buf *b, const struct tc_html_evidence *ev);

/* Refusal lines (text with '\n' between) as a <ul class="refusals">. */
void tc_html_lines(tc_buf *b, const char *text);

/* Why doc is not a report chart kind may draw, or NULL when it is. */
const char *tc_html_gate_report_problem(const tc_json *doc,
    enum tc_html_chart kind);

#endif
