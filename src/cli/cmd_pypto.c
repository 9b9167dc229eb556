/*
 * cmd_pypto.c - "tunectl pypto": the subcommand table of the PyPTO-Pro
 * pipeline commands (one cmd_pypto_<name>.c per subcommand, or two where
 * they share their code) and the helpers they share.  Each subcommand
 * parses its options, calls src/pypto/, and prints JSON on stdout; errors
 * go to stderr with exit 1 (usage errors exit 2).
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "pypto_cli.h"
#include "tunectl/text.h"

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

char **
tc_pypto_cli_lint_argv(const char *prog, const struct tc_strlist *args)
{
	const char *env = getenv("TUNECTL_PYPTO_LINT_GATE");
	char **v;
	size_t i;

	if (prog == NULL)
		return env != NULL && *env != '\0' ? split_words(env) : NULL;
	v = tc_xcalloc(args->len + 2, sizeof(*v));
	v[0] = tc_xstrdup(prog);
	for (i = 0; i < args->len; i++)
		v[i + 1] = tc_xstrdup(args->items[i]);
	return v;
}

void
tc_pypto_cli_free_argv(char **v)
{
	size_t i;

	for (i = 0; v != NULL && v[i] != NULL; i++)
		free(v[i]);
	free(v);
}

int
tc_pypto_cli_fail(const tc_error *err)
{
	return tc_die("%s", tc_error_msg(err));
}

int
tc_pypto_cli_print(tc_json *v)
{
	int rc = tc_print_json(v);

	tc_json_free(v);
	return rc;
}

tc_json *
tc_pypto_cli_save(tc_json *v, const char *output, unsigned flags,
    tc_error *err)
{
	if (v != NULL && output != NULL &&
	    tc_write_json(output, v, flags, err) != 0) {
		tc_json_free(v);
		return NULL;
	}
	return v;
}

int
tc_pypto_cli_finish(tc_json *v, tc_error *err)
{
	int rc = v != NULL ? tc_pypto_cli_print(v) : tc_pypto_cli_fail(err);

	tc_error_clear(err);
	return rc;
}

int
tc_pypto_cli_verdict(tc_json *v, bool ok)
{
	int rc = tc_pypto_cli_print(v);

	return ok && rc == TC_EXIT_OK ? TC_EXIT_OK : TC_EXIT_FAIL;
}

/* Arguments end up in JSON state files: refuse invalid UTF-8 before any
 * subcommand sees them (raw bytes there would make every later read fail
 * with a decode error). */
static int
pypto_run(const struct tc_command *self, int argc, char **argv)
{
	int i;

	for (i = 1; i < argc; i++)
		if (!tc_utf8_valid(argv[i], strlen(argv[i])))
			return tc_usage_error(self, "argument %d is not valid "
			    "UTF-8", i + 1);
	return tc_cli_dispatch(self, argc, argv);
}

static const struct tc_command *const pypto_subs[] = {
	&cmd_pypto_state_entry, &cmd_pypto_cases_entry,
	&cmd_pypto_compare_entry, &cmd_pypto_items_entry,
	&cmd_pypto_select_entry, &cmd_pypto_check_entry,
	&cmd_pypto_dispatch_entry, &cmd_pypto_accept_entry,
	&cmd_pypto_run_next_entry, &cmd_pypto_run_entry,
	&cmd_pypto_inputs_entry, &cmd_pypto_boundary_entry,
	&cmd_pypto_handoff_entry, &cmd_pypto_discover_entry,
	&cmd_pypto_experiment_entry, &cmd_pypto_timeline_entry,
	&cmd_pypto_review_entry, &cmd_pypto_report_entry, NULL
};

const struct tc_command cmd_pypto_entry = {
	.name = "pypto",
	.summary = "PyPTO-Pro five-stage pipeline: dispatch to workers, state "
	    "machine, Stage 5 contract",
	.usage = "usage: tunectl pypto state --op-dir DIR ACTION [options]   (ACTION: init, start_stage,\n"
	    "                       complete_stage, fail_stage, record_artifact_hash, rollback_to_stage,\n"
	    "                       plan_stage4, start_module, submit_for_verify, complete_module,\n"
	    "                       fail_module, show, history)\n"
	    "       tunectl pypto cases validate|freeze --manifest FILE [options]\n"
	    "       tunectl pypto compare --op-dir DIR --case-manifest FILE [options]\n"
	    "       tunectl pypto items init|source|add|close|park|reopen|sweep|next|validate --ledger FILE\n"
	    "       tunectl pypto select --op-dir DIR --candidates FILE [options]\n"
	    "       tunectl pypto check stage5|task [options]\n"
	    "       tunectl pypto dispatch --op-dir DIR [--output FILE]\n"
	    "       tunectl pypto accept --op-dir DIR --task FILE --result FILE\n"
	    "       tunectl pypto run-next --op-dir DIR --runner-command-json FILE [options]\n"
	    "       tunectl pypto run --op-dir DIR --runner-command-json FILE [options]\n"
	    "       tunectl pypto inputs --op-dir DIR [--handoff-out FILE]\n"
	    "       tunectl pypto boundary --op-dir DIR\n"
	    "       tunectl pypto handoff validate --op-dir DIR --handoff FILE\n"
	    "       tunectl pypto discover --op-dir DIR --case-manifest FILE --case-id ID --kernel NAME\n"
	    "       tunectl pypto experiment start|correctness|quick|formal|accept|restore|reject|baseline\n"
	    "       tunectl pypto timeline --op-dir DIR --case-id ID\n"
	    "       tunectl pypto review template --op-dir DIR [--output FILE]\n"
	    "       tunectl pypto report --op-dir DIR [--terminal FILE]\n"
	    "Run 'tunectl pypto SUBCOMMAND --help' for its options; docs/pypto.md describes the formats.\n",
	.run = pypto_run,
	.subs = pypto_subs,
};
