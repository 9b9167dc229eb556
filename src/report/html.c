/*
 * html.c - the HTML report of a session (html.h): the page around the
 * charts.  What may be drawn is decided in html_evidence.c, how document
 * text becomes markup in html_markup.c, the charts are html_charts.c.
 *
 * Every number drawn comes from a gate report that a sealed phase result
 * lists among its produced artifacts, or from the Final step's ledger; a
 * phase that produced no such evidence (short-circuited, not requested)
 * is shown as such, never invented.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "html_internal.h"
#include "tunectl/fileio.h"
#include "tunectl/html.h"
#include "tunectl/json.h"
#include "tunectl/path.h"
#include "tunectl/session.h"
#include "tunectl/sha256.h"

double
tc_report__num(const tc_json *v, const char *key)
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

/* ---- the page ------------------------------------------------------------ */

/* The headline, from the Final step's ledger (already validated). */
static void
outcome(tc_buf *b, const tc_session *s, const struct tc_html_evidence *ev,
    bool valid)
{
	const tc_json *fe = tc_json_get(ev->ledger, "final_e2e");
	const char *cls = tc_json_get_string(fe, "classification");
	double imp = tc_report__num(fe, "improvement_pct");

	tc_buf_puts(b, "<header><h1>");
	if (cls == NULL) {
		tc_buf_puts(b, "No final clean E2E yet");
	} else {
		tc_buf_puts(b, "Final clean E2E: ");
		tc_html_cstr(b, cls);
		if (isfinite(imp))
			tc_buf_printf(b, ", %+.2f%%", imp);
	}
	tc_buf_puts(b, "</h1><p class=\"outcome\">");
	if (isfinite(imp)) {
		tc_buf_printf(b, "Median worst-rank mean %.4f ms (S0) &#8594; %.4f ms (",
		    tc_report__num(tc_json_get(fe, "baseline"), "median_ms"),
		    tc_report__num(tc_json_get(fe, "candidate"), "median_ms"));
		tc_html_cstr(b, str(fe, "candidate_id"));
		tc_buf_puts(b, ").");
	} else if (fe != NULL) {
		tc_html_cstr(b, str(fe, "reason_zh"));
	}
	tc_buf_puts(b, "</p>");
	if (tc_json_get_string(tc_json_get(tc_json_get(ev->ledger,
	    "report_summary"), "baseline"), "metric") != NULL) {
		/* the clock the gates read, as the final worker recorded it */
		tc_buf_puts(b, "<p class=\"metric\">Metric: ");
		tc_html_cstr(b, str(tc_json_get(tc_json_get(ev->ledger,
		    "report_summary"), "baseline"), "metric"));
		tc_buf_puts(b, ".</p>");
	}
	tc_buf_puts(b, "<p>Session <code>");
	tc_html_cstr(b, s->session_id);
	tc_buf_puts(b, "</code>, status <b>");
	tc_html_cstr(b, s->status);
	tc_buf_puts(b, "</b>, optional mode <code>");
	tc_html_cstr(b, s->optional_mode);
	tc_buf_printf(b, "</code>; integrity: <b class=\"%s\">%s</b>.</p></header>",
	    valid ? "ok" : "bad", valid ? "verified" : "verify FAILED");
}

/* The steps; with digests, the table folded under the evidence. */
static void
phases_table(tc_buf *b, const tc_session *s, bool digests)
{
	size_t i, n = tc_session_step_count(s);

	tc_buf_puts(b, digests ? "<h3>Sealed results</h3><table>" :
	    "<section id=\"phases\"><h2>Phases</h2><table>");
	tc_buf_puts(b, "<thead><tr><th>step</th><th>phase</th><th>outcome</th>"
	    "<th>sealed at</th>");
	tc_buf_puts(b, digests ? "<th>result sha256</th></tr></thead><tbody>" :
	    "</tr></thead><tbody>");
	for (i = 0; i < n; i++) {
		const tc_json *st = tc_session_step_at(s, i);

		tc_buf_puts(b, "<tr><td>");
		tc_html_cstr(b, str(st, "step_id"));
		tc_buf_puts(b, "</td><td>");
		tc_html_cstr(b, str(st, "phase"));
		tc_buf_puts(b, "</td><td>");
		tc_html_cstr(b, tc_step_is_sealed(st) ? str(st, "outcome_status") :
		    "pending");
		tc_buf_puts(b, "</td><td>");
		tc_html_cstr(b, str(st, "sealed_at"));
		if (digests) {
			tc_buf_puts(b, "</td><td><code>");
			tc_html_cstr(b, str(st, "result_sha256"));
			tc_buf_puts(b, "</code>");
		}
		tc_buf_puts(b, "</td></tr>");
	}
	tc_buf_puts(b, digests ? "</tbody></table>" : "</tbody></table></section>");
}

static void
section(tc_buf *b, const char *id, const char *title, const char *missing)
{
	tc_buf_printf(b, "<section id=\"%s\"><h2>%s</h2>", id, title);
	if (missing != NULL)
		tc_buf_printf(b, "<p class=\"missing\">%s</p></section>", missing);
}

/*
 * One row of the evidence table.  A path that resolves inside the root
 * is linked and digested: a file by its SHA-256, a directory (a run set)
 * by its tree digest (tc_sha256_tree); anything else is shown as text
 * with what is wrong with it.
 */
static void
evidence_row(tc_buf *b, const tc_session *s, const char *step_id,
    const char *rel, const char *note)
{
	char hex[TC_SHA256_HEX_LEN + 1] = "";
	char size[64] = "";
	tc_error err = TC_ERROR_INIT;
	char *file = tc_path_under_root(s->artifact_root, rel, "artifact", NULL);
	const char *problem = NULL;
	bool link = false;

	if (file == NULL) {
		problem = "(not a path inside the artifact root)";
	} else if (tc_is_directory(file)) {
		uint64_t files = 0, bytes = 0;

		link = true;
		if (tc_sha256_tree(file, hex, &files, &bytes, &err) == 0)
			snprintf(size, sizeof(size), "%llu files, %llu",
			    (unsigned long long)files, (unsigned long long)bytes);
		else
			problem = tc_error_msg(&err);
	} else if (tc_is_regular_file(file)) {
		uint64_t bytes = 0;

		link = true;
		if (tc_sha256_file(file, hex, &bytes, &err) == 0)
			snprintf(size, sizeof(size), "%llu",
			    (unsigned long long)bytes);
		else
			problem = tc_error_msg(&err);
	} else {
		problem = tc_path_exists(file) ? "(not a regular file)" :
		    "(missing)";
	}
	tc_buf_puts(b, "<tr><td>");
	tc_html_cstr(b, step_id);
	tc_buf_puts(b, "</td><td>");
	if (link) {
		tc_buf_puts(b, "<a href=\"");
		tc_html_href(b, rel);
		tc_buf_puts(b, "\">");
	}
	tc_html_cstr(b, rel);
	if (link)
		tc_buf_puts(b, "</a>");
	if (note != NULL) {
		tc_buf_puts(b, " <em>");
		tc_html_cstr(b, note);
		tc_buf_puts(b, "</em>");
	}
	tc_buf_puts(b, "</td><td>");
	tc_html_cstr(b, size);
	tc_buf_puts(b, "</td><td><code>");
	tc_html_cstr(b, problem != NULL ? problem : hex);
	tc_buf_puts(b, "</code></td></tr>");
	tc_error_clear(&err);
	free(file);
}

static void
evidence_table(tc_buf *b, const tc_session *s,
    const struct tc_html_evidence *ev)
{
	size_t i, j;

	tc_buf_puts(b, "<section id=\"evidence\"><h2>Evidence</h2><details>"
	    "<summary>Every artifact and sealed result with its SHA-256 "
	    "(folded)</summary><table><thead>"
	    "<tr><th>step</th><th>artifact</th><th>bytes</th>"
	    "<th>sha256 (of a directory: its tree digest)</th></tr>"
	    "</thead><tbody>");
	for (i = 0; i < ev->nsteps; i++) {
		const struct tc_html_step *hs = &ev->steps[i];
		const char *step_id = str(hs->step, "step_id");
		const tc_json *produced = tc_json_get(hs->result,
		    "produced_artifacts");

		evidence_row(b, s, step_id, str(hs->step, "result_path"),
		    hs->changed ? "(does not match its seal; its artifacts are "
		    "not listed)" : NULL);
		for (j = 0; tc_json_is(produced, TC_JSON_ARRAY) &&
		    j < produced->u.arr.len; j++) {
			const char *rel = tc_json_string(produced->u.arr.items[j]);

			if (rel != NULL)
				evidence_row(b, s, step_id, rel, NULL);
		}
	}
	tc_buf_puts(b, "</tbody></table>");
	phases_table(b, s, true);
	tc_buf_puts(b, "</details></section>");
}

static const char STYLE[] =
    "body{font-family:system-ui,sans-serif;margin:2em auto;max-width:60em;"
    "color:#222}h1{font-size:1.6em}header{border-bottom:2px solid #ccc}"
    "table{border-collapse:collapse;font-size:.85em}td,th{border:1px solid "
    "#ddd;padding:.2em .5em;text-align:left}code{font-size:.9em}"
    ".ok{color:#2e7d32}.bad{color:#c62828}.missing{color:#777;font-style:"
    "italic}svg.chart{display:block;margin:.5em 0}table.result th{"
    "background:#f3f5f9;width:9em;vertical-align:top}table.result{"
    "font-size:.95em;margin:.5em 0}ul.refusals{margin:.2em 0;padding-left:"
    "1.2em}details summary{cursor:pointer;color:#555}";

void
tc_html_page_open(tc_buf *b, const char *title, const char *subject,
    const char *style)
{
	tc_buf_puts(b, "<!DOCTYPE html>\n<html xmlns=\"http://www.w3.org/1999/"
	    "xhtml\" lang=\"en\"><head><meta charset=\"utf-8\"/><title>");
	tc_buf_puts(b, title);
	tc_html_cstr(b, subject);
	tc_buf_printf(b, "</title><style>%s%s</style></head><body>", STYLE,
	    style);
}

void
tc_html_page_close(tc_buf *b, const char *source)
{
	tc_buf_printf(b, "<footer><p>Generated by tunectl " TUNECTL_VERSION
	    " from %s.</p></footer></body></html>\n", source);
}

static bool
lists(const tc_json *arr, const char *text)
{
	size_t i;

	for (i = 0; i < arr->u.arr.len; i++)
		if (tc_json_string(arr->u.arr.items[i]) != NULL &&
		    strcmp(tc_json_string(arr->u.arr.items[i]), text) == 0)
			return true;
	return false;
}

/*
 * The per-SK verdicts of every fusion analysis a sealed BASE step
 * produced (a JSON artifact holding analysis_content_fingerprint, drawn
 * only when it is a schema 1.2 analysis whose fingerprint still matches),
 * each with a link to it and to the HTML view the step produced beside it.
 */
static void
base_analyses(tc_buf *b, const tc_session *s,
    const struct tc_html_evidence *ev)
{
	size_t i, j, drawn = 0;

	tc_buf_puts(b, "<section id=\"base\"><h2>BASE: per-SK fusion verdicts"
	    "</h2>");
	for (i = 0; i < ev->nsteps; i++) {
		const struct tc_html_step *hs = &ev->steps[i];
		const tc_json *produced = tc_json_get(hs->result,
		    "produced_artifacts");

		if (hs->changed || !tc_json_is(produced, TC_JSON_ARRAY) ||
		    strcmp(str(hs->step, "phase"),
		    "base_profile_source_mapping") != 0)
			continue;
		for (j = 0; j < produced->u.arr.len; j++) {
			const char *rel = tc_json_string(produced->u.arr.items[j]);
			tc_error err = TC_ERROR_INIT;
			size_t n = rel != NULL ? strlen(rel) : 0;
			char *file, *html;
			tc_json *doc = NULL;

			if (n < 5 || strcmp(rel + n - 5, ".json") != 0)
				continue;
			file = tc_path_under_root(s->artifact_root, rel,
			    "artifact", &err);
			if (file != NULL && tc_is_regular_file(file))
				doc = tc_json_parse_file(file, &err);
			free(file);
			if (tc_json_get(doc, "analysis_content_fingerprint") == NULL ||
			    tc_html_analysis_check(doc, rel, &err) != 0) {
				tc_error_clear(&err);
				tc_json_free(doc);
				continue;
			}
			tc_buf_puts(b, "<h3>");
			tc_html_cstr(b, str(hs->step, "step_id"));
			tc_buf_puts(b, ": <a href=\"");
			tc_html_href(b, rel);
			tc_buf_puts(b, "\">");
			tc_html_cstr(b, rel);
			tc_buf_puts(b, "</a>");
			html = tc_xasprintf("%.*s.html", (int)(n - 5), rel);
			if (lists(produced, html)) {
				tc_buf_puts(b, " (<a href=\"");
				tc_html_href(b, html);
				tc_buf_puts(b, "\">HTML view</a>)");
			}
			free(html);
			tc_buf_puts(b, "</h3><p class=\"summary\">Round <code>");
			tc_html_cstr(b, str(doc, "round_id"));
			tc_buf_puts(b, "</code>, structural association <code>");
			tc_html_cstr(b, str(tc_json_get(doc,
			    "association_protocol"), "status"));
			tc_buf_puts(b, "</code>; ");
			tc_html_analysis_actions(b, doc);
			tc_buf_puts(b, ".</p>");
			tc_html_analysis_table(b, doc);
			tc_json_free(doc);
			drawn++;
		}
	}
	if (drawn == 0)
		tc_buf_puts(b, "<p class=\"missing\">No sealed BASE step produced "
		    "a fusion analysis.</p>");
	tc_buf_puts(b, "</section>");
}

/* The Final candidate's knobs: the configuration the ledger settled. */
static const tc_json *
final_labels(struct tc_html_evidence *ev)
{
	const tc_json *fe = tc_json_get(ev->ledger, "final_e2e");
	const char *id = tc_json_get_string(fe, "candidate_id");
	const char *knobs = tc_json_get_string(fe, "scope_strategy");

	if (id != NULL && knobs != NULL)
		tc_json_object_set_string(ev->labels[TC_HTML_FINAL], id, knobs);
	return ev->labels[TC_HTML_FINAL];
}

void
tc_report_html_session(const tc_session *s, bool valid, tc_buf *out)
{
	struct tc_html_evidence ev;

	tc_html_collect(s, &ev);

	tc_html_page_open(out, "tunectl report: ", s->session_id,
	    "#base td{vertical-align:top}#base td.name{max-width:20em;"
	    "word-break:break-all}");
	outcome(out, s, &ev, valid);
	tc_html_result_table(out, &ev);
	section(out, "refusals", "Refusals", ev.refusals.len == 0 ?
	    "No gate refused anything." : NULL);
	if (ev.refusals.len > 0) {
		tc_buf_puts(out, "<p>Every gate report a sealed step produced "
		    "that refused something, with the failed check and its "
		    "numbers:</p>");
		tc_html_lines(out, tc_buf_cstr(&ev.refusals));
		tc_buf_puts(out, "</section>");
	}
	section(out, "s0", "S0 baseline stability", ev.s0 == NULL ?
	    "No S0 measurement was sealed." : NULL);
	if (ev.s0 != NULL) {
		tc_html_chart_s0(out, ev.s0);
		tc_buf_puts(out, "</section>");
	}
	section(out, "stage-a", "Stage A scope candidates", ev.stage_a == NULL ?
	    "Stage A did not run (short-circuited or not sealed)." : NULL);
	if (ev.stage_a != NULL) {
		tc_html_chart_stage_a(out, ev.stage_a, ev.labels[TC_HTML_STAGE_A]);
		tc_buf_puts(out, "</section>");
	}
	section(out, "stage-o", "Option and optional-experiment trials",
	    ev.trials->u.arr.len == 0 ? "No option trial was sealed." : NULL);
	if (ev.trials->u.arr.len > 0) {
		tc_html_chart_trials(out, ev.trials, ev.labels[TC_HTML_TRIAL]);
		tc_buf_puts(out, "</section>");
	}
	base_analyses(out, s, &ev);
	section(out, "final", "Final clean E2E", ev.final == NULL ?
	    "No final clean E2E measurement: the session short-circuited "
	    "before a candidate was admitted." : NULL);
	if (ev.final != NULL) {
		tc_html_chart_final(out, ev.final, 0, final_labels(&ev));
		tc_buf_puts(out, "</section>");
	}
	phases_table(out, s, false);
	evidence_table(out, s, &ev);
	tc_html_page_close(out, "sealed evidence only");
	tc_html_evidence_free(&ev);
}

int
tc_report_html(const char *session_path, tc_buf *out, tc_error *err)
{
	tc_session *s;
	tc_json *verdict;
	bool valid;

	if (tc_session_load(session_path, 0, &s, err) != 0)
		return -1;
	verdict = tc_verify_session(session_path, 0);
	valid = tc_json_is(tc_json_get(verdict, "valid"), TC_JSON_BOOL) &&
	    tc_json_get(verdict, "valid")->u.b;
	tc_json_free(verdict);
	tc_report_html_session(s, valid, out);
	tc_session_free(s);
	return 0;
}

int
tc_html_publish(int rendered, tc_buf *b, const char *output, tc_error *err)
{
	int rc = -1;

	if (rendered == 0)
		rc = tc_write_atomic(output, b->data, b->len, TC_WRITE_MKDIRS,
		    err);
	tc_buf_free(b);
	return rc;
}

int
tc_report_html_write(const char *session_path, const char *output,
    tc_error *err)
{
	tc_buf b = TC_BUF_INIT;

	return tc_html_publish(tc_report_html(session_path, &b, err), &b,
	    output, err);
}
