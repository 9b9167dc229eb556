/*
 * state_store.c - the state tool wrapper around the pure transition:
 * caller permission (never from inside a dispatched worker), the op dir
 * confined strictly inside <project>/custom/, the exclusive lock, reading
 * or synthesising .orchestrator_state.json, tunectl's policies (no
 * rollback once Stage 5 was entered, Stage 5 starts only after the entry
 * confirmation and closes only on a bound stage5-check PASS), the lint
 * gate, the SPEC.md freeze, the atomic write (pypto-orchestration.md
 * docs/spec/pypto.md "State transition wrapper"), and the orchestration
 * bookkeeping that goes with an action.  Also "show" (state + legal next
 * actions) and "history".
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pypto_internal.h"
#include "orch_internal.h"
#include "tunectl/attempt.h"
#include "tunectl/fileio.h"
#include "tunectl/lock.h"
#include "tunectl/path.h"
#include "tunectl/pypto_state.h"
#include "tunectl/sha256.h"

static const char *const allowed_agents[] = {
	"build", "pypto-pro-op-orchestrator", NULL
};

/* path.resolve(base, p): absolute, "." and ".." applied lexically. */
static char *
lexical_resolve(const char *base, const char *p)
{
	char *joined = p[0] == '/' ? tc_xstrdup(p) :
	    tc_xasprintf("%s/%s", base, p);
	char **parts = tc_xcalloc(strlen(joined) + 1, sizeof(*parts));
	size_t n = 0, i;
	char *save = NULL, *tok;
	tc_buf out = TC_BUF_INIT;

	for (tok = strtok_r(joined, "/", &save); tok != NULL;
	    tok = strtok_r(NULL, "/", &save)) {
		if (strcmp(tok, ".") == 0)
			continue;
		if (strcmp(tok, "..") == 0) {
			if (n > 0)
				n--;
			continue;
		}
		parts[n++] = tok;
	}
	for (i = 0; i < n; i++) {
		tc_buf_putc(&out, '/');
		tc_buf_puts(&out, parts[i]);
	}
	if (n == 0)
		tc_buf_putc(&out, '/');
	free(parts);
	free(joined);
	return tc_buf_detach(&out, NULL);
}

static char *
base_dir(const char *project)
{
	char cwd[4096];

	if (getcwd(cwd, sizeof(cwd)) == NULL)
		strcpy(cwd, "/");
	if (project == NULL || project[0] == '\0')
		return tc_xstrdup(cwd);
	return lexical_resolve(cwd, project);
}

char *
tc_pypto_resolve_op_dir(const char *project, const char *op_dir,
    char **custom_root, tc_error *err)
{
	char *base = base_dir(project);
	char *custom = lexical_resolve(base, "custom");
	char *dir = lexical_resolve(base, op_dir != NULL ? op_dir : "");
	bool ok = tc_path_is_within(dir, custom) && strcmp(dir, custom) != 0;

	if (ok) {
		/* Also refuse a symlink that leads out of custom/. */
		char *rd = tc_path_resolve(dir, NULL);
		char *rc = tc_path_resolve(custom, NULL);

		ok = rd != NULL && rc != NULL && tc_path_is_within(rd, rc) &&
		    strcmp(rd, rc) != 0;
		free(rd);
		free(rc);
	}
	free(base);
	if (!ok) {
		tc_error_set(err, "permission denied: state_transition may only "
		    "update an operator directory under %s, but received %s.",
		    custom, dir);
		free(custom);
		free(dir);
		return NULL;
	}
	if (custom_root != NULL)
		*custom_root = custom;
	else
		free(custom);
	return dir;
}

static void
deny(const char *agent, tc_error *err)
{
	tc_error_set(err, "permission denied: state_transition is restricted "
	    "to the PyPTO-Pro primary, but was called by \"%s\". Subagents "
	    "must not modify .orchestrator_state.json; return stage results "
	    "to the orchestrator instead.", agent[0] != '\0' ? agent :
	    "(unknown)");
}

/* A dispatched worker carries TUNECTL_ATTEMPT (and its agent name): it may
 * never write the state, whatever --agent it passes. */
int
tc_pypto_refuse_worker(tc_error *err)
{
	const char *agent = getenv(TC_PYPTO_AGENT_ENV);

	if (!tc_attempt_in_worker())
		return 0;
	deny(agent != NULL && *agent != '\0' ? agent :
	    "a dispatched worker (TUNECTL_ATTEMPT is set)", err);
	return -1;
}

static int
check_agent(const char *agent, tc_error *err)
{
	size_t i;

	if (tc_pypto_refuse_worker(err) != 0)
		return -1;
	if (agent == NULL)
		return 0;
	for (i = 0; allowed_agents[i] != NULL; i++)
		if (strcmp(agent, allowed_agents[i]) == 0)
			return 0;
	deny(agent, err);
	return -1;
}

void
tc_pypto_sha_buf(const void *data, size_t len, char hex[65])
{
	tc_sha256_hex(data, len, hex);
}

/* Read the state file, or synthesise it (exists = false); the bytes read
 * are kept: they are the state's fingerprint and what a worker's write
 * is restored from. */
static tc_json *
read_state(const char *op_dir, const char *state_path, bool *exists,
    char **raw, size_t *raw_len, tc_error *err)
{
	tc_json *v;
	char *text;
	size_t len;

	*raw = NULL;
	*raw_len = 0;
	if (!tc_path_exists(state_path)) {
		*exists = false;
		return tc_pypto_state_initial(tc_path_basename(op_dir), NULL);
	}
	*exists = true;
	if ((text = tc_json_read_path(state_path, &len, err)) == NULL)
		return NULL;
	if ((v = tc_json_parse_text(text, len, err)) == NULL) {
		free(text);
		return NULL;
	}
	if (v->type != TC_JSON_OBJECT) {
		tc_json_free(v);
		free(text);
		tc_error_set(err, "invalid orchestrator state file content");
		return NULL;
	}
	*raw = text;
	*raw_len = len;
	return v;
}

int
tc_pypto_store_open(const tc_pypto_state_opts *o, bool lock,
    double lock_timeout_s, tc_pypto_store *st, tc_error *err)
{
	memset(st, 0, sizeof(*st));
	st->lock.fd = -1;
	if ((st->op_dir = tc_pypto_resolve_op_dir(o->project, o->op_dir, NULL,
	    err)) == NULL)
		return -1;
	st->project = base_dir(o->project);
	st->state_path = tc_path_join(st->op_dir, TC_PYPTO_STATE_FILE);
	if (lock) {
		if (tc_lock_acquire(&st->lock, st->state_path, lock_timeout_s,
		    err) != 0)
			goto fail;
		st->locked = true;
	}
	if ((st->state = read_state(st->op_dir, st->state_path, &st->exists,
	    &st->raw, &st->raw_len, err)) == NULL)
		goto fail;
	if (st->raw != NULL)
		tc_pypto_sha_buf(st->raw, st->raw_len, st->sha);
	return 0;
fail:
	tc_pypto_store_close(st);
	return -1;
}

/* The digest of the state tunectl wrote last, so that a refused accept
 * can tell a state moved on by tunectl (a legitimately stale task) from
 * one edited behind its back.  Best effort: without the mark a refused
 * accept restores its dispatch snapshot, the safe direction. */
static void
mark_written(const tc_pypto_store *st)
{
	char *path = tc_xasprintf("%s/%s/%s", st->op_dir, TC_PYPTO_ORCH_DIR,
	    TC_PYPTO_WRITTEN_MARK);
	char *line = tc_xasprintf("%s\n", st->sha);
	tc_error e = TC_ERROR_INIT;

	(void)tc_write_atomic(path, line, strlen(line), TC_WRITE_MKDIRS, &e);
	tc_error_clear(&e);
	free(line);
	free(path);
}

bool
tc_pypto_store_written_by_us(const tc_pypto_store *st)
{
	char bound[65], *where = NULL;
	int v = tc_pypto_state_binding(st, bound, &where);
	char *path, *text;
	bool ours;

	free(where);
	if (v != TC_PYPTO_STATE_UNBOUND)
		return v == TC_PYPTO_STATE_OURS;
	/* no binding outside: the mark inside the op dir, a weaker word */
	path = tc_xasprintf("%s/%s/%s", st->op_dir, TC_PYPTO_ORCH_DIR,
	    TC_PYPTO_WRITTEN_MARK);
	text = tc_read_file(path, 128, NULL, NULL);
	ours = text != NULL && st->raw != NULL &&
	    strncmp(text, st->sha, TC_SHA256_HEX_LEN) == 0 &&
	    text[TC_SHA256_HEX_LEN] == '\n';

	free(text);
	free(path);
	return ours;
}

int
tc_pypto_store_snapshot(const tc_pypto_store *st, tc_error *err)
{
	char *path;
	int rc = 0;

	if (st->raw == NULL)
		return 0;
	path = tc_xasprintf("%s/%s/dispatches/state-%s.json", st->op_dir,
	    TC_PYPTO_ORCH_DIR, st->sha);
	if (!tc_path_exists(path))
		rc = tc_write_atomic(path, st->raw, st->raw_len,
		    TC_WRITE_MKDIRS, err);
	free(path);
	return rc;
}

/* Make raw (a state tunectl wrote, digest hex; owned on success) the
 * store's state again: bound first, with no previous digest (the state it
 * replaces is not tunectl's), then written. */
static int
install(tc_pypto_store *st, char *raw, size_t len, const char *hex,
    const char *what, tc_error *err)
{
	tc_json *doc = tc_json_parse(raw, len, NULL);

	if (doc == NULL) {
		tc_error_set(err, "%s of state %s is not a JSON document", what,
		    hex);
		return -1;
	}
	if (tc_pypto_bind_state(st, hex, raw, len, false, err) != 0 ||
	    tc_write_atomic(st->state_path, raw, len, 0, err) != 0) {
		tc_json_free(doc);
		return -1;
	}
	free(st->raw);
	st->raw = raw;
	st->raw_len = len;
	memcpy(st->sha, hex, TC_SHA256_HEX_LEN + 1);
	tc_json_free(st->state);
	st->state = doc;
	mark_written(st);
	return 0;
}

int
tc_pypto_store_restore(tc_pypto_store *st, const char *sha, tc_error *err)
{
	char *path;
	char *raw;
	size_t len = 0;
	char hex[TC_SHA256_HEX_LEN + 1];

	if (sha == NULL || strlen(sha) != TC_SHA256_HEX_LEN ||
	    strspn(sha, "0123456789abcdef") != TC_SHA256_HEX_LEN) {
		tc_error_set(err, "the task names no state digest");
		return -1;
	}
	path = tc_xasprintf("%s/%s/dispatches/state-%s.json", st->op_dir,
	    TC_PYPTO_ORCH_DIR, sha);
	raw = tc_is_regular_file_nofollow(path) ?
	    tc_read_file(path, 0, &len, err) : NULL;
	if (raw == NULL) {
		tc_error_set(err, "no dispatch snapshot %s", path);
		free(path);
		return -1;
	}
	free(path);
	tc_pypto_sha_buf(raw, len, hex);
	if (strcmp(hex, sha) != 0) {
		tc_error_set(err, "the dispatch snapshot of state %s does not "
		    "hold that state", sha);
		free(raw);
		return -1;
	}
	if (install(st, raw, len, hex, "the dispatch snapshot", err) != 0) {
		free(raw);
		return -1;
	}
	return 0;
}

int
tc_pypto_store_restore_bound(tc_pypto_store *st, char restored[65],
    tc_error *err)
{
	size_t len = 0;
	char *raw = tc_pypto_bound_state(st, restored, &len);

	if (raw == NULL) {
		/* a binding written before it kept the bytes: the snapshot
		 * of the bound digest, content addressed */
		if (restored[0] == '\0') {
			tc_error_set(err, "the binding of %s names no state",
			    TC_PYPTO_STATE_FILE);
			return -1;
		}
		return tc_pypto_store_restore(st, restored, err);
	}
	if (install(st, raw, len, restored, "the bound copy", err) != 0) {
		free(raw);
		return -1;
	}
	return 0;
}

int
tc_pypto_store_write(tc_pypto_store *st, const tc_json *next, tc_error *err)
{
	size_t len;
	char *text = tc_json_pretty(next, &len, err);
	char hex[TC_SHA256_HEX_LEN + 1];

	if (text == NULL)
		return -1;
	tc_pypto_sha_buf(text, len, hex);
	if (tc_pypto_bind_state(st, hex, text, len, true, err) != 0 ||
	    tc_write_atomic(st->state_path, text, len, 0, err) != 0) {
		free(text);
		return -1;
	}
	free(st->raw);
	st->raw = text;
	st->raw_len = len;
	memcpy(st->sha, hex, sizeof(hex));
	mark_written(st);
	if (next != st->state) {
		tc_json_free(st->state);
		st->state = tc_json_clone(next);
	}
	st->exists = true;
	return 0;
}

void
tc_pypto_store_close(tc_pypto_store *st)
{
	if (st->locked)
		tc_lock_release(&st->lock);
	st->locked = false;
	free(st->op_dir);
	free(st->project);
	free(st->state_path);
	tc_json_free(st->state);
	free(st->raw);
	memset(st, 0, sizeof(*st));
	st->lock.fd = -1;
}

static tc_json *
result_object(const tc_pypto_input *in, const tc_json *next,
    const char *state_path, const tc_pypto_gate_summary *sum)
{
	tc_json *r = tc_json_new_object();
	const tc_json *v;

	tc_json_object_set_bool(r, "ok", true);
	tc_json_object_set_string(r, "action", in->action);
	if (in->stage != NULL) {
		double d = tc_js_number_of_string(in->stage);

		tc_json_object_set(r, "stage", isfinite(d) ?
		    tc_js_number_json(d) : tc_json_new_null());
	}
	if (in->target_stage != NULL) {
		double d = tc_js_number_of_string(in->target_stage);

		tc_json_object_set(r, "target_stage", isfinite(d) ?
		    tc_js_number_json(d) : tc_json_new_null());
	}
	if ((v = tc_json_get(next, "current_stage")) != NULL)
		tc_json_object_set(r, "current_stage", tc_json_clone(v));
	if ((v = tc_json_get(next, "stage4_path")) != NULL)
		tc_json_object_set(r, "stage4_path", tc_json_clone(v));
	if (in->module != NULL)
		tc_json_object_set_string(r, "module", in->module);
	tc_json_object_set_string(r, "statePath", state_path);
	tc_json_object_set_int(r, "warnCount", sum->warn_count);
	tc_json_object_set_int(r, "infoCount", sum->info_count);
	return r;
}

static int
policy_check(const tc_json *prev, const tc_pypto_input *in, bool allow,
    tc_error *err)
{
	if (strcmp(in->action, "rollback_to_stage") == 0 && !allow &&
	    tc_pypto_stage5_entered(prev)) {
		tc_error_set(err, "rollback_to_stage refused: Stage 5 has been "
		    "entered; after the Stage 5 entry every repair stays in Stage "
		    "5 and the orchestration never rolls back (pass "
		    "--allow-stage5-rollback to override this policy)");
		return -1;
	}
	return 0;
}

/* The Stage 5 gates, after the pure transition accepted the action (so
 * its own preconditions and messages come first). */
static int
stage5_gates(const tc_pypto_store *st, const tc_json *prev,
    const tc_pypto_input *in, const char *interpreter, tc_error *err)
{
	double stage = in->stage != NULL ? tc_js_number_of_string(in->stage) :
	    NAN;

	if (strcmp(in->action, "start_stage") == 0 && floor(stage) == 5 &&
	    tc_pypto_consent(prev) == NULL) {
		tc_error_set(err, "start_stage(5) refused: Stage 5 starts only "
		    "after the entry confirmation (the user asked for "
		    "optimisation, or agreed when asked, and the target cases "
		    "are frozen): tunectl pypto state --op-dir DIR consent ...");
		return -1;
	}
	if (strcmp(in->action, "complete_stage") == 0 && floor(stage) == 5 &&
	    tc_pypto_check_bound(st->op_dir, prev, interpreter, err) != 0) {
		tc_error_prefix(err, "complete_stage(5) refused: Stage 5 closes "
		    "only on a PASS of stage5-check bound in the state: ");
		return -1;
	}
	return 0;
}

/* What an action does to tunectl's own record: a new pipeline (init)
 * starts without one; a rollback or any hand-made stage transition drops
 * the pending sub-step, so the next dispatch starts the stage afresh; a
 * rollback below Stage 5 also drops the Stage 5 confirmation, which
 * belonged to the Stage 4 result that is being redone. */
static void
orchestration_bookkeeping(tc_json *next, const tc_pypto_input *in)
{
	tc_json *orch = tc_json_get(next, "orchestration");
	double target;

	if (strcmp(in->action, "init") == 0) {
		tc_json_object_remove(next, "orchestration");
		return;
	}
	if (orch == NULL || strcmp(in->action, "record_artifact_hash") == 0)
		return;
	tc_json_object_set_null(orch, "next");
	if (strcmp(in->action, "rollback_to_stage") == 0) {
		target = tc_js_number_of_string(in->target_stage);
		tc_json_object_set_null(orch, "halt");
		if (target < 5)
			tc_json_object_remove(orch, "stage5");
	}
}

tc_json *
tc_pypto_store_step(const tc_pypto_store *st, const tc_json *prev,
    const tc_pypto_input *in, const tc_pypto_state_opts *o,
    tc_pypto_gate_summary *sum, tc_error *err)
{
	tc_json *work = NULL, *next;

	if (!tc_pypto_action_known(in->action)) {
		tc_error_set(err, "unsupported action: %s",
		    in->action != NULL ? in->action : "undefined");
		return NULL;
	}
	if (policy_check(prev, in, o->allow_stage5_rollback, err) != 0)
		return NULL;
	if (tc_pypto_gate_run(o->lint_argv, o->lint_timeout_s, st->project,
	    st->op_dir, in, sum, err) != 0)
		return NULL;
	if (strcmp(in->action, "complete_stage") == 0 && in->stage != NULL) {
		work = tc_json_clone(prev);
		if (tc_pypto_spec_freeze(work, st->op_dir,
		    tc_js_number_of_string(in->stage), err) != 0) {
			tc_json_free(work);
			return NULL;
		}
	}
	next = tc_pypto_state_apply(work != NULL ? work : prev, in, NULL, err);
	tc_json_free(work);
	if (next != NULL && stage5_gates(st, prev, in, o->interpreter,
	    err) != 0) {
		tc_json_free(next);
		return NULL;
	}
	if (next != NULL)
		orchestration_bookkeeping(next, in);
	return next;
}

/* The actions that move the pipeline forward: they are refused over
 * bound evidence that changed (a failure, a rollback or init is how one
 * gets out of it). */
static bool
advances(const char *action)
{
	static const char *const fwd[] = { "start_stage", "complete_stage",
	    "plan_stage4", "start_module", "submit_for_verify",
	    "complete_module", NULL };
	size_t i;

	for (i = 0; fwd[i] != NULL; i++)
		if (strcmp(action, fwd[i]) == 0)
			return true;
	return false;
}

tc_json *
tc_pypto_state_transition(const tc_pypto_state_opts *o,
    const tc_pypto_input *in, tc_error *err)
{
	tc_pypto_store st;
	tc_json *next = NULL, *result = NULL;
	tc_pypto_gate_summary sum = { 0, 0 };

	if (check_agent(o->agent, err) != 0)
		return NULL;
	if (!tc_pypto_action_known(in->action)) {
		tc_error_set(err, "unsupported action: %s",
		    in->action != NULL ? in->action : "undefined");
		return NULL;
	}
	if (strcmp(in->action, "init") == 0) {
		char *dir = tc_pypto_resolve_op_dir(o->project, o->op_dir, NULL,
		    err);

		if (dir == NULL || tc_mkdirs(dir, err) != 0) {
			free(dir);
			return NULL;
		}
		free(dir);
	}
	if (tc_pypto_store_open(o, true, TC_LOCK_DEFAULT_TIMEOUT_S, &st,
	    err) != 0)
		return NULL;
	/* Bound evidence first, as every command that seals checks it
	 * (SPEC.md stays the reference freeze's: its messages, its stages) */
	if (advances(in->action) &&
	    tc_pypto_store_check_bound(&st, false, err) != 0)
		goto out;
	if ((next = tc_pypto_store_step(&st, st.state, in, o, &sum, err)) ==
	    NULL)
		goto out;
	if (tc_pypto_store_write(&st, next, err) != 0)
		goto out;
	result = result_object(in, next, st.state_path, &sum);
out:
	tc_json_free(next);
	tc_pypto_store_close(&st);
	return result;
}

/* ---- show / history ----------------------------------------------------------- */

/* Dry-run one candidate action; complete_stage also goes through the
 * SPEC.md freeze, as the wrapper would. */
static void
try_action(tc_json *list, const tc_json *state, tc_pypto_input *in,
    tc_json *args, const char *op_dir)
{
	tc_error err = TC_ERROR_INIT;
	tc_json *next = NULL, *probe = tc_json_clone(state);

	if (strcmp(in->action, "complete_stage") != 0 ||
	    tc_pypto_spec_freeze(probe, op_dir,
	    tc_js_number_of_string(in->stage), &err) == 0)
		next = tc_pypto_state_apply(probe, in,
		    "1970-01-01T00:00:00.000Z", &err);
	tc_json_free(probe);

	if (next != NULL) {
		tc_json *item = tc_json_new_object();

		tc_json_object_set_string(item, "action", in->action);
		tc_json_object_set(item, "args", args);
		tc_json_array_push(list, item);
		tc_json_free(next);
	} else {
		tc_json_free(args);
	}
	tc_error_clear(&err);
}

static tc_json *
legal_actions(const tc_json *state, bool stage5_policy,
    const char *op_dir)
{
	tc_json *list = tc_json_new_array();
	tc_pypto_input in = TC_PYPTO_INPUT_INIT;
	const tc_json *mods = tc_json_get(state, "stage4_modules");
	const tc_json *status = tc_json_get(mods, "module_status");
	char num[16];
	tc_json *args;
	int s;
	size_t i;

	in.action = "init";
	try_action(list, state, &in, tc_json_new_object(), op_dir);
	for (s = 1; s <= TC_PYPTO_MAX_STAGE; s++) {
		static const char *const stage_actions[] = {
			"start_stage", "complete_stage", "fail_stage"
		};
		size_t a;

		snprintf(num, sizeof(num), "%d", s);
		for (a = 0; a < 3; a++) {
			in = (tc_pypto_input)TC_PYPTO_INPUT_INIT;
			in.action = stage_actions[a];
			in.stage = num;
			args = tc_json_new_object();
			tc_json_object_set_int(args, "stage", s);
			try_action(list, state, &in, args, op_dir);
		}
	}
	if (!stage5_policy) {
		for (s = 1; s < TC_PYPTO_MAX_STAGE; s++) {
			snprintf(num, sizeof(num), "%d", s);
			in = (tc_pypto_input)TC_PYPTO_INPUT_INIT;
			in.action = "rollback_to_stage";
			in.target_stage = num;
			in.reason = "<reason>";
			args = tc_json_new_object();
			tc_json_object_set_int(args, "target_stage", s);
			tc_json_object_set_string(args, "reason", "<required>");
			try_action(list, state, &in, args, op_dir);
		}
	}
	in = (tc_pypto_input)TC_PYPTO_INPUT_INIT;
	in.action = "plan_stage4";
	in.is_fusion = 0;
	args = tc_json_new_object();
	tc_json_object_set_bool(args, "is_fusion", false);
	try_action(list, state, &in, args, op_dir);
	in.is_fusion = 1;
	in.module_count = "1";
	args = tc_json_new_object();
	tc_json_object_set_bool(args, "is_fusion", true);
	tc_json_object_set_string(args, "module_count", "<N >= 1>");
	try_action(list, state, &in, args, op_dir);
	if (tc_json_is(status, TC_JSON_OBJECT)) {
		static const char *const mod_actions[] = {
			"start_module", "submit_for_verify", "complete_module",
			"fail_module"
		};

		for (i = 0; i < status->u.obj.len; i++) {
			size_t a;

			for (a = 0; a < 4; a++) {
				in = (tc_pypto_input)TC_PYPTO_INPUT_INIT;
				in.action = mod_actions[a];
				in.module = status->u.obj.members[i].key;
				args = tc_json_new_object();
				tc_json_object_set_string(args, "module",
				    in.module);
				if (a == 3)
					tc_json_object_set_string(args,
					    "failure_category", "<category>");
				try_action(list, state, &in, args, op_dir);
			}
		}
	}
	return list;
}

static tc_json *
freeze_status(const tc_json *state, const char *op_dir)
{
	tc_json *f = tc_json_new_object();
	const char *saved = tc_json_get_string(tc_json_get(state,
	    "artifact_hashes"), "spec_md");
	char *spec = tc_path_join(op_dir, "SPEC.md");
	char hex[65];
	tc_error err = TC_ERROR_INIT;
	int have = tc_pypto_spec_hash(spec, hex, &err);

	tc_json_object_set_string(f, "spec_path", spec);
	if (saved != NULL)
		tc_json_object_set_string(f, "recorded_sha256", saved);
	else
		tc_json_object_set_null(f, "recorded_sha256");
	if (have == 1)
		tc_json_object_set_string(f, "current_sha256", hex);
	else
		tc_json_object_set_null(f, "current_sha256");
	tc_json_object_set_string(f, "status", saved == NULL ? "not_recorded" :
	    have != 1 ? "violated_missing" :
	    strcmp(saved, hex) == 0 ? "intact" : "violated_modified");
	tc_error_clear(&err);
	free(spec);
	return f;
}

static tc_json *
load_for_reading(const tc_pypto_state_opts *o, char **op_dir_out,
    char **state_path_out, bool *exists, tc_error *err)
{
	char *op_dir, *state_path;
	tc_json *state;

	if ((op_dir = tc_pypto_resolve_op_dir(o->project, o->op_dir, NULL,
	    err)) == NULL)
		return NULL;
	state_path = tc_path_join(op_dir, TC_PYPTO_STATE_FILE);
	{
		char *raw;
		size_t raw_len;

		state = read_state(op_dir, state_path, exists, &raw, &raw_len,
		    err);
		free(raw);
	}
	if (state == NULL) {
		free(op_dir);
		free(state_path);
		return NULL;
	}
	*op_dir_out = op_dir;
	*state_path_out = state_path;
	return state;
}

tc_json *
tc_pypto_state_show(const tc_pypto_state_opts *o, tc_error *err)
{
	char *op_dir, *state_path;
	bool exists;
	tc_json *state = load_for_reading(o, &op_dir, &state_path, &exists, err);
	tc_json *r, *policy;
	bool entered;

	if (state == NULL)
		return NULL;
	entered = tc_pypto_stage5_entered(state);
	r = tc_json_new_object();
	tc_json_object_set_string(r, "state_path", state_path);
	tc_json_object_set_bool(r, "exists", exists);
	tc_json_object_set(r, "next_actions", legal_actions(state,
	    entered && !o->allow_stage5_rollback, op_dir));
	tc_json_object_set(r, "spec_freeze", freeze_status(state, op_dir));
	policy = tc_json_new_object();
	tc_json_object_set_bool(policy, "stage5_entered", entered);
	tc_json_object_set_bool(policy, "rollback_allowed",
	    !entered || o->allow_stage5_rollback);
	tc_json_object_set_string(policy, "rule", "rollback_to_stage is "
	    "refused once Stage 5 has been entered unless "
	    "--allow-stage5-rollback is given");
	tc_json_object_set(r, "policy", policy);
	tc_json_object_set(r, "state", state);
	free(op_dir);
	free(state_path);
	return r;
}

tc_json *
tc_pypto_state_history(const tc_pypto_state_opts *o, tc_error *err)
{
	char *op_dir, *state_path;
	bool exists;
	tc_json *state = load_for_reading(o, &op_dir, &state_path, &exists, err);
	tc_json *r, *h;

	if (state == NULL)
		return NULL;
	r = tc_json_new_object();
	tc_json_object_set_string(r, "state_path", state_path);
	h = tc_json_object_take(state, "rollback_history");
	if (!tc_json_is(h, TC_JSON_ARRAY)) {
		tc_json_free(h);
		h = tc_json_new_array();
	}
	tc_json_object_set(r, "rollback_history", h);
	tc_json_free(state);
	free(op_dir);
	free(state_path);
	return r;
}
