/*
 * pypto_cli.h - the "tunectl pypto" subcommands, one cmd_pypto_<name>.c
 * each (argv[0] is the subcommand name), and the output helpers they
 * share.  cmd_pypto.c holds the subcommand table.
 */
#ifndef TUNECTL_PYPTO_CLI_H
#define TUNECTL_PYPTO_CLI_H

#include "tunectl/error.h"
#include "tunectl/json.h"

int cmd_pypto_state(int argc, char **argv);
int cmd_pypto_cases(int argc, char **argv);
int cmd_pypto_compare(int argc, char **argv);
int cmd_pypto_items(int argc, char **argv);
int cmd_pypto_select(int argc, char **argv);
int cmd_pypto_check(int argc, char **argv);

int cmd_pypto_dispatch(int argc, char **argv);
int cmd_pypto_accept(int argc, char **argv);
int cmd_pypto_run_next(int argc, char **argv);
int cmd_pypto_run(int argc, char **argv);
int cmd_pypto_inputs(int argc, char **argv);
int cmd_pypto_boundary(int argc, char **argv);
int cmd_pypto_handoff(int argc, char **argv);
int cmd_pypto_discover(int argc, char **argv);
int cmd_pypto_experiment(int argc, char **argv);
int cmd_pypto_timeline(int argc, char **argv);
int cmd_pypto_review(int argc, char **argv);
int cmd_pypto_report(int argc, char **argv);

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

#endif
