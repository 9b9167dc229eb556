/*
 * cmd_report.c - "tunectl report html": the self-contained HTML report of a
 * session (the result first, refusals, charts of the sealed measurements,
 * evidence digests folded), with --gate the page of one gate report made
 * outside a session, or with --analysis the per-SK verdicts of a fusion
 * analysis.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "tunectl/html.h"
#include "tunectl/path.h"
#include "tunectl/session.h"

/* The default view of an analysis or a gate report: its path with
 * ".json" replaced by ".html" (or ".html" appended).  malloc'd. */
static char *
json_html_path(const char *analysis)
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
	const char *analysis = NULL, *gate = NULL, *doc;
	const struct tc_option opts[] = {
		{ "--session", TC_OPT_STRING, &session, false, NULL },
		{ "--analysis", TC_OPT_STRING, &analysis, false, NULL },
		{ "--gate", TC_OPT_STRING, &gate, false, NULL },
		{ "--output", TC_OPT_STRING, &output, false, NULL },
		{ "--out", TC_OPT_STRING, &out, false, NULL },
		{ NULL, 0, NULL, false, NULL }
	};
	tc_error err = TC_ERROR_INIT;
	char *path = NULL;
	int rc;

	if ((rc = tc_opts_parse(cmd, argc, argv, opts, NULL)) != 0)
		return rc < 0 ? TC_EXIT_OK : rc;
	if ((session != NULL) + (analysis != NULL) + (gate != NULL) != 1)
		return tc_usage_error(cmd, "give exactly one of --session, "
		    "--gate and --analysis");
	doc = analysis != NULL ? analysis : gate;
	if (output != NULL && out != NULL)
		return tc_usage_error(cmd, "--out and --output name the same "
		    "file; give one");
	if (output == NULL)
		output = out;
	if (output == NULL && doc != NULL) {
		if ((output = path = json_html_path(doc)) == NULL)
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
	    &err) : gate != NULL ? tc_report_html_gate_write(gate, output, &err) :
	    tc_report_html_write(session, output, &err)) != 0)
		rc = tc_refuse_error(cmd, &err);
	else
		rc = tc_cli_print_path("report", output);
	free(path);
	return rc;
}

static const struct tc_command report_html_entry = {
	.name = "report html",
	.summary = "the HTML report of a session, a gate report or a fusion analysis",
	.run = report_html,
	.flags = TC_CMD_PARENT_USAGE,
};

static const struct tc_command *const report_subs[] = {
	&report_html_entry, NULL
};

const struct tc_command cmd_report_entry = {
	.name = "report",
	.summary = "write the self-contained HTML report of a session, of a "
	    "gate report or of a fusion analysis",
	.usage = "usage: tunectl report html --session PATH [--output PATH]\n"
	    "       tunectl report html --gate GATE.json [--out PATH]\n"
	    "       tunectl report html --analysis ANALYSIS.json [--out PATH]\n"
	    "--session: the result first (what was tuned, baseline and winner\n"
	    "knobs, improvement with its 95% interval, verdict and the rules\n"
	    "behind it), every refusal with its numbers, the charts, the\n"
	    "digests folded (default <artifact-root>/report.html).  --gate: one\n"
	    "report of tunectl gate analyze|stability|promote|screen|option-trial\n"
	    "--json-out (default GATE.html beside it); a file of another shape is\n"
	    "refused naming what it lacks.\n",
	.subs = report_subs,
};
