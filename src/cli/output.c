/*
 * output.c - how commands print: JSON on stdout, one-line errors on stderr.
 */
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "cli.h"
#include "tunectl/error.h"

int
tc_print_json(const tc_json *v)
{
	tc_error err = TC_ERROR_INIT;
	size_t len;
	char *text = tc_json_pretty(v, &len, &err);

	if (text == NULL) {
		fprintf(stderr, "tunectl: %s\n", tc_error_msg(&err));
		tc_error_clear(&err);
		return TC_EXIT_FAIL;
	}
	fwrite(text, 1, len, stdout);
	free(text);
	return fflush(stdout) == 0 ? TC_EXIT_OK : TC_EXIT_FAIL;
}

int
tc_print_refusal(const char *msg)
{
	tc_json *doc = tc_json_new_object();
	tc_json *errors = tc_json_new_array();

	tc_json_array_push(errors, tc_json_new_string(msg));
	tc_json_object_set(doc, "errors", errors);
	tc_json_object_set_bool(doc, "valid", false);
	(void)tc_print_json(doc);
	tc_json_free(doc);
	return TC_EXIT_FAIL;
}

int
tc_die(const char *fmt, ...)
{
	va_list ap;

	fputs("tunectl: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	return TC_EXIT_FAIL;
}

const char *
tc_self_exe(void)
{
	static char path[PATH_MAX];
	ssize_t n;

	if (path[0] != '\0')
		return path;
	n = readlink("/proc/self/exe", path, sizeof(path) - 1);
	if (n <= 0)
		return "tunectl";
	path[n] = '\0';
	return path;
}
