/*
 * cmd_render_final_report.c - "tunectl render-final-report": re-render
 * FINAL_E2E_REPORT.md of a session whose Final step is sealed, optionally
 * from a read-only report_summary override (--summary) and to another
 * file (--output); --lang en renders English headings.  The evidence
 * the sealed Final binds (its ledger above all) must be unchanged: a
 * report is never rendered from a ledger rewritten after the seal.
 */
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "tunectl/evidence.h"
#include "tunectl/report.h"
#include "tunectl/session.h"

static int
cmd_render_final_report(const struct tc_command *cmd, int argc, char **argv)
{
	const char *session_path = NULL, *output = NULL, *summary_path = NULL,
	    *lang_name = "zh";
	static const char *const langs[] = { "zh", "en", NULL };
	struct tc_opt_choice lang_c = { &lang_name, langs };
	const struct tc_option opts[] = {
		{ "--session", TC_OPT_STRING, &session_path, true, NULL },
		{ "--output", TC_OPT_STRING, &output, false, NULL },
		{ "--summary", TC_OPT_STRING, &summary_path, false, NULL },
		{ "--lang", TC_OPT_CHOICE, &lang_c, false, NULL },
		{ NULL, 0, NULL, false, NULL }
	};
	tc_error err = TC_ERROR_INIT;
	enum tc_report_lang lang;
	tc_session *s = NULL;
	tc_json *summary = NULL;
	char *written = NULL;
	int rc;

	if ((rc = tc_opts_parse(cmd, argc, argv, opts, NULL)) != 0)
		return rc < 0 ? TC_EXIT_OK : rc;
	/* --lang is a choice, checked as it is read, as argparse does */
	lang = strcmp(lang_name, "en") == 0 ? TC_REPORT_EN : TC_REPORT_ZH;

	if (tc_session_load(session_path, 0, &s, &err) != 0 ||
	    tc_session_check_final_evidence(s, &err) != 0)
		goto refuse;
	if (summary_path != NULL &&
	    (summary = tc_report_read_summary(summary_path, &err)) == NULL)
		goto refuse;
	if (tc_report_write_final_at(s->doc, session_path, output, summary,
	    lang, &written, &err) != 0)
		goto refuse;
	rc = tc_cli_print_path("report", written);
	free(written);
	tc_json_free(summary);
	tc_session_free(s);
	return rc;
refuse:
	rc = tc_refuse_error(cmd, &err);
	tc_json_free(summary);
	tc_session_free(s);
	return rc;
}

const struct tc_command cmd_render_final_report_entry = {
	.name = "render-final-report",
	.summary = "re-render FINAL_E2E_REPORT.md of a completed Final step",
	.usage = "usage: tunectl render-final-report --session PATH [--output PATH] [--summary PATH] [--lang {zh,en}]\n",
	.run = cmd_render_final_report,
};
