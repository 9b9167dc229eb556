/*
 * run_next.c - run-next (reference §10.3): one attempt of the next step
 * through an agent host, its immutable dispatch receipt, and sealing of
 * the host's result on success.
 *
 * Locking: "<session>.run.lock" is held for the whole attempt, so two
 * run-next never race for one step; the session lock proper is held only
 * while the session is read to build the task and while the result is
 * sealed and the receipt bound, so the worker itself may read the session
 * (execute-phase) while it runs.
 */
#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tunectl/buf.h"
#include "tunectl/fileio.h"
#include "tunectl/host.h"
#include "tunectl/lock.h"
#include "tunectl/path.h"
#include "tunectl/proc.h"
#include "tunectl/session.h"
#include "tunectl/sha256.h"
#include "tunectl/timeutil.h"
#include "host_internal.h"

const struct tc_attempt_layout tc_dispatch_layout = {
	"dispatches", "phase-task.json", "phase-result.json",
	"dispatch-receipt.json"
};

void
tc_attempt_free(struct tc_attempt *a)
{
	free(a->rel);
	free(a->dir);
	free(a->task);
	free(a->result);
	free(a->out_log);
	free(a->err_log);
	free(a->receipt);
	memset(a, 0, sizeof(*a));
}

char *
tc_attempt_rel(const struct tc_attempt *a, const char *name)
{
	return tc_xasprintf("%s/%s", a->rel, name);
}

static void
attempt_paths(struct tc_attempt *a, const char *artifact_root)
{
	a->dir = tc_path_join(artifact_root, a->rel);
	a->task = tc_path_join(a->dir, a->layout->task);
	a->result = tc_path_join(a->dir, a->layout->result);
	a->out_log = tc_path_join(a->dir, "runner.stdout.log");
	a->err_log = tc_path_join(a->dir, "runner.stderr.log");
	a->receipt = tc_path_join(a->dir, a->layout->receipt);
}

/* dispatches/ (or an attempt directory) replaced by a symlink would put
 * the attempt's evidence outside the artifact root: refuse it. */
static int
dir_inside_root(const char *path, const char *artifact_root, tc_error *err)
{
	char *root = tc_path_resolve(artifact_root, err);
	char *dir = root != NULL ? tc_path_resolve(path, err) : NULL;
	int rc = 0;

	if (dir == NULL) {
		rc = -1;
	} else if (!tc_path_is_within(dir, root)) {
		tc_error_set(err, "dispatch attempt directory escapes the artifact "
		    "root: %s", path);
		rc = -1;
	}
	free(root);
	free(dir);
	return rc;
}

/* The first attempt directory that does not exist yet is ours: mkdir is
 * the claim, so even a racing controller cannot take the same number. */
int
tc_attempt_create(const char *artifact_root,
    const struct tc_attempt_layout *layout, const char *step_id,
    struct tc_attempt *a, tc_error *err)
{
	char *parent = tc_path_join(artifact_root, layout->area);
	int n;

	memset(a, 0, sizeof(*a));
	a->layout = layout;
	if (tc_mkdirs(parent, err) != 0 ||
	    dir_inside_root(parent, artifact_root, err) != 0) {
		free(parent);
		return -1;
	}
	free(parent);
	for (n = 1; n <= TC_ATTEMPT_LIMIT; n++) {
		char *rel = tc_xasprintf("%s/%s-attempt-%03d", layout->area,
		    step_id, n);
		char *dir = tc_path_join(artifact_root, rel);

		if (mkdir(dir, 0777) == 0) {
			a->number = n;
			a->rel = rel;
			free(dir);
			attempt_paths(a, artifact_root);
			return dir_inside_root(a->dir, artifact_root, err);
		}
		if (errno != EEXIST) {
			tc_error_os(err, errno, dir);
			free(rel);
			free(dir);
			return -1;
		}
		free(rel);
		free(dir);
	}
	tc_error_set(err, "dispatch attempt limit reached for %s", step_id);
	return -1;
}

static bool
str_eq(const char *a, const char *b)
{
	return a != NULL && b != NULL && strcmp(a, b) == 0;
}

static void
set_string(tc_json *obj, const char *key, const char *value)
{
	tc_json_object_set_string(obj, key, value);
}

void
tc_attempt_set_rel(tc_json *receipt, const char *key,
    const struct tc_attempt *a, const char *name)
{
	char *rel = tc_attempt_rel(a, name);

	set_string(receipt, key, rel);
	free(rel);
}

void
tc_receipt_set_now(tc_json *receipt, const char *key)
{
	char ts[TC_TIMESTAMP_LEN + 1];

	tc_now_iso(ts);
	set_string(receipt, key, ts);
}

static tc_json *
receipt_skeleton(const tc_json *step, const char *session_id,
    const struct tc_attempt *a, const char *task_sha, const char *argv_sha)
{
	tc_json *r = tc_json_new_object();

	set_string(r, "schema_version", TC_RECEIPT_SCHEMA);
	set_string(r, "session_id", session_id);
	set_string(r, "step_id", tc_json_get_string(step, "step_id"));
	set_string(r, "phase", tc_json_get_string(step, "phase"));
	set_string(r, "agent_id", tc_json_get_string(step, "agent_id"));
	set_string(r, "skill", tc_json_get_string(step, "skill"));
	tc_json_object_set_int(r, "attempt", a->number);
	tc_receipt_set_now(r, "started_at");
	tc_attempt_set_rel(r, "task_path", a, "phase-task.json");
	set_string(r, "task_sha256", task_sha);
	tc_attempt_set_rel(r, "result_path", a, "phase-result.json");
	tc_attempt_set_rel(r, "stdout_path", a, "runner.stdout.log");
	tc_attempt_set_rel(r, "stderr_path", a, "runner.stderr.log");
	set_string(r, "runner_argv_sha256", argv_sha);
	return r;
}

/* Python's str() of a float: the timeout in the reference's message. */
char *
tc_seconds_str(double s)
{
	tc_buf b = TC_BUF_INIT;

	tc_json_format_double(&b, s);
	return tc_buf_detach(&b, NULL);
}

static void
touch_if_missing(const char *path)
{
	FILE *fp;

	if (tc_path_exists(path))
		return;
	if ((fp = fopen(path, "a")) != NULL)
		fclose(fp);
}

/* Finish a receipt that did not pass and write it; the attempt directory
 * stays as it is: the scene of the failure. */
void
tc_attempt_receipt_fail(tc_json *receipt, const struct tc_attempt *a,
    const char *status, const char *message)
{
	char hex[TC_SHA256_HEX_LEN + 1];
	tc_error ignored = TC_ERROR_INIT;

	touch_if_missing(a->out_log);
	touch_if_missing(a->err_log);
	set_string(receipt, "runner_status", status);
	set_string(receipt, "error", message);
	tc_receipt_set_now(receipt, "finished_at");
	if (strcmp(status, "failed") == 0 && tc_is_regular_file(a->result) &&
	    tc_sha256_file(a->result, hex, NULL, &ignored) == 0)
		set_string(receipt, "result_sha256", hex);
	(void)tc_write_json(a->receipt, receipt, TC_WRITE_EXCLUSIVE, &ignored);
	tc_error_clear(&ignored);
}

/* Bind a written receipt into its sealed step and write the session. */
static int
bind_receipt(tc_session *s, const char *step_id, const char *receipt_abs,
    const char *receipt_rel, tc_error *err)
{
	char hex[TC_SHA256_HEX_LEN + 1];
	tc_json *step = tc_session_find_step(s, step_id, NULL);

	if (step == NULL) {
		tc_error_set(err, "sealed step disappeared from the session: %s",
		    step_id);
		return -1;
	}
	if (tc_sha256_file(receipt_abs, hex, NULL, err) != 0)
		return -1;
	tc_json_object_set_string(step, "dispatch_receipt_path", receipt_rel);
	tc_json_object_set_string(step, "dispatch_receipt_sha256", hex);
	tc_session_refresh(s);
	return tc_write_json(s->path, s->doc, 0, err);
}

/*
 * A controller killed after sealing a step but before binding its receipt
 * leaves a sealed step without "dispatch_receipt_path" whose newest
 * attempt holds the very result that was sealed.  Complete that attempt:
 * write the missing receipt (marked "recovered") and bind it.
 */
static int
recover_unbound(tc_session *s, bool *recovered, tc_error *err)
{
	size_t i, n = tc_session_step_count(s);

	for (i = 0; i < n; i++) {
		tc_json *step = tc_session_step_at(s, i);
		const char *step_id = tc_step_id(step);
		const char *sealed_sha = tc_json_get_string(step, "result_sha256");
		struct tc_attempt a = { .layout = &tc_dispatch_layout };
		tc_json *result, *receipt;
		char digest[65], hex[TC_SHA256_HEX_LEN + 1];
		tc_error ignored = TC_ERROR_INIT;
		int k;

		if (!tc_step_is_sealed(step) || sealed_sha == NULL ||
		    tc_json_get(step, "dispatch_receipt_path") != NULL)
			continue;
		/* Attempt numbers are claimed in order and never removed, so
		 * the newest attempt is the last directory of the run. */
		for (k = 1; k <= TC_ATTEMPT_LIMIT; k++) {
			char *rel = tc_xasprintf("dispatches/%s-attempt-%03d",
			    step_id, k);
			char *dir = tc_path_join(s->artifact_root, rel);
			bool exists = tc_is_directory(dir);

			free(dir);
			if (!exists) {
				free(rel);
				break;
			}
			free(a.rel);
			a.rel = rel;
			a.number = k;
		}
		if (a.rel != NULL)
			attempt_paths(&a, s->artifact_root);
		if (a.rel == NULL)
			continue;
		result = tc_json_parse_file(a.result, &ignored);
		if (result == NULL || tc_json_digest(result, digest, &ignored) != 0 ||
		    strcmp(digest, sealed_sha) != 0) {
			tc_json_free(result);
			tc_error_clear(&ignored);
			tc_attempt_free(&a);
			continue;
		}
		tc_json_free(result);
		receipt = tc_path_exists(a.receipt) ?
		    tc_json_parse_file(a.receipt, &ignored) : NULL;
		if (receipt != NULL) {
			const char *st = tc_json_get_string(receipt, "runner_status");
			const char *rs = tc_json_get_string(receipt, "result_sha256");

			/* Only this step's own passed receipt, for the very
			 * result file that was sealed, is bound. */
			hex[0] = '\0';
			(void)tc_sha256_file(a.result, hex, NULL, &ignored);
			if (st == NULL || strcmp(st, "passed") != 0 ||
			    !str_eq(tc_json_get_string(receipt, "schema_version"),
			    TC_RECEIPT_SCHEMA) ||
			    !str_eq(tc_json_get_string(receipt, "session_id"),
			    s->session_id) ||
			    !str_eq(tc_json_get_string(receipt, "step_id"), step_id) ||
			    rs == NULL || strcmp(rs, hex) != 0) {
				tc_json_free(receipt);
				tc_attempt_free(&a);
				continue;
			}
		} else if (!tc_path_exists(a.receipt)) {
			char task_sha[TC_SHA256_HEX_LEN + 1] = "";
			tc_json *argv_unknown = tc_json_new_null();

			(void)tc_sha256_file(a.task, task_sha, NULL, &ignored);
			receipt = receipt_skeleton(step, s->session_id, &a, task_sha,
			    "");
			tc_json_object_set(receipt, "runner_argv_sha256",
			    argv_unknown);
			set_string(receipt, "runner_status", "passed");
			tc_json_object_set_bool(receipt, "recovered", true);
			set_string(receipt, "recovery_note", "the controller stopped "
			    "after sealing this step and before writing its receipt; "
			    "the receipt was completed by a later run-next");
			if (tc_sha256_file(a.result, hex, NULL, &ignored) == 0)
				set_string(receipt, "result_sha256", hex);
			tc_receipt_set_now(receipt, "finished_at");
			if (tc_write_json(a.receipt, receipt, TC_WRITE_EXCLUSIVE,
			    err) != 0) {
				tc_json_free(receipt);
				tc_attempt_free(&a);
				return -1;
			}
		} else {
			/* a receipt that cannot be read is evidence; leave it */
			tc_error_clear(&ignored);
			tc_attempt_free(&a);
			continue;
		}
		tc_json_free(receipt);
		{
			char *rel = tc_attempt_rel(&a, a.layout->receipt);
			int rc = bind_receipt(s, step_id, a.receipt, rel, err);

			free(rel);
			tc_attempt_free(&a);
			if (rc != 0)
				return -1;
		}
		*recovered = true;
		tc_error_clear(&ignored);
	}
	return 0;
}

/*
 * Every process of an attempt carries TUNECTL_ATTEMPT=<attempt dir> in its
 * environment.  If a controller dies, its host dies with it
 * (PR_SET_PDEATHSIG) but the host's own children may live on; the next
 * run-next of the step finds them by that variable and ends them before
 * they can write into the evidence of a new attempt.
 */
#define ATTEMPT_ENV "TUNECTL_ATTEMPT"

static char **
attempt_environment(const char *dir)
{
	extern char **environ;
	size_t n = 0, i, k = 0;
	char **envp;

	while (environ[n] != NULL)
		n++;
	envp = tc_xcalloc(n + 2, sizeof(char *));
	for (i = 0; i < n; i++)
		if (strncmp(environ[i], ATTEMPT_ENV "=",
		    sizeof(ATTEMPT_ENV)) != 0)
			envp[k++] = tc_xstrdup(environ[i]);
	envp[k++] = tc_xasprintf("%s=%s", ATTEMPT_ENV, dir);
	envp[k] = NULL;
	return envp;
}

static void
free_environment(char **envp)
{
	size_t i;

	for (i = 0; envp != NULL && envp[i] != NULL; i++)
		free(envp[i]);
	free(envp);
}

/* Does process pid carry exactly this NAME=value in its environment? */
static bool
process_has_env(const char *pid, const char *entry)
{
	char *path = tc_xasprintf("/proc/%s/environ", pid), *data;
	size_t len, off;
	tc_error ignored = TC_ERROR_INIT;
	bool found = false;

	data = tc_read_file(path, 1 << 20, &len, &ignored);
	free(path);
	if (data == NULL) {
		tc_error_clear(&ignored);
		return false;
	}
	for (off = 0; off < len && !found; off += strlen(data + off) + 1)
		found = strcmp(data + off, entry) == 0;
	free(data);
	return found;
}

static void
kill_attempt_processes(const char *dir)
{
	char *entry = tc_xasprintf("%s=%s", ATTEMPT_ENV, dir);
	DIR *proc = opendir("/proc");
	struct dirent *de;

	while (proc != NULL && (de = readdir(proc)) != NULL) {
		if (de->d_name[0] < '1' || de->d_name[0] > '9')
			continue;
		if (atoi(de->d_name) != getpid() &&
		    process_has_env(de->d_name, entry))
			kill(atoi(de->d_name), SIGKILL);
	}
	if (proc != NULL)
		closedir(proc);
	free(entry);
}

/* End what is left of this step's attempts that never got a receipt. */
void
tc_attempt_end_orphans(const char *artifact_root,
    const struct tc_attempt_layout *layout, const char *step_id)
{
	int k;

	for (k = 1; k <= TC_ATTEMPT_LIMIT; k++) {
		char *dir = tc_xasprintf("%s/%s/%s-attempt-%03d",
		    artifact_root, layout->area, step_id, k);
		char *receipt = tc_xasprintf("%s/%s", dir, layout->receipt);
		bool exists = tc_is_directory(dir);

		if (exists && !tc_path_exists(receipt))
			kill_attempt_processes(dir);
		free(receipt);
		free(dir);
		if (!exists)
			break;
	}
}

/* Start the host for an attempt: runner argv + "--task T --result R",
 * logs streamed into the attempt directory, TUNECTL_ATTEMPT set, its
 * process group ended past the timeout. */
int
tc_attempt_run_host(const struct tc_attempt *a, const tc_runner *runner,
    double timeout_s, double grace_s, tc_proc_result *pr, tc_error *err)
{
	char **argv, **envp;
	tc_proc_spec spec;
	size_t i;
	int rc;

	argv = tc_xcalloc(runner->argc + 5, sizeof(char *));
	for (i = 0; i < runner->argc; i++)
		argv[i] = runner->argv[i];
	argv[i++] = (char *)"--task";
	argv[i++] = a->task;
	argv[i++] = (char *)"--result";
	argv[i++] = a->result;
	argv[i] = NULL;

	envp = attempt_environment(a->dir);
	memset(&spec, 0, sizeof(spec));
	spec.argv = argv;
	spec.envp = envp;
	spec.stdout_path = a->out_log;
	spec.stderr_path = a->err_log;
	spec.exclusive_logs = true;
	spec.die_with_parent = true;
	spec.timeout_s = timeout_s;
	spec.grace_s = grace_s > 0 ? grace_s : TC_RUN_NEXT_DEFAULT_GRACE_S;
	memset(pr, 0, sizeof(*pr));
	rc = tc_proc_run(&spec, pr, err);
	free(argv);
	free_environment(envp);
	return rc;
}

/* "<session>.<name>.lock", tried once: held means another <what>. */
int
tc_attempt_lock(const char *abs_session, const char *name, const char *what,
    tc_lock *lock, tc_error *err)
{
	char *base = tc_xasprintf("%s.%s", abs_session, name);
	tc_error inner = TC_ERROR_INIT;
	int rc = tc_lock_acquire(lock, base, 0.0, &inner);

	/* Only a held lock means another run; an unusable lock file
	 * (e.g. replaced by a symlink) reports its own OS error. */
	if (rc != 0 && strncmp(tc_error_msg(&inner), "[Errno ", 7) == 0)
		tc_error_set(err, "%s", tc_error_msg(&inner));
	else if (rc != 0)
		tc_error_set(err, "another %s is already running for "
		    "session %s", what, abs_session);
	tc_error_clear(&inner);
	free(base);
	return rc;
}

/* Seal the host's result under the session lock, then write and bind the
 * receipt.  Returns the session as written, or NULL (err set). */
static tc_json *
seal_attempt(const char *abs_session, const tc_json *task,
    const tc_json *result, tc_json *receipt, const struct tc_attempt *a,
    const char *seal_program, tc_attempt_report *report, tc_error *err)
{
	tc_lock lock = { -1, NULL };
	tc_session *s = NULL;
	tc_json *out = NULL;
	const tc_json *step = tc_json_get(task, "step");
	const char *step_id = tc_json_get_string(step, "step_id");
	tc_json *next;
	char hex[TC_SHA256_HEX_LEN + 1];
	char *rel = NULL;

	if (tc_session_lock(abs_session, &lock, err) != 0)
		return NULL;
	if (tc_session_load(abs_session, 0, &s, err) != 0)
		goto done;
	next = tc_session_next_step(s, NULL);
	if (next != NULL && tc_result_validate(result, next, s, 0, err) != 0)
		goto done;
	/* The session must still be the one the task was cut from. */
	if (tc_dispatch_task_check(task, abs_session, seal_program, NULL,
	    err) != 0)
		goto done;
	if (tc_seal_session(s, result, err) != 0)
		goto done;
	set_string(receipt, "runner_status", "passed");
	if (tc_sha256_file(a->result, hex, NULL, err) != 0)
		goto done;
	set_string(receipt, "result_sha256", hex);
	tc_receipt_set_now(receipt, "finished_at");
	if (tc_write_json(a->receipt, receipt, TC_WRITE_EXCLUSIVE, err) != 0)
		goto done;
	rel = tc_attempt_rel(a, a->layout->receipt);
	if (bind_receipt(s, step_id, a->receipt, rel, err) != 0)
		goto done;
	report->outcome_status = tc_xstrdup(tc_json_get_string(result, "status"));
	out = tc_json_clone(s->doc);
done:
	free(rel);
	tc_session_free(s);
	tc_lock_release(&lock);
	return out;
}

tc_json *
tc_run_next(const char *session_path, const tc_runner *runner,
    const tc_run_next_opts *opts, tc_attempt_report *report, tc_error *err)
{
	tc_lock runlock = { -1, NULL }, lock = { -1, NULL };
	tc_session *s = NULL;
	tc_json *task = NULL, *receipt = NULL, *result = NULL, *sealed = NULL;
	struct tc_attempt a = { 0 };
	char *abs = NULL;
	char task_sha[TC_SHA256_HEX_LEN + 1], argv_sha[65];
	tc_proc_result pr;
	tc_error inner = TC_ERROR_INIT;

	memset(report, 0, sizeof(*report));
	if (runner == NULL || runner->argc == 0) {
		tc_error_set(err, "runner_argv must be a non-empty string list");
		return NULL;
	}
	if (!(opts->timeout_s > 0) || !isfinite(opts->timeout_s)) {
		tc_error_set(err, "timeout_seconds must be positive");
		return NULL;
	}
	if ((abs = tc_path_resolve(session_path, err)) == NULL)
		return NULL;
	if (tc_attempt_lock(abs, "run", "run-next", &runlock, err) != 0)
		goto out;

	/* Cut the task from the session as it is now. */
	if (tc_session_lock(abs, &lock, err) != 0)
		goto out;
	if (tc_session_load(abs, 0, &s, err) != 0)
		goto out_unlock;
	if (recover_unbound(s, &report->recovered, err) != 0)
		goto out_unlock;
	if ((task = tc_dispatch_task(s, opts->seal_program, err)) == NULL)
		goto out_unlock;
	{
		const tc_json *step = tc_json_get(task, "step");

		report->step_id = tc_xstrdup(tc_json_get_string(step, "step_id"));
		report->phase = tc_xstrdup(tc_json_get_string(step, "phase"));
	}
	tc_attempt_end_orphans(s->artifact_root, &tc_dispatch_layout,
	    report->step_id);
	if (tc_attempt_create(s->artifact_root, &tc_dispatch_layout,
	    report->step_id, &a, err) != 0)
		goto out_unlock;
	report->attempt = a.number;
	if (tc_write_json(a.task, task, TC_WRITE_EXCLUSIVE, err) != 0)
		goto out_unlock;
	tc_lock_release(&lock);

	if (tc_sha256_file(a.task, task_sha, NULL, err) != 0)
		goto out;
	if (tc_runner_digest(runner, argv_sha, err) != 0)
		goto out;
	receipt = receipt_skeleton(tc_json_get(task, "step"), s->session_id, &a,
	    task_sha, argv_sha);

	if (tc_attempt_run_host(&a, runner, opts->timeout_s, opts->grace_s, &pr,
	    &inner) != 0) {
		report->runner_status = "failed";
		tc_attempt_receipt_fail(receipt, &a, "failed", tc_error_msg(&inner));
		tc_error_set(err, "%s", tc_error_msg(&inner));
		goto out;
	}
	report->seconds = pr.wall_s;
	if (pr.timed_out) {
		char *secs = tc_seconds_str(opts->timeout_s);

		tc_error_set(err, "Agent host timed out after %s seconds", secs);
		free(secs);
		report->runner_status = "timed_out";
		tc_attempt_receipt_fail(receipt, &a, "timed_out", tc_error_msg(err));
		goto out;
	}
	tc_json_object_set_int(receipt, "return_code", pr.exit_code);
	if (pr.exit_code != 0) {
		tc_error_set(err, "Agent host exited with status %d", pr.exit_code);
		report->runner_status = "failed";
		tc_attempt_receipt_fail(receipt, &a, "failed", tc_error_msg(err));
		goto out;
	}
	if (tc_path_exists(a.result) && !tc_is_regular_file_nofollow(a.result)) {
		/* A link could change what was sealed after the fact. */
		tc_error_set(err, "Agent host did not produce a readable phase "
		    "result: %s is not a regular file", a.result);
		report->runner_status = "failed";
		tc_attempt_receipt_fail(receipt, &a, "failed", tc_error_msg(err));
		goto out;
	}
	if ((result = tc_json_parse_file(a.result, &inner)) == NULL) {
		tc_error_set(err, "Agent host did not produce a readable phase "
		    "result: %s", tc_error_msg(&inner));
		report->runner_status = "failed";
		tc_attempt_receipt_fail(receipt, &a, "failed", tc_error_msg(err));
		goto out;
	}
	sealed = seal_attempt(abs, task, result, receipt, &a, opts->seal_program,
	    report, err);
	if (sealed == NULL) {
		report->runner_status = "failed";
		if (!tc_path_exists(a.receipt))
			tc_attempt_receipt_fail(receipt, &a, "failed", tc_error_msg(err));
		goto out;
	}
	report->runner_status = "passed";
	goto out;

out_unlock:
	tc_lock_release(&lock);
out:
	tc_lock_release(&runlock);
	tc_error_clear(&inner);
	tc_attempt_free(&a);
	tc_json_free(result);
	tc_json_free(receipt);
	tc_json_free(task);
	tc_session_free(s);
	free(abs);
	return sealed;
}
