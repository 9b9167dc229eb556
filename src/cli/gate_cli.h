/*
 * gate_cli.h - the "tunectl gate" subcommands: the analyze family in
 * cmd_gate_analyze.c, option-matrix and stage-a-options in
 * cmd_gate_matrix.c; cmd_gate.c lists them.
 */
#ifndef TUNECTL_GATE_CLI_H
#define TUNECTL_GATE_CLI_H

#include "cli.h"

extern const struct tc_command cmd_gate_analyze_entry;
extern const struct tc_command cmd_gate_stability_entry;
extern const struct tc_command cmd_gate_promote_entry;
extern const struct tc_command cmd_gate_screen_entry;
extern const struct tc_command cmd_gate_option_trial_entry;
extern const struct tc_command cmd_gate_option_matrix_entry;
extern const struct tc_command cmd_gate_stage_a_options_entry;

#endif
