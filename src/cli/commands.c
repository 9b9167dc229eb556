/*
 * commands.c - the command table (one line per command; each entry lives
 * in its own cmd_<name>.c) and the one dispatcher: help requests, unknown
 * and missing subcommands, all with argparse's words.
 */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "tunectl/buf.h"

/* Sorted by name, but for keygen after lease: "tunectl help" lists them
 * in this order and its output is pinned. */
const struct tc_command *const tc_commands[] = {
	&cmd_analyze_entry,
	&cmd_attest_entry,
	&cmd_bench_entry,
	&cmd_demo_entry,
	&cmd_derive_session_entry,
	&cmd_dispatch_entry,
	&cmd_env_check_entry,
	&cmd_execute_phase_entry,
	&cmd_gate_entry,
	&cmd_help_entry,
	&cmd_init_entry,
	&cmd_json_entry,
	&cmd_lease_entry,
	&cmd_keygen_entry,
	&cmd_ledger_entry,
	&cmd_lineage_entry,
	&cmd_next_entry,
	&cmd_prompt_entry,
	&cmd_pypto_entry,
	&cmd_quarantine_entry,
	&cmd_render_final_report_entry,
	&cmd_render_round_report_entry,
	&cmd_report_entry,
	&cmd_resume_entry,
	&cmd_run_entry,
	&cmd_run_next_entry,
	&cmd_seal_entry,
	&cmd_sha256_entry,
	&cmd_skills_entry,
	&cmd_source_range_from_smap_entry,
	&cmd_status_entry,
	&cmd_support_entry,
	&cmd_tune_entry,
	&cmd_verify_entry,
	&cmd_version_entry,
	NULL
};

/* The word that selects an entry: the last word of its name. */
static const char *
word_of(const struct tc_command *c)
{
	const char *sp = strrchr(c->name, ' ');

	return sp != NULL ? sp + 1 : c->name;
}

const struct tc_command *
tc_command_find(const struct tc_command *const *cmds, const char *word)
{
	size_t i;

	for (i = 0; cmds != NULL && cmds[i] != NULL; i++)
		if (strcmp(word_of(cmds[i]), word) == 0)
			return cmds[i];
	return NULL;
}

void
tc_cli_print_help(const struct tc_command *cmd, FILE *fp, bool full)
{
	if (tc_cli_ref_prog(cmd) != NULL && cmd->ref_usage != NULL)
		fputs(cmd->ref_usage, fp);
	else if (cmd->usage != NULL)
		fputs(cmd->usage, fp);
	if (full && cmd->help != NULL)
		fputs(cmd->help, fp);
	if (full && cmd->help_more != NULL)
		fputs(cmd->help_more, fp);
}

const char *
tc_cli_ref_prog(const struct tc_command *cmd)
{
	const char *env;

	size_t n;

	if (cmd->ref_prog == NULL || (env = getenv("TUNECTL_PROG")) == NULL)
		return NULL;
	/* a subcommand's ref_prog is "PROG SUB", as argparse names it */
	n = strcspn(cmd->ref_prog, " ");
	if (strlen(env) != n || strncmp(env, cmd->ref_prog, n) != 0)
		return NULL;
	return cmd->ref_prog;
}

static bool
is_help(const char *arg)
{
	return strcmp(arg, "-h") == 0 || strcmp(arg, "--help") == 0;
}

/* -h/--help before "--". */
static bool
help_before_dashdash(int argc, char **argv)
{
	int i;

	for (i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--") == 0)
			return false;
		if (is_help(argv[i]))
			return true;
	}
	return false;
}

/* The subcommands a user may choose, as argparse lists them: with
 * quotes, "'a', 'b'", or bare, "a, b". */
static void
list_choices(tc_buf *b, const struct tc_command *cmd, bool quoted)
{
	size_t i;

	for (i = 0; cmd->subs[i] != NULL; i++) {
		if (cmd->subs[i]->flags & TC_CMD_HIDDEN)
			continue;
		if (b->len > 0)
			tc_buf_puts(b, ", ");
		tc_buf_printf(b, quoted ? "'%s'" : "%s", word_of(cmd->subs[i]));
	}
}

static int
missing_subcommand(const struct tc_command *cmd)
{
	tc_buf b = TC_BUF_INIT;
	int rc;

	if (cmd->sub_dest != NULL)
		return tc_usage_error(cmd, "the following arguments are "
		    "required: %s", cmd->sub_dest);
	list_choices(&b, cmd, false);
	rc = tc_usage_error(cmd, "a subcommand is required: %s",
	    tc_buf_cstr(&b));
	tc_buf_free(&b);
	return rc;
}

static int
unknown_subcommand(const struct tc_command *cmd, const char *word)
{
	tc_buf b = TC_BUF_INIT;
	int rc;

	list_choices(&b, cmd, true);
	rc = tc_usage_error(cmd, "argument %s: invalid choice: '%s' (choose "
	    "from %s)", cmd->sub_dest != NULL ? cmd->sub_dest : "subcommand",
	    word, tc_buf_cstr(&b));
	tc_buf_free(&b);
	return rc;
}

/* Run one subcommand entry: as itself, or speaking as its parent. */
static int
run_sub(const struct tc_command *parent, const struct tc_command *sub,
    int argc, char **argv)
{
	const struct tc_command *self =
	    (sub->flags & TC_CMD_PARENT_USAGE) ? parent : sub;

	if ((sub->flags & TC_CMD_HELP_ANYWHERE) &&
	    help_before_dashdash(argc, argv)) {
		tc_cli_print_help(self, stdout, true);
		return TC_EXIT_OK;
	}
	return sub->run != NULL ? sub->run(self, argc, argv) :
	    tc_cli_dispatch(sub, argc, argv);
}

int
tc_cli_run(const struct tc_command *cmd, int argc, char **argv)
{
	return cmd->run != NULL ? cmd->run(cmd, argc, argv) :
	    tc_cli_dispatch(cmd, argc, argv);
}

int
tc_cli_dispatch(const struct tc_command *cmd, int argc, char **argv)
{
	const struct tc_command *sub;

	if (argc < 2)
		return missing_subcommand(cmd);
	if (is_help(argv[1]) || strcmp(argv[1], "help") == 0) {
		tc_cli_print_help(cmd, stdout, true);
		return TC_EXIT_OK;
	}
	if ((sub = tc_command_find(cmd->subs, argv[1])) == NULL)
		return unknown_subcommand(cmd, argv[1]);
	return run_sub(cmd, sub, argc - 1, argv + 1);
}
