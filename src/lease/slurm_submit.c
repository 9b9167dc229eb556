/*
 * slurm_submit.c - "tunectl lease run --via slurm": validate the request
 * with the local runner's messages, stage the step spec beside the
 * manifest, submit the step with srun holding the requested GRES, and
 * watch it: the lease timeout bounds the wait for an allocation, the
 * command timeout (counted from the step's start) ends the job with
 * scancel, and a SIGTERM/SIGINT/SIGHUP to tunectl cancels the job too.
 * Then the final job state is asked of scontrol and the manifest written
 * (slurm_record.c).
 */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "lease_internal.h"
#include "slurm_internal.h"
#include "tunectl/buf.h"
#include "tunectl/fileio.h"
#include "tunectl/path.h"
#include "tunectl/sha256.h"
#include "tunectl/slurm.h"
#include "tunectl/timeutil.h"

#define TICK_MS		50
#define SRUN_KILL_AFTER	60.0	/* s after a cancel before srun is killed */

static void
plan_free(struct tc_slurm__plan *p)
{
	free(p->manifest);
	free(p->stdout_log);
	free(p->stderr_log);
	free(p->slurm_log);
	free(p->stage);
	free(p->cwd);
	free(p->lease_root);
	free(p->exe);
	free(p->gres_name);
	free(p->gres_type);
	free(p->job_name);
	free(p->comment);
	free(p->spec_text);
}

static void
watch_free(struct tc_slurm__watch *w)
{
	tc_envp_free(w->srun_argv);
	free(w->job_id);
	tc_json_free(w->job);
	tc_json_free(w->step);
	free(w->step_error);
	free(w->srun_error);
	free(w->scontrol);
}

static bool
in_path(const char *prog)
{
	const char *path = getenv("PATH");
	char *copy, *dir, *save = NULL;
	bool found = false;

	if (path == NULL)
		path = "/usr/bin:/bin";
	copy = tc_xstrdup(path);
	for (dir = strtok_r(copy, ":", &save); dir != NULL && !found;
	    dir = strtok_r(NULL, ":", &save)) {
		char *full = tc_path_join(*dir != '\0' ? dir : ".", prog);

		found = access(full, X_OK) == 0;
		free(full);
	}
	free(copy);
	return found;
}

static tc_json *
spec_json(const tc_slurm_request *req, const struct tc_slurm__plan *p)
{
	const tc_lease_request *lr = &req->lease;
	tc_json *s = tc_json_new_object(), *argv = tc_json_new_array();
	char *const *a;

	tc_json_object_set_string(s, "schema_version", TC_SLURM_STEP_SCHEMA);
	for (a = lr->argv; *a != NULL; a++)
		tc_json_array_push(argv, tc_json_new_string(*a));
	tc_json_object_set(s, "argv", argv);
	tc_json_object_set_string(s, "lease_root", p->lease_root);
	tc_json_object_set_string(s, "cwd", p->cwd);
	tc_json_object_set_string(s, "command_id", p->command_id);
	tc_json_object_set(s, "timeout_seconds", tc_json_new_float(lr->timeout_s));
	tc_json_object_set(s, "lease_timeout_seconds", tc_json_new_float(
	    lr->has_lease_timeout ? lr->lease_timeout_s : lr->timeout_s));
	tc_json_object_set(s, "grace_seconds", tc_json_new_float(p->grace_s));
	tc_json_object_set_string(s, "gres_name", p->gres_name);
	tc_json_object_set_int(s, "gres_count", p->gres_count);
	tc_json_object_set(s, "environment", lr->environment != NULL ?
	    tc_json_clone(lr->environment) : tc_json_new_null());
	tc_json_object_set_string(s, "stage", "");	/* set once created */
	return s;
}

/* The Slurm side: partition, extra arguments, the tunectl the step runs
 * and srun itself. */
static int
check_slurm_side(const tc_slurm_request *req, tc_error *err)
{
	char *const *a;

	if (req->partition != NULL && req->partition[0] == '\0') {
		tc_error_set(err, "Slurm partition name is empty");
		return -1;
	}
	for (a = req->slurm_args; a != NULL && *a != NULL; a++)
		if ((*a)[0] == '\0') {
			tc_error_set(err, "Slurm arguments must be non-empty");
			return -1;
		}
	if (req->program == NULL || req->program[0] != '/' ||
	    !tc_is_regular_file(req->program)) {
		tc_error_set(err, "the tunectl program for the Slurm step must "
		    "be an existing absolute file: %s",
		    req->program != NULL ? req->program : "(none)");
		return -1;
	}
	if (!in_path("srun")) {
		tc_error_set(err, "srun is not on PATH: --via slurm needs "
		    "Slurm's client programs");
		return -1;
	}
	return 0;
}

static int
validate(const tc_slurm_request *req, struct tc_slurm__plan *p, tc_error *err)
{
	const tc_lease_request *lr = &req->lease;
	char **env = NULL, hex[65];
	tc_json *spec;
	double lease_timeout;

	memset(p, 0, sizeof(*p));
	if (tc_lease__check_argv(lr->argv, err) != 0 ||
	    tc_lease__check_executable(lr->argv[0], err) != 0)
		return -1;
	p->gres = req->gres != NULL ? req->gres : TC_SLURM_DEFAULT_GRES;
	if (tc_slurm_gres_parse(p->gres, &p->gres_name, &p->gres_type,
	    &p->gres_count, err) != 0)
		return -1;
	if (tc_lease__check_run_limits(lr, &lease_timeout, err) != 0)
		return -1;
	if (tc_lease__claim_outputs(lr->manifest_out, &p->manifest,
	    &p->stdout_log, &p->stderr_log, ".slurm.log", &p->slurm_log,
	    err) != 0)
		return -1;
	if (lr->environment != NULL) {
		if ((env = tc_lease_env_from_json(lr->environment, err)) == NULL)
			return -1;
		tc_envp_free(env);
		p->explicit_env = true;
	}
	p->command_id = lr->command_id != NULL ? lr->command_id :
	    TC_LEASE_DEFAULT_COMMAND_ID;
	if (lr->lease_root == NULL || lr->lease_root[0] == '\0') {
		tc_error_set(err, "lease root path is empty");
		return -1;
	}
	if (check_slurm_side(req, err) != 0)
		return -1;
	if ((p->lease_root = tc_path_resolve(lr->lease_root, err)) == NULL ||
	    (p->cwd = tc_path_resolve(lr->cwd, err)) == NULL ||
	    (p->exe = tc_path_resolve(lr->argv[0], err)) == NULL)
		return -1;
	if (tc_sha256_file(p->exe, hex, NULL, err) != 0)
		return -1;
	memcpy(p->fingerprint, "sha256:", 7);
	memcpy(p->fingerprint + 7, hex, 65);
	p->grace_s = lr->grace_s > 0 ? lr->grace_s :
	    (lr->timeout_s < 5 ? lr->timeout_s : 5);
	/* Slurm's own limit is a backstop behind tunectl's scancel: a
	 * minute past the timeout, in Slurm's whole minutes. */
	p->time_limit_min = (long)ceil(lr->timeout_s / 60.0) + 1;
	p->job_name = tc_xasprintf("%s%s", TC_SLURM_JOB_PREFIX, p->command_id);
	p->comment = tc_xasprintf("tunectl lease run: %s", p->manifest);
	/* Serialise the spec now: a command that JSON cannot carry is
	 * refused before anything is written. */
	spec = spec_json(req, p);
	p->spec_text = tc_json_pretty(spec, &p->spec_len, err);
	tc_json_free(spec);
	if (p->spec_text == NULL)
		return -1;
	return 0;
}

/* Create the stage directory and write the spec with its path in it. */
static int
stage(struct tc_slurm__plan *p, tc_error *err)
{
	char *dir = tc_path_dirname(p->manifest), *tmpl, *path;
	tc_json *spec;
	int rc;

	if (tc_mkdirs(dir, err) != 0) {
		free(dir);
		return -1;
	}
	free(dir);
	tmpl = tc_lease__beside(p->manifest, ".", ".slurm.XXXXXX");
	if (mkdtemp(tmpl) == NULL) {
		tc_error_os(err, errno, tmpl);
		free(tmpl);
		return -1;
	}
	p->stage = tmpl;
	if ((spec = tc_json_parse(p->spec_text, p->spec_len, err)) == NULL)
		return -1;
	tc_json_object_set_string(spec, "stage", p->stage);
	path = tc_path_join(p->stage, TC_SLURM_STAGE_SPEC);
	rc = tc_write_json(path, spec, TC_WRITE_EXCLUSIVE, err);
	free(path);
	tc_json_free(spec);
	return rc;
}

static void
push(char ***argv, size_t *n, char *s)
{
	*argv = tc_xrealloc(*argv, (*n + 2) * sizeof(**argv));
	(*argv)[(*n)++] = s;
	(*argv)[*n] = NULL;
}

static char **
srun_argv(const tc_slurm_request *req, const struct tc_slurm__plan *p)
{
	char **argv = NULL;
	char *const *a;
	size_t n = 0;

	push(&argv, &n, tc_xstrdup("srun"));
	push(&argv, &n, tc_xasprintf("--job-name=%s", p->job_name));
	push(&argv, &n, tc_xasprintf("--comment=%s", p->comment));
	push(&argv, &n, tc_xstrdup("--nodes=1"));
	push(&argv, &n, tc_xstrdup("--ntasks=1"));
	push(&argv, &n, tc_xasprintf("--gres=%s", p->gres));
	push(&argv, &n, tc_xasprintf("--time=%ld", p->time_limit_min));
	push(&argv, &n, tc_xasprintf("--chdir=%s", p->cwd));
	push(&argv, &n, tc_xstrdup("--kill-on-bad-exit=1"));
	if (req->partition != NULL)
		push(&argv, &n, tc_xasprintf("--partition=%s", req->partition));
	for (a = req->slurm_args; a != NULL && *a != NULL; a++)
		push(&argv, &n, tc_xstrdup(*a));
	push(&argv, &n, tc_xstrdup(req->program));
	push(&argv, &n, tc_xstrdup("lease"));
	push(&argv, &n, tc_xstrdup("slurm-step"));
	push(&argv, &n, tc_xstrdup("--spec"));
	push(&argv, &n, tc_path_join(p->stage, TC_SLURM_STAGE_SPEC));
	return argv;
}

/* Job id and last error from srun's own messages in the log. */
static void
scan_log(const char *log, struct tc_slurm__watch *w)
{
	static const char *const id_marks[] = {
		"srun: job ", "srun: jobid ", "Job allocation ", NULL
	};
	char *text = tc_read_file(log, 1 << 20, NULL, NULL), *line, *save = NULL;

	if (text == NULL)
		return;
	for (line = strtok_r(text, "\n", &save); line != NULL;
	    line = strtok_r(NULL, "\n", &save)) {
		const char *const *m;
		const char *p;

		for (m = id_marks; w->job_id == NULL && *m != NULL; m++) {
			p = strstr(line, *m);
			if (p != NULL && p[strlen(*m)] >= '0' &&
			    p[strlen(*m)] <= '9')
				w->job_id = tc_xstrndup(p + strlen(*m),
				    strspn(p + strlen(*m), "0123456789"));
		}
		if ((p = strstr(line, "srun: error: ")) != NULL) {
			free(w->srun_error);
			w->srun_error = tc_xstrdup(p + strlen("srun: error: "));
		}
	}
	free(text);
}

static tc_json *
read_stage(const struct tc_slurm__plan *p, const char *name)
{
	char *path = tc_path_join(p->stage, name);
	tc_json *doc = NULL;

	if (tc_path_exists(path))
		doc = tc_json_parse_file(path, NULL);
	free(path);
	if (doc != NULL && !tc_json_is(doc, TC_JSON_OBJECT)) {
		tc_json_free(doc);
		doc = NULL;
	}
	return doc;
}

/* Read job.json, the step's word that the job started; true once read. */
static bool
adopt_job(const struct tc_slurm__plan *p, struct tc_slurm__watch *w)
{
	const tc_json *id;
	int64_t v;

	if (w->job == NULL &&
	    (w->job = read_stage(p, TC_SLURM_STAGE_JOB)) == NULL)
		return false;
	id = tc_json_get(w->job, "job_id");
	if (tc_json_int64(id, &v)) {
		free(w->job_id);
		w->job_id = tc_xasprintf("%lld", (long long)v);
	} else if (tc_json_string(id) != NULL) {
		free(w->job_id);
		w->job_id = tc_xstrdup(tc_json_string(id));
	}
	return true;
}

static void
scancel(const char *job_id)
{
	char *argv[4], *out = NULL, *eout = NULL;
	tc_error e = TC_ERROR_INIT;

	if (job_id == NULL)
		return;
	argv[0] = (char *)"scancel";
	argv[1] = (char *)"--quiet";
	argv[2] = (char *)job_id;
	argv[3] = NULL;
	tc_slurm__capture(argv, 30, &out, &eout, &e);
	tc_error_clear(&e);
	free(out);
	free(eout);
}

static void
cancel(struct tc_slurm__watch *w, enum tc_slurm__cancel why, pid_t srun,
    bool started, uint64_t *kill_at)
{
	w->cancel = why;
	tc_lease_timestamp(w->cancelled_at);
	scancel(w->job_id);
	/* While no allocation is granted srun itself withdraws the request
	 * on SIGTERM; once the job runs, scancel ends it and srun follows. */
	if (!started)
		kill(srun, SIGTERM);
	*kill_at = tc_monotonic_ns() + (uint64_t)(SRUN_KILL_AFTER * 1e9);
}

/* Submit and wait for srun; fills w.  -1 only when srun cannot start. */
static int
watch(const tc_slurm_request *req, const struct tc_slurm__plan *p,
    struct tc_slurm__watch *w, tc_error *err)
{
	const tc_lease_request *lr = &req->lease;
	sigset_t sigs, old_mask;
	int log_fd, sigfd, pidfd, status = 0;
	pid_t srun;
	bool started = false, exited = false;
	uint64_t lease_deadline, run_deadline = UINT64_MAX;
	uint64_t kill_at = UINT64_MAX;
	char *job_path = tc_path_join(p->stage, TC_SLURM_STAGE_JOB);

	log_fd = open(p->slurm_log, O_WRONLY | O_CREAT | O_EXCL | O_APPEND |
	    O_NOFOLLOW | O_CLOEXEC, 0666);
	if (log_fd < 0) {
		tc_error_os(err, errno, p->slurm_log);
		free(job_path);
		return -1;
	}
	w->srun_argv = srun_argv(req, p);
	sigemptyset(&sigs);
	sigaddset(&sigs, SIGTERM);
	sigaddset(&sigs, SIGINT);
	sigaddset(&sigs, SIGHUP);
	sigprocmask(SIG_BLOCK, &sigs, &old_mask);
	sigfd = signalfd(-1, &sigs, SFD_CLOEXEC | SFD_NONBLOCK);

	tc_lease_timestamp(w->requested_at);
	w->submitted_ns = tc_slurm__now_ns();
	w->submitted_mono = tc_monotonic_ns();
	lease_deadline = tc_lease__deadline(lr->has_lease_timeout ?
	    lr->lease_timeout_s : lr->timeout_s);
	srun = tc_slurm__spawn(w->srun_argv, log_fd, err);
	close(log_fd);
	if (srun < 0) {
		if (sigfd >= 0)
			close(sigfd);
		sigprocmask(SIG_SETMASK, &old_mask, NULL);
		free(job_path);
		return -1;
	}
	pidfd = tc_lease__pidfd_open(srun);
	while (!exited) {
		uint64_t now;
		int sig;
		pid_t r = waitpid(srun, &status, WNOHANG);

		if (r == srun) {
			exited = true;
			break;
		}
		if (!started && tc_path_exists(job_path) &&
		    adopt_job(p, w)) {
			started = true;
			run_deadline = tc_lease__deadline(lr->timeout_s);
		}
		if (!started && w->job_id == NULL)
			scan_log(p->slurm_log, w);
		now = tc_monotonic_ns();
		if (w->cancel == TC_SLURM_NOT_CANCELLED) {
			if (!started && now >= lease_deadline)
				cancel(w, TC_SLURM_CANCEL_LEASE_TIMEOUT, srun,
				    started, &kill_at);
			else if (started && now >= run_deadline)
				cancel(w, TC_SLURM_CANCEL_TIMEOUT, srun, started,
				    &kill_at);
		} else if (now >= kill_at) {
			kill(srun, SIGKILL);
			kill_at = UINT64_MAX;
		}
		/* Wake at once when srun exits (pidfd) or a signal comes;
		 * otherwise tick to look for job.json and the deadlines. */
		if ((sig = tc_lease__wait_signal(sigfd, pidfd, TICK_MS)) != 0 &&
		    w->cancel == TC_SLURM_NOT_CANCELLED) {
			w->cancel_signal = sig;
			if (!started)
				scan_log(p->slurm_log, w);
			cancel(w, TC_SLURM_CANCEL_INTERRUPTED, srun, started,
			    &kill_at);
		}
	}
	w->finished_ns = tc_slurm__now_ns();
	w->ended_mono = tc_monotonic_ns();
	if (pidfd >= 0)
		close(pidfd);
	if (WIFEXITED(status))
		w->srun_status = WEXITSTATUS(status);
	else
		w->srun_status = WIFSIGNALED(status) ? -WTERMSIG(status) : -1;
	if (sigfd >= 0) {
		struct signalfd_siginfo ssi;

		while (read(sigfd, &ssi, sizeof(ssi)) == (ssize_t)sizeof(ssi))
			;
		close(sigfd);
	}
	sigprocmask(SIG_SETMASK, &old_mask, NULL);
	free(job_path);
	return 0;
}

/* The job's final record: wait (briefly) for it to leave COMPLETING. */
static void
final_job_state(struct tc_slurm__watch *w)
{
	char *argv[6], *out, *eout;
	tc_error e = TC_ERROR_INIT;
	int i;

	if (w->job_id == NULL)
		return;
	argv[0] = (char *)"scontrol";
	argv[1] = (char *)"-o";
	argv[2] = (char *)"show";
	argv[3] = (char *)"job";
	argv[4] = w->job_id;
	argv[5] = NULL;
	for (i = 0; i < 150; i++) {
		char *state;
		bool settled;

		out = eout = NULL;
		if (tc_slurm__capture(argv, 30, &out, &eout, &e) != 0) {
			tc_error_clear(&e);
			free(out);
			free(eout);
			return;
		}
		free(eout);
		state = tc_slurm_field(out, "JobState");
		settled = state != NULL && strcmp(state, "RUNNING") != 0 &&
		    strcmp(state, "COMPLETING") != 0 &&
		    strcmp(state, "CONFIGURING") != 0;
		free(state);
		free(w->scontrol);
		w->scontrol = out;
		if (settled)
			return;
		usleep(20000);
	}
}

static void
remove_stage(const struct tc_slurm__plan *p)
{
	static const char *const names[] = {
		TC_SLURM_STAGE_SPEC, TC_SLURM_STAGE_JOB, TC_SLURM_STAGE_STEP,
		TC_SLURM_STAGE_ERROR, "step.stdout.log", "step.stderr.log", NULL
	};
	const char *const *n;

	if (p->stage == NULL)
		return;
	for (n = names; *n != NULL; n++) {
		char *path = tc_path_join(p->stage, *n);

		unlink(path);
		free(path);
	}
	rmdir(p->stage);
}

int
tc_slurm_lease_run(const tc_slurm_request *req, tc_json **manifest,
    tc_lease_outcome *outcome, tc_error *err)
{
	struct tc_slurm__plan p;
	struct tc_slurm__watch w;
	tc_json *m = NULL;
	char fp[72];
	int rc = 0;

	*manifest = NULL;
	memset(&w, 0, sizeof(w));
	w.srun_status = -1000;
	if (validate(req, &p, err) != 0) {
		plan_free(&p);
		return TC_LEASE_EINPUT;
	}
	if (stage(&p, err) != 0 || watch(req, &p, &w, err) != 0) {
		rc = TC_LEASE_EIO;
		goto out;
	}
	adopt_job(&p, &w);	/* a job that ended between two looks */
	w.step = read_stage(&p, TC_SLURM_STAGE_STEP);
	{
		tc_json *e = read_stage(&p, TC_SLURM_STAGE_ERROR);

		if (e != NULL && tc_json_get_string(e, "error") != NULL)
			w.step_error = tc_xstrdup(tc_json_get_string(e, "error"));
		tc_json_free(e);
	}
	scan_log(p.slurm_log, &w);
	final_job_state(&w);
	if ((m = tc_slurm__manifest(&req->lease, &p, &w, outcome, err)) == NULL ||
	    tc_lease_manifest_fingerprint(m, fp, err) != 0) {
		rc = TC_LEASE_EIO;
		goto out;
	}
	tc_json_object_set_string(m, "manifest_fingerprint", fp);
	if (tc_write_json(p.manifest, m, TC_WRITE_EXCLUSIVE | TC_WRITE_MKDIRS,
	    err) != 0) {
		rc = TC_LEASE_EIO;
		goto out;
	}
	*manifest = m;
	m = NULL;
out:
	remove_stage(&p);
	tc_json_free(m);
	watch_free(&w);
	plan_free(&p);
	return rc;
}
