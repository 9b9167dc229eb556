/*
 * html_analysis.c - the HTML view of a fusion analysis (html.h): the
 * per-SK verdicts of an analysis.json of schema "1.2" ("tunectl analyze
 * fusion") as one table, each SK with a small inline SVG bar of its
 * improvement against its noise band.
 *
 * The document is drawn only when its analysis_content_fingerprint still
 * matches its content; every string of it reaches the page through
 * tc_html_text(), every number drawn is finite or shown as "n/a".
 */
#include <math.h>
#include <string.h>
#include <sys/stat.h>

#include "html_internal.h"
#include "tunectl/analysis.h"
#include "tunectl/html.h"
#include "tunectl/json.h"

#define BAR_W	200	/* the SVG bar: width, height, and the centre (0%) */
#define BAR_H	18
#define BAR_MID	(BAR_W / 2)

static const char *
str(const tc_json *v, const char *key)
{
	const char *s = tc_json_get_string(v, key);

	return s != NULL ? s : "";
}

/* The class a verdict word is drawn with: a fixed word, never the
 * document's bytes. */
static const char *
verdict_class(const char *word)
{
	static const char *const good[] = { "beneficial", "keep", NULL };
	static const char *const bad[] = { "regressed", "block", "prune", NULL };
	size_t i;

	for (i = 0; good[i] != NULL; i++)
		if (strcmp(word, good[i]) == 0)
			return "ok";
	for (i = 0; bad[i] != NULL; i++)
		if (strcmp(word, bad[i]) == 0)
			return "bad";
	return "missing";
}

/* A number as "%g" then suffix, or "n/a" when the document holds no
 * finite number. */
static void
number(tc_buf *b, double v, const char *suffix)
{
	if (isfinite(v))
		tc_buf_printf(b, "%g%s", v, suffix);
	else
		tc_buf_puts(b, "n/a");
}

/* A percentage (two decimals), or "n/a". */
static void
pct(tc_buf *b, double v, bool sign)
{
	if (isfinite(v))
		tc_buf_printf(b, sign ? "%+.2f%%" : "%.2f%%", v);
	else
		tc_buf_puts(b, "n/a");
}

/* The scale of every bar: the widest |improvement| or noise band. */
static double
bar_scale(const tc_json *decisions)
{
	double m = 1.0;
	size_t i;

	for (i = 0; i < decisions->u.arr.len; i++) {
		const tc_json *d = decisions->u.arr.items[i];
		double imp = fabs(tc_report__num(d, "improvement_pct"));
		double noise = fabs(tc_report__num(d, "noise_threshold_pct"));

		if (isfinite(imp) && imp > m)
			m = imp;
		if (isfinite(noise) && noise > m)
			m = noise;
	}
	/* a margin, unless the widest figure is already near DBL_MAX */
	return isfinite(m * 1.1) ? m * 1.1 : m;
}

/* x of a percentage on a bar of the given scale, clamped to the bar. */
static double
bar_x(double v, double scale)
{
	double x = BAR_MID + v / scale * BAR_MID;

	return x < 0 ? 0 : x > BAR_W ? BAR_W : x;
}

/* The bar: grey noise band around 0, the improvement from 0 in the
 * colour of the classification, a tick at 0. */
static void
bar(tc_buf *b, const tc_json *d, double scale)
{
	double imp = tc_report__num(d, "improvement_pct");
	double noise = fabs(tc_report__num(d, "noise_threshold_pct"));
	const char *cls = verdict_class(str(d, "classification"));

	tc_buf_printf(b, "<svg class=\"bar\" xmlns=\"http://www.w3.org/2000/svg\" "
	    "width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\">", BAR_W, BAR_H,
	    BAR_W, BAR_H);
	if (isfinite(noise)) {
		double lo = bar_x(-noise, scale), hi = bar_x(noise, scale);

		tc_buf_printf(b, "<rect class=\"noise\" x=\"%.1f\" y=\"0\" "
		    "width=\"%.1f\" height=\"%d\" fill=\"#ddd\"/>", lo, hi - lo,
		    BAR_H);
	}
	if (isfinite(imp)) {
		double x = bar_x(imp, scale);
		double lo = x < BAR_MID ? x : BAR_MID;

		tc_buf_printf(b, "<rect class=\"improvement\" x=\"%.1f\" y=\"4\" "
		    "width=\"%.1f\" height=\"%d\" fill=\"%s\"/>", lo,
		    fabs(x - BAR_MID), BAR_H - 8,
		    strcmp(cls, "ok") == 0 ? "#2e7d32" :
		    strcmp(cls, "bad") == 0 ? "#c62828" : "#888");
	} else {
		tc_buf_printf(b, "<text x=\"%d\" y=\"13\" font-size=\"10\" "
		    "fill=\"#777\">no measurement</text>", BAR_MID + 4);
	}
	tc_buf_printf(b, "<line x1=\"%d\" y1=\"0\" x2=\"%d\" y2=\"%d\" "
	    "stroke=\"#222\"/></svg>", BAR_MID, BAR_MID, BAR_H);
}

/* The strings of an array, comma separated (none: "none"). */
static void
string_list(tc_buf *b, const tc_json *arr)
{
	size_t i, n = 0;

	for (i = 0; tc_json_is(arr, TC_JSON_ARRAY) && i < arr->u.arr.len; i++) {
		const char *s = tc_json_string(arr->u.arr.items[i]);

		if (s == NULL)
			continue;
		tc_buf_puts(b, n++ > 0 ? ", <code>" : "<code>");
		tc_html_cstr(b, s);
		tc_buf_puts(b, "</code>");
	}
	if (n == 0)
		tc_buf_puts(b, "none");
}

static void
sk_row(tc_buf *b, const tc_json *d, double scale)
{
	const char *cls = str(d, "classification"), *act = str(d, "action");
	double us = tc_report__num(d, "improvement_us");

	tc_buf_puts(b, "<tr class=\"sk\"><td class=\"name\">");
	tc_html_cstr(b, str(d, "name"));
	tc_buf_puts(b, "<br/><code>");
	tc_html_cstr(b, str(d, "sk_id"));
	tc_buf_printf(b, "</code></td><td class=\"%s\">", verdict_class(cls));
	tc_html_cstr(b, cls);
	tc_buf_printf(b, "</td><td class=\"action %s\"><b>", verdict_class(act));
	tc_html_cstr(b, act);
	tc_buf_puts(b, "</b></td><td class=\"improvement\">");
	pct(b, tc_report__num(d, "improvement_pct"), true);
	if (isfinite(us))
		tc_buf_printf(b, " (%+.3f us)", us);
	tc_buf_puts(b, "</td><td class=\"noise\">");
	if (isfinite(tc_report__num(d, "noise_threshold_pct")))
		tc_buf_puts(b, "&#177;");
	pct(b, tc_report__num(d, "noise_threshold_pct"), false);
	tc_buf_puts(b, "</td><td>");
	bar(b, d, scale);
	tc_buf_puts(b, "</td><td class=\"mapping\"><code>");
	tc_html_cstr(b, str(d, "mapping_method"));
	tc_buf_puts(b, "</code><br/>status: ");
	tc_html_cstr(b, tc_json_get_string_or(d, "candidate_binding_status",
	    "none"));
	tc_buf_puts(b, "<br/>confidence: ");
	tc_html_cstr(b, str(d, "mapping_confidence"));
	tc_buf_puts(b, "</td><td class=\"errors\">");
	string_list(b, tc_json_get(d, "evidence_errors"));
	tc_buf_puts(b, "</td></tr>");
}

int
tc_html_analysis_check(const tc_json *doc, const char *path, tc_error *err)
{
	char hex[65];
	const char *schema = tc_json_get_string(doc, "schema_version");
	const char *recorded = tc_json_get_string(doc,
	    "analysis_content_fingerprint");

	if (!tc_json_is(doc, TC_JSON_OBJECT)) {
		tc_error_set(err, "%s: not a fusion analysis (not a JSON object)",
		    path);
		return -1;
	}
	if (schema == NULL || strcmp(schema, "1.2") != 0) {
		tc_error_set(err, "%s: schema_version is not \"1.2\": only an "
		    "analysis of schema 1.2 (tunectl analyze fusion) is drawn",
		    path);
		return -1;
	}
	if (tc_analysis_content_fingerprint(doc, hex, err) != 0)
		return -1;
	if (recorded == NULL || strcmp(recorded, hex) != 0) {
		tc_error_set(err, "%s: analysis_content_fingerprint does not match "
		    "the document's content (computed %s): the analysis was "
		    "changed after it was written; refusing to draw it", path, hex);
		return -1;
	}
	if (!tc_json_is(tc_json_get(doc, "per_sk_decisions"), TC_JSON_ARRAY)) {
		tc_error_set(err, "%s: per_sk_decisions is not an array", path);
		return -1;
	}
	return 0;
}

/* Beyond the shared style: a wider page, cells aligned at the top, long
 * SK names broken anywhere, and "missing" in plain type. */
static const char STYLE[] =
    "body{max-width:72em}td,th{vertical-align:top}"
    "td.name{max-width:24em;word-break:break-all}"
    ".missing{font-style:normal}";

/* The headline: whose analysis, its thresholds and what the actions add
 * up to. */
static void
header(tc_buf *b, const tc_json *doc, const char *path)
{
	const tc_json *th = tc_json_get(doc, "thresholds");

	tc_buf_puts(b, "<header><h1>Fusion analysis: ");
	tc_html_cstr(b, str(doc, "candidate_name"));
	tc_buf_puts(b, "</h1><p>Experiment <code>");
	tc_html_cstr(b, str(doc, "experiment_id"));
	tc_buf_puts(b, "</code>, round <code>");
	tc_html_cstr(b, str(doc, "round_id"));
	tc_buf_puts(b, "</code>, <code>");
	tc_html_cstr(b, str(doc, "analysis_id"));
	tc_buf_puts(b, "</code> from <code>");
	tc_html_cstr(b, path);
	tc_buf_puts(b, "</code>; content fingerprint <b class=\"ok\">verified"
	    "</b>.</p><p class=\"summary\">");
	tc_html_analysis_actions(b, doc);
	tc_buf_puts(b, ".</p><p class=\"thresholds\">Thresholds: relative ");
	pct(b, tc_report__num(th, "min_relative_change_pct"), false);
	tc_buf_puts(b, ", absolute ");
	number(b, tc_report__num(th, "min_absolute_change_us"), " us");
	tc_buf_puts(b, ", at least ");
	number(b, tc_report__num(th, "min_occurrences"), " occurrences");
	tc_buf_puts(b, ".</p></header>");
}

void
tc_html_analysis_actions(tc_buf *b, const tc_json *doc)
{
	static const char *const actions[] = { "keep", "prune", "block",
	    "reprofile", NULL };
	const tc_json *dec = tc_json_get(doc, "per_sk_decisions");
	size_t i, j;

	tc_buf_printf(b, "%zu SK%s:", dec->u.arr.len,
	    dec->u.arr.len == 1 ? "" : "s");
	for (i = 0; actions[i] != NULL; i++) {
		size_t n = 0;

		for (j = 0; j < dec->u.arr.len; j++)
			if (strcmp(str(dec->u.arr.items[j], "action"),
			    actions[i]) == 0)
				n++;
		tc_buf_printf(b, "%s <b class=\"%s\">%s</b> %zu", i ? "," : "",
		    verdict_class(actions[i]), actions[i], n);
	}
}

void
tc_html_analysis_table(tc_buf *b, const tc_json *doc)
{
	const tc_json *dec = tc_json_get(doc, "per_sk_decisions");
	double scale = bar_scale(dec);
	size_t i;

	tc_buf_printf(b, "<p>Bars: improvement (SK off p50 minus SK on p50, "
	    "as a percentage of SK off) from the 0 tick, over the grey noise "
	    "band; full width is &#177;%.2f%%.</p><table class=\"per-sk\">"
	    "<thead><tr><th>SK</th>"
	    "<th>classification</th><th>action</th><th>improvement</th>"
	    "<th>noise band</th><th>improvement vs noise</th><th>mapping "
	    "(method, status, confidence)</th><th>evidence errors</th></tr>"
	    "</thead><tbody>", scale);
	for (i = 0; i < dec->u.arr.len; i++)
		sk_row(b, dec->u.arr.items[i], scale);
	if (dec->u.arr.len == 0)
		tc_buf_puts(b, "<tr><td colspan=\"8\" class=\"missing\">The "
		    "analysis holds no SK.</td></tr>");
	tc_buf_puts(b, "</tbody></table>");
}

int
tc_report_html_analysis(const char *analysis_path, tc_buf *out, tc_error *err)
{
	tc_json *doc = tc_json_parse_file(analysis_path, err);

	if (doc == NULL)
		return -1;
	if (tc_html_analysis_check(doc, analysis_path, err) != 0) {
		tc_json_free(doc);
		return -1;
	}
	tc_html_page_open(out, "tunectl fusion analysis: ",
	    str(doc, "candidate_name"), STYLE);
	header(out, doc, analysis_path);
	tc_buf_puts(out, "<section id=\"per-sk\"><h2>Per-SK verdicts</h2>");
	tc_html_analysis_table(out, doc);
	tc_buf_puts(out, "</section>");
	tc_html_page_close(out, "a fingerprint-checked analysis");
	tc_json_free(doc);
	return 0;
}

/* Is output the analysis file itself (same path or same inode)? */
static bool
same_file(const char *a, const char *b)
{
	struct stat sa, sb;

	if (strcmp(a, b) == 0)
		return true;
	return stat(a, &sa) == 0 && stat(b, &sb) == 0 &&
	    sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

int
tc_report_html_analysis_write(const char *analysis_path, const char *output,
    tc_error *err)
{
	tc_buf b = TC_BUF_INIT;

	if (same_file(analysis_path, output)) {
		tc_error_set(err, "%s: the HTML view would replace the analysis it "
		    "draws; give another --out", output);
		return -1;
	}
	return tc_html_publish(tc_report_html_analysis(analysis_path, &b, err),
	    &b, output, err);
}
