/*
 * cmd_pypto_state.c - "tunectl pypto state": one action on the
 * orchestrator state (the reference's eleven; tunectl's consent, decline,
 * configure and resume), or show / history.
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "pypto_cli.h"
#include "tunectl/pypto.h"
#include "tunectl/pypto_orch.h"

static int
parse_bool(const char *opt, const char *v, int *out)
{
	if (v == NULL)
		return 0;
	if (strcmp(v, "true") == 0 || strcmp(v, "1") == 0)
		*out = 1;
	else if (strcmp(v, "false") == 0 || strcmp(v, "0") == 0)
		*out = 0;
	else
		return tc_usage_error(&cmd_pypto_state_entry, "argument %s: "
		    "expected true or false, got '%s'", opt, v);
	return 0;
}

static int
cmd_pypto_state(const struct tc_command *self, int argc, char **argv)
{
	tc_pypto_state_opts o;
	tc_pypto_input in = TC_PYPTO_INPUT_INIT;
	tc_pypto_orch_input oi;
	const char *op_dir = NULL, *project = NULL, *agent = NULL;
	const char *lint = NULL, *fusion = NULL, *cgp = NULL, *rsv = NULL;
	struct tc_strlist lint_args = { NULL, 0 };
	double lint_timeout = 0;
	bool allow = false;
	struct tc_parse_result res;
	char **lint_argv = NULL;
	tc_error err = TC_ERROR_INIT;
	tc_json *out;
	int rc;
	const struct tc_option opts[] = {
		{ "--op-dir", TC_OPT_STRING, &op_dir, true, NULL },
		{ "--project", TC_OPT_STRING, &project, false, NULL },
		{ "--agent", TC_OPT_STRING, &agent, false, NULL },
		{ "--lint-gate", TC_OPT_STRING, &lint, false, NULL },
		{ "--lint-gate-arg", TC_OPT_LIST, &lint_args, false, NULL },
		{ "--lint-timeout", TC_OPT_DOUBLE, &lint_timeout, false, NULL },
		{ "--allow-stage5-rollback", TC_OPT_FLAG, &allow, false, NULL },
		{ "--stage", TC_OPT_STRING, &in.stage, false, NULL },
		{ "--reason", TC_OPT_STRING, &in.reason, false, NULL },
		{ "--name", TC_OPT_STRING, &in.name, false, NULL },
		{ "--hash", TC_OPT_STRING, &in.hash, false, NULL },
		{ "--target-stage", TC_OPT_STRING, &in.target_stage, false, NULL },
		{ "--failure-category", TC_OPT_STRING, &in.failure_category,
		  false, NULL },
		{ "--module-count", TC_OPT_STRING, &in.module_count, false, NULL },
		{ "--is-fusion", TC_OPT_STRING, &fusion, false, NULL },
		{ "--module", TC_OPT_STRING, &in.module, false, NULL },
		{ "--failing-module-boundary", TC_OPT_STRING,
		  &in.failing_module_boundary, false, NULL },
		{ "--last-error", TC_OPT_STRING, &in.last_error, false, NULL },
		{ "--basis", TC_OPT_STRING, &oi.basis, false, NULL },
		{ "--statement", TC_OPT_STRING, &oi.statement, false, NULL },
		{ "--case-ids", TC_OPT_STRING, &oi.case_ids, false, NULL },
		{ "--no-questions", TC_OPT_FLAG, &oi.no_questions, false, NULL },
		{ "--devices", TC_OPT_STRING, &oi.devices, false, NULL },
		{ "--collect-golden-perf", TC_OPT_STRING, &cgp, false, NULL },
		{ "--run-stage2-verifier", TC_OPT_STRING, &rsv, false, NULL },
		{ "--request", TC_OPT_STRING, &oi.request, false, NULL },
		{ "--docs-cache", TC_OPT_STRING, &oi.docs_cache, false, NULL },
		{ "--resource-root", TC_OPT_STRING, &oi.resource_root, false, NULL },
		{ NULL, 0, NULL, false, NULL }
	};

	tc_pypto_orch_input_init(&oi, NULL);
	rc = tc_opts_parse(self, argc, argv, opts, &res);
	if (rc != 0) {
		tc_strlist_free(&lint_args);
		return rc < 0 ? TC_EXIT_OK : rc;
	}
	if (res.positional.len != 1) {
		rc = tc_usage_error(self, "expected exactly one ACTION");
		goto out;
	}
	in.action = res.positional.items[0];
	oi.action = in.action;
	oi.reason = in.reason;
	if (fusion != NULL) {
		int b = -1;

		if ((rc = parse_bool("--is-fusion", fusion, &b)) != 0)
			goto out;
		in.is_fusion = b;
	}
	if ((rc = parse_bool("--collect-golden-perf", cgp,
	    &oi.collect_golden_perf)) != 0 ||
	    (rc = parse_bool("--run-stage2-verifier", rsv,
	    &oi.run_stage2_verifier)) != 0)
		goto out;
	lint_argv = tc_pypto_cli_lint_argv(lint, &lint_args);
	memset(&o, 0, sizeof(o));
	o.project = project;
	o.op_dir = op_dir;
	o.agent = agent;
	o.lint_argv = lint_argv;
	o.lint_timeout_s = lint_timeout;
	o.allow_stage5_rollback = allow;
	if (strcmp(in.action, "show") == 0)
		out = tc_pypto_state_show(&o, &err);
	else if (strcmp(in.action, "history") == 0)
		out = tc_pypto_state_history(&o, &err);
	else if (tc_pypto_orch_action_known(in.action))
		out = tc_pypto_orch_action(&o, &oi, &err);
	else
		out = tc_pypto_state_transition(&o, &in, &err);
	rc = tc_pypto_cli_finish(out, &err);
out:
	tc_pypto_cli_free_argv(lint_argv);
	tc_strlist_free(&lint_args);
	tc_parse_result_free(&res);
	return rc;
}

const struct tc_command cmd_pypto_state_entry = {
	.name = "pypto state",
	.summary = "one action on the orchestrator state",
	.usage = "usage: tunectl pypto state --op-dir DIR [--project DIR] [--agent NAME]\n"
	    "           [--lint-gate PROG [--lint-gate-arg ARG]...] [--lint-timeout S]\n"
	    "           [--allow-stage5-rollback] ACTION [--stage N] [--reason TEXT]\n"
	    "           [--name NAME] [--hash HASH] [--target-stage N] [--failure-category C]\n"
	    "           [--module-count N] [--is-fusion true|false] [--module K]\n"
	    "           [--failing-module-boundary B] [--last-error TEXT]\n"
	    "       tunectl pypto state --op-dir DIR consent --basis user_requested|user_confirmed\n"
	    "           --statement TEXT [--case-ids A,B | --no-questions]\n"
	    "       tunectl pypto state --op-dir DIR decline --reason TEXT\n"
	    "       tunectl pypto state --op-dir DIR configure [--devices 0,1] [--request TEXT]\n"
	    "           [--collect-golden-perf true|false] [--run-stage2-verifier true|false]\n"
	    "           [--docs-cache DIR] [--resource-root DIR]\n"
	    "       tunectl pypto state --op-dir DIR resume --reason TEXT\n"
	    "ACTION is one of the 11 state actions, tunectl's consent, decline, configure or\n"
	    "resume, or show (state and legal next actions) or history (the rollback history).\n"
	    "The op dir must lie inside <project>/custom/.  The lint gate command may also\n"
	    "come from TUNECTL_PYPTO_LINT_GATE (split on spaces).  Nothing here runs inside a\n"
	    "dispatched worker (TUNECTL_ATTEMPT set): only the orchestrator writes the state.\n",
	.run = cmd_pypto_state,
};
