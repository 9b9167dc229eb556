/*
 * precision.c - running the final test the way the verifier does (python
 * custom/<op>/test_<op>.py, the whole runner, every case) and reading its
 * precision verdict (stage4-check #8 and #9, stage5-check P5): exit 0,
 * PASS lines carrying matched_ratio= and max_abs_error=, and no
 * Traceback, Error or Exception anywhere in the output.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compare_internal.h"
#include "pypto_internal.h"
#include "tunectl/pypto_compare.h"
#include "tunectl/sha256.h"

char *
tc_pypto_precision_error(const char *out, const char *err_text,
    size_t min_pass)
{
	const char *texts[2] = { out, err_text };
	size_t pass = 0, t;
	bool ratio = false, abs_err = false;

	for (t = 0; t < 2; t++) {
		const char *p = texts[t] != NULL ? texts[t] : "";

		while (*p != '\0') {
			size_t len = strcspn(p, "\n");
			char *line = tc_xstrndup(p, len);

			if (strstr(line, "Traceback") != NULL ||
			    strstr(line, "Error") != NULL ||
			    strstr(line, "Exception") != NULL) {
				char *m = tc_xasprintf("the output reports a failure: "
				    "%s", line);

				free(line);
				return m;
			}
			if (strncmp(line, "FAIL", 4) == 0) {
				char *m = tc_xasprintf("a precision check failed: %s",
				    line);

				free(line);
				return m;
			}
			if (strstr(line, "PASS") != NULL) {
				pass++;
				ratio = ratio || strstr(line, "matched_ratio=") != NULL;
				abs_err = abs_err ||
				    strstr(line, "max_abs_error=") != NULL;
			}
			free(line);
			p += len;
			if (*p == '\n')
				p++;
		}
	}
	if (pass == 0)
		return tc_xstrdup("the output has no PASS line");
	if (!ratio || !abs_err)
		return tc_xstrdup("the PASS output lacks matched_ratio= and "
		    "max_abs_error=");
	if (pass < min_pass)
		return tc_xasprintf("%zu PASS line(s) for %zu P0 case(s): every P0 "
		    "precision metric must be reported", pass, min_pass);
	return NULL;
}

tc_json *
tc_pypto_run_final_test(const char *op_dir, const char *interpreter,
    double timeout_s, size_t min_pass, tc_error *err)
{
	tc_pypto_runctx rc;
	tc_pypto_run run;
	char *runner, *problem;
	char sha[TC_SHA256_HEX_LEN + 1], out_sha[TC_SHA256_HEX_LEN + 1];
	tc_json *r, *argv;
	size_t i;

	if ((runner = tc_pypto_find_runner(op_dir, err)) == NULL)
		return NULL;
	if (tc_sha256_file(runner, sha, NULL, err) != 0) {
		free(runner);
		return NULL;
	}
	memset(&rc, 0, sizeof(rc));
	rc.runner = runner;
	rc.interpreter = interpreter != NULL ? interpreter : "python3";
	rc.timeout_s = timeout_s > 0 ? timeout_s : 600;
	if (tc_pypto_runctx_open(&rc, err) != 0) {
		free(runner);
		return NULL;
	}
	if (tc_pypto_run_once(&rc, NULL, &run, err) != 0) {
		tc_pypto_runctx_close(&rc);
		free(runner);
		return NULL;
	}
	tc_pypto_runctx_close(&rc);
	r = tc_json_new_object();
	argv = tc_json_new_array();
	for (i = 0; run.argv[i] != NULL; i++)
		tc_json_array_push(argv, tc_json_new_string(run.argv[i]));
	tc_json_object_set(r, "argv", argv);
	tc_json_object_set_string(r, "runner_sha256", sha);
	tc_json_object_set_int(r, "exit_code", run.exit_code);
	tc_json_object_set_bool(r, "timed_out", run.timed_out);
	tc_sha256_hex(run.out, strlen(run.out), out_sha);
	tc_json_object_set_string(r, "stdout_sha256", out_sha);
	{
		char *t = tc_pypto_tail(run.out, 8000);

		tc_json_object_set_string(r, "stdout_tail", t);
		free(t);
		t = tc_pypto_tail(run.err, 8000);
		tc_json_object_set_string(r, "stderr_tail", t);
		free(t);
	}
	problem = run.exit_code != 0 ? tc_xasprintf("exit code %d",
	    run.exit_code) : tc_pypto_precision_error(run.out, run.err, min_pass);
	tc_json_object_set_bool(r, "passed", problem == NULL);
	if (problem != NULL)
		tc_json_object_set_string(r, "problem", problem);
	else
		tc_json_object_set_null(r, "problem");
	free(problem);
	tc_pypto_run_free(&run);
	free(runner);
	return r;
}
