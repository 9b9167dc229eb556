/*
 * html.h - the self-contained HTML report of a session: the outcome first,
 * then inline SVG charts of the measurements the phases sealed (S0 spread
 * with the 5% band, Stage A candidates, Stage O trials, final baseline vs
 * candidate), then every phase's evidence with its digest.  No network,
 * no scripts; the markup is well-formed XML (polyglot XHTML).  Also the
 * HTML view of a fusion analysis (analysis.h).
 */
#ifndef TUNECTL_HTML_H
#define TUNECTL_HTML_H

#include <stdbool.h>

#include "tunectl/buf.h"
#include "tunectl/error.h"
#include "tunectl/session.h"

/* Render the report of the session at session_path into out; the page
 * says whether the session verifies (tc_verify_session) right now. */
int tc_report_html(const char *session_path, tc_buf *out, tc_error *err);

/* The same page of a loaded session, saying "verified" when valid: what
 * tc_report_html() renders once verify has judged the session.  Reads
 * the session's evidence under its artifact root, nothing else: no
 * clock, no path outside the documents (tunectl verify compares a
 * session's report.html with it, own_reports.h). */
void tc_report_html_session(const tc_session *s, bool valid, tc_buf *out);

/* Render and write it atomically to output. */
int tc_report_html_write(const char *session_path, const char *output,
    tc_error *err);

/*
 * The page of one gate report made outside a session (tunectl gate
 * analyze|stability|promote|screen|option-trial --json-out): the result,
 * each candidate's improvement with its 95% interval and Mann-Whitney
 * p-value, the decision rules, the runs and every refusal with its
 * numbers.  Refused (-1, err naming what is missing) when the file is no
 * gate report of a shape the page draws.
 */
int tc_report_html_gate(const char *gate_path, tc_buf *out, tc_error *err);
int tc_report_html_gate_write(const char *gate_path, const char *output,
    tc_error *err);

/*
 * The HTML view of a fusion analysis (schema "1.2", "tunectl analyze
 * fusion"): a table of the per-SK verdicts, each with an inline SVG bar
 * of its improvement against its noise band.  Refused (-1, err) when the
 * file is not such an analysis or its analysis_content_fingerprint does
 * not match its content.
 */
int tc_report_html_analysis(const char *analysis_path, tc_buf *out,
    tc_error *err);

/* Render it and write it atomically to output (never over the analysis). */
int tc_report_html_analysis_write(const char *analysis_path,
    const char *output, tc_error *err);

#endif
