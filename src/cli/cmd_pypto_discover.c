/*
 * cmd_pypto_discover.c - "tunectl pypto discover": the discovery run that
 * finds the exact lowered Op Name before the formal baseline.
 */
#include <string.h>

#include "cli.h"
#include "pypto_cli.h"
#include "tunectl/pypto_stage5.h"

static int
cmd_pypto_discover(const struct tc_command *self, int argc, char **argv)
{
	tc_pypto_discover_opts o;
	tc_error err = TC_ERROR_INIT;
	int rc;
	const struct tc_option opts[] = {
		{ "--op-dir", TC_OPT_STRING, &o.op_dir, true, NULL },
		{ "--case-manifest", TC_OPT_STRING, &o.manifest_path, true, NULL },
		{ "--case-id", TC_OPT_STRING, &o.case_id, true, NULL },
		{ "--kernel", TC_OPT_STRING, &o.kernel, true, NULL },
		{ "--case-arg", TC_OPT_STRING, &o.case_arg, false, NULL },
		{ "--case-env", TC_OPT_STRING, &o.case_env, false, NULL },
		{ "--warmup", TC_OPT_INT, &o.warmup, false, NULL },
		{ "--device", TC_OPT_INT, &o.device, false, NULL },
		TC_PYPTO_CLI_PYTHON_OPTS(o),
		{ NULL, 0, NULL, false, NULL }
	};

	memset(&o, 0, sizeof(o));
	o.warmup = -1;
	o.device = -1;
	if ((rc = tc_opts_parse(self, argc, argv, opts, NULL)) != 0)
		return rc < 0 ? TC_EXIT_OK : rc;
	return tc_pypto_cli_finish(tc_pypto_discover(&o, &err), &err);
}

const struct tc_command cmd_pypto_discover_entry = {
	.name = "pypto discover",
	.summary = "the discovery run that finds the lowered Op Name",
	.usage = "usage: tunectl pypto discover --op-dir DIR --case-manifest FILE --case-id ID\n"
	    "           --kernel NAME [--case-arg FLAG | --case-env VAR] [--warmup N]\n"
	    "           [--device N] [--interpreter PROG] [--timeout S]\n"
	    "Writes docs/perf/discovery.json once; freeze it with cases freeze --discovery.\n",
	.run = cmd_pypto_discover,
};
