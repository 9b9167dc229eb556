/*
 * lease_common.c - what "lease run" (both backends) and execute-phase
 * share: the REMAINDER-style split of "[--] COMMAND ARGS...", --device-id
 * values, the options and the request of both backends (lease_cli.h),
 * and how a lease run ends on the command line.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "lease_cli.h"
#include "tunectl/buf.h"
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

char **
tc_cli_argv_tail(int argc, char **argv, int from)
{
	char **tail = tc_xcalloc((size_t)(argc - from) + 1, sizeof(*tail));
	int i;

	for (i = from; i < argc; i++)
		tail[i - from] = argv[i];
	return tail;
}

size_t
tc_cli_lease_options(struct tc_cli_lease_args *a, bool ids_required,
    struct tc_option *opts)
{
	static const char *const via_choices[] = { "local", "slurm", NULL };
	const struct tc_option shared[TC_CLI_LEASE_NOPTS] = {
		{ "--lease-root", TC_OPT_STRING, &a->lease_root, true, NULL },
		{ "--device-id", TC_OPT_LIST, &a->ids, ids_required, NULL },
		{ "--timeout-seconds", TC_OPT_DOUBLE, &a->timeout, true, NULL },
		{ "--lease-timeout-seconds", TC_OPT_DOUBLE, &a->lease_timeout,
		  false, &a->has_lease_timeout },
		{ "--cwd", TC_OPT_STRING, &a->cwd, true, NULL },
		{ "--manifest-out", TC_OPT_STRING, &a->manifest_out, true, NULL },
		{ "--environment-json", TC_OPT_STRING, &a->env_json, false, NULL },
		{ "--command-id", TC_OPT_STRING, &a->command_id, false, NULL },
		{ "--via", TC_OPT_CHOICE, &a->via_choice, false, NULL },
	};

	memset(a, 0, sizeof(*a));
	a->via_choice.value = &a->via;
	a->via_choice.choices = via_choices;
	memcpy(opts, shared, sizeof(shared));
	return TC_CLI_LEASE_NOPTS;
}

int
tc_cli_lease_request(const struct tc_command *cmd,
    struct tc_cli_lease_args *a, int argc, char **argv, int rest,
    tc_lease_request *req)
{
	tc_error err = TC_ERROR_INIT;
	int rc;

	a->command = tc_cli_argv_tail(argc, argv, rest);
	if (a->env_json != NULL &&
	    (a->environment = tc_json_parse_file(a->env_json, &err)) == NULL) {
		rc = tc_usage_error(cmd, "%s", tc_error_msg(&err));
		tc_error_clear(&err);
		return rc;
	}
	memset(req, 0, sizeof(*req));
	req->argv = a->command;
	req->lease_root = a->lease_root;
	req->timeout_s = a->timeout;
	req->has_lease_timeout = a->has_lease_timeout;
	req->lease_timeout_s = a->lease_timeout;
	req->cwd = a->cwd;
	req->manifest_out = a->manifest_out;
	req->environment = a->environment;
	req->command_id = a->command_id;
	return 0;
}

void
tc_cli_lease_args_free(struct tc_cli_lease_args *a)
{
	tc_json_free(a->environment);
	free(a->command);
	tc_strlist_free(&a->ids);
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
