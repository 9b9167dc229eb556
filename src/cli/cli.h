/*
 * cli.h - the command table, shared option parsing and output helpers of
 * the tunectl program.  Commands are thin: parse options, call the
 * library, print.  Domain logic never lives in src/cli/.
 */
#ifndef TUNECTL_CLI_H
#define TUNECTL_CLI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "tunectl/error.h"
#include "tunectl/json.h"

/* Exit statuses shared by every command. */
enum {
	TC_EXIT_OK = 0,
	TC_EXIT_FAIL = 1,	/* refusal, validation error, I/O error */
	TC_EXIT_USAGE = 2
};

/*
 * One entry per command and per subcommand, defined in the command's own
 * file next to its code (tmux's cmd_entry).  commands.c lists the
 * commands; tc_cli_dispatch() does the rest: "help", "--help", unknown
 * commands and subcommands, and the usage errors about them.
 */
enum tc_refusal {
	TC_REFUSAL_LINE,	/* {"valid": false, "errors": [msg]}: the
				 * controller's, on one line */
	TC_REFUSAL_SORTED	/* indent 2, sorted keys: experiment_ledger.py's */
};

enum {
	TC_CMD_HIDDEN = 1 << 0,		/* dispatched, never listed */
	TC_CMD_PARENT_USAGE = 1 << 1,	/* a subcommand that speaks as its
					 * parent: its run gets the parent's
					 * entry, --help prints the parent's */
	TC_CMD_HELP_ANYWHERE = 1 << 2	/* -h/--help anywhere before "--"
					 * wins over every other argument,
					 * as in argparse */
};

struct tc_command {
	const char *name;	/* as typed: "ledger" or "ledger merge" */
	const char *summary;	/* one line for "tunectl help" */
	const char *usage;	/* --help, and before every usage error */
	const char *help;	/* more text --help prints after the usage */
	const char *help_more;	/* and after help (C caps one literal) */
	/*
	 * argv[0] is the (sub)command's own word; self is this entry, or the
	 * parent's with TC_CMD_PARENT_USAGE.  A command with subcommands and
	 * no run is dispatched by tc_cli_dispatch(); one with both runs first
	 * and calls tc_cli_dispatch() itself.
	 */
	int (*run)(const struct tc_command *self, int argc, char **argv);
	const struct tc_command *const *subs;	/* NULL-terminated, or NULL */
	const char *sub_dest;	/* argparse dest of the subcommand word:
				 * "command" names it in the errors;
				 * NULL: "a subcommand is required" */
	enum tc_refusal refusal;	/* the shape tc_refuse() prints */
	unsigned flags;		/* TC_CMD_* */
	/*
	 * A command a reference-named launcher in share/tools runs: the
	 * reference's program name and its usage as argparse writes it for
	 * that name.  When the launcher sets TUNECTL_PROG to ref_prog, the
	 * usage and the "PROG: error:" prefix are the reference's.  A
	 * subcommand's ref_prog is "PROG SUB" (TUNECTL_PROG names PROG).
	 */
	const char *ref_prog;
	const char *ref_usage;
	/* a subcommand's: its top parser's usage, where argparse reports
	 * unrecognized arguments (as "PROG: error:") */
	const char *ref_top_usage;
};

/* The commands, sorted by name ("tunectl help" lists them in order). */
extern const struct tc_command *const tc_commands[];

/* The command or subcommand entry named by word among cmds, or NULL. */
const struct tc_command *tc_command_find(const struct tc_command *const *cmds,
    const char *word);

/* Print cmd's usage, then (with full) its help text. */
void tc_cli_print_help(const struct tc_command *cmd, FILE *fp, bool full);
/* cmd->ref_prog when TUNECTL_PROG names it (the command runs under the
 * reference's name), else NULL. */
const char *tc_cli_ref_prog(const struct tc_command *cmd);

/* "tunectl help"'s list of commands (cmd_help.c). */
void tc_cli_overview(FILE *fp);
/* "tunectl: 'NAME' is not a tunectl command; ..."; returns TC_EXIT_USAGE. */
int tc_cli_unknown_command(const char *name);

/* Run cmd (argv[0] is its word): its run function, else tc_cli_dispatch. */
int tc_cli_run(const struct tc_command *cmd, int argc, char **argv);

/*
 * Run the subcommand of cmd named by argv[1].  "help", "-h" and "--help"
 * print cmd's usage and help on stdout; no subcommand or an unknown one is
 * a usage error in argparse's words ("a subcommand is required: ...",
 * "argument subcommand: invalid choice: ...", or with cmd->sub_dest).
 */
int tc_cli_dispatch(const struct tc_command *cmd, int argc, char **argv);

/* ---- option parsing --------------------------------------------------- */

enum tc_opt_kind {
	TC_OPT_FLAG,		/* bool *; no value */
	TC_OPT_STRING,		/* const char **; points into argv */
	TC_OPT_LIST,		/* struct tc_strlist *; repeatable; the
				 * caller frees it (tc_strlist_free), a
				 * failed parse already has */
	TC_OPT_INT,		/* long *; decimal */
	TC_OPT_DOUBLE,		/* double * */
	TC_OPT_PYFLOAT,		/* double *; as argparse's type=float: nan,
				 * inf and out-of-range values are floats,
				 * left to the command to judge */
	TC_OPT_CHOICE		/* struct tc_opt_choice *; argparse's
				 * choices=, refused where it is read */
};

/* The destination of a TC_OPT_CHOICE option: the value is stored in
 * *value only when it is one of choices (NULL-terminated); otherwise
 * the parse stops with argparse's "invalid choice" error at that
 * argument, before any missing-required or unrecognized-argument error,
 * as argparse orders them. */
struct tc_opt_choice {
	const char **value;
	const char *const *choices;
};

struct tc_strlist {
	const char **items;	/* malloc'd array of pointers into argv */
	size_t len;
};

struct tc_option {
	const char *name;	/* "--session" */
	enum tc_opt_kind kind;
	void *dest;
	bool required;
	bool *seen;		/* optional: set when the option was given */
};

/*
 * Parse argv[1..argc-1] (argv[0] is the command name) in argparse style:
 * "--name value" and "--name=value"; "--" ends the options and everything
 * after it goes to positional (with rest_after_dashdash set when given).
 * "-h"/"--help" prints cmd's usage and help to stdout and returns -1
 * (exit 0).
 * Unknown options, missing values and missing required options print
 * "usage..." and "tunectl <cmd>: error: <msg>" to stderr and return
 * TC_EXIT_USAGE.  Positional arguments are refused unless positional is
 * non-NULL.  Returns 0 on success.
 */
struct tc_parse_result {
	struct tc_strlist positional;
	bool saw_dashdash;
	size_t dashdash_index;	/* index into positional where "--" args start */
	const char *one_positional;	/* see tc_opts_parse_one */
};

int tc_opts_parse(const struct tc_command *cmd, int argc, char **argv,
    const struct tc_option *opts, struct tc_parse_result *res);
/* tc_opts_parse for a command with exactly one positional, argparse's
 * single required positional NAME: missing, it is named in the
 * "required" error; positionals beyond it are unrecognized arguments. */
int tc_opts_parse_one(const struct tc_command *cmd, int argc, char **argv,
    const struct tc_option *opts, struct tc_parse_result *res,
    const char *name);

/* Print "usage" + "tunectl <cmd>: error: <msg>" and return TC_EXIT_USAGE. */
int tc_usage_error(const struct tc_command *cmd, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

void tc_strlist_free(struct tc_strlist *l);
void tc_parse_result_free(struct tc_parse_result *res);

/* ---- output ------------------------------------------------------------ */

/* Print v pretty (indent 2, sorted keys, ensure_ascii=False) + "\n" on
 * stdout.  Returns TC_EXIT_OK, or TC_EXIT_FAIL if it cannot be encoded. */
int tc_print_json(const tc_json *v);

/*
 * The one refusal printer: a validation or refusal message as the JSON
 * object the command's reference prints (cmd->refusal), on stdout.
 * Returns TC_EXIT_FAIL.
 */
int tc_refuse(const struct tc_command *cmd, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* tc_refuse() with err's message; clears err (reply.c). */
int tc_refuse_error(const struct tc_command *cmd, tc_error *err);

/* Print doc and free it, or, when doc is NULL, tc_refuse_error(). */
int tc_cli_reply(const struct tc_command *cmd, tc_json *doc, tc_error *err);

/* Print doc and free it; TC_EXIT_FAIL unless its "valid" is true. */
int tc_cli_print_verdict(tc_json *doc);

/* Print {"KEY": path}, the file a command wrote. */
int tc_cli_print_path(const char *key, const char *path);

/* "tunectl: <msg>" on stderr; returns TC_EXIT_FAIL. */
int tc_die(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* tc_die() with err's message; clears err (reply.c). */
int tc_die_error(tc_error *err);

/* Print doc and free it, or, when doc is NULL, tc_die_error(): the answer
 * of a command whose failures are errors, not refusals. */
int tc_cli_reply_or_die(tc_json *doc, tc_error *err);

/* Absolute path of the running tunectl binary (from /proc/self/exe). */
const char *tc_self_exe(void);

/* On stderr, as "tunectl CMD: artifacts unbound: ..." and "tunectl: CMD:
 * not bound: ...": what the session's manifests leave unbound
 * (unbound_notes.c). */
struct tc_session;
void tc_cli_note_unbound(const struct tc_session *s, const char *cmd);

/* ---- the commands ------------------------------------------------------- */

/* One entry per command, each in its src/cli/cmd_<name>.c. */
extern const struct tc_command cmd_analyze_entry;
extern const struct tc_command cmd_analyze_sk_meta_entry;	/* a subcommand */
extern const struct tc_command cmd_analyze_smap_entry;	/* a subcommand */
extern const struct tc_command cmd_attest_entry;
extern const struct tc_command cmd_bench_entry;
extern const struct tc_command cmd_demo_entry;
extern const struct tc_command cmd_derive_session_entry;
extern const struct tc_command cmd_dispatch_entry;
extern const struct tc_command cmd_env_check_entry;
extern const struct tc_command cmd_execute_phase_entry;
extern const struct tc_command cmd_gate_entry;
extern const struct tc_command cmd_help_entry;
extern const struct tc_command cmd_init_entry;
extern const struct tc_command cmd_json_entry;
extern const struct tc_command cmd_keygen_entry;
extern const struct tc_command cmd_lease_entry;
extern const struct tc_command cmd_ledger_entry;
extern const struct tc_command cmd_lineage_entry;
extern const struct tc_command cmd_next_entry;
extern const struct tc_command cmd_prompt_entry;
extern const struct tc_command cmd_pypto_entry;
extern const struct tc_command cmd_quarantine_entry;
extern const struct tc_command cmd_render_final_report_entry;
extern const struct tc_command cmd_render_round_report_entry;
extern const struct tc_command cmd_report_entry;
extern const struct tc_command cmd_resume_entry;
extern const struct tc_command cmd_run_entry;
extern const struct tc_command cmd_run_next_entry;
extern const struct tc_command cmd_seal_entry;
extern const struct tc_command cmd_sha256_entry;
extern const struct tc_command cmd_skills_entry;
extern const struct tc_command cmd_source_range_from_smap_entry;
extern const struct tc_command cmd_status_entry;
extern const struct tc_command cmd_support_entry;
extern const struct tc_command cmd_tune_entry;
extern const struct tc_command cmd_verify_entry;
extern const struct tc_command cmd_version_entry;

/* Subcommands in files of their own, named by their parent's table. */
extern const struct tc_command cmd_json_get_entry;
extern const struct tc_command cmd_lease_slurm_step_entry;

/* lease run / status --via slurm (cmd_lease_slurm.c). */
bool tc_cli_lease_via_slurm(int argc, char **argv);
int tc_cli_lease_slurm_run(const struct tc_command *cmd, int argc,
    char **argv);
int tc_cli_lease_slurm_status(const struct tc_command *cmd, int argc,
    char **argv);

/* Shared between commands. */

/* The REMAINDER-style split of "[--] COMMAND ARGS..." (lease run,
 * execute-phase) and --device-id values (lease_common.c). */
int tc_cli_split_remainder(int argc, char **argv, const struct tc_option *opts, int *rest);
int tc_cli_parse_ids(const struct tc_command *cmd, const struct tc_strlist *in, long **out);
/* argv[from..argc-1] as a NULL-terminated array (lease_common.c); the
 * strings stay argv's, the array is the caller's to free. */
char **tc_cli_argv_tail(int argc, char **argv, int from);
/* The exit of a lease run (lease_common.c); outcome is a tc_lease_outcome. */
int tc_cli_lease_exit(const struct tc_command *cmd, int rc, const tc_json *manifest,
    int outcome, const tc_error *err);
/* tc_runner_load + export TUNECTL_RUNNER_COMMAND_JSON (cmd_run.c) */
struct tc_runner;
int tc_cli_load_runner(const char *path, struct tc_runner *runner, tc_error *err);
/* Run directories of demo and tune (run_dir.c): a fresh
 * <parent>/<prefix>-<UTC time> linked as <parent>/latest (absolute,
 * malloc'd; NULL with err), the one latest names (NULL when none), and
 * <parent>/script-runner.json naming host, exported as the runner the
 * workers' "tunectl support run" uses. */
char *tc_cli_new_run_dir(const char *parent, const char *prefix, tc_error *err);
char *tc_cli_latest_run_dir(const char *parent);
int tc_cli_write_runner(const char *parent, const char *host, tc_error *err);
/* examples/ beside the binary in exe_dir: up to three levels above it
 * (build trees), or <prefix>/share/tunectl/examples; absolute, malloc'd,
 * NULL when not found (run_dir.c). */
char *tc_cli_examples_dir(const char *exe_dir);

/* A whole session as demo and tune run it (run_dir.c). */
struct tc_cli_drive {
	const char *label;		/* "demo", "tune": every line's prefix and the id's */
	const char *session;		/* <root>/auto-tune-session.json */
	const char *root;
	const char *mode;		/* the optional mode of a new session */
	bool resume;			/* resume the session instead of creating it */
	bool quiet;			/* no line for a failed attempt's error */
	const struct tc_runner *runner;
	const struct tc_run_next_opts *ro;
	long max_attempts;		/* attempts of a step in a row */
};
/* Create the session (strict policy, id "<label>-<UTC time>") or resume
 * it, run it to its end through the runner with a line per attempt, and
 * verify it.  The finished session document, or NULL with err ("the
 * finished session does not verify" when it does not). */
tc_json *tc_cli_drive_session(const struct tc_cli_drive *d, tc_error *err);
/* Each line of text (every line ends with a newline) after prefix, on
 * stderr. */
void tc_cli_print_lines(const char *prefix, const char *text);
/* Write report.html (html NULL: none) and FINAL_E2E_REPORT.en.md, and say
 * where the reports are. */
int tc_cli_finish_reports(const char *label, const char *root,
    const char *session, const char *html, tc_error *err);

/* demo --pipeline pypto (demo_pypto.c): the example operator under root. */
int tc_demo_pypto(const char *examples, const char *root, bool quiet);

/* The workload "tunectl demo" tunes and its devices (demo_workload.c). */
struct demo_workload {
	const char *kind;	/* "cpu" or "gpu" */
	char *binary;		/* the workload program */
	char *source;		/* its kernel source, which BASE maps */
	char *device_ids;	/* the devices to lease: "0", "0,1", ... */
	char *devices;		/* what they are, in words */
};
/* Find the workload of kind "cpu" or "gpu" and its devices; -1 with the
 * reason in err when it cannot run here (not built, no GPU visible). */
int demo_workload_find(struct demo_workload *w, const char *kind,
    const char *exe_dir, const char *examples, tc_error *err);
/* Tell the demo's workers (SKW, SKW_SOURCE, SKW_WORKLOAD, TUNECTL_DEVICE_IDS). */
void demo_workload_export(const struct demo_workload *w);
void demo_workload_free(struct demo_workload *w);

#endif
