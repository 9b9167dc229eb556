/*
 * runner.c - agent-runner-v1: the argv of an agent host, read from JSON.
 */
#include <stdlib.h>
#include <string.h>

#include "tunectl/buf.h"
#include "tunectl/host.h"

#define RUNNER_ARGV_INVALID "runner_argv must be a non-empty string list"

int
tc_runner_from_json(const tc_json *doc, tc_runner *out, tc_error *err)
{
	size_t i;

	out->argv = NULL;
	out->argc = 0;
	if (!tc_json_is(doc, TC_JSON_ARRAY) || doc->u.arr.len == 0) {
		tc_error_set(err, RUNNER_ARGV_INVALID);
		return -1;
	}
	for (i = 0; i < doc->u.arr.len; i++) {
		const tc_json *item = doc->u.arr.items[i];

		if (!tc_json_is(item, TC_JSON_STRING) || item->u.str.len == 0 ||
		    strlen(item->u.str.ptr) != item->u.str.len) {
			tc_error_set(err, RUNNER_ARGV_INVALID);
			return -1;
		}
	}
	out->argc = doc->u.arr.len;
	out->argv = tc_xcalloc(out->argc + 1, sizeof(char *));
	for (i = 0; i < out->argc; i++)
		out->argv[i] = tc_xstrdup(doc->u.arr.items[i]->u.str.ptr);
	return 0;
}

int
tc_runner_load(const char *path, tc_runner *out, tc_error *err)
{
	tc_json *doc = tc_json_parse_file(path, err);
	int rc;

	out->argv = NULL;
	out->argc = 0;
	if (doc == NULL)
		return -1;
	rc = tc_runner_from_json(doc, out, err);
	tc_json_free(doc);
	return rc;
}

int
tc_runner_digest(const tc_runner *r, char hex[65], tc_error *err)
{
	tc_json *argv = tc_json_new_array();
	size_t i;
	int rc;

	for (i = 0; i < r->argc; i++)
		tc_json_array_push(argv, tc_json_new_string(r->argv[i]));
	rc = tc_json_digest(argv, hex, err);
	tc_json_free(argv);
	return rc;
}

void
tc_runner_free(tc_runner *r)
{
	size_t i;

	for (i = 0; i < r->argc; i++)
		free(r->argv[i]);
	free(r->argv);
	r->argv = NULL;
	r->argc = 0;
}

void
tc_attempt_report_free(tc_attempt_report *r)
{
	free(r->step_id);
	free(r->phase);
	free(r->outcome_status);
	free(r->quarantined);
	memset(r, 0, sizeof(*r));
}
