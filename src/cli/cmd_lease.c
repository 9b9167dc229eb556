/*
 * cmd_lease.c - "tunectl lease run" (the reference's device_lease_runner.py)
 * and "tunectl lease status".  The helpers it shares with the Slurm
 * runner and execute-phase are in lease_common.c.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "lease_cli.h"
#include "tunectl/buf.h"
#include "tunectl/lease.h"

static int
lease_run(const struct tc_command *cmd, int argc, char **argv)
{
	struct tc_cli_lease_args a;
	struct tc_option opts[TC_CLI_LEASE_NOPTS + 1];
	tc_error err = TC_ERROR_INIT;
	tc_lease_request req;
	tc_lease_outcome outcome;
	tc_json *manifest = NULL;
	long *ids = NULL;
	size_t n;
	int split, rest, rc;

	if (tc_cli_lease_via_slurm(argc, argv))
		return tc_cli_lease_slurm_run(cmd, argc, argv);
	n = tc_cli_lease_options(&a, true, opts);	/* --via "slurm": above */
	memset(&opts[n], 0, sizeof(opts[n]));
	split = tc_cli_split_remainder(argc, argv, opts, &rest);
	if ((rc = tc_opts_parse(cmd, split, argv, opts, NULL)) != 0) {
		rc = rc < 0 ? TC_EXIT_OK : rc;
		goto out;
	}
	if ((rc = tc_cli_parse_ids(cmd, &a.ids, &ids)) != 0 ||
	    (rc = tc_cli_lease_request(cmd, &a, argc, argv, rest, &req)) != 0)
		goto out;
	req.device_ids = ids;
	req.ndevices = a.ids.len;
	rc = tc_lease_run(&req, &manifest, &outcome, &err);
	rc = tc_cli_lease_exit(cmd, rc, manifest, outcome, &err);
out:
	tc_json_free(manifest);
	tc_error_clear(&err);
	free(ids);
	tc_cli_lease_args_free(&a);
	return rc;
}

static int
lease_status(const struct tc_command *cmd, int argc, char **argv)
{
	static const char *const via_choices[] = { "local", "slurm", NULL };
	const char *lease_root = NULL, *via = NULL;
	struct tc_opt_choice via_choice = { &via, via_choices };
	const struct tc_option opts[] = {
		{ "--lease-root", TC_OPT_STRING, &lease_root, true, NULL },
		{ "--via", TC_OPT_CHOICE, &via_choice, false, NULL },	/* "slurm": cmd_lease_slurm.c */
		{ NULL, 0, NULL, false, NULL }
	};
	tc_error err = TC_ERROR_INIT;
	int rc;

	if (tc_cli_lease_via_slurm(argc, argv))
		return tc_cli_lease_slurm_status(cmd, argc, argv);
	if ((rc = tc_opts_parse(cmd, argc, argv, opts, NULL)) != 0)
		return rc < 0 ? TC_EXIT_OK : rc;
	return tc_cli_reply_or_die(tc_lease_status(lease_root, &err), &err);
}

static const struct tc_command lease_run_entry = {
	.name = "lease run",
	.summary = "run a command under device leases",
	.run = lease_run,
	.flags = TC_CMD_PARENT_USAGE,
};

static const struct tc_command lease_status_entry = {
	.name = "lease status",
	.summary = "who holds the leases",
	.run = lease_status,
	.flags = TC_CMD_PARENT_USAGE,
};

static const struct tc_command *const lease_subs[] = {
	&lease_run_entry, &lease_status_entry, &cmd_lease_slurm_step_entry, NULL
};

const struct tc_command cmd_lease_entry = {
	.name = "lease",
	.summary = "run a command under shared device leases; show who holds them",
	.usage = "usage: tunectl lease run --lease-root DIR --device-id N [--device-id N ...] --timeout-seconds T\n"
	    "                         [--lease-timeout-seconds L] --cwd DIR --manifest-out PATH\n"
	    "                         [--environment-json FILE] [--command-id ID] [--] COMMAND [ARGS...]\n"
	    "       tunectl lease status --lease-root DIR\n"
	    "       tunectl lease run --via slurm [--partition P] [--gres NAME:COUNT] [--slurm-arg=ARG ...]\n"
	    "                         --lease-root DIR --timeout-seconds T ... [--] COMMAND [ARGS...]\n"
	    "       tunectl lease status --via slurm [--partition P]\n",
	.subs = lease_subs,
};
