/*
 * runner.c - device_lease_runner's run_command (docs/spec/controller.md
 * "Lease runner"): validate a request, take (or inherit) the device lease, run
 * the command under it and record the
 * "superkernel-shared-device-lease-command-v2" manifest, with the lease
 * accounting tunectl adds.
 */
#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lease_internal.h"
#include "tunectl/buf.h"
#include "tunectl/fileio.h"
#include "tunectl/lease.h"
#include "tunectl/path.h"
#include "tunectl/sha256.h"
#include "tunectl/text.h"
#include "tunectl/timeutil.h"

const char *
tc_lease_outcome_name(tc_lease_outcome o)
{
	switch (o) {
	case TC_LEASE_PASSED:
		return "passed";
	case TC_LEASE_FAILED:
		return "failed";
	case TC_LEASE_BLOCKED:
		return "blocked";
	}
	return "failed";
}

int
tc_lease_manifest_fingerprint(const tc_json *manifest, char out[72],
    tc_error *err)
{
	tc_json *copy = tc_json_clone(manifest);
	char hex[65];
	int rc;

	tc_json_object_remove(copy, "manifest_fingerprint");
	rc = tc_json_digest_flags(copy, TC_JSON_NO_NAN, hex, err);
	tc_json_free(copy);
	if (rc != 0)
		return -1;
	memcpy(out, "sha256:", 7);
	memcpy(out + 7, hex, 65);
	return 0;
}

/* Strict UTF-8 (no overlong forms, no surrogates): manifests are JSON. */
static bool
utf8_valid(const char *s)
{
	return tc_utf8_valid(s, strlen(s));
}

char *
tc_lease__beside(const char *manifest, const char *prefix, const char *suffix)
{
	char *dir = tc_path_dirname(manifest);
	const char *name = tc_path_basename(manifest);
	const char *dot = strrchr(name, '.');
	size_t stem_len = strlen(name);
	char *out;

	if (dot != NULL && dot != name && dot[1] != '\0')
		stem_len = (size_t)(dot - name);
	out = tc_xasprintf("%s/%s%.*s%s", strcmp(dir, "/") == 0 ? "" : dir,
	    prefix, (int)stem_len, name, suffix);
	free(dir);
	return out;
}

int
tc_lease__check_argv(char *const *argv, tc_error *err)
{
	char *const *a;

	if (argv == NULL || argv[0] == NULL)
		goto bad;
	for (a = argv; *a != NULL; a++)
		if ((*a)[0] == '\0')
			goto bad;
	return 0;
bad:
	tc_error_set(err, "command argv must be a non-empty string array");
	return -1;
}

int
tc_lease__check_executable(const char *exe, tc_error *err)
{
	struct stat st;
	tc_buf q = TC_BUF_INIT;

	if (exe[0] != '/' || stat(exe, &st) != 0 || !S_ISREG(st.st_mode)) {
		tc_error_set(err, "command executable must be an existing "
		    "absolute file");
		return -1;
	}
	if (access(exe, X_OK) != 0) {
		tc_path_repr(&q, exe);
		tc_error_set(err, "command executable is not executable: %s",
		    tc_buf_cstr(&q));
		tc_buf_free(&q);
		return -1;
	}
	return 0;
}

int
tc_lease__check_run_limits(const tc_lease_request *req,
    double *lease_timeout_s, tc_error *err)
{
	if (req->cwd == NULL || !tc_is_directory(req->cwd)) {
		tc_error_set(err, "command cwd must be an existing directory");
		return -1;
	}
	*lease_timeout_s = req->has_lease_timeout ? req->lease_timeout_s :
	    req->timeout_s;
	if (!(*lease_timeout_s > 0) || !isfinite(*lease_timeout_s)) {
		tc_error_set(err, "lease_timeout_seconds must be positive");
		return -1;
	}
	if (!(req->timeout_s > 0) || !isfinite(req->timeout_s)) {
		tc_error_set(err, "timeout_seconds must be positive");
		return -1;
	}
	if (req->manifest_out == NULL || req->manifest_out[0] == '\0') {
		tc_error_set(err, "lease command manifest path is empty");
		return -1;
	}
	return 0;
}

int
tc_lease__claim_outputs(const char *manifest_out, char **manifest,
    char **stdout_log, char **stderr_log, const char *extra_suffix,
    char **extra_log, tc_error *err)
{
	if ((*manifest = tc_path_resolve(manifest_out, err)) == NULL)
		return -1;
	if (tc_path_exists(*manifest)) {
		tc_error_set(err, "lease command manifest already exists: %s",
		    *manifest);
		return -1;
	}
	*stdout_log = tc_lease__beside(*manifest, "", ".stdout.log");
	*stderr_log = tc_lease__beside(*manifest, "", ".stderr.log");
	if (extra_suffix != NULL)
		*extra_log = tc_lease__beside(*manifest, "", extra_suffix);
	if (tc_path_exists(*stdout_log) || tc_path_exists(*stderr_log) ||
	    (extra_suffix != NULL && tc_path_exists(*extra_log))) {
		tc_error_set(err, "lease command log output already exists");
		return -1;
	}
	return 0;
}

/* Everything the request resolves to once it is validated. */
struct plan {
	long *ids;
	size_t nids;
	char *lease_root;
	char *cwd;
	char *manifest;
	char *stdout_log;
	char *stderr_log;
	char *exe;
	char fingerprint[72];
	double lease_timeout_s;
	char **explicit_env;		/* NULL: inherited */
	const char *command_id;
};

static void
plan_free(struct plan *p)
{
	free(p->ids);
	free(p->lease_root);
	free(p->cwd);
	free(p->manifest);
	free(p->stdout_log);
	free(p->stderr_log);
	free(p->exe);
	tc_envp_free(p->explicit_env);
}

static int
refuse_path(const char *label, const char *path, tc_error *err)
{
	tc_buf q = TC_BUF_INIT;

	tc_path_repr(&q, path);
	tc_error_set(err, "%s is not valid UTF-8: %s", label, tc_buf_cstr(&q));
	tc_buf_free(&q);
	return -1;
}

static int
validate(const tc_lease_request *req, struct plan *p, tc_error *err)
{
	char *const *a;
	char hex[65];

	memset(p, 0, sizeof(*p));
	if (tc_lease__check_argv(req->argv, err) != 0)
		return -1;
	for (a = req->argv; *a != NULL; a++)
		if (!utf8_valid(*a))
			return refuse_path("command argv", *a, err);
	if (tc_lease__check_executable(req->argv[0], err) != 0)
		return -1;
	if (tc_lease_ids_canonical(req->device_ids, req->ndevices, &p->ids,
	    err) != 0)
		return -1;
	p->nids = req->ndevices;
	if (tc_lease__check_run_limits(req, &p->lease_timeout_s, err) != 0)
		return -1;
	if (!utf8_valid(req->manifest_out))
		return refuse_path("manifest path", req->manifest_out, err);
	if (tc_lease__claim_outputs(req->manifest_out, &p->manifest,
	    &p->stdout_log, &p->stderr_log, NULL, NULL, err) != 0)
		return -1;
	if (req->environment != NULL &&
	    (p->explicit_env = tc_lease_env_from_json(req->environment, err))
	    == NULL)
		return -1;
	p->command_id = req->command_id != NULL ? req->command_id :
	    TC_LEASE_DEFAULT_COMMAND_ID;
	if (!utf8_valid(p->command_id))
		return refuse_path("command_id", p->command_id, err);
	if (req->lease_root == NULL || req->lease_root[0] == '\0') {
		tc_error_set(err, "lease root path is empty");
		return -1;
	}
	if (!utf8_valid(req->lease_root))
		return refuse_path("lease root", req->lease_root, err);
	if (!utf8_valid(req->cwd))
		return refuse_path("command cwd", req->cwd, err);
	if ((p->lease_root = tc_path_resolve(req->lease_root, err)) == NULL ||
	    (p->cwd = tc_path_resolve(req->cwd, err)) == NULL ||
	    (p->exe = tc_path_resolve(req->argv[0], err)) == NULL)
		return -1;
	/* A symlink on the way may resolve to a name JSON cannot hold. */
	if (!utf8_valid(p->lease_root))
		return refuse_path("lease root", p->lease_root, err);
	if (!utf8_valid(p->cwd))
		return refuse_path("command cwd", p->cwd, err);
	if (!utf8_valid(p->exe))
		return refuse_path("command executable", p->exe, err);
	if (tc_sha256_file(p->exe, hex, NULL, err) != 0)
		return -1;
	memcpy(p->fingerprint, "sha256:", 7);
	memcpy(p->fingerprint + 7, hex, 65);
	return 0;
}

/* What happened, for the manifest. */
struct record {
	tc_lease_outcome outcome;
	char *reason;			/* NULL: null */
	const char *lease_mode;		/* NULL: null */
	bool ran;
	tc_lease_ran cmd;
	char *start_error;
	char requested_at[40];
	uint64_t requested_ns;
	tc_lease_hold hold;		/* locks (released) with their times */
	tc_lease_lock *locks;		/* copy of hold.locks for accounting */
	size_t nlocks;
	bool acquired;
	char released_at[40];
	uint64_t acquired_ns, released_ns, blocked_ns;
};

static tc_json *
number_json(double v, bool integral)
{
	if (integral && v == floor(v) && fabs(v) < 9e15)
		return tc_json_new_int((int64_t)v);
	return tc_json_new_float(v);
}

static tc_json *
command_json(char *const *argv, const struct record *r)
{
	tc_json *c = tc_json_new_object(), *a = tc_json_new_array();
	char *const *p;

	for (p = argv; *p != NULL; p++)
		tc_json_array_push(a, tc_json_new_string(*p));
	tc_json_object_set(c, "argv", a);
	tc_json_object_set_string(c, "started_at", r->cmd.started_at);
	tc_json_object_set_string(c, "finished_at", r->cmd.finished_at);
	tc_json_object_set_bool(c, "timed_out", r->cmd.timed_out);
	if (r->cmd.started) {
		tc_json_object_set_int(c, "pid", r->cmd.pid);
		tc_json_object_set_int(c, "return_code", r->cmd.return_code);
	} else {
		tc_json_object_set_null(c, "pid");
		tc_json_object_set_null(c, "return_code");
		tc_json_object_set_string(c, "error", r->start_error);
	}
	if (r->cmd.interrupted_by != 0)
		tc_json_object_set_string(c, "interrupted_by",
		    sigabbrev_np(r->cmd.interrupted_by) != NULL ?
		    sigabbrev_np(r->cmd.interrupted_by) : "signal");
	return c;
}

static tc_json *
accounting_json(const struct record *r)
{
	tc_json *acc = tc_json_new_object(), *devs = tc_json_new_array();
	uint64_t until;
	size_t i;

	tc_json_object_set_string(acc, "requested_at", r->requested_at);
	for (i = 0; i < r->nlocks; i++) {
		tc_json *d = tc_json_new_object();

		tc_json_object_set_int(d, "device_id", r->locks[i].device_id);
		tc_json_object_set_string(d, "acquired_at",
		    r->locks[i].acquired_at);
		tc_json_array_push(devs, d);
	}
	tc_json_object_set(acc, "devices", devs);
	if (r->acquired) {
		tc_json_object_set_string(acc, "acquired_at",
		    r->locks[r->nlocks - 1].acquired_at);
		tc_json_object_set_string(acc, "released_at", r->released_at);
		tc_json_object_set(acc, "wait_seconds", tc_json_new_float(
		    tc_lease__round_us((double)(r->acquired_ns -
		    r->requested_ns) / 1e9)));
		tc_json_object_set(acc, "held_seconds", tc_json_new_float(
		    tc_lease__round_us((double)(r->released_ns -
		    r->acquired_ns) / 1e9)));
	} else {
		until = r->blocked_ns != 0 ? r->blocked_ns : r->requested_ns;
		tc_json_object_set_null(acc, "acquired_at");
		tc_json_object_set_null(acc, "released_at");
		tc_json_object_set(acc, "wait_seconds", tc_json_new_float(
		    tc_lease__round_us((double)(until - r->requested_ns) /
		    1e9)));
		tc_json_object_set_null(acc, "held_seconds");
	}
	return acc;
}

static tc_json *
manifest_json(const tc_lease_request *req, const struct plan *p,
    const struct record *r)
{
	tc_json *m = tc_json_new_object(), *ids = tc_json_new_array();
	tc_json *exe = tc_json_new_object(), *logs = tc_json_new_object();
	size_t i;

	tc_json_object_set_string(m, "schema_version", TC_LEASE_COMMAND_SCHEMA);
	tc_json_object_set_string(m, "command_id", p->command_id);
	tc_json_object_set_string(m, "status", tc_lease_outcome_name(r->outcome));
	if (r->reason != NULL)
		tc_json_object_set_string(m, "reason", r->reason);
	else
		tc_json_object_set_null(m, "reason");
	tc_json_object_set_string(m, "lease_root", p->lease_root);
	for (i = 0; i < p->nids; i++)
		tc_json_array_push(ids, tc_json_new_int(p->ids[i]));
	tc_json_object_set(m, "device_ids", ids);
	tc_json_object_set(m, "lease_timeout_seconds", req->has_lease_timeout ?
	    tc_json_new_float(req->lease_timeout_s) :
	    number_json(req->timeout_s, req->timeout_integral));
	tc_json_object_set_string(m, "cwd", p->cwd);
	tc_json_object_set_string(m, "environment_mode",
	    p->explicit_env != NULL ? "explicit_environment" :
	    "inherited_parent_environment");
	if (r->lease_mode != NULL)
		tc_json_object_set_string(m, "lease_mode", r->lease_mode);
	else
		tc_json_object_set_null(m, "lease_mode");
	tc_json_object_set_string(exe, "path", p->exe);
	tc_json_object_set_string(exe, "file_fingerprint", p->fingerprint);
	tc_json_object_set(m, "executable", exe);
	if (r->ran)
		tc_json_object_set(m, "command", command_json(req->argv, r));
	else
		tc_json_object_set_null(m, "command");
	tc_json_object_set_string(logs, "stdout", p->stdout_log);
	tc_json_object_set_string(logs, "stderr", p->stderr_log);
	tc_json_object_set(m, "logs", logs);
	tc_json_object_set(m, "lease_accounting", accounting_json(r));
	return m;
}

static void
block(struct record *r, const char *prefix, const char *msg)
{
	r->outcome = TC_LEASE_BLOCKED;
	r->reason = tc_xasprintf("%s%s", prefix, msg);
	r->lease_mode = NULL;
	if (r->blocked_ns == 0)
		r->blocked_ns = tc_monotonic_ns();
}

/* Run the command while the lease is held (or inherited). */
static int
run_under_lease(const tc_lease_request *req, const struct plan *p,
    struct record *r, tc_error *err)
{
	tc_error e = TC_ERROR_INIT;
	tc_lease_spawn spec;
	char *dir;
	char **child_env;
	int *lock_fds, rc;
	size_t i;

	child_env = tc_lease_environment(p->explicit_env != NULL ?
	    p->explicit_env : environ, p->ids, p->nids, p->lease_root, &e);
	if (child_env == NULL) {
		block(r, "parent lease context invalid: ", tc_error_msg(&e));
		tc_error_clear(&e);
		return 0;
	}
	dir = tc_path_dirname(p->manifest);
	if (tc_mkdirs(dir, err) != 0) {
		free(dir);
		tc_envp_free(child_env);
		return -1;
	}
	free(dir);
	memset(&spec, 0, sizeof(spec));
	spec.argv = req->argv;
	spec.envp = child_env;
	spec.cwd = p->cwd;
	spec.stdout_path = p->stdout_log;
	spec.stderr_path = p->stderr_log;
	spec.timeout_s = req->timeout_s;
	spec.grace_s = req->grace_s > 0 ? req->grace_s :
	    (req->timeout_s < 5 ? req->timeout_s : 5);
	lock_fds = tc_xcalloc(r->hold.len + 1, sizeof(*lock_fds));
	for (i = 0; i < r->hold.len; i++)
		lock_fds[i] = r->hold.locks[i].fd;
	spec.inherit_fds = lock_fds;
	spec.ninherit = r->hold.len;
	rc = tc_lease__run_argv(&spec, &r->cmd, err);
	free(lock_fds);
	tc_envp_free(child_env);
	if (rc != 0)
		return -1;
	r->ran = true;
	if (!r->cmd.started) {
		tc_error se = TC_ERROR_INIT;

		tc_error_os(&se, r->cmd.start_errno, req->argv[0]);
		r->start_error = tc_xstrdup(tc_error_msg(&se));
		tc_error_clear(&se);
		r->outcome = TC_LEASE_FAILED;
		r->reason = tc_xstrdup("command_start_failed");
	} else if (r->cmd.interrupted_by != 0) {
		r->outcome = TC_LEASE_FAILED;
		r->reason = tc_xstrdup("runner_interrupted");
	} else if (r->cmd.timed_out) {
		r->outcome = TC_LEASE_FAILED;
		r->reason = tc_xstrdup("command_timeout");
	} else if (r->cmd.return_code != 0) {
		r->outcome = TC_LEASE_FAILED;
		r->reason = tc_xstrdup("command_nonzero");
	} else {
		r->outcome = TC_LEASE_PASSED;
	}
	return 0;
}

static void
release(struct record *r)
{
	if (r->hold.len == 0)
		return;
	tc_lease_timestamp(r->released_at);
	r->released_ns = tc_monotonic_ns();
	r->nlocks = r->hold.len;
	r->locks = tc_xmalloc(r->nlocks * sizeof(*r->locks));
	memcpy(r->locks, r->hold.locks, r->nlocks * sizeof(*r->locks));
	r->acquired = true;
	r->acquired_ns = r->locks[r->nlocks - 1].acquired_ns;
	tc_lease_release(&r->hold);
}

int
tc_lease_run(const tc_lease_request *req, tc_json **manifest,
    tc_lease_outcome *outcome, tc_error *err)
{
	tc_error e = TC_ERROR_INIT;
	struct plan p;
	struct record r;
	tc_json *m;
	char fp[72];
	int held, rc = 0;

	*manifest = NULL;
	if (validate(req, &p, err) != 0) {
		plan_free(&p);
		return TC_LEASE_EINPUT;
	}
	memset(&r, 0, sizeof(r));
	r.hold.timed_out_device = -1;
	tc_lease_timestamp(r.requested_at);
	r.requested_ns = tc_monotonic_ns();

	held = tc_lease_parent_held(p.ids, p.nids, p.lease_root, environ, &e);
	/* The markers are a claim; the kernel's flocks are the proof. */
	if (held == 1 && tc_lease__check_inherited(p.lease_root, p.ids,
	    p.nids, &e) != 0)
		held = -1;
	if (held < 0) {
		block(&r, "parent lease context invalid: ", tc_error_msg(&e));
	} else if (held == 1) {
		r.lease_mode = "inherited";
	} else {
		int a = tc_lease_acquire(p.lease_root, p.ids, p.nids,
		    p.lease_timeout_s, p.command_id, &r.hold, &e);

		if (a == TC_LEASE_TIMEOUT) {
			block(&r, "", tc_error_msg(&e));
		} else if (a != TC_LEASE_ACQUIRED) {
			tc_error_set(err, "%s", tc_error_msg(&e));
			rc = TC_LEASE_EIO;
			goto out;
		} else {
			r.lease_mode = "acquired";
		}
	}
	tc_error_clear(&e);
	if (r.outcome != TC_LEASE_BLOCKED &&
	    run_under_lease(req, &p, &r, err) != 0) {
		release(&r);
		rc = TC_LEASE_EIO;
		goto out;
	}
	release(&r);

	m = manifest_json(req, &p, &r);
	if (tc_lease_manifest_fingerprint(m, fp, err) != 0) {
		tc_json_free(m);
		rc = TC_LEASE_EIO;
		goto out;
	}
	tc_json_object_set_string(m, "manifest_fingerprint", fp);
	if (tc_write_json(p.manifest, m, TC_WRITE_EXCLUSIVE | TC_WRITE_MKDIRS,
	    err) != 0) {
		tc_json_free(m);
		rc = TC_LEASE_EIO;
		goto out;
	}
	*manifest = m;
	*outcome = r.outcome;
out:
	tc_error_clear(&e);
	free(r.reason);
	free(r.start_error);
	free(r.locks);
	plan_free(&p);
	return rc;
}
