/*
 * attempt.c - the attempt directory of a dispatched step, the host run
 * inside it and its receipt: the mechanics run-next (SuperKernel) and
 * pypto run-next (PyPTO-Pro) share.  What to dispatch and how a result
 * is accepted stay with the callers.
 */
#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tunectl/attempt.h"
#include "tunectl/buf.h"
#include "tunectl/fileio.h"
#include "tunectl/path.h"
#include "tunectl/proc.h"
#include "tunectl/sha256.h"
#include "tunectl/timeutil.h"

void
tc_attempt_free(tc_attempt *a)
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
tc_attempt_rel(const tc_attempt *a, const char *name)
{
	return tc_xasprintf("%s/%s", a->rel, name);
}

static void
attempt_paths(tc_attempt *a, const char *root)
{
	a->dir = tc_path_join(root, a->rel);
	a->task = tc_path_join(a->dir, TC_ATTEMPT_TASK);
	a->result = tc_path_join(a->dir, TC_ATTEMPT_RESULT);
	a->out_log = tc_path_join(a->dir, TC_ATTEMPT_STDOUT);
	a->err_log = tc_path_join(a->dir, TC_ATTEMPT_STDERR);
	a->receipt = tc_path_join(a->dir, TC_ATTEMPT_RECEIPT);
}

static char *
attempt_rel_name(const char *step_id, int n)
{
	return tc_xasprintf("dispatches/%s-attempt-%03d", step_id, n);
}

/* dispatches/ (or an attempt directory) replaced by a symlink would put
 * the attempt's evidence outside the root: refuse it. */
static int
dir_inside_root(const char *path, const char *root, tc_error *err)
{
	char *r = tc_path_resolve(root, err);
	char *dir = r != NULL ? tc_path_resolve(path, err) : NULL;
	int rc = 0;

	if (dir == NULL) {
		rc = -1;
	} else if (!tc_path_is_within(dir, r)) {
		tc_error_set(err, "dispatch attempt directory escapes the artifact "
		    "root: %s", path);
		rc = -1;
	}
	free(r);
	free(dir);
	return rc;
}

/* The first attempt directory that does not exist yet is ours: mkdir is
 * the claim, so even a racing controller cannot take the same number. */
int
tc_attempt_create(const char *root, const char *step_id, tc_attempt *a,
    tc_error *err)
{
	char *parent = tc_path_join(root, "dispatches");
	int n;

	memset(a, 0, sizeof(*a));
	if (tc_mkdirs(parent, err) != 0 ||
	    dir_inside_root(parent, root, err) != 0) {
		free(parent);
		return -1;
	}
	free(parent);
	for (n = 1; n <= TC_ATTEMPT_LIMIT; n++) {
		char *rel = attempt_rel_name(step_id, n);
		char *dir = tc_path_join(root, rel);

		if (mkdir(dir, 0777) == 0) {
			a->number = n;
			a->rel = rel;
			free(dir);
			attempt_paths(a, root);
			return dir_inside_root(a->dir, root, err);
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

/* Attempt numbers are claimed in order and never removed, so the newest
 * attempt is the last directory of the run. */
bool
tc_attempt_newest(const char *root, const char *step_id, tc_attempt *a)
{
	int k;

	memset(a, 0, sizeof(*a));
	for (k = 1; k <= TC_ATTEMPT_LIMIT; k++) {
		char *rel = attempt_rel_name(step_id, k);
		char *dir = tc_path_join(root, rel);
		bool exists = tc_is_directory(dir);

		free(dir);
		if (!exists) {
			free(rel);
			break;
		}
		free(a->rel);
		a->rel = rel;
		a->number = k;
	}
	if (a->rel == NULL)
		return false;
	attempt_paths(a, root);
	return true;
}

/* ---- receipts ------------------------------------------------------------ */

void
tc_attempt_receipt_stamp(tc_json *receipt, const char *key)
{
	char ts[TC_TIMESTAMP_LEN + 1];

	tc_now_iso(ts);
	tc_json_object_set_string(receipt, key, ts);
}

static void
set_rel(tc_json *receipt, const char *key, const tc_attempt *a,
    const char *name)
{
	char *rel = tc_attempt_rel(a, name);

	tc_json_object_set_string(receipt, key, rel);
	free(rel);
}

tc_json *
tc_attempt_receipt(const tc_attempt *a, const char *schema,
    const char *session_id, const tc_json *step, const char *task_sha,
    const char *argv_sha)
{
	tc_json *r = tc_json_new_object();

	tc_json_object_set_string(r, "schema_version", schema);
	tc_json_object_set_string(r, "session_id", session_id);
	tc_json_object_set_string(r, "step_id",
	    tc_json_get_string(step, "step_id"));
	tc_json_object_set_string(r, "phase", tc_json_get_string(step, "phase"));
	tc_json_object_set_string(r, "agent_id",
	    tc_json_get_string(step, "agent_id"));
	tc_json_object_set_string(r, "skill", tc_json_get_string(step, "skill"));
	tc_json_object_set_int(r, "attempt", a->number);
	tc_attempt_receipt_stamp(r, "started_at");
	set_rel(r, "task_path", a, TC_ATTEMPT_TASK);
	tc_json_object_set_string(r, "task_sha256", task_sha);
	set_rel(r, "result_path", a, TC_ATTEMPT_RESULT);
	set_rel(r, "stdout_path", a, TC_ATTEMPT_STDOUT);
	set_rel(r, "stderr_path", a, TC_ATTEMPT_STDERR);
	tc_json_object_set_string(r, "runner_argv_sha256", argv_sha);
	return r;
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

void
tc_attempt_receipt_fail(tc_json *receipt, const tc_attempt *a,
    const char *status, const char *message)
{
	char hex[TC_SHA256_HEX_LEN + 1];
	tc_error ignored = TC_ERROR_INIT;

	touch_if_missing(a->out_log);
	touch_if_missing(a->err_log);
	tc_json_object_set_string(receipt, "runner_status", status);
	tc_json_object_set_string(receipt, "error", message);
	tc_attempt_receipt_stamp(receipt, "finished_at");
	if (strcmp(status, "failed") == 0 && tc_is_regular_file(a->result) &&
	    tc_sha256_file(a->result, hex, NULL, &ignored) == 0)
		tc_json_object_set_string(receipt, "result_sha256", hex);
	(void)tc_write_json(a->receipt, receipt, TC_WRITE_EXCLUSIVE, &ignored);
	tc_error_clear(&ignored);
}

int
tc_attempt_argv_digest(const tc_runner *runner, char hex[65], tc_error *err)
{
	tc_json *argv_json = tc_json_new_array();
	size_t i;
	int rc;

	for (i = 0; i < runner->argc; i++)
		tc_json_array_push(argv_json, tc_json_new_string(runner->argv[i]));
	rc = tc_json_digest(argv_json, hex, err);
	tc_json_free(argv_json);
	return rc;
}

/* ---- processes --------------------------------------------------------- */

bool
tc_attempt_in_worker(void)
{
	const char *v = getenv(TC_ATTEMPT_ENV);

	return v != NULL && *v != '\0';
}

static char **
attempt_environment(const char *dir, char *const *extra)
{
	extern char **environ;
	size_t n = 0, x = 0, i, j, k = 0;
	char **envp;

	while (environ[n] != NULL)
		n++;
	while (extra != NULL && extra[x] != NULL)
		x++;
	envp = tc_xcalloc(n + x + 2, sizeof(char *));
	for (i = 0; i < n; i++) {
		bool replaced = strncmp(environ[i], TC_ATTEMPT_ENV "=",
		    sizeof(TC_ATTEMPT_ENV)) == 0;

		for (j = 0; j < x && !replaced; j++) {
			size_t len = strcspn(extra[j], "=");

			replaced = strncmp(environ[i], extra[j], len + 1) == 0;
		}
		if (!replaced)
			envp[k++] = tc_xstrdup(environ[i]);
	}
	for (j = 0; j < x; j++)
		envp[k++] = tc_xstrdup(extra[j]);
	envp[k++] = tc_xasprintf("%s=%s", TC_ATTEMPT_ENV, dir);
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

/*
 * If a controller dies, its host dies with it (PR_SET_PDEATHSIG) but the
 * host's own children may live on; the next run-next of the step finds
 * them by their TUNECTL_ATTEMPT and ends them before they can write into
 * the evidence of a new attempt.
 */
static void
kill_attempt_processes(const char *dir)
{
	char *entry = tc_xasprintf("%s=%s", TC_ATTEMPT_ENV, dir);
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

void
tc_attempt_end_orphans(const char *root, const char *step_id)
{
	int k;

	for (k = 1; k <= TC_ATTEMPT_LIMIT; k++) {
		char *rel = attempt_rel_name(step_id, k);
		char *dir = tc_path_join(root, rel);
		char *receipt = tc_path_join(dir, TC_ATTEMPT_RECEIPT);
		bool exists = tc_is_directory(dir);

		if (exists && !tc_path_exists(receipt))
			kill_attempt_processes(dir);
		free(rel);
		free(receipt);
		free(dir);
		if (!exists)
			break;
	}
}

/* Python's str() of a float: the timeout in the reference's message. */
static char *
seconds_str(double s)
{
	tc_buf b = TC_BUF_INIT;

	tc_json_format_double(&b, s);
	return tc_buf_detach(&b, NULL);
}

static int
host_failed(tc_json *receipt, const tc_attempt *a, const char *status,
    const char **runner_status, tc_error *err)
{
	*runner_status = status;
	tc_attempt_receipt_fail(receipt, a, status, tc_error_msg(err));
	return -1;
}

int
tc_attempt_run_host(const tc_attempt *a, const tc_runner *runner,
    const tc_run_next_opts *opts, char *const *extra_env, tc_json *receipt,
    double *seconds, const char **runner_status, tc_json **result,
    tc_error *err)
{
	char **argv, **envp;
	tc_proc_spec spec;
	tc_proc_result pr;
	tc_error inner = TC_ERROR_INIT;
	size_t i;
	int rc = -1;

	*result = NULL;
	*seconds = 0;
	*runner_status = NULL;
	argv = tc_xcalloc(runner->argc + 5, sizeof(char *));
	for (i = 0; i < runner->argc; i++)
		argv[i] = runner->argv[i];
	argv[i++] = (char *)"--task";
	argv[i++] = a->task;
	argv[i++] = (char *)"--result";
	argv[i++] = a->result;
	argv[i] = NULL;
	envp = attempt_environment(a->dir, extra_env);

	memset(&spec, 0, sizeof(spec));
	spec.argv = argv;
	spec.envp = envp;
	spec.stdout_path = a->out_log;
	spec.stderr_path = a->err_log;
	spec.exclusive_logs = true;
	spec.die_with_parent = true;
	spec.timeout_s = opts->timeout_s;
	spec.grace_s = opts->grace_s > 0 ? opts->grace_s :
	    TC_RUN_NEXT_DEFAULT_GRACE_S;
	memset(&pr, 0, sizeof(pr));
	if (tc_proc_run(&spec, &pr, &inner) != 0) {
		tc_error_set(err, "%s", tc_error_msg(&inner));
		host_failed(receipt, a, "failed", runner_status, err);
		goto out;
	}
	*seconds = pr.wall_s;
	if (pr.timed_out) {
		char *secs = seconds_str(opts->timeout_s);

		tc_error_set(err, "Agent host timed out after %s seconds", secs);
		free(secs);
		host_failed(receipt, a, "timed_out", runner_status, err);
		goto out;
	}
	tc_json_object_set_int(receipt, "return_code", pr.exit_code);
	if (pr.exit_code != 0) {
		tc_error_set(err, "Agent host exited with status %d", pr.exit_code);
		host_failed(receipt, a, "failed", runner_status, err);
		goto out;
	}
	if (tc_path_exists(a->result) && !tc_is_regular_file_nofollow(a->result)) {
		/* A link could change what was sealed after the fact. */
		tc_error_set(err, "Agent host did not produce a readable phase "
		    "result: %s is not a regular file", a->result);
		host_failed(receipt, a, "failed", runner_status, err);
		goto out;
	}
	if ((*result = tc_json_parse_file(a->result, &inner)) == NULL) {
		tc_error_set(err, "Agent host did not produce a readable phase "
		    "result: %s", tc_error_msg(&inner));
		host_failed(receipt, a, "failed", runner_status, err);
		goto out;
	}
	rc = 0;
out:
	tc_error_clear(&inner);
	free(argv);
	free_environment(envp);
	return rc;
}

bool
tc_attempt_streak_count(tc_attempt_streak *s, tc_attempt_report *report,
    bool succeeded, long max_attempts, const char *kept_under, tc_error *err)
{
	bool go_on = true;

	if (succeeded) {
		tc_attempt_streak_free(s);
	} else if (report->attempt == 0) {
		/* No attempt was made: the controller refuses; retrying is futile. */
		go_on = false;
	} else {
		if (s->step_id == NULL || strcmp(s->step_id, report->step_id) != 0) {
			tc_attempt_streak_free(s);
			s->step_id = tc_xstrdup(report->step_id);
		}
		if (++s->failures >= max_attempts) {
			tc_error_set(err, "step %s failed %ld attempts in a row; "
			    "the step stays pending and every attempt is kept "
			    "under %s", s->step_id, s->failures, kept_under);
			go_on = false;
		} else {
			tc_error_clear(err);
		}
	}
	tc_attempt_report_free(report);
	return go_on;
}

void
tc_attempt_streak_free(tc_attempt_streak *s)
{
	free(s->step_id);
	s->step_id = NULL;
	s->failures = 0;
}
