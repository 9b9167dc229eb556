/*
 * cmd_tune.c - "tunectl tune SPEC": tune a program described by a
 * workload spec (tune.yaml).  --dry-run reads the spec and prints the
 * plan a session would freeze (text, or JSON with --json).  Without it,
 * tune runs the seven-phase evidence-gated session on the spec: a fresh
 * run directory under --session-dir (the spec, its frozen plan and the
 * session), one generic phase worker per phase (share/workers) through
 * the plain-script host, or through an agent host (the adapters of
 * examples/hosts, whose agents are told by "tunectl prompt" to run the
 * worker), then verify and the HTML report, as the demo does for its own
 * workload.  --prepare is the workers' door to the spec: one
 * configuration checked, built through the cache and its commands
 * expanded; --task/--result run the generic worker of a phase task (what
 * an agent is told to run).
 */
#include <errno.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "tunectl/evidence.h"
#include "tunectl/fileio.h"
#include "tunectl/host.h"
#include "tunectl/html.h"
#include "tunectl/path.h"
#include "tunectl/phase.h"
#include "tunectl/refusal.h"
#include "tunectl/session.h"
#include "tunectl/stats.h"
#include "tunectl/tune.h"

struct tune_opts {
	const char *spec_path;
	const char *parent;	/* --session-dir */
	const char *host;
	bool resume;
};

/* A fresh run directory: the spec's bytes, its frozen plan and the record
 * --resume checks the spec against. */
static char *
start_run(const struct tune_opts *o, const tc_tune_spec *spec,
    const tc_json *plan, tc_error *err)
{
	/* The reader allows letters, digits, '_', '.' and '-' in a name. */
	char *root = tc_cli_new_run_dir(o->parent, spec->name, err);
	char *dir = NULL, *path = NULL, *text = NULL, *abs_spec = NULL;
	tc_json *rec = NULL;
	size_t len;
	int rc = -1;

	if (root == NULL)
		return NULL;
	dir = tc_xasprintf("%s/tune", root);
	if (tc_mkdirs(dir, err) != 0 ||
	    (text = tc_read_file(o->spec_path, TC_TUNE_MAX_BYTES, &len,
	    err)) == NULL ||
	    (abs_spec = tc_path_resolve(o->spec_path, err)) == NULL)
		goto out;
	path = tc_xasprintf("%s/spec.yaml", dir);
	if (tc_write_atomic(path, text, len, TC_WRITE_EXCLUSIVE, err) != 0)
		goto out;
	free(path);
	path = tc_xasprintf("%s/plan.json", dir);
	if (tc_write_json(path, plan, TC_WRITE_EXCLUSIVE, err) != 0)
		goto out;
	rec = tc_json_new_object();
	tc_json_object_set_string(rec, "schema_version", "tunectl-tune-run-v1");
	tc_json_object_set_string(rec, "spec_path", abs_spec);
	tc_json_object_set_string(rec, "spec_sha256", spec->sha256);
	tc_json_object_set_string(rec, "host", o->host);
	free(path);
	path = tc_xasprintf("%s/%s", root, TC_TUNE_RECORD);
	rc = tc_write_json(path, rec, TC_WRITE_EXCLUSIVE, err);
out:
	tc_json_free(rec);
	free(abs_spec);
	free(text);
	free(path);
	free(dir);
	if (rc != 0) {
		free(root);
		return NULL;
	}
	return root;
}

/* The latest run directory under the parent, if it tunes this very spec. */
static char *
resume_run(const struct tune_opts *o, const tc_tune_spec *spec, tc_error *err)
{
	char *root = tc_cli_latest_run_dir(o->parent);
	char *path;
	tc_json *rec;
	const char *sha;

	if (root == NULL) {
		tc_error_set(err, "nothing to resume under %s", o->parent);
		return NULL;
	}
	path = tc_xasprintf("%s/%s", root, TC_TUNE_RECORD);
	rec = tc_json_parse_file(path, err);
	sha = tc_json_get_string(rec, "spec_sha256");
	if (rec != NULL && (sha == NULL || strcmp(sha, spec->sha256) != 0))
		tc_error_set(err, "%s tunes a spec with sha256 %.12s, and %s "
		    "now has %.12s: a changed spec is a new session (run tune "
		    "without --resume)", root, sha != NULL ? sha : "?",
		    o->spec_path, spec->sha256);
	if (rec == NULL || sha == NULL || strcmp(sha, spec->sha256) != 0) {
		free(root);
		root = NULL;
	}
	tc_json_free(rec);
	free(path);
	return root;
}

/* The host's stderr of the newest attempt under root/dispatches; NULL
 * when there is none. */
static char *
newest_attempt_log(const char *root)
{
	char *dir = tc_xasprintf("%s/dispatches", root), *best = NULL;
	DIR *d = opendir(dir);
	struct dirent *e;
	struct timespec best_t = { 0, 0 };

	while (d != NULL && (e = readdir(d)) != NULL) {
		char *p = tc_xasprintf("%s/%s/runner.stderr.log", dir, e->d_name);
		struct stat st;

		if (e->d_name[0] != '.' && stat(p, &st) == 0 &&
		    (st.st_mtim.tv_sec > best_t.tv_sec ||
		    (st.st_mtim.tv_sec == best_t.tv_sec &&
		    st.st_mtim.tv_nsec >= best_t.tv_nsec))) {
			best_t = st.st_mtim;
			free(best);
			best = p;
		} else {
			free(p);
		}
	}
	if (d != NULL)
		closedir(d);
	free(dir);
	return best;
}

/* A worker that stopped on a failed run says which run, in a line
 * "tune worker PHASE: ..." of its stderr: show it on the console; a host
 * that stopped before any worker ran (an agent CLI missing) says why in
 * its last line. */
static void
show_worker_error(const char *root)
{
	char *log = newest_attempt_log(root);
	size_t len;
	char *text = log != NULL ? tc_read_file(log, 1u << 20, &len, NULL) : NULL;
	const char *line = text, *last = NULL;
	int last_n = 0;
	bool worker = false;

	for (; line != NULL && *line != '\0'; ) {
		const char *nl = strchr(line, '\n');
		int n = nl != NULL ? (int)(nl - line) : (int)strlen(line);

		if (strncmp(line, "tune worker ", 12) == 0) {
			fprintf(stderr, "tune: %.*s\n", n, line);
			worker = true;
		}
		if (n > 0) {
			last = line;
			last_n = n;
		}
		line = nl != NULL ? nl + 1 : NULL;
	}
	if (!worker && last != NULL)
		fprintf(stderr, "tune: the host's last words: %.*s\n", last_n,
		    last);
	if (log != NULL)
		fprintf(stderr, "tune: the worker's log: %s\n", log);
	free(text);
	free(log);
}

/* Which gate refused, with its numbers, when the session did not end
 * beneficial. */
static void
explain_refusal(const char *session_path)
{
	tc_session *s = NULL;
	tc_buf why = TC_BUF_INIT;
	const char *step = NULL;

	if (tc_session_load(session_path, 0, &s, NULL) == 0 &&
	    tc_report_refusal(s, &why, &step) != TC_REFUSAL_NONE) {
		fprintf(stderr, "tune: no configuration was admitted; a gate "
		    "refused the evidence:\n");
		tc_cli_print_lines("tune:   ", why.data);
		fprintf(stderr, "tune: a busy machine makes timings noisy: see "
		    "docs/your-workload.md, \"When a gate refuses\"\n");
	}
	tc_buf_free(&why);
	tc_session_free(s);
}

/* The outcome in two lines: the classification and the winner. */
static void
summarise(const char *root, const char *session_path, const tc_json *session,
    const tc_json *plan)
{
	const tc_json *metric = tc_json_get(plan, "metric");
	const char *dir = tc_json_get_string(metric, "direction");
	char *path = tc_xasprintf("%s/ledger.json", root);
	tc_json *ledger = tc_json_parse_file(path, NULL);
	const tc_json *fe = tc_json_get(ledger, "final_e2e");
	const char *cls = tc_json_get_string(fe, "classification");
	double imp;

	fprintf(stderr, "\ntune: session %s is %s\n",
	    tc_json_get_string(session, "session_id"),
	    tc_json_get_string(session, "status"));
	if (cls == NULL)
		fprintf(stderr, "tune: no final_e2e was recorded\n");
	else if (tc_json_number(tc_json_get(fe, "improvement_pct"), &imp) &&
	    dir != NULL && strcmp(dir, "higher") == 0)
		/* the runs logged 1/value: the figure grew by 1/(1 - imp) */
		fprintf(stderr, "tune: final clean E2E: %s, %+.2f%% (%s, higher "
		    "is better; its reciprocal, which the gates compare, "
		    "improved %+.2f%%) for %s\ntune: %s\n", cls,
		    tc_reciprocal_gain_pct(imp),
		    tc_json_get_string(metric, "unit"), imp,
		    tc_json_get_string(fe, "scope_strategy"),
		    tc_json_get_string(fe, "reason_zh"));
	else if (tc_json_number(tc_json_get(fe, "improvement_pct"), &imp))
		/* the second line is the ledger's reason: under a rule beyond
		 * the reference's (decide_by ci, stability relative) it names
		 * the rule */
		fprintf(stderr, "tune: final clean E2E: %s, %+.2f%% for %s\n"
		    "tune: %s\n", cls, imp, tc_json_get_string(fe,
		    "scope_strategy"), tc_json_get_string(fe, "reason_zh"));
	else
		fprintf(stderr, "tune: final clean E2E: %s: %s\n", cls,
		    tc_json_get_string(fe, "reason_zh"));
	if (cls != NULL && strcmp(cls, "beneficial") != 0)
		explain_refusal(session_path);
	tc_json_free(ledger);
	free(path);
}

/* What the generic workers read (share/workers/tunelib.py): set here for
 * the session, and again by --task for a worker an agent starts, whose
 * environment the agent CLI may not pass on.  A lease root or device list
 * already set is kept. */
static void
worker_env(const char *workers, const char *spec, const char *plan,
    const char *leases)
{
	setenv("TUNECTL", tc_self_exe(), 1);
	setenv("TUNECTL_WORKERS", workers, 1);
	setenv("TUNECTL_TUNE_SPEC", spec, 1);
	setenv("TUNECTL_TUNE_PLAN", plan, 1);
	setenv("TUNECTL_LEASE_ROOT", leases, 0);
	setenv("TUNECTL_DEVICE_IDS", "0", 0);
	/* An installed share/ may be read-only, and the tree stays clean. */
	setenv("PYTHONDONTWRITEBYTECODE", "1", 1);
}

/* The host adapter that runs each phase: the plain-script host beside the
 * workers, or examples/hosts/<agent>/host.sh. */
static char *
host_adapter(const char *host, const char *workers, tc_error *err)
{
	char *exe_dir, *examples, *path;

	if (strcmp(host, "script") == 0)
		return tc_xasprintf("%s/host.sh", workers);
	exe_dir = tc_path_dirname(tc_self_exe());
	examples = tc_cli_examples_dir(exe_dir);
	free(exe_dir);
	if (examples == NULL) {
		tc_error_set(err, "--host %s: cannot find the agent host adapters "
		    "(examples/hosts) next to %s", host, tc_self_exe());
		return NULL;
	}
	path = tc_xasprintf("%s/hosts/%s/host.sh", examples, host);
	free(examples);
	return path;
}

static int
run_session(const struct tune_opts *o, const tc_json *plan_doc,
    const char *root, const char *parent, const char *workers)
{
	tc_error err = TC_ERROR_INIT;
	char *session = tc_xasprintf("%s/auto-tune-session.json", root);
	char *host = host_adapter(o->host, workers, &err);
	char *leases = tc_xasprintf("%s/leases", parent);
	char *plan = tc_xasprintf("%s/tune/plan.json", root);
	char *html = tc_xasprintf("%s/report.html", root);
	char *spec = tc_path_resolve(o->spec_path, NULL);
	char *argv_host[] = { host, NULL };
	tc_runner runner = { argv_host, 1 };
	tc_run_next_opts ro = { 3600.0, 10.0, tc_self_exe() };
	/* One attempt a step: a run that failed fails again; the user fixes
	 * the cause and resumes. */
	const struct tc_cli_drive drive = { .label = "tune", .session = session,
	    .root = root, .mode = "none", .resume = o->resume,
	    .runner = &runner, .ro = &ro, .max_attempts = 1 };
	tc_json *done = NULL;
	int rc = TC_EXIT_FAIL;
	double most;

	/* A phase may take as long as every run of the plan to its timeout
	 * (a hanging run is ended by its own timeout long before). */
	if (tc_json_number(tc_json_get(tc_json_get(plan_doc, "estimate"),
	    "seconds_at_most"), &most) && most + 600 > ro.timeout_s)
		ro.timeout_s = most + 600;

	if (host == NULL)
		goto out;
	worker_env(workers, spec != NULL ? spec : o->spec_path, plan, leases);
	setenv("TUNECTL_LEASE_ROOT", leases, 1);
	/* codex works in a sandbox that writes only under the artifact root:
	 * the leases are beside it */
	if (strcmp(o->host, "codex") == 0)
		setenv("CODEX_ADD_DIRS", leases, 0);
	if (tc_cli_write_runner(parent, host, &err) != 0)
		goto out;
	if ((done = tc_cli_drive_session(&drive, &err)) == NULL)
		goto out;
	summarise(root, session, done, plan_doc);
	if (tc_cli_finish_reports("tune", root, session, html, &err) != 0)
		goto out;
	rc = TC_EXIT_OK;
out:
	if (rc != TC_EXIT_OK) {
		fprintf(stderr, "tune: %s\n", tc_error_msg(&err));
		show_worker_error(root);
		fprintf(stderr, "tune: nothing of the failed attempt was sealed; "
		    "fix the cause and continue with: tunectl tune %s --resume "
		    "--session-dir %s\n", o->spec_path, parent);
	}
	tc_error_clear(&err);
	tc_json_free(done);
	free(session);
	free(host);
	free(leases);
	free(plan);
	free(html);
	free(spec);
	return rc;
}

static int
tune_session(const struct tune_opts *o, const tc_tune_spec *spec,
    const tc_json *plan)
{
	tc_error err = TC_ERROR_INIT;
	char *workers = NULL, *root = NULL, *parent = NULL;
	int rc;

	/* The phase rules, not this version: a session reaches Stage O only
	 * when Stage A seals accepted, and strict rule 4 wants a screening
	 * gate that selects a variant for that
	 * (docs/spec/controller.md "When a step short-circuits"). */
	if (spec->nvariants < 2)
		return tc_die("tune: %s has %zu variant(s): Stage A screens the "
		    "variants besides the baseline's against S0, and the "
		    "session goes on to Stage O only when Stage A is accepted "
		    "with a screening gate that selects one of them; with "
		    "nothing to screen every session would end not_run after "
		    "Stage A.  Give a second variant (an option parameter can "
		    "move into the variants' params)", o->spec_path,
		    spec->nvariants);
	if ((workers = tc_share_dir(tc_self_exe(), "workers", &err)) == NULL) {
		rc = tc_die("tune: %s", tc_error_msg(&err));
		goto out;
	}
	root = o->resume ? resume_run(o, spec, &err) : start_run(o, spec, plan,
	    &err);
	if (root == NULL || (parent = tc_path_resolve(o->parent, &err)) == NULL) {
		rc = tc_die("tune: %s", tc_error_msg(&err));
		goto out;
	}
	rc = run_session(o, plan, root, parent, workers);
out:
	tc_error_clear(&err);
	free(workers);
	free(root);
	free(parent);
	return rc;
}

/* --task T --result R: the generic worker of the task's phase, for the
 * spec its session tunes (an agent host's worker runs this). */
static int
tune_work(const tc_tune_spec *spec, const char *task_path, const char *result)
{
	tc_error err = TC_ERROR_INIT;
	tc_json *task = tc_json_parse_file(task_path, &err), *rec = NULL;
	const char *root = tc_json_get_string(task, "artifact_root");
	const char *phase = tc_json_get_string(tc_json_get(task, "step"),
	    "phase");
	const char *sha;
	char *workers = NULL, *worker = NULL, *path = NULL, *spec_abs = NULL;
	char *parent = NULL, *leases = NULL, *plan = NULL;
	int rc = TC_EXIT_FAIL;

	if (task != NULL && (root == NULL || phase == NULL))
		tc_error_set(&err, "%s is not a phase task (no artifact_root or "
		    "step.phase)", task_path);
	if (root == NULL || phase == NULL)
		goto out;
	path = tc_xasprintf("%s/%s", root, TC_TUNE_RECORD);
	if ((rec = tc_json_parse_file(path, &err)) == NULL)
		goto out;
	sha = tc_json_get_string(rec, "spec_sha256");
	if (sha == NULL || strcmp(sha, spec->sha256) != 0) {
		tc_error_set(&err, "the session of %s tunes a spec with sha256 "
		    "%.12s, not %s (%.12s)", task_path, sha != NULL ? sha : "?",
		    spec->path, spec->sha256);
		goto out;
	}
	if ((workers = tc_share_dir(tc_self_exe(), "workers", &err)) == NULL ||
	    (spec_abs = tc_path_resolve(spec->path, &err)) == NULL)
		goto out;
	worker = tc_xasprintf("%s/%s", workers, phase);
	if (access(worker, X_OK) != 0) {
		tc_error_set(&err, "no generic worker for phase %s at %s", phase,
		    worker);
		goto out;
	}
	parent = tc_path_dirname(root);
	leases = tc_xasprintf("%s/leases", parent);
	plan = tc_xasprintf("%s/tune/plan.json", root);
	worker_env(workers, spec_abs, plan, leases);
	fflush(NULL);
	execl(worker, worker, "--task", task_path, "--result", result,
	    (char *)NULL);
	tc_error_set(&err, "cannot run %s: %s", worker, strerror(errno));
out:
	rc = tc_die("tune: %s", tc_error_msg(&err));
	tc_error_clear(&err);
	tc_json_free(task);
	tc_json_free(rec);
	free(workers);
	free(worker);
	free(path);
	free(spec_abs);
	free(parent);
	free(leases);
	free(plan);
	return rc;
}

/* --prepare CONF: one configuration, built and expanded, on stdout. */
static int
tune_prepare(const tc_tune_spec *spec, const char *conf_path,
    const char *cache, const char *run_dir)
{
	tc_error err = TC_ERROR_INIT;
	tc_json *conf = tc_json_parse_file(conf_path, &err), *out = NULL;
	char *abs_cache = NULL;

	/* The build runs in the spec's directory: the cache must be absolute. */
	if (conf != NULL && tc_mkdirs(cache, &err) == 0 &&
	    (abs_cache = tc_path_resolve(cache, &err)) != NULL)
		out = tc_tune_prepare(spec, conf, abs_cache, run_dir, &err);
	tc_json_free(conf);
	free(abs_cache);
	return tc_cli_reply_or_die(out, &err);
}

static int
cmd_tune(const struct tc_command *cmd, int argc, char **argv)
{
	const char *prepare = NULL, *cache = NULL, *run_dir = NULL;
	const char *task = NULL, *result = NULL;
	struct tune_opts o = { NULL, "tunectl-tune", "script", false };
	bool dry_run = false, json = false;
	const struct tc_option opts[] = {
		{ "--dry-run", TC_OPT_FLAG, &dry_run, false, NULL },
		{ "--json", TC_OPT_FLAG, &json, false, NULL },
		{ "--session-dir", TC_OPT_STRING, &o.parent, false, NULL },
		{ "--host", TC_OPT_STRING, &o.host, false, NULL },
		{ "--resume", TC_OPT_FLAG, &o.resume, false, NULL },
		{ "--prepare", TC_OPT_STRING, &prepare, false, NULL },
		{ "--cache", TC_OPT_STRING, &cache, false, NULL },
		{ "--run-dir", TC_OPT_STRING, &run_dir, false, NULL },
		{ "--task", TC_OPT_STRING, &task, false, NULL },
		{ "--result", TC_OPT_STRING, &result, false, NULL },
		{ NULL, 0, NULL, false, NULL }
	};
	struct tc_parse_result res;
	tc_error err = TC_ERROR_INIT;
	tc_tune_spec *spec = NULL;
	tc_json *plan = NULL;
	int rc;

	if ((rc = tc_opts_parse(cmd, argc, argv, opts, &res)) != 0)
		return rc < 0 ? TC_EXIT_OK : rc;
	if (res.positional.len != 1) {
		tc_parse_result_free(&res);
		return tc_usage_error(cmd, res.positional.len == 0 ?
		    "the following arguments are required: SPEC" :
		    "exactly one SPEC, got more");
	}
	if (json && !dry_run) {
		tc_parse_result_free(&res);
		return tc_usage_error(cmd, "--json goes with --dry-run");
	}
	if ((task != NULL) != (result != NULL)) {
		tc_parse_result_free(&res);
		return tc_usage_error(cmd, "--task and --result go together");
	}
	if ((prepare != NULL) != (cache != NULL)) {
		tc_parse_result_free(&res);
		return tc_usage_error(cmd, "--prepare and --cache go together");
	}
	if (strcmp(o.host, "script") != 0 && strcmp(o.host, "claude") != 0 &&
	    strcmp(o.host, "codex") != 0 && strcmp(o.host, "opencode") != 0) {
		tc_parse_result_free(&res);
		return tc_usage_error(cmd, "argument --host: invalid choice: "
		    "'%s' (choose from 'script', 'claude', 'codex', "
		    "'opencode')", o.host);
	}
	o.spec_path = res.positional.items[0];
	if (tc_tune_spec_load(o.spec_path, &spec, &err) != 0) {
		rc = tc_die("tune: %s", tc_error_msg(&err));
		goto out;
	}
	if (prepare != NULL) {
		rc = tune_prepare(spec, prepare, cache, run_dir);
		goto out;
	}
	if (task != NULL) {
		rc = tune_work(spec, task, result);
		goto out;
	}
	if ((plan = tc_tune_plan(spec, &err)) == NULL) {
		rc = tc_die("tune: %s", tc_error_msg(&err));
		goto out;
	}
	if (!dry_run) {
		rc = tune_session(&o, spec, plan);
	} else if (json) {
		rc = tc_print_json(plan);
	} else {
		tc_buf b = TC_BUF_INIT;

		tc_tune_plan_text(plan, &b);
		fwrite(b.data, 1, b.len, stdout);
		tc_buf_free(&b);
		rc = fflush(stdout) == 0 ? TC_EXIT_OK : TC_EXIT_FAIL;
	}
out:
	tc_json_free(plan);
	tc_tune_spec_free(spec);
	tc_error_clear(&err);
	tc_parse_result_free(&res);
	return rc;
}

const struct tc_command cmd_tune_entry = {
	.name = "tune",
	.summary = "tune a program described by a workload spec (tune.yaml) through the seven phases",
	.usage = "usage: tunectl tune SPEC [--session-dir DIR] [--host script|claude|codex|opencode] [--resume]\n"
	    "       tunectl tune --dry-run [--json] SPEC\n"
	    "       tunectl tune SPEC --prepare CONFIG --cache DIR [--run-dir TEXT]\n"
	    "       tunectl tune SPEC --task TASK --result RESULT\n",
	.help = "\nRun a complete evidence-gated tuning session on the program the workload\n"
	    "spec SPEC describes (YAML, version 1; docs/workload-spec.md, and the worked\n"
	    "example docs/your-workload.md): intake, the baseline S0, Stage A screening\n"
	    "the variants, Stage O trying the option values one at a time (or, with\n"
	    "options.search exhaustive, every allowed point, at most 256), BASE (the\n"
	    "spec's profile command on the winner, or a record that none was asked),\n"
	    "the optional experiments (none) and the Final clean comparison against S0,\n"
	    "each phase done by a fresh generic worker (share/workers) through the\n"
	    "plain-script host or an agent host, every run under a device lease, every gate report\n"
	    "recomputed when its phase is sealed.  The session is then verified and\n"
	    "report.html and FINAL_E2E_REPORT.en.md written beside the reference's\n"
	    "FINAL_E2E_REPORT.md (tunectl verify checks all three).  A variant that\n"
	    "fails the check is never timed.\n"
	    "A session needs at least two variants: Stage O runs only after Stage A\n"
	    "selects one (--dry-run plans a spec with fewer).  A metric better\n"
	    "higher (metric.direction: higher) is logged as its reciprocal, which the\n"
	    "gates compare; the reports give it in its own unit.\n"
	    "\n"
	    "  --session-dir DIR  parent of the run directories (default tunectl-tune);\n"
	    "                     each session gets DIR/<name>-<UTC time>, linked as\n"
	    "                     DIR/latest\n"
	    "  --host script|claude|codex|opencode\n"
	    "                     who runs each phase: the plain-script host (default)\n"
	    "                     starts the phase's generic worker; an agent host\n"
	    "                     (the adapter examples/hosts/NAME/host.sh, the\n"
	    "                     agent's CLI on PATH) starts one fresh agent per\n"
	    "                     phase, which 'tunectl prompt' tells to run that\n"
	    "                     worker through 'tunectl tune SPEC --task ...'\n"
	    "  --resume           continue the latest session under DIR (a run that\n"
	    "                     failed or hung stops the session with its run\n"
	    "                     directory named; fix the cause and resume)\n"
	    "  --dry-run          print the plan a session would freeze and run nothing:\n"
	    "                     the variants, the option matrix after the\n"
	    "                     constraints, the runs of every phase, the builds and\n"
	    "                     a time estimate\n"
	    "  --json             with --dry-run: the plan as JSON (tunectl-tune-plan-v1)\n"
	    "  --prepare CONFIG --cache DIR\n"
	    "                     the workers' door to the spec: CONFIG is a JSON file\n"
	    "                     {\"variant\": NAME, \"params\": {NAME: VALUE}}; print it\n"
	    "                     checked against the spec and the constraints, built\n"
	    "                     once in DIR (the build cache) and its run, check and\n"
	    "                     profile commands expanded (tunectl-tune-prepared-v1);\n"
	    "                     --run-dir TEXT is what {run_dir} becomes\n"
	    "  --task TASK --result RESULT\n"
	    "                     run the generic worker of the phase task TASK for\n"
	    "                     SPEC (the spec its session tunes), writing the phase\n"
	    "                     result RESULT: what an agent host's worker runs\n"
	    "\n"
	    "A spec with an unknown key, a wrong type, a duplicate key, a template\n"
	    "naming a missing parameter or a baseline outside the constraints is\n"
	    "refused with one message naming the file and line (exit 1).\n",
	.run = cmd_tune,
};
