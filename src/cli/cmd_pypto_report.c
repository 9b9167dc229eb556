/*
 * cmd_pypto_report.c - "tunectl pypto report": PERFORMANCE_REPORT.md
 * rendered from the archived evidence.
 */
#include <string.h>

#include "cli.h"
#include "pypto_cli.h"
#include "tunectl/pypto_stage5.h"

static int
cmd_pypto_report(const struct tc_command *self, int argc, char **argv)
{
	tc_pypto_report_opts o;
	tc_error err = TC_ERROR_INIT;
	int rc;
	const struct tc_option opts[] = {
		{ "--op-dir", TC_OPT_STRING, &o.op_dir, true, NULL },
		{ "--terminal", TC_OPT_STRING, &o.terminal_path, false, NULL },
		{ "--target-unavailable-reason", TC_OPT_STRING,
		  &o.target_unavailable_reason, false, NULL },
		TC_PYPTO_CLI_PYTHON_OPTS(o),
		{ NULL, 0, NULL, false, NULL }
	};

	memset(&o, 0, sizeof(o));
	if ((rc = tc_opts_parse(self, argc, argv, opts, NULL)) != 0)
		return rc < 0 ? TC_EXIT_OK : rc;
	return tc_pypto_cli_finish(tc_pypto_render_report(&o, &err), &err);
}

const struct tc_command cmd_pypto_report_entry = {
	.name = "pypto report",
	.summary = "PERFORMANCE_REPORT.md from the archived evidence",
	.usage = "usage: tunectl pypto report --op-dir DIR [--terminal FILE]\n"
	    "           [--target-unavailable-reason TEXT] [--interpreter PROG] [--timeout S]\n"
	    "Needs the final compare of the selected best version and the per-case\n"
	    "terminal evidence (default docs/perf/terminal_evidence.json).\n",
	.run = cmd_pypto_report,
};
