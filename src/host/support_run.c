/*
 * support_run.c - "support run": one support attempt through an agent
 * host, built on run-next's attempt mechanics (host_internal.h), and the
 * tree check that holds the role to what it may change.
 *
 * Locking: "<session>.support.lock" serialises support runs of a session
 * (a second one would write while the first is being checked).  The
 * session lock is held only while the task is cut and while the session
 * is read again at the end, so the worker itself may read the session.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "tunectl/buf.h"
#include "tunectl/evidence.h"
#include "tunectl/fileio.h"
#include "tunectl/lock.h"
#include "tunectl/path.h"
#include "tunectl/session.h"
#include "tunectl/sha256.h"
#include "tunectl/support.h"
#include "tunectl/timeutil.h"
#include "host_internal.h"

static const tc_attempt_layout support_layout = {
	TC_SUPPORT_AREA, "support-task.json", "support-result.json",
	"support-receipt.json"
};

/* Paths (relative to the root) that no role may change. */
static const char *const protected_areas[] = {
	"phases", "dispatches", "imports", TC_SUPPORT_AREA,
	"FINAL_E2E_REPORT.md", NULL
};

struct check {
	char **skip;		/* left out of both snapshots (NULL-terminated) */
	size_t nskip;
	char *session_rel;	/* the session file, when inside the root */
	tc_json *bound;		/* paths sealed steps bind (keys) */
	const char *attempt_rel;
	bool read_only;
	tc_json *changed, *violations;
};

static void
skip_add(struct check *c, char *rel)
{
	c->skip = tc_xrealloc(c->skip, (c->nskip + 2) * sizeof(*c->skip));
	c->skip[c->nskip++] = rel;
	c->skip[c->nskip] = NULL;
}

static void
check_free(struct check *c)
{
	size_t i;

	for (i = 0; i < c->nskip; i++)
		free(c->skip[i]);
	free(c->skip);
	free(c->session_rel);
	tc_json_free(c->bound);
	tc_json_free(c->changed);
	tc_json_free(c->violations);
}

/* rel of path under root, or NULL when it is not inside. */
static char *
rel_under(const char *root, const char *path)
{
	char *abs = tc_path_resolve(path, NULL);
	char *rel = NULL;

	if (abs != NULL && tc_path_is_within(abs, root) &&
	    strcmp(abs, root) != 0)
		rel = tc_path_relative_to(abs, root);
	free(abs);
	return rel;
}

/*
 * The run-next attempt this support run was started from, when there is
 * one: run-next holds <session>.run.lock for its whole attempt, which is
 * the newest attempt of the step the support task serves.  Derived from
 * the lock and the attempts on disk, never from the caller's
 * environment (TUNECTL_ATTEMPT is the caller's to set, and a caller
 * could name any directory to have it left out of the check).
 */
static char *
running_attempt(const char *root, const char *abs_session,
    const char *step_id)
{
	char *base = tc_xasprintf("%s.run", abs_session);
	tc_lock probe = TC_LOCK_INIT;
	tc_error e = TC_ERROR_INIT;
	tc_attempt a = TC_ATTEMPT_INIT;
	bool held;
	char *rel = NULL;

	held = tc_lock_acquire(&probe, base, 0.0, &e) != 0 &&
	    strncmp(tc_error_msg(&e), TC_LOCK_HELD_PREFIX,
	    strlen(TC_LOCK_HELD_PREFIX)) == 0;
	tc_lock_release(&probe);
	tc_error_clear(&e);
	free(base);
	if (held && step_id != NULL && tc_attempt_open_newest(root,
	    &tc_dispatch_layout, step_id, &a, &e) == 1)
		rel = tc_xstrdup(a.rel);
	tc_error_clear(&e);
	tc_attempt_free(&a);
	return rel;
}

/*
 * What the check leaves out: the role's own output directory, result and
 * logs; the session's lock files (their content is diagnostics a holder
 * rewrites); and the logs of the run-next attempt this run was started
 * from, which its host keeps streaming meanwhile.
 */
static void
check_init(struct check *c, const char *root, const char *abs_session,
    const tc_attempt *a, bool read_only, const char *step_id,
    tc_json *bound)
{
	static const char *const locks[] = { "lock", "run.lock",
	    "support.lock" };
	char *outer;
	size_t i;

	memset(c, 0, sizeof(*c));
	c->read_only = read_only;
	c->bound = bound;
	c->attempt_rel = a->rel;
	skip_add(c, tc_xasprintf("%s/%s", a->rel, TC_SUPPORT_OUTPUT_DIR));
	skip_add(c, tc_attempt_rel(a, a->layout->result));
	skip_add(c, tc_attempt_rel(a, "runner.stdout.log"));
	skip_add(c, tc_attempt_rel(a, "runner.stderr.log"));
	c->session_rel = rel_under(root, abs_session);
	for (i = 0; c->session_rel != NULL && i < 3; i++)
		skip_add(c, tc_xasprintf("%s.%s", c->session_rel, locks[i]));
	if ((outer = running_attempt(root, abs_session, step_id)) != NULL) {
		skip_add(c, tc_xasprintf("%s/runner.stdout.log", outer));
		skip_add(c, tc_xasprintf("%s/runner.stderr.log", outer));
		free(outer);
	}
	c->changed = tc_json_new_array();
	c->violations = tc_json_new_array();
}

static bool
under(const char *rel, const char *area)
{
	size_t n = strlen(area);

	return strncmp(rel, area, n) == 0 && (rel[n] == '\0' || rel[n] == '/');
}

static void
on_changed(const char *rel, void *ctx)
{
	struct check *c = ctx;
	const char *const *p;
	bool bad = c->read_only;
	size_t i;

	tc_json_array_push(c->changed, tc_json_new_string(rel));
	for (p = protected_areas; !bad && *p != NULL; p++)
		bad = under(rel, *p);
	if (!bad && c->session_rel != NULL)
		bad = strcmp(rel, c->session_rel) == 0;
	/* sealed evidence wherever it lies (an S0 run set under s0/ ...) */
	for (i = 0; !bad && c->bound != NULL && i < c->bound->u.obj.len; i++)
		bad = under(rel, c->bound->u.obj.members[i].key);
	if (bad)
		tc_json_array_push(c->violations, tc_json_new_string(rel));
}

static tc_json *
check_record(const struct check *c)
{
	tc_json *o = tc_json_new_object(), *skip = tc_json_new_array();
	size_t i;

	for (i = 0; i < c->nskip; i++)
		tc_json_array_push(skip, tc_json_new_string(c->skip[i]));
	tc_json_object_set(o, "excluded", skip);
	tc_json_object_set(o, "changed", tc_json_clone(c->changed));
	tc_json_object_set(o, "violations", tc_json_clone(c->violations));
	tc_json_object_set_bool(o, "read_only", c->read_only);
	return o;
}

/* "a, b, c" with at most 20 names, then "and N more". */
static char *
name_list(const tc_json *arr)
{
	tc_buf b = TC_BUF_INIT;
	size_t i;

	for (i = 0; i < arr->u.arr.len && i < 20; i++)
		tc_buf_printf(&b, "%s%s", i > 0 ? ", " : "",
		    arr->u.arr.items[i]->u.str.ptr);
	if (arr->u.arr.len > 20)
		tc_buf_printf(&b, " and %zu more", arr->u.arr.len - 20);
	return tc_buf_detach(&b, NULL);
}

/* dst gets a copy of src's member of each of keys (NULL-terminated). */
static void
copy_keys(tc_json *dst, const tc_json *src, const char *const *keys)
{
	size_t i;

	for (i = 0; keys[i] != NULL; i++)
		tc_json_object_set(dst, keys[i],
		    tc_json_clone(tc_json_get(src, keys[i])));
}

static tc_json *
receipt_skeleton(const tc_json *task, const tc_attempt *a,
    const char *task_sha, const char *argv_sha)
{
	static const char *const task_keys[] = {
		"session_id", "session_fingerprint", "request", NULL
	};
	static const char *const role_keys[] = {
		"agent_id", "skill", "read_only", NULL
	};
	static const char *const step_keys[] = { "step_id", "phase", NULL };
	const tc_json *role = tc_json_get(task, "role");
	const tc_json *step = tc_json_get(task, "requested_for");
	tc_json *r = tc_json_new_object(), *for_step = tc_json_new_object();

	tc_json_object_set_string(r, "schema_version",
	    TC_SUPPORT_RECEIPT_SCHEMA);
	copy_keys(r, task, task_keys);
	copy_keys(r, role, role_keys);
	copy_keys(for_step, step, step_keys);
	tc_json_object_set(r, "requested_for", for_step);
	tc_host__receipt_attempt(r, a, task_sha, argv_sha);
	tc_attempt_set_rel(r, "output_dir", a, TC_SUPPORT_OUTPUT_DIR);
	return r;
}

/* The attempt's files: the phase task of the step served (for tools run
 * through execute-phase), the output directory, the support task. */
static int
prepare_attempt(const char *abs_session, tc_json *task,
    const tc_attempt *a, const char *program, tc_error *err)
{
	tc_json *attempt = tc_json_new_object();
	char *output = tc_path_join(a->dir, TC_SUPPORT_OUTPUT_DIR);
	tc_json *pt = tc_dispatch_task_for(abs_session, program, err);
	int rc = -1;

	tc_json_object_set_int(attempt, "number", a->number);
	tc_json_object_set_string(attempt, "dir", a->rel);
	tc_attempt_set_rel(attempt, "output_dir", a, TC_SUPPORT_OUTPUT_DIR);
	tc_attempt_set_rel(attempt, "result_path", a, a->layout->result);
	tc_attempt_set_rel(attempt, "phase_task", a, "phase-task.json");
	tc_json_object_set(task, "attempt", attempt);
	if (pt != NULL && mkdirat(a->fd, TC_SUPPORT_OUTPUT_DIR, 0777) != 0)
		tc_error_os(err, errno, output);
	else if (pt != NULL &&
	    tc_attempt_write_json(a, TC_ATTEMPT_TASK, pt, TC_WRITE_EXCLUSIVE,
	    err) == 0 &&
	    tc_attempt_write_json(a, a->layout->task, task, TC_WRITE_EXCLUSIVE,
	    err) == 0)
		rc = 0;
	tc_json_free(pt);
	free(output);
	return rc;
}

/* Is the session still the one the task was cut from? */
static int
still_current(const char *abs_session, const tc_json *task, tc_error *err)
{
	tc_lock lock = TC_LOCK_INIT;
	tc_session *s = NULL;
	char hex[65];
	const char *want = tc_json_get_string(task, "session_fingerprint");
	int rc = -1;

	if (tc_session_lock(abs_session, &lock, err) != 0)
		return -1;
	if (tc_session_load(abs_session, 0, &s, err) == 0 &&
	    tc_session_fingerprint(s, hex, err) == 0) {
		if (want == NULL || strcmp(hex, want) != 0)
			tc_error_set(err, "stale support task does not match the "
			    "current session");
		else
			rc = 0;
	}
	tc_session_free(s);
	tc_lock_release(&lock);
	return rc;
}

/* After the host ran: its exit, its result, the tree, the session. */
static const char *
judge(const char *abs_session, const tc_json *task,
    const tc_attempt *a, const tc_proc_result *pr,
    const struct check *c, const tc_support_opts *opts, tc_error *err)
{
	tc_error inner = TC_ERROR_INIT;
	tc_json *result;
	int rc;

	if (pr->timed_out) {
		char *secs = tc_seconds_str(opts->timeout_s);

		tc_error_set(err, "Agent host timed out after %s seconds", secs);
		free(secs);
		return "timed_out";
	}
	if (pr->exit_code != 0) {
		tc_error_set(err, "Agent host exited with status %d",
		    pr->exit_code);
		return "failed";
	}
	if (c->violations->u.arr.len > 0) {
		char *names = name_list(c->violations);

		if (c->read_only)
			tc_error_set(err, "read-only support role %s changed files "
			    "outside its output directory: %s",
			    tc_json_get_string(tc_json_get(task, "role"),
			    "agent_id"), names);
		else
			tc_error_set(err, "support role %s changed protected "
			    "evidence: %s", tc_json_get_string(tc_json_get(task,
			    "role"), "agent_id"), names);
		free(names);
		return "failed";
	}
	if (tc_attempt_left_alone(a, err) != 0)
		return "failed";
	if (tc_attempt_has(a, a->layout->result) &&
	    !tc_attempt_is_regular(a, a->layout->result)) {
		tc_error_set(err, "Agent host did not produce a readable support "
		    "result: %s is not a regular file", a->result);
		return "failed";
	}
	if ((result = tc_attempt_read_json(a, a->layout->result,
	    &inner)) == NULL) {
		tc_error_set(err, "Agent host did not produce a readable support "
		    "result: %s", tc_error_msg(&inner));
		tc_error_clear(&inner);
		return "failed";
	}
	rc = tc_support_result_validate(result, task, err);
	tc_json_free(result);
	if (rc != 0 || still_current(abs_session, task, err) != 0)
		return "failed";
	return "passed";
}

int
tc_support_run(const char *session_path, const char *role_id,
    const tc_runner *runner, const tc_support_opts *opts, tc_json **receipt_out,
    tc_error *err)
{
	tc_lock slock = TC_LOCK_INIT, lock = TC_LOCK_INIT;
	tc_attempt a = TC_ATTEMPT_INIT;
	struct check c;
	bool have_check = false;
	tc_tree_snap before = { NULL, 0 }, after = { NULL, 0 };
	tc_json *task = NULL, *receipt = NULL, *bound = NULL;
	tc_session *sess = NULL;
	char task_sha[TC_SHA256_HEX_LEN + 1], argv_sha[65];
	char *abs = NULL, *root = NULL;
	const char *status;
	tc_proc_result pr;
	tc_error inner = TC_ERROR_INIT;
	int rc = -1;

	*receipt_out = NULL;
	if (runner == NULL || runner->argc == 0) {
		tc_error_set(err, "runner_argv must be a non-empty string list");
		return -1;
	}
	if (!(opts->timeout_s > 0) || !isfinite(opts->timeout_s)) {
		tc_error_set(err, "timeout_seconds must be positive");
		return -1;
	}
	if ((abs = tc_path_resolve(session_path, err)) == NULL)
		return -1;
	if (tc_attempt_lock(abs, "support", "support run", &slock, err) != 0)
		goto out;
	if (tc_session_lock(abs, &lock, err) != 0)
		goto out;
	if ((task = tc_support_task(abs, role_id, opts->request, err)) == NULL)
		goto out;
	/* what the sealed steps bind, read while the session is locked */
	if (tc_session_load(abs, 0, &sess, err) != 0)
		goto out;
	bound = tc_session_bound_paths(sess);
	if ((root = tc_path_resolve(tc_json_get_string(task, "artifact_root"),
	    err)) == NULL)
		goto out;
	tc_attempt_end_orphans(root, &support_layout, role_id);
	if (tc_attempt_create(root, &support_layout, role_id, &a, err) != 0 ||
	    prepare_attempt(abs, task, &a, opts->seal_program, err) != 0)
		goto out;
	tc_lock_release(&lock);
	if (tc_attempt_sha256(&a, a.layout->task, task_sha, err) != 0 ||
	    tc_runner_digest(runner, argv_sha, err) != 0)
		goto out;
	receipt = receipt_skeleton(task, &a, task_sha, argv_sha);
	check_init(&c, root, abs, &a,
	    tc_json_truthy(tc_json_get(tc_json_get(task, "role"), "read_only")),
	    tc_json_get_string(tc_json_get(task, "requested_for"), "step_id"),
	    bound);
	bound = NULL;
	have_check = true;
	if (tc_tree_snapshot(root, (const char *const *)c.skip, &before,
	    &inner) != 0) {
		tc_error_set(err, "cannot take the artifact root's snapshot "
		    "before the support worker: %s", tc_error_msg(&inner));
		tc_attempt_receipt_fail(receipt, &a, "failed",
		    tc_error_msg(err));
		goto out;
	}
	if (tc_attempt_run_host(&a, runner, opts->timeout_s, opts->grace_s, NULL,
	    &pr, &inner) != 0) {
		tc_error_set(err, "%s", tc_error_msg(&inner));
		tc_attempt_receipt_fail(receipt, &a, "failed",
		    tc_error_msg(err));
		goto out;
	}
	if (tc_tree_snapshot(root, (const char *const *)c.skip, &after,
	    &inner) != 0) {
		tc_error_set(err, "cannot take the artifact root's snapshot "
		    "after the support worker: %s", tc_error_msg(&inner));
		tc_attempt_receipt_fail(receipt, &a, "failed",
		    tc_error_msg(err));
		goto out;
	}
	tc_tree_snap_diff(&before, &after, on_changed, &c);
	tc_json_object_set(receipt, "tree_check", check_record(&c));
	if (!pr.timed_out)
		tc_json_object_set_int(receipt, "return_code", pr.exit_code);
	status = judge(abs, task, &a, &pr, &c, opts, err);
	if (strcmp(status, "passed") != 0) {
		tc_attempt_receipt_fail(receipt, &a, status,
		    tc_error_msg(err));
		goto out;
	}
	{
		char hex[TC_SHA256_HEX_LEN + 1];

		tc_json_object_set_string(receipt, "runner_status", "passed");
		if (tc_attempt_sha256(&a, a.layout->result, hex, err) != 0)
			goto out;
		tc_json_object_set_string(receipt, "result_sha256", hex);
		tc_receipt_set_now(receipt, "finished_at");
		if (tc_attempt_write_json(&a, a.layout->receipt, receipt,
		    TC_WRITE_EXCLUSIVE, err) != 0)
			goto out;
	}
	rc = 0;
out:
	if (receipt != NULL && a.fd >= 0 && tc_attempt_has(&a,
	    a.layout->receipt)) {
		*receipt_out = receipt;
		receipt = NULL;
	}
	tc_lock_release(&lock);
	tc_lock_release(&slock);
	tc_tree_snap_free(&before);
	tc_tree_snap_free(&after);
	if (have_check)
		check_free(&c);
	tc_error_clear(&inner);
	tc_json_free(receipt);
	tc_json_free(task);
	tc_json_free(bound);
	tc_session_free(sess);
	tc_attempt_free(&a);
	free(root);
	free(abs);
	return rc;
}
