/*
 * ledger_analyzer_cmd.c - an external program as the analyser hook of
 * artifact evidence validation (docs/spec/ledger.md
 * "Artifact evidence validation" [EXT] steps): tunectl does not know how the
 * reference's analyser re-validates and re-analyses an analysis file, so
 * `--analysis-validator CMD` lets an installation plug in a program that does,
 * e.g. a wrapper around recommend_sk_strategy.py.
 *
 * Protocol: CMD ANALYSIS_PATH ROUND_ID RESULT_PATH (no shell, stdin
 * /dev/null, 600 s limit).  Exit 0 and a JSON object on stdout with the
 * analyser's normalised "per_sk_decisions" and "scope_actions" (lists of
 * objects with "range_id") means the analysis passed; any other exit
 * refuses it with CMD's last non-empty stderr line as the message.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tunectl/fileio.h"
#include "tunectl/ledger.h"
#include "tunectl/proc.h"

#define VALIDATOR_TIMEOUT_S 600

/* The last non-empty line of text (malloc'd), or NULL. */
static char *
last_line(const char *text, size_t len)
{
	size_t end = len, start;

	while (end > 0 && (text[end - 1] == '\n' || text[end - 1] == '\r' ||
	    text[end - 1] == ' ' || text[end - 1] == '\t'))
		end--;
	if (end == 0)
		return NULL;
	start = end;
	while (start > 0 && text[start - 1] != '\n')
		start--;
	return tc_xstrndup(text + start, end - start);
}

static bool
list_of_objects(const tc_json *v)
{
	size_t i;

	if (!tc_json_is(v, TC_JSON_ARRAY))
		return false;
	for (i = 0; i < v->u.arr.len; i++)
		if (!tc_json_is(v->u.arr.items[i], TC_JSON_OBJECT))
			return false;
	return true;
}

static int
run(void *ctx, const tc_json *result, const char *round_id,
    const char *analysis_path, const tc_json *analysis, tc_json **decisions,
    tc_json **actions, tc_error *err)
{
	const tc_ledger_command *cmd = ctx;
	char out_tmpl[] = "/tmp/tunectl-analysis-out.XXXXXX";
	char err_tmpl[] = "/tmp/tunectl-analysis-err.XXXXXX";
	int ofd = mkstemp(out_tmpl), efd = -1, rc = -1;
	char *argv[5], *text = NULL, *etext = NULL, *line;
	size_t len = 0, elen = 0;
	tc_proc_spec spec;
	tc_proc_result res;
	tc_error rerr = TC_ERROR_INIT;
	tc_json *doc = NULL;

	(void)result;
	(void)analysis;
	if (ofd < 0 || (efd = mkstemp(err_tmpl)) < 0) {
		tc_error_set(err, "cannot create a temporary file for the analysis "
		    "validator");
		goto out;
	}
	argv[0] = (char *)(uintptr_t)cmd->program;
	argv[1] = (char *)(uintptr_t)analysis_path;
	argv[2] = (char *)(uintptr_t)round_id;
	argv[3] = (char *)(uintptr_t)cmd->result_path;
	argv[4] = NULL;
	memset(&spec, 0, sizeof(spec));
	spec.argv = argv;
	spec.stdout_path = out_tmpl;
	spec.stderr_path = err_tmpl;
	spec.stdin_null = true;
	spec.timeout_s = VALIDATOR_TIMEOUT_S;
	if (tc_proc_run(&spec, &res, &rerr) != 0) {
		tc_error_set(err, "analysis validator cannot run: %s",
		    tc_error_msg(&rerr));
		goto out;
	}
	text = tc_read_file(out_tmpl, 0, &len, &rerr);
	etext = tc_read_file(err_tmpl, 0, &elen, &rerr);
	if (res.timed_out) {
		tc_error_set(err, "analysis validator timed out after %d s",
		    VALIDATOR_TIMEOUT_S);
		goto out;
	}
	if (res.exit_code != 0) {
		line = etext != NULL ? last_line(etext, elen) : NULL;
		if (line != NULL)
			tc_error_set(err, "%s", line);
		else
			tc_error_set(err, "analysis validator exited with status %d",
			    res.exit_code);
		free(line);
		goto out;
	}
	doc = text != NULL ? tc_ledger_parse(text, len, &rerr) : NULL;
	if (!tc_json_is(doc, TC_JSON_OBJECT) ||
	    !list_of_objects(tc_json_get(doc, "per_sk_decisions")) ||
	    !list_of_objects(tc_json_get(doc, "scope_actions"))) {
		tc_error_set(err, "analysis validator output must be a JSON object "
		    "with per_sk_decisions and scope_actions lists of objects");
		goto out;
	}
	*decisions = tc_json_object_take(doc, "per_sk_decisions");
	*actions = tc_json_object_take(doc, "scope_actions");
	rc = 0;
out:
	tc_error_clear(&rerr);
	tc_json_free(doc);
	free(text);
	free(etext);
	if (ofd >= 0) {
		close(ofd);
		unlink(out_tmpl);
	}
	if (efd >= 0) {
		close(efd);
		unlink(err_tmpl);
	}
	return rc;
}

void
tc_ledger_command_analyzer(tc_ledger_analyzer *an, tc_ledger_command *cmd)
{
	an->analyze = run;
	an->reanalyze = NULL;
	an->ctx = cmd;
}
