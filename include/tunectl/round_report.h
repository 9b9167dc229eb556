/*
 * round_report.h - rendering SuperKernel round-report JSON (the
 * round-report.child-ge-5.json of a round, or the round_report inside an
 * sk-meta-summary.json) into the reference's Chinese Markdown
 * (render_round_report.py, docs/spec/reports.md "Round report").
 *
 * The reference lets malformed values escape as Python exceptions
 * (traceback, exit 1); tunectl reports the same exception as one
 * "<Type>: <message>" line and the caller exits 1.
 */
#ifndef TUNECTL_ROUND_REPORT_H
#define TUNECTL_ROUND_REPORT_H

#include <stddef.h>

#include "tunectl/buf.h"
#include "tunectl/error.h"
#include "tunectl/json.h"

#define TC_ROUND_REPORT_TITLE "SuperKernel 单轮融合报告"
#define TC_ROUND_REPORT_TOP_DEFAULT 20

typedef struct tc_round_report_opts {
	const char *title;		/* NULL: TC_ROUND_REPORT_TITLE */
	long top_sk;			/* >= 1 */
	long top_non_fusion;		/* >= 1 */
} tc_round_report_opts;

/*
 * load_round_report: parse the file (CPython's reader: NaN accepted), use
 * its "round_report" object when it has one, and require the three
 * round-report fields.  source is str(Path(arg)), used in messages:
 * "ValueError: {source}: expected a JSON object",
 * "ValueError: {source}: missing round-report fields: a, b",
 * "JSONDecodeError: Expecting value: ...".  Returns a copy the caller
 * frees.
 */
tc_json *tc_round_report_load(const char *path, tc_error *err);
/* The same from already parsed JSON. */
tc_json *tc_round_report_extract(const tc_json *doc, const char *source,
    tc_error *err);

/*
 * render_markdown: the whole document for reports[i] read from
 * sources[i] (as given on the command line), ending with "\n" (the CLI
 * adds one more).  Returns 0, or -1 with "<Type>: <message>" in err.
 */
int tc_round_report_render(const tc_json *const *reports,
    const char *const *sources, size_t n, const tc_round_report_opts *o,
    tc_buf *out, tc_error *err);

#endif
