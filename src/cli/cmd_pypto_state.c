/*
 * cmd_pypto_state.c - "tunectl pypto state": one action of the orchestrator state
 * (the reference's eleven and tunectl's own), or show / history.
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "pypto_cli.h"
#include "tunectl/pypto.h"

static const struct tc_command cmd_state = { "pypto state", "",
"usage: tunectl pypto state --op-dir DIR [--project DIR] [--agent NAME]\n"
"           [--lint-gate PROG [--lint-gate-arg ARG]...] [--lint-timeout S]\n"
"           [--allow-stage5-rollback] ACTION [--stage N] [--reason TEXT]\n"
"           [--name NAME] [--hash HASH] [--target-stage N] [--failure-category C]\n"
"           [--module-count N] [--is-fusion true|false] [--module K]\n"
"           [--failing-module-boundary B] [--last-error TEXT]\n"
"ACTION is one of the 11 state actions, or show (state and legal next actions)\n"
"or history (the rollback history).  The op dir must lie inside <project>/custom/.\n"
"The lint gate command may also come from TUNECTL_PYPTO_LINT_GATE (split on spaces).\n",
	NULL };

static char **
split_words(const char *s)
{
	char **v = tc_xcalloc(strlen(s) / 2 + 2, sizeof(*v));
	char *copy = tc_xstrdup(s), *save = NULL, *tok;
	size_t n = 0;

	for (tok = strtok_r(copy, " \t", &save); tok != NULL;
	    tok = strtok_r(NULL, " \t", &save))
		v[n++] = tc_xstrdup(tok);
	v[n] = NULL;
	free(copy);
	return v;
}

static void
free_words(char **v)
{
	size_t i;

	for (i = 0; v != NULL && v[i] != NULL; i++)
		free(v[i]);
	free(v);
}

int
cmd_pypto_state(int argc, char **argv)
{
	tc_pypto_state_opts o;
	tc_pypto_input in = TC_PYPTO_INPUT_INIT;
	const char *op_dir = NULL, *project = NULL, *agent = NULL;
	const char *lint = NULL, *fusion = NULL;
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
		{ NULL, 0, NULL, false, NULL }
	};

	rc = tc_opts_parse(&cmd_state, argc, argv, opts, &res);
	if (rc != 0) {
		tc_strlist_free(&lint_args);
		return rc < 0 ? TC_EXIT_OK : rc;
	}
	if (res.positional.len != 1) {
		tc_parse_result_free(&res);
		tc_strlist_free(&lint_args);
		return tc_usage_error(&cmd_state, "expected exactly one ACTION");
	}
	in.action = res.positional.items[0];
	if (fusion != NULL) {
		if (strcmp(fusion, "true") == 0 || strcmp(fusion, "1") == 0)
			in.is_fusion = 1;
		else if (strcmp(fusion, "false") == 0 || strcmp(fusion, "0") == 0)
			in.is_fusion = 0;
		else {
			tc_parse_result_free(&res);
			tc_strlist_free(&lint_args);
			return tc_usage_error(&cmd_state, "argument --is-fusion: "
			    "expected true or false, got '%s'", fusion);
		}
	}
	if (lint != NULL) {
		size_t i;

		lint_argv = tc_xcalloc(lint_args.len + 2, sizeof(*lint_argv));
		lint_argv[0] = tc_xstrdup(lint);
		for (i = 0; i < lint_args.len; i++)
			lint_argv[i + 1] = tc_xstrdup(lint_args.items[i]);
	} else if (getenv("TUNECTL_PYPTO_LINT_GATE") != NULL &&
	    *getenv("TUNECTL_PYPTO_LINT_GATE") != '\0') {
		lint_argv = split_words(getenv("TUNECTL_PYPTO_LINT_GATE"));
	}
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
	else
		out = tc_pypto_state_transition(&o, &in, &err);
	rc = out != NULL ? tc_pypto_cli_print(out) : tc_pypto_cli_fail(&err);
	tc_error_clear(&err);
	free_words(lint_argv);
	tc_strlist_free(&lint_args);
	tc_parse_result_free(&res);
	return rc;
}
