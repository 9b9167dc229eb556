/*
 * cmd_report.c - "tunectl report html": the self-contained HTML report of a
 * session (outcome, charts of the sealed measurements, evidence digests).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "tunectl/html.h"
#include "tunectl/path.h"
#include "tunectl/session.h"

int
cmd_report(int argc, char **argv)
{
	const struct tc_command *cmd = tc_command_find("report");
	const char *session = NULL, *output = NULL;
	const struct tc_option opts[] = {
		{ "--session", TC_OPT_STRING, &session, true, NULL },
		{ "--output", TC_OPT_STRING, &output, false, NULL },
		{ NULL, 0, NULL, false, NULL }
	};
	tc_error err = TC_ERROR_INIT;
	char *path = NULL;
	tc_json *doc;
	int rc;

	if (argc < 2 || strcmp(argv[1], "html") != 0) {
		if (argc >= 2 && (strcmp(argv[1], "--help") == 0 ||
		    strcmp(argv[1], "-h") == 0)) {
			fputs(cmd->usage, stdout);
			return TC_EXIT_OK;
		}
		return tc_usage_error(cmd, "a subcommand is required (html)");
	}
	if ((rc = tc_opts_parse(cmd, argc - 1, argv + 1, opts, NULL)) != 0)
		return rc < 0 ? TC_EXIT_OK : rc;
	if (output == NULL) {
		tc_session *s;

		if (tc_session_load(session, 0, &s, &err) != 0) {
			rc = tc_print_refusal(tc_error_msg(&err));
			tc_error_clear(&err);
			return rc;
		}
		path = tc_session_artifact_path(s, "report.html");
		tc_session_free(s);
		output = path;
	}
	if (tc_report_html_write(session, output, &err) != 0) {
		rc = tc_print_refusal(tc_error_msg(&err));
		tc_error_clear(&err);
		free(path);
		return rc;
	}
	doc = tc_json_new_object();
	tc_json_object_set_string(doc, "report", output);
	rc = tc_print_json(doc);
	tc_json_free(doc);
	free(path);
	return rc;
}
