/*
 * capture.c - running a helper program (the Stage 4 python checks, the
 * lint gate) with its stdout and stderr captured in a private temporary
 * directory that is gone again when it returns.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pypto_internal.h"
#include "tunectl/fileio.h"
#include "tunectl/path.h"
#include "tunectl/proc.h"

int
tc_pypto__run_captured(const tc_pypto__capture *how, char **out,
    char **errt, int *exit_code, tc_error *err)
{
	char *dir = tc_make_temp_dir(how->temp_prefix, err);
	char *so, *se;
	tc_proc_spec spec;
	tc_proc_result res;
	int rc;

	*out = NULL;
	if (errt != NULL)
		*errt = NULL;
	if (dir == NULL)
		return -1;
	so = tc_path_join(dir, "stdout");
	se = tc_path_join(dir, "stderr");
	memset(&spec, 0, sizeof(spec));
	spec.argv = how->argv;
	spec.cwd = how->cwd;
	spec.stdout_path = so;
	spec.stderr_path = se;
	spec.stdin_null = true;
	spec.timeout_s = how->timeout_s;
	rc = tc_proc_run(&spec, &res, err);
	if (rc == 0) {
		*exit_code = res.timed_out ? 124 : res.exit_code;
		*out = tc_read_file(so, how->limit, NULL, how->read_err);
		if (errt != NULL)
			*errt = tc_read_file(se, how->limit, NULL, NULL);
	}
	unlink(so);
	unlink(se);
	rmdir(dir);
	free(so);
	free(se);
	free(dir);
	return rc;
}
