/*
 * cmd_pypto_inputs.c - "tunectl pypto inputs" (the Stage 5 required-input
 * check; with --handoff-out a missing input becomes the optimizer's
 * stage5_contract_blocked handoff) and "tunectl pypto boundary" (the
 * frozen inputs and the updatable-only boundary against the Stage 5
 * entry snapshot).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "pypto_cli.h"
#include "tunectl/fileio.h"
#include "tunectl/path.h"
#include "tunectl/pypto_orch.h"
#include "tunectl/pypto_stage5.h"
#include "tunectl/pypto_state.h"

static int
cmd_pypto_inputs(const struct tc_command *self, int argc, char **argv)
{
	const char *op_dir = NULL, *handoff = NULL, *target = NULL;
	tc_error err = TC_ERROR_INIT;
	tc_json *r, *t = NULL;
	int rc;
	const struct tc_option opts[] = {
		{ "--op-dir", TC_OPT_STRING, &op_dir, true, NULL },
		{ "--handoff-out", TC_OPT_STRING, &handoff, false, NULL },
		{ "--target", TC_OPT_STRING, &target, false, NULL },
		{ NULL, 0, NULL, false, NULL }
	};

	if ((rc = tc_opts_parse(self, argc, argv, opts, NULL)) != 0)
		return rc < 0 ? TC_EXIT_OK : rc;
	if (!tc_is_directory(op_dir))
		return tc_die("operator directory does not exist: %s", op_dir);
	if (target != NULL && (t = tc_json_parse_file(target, &err)) == NULL)
		return tc_pypto_cli_finish(NULL, &err);
	r = tc_pypto_inputs_check(op_dir);
	rc = strcmp(tc_json_get_string(r, "status"), "PASS") == 0 ?
	    TC_EXIT_OK : TC_EXIT_FAIL;
	if (rc != TC_EXIT_OK && handoff != NULL) {
		char *abs = tc_path_resolve(op_dir, &err);
		char *sp = abs != NULL ? tc_path_join(abs, TC_PYPTO_STATE_FILE) :
		    NULL;
		tc_json *state = sp != NULL ? tc_json_parse_file(sp, NULL) : NULL;
		/* the target: --target, else the confirmed one of the state */
		const tc_json *tgt = t != NULL ? (tc_json_get(t,
		    "optimization_target") != NULL ? tc_json_get(t,
		    "optimization_target") : t) : tc_json_get(tc_pypto_consent(
		    state), "optimization_target");
		tc_json *h = abs != NULL ? tc_pypto_blocked_handoff(abs, r, tgt) :
		    NULL;

		tc_json_free(state);
		free(sp);

		if (h == NULL || tc_write_json(handoff, h, TC_WRITE_MKDIRS,
		    &err) != 0) {
			rc = tc_pypto_cli_fail(&err);
			tc_json_free(h);
			free(abs);
			tc_json_free(r);
			tc_json_free(t);
			tc_error_clear(&err);
			return rc;
		}
		tc_json_free(h);
		free(abs);
	}
	tc_json_free(t);
	return tc_pypto_cli_verdict(r, rc == TC_EXIT_OK);
}

static int
cmd_pypto_boundary(const struct tc_command *self, int argc, char **argv)
{
	const char *op_dir = NULL;
	tc_error err = TC_ERROR_INIT;
	tc_json *r;
	int rc;
	const struct tc_option opts[] = {
		{ "--op-dir", TC_OPT_STRING, &op_dir, true, NULL },
		{ NULL, 0, NULL, false, NULL }
	};

	if ((rc = tc_opts_parse(self, argc, argv, opts, NULL)) != 0)
		return rc < 0 ? TC_EXIT_OK : rc;
	if ((r = tc_pypto_boundary_now(op_dir, &err)) == NULL)
		return tc_pypto_cli_finish(NULL, &err);
	return tc_pypto_cli_verdict(r, tc_json_get_string(r, "category") ==
	    NULL);
}

const struct tc_command cmd_pypto_inputs_entry = {
	.name = "pypto inputs",
	.summary = "the Stage 5 required-input check",
	.usage = "usage: tunectl pypto inputs --op-dir DIR [--handoff-out FILE [--target FILE]]\n"
	    "--handoff-out writes the blocked handoff; its optimization_target comes from\n"
	    "--target (the dispatch) or else the state's Stage 5 entry confirmation.\n"
	    "Exit 1 when a required input is missing or unparseable (stage5_contract_blocked).\n",
	.run = cmd_pypto_inputs,
};

const struct tc_command cmd_pypto_boundary_entry = {
	.name = "pypto boundary",
	.summary = "the Stage 5 boundary of an op dir",
	.usage = "usage: tunectl pypto boundary --op-dir DIR\n"
	    "Exit 1 when a frozen input changed or a file outside the updatable set did.\n",
	.run = cmd_pypto_boundary,
};
