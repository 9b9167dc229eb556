/*
 * cmd_lease_slurm.c - the Slurm side of "tunectl lease": "lease run --via
 * slurm", "lease status --via slurm" and the in-job "lease slurm-step"
 * that srun starts.  cmd_lease.c hands the first two over and lists the
 * third; the library does the work (include/tunectl/slurm.h).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "tunectl/buf.h"
#include "tunectl/slurm.h"

/* The option names of "lease run" (both backends), for finding where
 * the command starts; destinations are unused. */
static const struct tc_option scan_opts[] = {
	{ "--via", TC_OPT_STRING, NULL, false, NULL },
	{ "--lease-root", TC_OPT_STRING, NULL, false, NULL },
	{ "--device-id", TC_OPT_LIST, NULL, false, NULL },
	{ "--timeout-seconds", TC_OPT_DOUBLE, NULL, false, NULL },
	{ "--lease-timeout-seconds", TC_OPT_DOUBLE, NULL, false, NULL },
	{ "--cwd", TC_OPT_STRING, NULL, false, NULL },
	{ "--manifest-out", TC_OPT_STRING, NULL, false, NULL },
	{ "--environment-json", TC_OPT_STRING, NULL, false, NULL },
	{ "--command-id", TC_OPT_STRING, NULL, false, NULL },
	{ "--partition", TC_OPT_STRING, NULL, false, NULL },
	{ "--gres", TC_OPT_STRING, NULL, false, NULL },
	{ "--slurm-arg", TC_OPT_LIST, NULL, false, NULL },
	{ NULL, 0, NULL, false, NULL }
};

bool
tc_cli_lease_via_slurm(int argc, char **argv)
{
	int rest, end = tc_cli_split_remainder(argc, argv, scan_opts, &rest);
	int i;

	for (i = 1; i < end; i++) {
		if (strcmp(argv[i], "--via=slurm") == 0)
			return true;
		if (strcmp(argv[i], "--via") == 0 && i + 1 < end &&
		    strcmp(argv[i + 1], "slurm") == 0)
			return true;
	}
	return false;
}

static const char *
step_program(void)
{
	const char *p = getenv("TUNECTL_SLURM_PROGRAM");

	return p != NULL && *p != '\0' ? p : tc_self_exe();
}

int
tc_cli_lease_slurm_run(const struct tc_command *cmd, int argc, char **argv)
{
	const char *lease_root = NULL, *cwd = NULL, *manifest_out = NULL;
	const char *env_json = NULL, *command_id = NULL, *via = NULL;
	const char *partition = NULL, *gres = NULL;
	struct tc_strlist ids_arg = { NULL, 0 }, sargs = { NULL, 0 };
	double timeout = 0, lease_timeout = 0;
	bool has_lease_timeout = false;
	const struct tc_option opts[] = {
		{ "--via", TC_OPT_STRING, &via, false, NULL },
		{ "--lease-root", TC_OPT_STRING, &lease_root, true, NULL },
		{ "--device-id", TC_OPT_LIST, &ids_arg, false, NULL },
		{ "--timeout-seconds", TC_OPT_DOUBLE, &timeout, true, NULL },
		{ "--lease-timeout-seconds", TC_OPT_DOUBLE, &lease_timeout,
		  false, &has_lease_timeout },
		{ "--cwd", TC_OPT_STRING, &cwd, true, NULL },
		{ "--manifest-out", TC_OPT_STRING, &manifest_out, true, NULL },
		{ "--environment-json", TC_OPT_STRING, &env_json, false, NULL },
		{ "--command-id", TC_OPT_STRING, &command_id, false, NULL },
		{ "--partition", TC_OPT_STRING, &partition, false, NULL },
		{ "--gres", TC_OPT_STRING, &gres, false, NULL },
		{ "--slurm-arg", TC_OPT_LIST, &sargs, false, NULL },
		{ NULL, 0, NULL, false, NULL }
	};
	tc_error err = TC_ERROR_INIT;
	tc_slurm_request req;
	tc_lease_outcome outcome;
	tc_json *environment = NULL, *manifest = NULL;
	char **command = NULL, **slurm_args = NULL;
	int split, rest, rc, ncmd, i;
	size_t k;

	split = tc_cli_split_remainder(argc, argv, opts, &rest);
	if ((rc = tc_opts_parse(cmd, split, argv, opts, NULL)) != 0) {
		rc = rc < 0 ? TC_EXIT_OK : rc;
		goto out;
	}
	if (ids_arg.len > 0) {
		rc = tc_usage_error(cmd, "argument --device-id: not allowed "
		    "with --via slurm (Slurm chooses the devices; ask for "
		    "them with --gres NAME:COUNT)");
		goto out;
	}
	ncmd = argc - rest;
	command = tc_xcalloc((size_t)ncmd + 1, sizeof(*command));
	for (i = 0; i < ncmd; i++)
		command[i] = argv[rest + i];
	slurm_args = tc_xcalloc(sargs.len + 1, sizeof(*slurm_args));
	for (k = 0; k < sargs.len; k++)
		slurm_args[k] = (char *)sargs.items[k];
	if (env_json != NULL &&
	    (environment = tc_json_parse_file(env_json, &err)) == NULL) {
		rc = tc_usage_error(cmd, "%s", tc_error_msg(&err));
		goto out;
	}
	memset(&req, 0, sizeof(req));
	req.lease.argv = command;
	req.lease.lease_root = lease_root;
	req.lease.timeout_s = timeout;
	req.lease.has_lease_timeout = has_lease_timeout;
	req.lease.lease_timeout_s = lease_timeout;
	req.lease.cwd = cwd;
	req.lease.manifest_out = manifest_out;
	req.lease.environment = environment;
	req.lease.command_id = command_id;
	req.gres = gres;
	req.partition = partition;
	req.slurm_args = slurm_args;
	req.program = step_program();
	rc = tc_slurm_lease_run(&req, &manifest, &outcome, &err);
	rc = tc_cli_lease_exit(cmd, rc, manifest, outcome, &err);
out:
	tc_json_free(manifest);
	tc_json_free(environment);
	tc_error_clear(&err);
	free(command);
	free(slurm_args);
	tc_strlist_free(&ids_arg);
	tc_strlist_free(&sargs);
	return rc;
}

int
tc_cli_lease_slurm_status(const struct tc_command *cmd, int argc, char **argv)
{
	const char *via = NULL, *partition = NULL;
	const struct tc_option opts[] = {
		{ "--via", TC_OPT_STRING, &via, false, NULL },
		{ "--partition", TC_OPT_STRING, &partition, false, NULL },
		{ NULL, 0, NULL, false, NULL }
	};
	tc_error err = TC_ERROR_INIT;
	tc_json *status;
	int rc;

	if ((rc = tc_opts_parse(cmd, argc, argv, opts, NULL)) != 0)
		return rc < 0 ? TC_EXIT_OK : rc;
	if ((status = tc_slurm_status(partition, &err)) == NULL) {
		rc = tc_die("%s", tc_error_msg(&err));
		tc_error_clear(&err);
		return rc;
	}
	rc = tc_print_json(status);
	tc_json_free(status);
	return rc;
}

static int
slurm_step(const struct tc_command *cmd, int argc, char **argv)
{
	const char *spec = NULL;
	const struct tc_option opts[] = {
		{ "--spec", TC_OPT_STRING, &spec, true, NULL },
		{ NULL, 0, NULL, false, NULL }
	};
	tc_error err = TC_ERROR_INIT;
	int rc;

	if ((rc = tc_opts_parse(cmd, argc, argv, opts, NULL)) != 0)
		return rc < 0 ? TC_EXIT_OK : rc;
	rc = tc_slurm_step_run(spec, &err);
	if (rc < 0) {
		rc = tc_die("lease slurm-step: %s", tc_error_msg(&err));
		tc_error_clear(&err);
	}
	return rc;
}

/* Started by srun inside the job; never offered to a user. */
const struct tc_command cmd_lease_slurm_step_entry = {
	.name = "lease slurm-step",
	.summary = "the in-job half of lease run --via slurm",
	.run = slurm_step,
	.flags = TC_CMD_HIDDEN | TC_CMD_PARENT_USAGE,
};
