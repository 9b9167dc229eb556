/*
 * cmd_demo.c - "tunectl demo": tunectl's main job end to end.  Tunes the
 * demo workload (examples/workload, or with --workload gpu the CUDA one in
 * examples/gpu-workload; demo_workload.c) through all seven phases with
 * the plain-script workers (examples/workers) and the plain-script agent
 * host, verifies the session and writes the HTML report.  With --pipeline
 * pypto it walks the PyPTO-Pro example operator instead.
 *
 * The demo finds its resources next to the binary: the source tree
 * (build/tunectl -> ./examples) or an installation
 * (bin/tunectl -> share/tunectl/examples).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "tunectl/buf.h"
#include "tunectl/fileio.h"
#include "tunectl/evidence.h"
#include "tunectl/host.h"
#include "tunectl/path.h"
#include "tunectl/proc.h"
#include "tunectl/refusal.h"
#include "tunectl/html.h"
#include "tunectl/report.h"
#include "tunectl/session.h"
#include "tunectl/support.h"
#include "tunectl/timeutil.h"

struct demo {
	char *examples;		/* the examples directory */
	struct demo_workload w;	/* what is tuned, on which devices */
	const char *profile;
	bool quiet;
};

/* The run directory's record of what the demo tunes, for --resume. */
#define DEMO_RECORD "demo.json"

/* What a newcomer can do about each kind of refusal (one line each). */
static const char *
advice(enum tc_refusal_kind kind, bool gpu)
{
	switch (kind) {
	case TC_REFUSAL_NOISE:
	case TC_REFUSAL_GATE:
		if (gpu)
			return "the timings were too noisy to trust, and the gates "
			    "refuse noisy evidence\nrather than guess.  Other "
			    "programs on the GPU (see nvidia-smi) or a busy host\n"
			    "that launches kernels late make device timings "
			    "noisy: stop them and run\nthe demo again.\n";
		return "the timings were too noisy to trust, and the gates refuse "
		    "noisy evidence\n"
		    "rather than guess (each disturbed series was measured up to "
		    "three times).\n"
		    "Programs competing for the CPUs make timings noisy: close "
		    "them, or wait\n"
		    "until `uptime` shows a load average below the number of "
		    "CPUs.  On a virtual\n"
		    "machine the host's other guests slow it down too, even when "
		    "`uptime` shows\n"
		    "it idle: run `make demo` again later.  bench/demo_reliability.sh "
		    "(source\n"
		    "tree) measures how often the demo gets through on this "
		    "machine.\n";
	case TC_REFUSAL_ENVIRONMENT:
		return "fix what intake reported (intake/environment.json, the "
		    "intake phase\nreport) and run the demo again.\n";
	case TC_REFUSAL_FAILURE:
		return "a phase worker failed: read its PHASE_REPORT.md and the "
		    "attempt's logs\nunder dispatches/, fix the cause, and run "
		    "the demo again.\n";
	default:
		return "read the phase report of the step named above.\n";
	}
}

/* Print the outcome a newcomer wants to read first; when the session did
 * not end beneficial, which gate refused, its numbers, and what to do. */
static void
summarise(const char *root, const char *session_path, const tc_json *session,
    bool gpu)
{
	char *ledger = tc_xasprintf("%s/ledger.json", root);
	tc_json *doc = tc_json_parse_file(ledger, NULL);
	const tc_json *fe = tc_json_get(doc, "final_e2e");
	const char *cls = tc_json_get_string(fe, "classification");
	double imp;

	fprintf(stderr, "\ndemo: session %s is %s\n",
	    tc_json_get_string(session, "session_id"),
	    tc_json_get_string(session, "status"));
	if (cls == NULL) {
		fprintf(stderr, "demo: no final_e2e was recorded\n");
	} else if (tc_json_number(tc_json_get(fe, "improvement_pct"), &imp)) {
		double b = 0, c = 0;

		tc_json_number(tc_json_get(tc_json_get(fe, "baseline"), "median_ms"), &b);
		tc_json_number(tc_json_get(tc_json_get(fe, "candidate"), "median_ms"), &c);
		fprintf(stderr, "demo: final clean E2E: %s, %.4f ms -> %.4f ms "
		    "(%+.2f%%), candidate %s\n", cls, b, c, imp,
		    tc_json_get_string(fe, "candidate_id"));
	} else {
		fprintf(stderr, "demo: final clean E2E: %s: %s\n", cls,
		    tc_json_get_string(fe, "reason_zh"));
	}
	if (cls != NULL && strcmp(cls, "beneficial") != 0) {
		tc_session *s = NULL;
		tc_buf why = TC_BUF_INIT;
		enum tc_refusal_kind kind = TC_REFUSAL_NONE;
		const char *step = NULL;

		if (tc_session_load(session_path, 0, &s, NULL) == 0)
			kind = tc_report_refusal(s, &why, &step);
		if (kind != TC_REFUSAL_NONE) {
			fprintf(stderr, "demo: no tuning was admitted; a gate "
			    "refused the evidence:\n");
			tc_cli_print_lines("demo:   ", why.data);
			fprintf(stderr, "demo: what you can do:\n");
			tc_cli_print_lines("demo:   ", advice(kind, gpu));
		}
		tc_buf_free(&why);
		tc_session_free(s);
	}
	tc_json_free(doc);
	free(ledger);
}

static int
run_superkernel(struct demo *d, const char *parent, const char *root,
    const char *mode, bool resume, bool no_html)
{
	tc_error err = TC_ERROR_INIT;
	char *session = tc_xasprintf("%s/auto-tune-session.json", root);
	char *host = tc_xasprintf("%s/hosts/script/host.sh", d->examples);
	char *workers = tc_xasprintf("%s/workers", d->examples);
	/* One lease root for every demo under the same parent: the CPU is one
	 * device, and a GPU one device each, however many demos share them. */
	char *leases = tc_xasprintf("%s/leases", parent);
	char *html = tc_xasprintf("%s/report.html", root);
	char *argv_host[] = { host, NULL };
	tc_runner runner = { argv_host, 1 };
	tc_run_next_opts ro = { 3600.0, 10.0, tc_self_exe() };
	const struct tc_cli_drive drive = { .label = "demo", .session = session,
	    .root = root, .mode = mode, .resume = resume, .quiet = d->quiet,
	    .runner = &runner, .ro = &ro, .max_attempts = 2 };
	tc_json *done = NULL;
	int rc = TC_EXIT_FAIL;

	setenv("TUNECTL", tc_self_exe(), 1);
	demo_workload_export(&d->w);
	setenv("SKW_PROFILE", d->profile, 1);
	setenv("TUNECTL_WORKERS", workers, 1);
	setenv("TUNECTL_LEASE_ROOT", leases, 1);
	/* The workers hand support roles to the same host ("support run"). */
	if (tc_cli_write_runner(parent, host, &err) != 0)
		goto out;
	fprintf(stderr, "demo: workload %s on %s\n", d->w.binary, d->w.devices);
	if ((done = tc_cli_drive_session(&drive, &err)) == NULL)
		goto out;
	summarise(root, session, done, strcmp(d->w.kind, "gpu") == 0);
	if (tc_cli_finish_reports("demo", root, session, no_html ? NULL : html,
	    &err) != 0)
		goto out;
	rc = TC_EXIT_OK;
out:
	if (rc != TC_EXIT_OK) {
		fprintf(stderr, "demo: %s\n", tc_error_msg(&err));
		fprintf(stderr, "demo: continue with: tunectl demo --resume "
		    "--artifact-root %s\n", parent);
	}
	tc_error_clear(&err);
	tc_json_free(done);
	free(session);
	free(host);
	free(workers);
	free(leases);
	free(html);
	return rc;
}

/* The workload a run directory was started with ("cpu" for runs from
 * before the record existed); malloc'd. */
static char *
recorded_workload(const char *root)
{
	char *path = tc_xasprintf("%s/%s", root, DEMO_RECORD);
	tc_json *doc = tc_json_parse_file(path, NULL);
	const char *kind = tc_json_get_string(doc, "workload");
	char *out = tc_xstrdup(kind != NULL ? kind : "cpu");

	tc_json_free(doc);
	free(path);
	return out;
}

static int
record_workload(const char *root, const struct demo *d, tc_error *err)
{
	char *path = tc_xasprintf("%s/%s", root, DEMO_RECORD);
	tc_json *doc = tc_json_new_object();
	int rc;

	tc_json_object_set_string(doc, "schema_version", "tunectl-demo-run-v1");
	tc_json_object_set_string(doc, "workload", d->w.kind);
	tc_json_object_set_string(doc, "device_ids", d->w.device_ids);
	tc_json_object_set_string(doc, "profile", d->profile);
	rc = tc_write_json(path, doc, TC_WRITE_EXCLUSIVE, err);
	tc_json_free(doc);
	free(path);
	return rc;
}

static int
cmd_demo(const struct tc_command *cmd, int argc, char **argv)
{
	const char *root_arg = NULL, *mode = "none", *pipeline = "superkernel";
	const char *profile = "standard", *workload = NULL;
	bool resume = false, quiet = false, no_html = false;
	const struct tc_option opts[] = {
		{ "--artifact-root", TC_OPT_STRING, &root_arg, false, NULL },
		{ "--optional-mode", TC_OPT_STRING, &mode, false, NULL },
		{ "--pipeline", TC_OPT_STRING, &pipeline, false, NULL },
		{ "--profile", TC_OPT_STRING, &profile, false, NULL },
		{ "--workload", TC_OPT_STRING, &workload, false, NULL },
		{ "--resume", TC_OPT_FLAG, &resume, false, NULL },
		{ "--no-html", TC_OPT_FLAG, &no_html, false, NULL },
		{ "--quiet", TC_OPT_FLAG, &quiet, false, NULL },
		{ NULL, 0, NULL, false, NULL }
	};
	struct demo d;
	tc_error err = TC_ERROR_INIT;
	char *exe_dir = NULL, *root = NULL, *parent = NULL, *kind = NULL;
	bool superkernel;
	int rc;

	memset(&d, 0, sizeof(d));
	if ((rc = tc_opts_parse(cmd, argc, argv, opts, NULL)) != 0)
		return rc < 0 ? TC_EXIT_OK : rc;
	if (strcmp(pipeline, "superkernel") != 0 && strcmp(pipeline, "pypto") != 0)
		return tc_usage_error(cmd, "argument --pipeline: invalid choice: "
		    "'%s' (choose from 'superkernel', 'pypto')", pipeline);
	if (strcmp(mode, "none") != 0 && strcmp(mode, "multistream") != 0 &&
	    strcmp(mode, "source-range") != 0 && strcmp(mode, "both") != 0)
		return tc_usage_error(cmd, "argument --optional-mode: invalid "
		    "choice: '%s' (choose from 'both', 'multistream', 'none', "
		    "'source-range')", mode);
	if (strcmp(profile, "standard") != 0 && strcmp(profile, "quick") != 0)
		return tc_usage_error(cmd, "argument --profile: invalid choice: "
		    "'%s' (choose from 'standard', 'quick')", profile);
	if (workload != NULL && strcmp(workload, "cpu") != 0 &&
	    strcmp(workload, "gpu") != 0)
		return tc_usage_error(cmd, "argument --workload: invalid choice: "
		    "'%s' (choose from 'cpu', 'gpu')", workload);
	superkernel = strcmp(pipeline, "superkernel") == 0;
	if (workload != NULL && !superkernel)
		return tc_usage_error(cmd, "argument --workload: not allowed "
		    "with --pipeline pypto");
	d.profile = profile;
	d.quiet = quiet;
	exe_dir = tc_path_dirname(tc_self_exe());
	if ((d.examples = tc_cli_examples_dir(exe_dir)) == NULL) {
		rc = tc_die("demo: cannot find the examples directory next to "
		    "%s", tc_self_exe());
		goto out;
	}
	parent = tc_xstrdup(root_arg != NULL ? root_arg : "tunectl-demo");
	if (resume && (root = tc_cli_latest_run_dir(parent)) == NULL) {
		rc = tc_die("demo: nothing to resume under %s", parent);
		goto out;
	}
	/* What to tune and where, decided before anything is written. */
	if (superkernel) {
		kind = resume ? recorded_workload(root) :
		    tc_xstrdup(workload != NULL ? workload : "cpu");
		if (workload != NULL && strcmp(workload, kind) != 0) {
			rc = tc_die("demo: %s tunes the %s workload; --workload %s "
			    "cannot resume it", root, kind, workload);
			goto out;
		}
		if (demo_workload_find(&d.w, kind, exe_dir, d.examples,
		    &err) != 0) {
			rc = tc_die("demo: %s", tc_error_msg(&err));
			goto out;
		}
	}
	/* Every demo gets a fresh directory unless it resumes the latest. */
	if (!resume && ((root = tc_cli_new_run_dir(parent, pipeline, &err)) == NULL ||
	    (superkernel && record_workload(root, &d, &err) != 0))) {
		rc = tc_die("demo: %s", tc_error_msg(&err));
		goto out;
	}
	/* The workers run in the run directory: the paths they are given
	 * under parent (the lease root, the runner file) must be absolute. */
	{
		char *abs_parent = tc_path_resolve(parent, &err);

		if (abs_parent == NULL) {
			rc = tc_die("demo: %s", tc_error_msg(&err));
			goto out;
		}
		free(parent);
		parent = abs_parent;
	}
	if (superkernel) {
		rc = run_superkernel(&d, parent, root, mode, resume, no_html);
	} else {
		rc = tc_demo_pypto(d.examples, root, quiet);
	}
out:
	tc_error_clear(&err);
	free(root);
	free(parent);
	free(kind);
	free(exe_dir);
	free(d.examples);
	demo_workload_free(&d.w);
	return rc;
}

const struct tc_command cmd_demo_entry = {
	.name = "demo",
	.summary = "tune the demo workload through all seven phases, end to end",
	.usage = "usage: tunectl demo [--artifact-root DIR] [--optional-mode {none,multistream,source-range,both}]\n"
	    "                    [--workload {cpu,gpu}] [--profile {standard,quick}] [--resume] [--no-html]\n"
	    "                    [--quiet]\n"
	    "       tunectl demo --pipeline pypto [--artifact-root DIR]\n",
	.help = "\nRun a complete evidence-gated SuperKernel tuning session on the demo workload\n"
	    "(examples/workload, or examples/gpu-workload with --workload gpu): one fresh\n"
	    "worker per phase (examples/workers) through the plain-script agent host,\n"
	    "intake, S0, Stage A, Stage O, BASE, the optional experiments and Final; then\n"
	    "verify the session and write FINAL_E2E_REPORT.md, its English rendering\n"
	    "FINAL_E2E_REPORT.en.md and report.html (tunectl verify checks all three).\n"
	    "Each demo gets a fresh directory under the artifact root; the closing lines\n"
	    "say where, and which gate refused when one did.\n"
	    "\n"
	    "The workers' gate policy, frozen in intake/freeze.json, is for a loaded\n"
	    "machine: a candidate passes when the bootstrap 95% interval of its\n"
	    "improvement excludes 0 and clears the threshold (--decide-by ci), such an\n"
	    "interval waives the baseline-spread and stddev checks (--stability\n"
	    "relative), and a series whose runs spread by more than 50% is measured\n"
	    "again (--max-spread-pct 50); a regression is still refused\n"
	    "(docs/measurement.md).  Every comparison (Stage A, each option trial, the\n"
	    "Final) measures its baseline again beside the candidates, one run of each\n"
	    "in turn (bench ab: A B A B ...), so a neighbour that starts or stops\n"
	    "halfway slows both sides alike.\n"
	    "\n"
	    "  --artifact-root DIR   parent of the demo's session directories (default\n"
	    "                        tunectl-demo)\n"
	    "  --optional-mode MODE  the optional experiments: none (default), multistream,\n"
	    "                        source-range or both\n"
	    "  --workload cpu|gpu    the CPU workload (default) or the CUDA one\n"
	    "  --profile standard|quick\n"
	    "                        standard: 600 decode steps a run; quick: shorter runs\n"
	    "                        for tests, weaker evidence\n"
	    "  --resume              continue the latest session under the artifact root\n"
	    "  --no-html             skip report.html\n"
	    "  --quiet               no progress lines\n"
	    "  --pipeline pypto      run the PyPTO-Pro five-stage pipeline on the example\n"
	    "                        operator instead\n",
	.run = cmd_demo,
};
