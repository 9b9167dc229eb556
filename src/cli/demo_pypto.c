/*
 * demo_pypto.c - "tunectl demo --pipeline pypto": the PyPTO-Pro example
 * operator (examples/pypto-op) driven through all five stages by tunectl
 * as the orchestrator, one fresh worker per step through the plain-script
 * agent host.  The demo plays the user once: when Stage 5 waits for its
 * entry confirmation it records that the user asked for optimisation of
 * every P0 case without questions, then runs on until stage5-check
 * passes and Stage 5 is completed, and prints the result of the
 * interleaved final compare.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "tunectl/fileio.h"
#include "tunectl/path.h"
#include "tunectl/pypto.h"
#include "tunectl/pypto_orch.h"

struct pdemo {
	bool quiet;
};

static void
progress(const tc_attempt_report *r, const tc_json *accepted,
    const char *error, void *ctx)
{
	const struct pdemo *d = ctx;

	if (r->step_id == NULL) {
		if (error != NULL)
			fprintf(stderr, "demo: %s\n", error);
		return;
	}
	fprintf(stderr, "demo: %-34s attempt %d  %-9s %7.1fs\n", r->step_id,
	    r->attempt, r->runner_status != NULL ? r->runner_status : "-",
	    r->seconds);
	if (accepted != NULL && !d->quiet)
		fprintf(stderr, "demo:   %s\n", tc_json_get_string(accepted,
		    "decision"));
	if (error != NULL)
		fprintf(stderr, "demo:   %s\n", error);
}

static void
prepend_env(const char *name, const char *dir)
{
	const char *old = getenv(name);
	char *v = old != NULL && *old != '\0' ? tc_xasprintf("%s:%s", dir, old) :
	    tc_xstrdup(dir);

	setenv(name, v, 1);
	free(v);
}

static tc_json *
run_pipeline(tc_pypto_run_opts *o, struct pdemo *d, const char *want,
    tc_error *err)
{
	tc_json *out = tc_pypto_run_pipeline(o, progress, d, err);

	if (out == NULL)
		return NULL;
	if (strcmp(tc_json_get_string(out, "status"), want) != 0) {
		tc_error_set(err, "the pipeline stopped %s: %s",
		    tc_json_get_string(out, "status"),
		    tc_json_get_string(out, "reason"));
		tc_json_free(out);
		return NULL;
	}
	return out;
}

static double
num(const tc_json *v)
{
	double d = 0;

	(void)tc_json_number(v, &d);
	return d;
}

/* "1.234x [1.100, 1.350]" of a figure set (median ratio, ci95). */
static void
ratio_text(const tc_json *f)
{
	const tc_json *ci = tc_json_get(f, "ci95");

	fprintf(stderr, "%.3fx [%.3f, %.3f]", num(tc_json_get(f, "median_ratio")),
	    tc_json_is(ci, TC_JSON_ARRAY) && ci->u.arr.len == 2 ?
	    num(ci->u.arr.items[0]) : 0, tc_json_is(ci, TC_JSON_ARRAY) &&
	    ci->u.arr.len == 2 ? num(ci->u.arr.items[1]) : 0);
}

/* The result, from the interleaved compare of the baseline and the best
 * version: "no change kept" with the spread of the same code, or the
 * median ratio with its 95 % interval; never two separate rounds. */
static void
summarise(const char *op_dir)
{
	char *p = tc_path_join(op_dir, "PERFORMANCE_REPORT.md");
	char *text = tc_read_file(p, 0, NULL, NULL);
	tc_json *ev = text != NULL ? tc_pypto_fenced_json(text,
	    "json stage5-evidence", NULL) : NULL;
	const tc_json *pcs = tc_json_get(ev, "per_case");
	const tc_json *agg = tc_json_get(tc_json_get(ev, "final_interleaved"),
	    "aggregate");
	const char *res = tc_json_get_string_or(ev, "result", "?");
	size_t i;

	fprintf(stderr, "\ndemo: PyPTO-Pro pipeline completed for %s: Stage 5 "
	    "closed on a stage5-check PASS bound in the state\n", op_dir);
	fprintf(stderr, "demo: best version %s: ", tc_json_get_string_or(ev,
	    "best_candidate_id", "?"));
	if (strcmp(res, "no_change_kept") == 0) {
		fprintf(stderr, "no change kept (no candidate was faster than the "
		    "baseline beyond the noise)\n");
	} else {
		fprintf(stderr, "%s against the baseline, target cases ", res);
		ratio_text(agg);
		fprintf(stderr, "\n");
	}
	for (i = 0; tc_json_is(pcs, TC_JSON_ARRAY) && i < pcs->u.arr.len; i++) {
		const tc_json *f = tc_json_get(pcs->u.arr.items[i], "interleaved");

		fprintf(stderr, "demo:   %-10s in turns, %g pairs: baseline %10.1f us"
		    "  final %10.1f us  ", tc_json_get_string_or(
		    pcs->u.arr.items[i], "case", "?"), num(tc_json_get(f, "pairs")),
		    num(tc_json_get(f, "baseline_median_us")),
		    num(tc_json_get(f, "final_median_us")));
		/* A case's own verdict names its figure: only a case faster
		 * beyond the noise shows a speedup. */
		fprintf(stderr, "%s ", strcmp(res, "no_change_kept") == 0 ?
		    "same code, ratio" : strcmp(tc_json_get_string_or(f, "change",
		    ""), "faster") == 0 ? "speedup" : strcmp(
		    tc_json_get_string_or(f, "change", ""), "slower") == 0 ?
		    "slower, ratio" : "inside the noise, ratio");
		ratio_text(f);
		fprintf(stderr, " (CPU timings, medians)\n");
	}
	fprintf(stderr, "demo: report      %s\n", p);
	fprintf(stderr, "demo: state       tunectl pypto state --op-dir %s "
	    "show\n", op_dir);
	tc_json_free(ev);
	free(text);
	free(p);
}

/* An action whose result the demo does not read: 0 when it ran (the
 * result freed), -1 when it failed (err set). */
static int
done(tc_json *r)
{
	if (r == NULL)
		return -1;
	tc_json_free(r);
	return 0;
}

/* The operator directory and the request, as the demo's user types it. */
static int
configure(const tc_pypto_state_opts *st, tc_error *err)
{
	tc_pypto_input in = TC_PYPTO_INPUT_INIT;
	tc_pypto_orch_input oi;

	if (tc_mkdirs(st->op_dir, err) != 0)
		return -1;
	in.action = "init";
	if (done(tc_pypto_state_transition(st, &in, err)) != 0)
		return -1;
	tc_pypto_orch_input_init(&oi, "configure");
	oi.devices = "0";
	oi.request = "rmsnorm: y = x / sqrt(mean(x^2) + eps) * w over rows, "
	    "float64, P0 cases 64x512 and 128x1024; tune its performance";
	return done(tc_pypto_orch_action(st, &oi, err));
}

/* The demo's user asked for optimisation up front and not to be asked:
 * every P0 case is a target (all_p0_no_questions). */
static int
consent(const tc_pypto_state_opts *st, tc_error *err)
{
	tc_pypto_orch_input oi;
	const char *mode;
	tc_json *r;

	tc_pypto_orch_input_init(&oi, "consent");
	oi.basis = "user_requested";
	oi.statement = "demo user: tune the performance of every P0 case; do "
	    "not ask questions";
	oi.no_questions = true;
	if ((r = tc_pypto_orch_action(st, &oi, err)) == NULL)
		return -1;
	mode = tc_json_get_string(tc_json_get(tc_json_get(tc_json_get(r,
	    "stage5"), "consent"), "optimization_target"), "selection_mode");
	fprintf(stderr, "demo: Stage 5 entry confirmed by the user's request "
	    "(target cases: %s)\n", mode != NULL ? mode : "?");
	tc_json_free(r);
	return 0;
}

int
tc_demo_pypto(const char *examples, const char *root, bool quiet)
{
	char *project = tc_xasprintf("%s/project", root);
	char *op_dir = tc_xasprintf("%s/custom/rmsnorm", project);
	char *example = tc_xasprintf("%s/pypto-op", examples);
	char *shim = tc_xasprintf("%s/shim", example);
	char *workers = tc_xasprintf("%s/workers", example);
	char *host = tc_xasprintf("%s/hosts/script/host.sh", examples);
	char *argv_host[] = { host, NULL };
	struct pdemo d = { quiet };
	tc_pypto_run_opts o;
	tc_error err = TC_ERROR_INIT;
	int rc = TC_EXIT_FAIL;

	setenv("TUNECTL", tc_self_exe(), 1);
	setenv("TUNECTL_WORKERS", workers, 1);
	setenv("TUNECTL_PYPTO_EXAMPLE", example, 1);
	prepend_env("PYTHONPATH", shim);
	memset(&o, 0, sizeof(o));
	o.state.project = project;
	o.state.op_dir = op_dir;
	o.runner.argv = argv_host;
	o.runner.argc = 1;
	o.host.timeout_s = 1800;
	o.host.grace_s = 10;
	o.host.seal_program = tc_self_exe();
	o.max_attempts = 2;
	o.max_steps = 60;

	if (configure(&o.state, &err) != 0)
		goto out;
	fprintf(stderr, "demo: PyPTO-Pro pipeline of the example operator in "
	    "%s\n", op_dir);
	if (done(run_pipeline(&o, &d, "awaiting_consent", &err)) != 0 ||
	    consent(&o.state, &err) != 0 ||
	    done(run_pipeline(&o, &d, "completed", &err)) != 0)
		goto out;
	summarise(op_dir);
	rc = TC_EXIT_OK;
out:
	if (rc != TC_EXIT_OK)
		fprintf(stderr, "demo: %s\n", tc_error_msg(&err));
	tc_error_clear(&err);
	free(op_dir);
	free(project);
	free(example);
	free(shim);
	free(workers);
	free(host);
	return rc;
}
