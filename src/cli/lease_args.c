/*
 * lease_args.c - what "lease run", its Slurm runner (cmd_lease_slurm.c)
 * and execute-phase share: the REMAINDER-style split of
 * "[--] COMMAND ARGS...", --device-id parsing and how a lease run ends on
 * the command line.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "tunectl/lease.h"

/* Does option name (up to '=') take a value? */
static bool
takes_value(const struct tc_option *opts, const char *arg)
{
	size_t len = strcspn(arg, "=");

	for (; opts->name != NULL; opts++)
		if (strlen(opts->name) == len &&
		    strncmp(opts->name, arg, len) == 0)
			return opts->kind != TC_OPT_FLAG && arg[len] != '=';
	return false;
}

int
tc_cli_split_remainder(int argc, char **argv, const struct tc_option *opts,
    int *rest)
{
	int i = 1;

	while (i < argc) {
		const char *a = argv[i];

		if (strcmp(a, "--") == 0) {
			*rest = i + 1;
			return i;
		}
		if (a[0] != '-' || a[1] == '\0')
			break;
		i += takes_value(opts, a) ? 2 : 1;
	}
	if (i > argc)
		i = argc;
	*rest = i;
	return i;
}

int
tc_cli_parse_ids(const struct tc_command *cmd, const struct tc_strlist *in,
    long **out)
{
	size_t i;

	*out = tc_xcalloc(in->len + 1, sizeof(**out));
	for (i = 0; i < in->len; i++) {
		const char *s = in->items[i];
		char *end;

		errno = 0;
		(*out)[i] = strtol(s, &end, 10);
		if (errno != 0 || end == s || *end != '\0' ||
		    !(s[0] == '-' || s[0] == '+' || (s[0] >= '0' && s[0] <= '9'))) {
			free(*out);
			*out = NULL;
			return tc_usage_error(cmd, "argument --device-id: invalid "
			    "int value: '%s'", s);
		}
	}
	return 0;
}

/*
 * How a lease run ends on the command line, for the local and the Slurm
 * runner alike: input errors are usage errors, other failures one line,
 * else the manifest on stdout and the reference's exit code (0 passed,
 * 1 failed, 2 blocked).
 */
int
tc_cli_lease_exit(const struct tc_command *cmd, int rc, const tc_json *manifest,
    int outcome, const tc_error *err)
{
	if (rc == TC_LEASE_EINPUT)
		return tc_usage_error(cmd, "%s", tc_error_msg(err));
	if (rc != 0)
		return tc_die("%s", tc_error_msg(err));
	rc = tc_print_json(manifest);
	if (rc != TC_EXIT_OK)
		return rc;
	return outcome == TC_LEASE_PASSED ? 0 : outcome == TC_LEASE_BLOCKED ? 2 : 1;
}
