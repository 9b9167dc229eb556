/*
 * html_charts.c - the inline SVG charts of the HTML report
 * (html_internal.h).  Each draws a report that tc_html_gate_report()
 * accepted for it, so every number it reads is there and finite; names
 * are written only through tc_html_text().
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "html_internal.h"

#define W 640
#define H 240
#define PAD 64
#define LABEL_W 250	/* left margin of the bar charts, for their labels */
#define KNOBS_SHOWN 40	/* bytes of a candidate's knobs drawn beside it */

static bool
flag(const tc_json *v, const char *key)
{
	const tc_json *b = tc_json_get(v, key);

	return tc_json_is(b, TC_JSON_BOOL) && b->u.b;
}

static void
name(tc_buf *b, const tc_json_member *m)
{
	tc_html_text(b, m->key, m->key_len);
}

/* The name and, when labels know it, its knobs: "O1 (n=2)"; cut to
 * KNOBS_SHOWN bytes unless whole (a <title>). */
static void
name_knobs(tc_buf *b, const tc_json_member *m, const tc_json *labels,
    bool whole)
{
	const tc_json *l = tc_json_get(labels, m->key);
	const char *knobs = tc_json_string(l);
	size_t n;

	name(b, m);
	if (knobs == NULL || *knobs == '\0')
		return;
	n = strlen(knobs);
	tc_buf_puts(b, " (");
	if (whole || n <= KNOBS_SHOWN) {
		tc_html_text(b, knobs, n);
	} else {
		n = KNOBS_SHOWN;
		while (n > 0 && ((unsigned char)knobs[n] & 0xc0) == 0x80)
			n--;	/* cut at a character boundary */
		tc_html_text(b, knobs, n);
		tc_buf_puts(b, "...");
	}
	tc_buf_puts(b, ")");
}

static double
scale(double v, double lo, double hi, double p0, double p1)
{
	if (!(hi > lo))
		return (p0 + p1) / 2;
	return p0 + (v - lo) / (hi - lo) * (p1 - p0);
}

static void
svg_open(tc_buf *b, const char *chart, size_t points, const char *title)
{
	tc_buf_printf(b, "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"chart\" "
	    "data-chart=\"%s\" data-points=\"%zu\" viewBox=\"0 0 %d %d\" "
	    "width=\"%d\" height=\"%d\" role=\"img\"><title>", chart, points,
	    W, H, W, H);
	tc_html_cstr(b, title);
	tc_buf_printf(b, "</title><rect x=\"0\" y=\"0\" width=\"%d\" height=\"%d\" "
	    "fill=\"#fbfbfd\" stroke=\"#d0d4dc\"/>", W, H);
}

/* <text> at (x, y); the caller writes its content, then text_close. */
static void
text_open(tc_buf *b, double x, double y, const char *anchor)
{
	tc_buf_printf(b, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"%s\" "
	    "font-size=\"11\" fill=\"#444\">", x, y, anchor);
}

static void
text_close(tc_buf *b)
{
	tc_buf_puts(b, "</text>");
}

static void
axis_label(tc_buf *b, double x, double y, const char *anchor, const char *text)
{
	text_open(b, x, y, anchor);
	tc_html_cstr(b, text);
	text_close(b);
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

void
tc_html_chart_s0(tc_buf *b, const tc_json *rep)
{
	const tc_json *st = tc_json_get(rep, "baseline_stability");
	const tc_json *runs = tc_json_get(st, "run_worst_rank_means_ms");
	double mean = tc_report__num(st, "mean_ms");
	double spread = tc_report__num(st, "spread_pct");
	double limit = tc_report__num(st, "max_spread_pct");
	double lo = INFINITY, hi = -INFINITY, half;
	size_t i, n = runs->u.arr.len;
	char label[128];

	/* the gate's own limit (the reference's 5 % when it names none) */
	if (!(isfinite(limit) && limit > 0 && limit <= 100))
		limit = 5.0;
	half = limit / 200.0;
	range_of(runs, &lo, &hi);
	if (isfinite(mean)) {
		lo = fmin(lo, mean * (1 - half));
		hi = fmax(hi, mean * (1 + half));
	}
	pad_range(&lo, &hi);
	snprintf(label, sizeof(label), "S0: worst-rank mean per run, with "
	    "the %g%% spread band", limit);
	svg_open(b, "s0", n, label);
	y_axis(b, lo, hi, " ms");
	if (isfinite(mean)) {
		double y0 = scale(mean * (1 + half), lo, hi, H - PAD, PAD / 2);
		double y1 = scale(mean * (1 - half), lo, hi, H - PAD, PAD / 2);

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
	if (isfinite(spread))
		snprintf(label, sizeof(label), "spread %.3f%% (gate: at most "
		    "%g%%) - %s", spread, limit, flag(st, "stable") ? "stable" :
		    "unstable");
	else
		snprintf(label, sizeof(label), "spread not computed - %s",
		    flag(st, "stable") ? "stable" : "unstable");
	axis_label(b, W / 2, H - 8, "middle", label);
	tc_buf_puts(b, "</svg>");
}

void
tc_html_chart_stage_a(tc_buf *b, const tc_json *rep, const tc_json *labels)
{
	const tc_json *cands = tc_json_get(rep, "candidates");
	double base = tc_report__num(tc_json_get(rep, "baseline"),
	    "worst_rank_mean_ms");
	double lo = 0, hi = base;
	size_t i, n = cands->u.obj.len;
	double bar = (double)(H - PAD - 12) / (double)(n + 1);

	for (i = 0; i < n; i++)
		hi = fmax(hi, tc_report__num(cands->u.obj.members[i].value,
		    "worst_rank_mean_ms"));
	hi *= 1.1;
	svg_open(b, "stage_a", n, "Stage A: worst-rank mean per scope candidate vs S0");
	for (i = 0; i < n; i++) {
		const tc_json_member *m = &cands->u.obj.members[i];
		double v = tc_report__num(m->value, "worst_rank_mean_ms");
		bool ok = flag(tc_json_get(m->value, "screening_eligibility"),
		    "eligible");
		double y = 12 + bar * (double)i;

		tc_buf_printf(b, "<rect x=\"%d\" y=\"%.1f\" width=\"%.1f\" "
		    "height=\"%.1f\" fill=\"%s\"><title>", LABEL_W, y,
		    scale(v, lo, hi, 0, W - LABEL_W - 20), bar * 0.7,
		    ok ? "#2e7d32" : "#9e9e9e");
		name_knobs(b, m, labels, true);
		tc_buf_printf(b, ": %.4f ms</title></rect>", v);
		text_open(b, LABEL_W - 4, y + bar * 0.5, "end");
		name_knobs(b, m, labels, false);
		tc_buf_printf(b, " %+.2f%%%s", tc_report__num(m->value, "improvement_pct"),
		    ok ? " eligible" : "");
		text_close(b);
	}
	{
		double x = LABEL_W + scale(base, lo, hi, 0, W - LABEL_W - 20);

		tc_buf_printf(b, "<line x1=\"%.1f\" y1=\"8\" x2=\"%.1f\" y2=\"%d\" "
		    "stroke=\"#c62828\" stroke-dasharray=\"4 3\"/>", x, x, H - PAD);
		axis_label(b, x, H - PAD + 14, "middle", "S0 baseline");
	}
	axis_label(b, W / 2, H - 8, "middle", "worst-rank mean (ms); green = screening-eligible");
	tc_buf_puts(b, "</svg>");
}

void
tc_html_chart_trials(tc_buf *b, const tc_json *trials, const tc_json *labels)
{
	size_t i, k, n = 0, row = 0;
	double lo = 0, hi = 0, bar;

	/* one bar per candidate of every trial report */
	for (i = 0; i < trials->u.arr.len; i++) {
		const tc_json *c = tc_json_get(trials->u.arr.items[i],
		    "candidates");

		for (k = 0; k < c->u.obj.len; k++) {
			double v = tc_report__num(c->u.obj.members[k].value,
			    "improvement_pct");

			lo = fmin(lo, v);
			hi = fmax(hi, v);
			n++;
		}
	}
	bar = (double)(H - PAD - 12) / (double)(n + 1);
	pad_range(&lo, &hi);
	svg_open(b, "stage_o", n, "Option trials: mean improvement over the incumbent");
	for (i = 0; i < trials->u.arr.len; i++) {
		const tc_json *c = tc_json_get(trials->u.arr.items[i],
		    "candidates");

		for (k = 0; k < c->u.obj.len; k++, row++) {
			const tc_json_member *m = &c->u.obj.members[k];
			bool ok = flag(tc_json_get(m->value,
			    "option_trial_evaluation"), "accepted");
			double v = tc_report__num(m->value, "improvement_pct");
			double x0 = LABEL_W + scale(0, lo, hi, 0, W - LABEL_W - 20);
			double x1 = LABEL_W + scale(v, lo, hi, 0, W - LABEL_W - 20);
			double y = 12 + bar * (double)row;

			tc_buf_printf(b, "<rect x=\"%.1f\" y=\"%.1f\" "
			    "width=\"%.1f\" height=\"%.1f\" fill=\"%s\"><title>",
			    fmin(x0, x1), y, fabs(x1 - x0), bar * 0.7,
			    ok ? "#2e7d32" : v > 0 ? "#f9a825" : "#c62828");
			name_knobs(b, m, labels, true);
			tc_buf_printf(b, ": %+.2f%%</title></rect>", v);
			text_open(b, LABEL_W - 4, y + bar * 0.5, "end");
			name_knobs(b, m, labels, false);
			tc_buf_printf(b, " %+.2f%% %s", v,
			    ok ? "accepted" : "not accepted");
			text_close(b);
		}
	}
	axis_label(b, W / 2, H - 8, "middle", "mean improvement (%) vs the incumbent");
	tc_buf_puts(b, "</svg>");
}

static void
strip(tc_buf *b, const tc_json *runs, double x, double lo, double hi,
    const char *color, const tc_json_member *who, const tc_json *labels)
{
	size_t i;
	double v;

	for (i = 0; i < runs->u.arr.len; i++) {
		if (!tc_json_number(runs->u.arr.items[i], &v))
			continue;
		tc_buf_printf(b, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"6\" "
		    "fill=\"%s\" fill-opacity=\"0.8\"><title>",
		    x + (double)(i % 5) * 9 - 18,
		    scale(v, lo, hi, H - PAD, PAD / 2), color);
		if (who != NULL)
			name_knobs(b, who, labels, true);
		else
			tc_buf_puts(b, "S0");
		tc_buf_printf(b, " run %zu: %.4f ms</title></circle>", i + 1, v);
	}
}

void
tc_html_chart_final(tc_buf *b, const tc_json *rep, size_t idx,
    const tc_json *labels)
{
	const tc_json *br = tc_json_get(tc_json_get(rep, "baseline"),
	    "run_worst_rank_means_ms");
	const tc_json_member *cand = &tc_json_get(rep,
	    "candidates")->u.obj.members[idx];
	const tc_json *cr = tc_json_get(cand->value, "run_worst_rank_means_ms");
	double lo = INFINITY, hi = -INFINITY;

	range_of(br, &lo, &hi);
	range_of(cr, &lo, &hi);
	pad_range(&lo, &hi);
	svg_open(b, "final", br->u.arr.len + cr->u.arr.len,
	    "Final clean E2E: per-run worst-rank mean, S0 vs candidate");
	y_axis(b, lo, hi, " ms");
	strip(b, br, W * 0.35, lo, hi, "#c62828", NULL, NULL);
	strip(b, cr, W * 0.70, lo, hi, "#2e7d32", cand, labels);
	axis_label(b, W * 0.35, H - PAD + 18, "middle", "S0 baseline (frozen)");
	text_open(b, W * 0.70, H - PAD + 18, "middle");
	name_knobs(b, cand, labels, false);
	text_close(b);
	tc_buf_puts(b, "</svg>");
}
