/*
 * own_reports.h - tunectl's own reports in a session's artifact root,
 * beside the reference's FINAL_E2E_REPORT.md (which stays the
 * reference's byte for byte):
 *
 *   report.html              the HTML report (html.h), and
 *   FINAL_E2E_REPORT.en.md   the Final report with English headings
 *                            (report.h, TC_REPORT_EN).
 *
 * The reference neither reads nor writes them.  "tunectl tune" and
 * "tunectl demo" write both when a session finishes; "tunectl verify"
 * renders each one that is present again from the sealed evidence and
 * compares byte for byte (docs/reports.md "tunectl's own reports").
 */
#ifndef TUNECTL_OWN_REPORTS_H
#define TUNECTL_OWN_REPORTS_H

#include "tunectl/error.h"
#include "tunectl/json.h"
#include "tunectl/session.h"

#define TC_REPORT_HTML_FILE	"report.html"
#define TC_REPORT_EN_FILE	"FINAL_E2E_REPORT.en.md"

/* Write <artifact_root>/FINAL_E2E_REPORT.en.md of the session at
 * session_path (its Final sealed), atomically; when path is not NULL it
 * receives the path written (malloc'd).  0, or -1 with err set. */
int tc_report_write_en(const char *session_path, char **path, tc_error *err);

/*
 * Check the own reports present in the artifact root of s (loaded from
 * session_path, already verified): each is rendered again and must be
 * the same bytes, else one message in errors naming the file and the
 * command that renders it again ("report.html differs from the report
 * rendered from the sealed evidence; ...").  An absent report is fine
 * and costs one lstat.  Stops at the first problem unless flags has
 * TC_VERIFY_ALL.  Returns the number of messages added.
 */
size_t tc_report_check_own(const tc_session *s, const char *session_path,
    unsigned flags, tc_json *errors);

/* The same applied to a verdict of tc_verify_session()'s shape: a valid
 * verdict of s with a problem becomes {"errors": [...], "valid": false}
 * (other members but session_id and status kept).  Nothing happens to
 * an invalid verdict or when s is NULL. */
void tc_report_verify_own(const tc_session *s, const char *session_path,
    unsigned flags, tc_json *verdict);

#endif
