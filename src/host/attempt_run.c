/*
 * attempt_run.c - running an agent host in its attempt directory and
 * judging what it left, ending what earlier attempts left running, the
 * attempt locks and the receipt helpers that run-next, support runs and
 * pypto run-next share (tunectl/attempt.h).
 *
 * Every process of an attempt carries TUNECTL_ATTEMPT=<attempt dir> in its
 * environment.  If a controller dies, its host dies with it
 * (PR_SET_PDEATHSIG) but the host's own children may live on; the next
 * attempt of the step finds them by that variable and ends them before
 * they can write into the evidence of a new attempt.
 */
#include <dirent.h>
#include <signal.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "host_internal.h"
#include "tunectl/buf.h"
#include "tunectl/fileio.h"
#include "tunectl/path.h"
#include "tunectl/timeutil.h"

bool
tc_attempt_in_worker(void)
{
	const char *v = getenv(TC_ATTEMPT_ENV);

	return v != NULL && *v != '\0';
}

/* environ, then extra_env (replacing what it names), then
 * TUNECTL_ATTEMPT=dir. */
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
tc_attempt_end_orphans(const char *artifact_root,
    const tc_attempt_layout *layout, const char *name)
{
	int k;

	for (k = 1; k <= TC_ATTEMPT_LIMIT; k++) {
		char *dir = tc_xasprintf("%s/%s/%s-attempt-%03d",
		    artifact_root, layout->area, name, k);
		char *receipt = tc_path_join(dir, layout->receipt);
		bool exists = tc_is_directory(dir);

		if (exists && !tc_path_exists(receipt))
			kill_attempt_processes(dir);
		free(receipt);
		free(dir);
		if (!exists)
			break;
	}
}

int
tc_attempt_run_host(const tc_attempt *a, const tc_runner *runner,
    double timeout_s, double grace_s, char *const *extra_env,
    tc_proc_result *pr, tc_error *err)
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

	envp = attempt_environment(a->dir, extra_env);
	memset(&spec, 0, sizeof(spec));
	spec.argv = argv;
	spec.envp = envp;
	spec.stdout_path = TC_ATTEMPT_STDOUT;
	spec.stderr_path = TC_ATTEMPT_STDERR;
	spec.logs_at_dirfd = true;
	spec.log_dirfd = a->fd;
	spec.exclusive_logs = true;
	spec.die_with_parent = true;
	spec.end_tree = true;
	spec.timeout_s = timeout_s;
	spec.grace_s = grace_s > 0 ? grace_s : TC_RUN_NEXT_DEFAULT_GRACE_S;
	memset(pr, 0, sizeof(*pr));
	rc = tc_proc_run(&spec, pr, err);
	free(argv);
	free_environment(envp);
	return rc;
}

int
tc_attempt_lock(const char *abs_session, const char *name, const char *what,
    tc_lock *lock, tc_error *err)
{
	char *base = tc_xasprintf("%s.%s", abs_session, name);
	tc_error inner = TC_ERROR_INIT;
	int rc = tc_lock_acquire(lock, base, 0.0, &inner);

	/* Only a held lock means another run; an unusable lock file (e.g.
	 * replaced by a symlink or a directory) reports its own error. */
	if (rc != 0 && strncmp(tc_error_msg(&inner), TC_LOCK_HELD_PREFIX,
	    strlen(TC_LOCK_HELD_PREFIX)) != 0)
		tc_error_set(err, "%s", tc_error_msg(&inner));
	else if (rc != 0)
		tc_error_set(err, "another %s is already running for "
		    "session %s", what, abs_session);
	tc_error_clear(&inner);
	free(base);
	return rc;
}

void
tc_attempt_set_rel(tc_json *receipt, const char *key, const tc_attempt *a,
    const char *file)
{
	char *rel = tc_attempt_rel(a, file);

	tc_json_object_set_string(receipt, key, rel);
	free(rel);
}

void
tc_receipt_set_now(tc_json *receipt, const char *key)
{
	char ts[TC_TIMESTAMP_LEN + 1];

	tc_now_iso(ts);
	tc_json_object_set_string(receipt, key, ts);
}

void
tc_host__receipt_attempt(tc_json *r, const tc_attempt *a,
    const char *task_sha, const char *argv_sha)
{
	tc_json_object_set_int(r, "attempt", a->number);
	tc_receipt_set_now(r, "started_at");
	tc_attempt_set_rel(r, "task_path", a, a->layout->task);
	tc_json_object_set_string(r, "task_sha256", task_sha);
	tc_attempt_set_rel(r, "result_path", a, a->layout->result);
	tc_attempt_set_rel(r, "stdout_path", a, TC_ATTEMPT_STDOUT);
	tc_attempt_set_rel(r, "stderr_path", a, TC_ATTEMPT_STDERR);
	tc_json_object_set_string(r, "runner_argv_sha256", argv_sha);
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
	tc_host__receipt_attempt(r, a, task_sha, argv_sha);
	return r;
}

/* The attempt directory stays as it is: the scene of the failure.  A
 * receipt already there was not written by tunectl (it writes one receipt
 * per attempt, this one), so it is replaced. */
void
tc_attempt_receipt_fail(tc_json *receipt, const tc_attempt *a,
    const char *status, const char *message)
{
	const char *result = a->layout->result;
	char hex[TC_SHA256_HEX_LEN + 1];
	tc_error ignored = TC_ERROR_INIT;

	tc_attempt_touch(a, TC_ATTEMPT_STDOUT);
	tc_attempt_touch(a, TC_ATTEMPT_STDERR);
	tc_json_object_set_string(receipt, "runner_status", status);
	tc_json_object_set_string(receipt, "error", message);
	tc_receipt_set_now(receipt, "finished_at");
	if (strcmp(status, "failed") == 0 && tc_attempt_is_regular(a, result) &&
	    tc_attempt_sha256(a, result, hex, &ignored) == 0)
		tc_json_object_set_string(receipt, "result_sha256", hex);
	(void)tc_attempt_write_json(a, a->layout->receipt, receipt, 0,
	    &ignored);
	tc_error_clear(&ignored);
}

char *
tc_seconds_str(double s)
{
	tc_buf b = TC_BUF_INIT;

	tc_json_format_double(&b, s);
	return tc_buf_detach(&b, NULL);
}

/* Record a failed host in its receipt and say so. */
static int
host_failed(tc_json *receipt, const tc_attempt *a, const char *status,
    const char **runner_status, tc_error *err)
{
	*runner_status = status;
	tc_attempt_receipt_fail(receipt, a, status, tc_error_msg(err));
	return -1;
}

int
tc_attempt_run_worker(const tc_attempt *a, const tc_runner *runner,
    const tc_run_next_opts *opts, char *const *extra_env, tc_json *receipt,
    double *seconds, const char **runner_status, tc_json **result,
    tc_error *err)
{
	const char *res = a->layout->result;
	tc_proc_result pr;
	tc_error inner = TC_ERROR_INIT;

	*result = NULL;
	*seconds = 0;
	*runner_status = NULL;
	if (tc_attempt_run_host(a, runner, opts->timeout_s, opts->grace_s,
	    extra_env, &pr, &inner) != 0) {
		tc_error_set(err, "%s", tc_error_msg(&inner));
		tc_error_clear(&inner);
		return host_failed(receipt, a, "failed", runner_status, err);
	}
	*seconds = pr.wall_s;
	/* The host and everything it started are gone now.  If it moved the
	 * attempt away, nothing more is written anywhere: the directory
	 * held open may lie outside the root by now. */
	if (tc_attempt_in_place(a, err) != 0) {
		*runner_status = "failed";
		return -1;
	}
	if (pr.timed_out) {
		char *secs = tc_seconds_str(opts->timeout_s);

		tc_error_set(err, "Agent host timed out after %s seconds", secs);
		free(secs);
		return host_failed(receipt, a, "timed_out", runner_status, err);
	}
	tc_json_object_set_int(receipt, "return_code", pr.exit_code);
	if (pr.exit_code != 0) {
		tc_error_set(err, "Agent host exited with status %d", pr.exit_code);
		return host_failed(receipt, a, "failed", runner_status, err);
	}
	if (tc_attempt_left_alone(a, err) != 0)
		return host_failed(receipt, a, "failed", runner_status, err);
	if (tc_attempt_has(a, res) && !tc_attempt_is_regular(a, res)) {
		/* A link could change what was sealed after the fact. */
		tc_error_set(err, "Agent host did not produce a readable phase "
		    "result: %s is not a regular file", a->result);
		return host_failed(receipt, a, "failed", runner_status, err);
	}
	if ((*result = tc_attempt_read_json(a, res, &inner)) == NULL) {
		tc_error_set(err, "Agent host did not produce a readable phase "
		    "result: %s", tc_error_msg(&inner));
		tc_error_clear(&inner);
		return host_failed(receipt, a, "failed", runner_status, err);
	}
	return 0;
}
