/*
 * cmd_report.c - "tunectl report html": the self-contained HTML report of a
 * session (outcome, charts of the sealed measurements, evidence digests),
 * or, with --analysis, the per-SK verdicts of a fusion analysis.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "tunectl/html.h"
#include "tunectl/path.h"
#include "tunectl/session.h"

/* The default view of an analysis: its path with ".json" replaced by
 * ".html" (or ".html" appended).  malloc'd. */
static char *
analysis_html_path(const char *analysis)
{
	size_t n = strlen(analysis);
	char *p = malloc(n + 6);

	if (p == NULL)
		return NULL;
	memcpy(p, analysis, n + 1);
	if (n > 5 && strcmp(p + n - 5, ".json") == 0)
		p[n - 5] = '\0';
	strcat(p, ".html");
	return p;
}

static int
report_html(const struct tc_command *cmd, int argc, char **argv)
{
	const char *session = NULL, *output = NULL, *out = NULL;
	const char *analysis = NULL;
	const struct tc_option opts[] = {
		{ "--session", TC_OPT_STRING, &session, false, NULL },
		{ "--analysis", TC_OPT_STRING, &analysis, false, NULL },
		{ "--output", TC_OPT_STRING, &output, false, NULL },
		{ "--out", TC_OPT_STRING, &out, false, NULL },
		{ NULL, 0, NULL, false, NULL }
	};
	tc_error err = TC_ERROR_INIT;
	char *path = NULL;
	int rc;

	if ((rc = tc_opts_parse(cmd, argc, argv, opts, NULL)) != 0)
		return rc < 0 ? TC_EXIT_OK : rc;
	if ((session == NULL) == (analysis == NULL))
		return tc_usage_error(cmd, "give exactly one of --session and "
		    "--analysis");
	if (output != NULL && out != NULL)
		return tc_usage_error(cmd, "--out and --output name the same "
		    "file; give one");
	if (output == NULL)
		output = out;
	if (output == NULL && analysis != NULL) {
		if ((output = path = analysis_html_path(analysis)) == NULL)
			return tc_die("out of memory");
	} else if (output == NULL) {
		tc_session *s;

		if (tc_session_load(session, 0, &s, &err) != 0)
			return tc_refuse_error(cmd, &err);
		path = tc_session_artifact_path(s, "report.html");
		tc_session_free(s);
		output = path;
	}
	if ((analysis != NULL ? tc_report_html_analysis_write(analysis, output,
	    &err) : tc_report_html_write(session, output, &err)) != 0)
		rc = tc_refuse_error(cmd, &err);
	else
		rc = tc_cli_print_path("report", output);
	free(path);
	return rc;
}

static const struct tc_command report_html_entry = {
	.name = "report html",
	.summary = "the HTML report of a session or of a fusion analysis",
	.run = report_html,
	.flags = TC_CMD_PARENT_USAGE,
};

static const struct tc_command *const report_subs[] = {
	&report_html_entry, NULL
};

const struct tc_command cmd_report_entry = {
	.name = "report",
	.summary = "write the self-contained HTML report of a session or of "
	    "a fusion analysis",
	.usage = "usage: tunectl report html --session PATH [--output PATH]\n"
	    "       tunectl report html --analysis ANALYSIS.json [--out PATH]\n",
	.subs = report_subs,
};
