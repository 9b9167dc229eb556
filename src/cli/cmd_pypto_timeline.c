/*
 * cmd_pypto_timeline.c - "tunectl pypto timeline": the instruction
 * timeline of one P0 case on the final code.
 */
#include <string.h>

#include "cli.h"
#include "pypto_cli.h"
#include "tunectl/pypto_stage5.h"

static int
cmd_pypto_timeline(const struct tc_command *self, int argc, char **argv)
{
	tc_pypto_timeline_opts o;
	tc_error err = TC_ERROR_INIT;
	int rc;
	const struct tc_option opts[] = {
		{ "--op-dir", TC_OPT_STRING, &o.op_dir, true, NULL },
		{ "--case-id", TC_OPT_STRING, &o.case_id, true, NULL },
		TC_PYPTO_CLI_PYTHON_OPTS(o),
		{ NULL, 0, NULL, false, NULL }
	};

	memset(&o, 0, sizeof(o));
	if ((rc = tc_opts_parse(self, argc, argv, opts, NULL)) != 0)
		return rc < 0 ? TC_EXIT_OK : rc;
	return tc_pypto_cli_finish(tc_pypto_timeline(&o, &err), &err);
}

const struct tc_command cmd_pypto_timeline_entry = {
	.name = "pypto timeline",
	.summary = "the instruction timeline of one P0 case",
	.usage = "usage: tunectl pypto timeline --op-dir DIR --case-id ID [--interpreter PROG]\n"
	    "           [--timeout S]\n"
	    "After the final compare: writes instruction_timeline/ into the case's\n"
	    "directory of the final round, once.\n",
	.run = cmd_pypto_timeline,
};
