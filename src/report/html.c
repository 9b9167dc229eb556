/*
 * html.c - the HTML report of a session (html.h).
 *
 * Every number drawn comes from an analyze_performance report or the
 * ledger that a sealed phase result lists among its produced artifacts;
 * the report reads nothing else.  A phase that produced no such evidence
 * (short-circuited, not requested) is shown as such, never invented.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tunectl/fileio.h"
#include "tunectl/html.h"
#include "tunectl/json.h"
#include "tunectl/path.h"
#include "tunectl/session.h"
#include "tunectl/sha256.h"

#define W 640
#define H 240
#define PAD 64
#define LABEL_W 180	/* left margin of the bar charts, for their labels */

/* The analyze reports found, by what they measured. */
struct evidence {
	tc_json *s0;			/* S0 stability report */
	tc_json *stage_a;		/* candidate_screening */
	tc_json *final;			/* final_promotion */
	tc_json *trials;		/* array of winner_option_trial reports */
	tc_json *ledger;
};

static void
esc(tc_buf *b, const char *s)
{
	for (; s != NULL && *s != '\0'; s++) {
		switch (*s) {
		case '<': tc_buf_puts(b, "&lt;"); break;
		case '>': tc_buf_puts(b, "&gt;"); break;
		case '&': tc_buf_puts(b, "&amp;"); break;
		case '"': tc_buf_puts(b, "&quot;"); break;
		default: tc_buf_putc(b, *s); break;
		}
	}
}

static double
num(const tc_json *v, const char *key)
{
	double d;

	return tc_json_number(tc_json_get(v, key), &d) ? d : NAN;
}

static const char *
str(const tc_json *v, const char *key)
{
	const char *s = tc_json_get_string(v, key);

	return s != NULL ? s : "";
}

/* ---- collecting evidence ------------------------------------------------ */

static void
classify(struct evidence *ev, const char *phase, tc_json *doc)
{
	const char *stage = str(tc_json_get(doc, "selection"), "stage");
	const tc_json *cands = tc_json_get(doc, "candidates");
	bool no_candidates = !tc_json_is(cands, TC_JSON_OBJECT) ||
	    cands->u.obj.len == 0;

	if (strcmp(phase, "s0_baseline") == 0 && ev->s0 == NULL && no_candidates) {
		ev->s0 = doc;
	} else if (strcmp(stage, "candidate_screening") == 0 && ev->stage_a == NULL) {
		ev->stage_a = doc;
	} else if (strcmp(stage, "winner_option_trial") == 0 && !no_candidates) {
		tc_json_array_push(ev->trials, doc);
	} else if (strcmp(stage, "final_promotion") == 0 && !no_candidates &&
	    strcmp(phase, "final_e2e_report") == 0) {
		tc_json_free(ev->final);
		ev->final = doc;
	} else {
		tc_json_free(doc);
	}
}

static void
collect(const tc_session *s, struct evidence *ev)
{
	size_t i, j, n = tc_session_step_count(s);

	ev->trials = tc_json_new_array();
	for (i = 0; i < n; i++) {
		const tc_json *step = tc_session_step_at(s, i);
		const char *rp = tc_json_get_string(step, "result_path");
		const tc_json *produced;
		tc_json *result;
		char *path;

		if (!tc_step_is_sealed(step) || rp == NULL)
			continue;
		path = tc_session_artifact_path(s, rp);
		result = tc_json_parse_file(path, NULL);
		free(path);
		produced = tc_json_get(result, "produced_artifacts");
		for (j = 0; tc_json_is(produced, TC_JSON_ARRAY) &&
		    j < produced->u.arr.len; j++) {
			const char *rel = tc_json_string(produced->u.arr.items[j]);
			char *file;
			tc_json *doc;

			if (rel == NULL)
				continue;
			file = tc_path_under_root(s->artifact_root, rel, "artifact", NULL);
			if (file == NULL || !tc_is_regular_file(file) ||
			    strcmp(file + strlen(file) - (strlen(file) >= 5 ? 5 : 0),
			    ".json") != 0) {
				free(file);
				continue;
			}
			doc = tc_json_parse_file(file, NULL);
			free(file);
			if (doc == NULL)
				continue;
			if (tc_json_get(doc, "baseline_stability") != NULL &&
			    tc_json_get(doc, "selection") != NULL)
				classify(ev, tc_json_get_string(step, "phase"), doc);
			else if (strcmp(rel, "ledger.json") == 0 && ev->ledger == NULL)
				ev->ledger = doc;
			else
				tc_json_free(doc);
		}
		if (ev->ledger == NULL && tc_json_get_string(result, "ledger_path")) {
			char *lp = tc_path_under_root(s->artifact_root,
			    tc_json_get_string(result, "ledger_path"), "ledger", NULL);

			if (lp != NULL)
				ev->ledger = tc_json_parse_file(lp, NULL);
			free(lp);
		}
		tc_json_free(result);
	}
}

static void
evidence_free(struct evidence *ev)
{
	tc_json_free(ev->s0);
	tc_json_free(ev->stage_a);
	tc_json_free(ev->final);
	tc_json_free(ev->trials);
	tc_json_free(ev->ledger);
}

/* ---- SVG helpers -------------------------------------------------------- */

static double
scale(double v, double lo, double hi, double p0, double p1)
{
	if (!(hi > lo))
		return (p0 + p1) / 2;
	return p0 + (v - lo) / (hi - lo) * (p1 - p0);
}

static void
svg_open(tc_buf *b, const char *name, size_t points, const char *title)
{
	tc_buf_printf(b, "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"chart\" "
	    "data-chart=\"%s\" data-points=\"%zu\" viewBox=\"0 0 %d %d\" "
	    "width=\"%d\" height=\"%d\" role=\"img\"><title>", name, points,
	    W, H, W, H);
	esc(b, title);
	tc_buf_printf(b, "</title><rect x=\"0\" y=\"0\" width=\"%d\" height=\"%d\" "
	    "fill=\"#fbfbfd\" stroke=\"#d0d4dc\"/>", W, H);
}

static void
axis_label(tc_buf *b, double x, double y, const char *anchor, const char *text)
{
	tc_buf_printf(b, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"%s\" "
	    "font-size=\"11\" fill=\"#444\">", x, y, anchor);
	esc(b, text);
	tc_buf_puts(b, "</text>");
}

static void
y_axis(tc_buf *b, double lo, double hi, const char *unit)
{
	char label[64];
	int k;

	for (k = 0; k <= 4; k++) {
		double v = lo + (hi - lo) * k / 4;
		double y = scale(v, lo, hi, H - PAD, PAD / 2);

		tc_buf_printf(b, "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" "
		    "stroke=\"#e4e7ee\"/>", PAD, y, W - 16, y);
		snprintf(label, sizeof(label), "%.3g%s", v, unit);
		axis_label(b, PAD - 4, y + 4, "end", label);
	}
}

static void
range_of(const tc_json *arr, double *lo, double *hi)
{
	size_t i;
	double d;

	for (i = 0; tc_json_is(arr, TC_JSON_ARRAY) && i < arr->u.arr.len; i++)
		if (tc_json_number(arr->u.arr.items[i], &d)) {
			if (d < *lo)
				*lo = d;
			if (d > *hi)
				*hi = d;
		}
}

static void
pad_range(double *lo, double *hi)
{
	double span = *hi - *lo;

	if (!(span > 0))
		span = fabs(*hi) > 0 ? fabs(*hi) * 0.1 : 1.0;
	*lo -= span * 0.15;
	*hi += span * 0.15;
}

/* ---- the charts ---------------------------------------------------------- */

static void
chart_s0(tc_buf *b, const tc_json *rep)
{
	const tc_json *st = tc_json_get(rep, "baseline_stability");
	const tc_json *runs = tc_json_get(st, "run_worst_rank_means_ms");
	double mean = num(st, "mean_ms"), lo = INFINITY, hi = -INFINITY;
	size_t i, n = tc_json_is(runs, TC_JSON_ARRAY) ? runs->u.arr.len : 0;
	char label[96];

	range_of(runs, &lo, &hi);
	if (isfinite(mean)) {
		lo = fmin(lo, mean * 0.975);
		hi = fmax(hi, mean * 1.025);
	}
	pad_range(&lo, &hi);
	svg_open(b, "s0", n, "S0: worst-rank mean per run, with the 5% spread band");
	y_axis(b, lo, hi, " ms");
	if (isfinite(mean)) {
		double y0 = scale(mean * 1.025, lo, hi, H - PAD, PAD / 2);
		double y1 = scale(mean * 0.975, lo, hi, H - PAD, PAD / 2);

		tc_buf_printf(b, "<rect x=\"%d\" y=\"%.1f\" width=\"%d\" height=\"%.1f\" "
		    "fill=\"#2e7d32\" fill-opacity=\"0.12\"/>", PAD, y0,
		    W - 16 - PAD, y1 - y0);
		tc_buf_printf(b, "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" "
		    "stroke=\"#2e7d32\" stroke-dasharray=\"4 3\"/>", PAD,
		    scale(mean, lo, hi, H - PAD, PAD / 2), W - 16,
		    scale(mean, lo, hi, H - PAD, PAD / 2));
	}
	for (i = 0; i < n; i++) {
		double v, x = scale((double)i, -0.5, (double)n - 0.5, PAD, W - 16);

		if (!tc_json_number(runs->u.arr.items[i], &v))
			continue;
		tc_buf_printf(b, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"6\" "
		    "fill=\"#1565c0\"><title>run %zu: %.4f ms</title></circle>",
		    x, scale(v, lo, hi, H - PAD, PAD / 2), i + 1, v);
		snprintf(label, sizeof(label), "run %zu", i + 1);
		axis_label(b, x, H - PAD + 16, "middle", label);
	}
	snprintf(label, sizeof(label), "spread %.3f%% (gate: at most 5%%) - %s",
	    num(st, "spread_pct"), tc_json_is(tc_json_get(st, "stable"),
	    TC_JSON_BOOL) && tc_json_get(st, "stable")->u.b ? "stable" :
	    "unstable");
	axis_label(b, W / 2, H - 8, "middle", label);
	tc_buf_puts(b, "</svg>");
}

static void
chart_stage_a(tc_buf *b, const tc_json *rep)
{
	const tc_json *cands = tc_json_get(rep, "candidates");
	double base = num(tc_json_get(rep, "baseline"), "worst_rank_mean_ms");
	double lo = 0, hi = isfinite(base) ? base : 0;
	size_t i, n = cands->u.obj.len;
	double bar = (double)(H - PAD - 12) / (double)(n + 1);

	for (i = 0; i < n; i++)
		hi = fmax(hi, num(cands->u.obj.members[i].value, "worst_rank_mean_ms"));
	hi *= 1.1;
	svg_open(b, "stage_a", n, "Stage A: worst-rank mean per scope candidate vs S0");
	for (i = 0; i < n; i++) {
		const tc_json *c = cands->u.obj.members[i].value;
		double v = num(c, "worst_rank_mean_ms");
		bool ok = tc_json_is(tc_json_get(tc_json_get(c, "screening_eligibility"),
		    "eligible"), TC_JSON_BOOL) && tc_json_get(tc_json_get(c,
		    "screening_eligibility"), "eligible")->u.b;
		double y = 12 + bar * (double)i;
		char label[160];

		tc_buf_printf(b, "<rect x=\"%d\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" "
		    "fill=\"%s\"><title>%s: %.4f ms</title></rect>", LABEL_W, y,
		    scale(v, lo, hi, 0, W - LABEL_W - 20), bar * 0.7, ok ? "#2e7d32" : "#9e9e9e",
		    cands->u.obj.members[i].key, v);
		snprintf(label, sizeof(label), "%s %+.2f%%%s",
		    cands->u.obj.members[i].key, num(c, "improvement_pct"),
		    ok ? " eligible" : "");
		axis_label(b, LABEL_W - 4, y + bar * 0.5, "end", label);
	}
	if (isfinite(base)) {
		double x = LABEL_W + scale(base, lo, hi, 0, W - LABEL_W - 20);

		tc_buf_printf(b, "<line x1=\"%.1f\" y1=\"8\" x2=\"%.1f\" y2=\"%d\" "
		    "stroke=\"#c62828\" stroke-dasharray=\"4 3\"/>", x, x, H - PAD);
		axis_label(b, x, H - PAD + 14, "middle", "S0 baseline");
	}
	axis_label(b, W / 2, H - 8, "middle", "worst-rank mean (ms); green = screening-eligible");
	tc_buf_puts(b, "</svg>");
}

static void
chart_trials(tc_buf *b, const tc_json *trials)
{
	size_t i, n = trials->u.arr.len;
	double lo = 0, hi = 0;
	double bar = (double)(H - PAD - 12) / (double)(n + 1);

	for (i = 0; i < n; i++) {
		const tc_json *c = trials->u.arr.items[i]->u.obj.len ?
		    tc_json_get(trials->u.arr.items[i], "candidates") : NULL;
		double v = c && c->u.obj.len ? num(c->u.obj.members[0].value,
		    "improvement_pct") : 0;

		lo = fmin(lo, v);
		hi = fmax(hi, v);
	}
	pad_range(&lo, &hi);
	svg_open(b, "stage_o", n, "Option trials: mean improvement over the incumbent");
	for (i = 0; i < n; i++) {
		const tc_json *c = tc_json_get(trials->u.arr.items[i], "candidates");
		const tc_json_member *m = &c->u.obj.members[0];
		const tc_json *acc = tc_json_get(tc_json_get(m->value,
		    "option_trial_evaluation"), "accepted");
		bool ok = tc_json_is(acc, TC_JSON_BOOL) && acc->u.b;
		double v = num(m->value, "improvement_pct");
		double x0 = LABEL_W + scale(0, lo, hi, 0, W - LABEL_W - 20);
		double x1 = LABEL_W + scale(v, lo, hi, 0, W - LABEL_W - 20);
		double y = 12 + bar * (double)i;
		char label[160];

		tc_buf_printf(b, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" "
		    "height=\"%.1f\" fill=\"%s\"><title>%s: %+.2f%%</title></rect>",
		    fmin(x0, x1), y, fabs(x1 - x0), bar * 0.7,
		    ok ? "#2e7d32" : v > 0 ? "#f9a825" : "#c62828", m->key, v);
		snprintf(label, sizeof(label), "%s %+.2f%% %s", m->key, v,
		    ok ? "accepted" : "not accepted");
		axis_label(b, LABEL_W - 4, y + bar * 0.5, "end", label);
	}
	axis_label(b, W / 2, H - 8, "middle", "mean improvement (%) vs the incumbent");
	tc_buf_puts(b, "</svg>");
}

static void
strip(tc_buf *b, const tc_json *runs, double x, double lo, double hi,
    const char *color, const char *who)
{
	size_t i;
	double v;

	for (i = 0; tc_json_is(runs, TC_JSON_ARRAY) && i < runs->u.arr.len; i++)
		if (tc_json_number(runs->u.arr.items[i], &v))
			tc_buf_printf(b, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"6\" "
			    "fill=\"%s\" fill-opacity=\"0.8\"><title>%s run %zu: "
			    "%.4f ms</title></circle>", x + (double)(i % 5) * 9 - 18,
			    scale(v, lo, hi, H - PAD, PAD / 2), color, who, i + 1, v);
}

static void
chart_final(tc_buf *b, const tc_json *rep)
{
	const tc_json *base = tc_json_get(rep, "baseline");
	const tc_json *cands = tc_json_get(rep, "candidates");
	const tc_json *cand = cands->u.obj.members[0].value;
	const tc_json *br = tc_json_get(base, "run_worst_rank_means_ms");
	const tc_json *cr = tc_json_get(cand, "run_worst_rank_means_ms");
	double lo = INFINITY, hi = -INFINITY;
	size_t n = (tc_json_is(br, TC_JSON_ARRAY) ? br->u.arr.len : 0) +
	    (tc_json_is(cr, TC_JSON_ARRAY) ? cr->u.arr.len : 0);

	range_of(br, &lo, &hi);
	range_of(cr, &lo, &hi);
	pad_range(&lo, &hi);
	svg_open(b, "final", n, "Final clean E2E: per-run worst-rank mean, S0 vs candidate");
	y_axis(b, lo, hi, " ms");
	strip(b, br, W * 0.35, lo, hi, "#c62828", "S0");
	strip(b, cr, W * 0.70, lo, hi, "#2e7d32", cands->u.obj.members[0].key);
	axis_label(b, W * 0.35, H - PAD + 18, "middle", "S0 baseline (frozen)");
	axis_label(b, W * 0.70, H - PAD + 18, "middle", cands->u.obj.members[0].key);
	tc_buf_puts(b, "</svg>");
}

/* ---- the page ------------------------------------------------------------ */

static void
outcome(tc_buf *b, const tc_session *s, const struct evidence *ev, bool valid)
{
	const tc_json *fe = tc_json_get(ev->ledger, "final_e2e");
	const char *cls = tc_json_get_string(fe, "classification");
	double imp = num(fe, "improvement_pct");

	tc_buf_puts(b, "<header><h1>");
	if (cls == NULL)
		tc_buf_puts(b, "No final clean E2E yet");
	else if (isfinite(imp))
		tc_buf_printf(b, "Final clean E2E: %s, %+.2f%%", cls, imp);
	else {
		tc_buf_puts(b, "Final clean E2E: ");
		esc(b, cls);
	}
	tc_buf_puts(b, "</h1><p class=\"outcome\">");
	if (isfinite(imp)) {
		tc_buf_printf(b, "Median worst-rank mean %.4f ms (S0) &#8594; %.4f ms (",
		    num(tc_json_get(fe, "baseline"), "median_ms"),
		    num(tc_json_get(fe, "candidate"), "median_ms"));
		esc(b, str(fe, "candidate_id"));
		tc_buf_puts(b, ").");
	} else if (fe != NULL) {
		esc(b, str(fe, "reason_zh"));
	}
	tc_buf_puts(b, "</p>");
	if (tc_json_get_string(tc_json_get(tc_json_get(ev->ledger,
	    "report_summary"), "baseline"), "metric") != NULL) {
		/* the clock the gates read, as the final worker recorded it */
		tc_buf_puts(b, "<p class=\"metric\">Metric: ");
		esc(b, str(tc_json_get(tc_json_get(ev->ledger, "report_summary"),
		    "baseline"), "metric"));
		tc_buf_puts(b, ".</p>");
	}
	tc_buf_puts(b, "<p>Session <code>");
	esc(b, s->session_id);
	tc_buf_printf(b, "</code>, status <b>%s</b>, optional mode <code>",
	    s->status);
	esc(b, s->optional_mode);
	tc_buf_printf(b, "</code>; integrity: <b class=\"%s\">%s</b>.</p></header>",
	    valid ? "ok" : "bad", valid ? "verified" : "verify FAILED");
}

static void
phases_table(tc_buf *b, const tc_session *s)
{
	size_t i, n = tc_session_step_count(s);

	tc_buf_puts(b, "<section id=\"phases\"><h2>Phases</h2><table><thead><tr>"
	    "<th>step</th><th>phase</th><th>outcome</th><th>sealed at</th>"
	    "<th>result sha256</th></tr></thead><tbody>");
	for (i = 0; i < n; i++) {
		const tc_json *st = tc_session_step_at(s, i);

		tc_buf_puts(b, "<tr><td>");
		esc(b, str(st, "step_id"));
		tc_buf_puts(b, "</td><td>");
		esc(b, str(st, "phase"));
		tc_buf_puts(b, "</td><td>");
		esc(b, tc_step_is_sealed(st) ? str(st, "outcome_status") : "pending");
		tc_buf_puts(b, "</td><td>");
		esc(b, str(st, "sealed_at"));
		tc_buf_puts(b, "</td><td><code>");
		esc(b, str(st, "result_sha256"));
		tc_buf_puts(b, "</code></td></tr>");
	}
	tc_buf_puts(b, "</tbody></table></section>");
}

static void
section(tc_buf *b, const char *id, const char *title, const char *missing)
{
	tc_buf_printf(b, "<section id=\"%s\"><h2>%s</h2>", id, title);
	if (missing != NULL)
		tc_buf_printf(b, "<p class=\"missing\">%s</p></section>", missing);
}

static void
evidence_table(tc_buf *b, const tc_session *s)
{
	size_t i, j, n = tc_session_step_count(s);

	tc_buf_puts(b, "<section id=\"evidence\"><h2>Evidence</h2><table><thead>"
	    "<tr><th>step</th><th>artifact</th><th>bytes</th><th>sha256</th></tr>"
	    "</thead><tbody>");
	for (i = 0; i < n; i++) {
		const tc_json *st = tc_session_step_at(s, i);
		const char *rp = str(st, "result_path");
		tc_json *result;
		const tc_json *produced;
		char *path;

		if (!tc_step_is_sealed(st))
			continue;
		path = tc_session_artifact_path(s, rp);
		result = tc_json_parse_file(path, NULL);
		free(path);
		produced = tc_json_get(result, "produced_artifacts");
		for (j = 0; j <= (tc_json_is(produced, TC_JSON_ARRAY) ?
		    produced->u.arr.len : 0); j++) {
			const char *rel = j == 0 ? rp :
			    tc_json_string(produced->u.arr.items[j - 1]);
			char hex[TC_SHA256_HEX_LEN + 1] = "(directory or missing)";
			uint64_t size = 0;
			char *file = rel != NULL ? tc_path_under_root(s->artifact_root,
			    rel, "artifact", NULL) : NULL;

			if (file != NULL && tc_is_regular_file(file))
				(void)tc_sha256_file(file, hex, &size, NULL);
			tc_buf_puts(b, "<tr><td>");
			esc(b, str(st, "step_id"));
			tc_buf_puts(b, "</td><td><a href=\"");
			esc(b, rel);
			tc_buf_puts(b, "\">");
			esc(b, rel);
			tc_buf_printf(b, "</a></td><td>%llu</td><td><code>",
			    (unsigned long long)size);
			esc(b, hex);
			tc_buf_puts(b, "</code></td></tr>");
			free(file);
		}
		tc_json_free(result);
	}
	tc_buf_puts(b, "</tbody></table></section>");
}

static const char STYLE[] =
    "body{font-family:system-ui,sans-serif;margin:2em auto;max-width:60em;"
    "color:#222}h1{font-size:1.6em}header{border-bottom:2px solid #ccc}"
    "table{border-collapse:collapse;font-size:.85em}td,th{border:1px solid "
    "#ddd;padding:.2em .5em;text-align:left}code{font-size:.9em}"
    ".ok{color:#2e7d32}.bad{color:#c62828}.missing{color:#777;font-style:"
    "italic}svg.chart{display:block;margin:.5em 0}";

int
tc_report_html(const char *session_path, tc_buf *out, tc_error *err)
{
	struct evidence ev = { NULL, NULL, NULL, NULL, NULL };
	tc_session *s;
	tc_json *verdict;
	bool valid;

	if (tc_session_load(session_path, 0, &s, err) != 0)
		return -1;
	verdict = tc_verify_session(session_path, 0);
	valid = tc_json_is(tc_json_get(verdict, "valid"), TC_JSON_BOOL) &&
	    tc_json_get(verdict, "valid")->u.b;
	tc_json_free(verdict);
	collect(s, &ev);

	tc_buf_puts(out, "<!DOCTYPE html>\n<html xmlns=\"http://www.w3.org/1999/"
	    "xhtml\" lang=\"en\"><head><meta charset=\"utf-8\"/><title>tunectl "
	    "report: ");
	esc(out, s->session_id);
	tc_buf_printf(out, "</title><style>%s</style></head><body>", STYLE);
	outcome(out, s, &ev, valid);
	section(out, "s0", "S0 baseline stability", ev.s0 == NULL ?
	    "No S0 measurement was sealed." : NULL);
	if (ev.s0 != NULL) {
		chart_s0(out, ev.s0);
		tc_buf_puts(out, "</section>");
	}
	section(out, "stage-a", "Stage A scope candidates", ev.stage_a == NULL ?
	    "Stage A did not run (short-circuited or not sealed)." : NULL);
	if (ev.stage_a != NULL) {
		chart_stage_a(out, ev.stage_a);
		tc_buf_puts(out, "</section>");
	}
	section(out, "stage-o", "Option and optional-experiment trials",
	    ev.trials->u.arr.len == 0 ? "No option trial was sealed." : NULL);
	if (ev.trials->u.arr.len > 0) {
		chart_trials(out, ev.trials);
		tc_buf_puts(out, "</section>");
	}
	section(out, "final", "Final clean E2E", ev.final == NULL ?
	    "No final clean E2E measurement: the session short-circuited "
	    "before a candidate was admitted." : NULL);
	if (ev.final != NULL) {
		chart_final(out, ev.final);
		tc_buf_puts(out, "</section>");
	}
	phases_table(out, s);
	evidence_table(out, s);
	tc_buf_puts(out, "<footer><p>Generated by tunectl " TUNECTL_VERSION
	    " from sealed evidence only.</p></footer></body></html>\n");
	evidence_free(&ev);
	tc_session_free(s);
	return 0;
}

int
tc_report_html_write(const char *session_path, const char *output,
    tc_error *err)
{
	tc_buf b = TC_BUF_INIT;
	int rc;

	if (tc_report_html(session_path, &b, err) != 0) {
		tc_buf_free(&b);
		return -1;
	}
	rc = tc_write_atomic(output, b.data, b.len, TC_WRITE_MKDIRS, err);
	tc_buf_free(&b);
	return rc;
}
