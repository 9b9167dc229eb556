/*
 * paths.c - the file helpers the run-set reader and the manifest loader
 * share: pathlib's "/" join and Python's OSError text.
 */
#include <string.h>

#include "tunectl/bench.h"
#include "bench_internal.h"

char *
tc_bench_join(const char *dir, const char *name)
{
	/* pathlib: Path(".") / "x" is "x" */
	if (strcmp(dir, ".") == 0)
		return tc_xstrdup(name);
	if (dir[0] != '\0' && dir[strlen(dir) - 1] == '/')
		return tc_xasprintf("%s%s", dir, name);
	return tc_xasprintf("%s/%s", dir, name);
}

/* Python's OSError text: "[Errno N] strerror: 'path'". */
void
tc_bench_oserror(tc_error *err, int errnum, const char *path)
{
	tc_buf b = TC_BUF_INIT;

	tc_json_repr_string(&b, path, strlen(path));
	tc_error_set(err, "[Errno %d] %s: %s", errnum, strerror(errnum),
	    tc_buf_cstr(&b));
	tc_buf_free(&b);
}
