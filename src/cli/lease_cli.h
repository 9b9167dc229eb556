/*
 * lease_cli.h - what the two backends of "tunectl lease run" share
 * (lease_common.c): the options both take, and the lease request they
 * make of them and of the command after them.
 */
#ifndef TUNECTL_LEASE_CLI_H
#define TUNECTL_LEASE_CLI_H

#include "cli.h"
#include "tunectl/lease.h"

struct tc_cli_lease_args {
	const char *lease_root, *cwd, *manifest_out, *env_json, *command_id;
	const char *via;
	struct tc_opt_choice via_choice;	/* --via: local or slurm */
	struct tc_strlist ids;		/* --device-id, as given */
	double timeout, lease_timeout;
	bool has_lease_timeout;
	char **command;			/* set by tc_cli_lease_request() */
	tc_json *environment;		/* likewise: --environment-json */
};

/* How many options tc_cli_lease_options() writes. */
#define TC_CLI_LEASE_NOPTS 9

/* Zero a and write the shared options that fill it into
 * opts[0..TC_CLI_LEASE_NOPTS-1]; --device-id is required when
 * ids_required.  Returns TC_CLI_LEASE_NOPTS. */
size_t tc_cli_lease_options(struct tc_cli_lease_args *a, bool ids_required,
    struct tc_option *opts);

/*
 * Fill req (zeroed first) from a and the command argv[rest..argc-1].
 * Returns 0, or a usage error when --environment-json cannot be read.
 */
int tc_cli_lease_request(const struct tc_command *cmd,
    struct tc_cli_lease_args *a, int argc, char **argv, int rest,
    tc_lease_request *req);

void tc_cli_lease_args_free(struct tc_cli_lease_args *a);

#endif
