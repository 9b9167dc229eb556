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

/* "tunectl: <message>" on stderr; returns TC_EXIT_FAIL. */
int tc_pypto_cli_fail(const tc_error *err);
/* Print v as JSON on stdout and free it. */
int tc_pypto_cli_print(tc_json *v);

#endif
