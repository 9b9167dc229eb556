/*
 * cmd_sha256.c - "tunectl sha256 FILE...": sha256sum-compatible digests of
 * files ("-" is stdin), through the same streaming hasher tunectl uses
 * for evidence.
 */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "tunectl/sha256.h"

/* sha256sum's line: a name holding '\\' or '\n' is escaped and the line
 * starts with a backslash. */
static void
print_line(const char *hex, const char *name)
{
	const char *p;

	if (strpbrk(name, "\\\n") == NULL) {
		printf("%s  %s\n", hex, name);
		return;
	}
	printf("\\%s  ", hex);
	for (p = name; *p != '\0'; p++) {
		if (*p == '\\')
			fputs("\\\\", stdout);
		else if (*p == '\n')
			fputs("\\n", stdout);
		else
			putchar(*p);
	}
	putchar('\n');
}

static int
cmd_sha256(const struct tc_command *cmd, int argc, char **argv)
{
	bool tree = false;
	const struct tc_option opts[] = {
		{ "--tree", TC_OPT_FLAG, &tree, false, NULL },
		{ NULL, 0, NULL, false, NULL }
	};
	struct tc_parse_result res;
	int rc, status = TC_EXIT_OK;
	size_t i;

	if ((rc = tc_opts_parse(cmd, argc, argv, opts, &res)) != 0)
		return rc < 0 ? TC_EXIT_OK : rc;
	if (res.positional.len == 0) {
		tc_parse_result_free(&res);
		return tc_usage_error(cmd, "the following arguments are "
		    "required: FILE");
	}
	for (i = 0; i < res.positional.len; i++) {
		const char *name = res.positional.items[i];
		char hex[TC_SHA256_HEX_LEN + 1];
		tc_error err = TC_ERROR_INIT;
		int r;

		if (tree)
			r = tc_sha256_tree(name, hex, NULL, NULL, &err);
		else if (strcmp(name, "-") == 0)
			r = tc_sha256_fd(STDIN_FILENO, "-", hex, NULL,
			    &err);
		else
			r = tc_sha256_file(name, hex, NULL, &err);
		if (r != 0) {
			fflush(stdout);
			tc_die("sha256: %s", tc_error_msg(&err));
			tc_error_clear(&err);
			status = TC_EXIT_FAIL;
			continue;
		}
		print_line(hex, name);
	}
	tc_parse_result_free(&res);
	if (fflush(stdout) != 0)
		return tc_die("sha256: cannot write to stdout");
	return status;
}

const struct tc_command cmd_sha256_entry = {
	.name = "sha256",
	.summary = "SHA-256 of files, like sha256sum",
	.usage = "usage: tunectl sha256 FILE...\n"
	    "       tunectl sha256 --tree DIR...\n",
	.run = cmd_sha256,
};
