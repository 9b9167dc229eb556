/*
 * cmd_pypto_check.c - "tunectl pypto check": stage5-check (the verdict on
 * stderr in the reference's shape, the report as JSON on stdout; with
 * --record the orchestrator binds it in the state), and "check task" (is
 * a dispatched task still current?).
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "pypto_cli.h"
#include "tunectl/fileio.h"
#include "tunectl/pypto.h"
#include "tunectl/pypto_orch.h"

static int
check_task(const struct tc_command *cmd, const char *path)
{
	tc_error err = TC_ERROR_INIT;
	tc_json *task = tc_json_parse_file(path, &err), *ok;
	int rc;

	if (task == NULL || tc_pypto_task_check(task, &err) != 0) {
		tc_json_free(task);
		rc = tc_refuse(cmd, "%s", tc_error_msg(&err));
		tc_error_clear(&err);
		return rc;
	}
	ok = tc_json_new_object();
	tc_json_object_set_bool(ok, "valid", true);
	tc_json_object_set(ok, "step", tc_json_clone(tc_json_get(task, "step")));
	tc_json_free(task);
	return tc_pypto_cli_print(ok);
}

static int
cmd_pypto_check(const struct tc_command *self, int argc, char **argv)
{
	tc_pypto_check_opts o;
	tc_pypto_state_opts so;
	struct tc_parse_result res;
	const char *task = NULL, *output = NULL, *project = NULL;
	bool record = false;
	tc_error err = TC_ERROR_INIT;
	tc_json *out;
	char *text;
	int rc;
	const struct tc_option opts[] = {
		{ "--op-dir", TC_OPT_STRING, &o.op_dir, false, NULL },
		{ "--project", TC_OPT_STRING, &project, false, NULL },
		{ "--dispatch", TC_OPT_STRING, &o.dispatch_path, false, NULL },
		{ "--report", TC_OPT_STRING, &o.report_path, false, NULL },
		{ "--review", TC_OPT_STRING, &o.review_path, false, NULL },
		TC_PYPTO_CLI_PYTHON_OPTS(o),
		{ "--gates", TC_OPT_STRING, &o.gates, false, NULL },
		{ "--output", TC_OPT_STRING, &output, false, NULL },
		{ "--record", TC_OPT_FLAG, &record, false, NULL },
		{ "--task", TC_OPT_STRING, &task, false, NULL },
		{ NULL, 0, NULL, false, NULL }
	};

	memset(&o, 0, sizeof(o));
	rc = tc_opts_parse(self, argc, argv, opts, &res);
	if (rc != 0)
		return rc < 0 ? TC_EXIT_OK : rc;
	if (res.positional.len == 1 &&
	    strcmp(res.positional.items[0], "task") == 0) {
		tc_parse_result_free(&res);
		if (task == NULL)
			return tc_usage_error(self, "check task needs --task");
		return check_task(self, task);
	}
	if (res.positional.len != 1 ||
	    strcmp(res.positional.items[0], "stage5") != 0 || o.op_dir == NULL) {
		tc_parse_result_free(&res);
		return tc_usage_error(self, "expected: check stage5 --op-dir "
		    "DIR, or check task --task FILE");
	}
	tc_parse_result_free(&res);
	if (record) {
		memset(&so, 0, sizeof(so));
		so.project = project;
		so.op_dir = o.op_dir;
		out = tc_pypto_check_record(&so, &o, &err);
	} else {
		out = tc_pypto_check_stage5(&o, &err);
	}
	if ((out = tc_pypto_cli_save(out, output, TC_WRITE_MKDIRS,
	    &err)) == NULL)
		return tc_pypto_cli_finish(NULL, &err);
	text = tc_pypto_check_render(out);
	fputs(text, stderr);
	free(text);
	return tc_pypto_cli_verdict(out, strcmp(tc_json_get_string(out,
	    "verdict"), "PASS") == 0);
}

const struct tc_command cmd_pypto_check_entry = {
	.name = "pypto check",
	.summary = "stage5-check, or a dispatched task",
	.usage = "usage: tunectl pypto check stage5 --op-dir DIR [--project DIR] [--dispatch FILE]\n"
	    "           [--report FILE] [--review FILE] [--interpreter PROG] [--timeout S]\n"
	    "           [--gates S4.1,P3,...] [--output FILE] [--record]\n"
	    "       tunectl pypto check task --task FILE\n"
	    "stage5: PASS, FAILED (exit 1) or NOT_COMPLETE (evidence missing, exit 1).\n"
	    "Without --dispatch the dispatch comes from the state (stage4_path and the\n"
	    "target cases of the Stage 5 entry confirmation).\n",
	.run = cmd_pypto_check,
};
