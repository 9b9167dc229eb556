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

/* The refusal of a validator that exited with status: its last non-empty
 * stderr line, or the status when it wrote none. */
static void
exit_refusal(const char *stderr_path, int status, tc_error *err)
{
	size_t len = 0;
	char *text = tc_read_file(stderr_path, 0, &len, NULL);
	char *line = text != NULL ? last_line(text, len) : NULL;

	if (line != NULL)
		tc_error_set(err, "%s", line);
	else
		tc_error_set(err, "analysis validator exited with status %d",
		    status);
	free(line);
	free(text);
}

/* Close and remove a temporary file mkstemp() made (fd < 0: none). */
static void
drop_temp(int fd, const char *path)
{
	if (fd >= 0) {
		close(fd);
		unlink(path);
	}
}

/* Run CMD on one analysis: 0 and its stdout in *out (malloc'd; NULL when
 * unreadable) when it exits 0, else -1 with the refusal in err. */
static int
run_validator(const tc_ledger_command *cmd, const char *round_id,
    const char *analysis_path, char **out, size_t *out_len, tc_error *err)
{
	char out_tmpl[] = "/tmp/tunectl-analysis-out.XXXXXX";
	char err_tmpl[] = "/tmp/tunectl-analysis-err.XXXXXX";
	int ofd = mkstemp(out_tmpl), efd = -1, rc = -1;
	char *argv[5];
	tc_proc_spec spec;
	tc_proc_result res;
	tc_error rerr = TC_ERROR_INIT;

	*out = NULL;
	*out_len = 0;
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
	if (tc_proc_run(&spec, &res, &rerr) != 0)
		tc_error_set(err, "analysis validator cannot run: %s",
		    tc_error_msg(&rerr));
	else if (res.timed_out)
		tc_error_set(err, "analysis validator timed out after %d s",
		    VALIDATOR_TIMEOUT_S);
	else if (res.exit_code != 0)
		exit_refusal(err_tmpl, res.exit_code, err);
	else {
		*out = tc_read_file(out_tmpl, 0, out_len, NULL);
		rc = 0;
	}
out:
	tc_error_clear(&rerr);
	drop_temp(ofd, out_tmpl);
	drop_temp(efd, err_tmpl);
	return rc;
}

static int
run(void *ctx, const tc_json *result, const char *round_id,
    const char *analysis_path, const tc_json *analysis, tc_json **decisions,
    tc_json **actions, tc_error *err)
{
	char *text;
	size_t len;
	tc_json *doc;
	int rc = -1;

	(void)result;
	(void)analysis;
	if (run_validator(ctx, round_id, analysis_path, &text, &len, err) != 0)
		return -1;
	doc = text != NULL ? tc_ledger_parse(text, len, NULL) : NULL;
	free(text);
	if (!tc_json_is(doc, TC_JSON_OBJECT) ||
	    !list_of_objects(tc_json_get(doc, "per_sk_decisions")) ||
	    !list_of_objects(tc_json_get(doc, "scope_actions"))) {
		tc_error_set(err, "analysis validator output must be a JSON object "
		    "with per_sk_decisions and scope_actions lists of objects");
	} else {
		*decisions = tc_json_object_take(doc, "per_sk_decisions");
		*actions = tc_json_object_take(doc, "scope_actions");
		rc = 0;
	}
	tc_json_free(doc);
	return rc;
}

void
tc_ledger_command_analyzer(tc_ledger_analyzer *an, tc_ledger_command *cmd)
{
	an->analyze = run;
	an->reanalyze = NULL;
	an->ctx = cmd;
}
