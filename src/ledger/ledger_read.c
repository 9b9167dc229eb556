/*
 * ledger_read.c - reading ledger and experiment-result JSON as
 * experiment_ledger.py does: CPython's parser with a parse_constant hook
 * that refuses NaN, Infinity and -Infinity, and errors named by their
 * Python exception class.
 *
 * The hook fires when the parser meets the constant, so a constant that
 * lies before a syntax error wins over it.  tunectl parses first and then
 * looks for a constant token (outside strings) that ends at or before the
 * point where the parse stopped: the whole text on success, the error
 * position on failure.
 */
#include <stdlib.h>
#include <string.h>

#include "tunectl/fileio.h"
#include "tunectl/ledger.h"

/* The first NaN / Infinity / -Infinity token outside strings that ends at
 * or before byte `limit`; NULL when none. */
static const char *
find_constant(const char *text, size_t len, size_t limit)
{
	size_t i = 0;

	while (i < len) {
		char c = text[i];

		if (c == '"') {
			for (i++; i < len && text[i] != '"'; i++)
				if (text[i] == '\\')
					i++;
			i++;
			continue;
		}
		if (c == 'N' && i + 3 <= len && memcmp(text + i, "NaN", 3) == 0)
			return i + 3 <= limit ? "NaN" : NULL;
		if (c == 'I' && i + 8 <= len &&
		    memcmp(text + i, "Infinity", 8) == 0)
			return i + 8 <= limit ? "Infinity" : NULL;
		if (c == '-' && i + 9 <= len &&
		    memcmp(text + i, "-Infinity", 9) == 0)
			return i + 9 <= limit ? "-Infinity" : NULL;
		if (i >= limit)
			return NULL;
		i++;
	}
	return NULL;
}

/* "(char N)" at the end of a JSONDecodeError message. */
static bool
decode_error_offset(const char *msg, size_t *chars)
{
	size_t n = strlen(msg);
	const char *p;
	char *end;
	unsigned long long v;

	if (n < 8 || msg[n - 1] != ')')
		return false;
	p = strstr(msg, "(char ");
	if (p == NULL)
		return false;
	while (strstr(p + 1, "(char ") != NULL)
		p = strstr(p + 1, "(char ");
	v = strtoull(p + 6, &end, 10);
	if (end == p + 6 || *end != ')' || end[1] != '\0')
		return false;
	*chars = (size_t)v;
	return true;
}

const char *
tc_ledger_os_error_type(const char *msg)
{
	static const struct {
		const char *prefix, *type;
	} types[] = {
		{ "[Errno 2] ", "FileNotFoundError" },
		{ "[Errno 21] ", "IsADirectoryError" },
		{ "[Errno 20] ", "NotADirectoryError" },
		{ "[Errno 13] ", "PermissionError" },
		{ "[Errno 1] ", "PermissionError" },
		{ "[Errno 17] ", "FileExistsError" },
	};
	size_t i;

	for (i = 0; i < sizeof(types) / sizeof(types[0]); i++)
		if (strncmp(msg, types[i].prefix, strlen(types[i].prefix)) == 0)
			return types[i].type;
	return "OSError";
}

static const char *
parse_error_type(const char *msg)
{
	size_t chars;

	if (strncmp(msg, "[Errno ", 7) == 0)
		return tc_ledger_os_error_type(msg);
	if (strncmp(msg, "'utf-8' codec can't decode", 26) == 0)
		return "UnicodeDecodeError";
	if (strncmp(msg, "maximum recursion depth", 23) == 0)
		return "RecursionError";
	if (decode_error_offset(msg, &chars))
		return "JSONDecodeError";
	return "ValueError";
}

tc_json *
tc_ledger_parse(const char *text, size_t len, tc_error *err)
{
	tc_error perr = TC_ERROR_INIT;
	const char *constant;
	tc_json *v;
	size_t chars;

	v = tc_json_parse(text, len, &perr);
	if (v != NULL) {
		constant = find_constant(text, len, len);
		if (constant == NULL)
			return v;
		tc_json_free(v);
		tc_error_set(err, "ValueError: non-standard JSON constant %s",
		    constant);
		return NULL;
	}
	if (decode_error_offset(tc_error_msg(&perr), &chars) &&
	    (constant = find_constant(text, len,
	    tc_utf8_offset(text, len, chars))) != NULL) {
		tc_error_set(err, "ValueError: non-standard JSON constant %s",
		    constant);
	} else {
		tc_error_set(err, "%s: %s", parse_error_type(tc_error_msg(&perr)),
		    tc_error_msg(&perr));
	}
	tc_error_clear(&perr);
	return NULL;
}

tc_json *
tc_ledger_read_file(const char *path, tc_error *err)
{
	tc_error rerr = TC_ERROR_INIT;
	size_t len;
	char *text = tc_read_file(path, 0, &len, &rerr);
	tc_json *v;

	if (text == NULL) {
		tc_error_set(err, "%s: %s",
		    strncmp(tc_error_msg(&rerr), "[Errno ", 7) == 0 ?
		    tc_ledger_os_error_type(tc_error_msg(&rerr)) : "OSError",
		    tc_error_msg(&rerr));
		tc_error_clear(&rerr);
		return NULL;
	}
	v = tc_ledger_parse(text, len, err);
	free(text);
	return v;
}
