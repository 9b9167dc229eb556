/*
 * cmd_gate.c - "tunectl gate": the measurement gates of the reference tool
 * analyze_performance.py.  analyze takes the reference's flags;
 * stability / promote / screen / option-trial are the same command with
 * the mode fixed (cmd_gate_analyze.c); option-matrix validates a winner
 * option matrix v1 and stage-a-options checks Stage-A configs before they
 * run (cmd_gate_matrix.c).  As with argparse, -h or --help anywhere
 * before "--" prints a subcommand's help.
 */
#include <stddef.h>

#include "cli.h"
#include "gate_cli.h"

static const struct tc_command *const gate_subs[] = {
	&cmd_gate_analyze_entry, &cmd_gate_stability_entry,
	&cmd_gate_promote_entry, &cmd_gate_screen_entry,
	&cmd_gate_option_trial_entry, &cmd_gate_option_matrix_entry,
	&cmd_gate_stage_a_options_entry, NULL
};

const struct tc_command cmd_gate_entry = {
	.name = "gate",
	.summary = "the measurement gates of analyze_performance.py (S0, screening, promotion, option trial)",
	.usage = "usage: tunectl gate analyze --baseline DIR [analyze_performance.py flags] [extensions]\n"
	    "       tunectl gate stability --baseline DIR [--warmup N] [--expected-ranks N] [--json-out FILE]\n"
	    "       tunectl gate promote|screen|option-trial --baseline DIR [analyze flags]\n"
	    "       tunectl gate option-matrix FILE [--json-out FILE]\n"
	    "       tunectl gate stage-a-options CONFIG... [--json-out FILE]\n"
	    "Run 'tunectl gate SUBCOMMAND --help' for the flags.\n",
	.subs = gate_subs,
};
