/*
 * find_runner.c - the operator's Stage 4 runner (test_<op>.py, or the
 * only test_*.py), which every Stage 5 command runs or digests.
 */
#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "pypto_internal.h"
#include "tunectl/fileio.h"
#include "tunectl/path.h"
#include "tunectl/pypto_compare.h"

static int
cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

char *
tc_pypto_find_runner(const char *op_dir, tc_error *err)
{
	DIR *d = opendir(op_dir);
	struct dirent *e;
	char **names = NULL, *preferred, *found = NULL;
	size_t n = 0, i;
	tc_buf list = TC_BUF_INIT;

	if (d == NULL) {
		tc_error_os(err, errno, op_dir);
		return NULL;
	}
	while ((e = readdir(d)) != NULL) {
		size_t len = strlen(e->d_name);

		if (strncmp(e->d_name, "test_", 5) == 0 && len > 8 &&
		    strcmp(e->d_name + len - 3, ".py") == 0) {
			names = tc_xrealloc(names, (n + 1) * sizeof(*names));
			names[n++] = tc_xstrdup(e->d_name);
		}
	}
	closedir(d);
	if (n == 0) {
		tc_error_set(err, "no test_*.py found in operator directory");
		return NULL;
	}
	qsort(names, n, sizeof(*names), cmp_str);
	preferred = tc_xasprintf("test_%s.py", tc_path_basename(op_dir));
	for (i = 0; i < n; i++)
		if (strcmp(names[i], preferred) == 0)
			found = tc_path_join(op_dir, names[i]);
	if (found == NULL && n == 1)
		found = tc_path_join(op_dir, names[0]);
	if (found == NULL) {
		for (i = 0; i < n; i++) {
			if (i > 0)
				tc_buf_puts(&list, ", ");
			tc_buf_puts(&list, names[i]);
		}
		tc_error_set(err, "multiple test_*.py files found (%s); expected "
		    "the Stage4 runner test_%s.py and refusing to guess",
		    tc_buf_cstr(&list), tc_path_basename(op_dir));
	}
	for (i = 0; i < n; i++)
		free(names[i]);
	free(names);
	free(preferred);
	tc_buf_free(&list);
	return found;
}
