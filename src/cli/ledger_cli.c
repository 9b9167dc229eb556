/*
 * ledger_cli.c - what the "tunectl ledger" subcommands share: the artifact
 * root of a result, the --analysis-validator hook and writing a ledger.
 */
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "ledger_cli.h"
#include "tunectl/buf.h"
#include "tunectl/fileio.h"
#include "tunectl/path.h"

/* The directory the reference uses as artifact root: the resolved
 * parent of the result file. */
char *
tc_cli_ledger_result_root(const char *result)
{
	char *dir = tc_path_dirname(result);
	char *root = tc_path_resolve(dir, NULL);

	if (root == NULL)
		root = dir;
	else
		free(dir);
	return root;
}

/* --analysis-validator CMD: the external analyser hook. */
void
tc_cli_ledger_use_validator(tc_ledger_opts *lo, tc_ledger_analyzer *an,
    tc_ledger_command *lc, const char *validator, const char *result)
{
	lc->program = validator;
	lc->result_path = NULL;
	if (validator == NULL)
		return;
	lc->result_path = tc_path_resolve(result, NULL);
	if (lc->result_path == NULL)
		lc->result_path = tc_xstrdup(result);
	tc_ledger_command_analyzer(an, lc);
	lo->analyzer = an;
}

int
tc_cli_ledger_write(const struct tc_command *cmd, const char *path,
    const tc_json *ledger, const char *what)
{
	tc_error err = TC_ERROR_INIT;
	int rc = 0;

	if (tc_write_json(path, ledger, TC_WRITE_MKDIRS, &err) != 0) {
		const char *m = tc_error_msg(&err);

		rc = tc_refuse(cmd, "%s: %s: %s", what,
		    strncmp(m, "[Errno ", 7) == 0 ?
		    tc_ledger_os_error_type(m) : "UnicodeEncodeError", m);
		tc_error_clear(&err);
	}
	return rc;
}
