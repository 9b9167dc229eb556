/*
 * html.h - the self-contained HTML report of a session: the outcome first,
 * then inline SVG charts of the measurements the phases sealed (S0 spread
 * with the 5% band, Stage A candidates, Stage O trials, final baseline vs
 * candidate), then every phase's evidence with its digest.  No network,
 * no scripts; the markup is well-formed XML (polyglot XHTML).
 */
#ifndef TUNECTL_HTML_H
#define TUNECTL_HTML_H

#include "tunectl/buf.h"
#include "tunectl/error.h"

/* Render the report of the session at session_path into out. */
int tc_report_html(const char *session_path, tc_buf *out, tc_error *err);

/* Render and write it atomically to output. */
int tc_report_html_write(const char *session_path, const char *output,
    tc_error *err);

#endif
