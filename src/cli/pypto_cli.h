/*
 * pypto_cli.h - the "tunectl pypto" subcommands, one entry each in its
 * cmd_pypto_<name>.c, and the output helpers they share.  cmd_pypto.c
 * holds the subcommand table.
 */
#ifndef TUNECTL_PYPTO_CLI_H
#define TUNECTL_PYPTO_CLI_H

#include <stdbool.h>

#include "cli.h"
#include "tunectl/error.h"
#include "tunectl/json.h"

extern const struct tc_command cmd_pypto_state_entry;
extern const struct tc_command cmd_pypto_cases_entry;
extern const struct tc_command cmd_pypto_compare_entry;
extern const struct tc_command cmd_pypto_items_entry;
extern const struct tc_command cmd_pypto_select_entry;
extern const struct tc_command cmd_pypto_check_entry;
extern const struct tc_command cmd_pypto_dispatch_entry;
extern const struct tc_command cmd_pypto_accept_entry;
extern const struct tc_command cmd_pypto_run_next_entry;
extern const struct tc_command cmd_pypto_run_entry;
extern const struct tc_command cmd_pypto_inputs_entry;
extern const struct tc_command cmd_pypto_boundary_entry;
extern const struct tc_command cmd_pypto_handoff_entry;
extern const struct tc_command cmd_pypto_discover_entry;
extern const struct tc_command cmd_pypto_experiment_entry;
extern const struct tc_command cmd_pypto_timeline_entry;
extern const struct tc_command cmd_pypto_review_entry;
extern const struct tc_command cmd_pypto_report_entry;

/* The option rows of a command that runs the operator's Python: --interpreter
 * and --timeout, into o.interpreter and o.timeout_s. */
#define TC_PYPTO_CLI_PYTHON_OPTS(o)					\
	{ "--interpreter", TC_OPT_STRING, &(o).interpreter, false, NULL },	\
	{ "--timeout", TC_OPT_DOUBLE, &(o).timeout_s, false, NULL }

struct tc_strlist;

/* The lint gate argv: --lint-gate PROG and its --lint-gate-arg values, or
 * TUNECTL_PYPTO_LINT_GATE split on blanks; NULL when none (free with
 * tc_pypto_cli_free_argv). */
char **tc_pypto_cli_lint_argv(const char *prog, const struct tc_strlist *args);
void tc_pypto_cli_free_argv(char **argv);

/* "tunectl: <message>" on stderr; returns TC_EXIT_FAIL. */
int tc_pypto_cli_fail(const tc_error *err);
/* Print v as JSON on stdout and free it. */
int tc_pypto_cli_print(tc_json *v);
/* v also written to output (tc_write_json with flags) when output is not
 * NULL: v, or NULL (v freed, err set) when v is NULL or the write failed. */
tc_json *tc_pypto_cli_save(tc_json *v, const char *output, unsigned flags,
    tc_error *err);
/* A command's result: v printed as tc_pypto_cli_print does, or, when v is
 * NULL, err said as tc_pypto_cli_fail does; err is cleared either way. */
int tc_pypto_cli_finish(tc_json *v, tc_error *err);
/* A verdict printed: v as tc_pypto_cli_print does; TC_EXIT_OK when ok and
 * the print worked, else TC_EXIT_FAIL. */
int tc_pypto_cli_verdict(tc_json *v, bool ok);

#endif
