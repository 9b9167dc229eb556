/*
 * session_reports.h - the reports a session writes at fixed moments of
 * its write order, rendered by the layer above it.
 *
 * Sealing writes PHASE_REPORT.md beside each sealed result and
 * FINAL_E2E_REPORT.md before the session document that seals Final;
 * resume writes a missing FINAL_E2E_REPORT.md; verify re-renders both to
 * compare.  The renderers live in the report layer (src/report), which
 * sits above the session layer and reads sessions, so the session layer
 * calls them through this table instead of including the report module.
 * tc_report_register() (tunectl/report.h) fills it; a program that seals,
 * resumes or verifies sessions calls it once before (the tunectl CLI does
 * in main).  Without it those operations fail with
 * "session reports cannot be rendered: no report renderer registered".
 */
#ifndef TUNECTL_SESSION_REPORTS_H
#define TUNECTL_SESSION_REPORTS_H

#include "tunectl/error.h"
#include "tunectl/json.h"

struct tc_session_renderers {
	/* PHASE_REPORT.md of a result sealed at step, malloc'd; NULL with
	 * err set on failure. */
	char *(*phase_md)(const tc_json *result, const tc_json *step,
	    tc_error *err);
	/* FINAL_E2E_REPORT.md of a session document (Chinese, the summary
	 * from its ledger), malloc'd; NULL with err set on failure. */
	char *(*final_md)(const tc_json *session, tc_error *err);
	/* The same from the Final result and its ledger, already read and
	 * validated by the caller (verify has both in hand). */
	char *(*final_md_from)(const tc_json *session, const tc_json *result,
	    const tc_json *ledger, tc_error *err);
	/* Render and write FINAL_E2E_REPORT.md into the session's artifact
	 * root; 0, or -1 with err set. */
	int (*write_final)(const tc_json *session, tc_error *err);
};

/* Install the renderers (copied); later calls replace them. */
void tc_session_set_renderers(const struct tc_session_renderers *r);

#endif
