/*
 * cmd_pypto.c - "tunectl pypto": the subcommand table of the PyPTO-Pro
 * pipeline commands (one cmd_pypto_<name>.c per subcommand) and the
 * helpers they share.  Each subcommand parses its options, calls
 * src/pypto/, and prints JSON on stdout; errors go to stderr with exit 1
 * (usage errors exit 2).
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "pypto_cli.h"
#include "tunectl/text.h"

struct pypto_sub {
	const char *name;
	const char *usage;	/* its line in "tunectl pypto help" */
	int (*run)(int argc, char **argv);
};

static const struct pypto_sub subs[] = {
	{ "state", "state --op-dir DIR ACTION [options]   (ACTION: init, start_stage,\n"
	  "                       complete_stage, fail_stage, record_artifact_hash, rollback_to_stage,\n"
	  "                       plan_stage4, start_module, submit_for_verify, complete_module,\n"
	  "                       fail_module, show, history)", cmd_pypto_state },
	{ "cases", "cases validate|freeze --manifest FILE [options]", cmd_pypto_cases },
	{ "compare", "compare --op-dir DIR --case-manifest FILE [options]", cmd_pypto_compare },
	{ "items", "items init|source|add|close|park|reopen|sweep|next|validate --ledger FILE",
	  cmd_pypto_items },
	{ "select", "select --op-dir DIR --candidates FILE [options]", cmd_pypto_select },
	{ "check", "check stage5|task [options]", cmd_pypto_check },
	{ "dispatch", "dispatch --op-dir DIR [--output FILE]", cmd_pypto_dispatch },
	{ "accept", "accept --op-dir DIR --task FILE --result FILE", cmd_pypto_accept },
	{ "run-next", "run-next --op-dir DIR --runner-command-json FILE [options]",
	  cmd_pypto_run_next },
	{ "run", "run --op-dir DIR --runner-command-json FILE [options]", cmd_pypto_run },
	{ "inputs", "inputs --op-dir DIR [--handoff-out FILE]", cmd_pypto_inputs },
	{ "boundary", "boundary --op-dir DIR", cmd_pypto_boundary },
	{ "handoff", "handoff validate --op-dir DIR --handoff FILE", cmd_pypto_handoff },
	{ "discover", "discover --op-dir DIR --case-manifest FILE --case-id ID --kernel NAME",
	  cmd_pypto_discover },
	{ "experiment", "experiment start|correctness|quick|formal|accept|restore|reject|baseline",
	  cmd_pypto_experiment },
	{ "timeline", "timeline --op-dir DIR --case-id ID", cmd_pypto_timeline },
	{ "review", "review template --op-dir DIR [--output FILE]", cmd_pypto_review },
	{ "report", "report --op-dir DIR [--terminal FILE]", cmd_pypto_report },
	{ NULL, NULL, NULL }
};

static void
print_usage(FILE *fp)
{
	size_t i;

	for (i = 0; subs[i].name != NULL; i++)
		fprintf(fp, "%s tunectl pypto %s\n", i == 0 ? "usage:" : "      ",
		    subs[i].usage);
	fputs("Run 'tunectl pypto SUBCOMMAND --help' for its options; "
	    "docs/pypto.md describes the formats.\n", fp);
}

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

int
cmd_pypto(int argc, char **argv)
{
	const char *sub = argc > 1 ? argv[1] : NULL;
	int i;

	/* Arguments end up in JSON state files; raw bytes there would make
	 * every later read fail with a decode error. */
	for (i = 1; i < argc; i++)
		if (!tc_utf8_valid(argv[i], strlen(argv[i])))
			return tc_usage_error(tc_command_find("pypto"),
			    "argument %d is not valid UTF-8", i + 1);

	if (sub == NULL || strcmp(sub, "help") == 0 || strcmp(sub, "--help") == 0
	    || strcmp(sub, "-h") == 0) {
		print_usage(sub == NULL ? stderr : stdout);
		return sub == NULL ? TC_EXIT_USAGE : TC_EXIT_OK;
	}
	for (i = 0; subs[i].name != NULL; i++)
		if (strcmp(sub, subs[i].name) == 0)
			return subs[i].run(argc - 1, argv + 1);
	print_usage(stderr);
	fprintf(stderr, "tunectl pypto: error: unknown subcommand '%s'\n", sub);
	return TC_EXIT_USAGE;
}
