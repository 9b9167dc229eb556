/*
 * state_store.c - the state tool wrapper around the pure transition:
 * caller permission, the op dir confined strictly inside
 * <project>/custom/, the exclusive lock, reading or synthesising
 * .orchestrator_state.json, tunectl's Stage 5 rollback policy, the lint
 * gate, the SPEC.md freeze, and the atomic write (pypto-orchestration.md
 * §1.4).  Also "show" (state + legal next actions) and "history".
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "internal.h"
#include "tunectl/fileio.h"
#include "tunectl/lock.h"
#include "tunectl/path.h"
#include "tunectl/pypto_state.h"

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

static int
check_agent(const char *agent, tc_error *err)
{
	size_t i;

	if (agent == NULL)
		return 0;
	for (i = 0; allowed_agents[i] != NULL; i++)
		if (strcmp(agent, allowed_agents[i]) == 0)
			return 0;
	tc_error_set(err, "permission denied: state_transition is restricted "
	    "to the PyPTO-Pro primary, but was called by \"%s\". Subagents "
	    "must not modify .orchestrator_state.json; return stage results "
	    "to the orchestrator instead.", agent[0] != '\0' ? agent :
	    "(unknown)");
	return -1;
}

/* Read the state file, or synthesise it (exists = false). */
static tc_json *
read_state(const char *op_dir, const char *state_path, bool *exists,
    tc_error *err)
{
	tc_json *v;

	if (!tc_path_exists(state_path)) {
		*exists = false;
		return tc_pypto_state_initial(tc_path_basename(op_dir), NULL);
	}
	*exists = true;
	if ((v = tc_json_parse_file(state_path, err)) == NULL)
		return NULL;
	if (v->type != TC_JSON_OBJECT) {
		tc_json_free(v);
		tc_error_set(err, "invalid orchestrator state file content");
		return NULL;
	}
	return v;
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
	if (strcmp(in->action, "rollback_to_stage") != 0 || allow ||
	    !tc_pypto_stage5_entered(prev))
		return 0;
	tc_error_set(err, "rollback_to_stage refused: Stage 5 has been entered; "
	    "after the Stage 5 entry every repair stays in Stage 5 and the "
	    "orchestration never rolls back (pass --allow-stage5-rollback to "
	    "override this policy)");
	return -1;
}

tc_json *
tc_pypto_state_transition(const tc_pypto_state_opts *o,
    const tc_pypto_input *in, tc_error *err)
{
	char *op_dir = NULL, *state_path = NULL, *project = NULL;
	tc_json *prev = NULL, *next = NULL, *result = NULL;
	tc_lock lock;
	bool locked = false, exists;
	tc_pypto_gate_summary sum = { 0, 0 };

	if (check_agent(o->agent, err) != 0)
		return NULL;
	if (!tc_pypto_action_known(in->action)) {
		tc_error_set(err, "unsupported action: %s",
		    in->action != NULL ? in->action : "undefined");
		return NULL;
	}
	if ((op_dir = tc_pypto_resolve_op_dir(o->project, o->op_dir, NULL,
	    err)) == NULL)
		return NULL;
	project = base_dir(o->project);
	state_path = tc_path_join(op_dir, TC_PYPTO_STATE_FILE);
	if (strcmp(in->action, "init") == 0 && tc_mkdirs(op_dir, err) != 0)
		goto out;
	if (tc_lock_acquire(&lock, state_path, TC_LOCK_DEFAULT_TIMEOUT_S,
	    err) != 0)
		goto out;
	locked = true;
	if ((prev = read_state(op_dir, state_path, &exists, err)) == NULL)
		goto out;
	if (policy_check(prev, in, o->allow_stage5_rollback, err) != 0)
		goto out;
	if (tc_pypto_gate_run(o->lint_argv, o->lint_timeout_s, project, op_dir,
	    in, &sum, err) != 0)
		goto out;
	if (strcmp(in->action, "complete_stage") == 0 && in->stage != NULL &&
	    tc_pypto_spec_freeze(prev, op_dir,
	    tc_js_number_of_string(in->stage), err) != 0)
		goto out;
	if ((next = tc_pypto_state_apply(prev, in, NULL, err)) == NULL)
		goto out;
	if (tc_write_json(state_path, next, 0, err) != 0)
		goto out;
	result = result_object(in, next, state_path, &sum);
out:
	if (locked)
		tc_lock_release(&lock);
	tc_json_free(prev);
	tc_json_free(next);
	free(state_path);
	free(op_dir);
	free(project);
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
	state = read_state(op_dir, state_path, exists, err);
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
