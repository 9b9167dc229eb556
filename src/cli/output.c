/*
 * output.c - how commands print: JSON on stdout, one-line errors on stderr.
 */
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "cli.h"
#include "tunectl/buf.h"
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

/* The controller's refusal: Python's print(json.dumps({"valid": False,
 * "errors": [msg]}, ensure_ascii=False)): one line, default separators,
 * keys in that order. */
static void
print_line_refusal(const char *msg)
{
	tc_json *s = tc_json_new_string(msg);
	tc_buf b = TC_BUF_INIT;
	tc_error err = TC_ERROR_INIT;

	tc_buf_puts(&b, "{\"valid\": false, \"errors\": [");
	if (tc_json_write(&b, s, 0, &err) != 0) {
		/* a lone surrogate cannot be printed as UTF-8: escape it */
		tc_error_clear(&err);
		(void)tc_json_write(&b, s, TC_JSON_ASCII, &err);
	}
	tc_buf_puts(&b, "]}\n");
	fwrite(b.data, 1, b.len, stdout);
	fflush(stdout);
	tc_buf_free(&b);
	tc_json_free(s);
}

/* The ledger tool's refusal: {"errors": [msg], "valid": false} printed
 * like every ledger output (indent 2, sorted keys, non-ASCII raw). */
static void
print_sorted_refusal(const char *msg)
{
	tc_json *doc = tc_json_new_object(), *errors = tc_json_new_array();

	tc_json_array_push(errors, tc_json_new_string(msg));
	tc_json_object_set(doc, "errors", errors);
	tc_json_object_set_bool(doc, "valid", false);
	(void)tc_print_json(doc);
	tc_json_free(doc);
}

int
tc_refuse(const struct tc_command *cmd, const char *fmt, ...)
{
	va_list ap;
	char *msg;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	msg = tc_xmalloc(n > 0 ? (size_t)n + 1 : 1);
	msg[0] = '\0';
	va_start(ap, fmt);
	if (n > 0)
		vsnprintf(msg, (size_t)n + 1, fmt, ap);
	va_end(ap);
	if (cmd->refusal == TC_REFUSAL_SORTED)
		print_sorted_refusal(msg);
	else
		print_line_refusal(msg);
	free(msg);
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
