/*
 * cmd_report.c - "tunectl report html": the self-contained HTML report of a
 * session (outcome, charts of the sealed measurements, evidence digests).
 */
#include <stdio.h>
#include <stdlib.h>

#include "cli.h"
#include "tunectl/html.h"
#include "tunectl/path.h"
#include "tunectl/session.h"

static int
report_html(const struct tc_command *cmd, int argc, char **argv)
{
	const char *session = NULL, *output = NULL;
	const struct tc_option opts[] = {
		{ "--session", TC_OPT_STRING, &session, true, NULL },
		{ "--output", TC_OPT_STRING, &output, false, NULL },
		{ NULL, 0, NULL, false, NULL }
	};
	tc_error err = TC_ERROR_INIT;
	char *path = NULL;
	int rc;

	if ((rc = tc_opts_parse(cmd, argc, argv, opts, NULL)) != 0)
		return rc < 0 ? TC_EXIT_OK : rc;
	if (output == NULL) {
		tc_session *s;

		if (tc_session_load(session, 0, &s, &err) != 0)
			return tc_refuse_error(cmd, &err);
		path = tc_session_artifact_path(s, "report.html");
		tc_session_free(s);
		output = path;
	}
	if (tc_report_html_write(session, output, &err) != 0)
		rc = tc_refuse_error(cmd, &err);
	else
		rc = tc_cli_print_path("report", output);
	free(path);
	return rc;
}

static const struct tc_command report_html_entry = {
	.name = "report html",
	.summary = "the HTML report of a session",
	.run = report_html,
	.flags = TC_CMD_PARENT_USAGE,
};

static const struct tc_command *const report_subs[] = {
	&report_html_entry, NULL
};

const struct tc_command cmd_report_entry = {
	.name = "report",
	.summary = "write the self-contained HTML report of a session",
	.usage = "usage: tunectl report html --session PATH [--output PATH]\n",
	.subs = report_subs,
};
