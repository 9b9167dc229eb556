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
#include "lease_cli.h"
#include "tunectl/buf.h"
#include "tunectl/slurm.h"

/* "lease run --via slurm"'s options: the shared ones and Slurm's own. */
struct slurm_args {
	struct tc_cli_lease_args lease;
	const char *partition, *gres;
	struct tc_strlist sargs;
};

#define SLURM_NOPTS (TC_CLI_LEASE_NOPTS + 4)

static void
slurm_options(struct slurm_args *a, struct tc_option opts[SLURM_NOPTS])
{
	size_t n = tc_cli_lease_options(&a->lease, false, opts);
	const struct tc_option own[] = {
		{ "--partition", TC_OPT_STRING, &a->partition, false, NULL },
		{ "--gres", TC_OPT_STRING, &a->gres, false, NULL },
		{ "--slurm-arg", TC_OPT_LIST, &a->sargs, false, NULL },
		{ NULL, 0, NULL, false, NULL }
	};

	a->partition = a->gres = NULL;
	a->sargs.items = NULL;
	a->sargs.len = 0;
	memcpy(&opts[n], own, sizeof(own));
}

bool
tc_cli_lease_via_slurm(int argc, char **argv)
{
	struct slurm_args unused;
	struct tc_option opts[SLURM_NOPTS];
	int rest, end, i;

	/* the option names say where the command starts */
	slurm_options(&unused, opts);
	end = tc_cli_split_remainder(argc, argv, opts, &rest);
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
	struct slurm_args a;
	struct tc_option opts[SLURM_NOPTS];
	tc_error err = TC_ERROR_INIT;
	tc_slurm_request req;
	tc_lease_outcome outcome;
	tc_json *manifest = NULL;
	char **slurm_args = NULL;
	int split, rest, rc;
	size_t k;

	slurm_options(&a, opts);
	split = tc_cli_split_remainder(argc, argv, opts, &rest);
	if ((rc = tc_opts_parse(cmd, split, argv, opts, NULL)) != 0) {
		rc = rc < 0 ? TC_EXIT_OK : rc;
		goto out;
	}
	if (a.lease.ids.len > 0) {
		rc = tc_usage_error(cmd, "argument --device-id: not allowed "
		    "with --via slurm (Slurm chooses the devices; ask for "
		    "them with --gres NAME:COUNT)");
		goto out;
	}
	memset(&req, 0, sizeof(req));
	if ((rc = tc_cli_lease_request(cmd, &a.lease, argc, argv, rest,
	    &req.lease)) != 0)
		goto out;
	slurm_args = tc_xcalloc(a.sargs.len + 1, sizeof(*slurm_args));
	for (k = 0; k < a.sargs.len; k++)
		slurm_args[k] = (char *)a.sargs.items[k];
	req.gres = a.gres;
	req.partition = a.partition;
	req.slurm_args = slurm_args;
	req.program = step_program();
	rc = tc_slurm_lease_run(&req, &manifest, &outcome, &err);
	rc = tc_cli_lease_exit(cmd, rc, manifest, outcome, &err);
out:
	tc_json_free(manifest);
	tc_error_clear(&err);
	free(slurm_args);
	tc_cli_lease_args_free(&a.lease);
	tc_strlist_free(&a.sargs);
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
	int rc;

	if ((rc = tc_opts_parse(cmd, argc, argv, opts, NULL)) != 0)
		return rc < 0 ? TC_EXIT_OK : rc;
	return tc_cli_reply_or_die(tc_slurm_status(partition, &err), &err);
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
