/*
 * report.h - the Markdown reports the controller renders
 * (docs/spec/reports.md "Phase report" PHASE_REPORT.md,
 * docs/spec/reports.md "Final E2E report" FINAL_E2E_REPORT.md).
 *
 * The Chinese form is the reference's byte for byte and the default; the
 * English form (TC_REPORT_EN) has the same layout, rows and numbers with
 * English headings and fixed phrases (document content such as reason_zh
 * is never translated).
 */
#ifndef TUNECTL_REPORT_H
#define TUNECTL_REPORT_H

#include "tunectl/buf.h"
#include "tunectl/error.h"
#include "tunectl/json.h"

/* Give the session layer its report renderers (tunectl/session_reports.h):
 * call once before sealing, resuming or verifying sessions. */
void tc_report_register(void);

enum tc_report_lang {
	TC_REPORT_ZH = 0,	/* the reference's report (default) */
	TC_REPORT_EN = 1
};

/* ---- PHASE_REPORT.md (docs/spec/reports.md "Phase report") -------------- */

/*
 * _phase_report(result, step): the whole file text (ends with "\n"),
 * malloc'd.  result is a validated phase result, step its session step.
 * Blockers are written as json.dumps(item, ensure_ascii=False) (separators
 * ", " and ": "); object keys come out sorted, because tc_json keeps no
 * insertion order.  NULL with err set only when a string cannot be
 * encoded (a lone surrogate).
 */
char *tc_report_phase_md(const tc_json *result, const tc_json *step,
    tc_error *err);

/* ---- FINAL_E2E_REPORT.md (docs/spec/reports.md "Final E2E report") ------ */

/*
 * Everything the final report is rendered from, already read and
 * validated.  tc_report_final_render() is pure: no file access.
 */
struct tc_final_report_input {
	const tc_json *session;		/* the loaded session */
	const tc_json *result;		/* the sealed Final phase result */
	/* the loaded ledger (docs/spec/controller.md
	 * "Loading the Final ledger") */
	const tc_json *ledger;
	const tc_json *summary;		/* report_summary to render, or NULL
					 * (legacy ledger: N/A rows) */
	const tc_json *import_manifest;	/* derived sessions: the evidence
					 * import manifest; else NULL */
	enum tc_report_lang lang;
};

/* The report text (ends with "\n"), malloc'd; NULL with err set when a
 * value cannot be encoded. */
char *tc_report_final_render(const struct tc_final_report_input *in,
    tc_error *err);

/*
 * render_final_report without the writing: find the sealed
 * final_e2e_report step ("final phase is not sealed"), read its result
 * (no digest check), load the ledger (docs/spec/controller.md
 * "Loading the Final ledger"), read the evidence import manifest of a derived
 * session, and pick the summary: summary_override when not NULL (validated
 * against final_e2e with the artifact root; read-only), else
 * ledger.report_summary.  Returns the report text (malloc'd) or NULL with err
 * set.
 */
char *tc_report_final_md(const tc_json *session,
    const tc_json *summary_override, enum tc_report_lang lang, tc_error *err);
/* The same (no summary override) from the Final result and its ledger
 * that the caller has already read and validated as above. */
char *tc_report_final_md_from(const tc_json *session, const tc_json *result,
    const tc_json *ledger, enum tc_report_lang lang, tc_error *err);

/*
 * The same, written atomically (parents created) to output, or to
 * <artifact_root>/FINAL_E2E_REPORT.md when output is NULL.  When path is
 * not NULL it receives the path written, as given or constructed
 * (malloc'd) -- the "report" value the CLI prints.  Nothing but the
 * report file is ever written: an output that resolves to the ledger,
 * the evidence import manifest, a step's result or receipt, or anything
 * under <artifact_root>/phases, dispatches, phase-executions or imports
 * is refused with "report output must not replace sealed evidence:
 * <output>".
 */
int tc_report_write_final(const tc_json *session, const char *output,
    const tc_json *summary_override, enum tc_report_lang lang, char **path,
    tc_error *err);

/* The same, also refusing an output that resolves to session_path (the
 * session file, relative to the working directory; NULL: unknown). */
int tc_report_write_final_at(const tc_json *session, const char *session_path,
    const char *output, const tc_json *summary_override,
    enum tc_report_lang lang, char **path, tc_error *err);

/* Read a --summary override file: "report_summary cannot be read: <err>"
 * or "report_summary must be a JSON object".  Not yet validated. */
tc_json *tc_report_read_summary(const char *path, tc_error *err);

/* ---- formatting helpers (exposed for tests and the HTML report)
 * (docs/spec/reports.md "Formatting helpers") */

/* Python '%.6f' % v / '%+.6f' % v of a JSON number (an int is converted
 * with float(int) first, as Python does). */
void tc_report_fmt_fixed6(tc_buf *out, double v, int with_sign);

/* _summary_cell(v): null or "" -> "N/A"; else str(v) with "|" -> "\|"
 * and "\n" -> "<br>".  v may be NULL (= null). */
void tc_report_cell(tc_buf *out, const tc_json *v);
/* The same for a C string (NULL -> "N/A"). */
void tc_report_cell_str(tc_buf *out, const char *s);

/* json.dumps(v, ensure_ascii=False, sort_keys=True) with the default
 * separators ", " and ": ".  -1 with err set for a lone surrogate. */
int tc_report_json_inline(tc_buf *out, const tc_json *v, tc_error *err);

#endif
