/*
 * cmd_tune.c - "tunectl tune SPEC": tune a program described by a
 * workload spec (tune.yaml).  --dry-run reads the spec and prints the
 * plan a session would freeze (text, or JSON with --json); running the
 * seven phases from a spec is not there yet and is refused in words.
 */
#include <stdio.h>
#include <stdlib.h>

#include "cli.h"
#include "tunectl/tune.h"

static int
cmd_tune(const struct tc_command *cmd, int argc, char **argv)
{
	const char *session_dir = NULL, *host = NULL;
	bool dry_run = false, json = false, resume = false;
	const struct tc_option opts[] = {
		{ "--dry-run", TC_OPT_FLAG, &dry_run, false, NULL },
		{ "--json", TC_OPT_FLAG, &json, false, NULL },
		{ "--session-dir", TC_OPT_STRING, &session_dir, false, NULL },
		{ "--host", TC_OPT_STRING, &host, false, NULL },
		{ "--resume", TC_OPT_FLAG, &resume, false, NULL },
		{ NULL, 0, NULL, false, NULL }
	};
	struct tc_parse_result res;
	tc_error err = TC_ERROR_INIT;
	tc_tune_spec *spec = NULL;
	tc_json *plan = NULL;
	int rc;

	if ((rc = tc_opts_parse(cmd, argc, argv, opts, &res)) != 0)
		return rc < 0 ? TC_EXIT_OK : rc;
	if (res.positional.len != 1) {
		tc_parse_result_free(&res);
		return tc_usage_error(cmd, res.positional.len == 0 ?
		    "the following arguments are required: SPEC" :
		    "exactly one SPEC, got more");
	}
	if (json && !dry_run) {
		tc_parse_result_free(&res);
		return tc_usage_error(cmd, "--json goes with --dry-run");
	}
	if (tc_tune_spec_load(res.positional.items[0], &spec, &err) != 0 ||
	    (plan = tc_tune_plan(spec, &err)) == NULL) {
		rc = tc_die("tune: %s", tc_error_msg(&err));
		goto out;
	}
	if (!dry_run) {
		rc = tc_die("tune: not yet: running the seven phases from a spec "
		    "is not implemented in this version; 'tunectl tune --dry-run "
		    "%s' prints the plan, and 'tunectl demo' runs a whole "
		    "session on the demo workload", res.positional.items[0]);
		goto out;
	}
	if (json) {
		rc = tc_print_json(plan);
	} else {
		tc_buf b = TC_BUF_INIT;

		tc_tune_plan_text(plan, &b);
		fwrite(b.data, 1, b.len, stdout);
		tc_buf_free(&b);
		rc = fflush(stdout) == 0 ? TC_EXIT_OK : TC_EXIT_FAIL;
	}
out:
	tc_json_free(plan);
	tc_tune_spec_free(spec);
	tc_error_clear(&err);
	tc_parse_result_free(&res);
	return rc;
}

const struct tc_command cmd_tune_entry = {
	.name = "tune",
	.summary = "tune a program described by a workload spec (tune.yaml); --dry-run prints the plan",
	.usage = "usage: tunectl tune --dry-run [--json] SPEC\n"
	    "       tunectl tune SPEC [--session-dir DIR] [--host script] [--resume]   (not yet)\n",
	.help = "\nRead the workload spec SPEC (YAML, version 1; docs/workload-spec.md) and\n"
	    "print the plan a tuning session would freeze: the variants Stage A\n"
	    "screens, the option matrix after the constraints and the trials Stage O\n"
	    "makes, the runs of every phase, the builds, and a time estimate.\n"
	    "A spec with an unknown key, a wrong type, a duplicate key, a template\n"
	    "naming a missing parameter or a baseline outside the constraints is\n"
	    "refused with one message naming the file and line (exit 1).\n"
	    "\n"
	    "  --dry-run     print the plan and run nothing\n"
	    "  --json        the plan as JSON (tunectl-tune-plan-v1) instead of text\n"
	    "\n"
	    "Without --dry-run, tune would run the seven-phase session on the spec;\n"
	    "that is not implemented yet and is refused (exit 1).\n",
	.run = cmd_tune,
};
