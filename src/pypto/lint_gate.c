/*
 * lint_gate.c - the optional mechanical lint gate of the state wrapper.
 *
 * The command is configured by the caller (never hard-wired); tunectl
 * appends the reference's arguments ("--check-gate --op-dir D --stage N"
 * or "--check-module-gate --op-dir D --module K"), runs it in the project
 * directory, parses its JSON summary exactly as the reference does and
 * blocks on a non-zero exit or any FAIL finding of severity S0/S1.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pypto_internal.h"
#include "tunectl/fileio.h"
#include "tunectl/pypto_state.h"

static const char *const count_names[] = {
	"pass", "warn", "info", "fail", "skip"
};
static const char *const statuses[] = {
	"PASS", "WARN", "INFO", "FAIL", "SKIP"
};

static bool
js_nonneg_integer(const tc_json *v, long *out)
{
	double d;

	if (v == NULL || (v->type != TC_JSON_INT && v->type != TC_JSON_FLOAT))
		return false;
	d = tc_js_number(v);
	if (!isfinite(d) || d != floor(d) || d < 0 || d > 1e15)
		return false;
	*out = (long)d;
	return true;
}

static void
format_finding(tc_buf *out, const char *rule, const char *sev,
    const char *msg, const char *file)
{
	bool located = false;

	if (file[0] != '\0') {
		const char *line = msg;
		size_t flen = strlen(file);

		for (;;) {
			if (strncmp(line, file, flen) == 0 && line[flen] == ':') {
				located = true;
				break;
			}
			line = strchr(line, '\n');
			if (line == NULL)
				break;
			line++;
		}
	}
	tc_buf_printf(out, "  [%s][%s] %s", rule, sev, msg);
	if (file[0] != '\0' && !located)
		tc_buf_printf(out, " (%s)", file);
}

static int
parse_inner(const char *raw, tc_pypto_gate_summary *sum, tc_buf *details,
    bool *has_blocking, tc_error *err)
{
	tc_json *doc, *summary, *findings;
	long counts[5], actual[5] = { 0, 0, 0, 0, 0 };
	const tc_json *hef;
	size_t i, k;
	int rc = -1;

	if ((doc = tc_json_parse(raw, strlen(raw), err)) == NULL)
		return -1;
	summary = tc_json_get(doc, "summary");
	if (!tc_json_is(summary, TC_JSON_OBJECT)) {
		tc_error_set(err, "missing summary object");
		goto out;
	}
	for (k = 0; k < 5; k++)
		if (!js_nonneg_integer(tc_json_get(summary, count_names[k]),
		    &counts[k])) {
			tc_error_set(err, "summary.%s must be a non-negative "
			    "integer", count_names[k]);
			goto out;
		}
	hef = tc_json_get(summary, "has_error_fail");
	if (!tc_json_is(hef, TC_JSON_BOOL)) {
		tc_error_set(err, "summary.has_error_fail must be a boolean");
		goto out;
	}
	findings = tc_json_get(doc, "findings");
	if (!tc_json_is(findings, TC_JSON_ARRAY)) {
		tc_error_set(err, "missing findings array");
		goto out;
	}
	*has_blocking = false;
	for (i = 0; i < findings->u.arr.len; i++) {
		static const char *const fields[] = {
			"rule_id", "severity", "status", "message", "file"
		};
		const tc_json *f = findings->u.arr.items[i];
		const char *sev, *st;

		if (!tc_json_is(f, TC_JSON_OBJECT)) {
			tc_error_set(err, "each finding must be an object");
			goto out;
		}
		for (k = 0; k < 5; k++)
			if (tc_json_get_string(f, fields[k]) == NULL) {
				tc_error_set(err, "finding.%s must be a string",
				    fields[k]);
				goto out;
			}
		sev = tc_json_get_string(f, "severity");
		st = tc_json_get_string(f, "status");
		if (strcmp(sev, "S0") != 0 && strcmp(sev, "S1") != 0 &&
		    strcmp(sev, "S2") != 0 && strcmp(sev, "S3") != 0) {
			tc_error_set(err, "invalid finding severity: %s", sev);
			goto out;
		}
		for (k = 0; k < 5; k++)
			if (strcmp(st, statuses[k]) == 0)
				break;
		if (k == 5) {
			tc_error_set(err, "invalid finding status: %s", st);
			goto out;
		}
		actual[k]++;
		if (k == 3) {
			if (details->len > 0)
				tc_buf_putc(details, '\n');
			format_finding(details, tc_json_get_string(f, "rule_id"),
			    sev, tc_json_get_string(f, "message"),
			    tc_json_get_string(f, "file"));
			if (strcmp(sev, "S0") == 0 || strcmp(sev, "S1") == 0)
				*has_blocking = true;
		}
	}
	for (k = 0; k < 5; k++)
		if (actual[k] != counts[k]) {
			tc_error_set(err, "summary.%s=%ld does not match findings "
			    "count %ld", count_names[k], counts[k], actual[k]);
			goto out;
		}
	if (hef->u.b != *has_blocking) {
		tc_error_set(err, "summary.has_error_fail does not match "
		    "findings");
		goto out;
	}
	sum->warn_count = counts[1];
	sum->info_count = counts[2];
	rc = 0;
out:
	tc_json_free(doc);
	return rc;
}

int
tc_pypto_gate_parse(const char *raw, tc_pypto_gate_summary *sum,
    char **fail_details, bool *has_blocking, tc_error *err)
{
	tc_buf details = TC_BUF_INIT;

	*fail_details = NULL;
	*has_blocking = false;
	if (tc_js_is_blank(raw)) {
		tc_error_set(err, "lint script returned empty output");
		return -1;
	}
	if (parse_inner(raw, sum, &details, has_blocking, err) != 0) {
		tc_error_prefix(err, "invalid lint JSON output: ");
		tc_buf_free(&details);
		return -1;
	}
	*fail_details = tc_buf_detach(&details, NULL);
	return 0;
}

/* Run the command, stdout captured to a private temp file; -1 also when
 * it cannot be read back. */
static int
run_capture(char *const *argv, double timeout_s, const char *cwd,
    char **out, int *exit_code, tc_error *err)
{
	tc_pypto__capture how;

	memset(&how, 0, sizeof(how));
	how.argv = argv;
	how.cwd = cwd;
	how.timeout_s = timeout_s;
	how.temp_prefix = "tunectl-lint";
	how.limit = 64u << 20;
	how.read_err = err;
	if (tc_pypto__run_captured(&how, out, NULL, exit_code, err) != 0)
		return -1;
	return *out != NULL ? 0 : -1;
}

int
tc_pypto_gate_run(char *const *lint_argv, double timeout_s,
    const char *project, const char *op_dir, const tc_pypto_input *in,
    tc_pypto_gate_summary *sum, tc_error *err)
{
	const char *action = in->action;
	char *extra[6];
	tc_buf stage_txt = TC_BUF_INIT, scope = TC_BUF_INIT;
	char **argv;
	size_t n = 0, i, k;
	char *raw = NULL, *details = NULL;
	int exit_code = 0, rc = -1;
	bool blocking = false, module_gate;
	tc_error inner = TC_ERROR_INIT;

	sum->warn_count = sum->info_count = 0;
	if (lint_argv == NULL || lint_argv[0] == NULL)
		return 0;
	if (in->stage != NULL)
		tc_js_format_number(&stage_txt, tc_js_number_of_string(in->stage));
	module_gate = (strcmp(action, "submit_for_verify") == 0 ||
	    strcmp(action, "complete_module") == 0) && in->module != NULL;
	if (strcmp(action, "complete_stage") == 0 && in->stage != NULL &&
	    tc_js_number_of_string(in->stage) <= 4) {
		extra[0] = (char *)"--check-gate";
		extra[1] = (char *)"--op-dir";
		extra[2] = (char *)op_dir;
		extra[3] = (char *)"--stage";
		extra[4] = (char *)tc_buf_cstr(&stage_txt);
	} else if (module_gate) {
		extra[0] = (char *)"--check-module-gate";
		extra[1] = (char *)"--op-dir";
		extra[2] = (char *)op_dir;
		extra[3] = (char *)"--module";
		extra[4] = (char *)in->module;
	} else {
		tc_buf_free(&stage_txt);
		return 0;
	}
	extra[5] = NULL;
	while (lint_argv[n] != NULL)
		n++;
	argv = tc_xcalloc(n + 6, sizeof(*argv));
	for (i = 0; i < n; i++)
		argv[i] = lint_argv[i];
	for (k = 0; k < 5; k++)
		argv[n + k] = extra[k];

	if (run_capture(argv, timeout_s > 0 ? timeout_s : 600, project, &raw,
	    &exit_code, &inner) != 0)
		goto blocked;
	if (tc_pypto_gate_parse(raw, sum, &details, &blocking, &inner) != 0)
		goto blocked;
	if (exit_code == 0 && !blocking) {
		rc = 0;
		goto done;
	}
	if (strcmp(action, "complete_module") == 0)
		tc_buf_printf(&scope, "Module %s completion", in->module);
	else if (strcmp(action, "submit_for_verify") == 0)
		tc_buf_printf(&scope, "Module %s verify-handoff", in->module);
	else
		tc_buf_printf(&scope, "Stage %s completion",
		    tc_buf_cstr(&stage_txt));
	if (details != NULL && details[0] != '\0')
		tc_error_set(&inner, "%s blocked by lint rule violations:\n%s%s",
		    tc_buf_cstr(&scope), details, module_gate ?
		    "\n\nRecommended next step: re-dispatch pypto-pro-op-coder "
		    "for the same module, instruct it to fix the violations "
		    "listed above, and call complete_module (or "
		    "submit_for_verify) again." :
		    "\n\nRecommended next step: re-dispatch the upstream agent "
		    "with the violations listed above. After the agent fixes "
		    "the artifacts, call complete_stage again.");
	else
		tc_error_set(&inner, "lint script returned exit code %d with no "
		    "parsable findings", exit_code);
blocked:
	tc_error_set(err, "[pypto-pro-op-lint] gate blocked: action=%s, "
	    "stage=%s, module=%s, op_dir=%s\n%s", action,
	    in->stage != NULL ? tc_buf_cstr(&stage_txt) : "-",
	    in->module != NULL ? in->module : "-", op_dir,
	    tc_error_msg(&inner));
done:
	tc_error_clear(&inner);
	tc_buf_free(&stage_txt);
	tc_buf_free(&scope);
	free(raw);
	free(details);
	free(argv);
	return rc;
}
