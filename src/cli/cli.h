/*
 * cli.h - the command table, shared option parsing and output helpers of
 * the tunectl program.  Commands are thin: parse options, call the
 * library, print.  Domain logic never lives in src/cli/.
 */
#ifndef TUNECTL_CLI_H
#define TUNECTL_CLI_H

#include <stdbool.h>
#include <stddef.h>

#include "tunectl/error.h"
#include "tunectl/json.h"

/* Exit statuses shared by every command. */
enum {
	TC_EXIT_OK = 0,
	TC_EXIT_FAIL = 1,	/* refusal, validation error, I/O error */
	TC_EXIT_USAGE = 2
};

struct tc_command {
	const char *name;
	const char *summary;	/* one line for "tunectl help" */
	const char *usage;	/* full usage text (may be several lines) */
	int (*run)(int argc, char **argv);	/* argv[0] is the command name */
};

extern const struct tc_command tc_commands[];
const struct tc_command *tc_command_find(const char *name);

/* ---- option parsing --------------------------------------------------- */

enum tc_opt_kind {
	TC_OPT_FLAG,		/* bool *; no value */
	TC_OPT_STRING,		/* const char **; points into argv */
	TC_OPT_LIST,		/* struct tc_strlist *; repeatable */
	TC_OPT_INT,		/* long *; decimal */
	TC_OPT_DOUBLE		/* double * */
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
 * "-h"/"--help" prints cmd->usage to stdout and returns -1 (exit 0).
 * Unknown options, missing values and missing required options print
 * "usage..." and "tunectl <cmd>: error: <msg>" to stderr and return
 * TC_EXIT_USAGE.  Positional arguments are refused unless positional is
 * non-NULL.  Returns 0 on success.
 */
struct tc_parse_result {
	struct tc_strlist positional;
	bool saw_dashdash;
	size_t dashdash_index;	/* index into positional where "--" args start */
};

int tc_opts_parse(const struct tc_command *cmd, int argc, char **argv,
    const struct tc_option *opts, struct tc_parse_result *res);

/* Print "usage" + "tunectl <cmd>: error: <msg>" and return TC_EXIT_USAGE. */
int tc_usage_error(const struct tc_command *cmd, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

void tc_strlist_free(struct tc_strlist *l);
void tc_parse_result_free(struct tc_parse_result *res);

/* ---- output ------------------------------------------------------------ */

/* Print v pretty (indent 2, sorted keys, ensure_ascii=False) + "\n" on
 * stdout.  Returns TC_EXIT_OK, or TC_EXIT_FAIL if it cannot be encoded. */
int tc_print_json(const tc_json *v);

/* Print {"errors": [msg], "valid": false} on stdout and return
 * TC_EXIT_FAIL: the reference controller's refusal shape. */
int tc_print_refusal(const char *msg);

/* "tunectl: <msg>" on stderr; returns TC_EXIT_FAIL. */
int tc_die(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Absolute path of the running tunectl binary (from /proc/self/exe). */
const char *tc_self_exe(void);

/* ---- the commands ------------------------------------------------------- */

int cmd_help(int argc, char **argv);
int cmd_version(int argc, char **argv);
int cmd_json(int argc, char **argv);
int cmd_json_get(int argc, char **argv);	/* "json get", in cmd_json_get.c */
int cmd_sha256(int argc, char **argv);
int cmd_env_check(int argc, char **argv);
int cmd_execute_phase(int argc, char **argv);
int cmd_lease(int argc, char **argv);	/* + the two helpers below, shared with execute-phase */
int tc_cli_split_remainder(int argc, char **argv, const struct tc_option *opts, int *rest);
int tc_cli_parse_ids(const struct tc_command *cmd, const struct tc_strlist *in, long **out);
/* The exit of a lease run (cmd_lease.c); outcome is a tc_lease_outcome. */
int tc_cli_lease_exit(const struct tc_command *cmd, int rc, const tc_json *manifest,
    int outcome, const tc_error *err);
int cmd_lease_slurm(int argc, char **argv);	/* argv[0]: run | status | slurm-step (cmd_lease_slurm.c) */
bool tc_cli_lease_via_slurm(int argc, char **argv);
int cmd_init(int argc, char **argv);
int cmd_next(int argc, char **argv);
int cmd_dispatch(int argc, char **argv);
int cmd_derive_session(int argc, char **argv);
int cmd_source_range_from_smap(int argc, char **argv);
int cmd_lineage(int argc, char **argv);
int cmd_seal(int argc, char **argv);
int cmd_verify(int argc, char **argv);
int cmd_keygen(int argc, char **argv);
int cmd_attest(int argc, char **argv);
int cmd_resume(int argc, char **argv);
int cmd_status(int argc, char **argv);
int cmd_render_final_report(int argc, char **argv);
int cmd_run_next(int argc, char **argv);
int cmd_run(int argc, char **argv);
/* tc_runner_load + export TUNECTL_RUNNER_COMMAND_JSON (cmd_run.c) */
struct tc_runner;
int tc_cli_load_runner(const char *path, struct tc_runner *runner, tc_error *err);
int cmd_prompt(int argc, char **argv);
int cmd_skills(int argc, char **argv);
int cmd_support(int argc, char **argv);
int cmd_demo(int argc, char **argv);
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
int cmd_report(int argc, char **argv);
int cmd_gate(int argc, char **argv);
int cmd_bench(int argc, char **argv);
int cmd_ledger(int argc, char **argv);
int cmd_render_round_report(int argc, char **argv);
int cmd_pypto(int argc, char **argv);

#endif
