/*
 * orch_run.c - pypto dispatch, accept, run-next and run: the one legal
 * next step becomes a task bound to the digest of the orchestrator state,
 * a fresh worker gets it through an agent host (the attempt mechanics of
 * src/host/attempt.c), and its return is checked, routed and recorded.
 *
 * The state lock is held for a whole attempt: while a worker runs nobody
 * else can change the state through tunectl, so a state file that changed
 * meanwhile was written by the worker.  That write is undone (the
 * orchestrator's bytes are restored) and the result refused: only the
 * orchestrator writes .orchestrator_state.json.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pypto_internal.h"
#include "orch_internal.h"
#include "stage5_internal.h"
#include "tunectl/attempt.h"
#include "tunectl/fileio.h"
#include "tunectl/path.h"
#include "tunectl/pypto_check.h"
#include "tunectl/pypto_stage5.h"
#include "tunectl/sha256.h"

#define STALE_TASK "stale pypto task does not match the current " \
	"orchestrator state"

/* Apply a "prepare" action (start_module of the active L1 module) before a
 * task is cut; the state is written. */
static int
apply_prepare(tc_pypto_store *st, const tc_pypto_state_opts *o,
    const tc_json *prep, tc_error *err)
{
	tc_pypto_input in = TC_PYPTO_INPUT_INIT;
	tc_pypto_gate_summary sum = { 0, 0 };
	tc_json *next;
	int rc;

	in.action = tc_json_get_string(prep, "action");
	in.module = tc_json_get_string(prep, "module");
	if ((next = tc_pypto_store_step(st, st->state, &in, o, &sum, err)) ==
	    NULL)
		return -1;
	tc_pypto_orch_event(next, "prepare", tc_json_clone(prep));
	rc = tc_pypto_store_write(st, next, err);
	tc_json_free(next);
	return rc;
}

/* Cut the task of the next step from the locked store.  *status tells
 * why nothing was dispatchable (return NULL, err set). */
static tc_json *
cut_task(tc_pypto_store *st, const tc_pypto_state_opts *o,
    const char **status, tc_error *err)
{
	tc_pypto_step step;
	tc_json *prep = NULL, *task;

	*status = NULL;
	if (!st->exists) {
		*status = "not_started";
		tc_error_set(err, "no orchestrator state: tunectl pypto state "
		    "--op-dir DIR init");
		return NULL;
	}
	if (tc_pypto_next_step(st->state, &step, status, &prep, err) != 0)
		return NULL;
	if (prep != NULL) {
		tc_pypto_step_free(&step);
		if (apply_prepare(st, o, prep, err) != 0) {
			tc_json_free(prep);
			return NULL;
		}
		tc_json_free(prep);
		prep = NULL;
		if (tc_pypto_next_step(st->state, &step, status, &prep, err) != 0)
			return NULL;
		tc_json_free(prep);
	}
	task = tc_pypto_task_build(st, &step);
	tc_pypto_step_free(&step);
	return task;
}

tc_json *
tc_pypto_dispatch(const tc_pypto_state_opts *o, tc_error *err)
{
	tc_pypto_store st;
	tc_json *task;
	const char *status;

	if (tc_pypto_refuse_worker(err) != 0)
		return NULL;
	if (tc_pypto_store_open(o, true, TC_LOCK_DEFAULT_TIMEOUT_S, &st,
	    err) != 0)
		return NULL;
	task = tc_pypto_store_check_written(&st, err) != 0 ||
	    tc_pypto_store_check_bound(&st, true, err) != 0 ? NULL :
	    cut_task(&st, o, &status, err);
	/* What the task was cut from, for accept to put back when the
	 * state is edited behind tunectl's back meanwhile. */
	if (task != NULL && tc_pypto_store_snapshot(&st, err) != 0) {
		tc_json_free(task);
		task = NULL;
	}
	tc_pypto_store_close(&st);
	return task;
}

/* The task must be the one the current state would cut. */
static int
task_current(const tc_pypto_store *st, const tc_json *task, tc_error *err)
{
	tc_pypto_step step;
	tc_json *prep = NULL;
	const char *status;
	int rc = -1;

	if (!tc_json_is(task, TC_JSON_OBJECT) ||
	    tc_json_get_string(task, "schema_version") == NULL ||
	    strcmp(tc_json_get_string(task, "schema_version"),
	    TC_PYPTO_TASK_SCHEMA) != 0) {
		tc_error_set(err, "pypto task schema_version is invalid");
		return -1;
	}
	if (tc_json_get_string(task, "op_dir") == NULL ||
	    strcmp(tc_json_get_string(task, "op_dir"), st->op_dir) != 0 ||
	    tc_json_get_string(task, "state_sha256") == NULL ||
	    strcmp(tc_json_get_string(task, "state_sha256"), st->sha) != 0) {
		tc_error_set(err, STALE_TASK);
		return -1;
	}
	if (tc_pypto_next_step(st->state, &step, &status, &prep, err) != 0) {
		tc_error_set(err, STALE_TASK);
		return -1;
	}
	if (prep == NULL && tc_json_get_string(tc_json_get(task, "step"),
	    "step_id") != NULL && strcmp(tc_json_get_string(tc_json_get(task,
	    "step"), "step_id"), step.step_id) == 0)
		rc = 0;
	else
		tc_error_set(err, STALE_TASK);
	tc_json_free(prep);
	tc_pypto_step_free(&step);
	return rc;
}

int
tc_pypto_task_check(const tc_json *task, tc_error *err)
{
	tc_pypto_state_opts o;
	tc_pypto_store st;
	const char *op_dir = tc_json_get_string(task, "op_dir");
	const char *project = tc_json_get_string(task, "project_dir");
	int rc;

	if (op_dir == NULL || project == NULL) {
		tc_error_set(err, "pypto task lacks op_dir / project_dir");
		return -1;
	}
	memset(&o, 0, sizeof(o));
	o.project = project;
	o.op_dir = op_dir;
	if (tc_pypto_store_open(&o, false, 0, &st, err) != 0)
		return -1;
	rc = task_current(&st, task, err);
	tc_pypto_store_close(&st);
	return rc;
}

/* ---- accepting a result ---------------------------------------------------------- */

struct verdict {
	const char *verdict;	/* re-derived verdict, or NULL: the result's */
	const char *category;
	char *evidence;
	tc_json *report;	/* the bound stage5-check report */
};

/*
 * A stage5-check is re-derived by tunectl from the files, with the
 * verifier's review as the only judgement it takes from the worker; the
 * report is written under .orchestrator/stage5/ and bound in the state.
 */
static int
rederive_stage5(tc_pypto_store *st, tc_json *work, const tc_json *result,
    const tc_pypto_state_opts *o, struct verdict *v, tc_error *err)
{
	tc_pypto_check_opts co;
	tc_json *dispatch = tc_pypto_stage5_dispatch_of(st->state);
	const char *verdict, *cat;
	char *text;

	memset(&co, 0, sizeof(co));
	co.op_dir = st->op_dir;
	co.dispatch = dispatch;
	co.review = tc_json_get(result, "review");
	co.interpreter = o->interpreter;
	co.timeout_s = 0;
	v->report = tc_pypto_check_stage5(&co, err);
	tc_json_free(dispatch);
	if (v->report == NULL)
		return -1;
	if (tc_pypto_check_bind(st->op_dir, work, v->report, err) != 0)
		return -1;
	verdict = tc_json_get_string(v->report, "verdict");
	cat = tc_json_get_string(v->report, "failure_category");
	v->verdict = strcmp(verdict, "FAILED") == 0 ? "FAIL" : verdict;
	v->category = cat;
	text = tc_pypto_check_render(v->report);
	v->evidence = text;
	return 0;
}

static int
apply_action(tc_pypto_store *st, tc_json **work, const tc_json *a,
    const tc_pypto_state_opts *o, tc_error *err)
{
	tc_pypto_input in = TC_PYPTO_INPUT_INIT;
	tc_pypto_gate_summary sum = { 0, 0 };
	const tc_json *fusion = tc_json_get(a, "is_fusion");
	tc_json *next;

	in.action = tc_json_get_string(a, "action");
	in.stage = tc_json_get_string(a, "stage");
	in.target_stage = tc_json_get_string(a, "target_stage");
	in.reason = tc_json_get_string(a, "reason");
	in.failure_category = tc_json_get_string(a, "failure_category");
	in.module_count = tc_json_get_string(a, "module_count");
	in.module = tc_json_get_string(a, "module");
	in.failing_module_boundary = tc_json_get_string(a,
	    "failing_module_boundary");
	in.last_error = tc_json_get_string(a, "last_error");
	if (tc_json_is(fusion, TC_JSON_BOOL))
		in.is_fusion = fusion->u.b ? 1 : 0;
	if ((next = tc_pypto_store_step(st, *work, &in, o, &sum, err)) == NULL)
		return -1;
	tc_json_free(*work);
	*work = next;
	return 0;
}

static void
merge_members(tc_json *dst, const tc_json *src)
{
	size_t i;

	for (i = 0; tc_json_is(src, TC_JSON_OBJECT) && i < src->u.obj.len; i++)
		tc_json_object_set(dst, src->u.obj.members[i].key,
		    tc_json_clone(src->u.obj.members[i].value));
}

/* The transitions were refused (a lint gate, the SPEC.md freeze, a
 * Stage 5 gate): the stage stays, its executor gets the raw refusal. */
static void
refused_transition(tc_pypto_decision *d, const tc_json *task,
    const char *message)
{
	const tc_json *step = tc_json_get(task, "step");
	int64_t stage = 0;
	static const char *const execs[] = { NULL, "planner", "mathematician",
	    "architect", "coder", "optimizer" };
	tc_json *n = tc_json_new_object(), *fb = tc_json_new_object();
	const char *path;

	(void)tc_json_int64(tc_json_get(step, "stage"), &stage);
	if (stage < 1 || stage > 5)
		stage = 1;
	tc_json_object_set(fb, "from_step", tc_pj_clone(tc_json_get(step,
	    "step_id")));
	tc_json_object_set_string(fb, "from_role", "orchestrator");
	tc_json_object_set_string(fb, "outcome", "transition_refused");
	tc_json_object_set_null(fb, "failure_category");
	tc_json_object_set_string(fb, "evidence", message);
	tc_json_object_set_string(fb, "instruction", "the state transition was "
	    "refused (raw message above): repair the findings and deliver "
	    "again");
	tc_json_object_set_int(n, "stage", stage);
	tc_json_object_set_string(n, "role", execs[stage]);
	path = tc_json_get_string(tc_json_get(task, "inputs"), "stage4_path");
	tc_json_object_set(n, "mode", stage == 4 && path != NULL &&
	    strcmp(path, "L1") == 0 ? tc_json_new_string("finalize") :
	    tc_json_new_null());
	tc_json_object_set_null(n, "module");
	tc_json_object_set(n, "feedback", fb);
	tc_json_free(d->actions);
	d->actions = tc_json_new_array();
	tc_json_free(d->next);
	d->next = n;
	tc_json_free(d->orch_set);
	d->orch_set = NULL;
	free(d->summary);
	d->summary = tc_xasprintf("the state transition was refused: %s; "
	    "Stage %lld stays with its executor", message, (long long)stage);
}

/* A stage5-check is re-derived unless the verifier could not run at all
 * (env_error: the environment triage decides, never a conclusion). */
static bool
rederived(const tc_json *task, const tc_json *result)
{
	const tc_json *step = tc_json_get(task, "step");
	const char *role = tc_json_get_string(step, "role");
	const char *mode = tc_json_get_string(step, "mode");
	const char *cat = tc_json_get_string(result, "failure_category");

	return role != NULL && strcmp(role, "verifier") == 0 && mode != NULL &&
	    strcmp(mode, "stage5-check") == 0 &&
	    (cat == NULL || strcmp(cat, "env_error") != 0);
}

/* The routing decision for a result: an optimizer's handoff must be
 * valid; a stage5-check is re-derived (into v, binding its report in
 * work) and routed by the re-derived verdict; anything else by its own
 * outcome. */
static int
decide(tc_pypto_store *st, const tc_pypto_state_opts *o,
    const tc_json *task, const tc_json *result, tc_json *work,
    struct verdict *v, tc_pypto_decision *d, tc_error *err)
{
	const char *role = tc_json_get_string(tc_json_get(task, "step"), "role");
	tc_json *rep = NULL, *r2;
	int rc;

	if (strcmp(role, "optimizer") == 0) {
		rc = tc_pypto_handoff_validate(st->op_dir, tc_json_get(result,
		    "handoff"), st->state, &rep, err);
		tc_json_free(rep);
		if (rc != 0) {
			tc_error_prefix(err, "the optimizer handoff is invalid: ");
			return -1;
		}
	}
	if (rederived(task, result)) {
		if (rederive_stage5(st, work, result, o, v, err) != 0)
			return -1;
		if (v->report != NULL) {
			tc_json *owners = tc_json_clone(tc_json_get(v->report,
			    "missing_owners"));

			r2 = tc_json_clone(result);
			tc_json_object_set(r2, "missing_owners", owners != NULL ?
			    owners : tc_json_new_array());
			rc = tc_pypto_route(st->state, task, r2, v->verdict,
			    v->category, v->evidence, st->op_dir, d, err);
			tc_json_free(r2);
			return rc == 0 ? 0 : -1;
		}
	}
	return tc_pypto_route(st->state, task, result, NULL, NULL, NULL,
	    st->op_dir, d, err) == 0 ? 0 : -1;
}

/* Apply the decision's actions to *work in order.  When one is refused,
 * none is applied (the stage stays with its executor, the re-derived
 * check still bound).  Returns the actions applied, or NULL with err
 * set. */
static tc_json *
apply_actions(tc_pypto_store *st, const tc_pypto_state_opts *o,
    const tc_json *task, const struct verdict *v, tc_pypto_decision *d,
    tc_json **work, tc_error *err)
{
	tc_json *applied = tc_json_new_array();
	size_t i;

	for (i = 0; i < d->actions->u.arr.len; i++) {
		tc_json *trial = tc_json_clone(*work);
		tc_error aerr = TC_ERROR_INIT;
		char *msg;

		if (apply_action(st, &trial, d->actions->u.arr.items[i], o,
		    &aerr) == 0) {
			tc_json_free(*work);
			*work = trial;
			tc_json_array_push(applied, tc_pj_clone(
			    d->actions->u.arr.items[i]));
			continue;
		}
		msg = tc_xstrdup(tc_error_msg(&aerr));
		tc_json_free(trial);
		tc_error_clear(&aerr);
		tc_json_free(applied);
		/* start again from the state before any action */
		tc_json_free(*work);
		*work = tc_json_clone(st->state);
		if (v->report != NULL && tc_pypto_check_bind(st->op_dir, *work,
		    v->report, err) != 0) {
			free(msg);
			return NULL;
		}
		refused_transition(d, task, msg);
		free(msg);
		return tc_json_new_array();
	}
	return applied;
}

/* The orchestrator's next sequence number, next step, halt and excluded
 * devices. */
static void
record_decision(tc_json *orch, const tc_pypto_decision *d,
    const tc_json *step, int64_t seq)
{
	tc_json *ex, *e;

	tc_json_object_set_int(orch, "sequence", seq + 1);
	tc_json_object_set(orch, "next", d->next != NULL ?
	    tc_json_clone(d->next) : tc_json_new_null());
	if (d->halt != NULL)
		tc_json_object_set(orch, "halt", tc_pj_clone(d->halt));
	if (d->exclude_device >= 0) {
		ex = tc_json_get(orch, "excluded_devices");
		if (!tc_json_is(ex, TC_JSON_ARRAY)) {
			ex = tc_json_new_array();
			tc_json_object_set(orch, "excluded_devices", ex);
		}
		e = tc_json_new_object();
		tc_json_object_set_int(e, "device_id", d->exclude_device);
		tc_json_object_set(e, "step_id", tc_pj_clone(tc_json_get(step,
		    "step_id")));
		tc_json_array_push(ex, e);
	}
	merge_members(orch, d->orch_set);
}

/* step_id, role, mode and outcome: what the event and the output share. */
static tc_json *
step_json(const tc_json *step, const tc_json *result)
{
	static const char *const keys[] = { "step_id", "role", "mode", NULL };
	tc_json *j = tc_json_new_object();
	size_t i;

	for (i = 0; keys[i] != NULL; i++)
		tc_json_object_set(j, keys[i], tc_pj_clone(tc_json_get(step,
		    keys[i])));
	tc_json_object_set(j, "outcome", tc_pj_clone(tc_json_get(result,
	    "outcome")));
	return j;
}

/* Write the receipt (before the state that binds it) and append the step
 * event, which names the receipt, to work. */
static int
record_step(const tc_pypto_store *st, const tc_json *step,
    const tc_json *result, const tc_attempt *a, tc_json *receipt,
    const struct verdict *v, const tc_pypto_decision *d,
    const tc_json *applied, tc_json *work, tc_error *err)
{
	char hex[TC_SHA256_HEX_LEN + 1], *rel, *full;
	tc_json *ev;

	tc_json_object_set_string(receipt, "runner_status", "passed");
	if (tc_attempt_sha256(a, TC_ATTEMPT_RESULT, hex, err) != 0)
		return -1;
	tc_json_object_set_string(receipt, "result_sha256", hex);
	tc_json_object_set_string(receipt, "state_sha256_before", st->sha);
	tc_receipt_set_now(receipt, "finished_at");
	if (tc_attempt_write_json(a, TC_ATTEMPT_RECEIPT, receipt,
	    TC_WRITE_EXCLUSIVE, err) != 0 ||
	    tc_attempt_sha256(a, TC_ATTEMPT_RECEIPT, hex, err) != 0)
		return -1;
	ev = step_json(step, result);
	if (v->verdict != NULL)
		tc_json_object_set_string(ev, "rederived_verdict", v->verdict);
	tc_json_object_set_string(ev, "decision", d->summary);
	tc_json_object_set(ev, "actions", tc_pj_clone(applied));
	rel = tc_attempt_rel(a, TC_ATTEMPT_RECEIPT);
	full = tc_xasprintf("%s/%s", TC_PYPTO_ORCH_DIR, rel);
	tc_json_object_set_string(ev, "receipt", full);
	free(full);
	free(rel);
	tc_json_object_set_string(ev, "receipt_sha256", hex);
	tc_pypto_orch_event(work, "step", ev);
	return 0;
}

static tc_json *
accept_locked(tc_pypto_store *st, const tc_pypto_state_opts *o,
    const tc_json *task, const tc_json *result, const tc_attempt *a,
    tc_json *receipt, tc_error *err)
{
	const tc_json *step = tc_json_get(task, "step");
	struct verdict v = { NULL, NULL, NULL, NULL };
	tc_pypto_decision d;
	tc_json *work = NULL, *out = NULL, *applied = NULL;
	int64_t seq = 0;

	memset(&d, 0, sizeof(d));
	if (task_current(st, task, err) != 0 ||
	    tc_pypto_result_check(task, result, st->op_dir, err) != 0)
		return NULL;
	work = tc_json_clone(st->state);
	if (decide(st, o, task, result, work, &v, &d, err) != 0)
		goto out;
	(void)tc_json_int64(tc_json_get(tc_pypto_orch(work), "sequence"), &seq);
	if ((applied = apply_actions(st, o, task, &v, &d, &work, err)) == NULL)
		goto out;
	record_decision(tc_pypto_orch(work), &d, step, seq);
	if (record_step(st, step, result, a, receipt, &v, &d, applied, work,
	    err) != 0 || tc_pypto_store_write(st, work, err) != 0)
		goto out;

	out = step_json(step, result);
	if (v.verdict != NULL) {
		tc_json_object_set_string(out, "verdict", v.verdict);
		tc_json_object_set(out, "check", tc_pj_clone(tc_json_get(
		    tc_pypto_orch(work), "stage5")));
	}
	tc_json_object_set_string(out, "decision", d.summary);
	tc_json_object_set(out, "actions", applied);
	applied = NULL;
	tc_json_object_set(out, "next", d.next != NULL ? tc_json_clone(d.next) :
	    tc_json_new_null());
	tc_json_object_set(out, "halt", d.halt != NULL ? tc_json_clone(d.halt) :
	    tc_json_new_null());
	tc_json_object_set(out, "current_stage", tc_pj_clone(tc_json_get(work,
	    "current_stage")));
	tc_json_object_set(out, "stage_status", tc_pj_clone(tc_json_get(work,
	    "stage_status")));
out:
	tc_json_free(applied);
	tc_pypto_decision_free(&d);
	tc_json_free(work);
	tc_json_free(v.report);
	free(v.evidence);
	return out;
}

static tc_json *
receipt_for(const tc_attempt *a, const tc_json *task, const char *argv_sha,
    tc_error *err)
{
	char task_sha[TC_SHA256_HEX_LEN + 1];
	tc_json *r;

	if (tc_attempt_sha256(a, TC_ATTEMPT_TASK, task_sha, err) != 0)
		return NULL;
	r = tc_attempt_receipt(a, TC_PYPTO_RECEIPT_SCHEMA,
	    tc_json_get_string(task, "operator"), tc_json_get(task, "step"),
	    task_sha, argv_sha);
	tc_json_object_set(r, "task_state_sha256", tc_pj_clone(tc_json_get(
	    task, "state_sha256")));
	tc_json_object_set(r, "device_id", tc_pj_clone(tc_json_get(task,
	    "device_id")));
	return r;
}

/* A refused task whose state was changed since its dispatch, and not by
 * tunectl: the change was made behind the orchestrator's back, by a
 * worker most likely, and is undone.  Where the state is bound outside
 * the operator directory the state tunectl wrote last goes back, from the
 * binding, whatever the task or the operator directory now say (a worker
 * can rewrite the task's digest and the dispatch snapshots); without a
 * binding, the task's dispatch snapshot, when the in-tree mark says the
 * state is not tunectl's.  A state tunectl itself moved on (a later
 * accept, a configure) stays; the task is merely stale. */
static void
undo_foreign_edit(tc_pypto_store *st, const tc_json *task, tc_error *err)
{
	const char *sha = tc_json_get_string(task, "state_sha256");
	const char *op_dir = tc_json_get_string(task, "op_dir");
	char now[TC_SHA256_HEX_LEN + 1], bound[TC_SHA256_HEX_LEN + 1];
	char *why, *where = NULL;
	tc_error rerr = TC_ERROR_INIT;
	int v = tc_pypto_state_binding(st, bound, &where), rc;

	free(where);
	if (!st->exists || v == TC_PYPTO_STATE_OURS)
		return;
	if (v == TC_PYPTO_STATE_UNBOUND && (sha == NULL || op_dir == NULL ||
	    strcmp(op_dir, st->op_dir) != 0 || strcmp(sha, st->sha) == 0 ||
	    tc_pypto_store_written_by_us(st)))
		return;
	memcpy(now, st->sha, sizeof(now));
	why = tc_xstrdup(tc_error_msg(err));
	rc = v == TC_PYPTO_STATE_FOREIGN ?
	    tc_pypto_store_restore_bound(st, bound, &rerr) :
	    tc_pypto_store_restore(st, sha, &rerr);
	if (rc != 0)
		tc_error_set(err, "%s; %s was changed outside tunectl since the "
		    "dispatch (sha256 %s) and could not be restored: %s", why,
		    TC_PYPTO_STATE_FILE, now, tc_error_msg(&rerr));
	else if (sha != NULL && strcmp(sha, st->sha) == 0)
		tc_error_set(err, "%s; %s was changed outside tunectl since the "
		    "dispatch (sha256 %s): the dispatch snapshot (sha256 %s) was "
		    "restored", why, TC_PYPTO_STATE_FILE, now, st->sha);
	else
		tc_error_set(err, "%s; %s was changed outside tunectl (sha256 "
		    "%s): the state tunectl wrote last (sha256 %s) was "
		    "restored", why, TC_PYPTO_STATE_FILE, now, st->sha);
	free(why);
	tc_error_clear(&rerr);
}

tc_json *
tc_pypto_accept(const tc_pypto_state_opts *o, const tc_json *task,
    const tc_json *result, tc_error *err)
{
	tc_pypto_store st;
	tc_attempt a = TC_ATTEMPT_INIT;
	tc_json *receipt = NULL, *out = NULL;
	char *root;
	const char *step_id = tc_json_get_string(tc_json_get(task, "step"),
	    "step_id");

	if (tc_pypto_refuse_worker(err) != 0)
		return NULL;
	if (tc_pypto_store_open(o, true, TC_LOCK_DEFAULT_TIMEOUT_S, &st,
	    err) != 0)
		return NULL;
	if (task_current(&st, task, err) != 0) {
		undo_foreign_edit(&st, task, err);
		goto out;
	}
	if (tc_pypto_store_check_written(&st, err) != 0) {
		undo_foreign_edit(&st, task, err);
		goto out;
	}
	if (tc_pypto_store_check_bound(&st, true, err) != 0)
		goto out;
	root = tc_pypto_orch_dir(st.op_dir);
	if (tc_attempt_create(root, &tc_dispatch_layout, step_id, &a,
	    err) != 0) {
		free(root);
		goto out;
	}
	free(root);
	/* The attempt keeps its own copies: what was accepted stays. */
	if (tc_attempt_write_json(&a, TC_ATTEMPT_TASK, task, TC_WRITE_EXCLUSIVE,
	    err) != 0 ||
	    tc_attempt_write_json(&a, TC_ATTEMPT_RESULT, result,
	    TC_WRITE_EXCLUSIVE, err) != 0)
		goto out;
	tc_attempt_touch(&a, TC_ATTEMPT_STDOUT);
	tc_attempt_touch(&a, TC_ATTEMPT_STDERR);
	if ((receipt = receipt_for(&a, task, "", err)) == NULL)
		goto out;
	tc_json_object_set_null(receipt, "runner_argv_sha256");
	tc_json_object_set_string(receipt, "host", "manual (pypto accept)");
	if ((out = accept_locked(&st, o, task, result, &a, receipt, err)) ==
	    NULL)
		tc_attempt_receipt_fail(receipt, &a, "failed",
		    tc_error_msg(err));
out:
	tc_json_free(receipt);
	tc_attempt_free(&a);
	tc_pypto_store_close(&st);
	return out;
}

/* ---- run-next ---------------------------------------------------------------------- */

/* Did the worker write the state file?  Then put the orchestrator's bytes
 * back and say so. */
static int
state_untouched(tc_pypto_store *st, tc_error *err)
{
	tc_error rerr = TC_ERROR_INIT;
	size_t len = 0;
	char *now = tc_json_read_path(st->state_path, &len, &rerr);
	char hex[TC_SHA256_HEX_LEN + 1] = "(missing)";

	if (now != NULL)
		tc_pypto_sha_buf(now, len, hex);
	tc_error_clear(&rerr);
	if (now != NULL && len == st->raw_len &&
	    memcmp(now, st->raw, len) == 0) {
		free(now);
		return 0;
	}
	free(now);
	if (tc_write_atomic(st->state_path, st->raw, st->raw_len, 0,
	    &rerr) != 0) {
		tc_error_set(err, "the worker changed %s during the attempt "
		    "(sha256 %s, dispatched from %s) and the orchestrator's "
		    "version could not be restored: %s", TC_PYPTO_STATE_FILE, hex,
		    st->sha, tc_error_msg(&rerr));
		tc_error_clear(&rerr);
		return -1;
	}
	tc_error_set(err, "the worker changed %s during the attempt (sha256 %s, "
	    "dispatched from %s); only the orchestrator writes the state: its "
	    "version was restored and the result refused", TC_PYPTO_STATE_FILE,
	    hex, st->sha);
	return -1;
}

tc_json *
tc_pypto_run_next(const tc_pypto_run_opts *o, tc_attempt_report *report,
    tc_error *err)
{
	tc_lock runlock = TC_LOCK_INIT;
	tc_pypto_store st;
	tc_attempt a = TC_ATTEMPT_INIT;
	tc_json *task = NULL, *receipt = NULL, *result = NULL, *out = NULL;
	char argv_sha[65], *root = NULL, *extra[4] = { NULL, NULL, NULL, NULL };
	const char *status;
	bool opened = false;

	memset(report, 0, sizeof(*report));
	if (tc_pypto_refuse_worker(err) != 0)
		return NULL;
	if (o->host.timeout_s <= 0 || !isfinite(o->host.timeout_s)) {
		tc_error_set(err, "timeout_seconds must be positive");
		return NULL;
	}
	{
		char *op = tc_pypto_resolve_op_dir(o->state.project,
		    o->state.op_dir, NULL, err);
		char *sp = op != NULL ? tc_path_join(op, TC_PYPTO_STATE_FILE) :
		    NULL;
		int rc = sp != NULL ? tc_attempt_lock(sp, "run",
		    "pypto run-next", &runlock, err) : -1;

		free(op);
		free(sp);
		if (rc != 0)
			return NULL;
	}
	if (tc_pypto_store_open(&o->state, true, TC_LOCK_DEFAULT_TIMEOUT_S, &st,
	    err) != 0)
		goto out;
	opened = true;
	if (tc_pypto_store_check_written(&st, err) != 0 ||
	    tc_pypto_store_check_bound(&st, true, err) != 0 ||
	    (task = cut_task(&st, &o->state, &status, err)) == NULL)
		goto out;
	{
		const tc_json *step = tc_json_get(task, "step");

		report->step_id = tc_xstrdup(tc_json_get_string(step, "step_id"));
		report->phase = tc_json_get_string(step, "mode") != NULL ?
		    tc_xasprintf("%s %s", tc_json_get_string(step, "role"),
		    tc_json_get_string(step, "mode")) :
		    tc_xstrdup(tc_json_get_string(step, "role"));
	}
	root = tc_pypto_orch_dir(st.op_dir);
	tc_attempt_end_orphans(root, &tc_dispatch_layout, report->step_id);
	if (tc_attempt_create(root, &tc_dispatch_layout, report->step_id, &a,
	    err) != 0)
		goto out;
	report->attempt = a.number;
	if (tc_attempt_write_json(&a, TC_ATTEMPT_TASK, task, TC_WRITE_EXCLUSIVE,
	    err) != 0 ||
	    tc_runner_digest(&o->runner, argv_sha, err) != 0 ||
	    (receipt = receipt_for(&a, task, argv_sha, err)) == NULL)
		goto out;
	extra[0] = tc_xasprintf("%s=%s", TC_PYPTO_AGENT_ENV,
	    tc_json_get_string(tc_json_get(task, "step"), "agent_id"));
	extra[1] = tc_xasprintf("TILE_FWK_DEVICE_ID=%lld", (long long)
	    tc_js_number(tc_json_get(task, "device_id")));
	if (tc_attempt_run_worker(&a, &o->runner, &o->host, extra, receipt,
	    &report->seconds, &report->runner_status, &result, err) != 0) {
		/* even a failed host may have written the state */
		tc_error serr = TC_ERROR_INIT;

		if (state_untouched(&st, &serr) != 0)
			tc_error_set(err, "%s", tc_error_msg(&serr));
		tc_error_clear(&serr);
		goto out;
	}
	/* the worker ran: what it could reach is checked again */
	if (state_untouched(&st, err) != 0 ||
	    tc_pypto_store_check_bound(&st, true, err) != 0 ||
	    (out = accept_locked(&st, &o->state, task, result, &a, receipt,
	    err)) == NULL) {
		tc_error moved = TC_ERROR_INIT;

		report->runner_status = "failed";
		if (!tc_attempt_has(&a, TC_ATTEMPT_RECEIPT) &&
		    tc_attempt_in_place(&a, &moved) == 0)
			tc_attempt_receipt_fail(receipt, &a, "failed",
			    tc_error_msg(err));
		tc_error_clear(&moved);
		goto out;
	}
	report->runner_status = "passed";
	report->outcome_status = tc_xstrdup(tc_json_get_string(out, "decision"));
out:
	free(extra[0]);
	free(extra[1]);
	free(root);
	tc_json_free(task);
	tc_json_free(receipt);
	tc_json_free(result);
	tc_attempt_free(&a);
	if (opened)
		tc_pypto_store_close(&st);
	tc_lock_release(&runlock);
	return out;
}

/* ---- run ---------------------------------------------------------------------------- */

static tc_json *
stopped(const tc_pypto_state_opts *o, long steps, bool *stop, tc_error *err)
{
	tc_pypto_store st;
	tc_pypto_step step;
	tc_json *prep = NULL, *out;
	const char *status = NULL;
	tc_error why = TC_ERROR_INIT;
	int rc;

	*stop = false;
	if (tc_pypto_store_open(o, false, 0, &st, err) != 0)
		return NULL;
	if (!st.exists) {
		tc_pypto_store_close(&st);
		tc_error_set(err, "no orchestrator state: tunectl pypto state "
		    "--op-dir DIR init");
		return NULL;
	}
	rc = tc_pypto_next_step(st.state, &step, &status, &prep, &why);
	tc_json_free(prep);
	if (rc == 0) {
		tc_pypto_step_free(&step);
		tc_pypto_store_close(&st);
		return NULL;
	}
	*stop = true;
	out = tc_json_new_object();
	tc_json_object_set_string(out, "status", status);
	tc_json_object_set_string(out, "reason", tc_error_msg(&why));
	tc_json_object_set_int(out, "steps", steps);
	tc_json_object_set(out, "current_stage", tc_pj_clone(tc_json_get(
	    st.state, "current_stage")));
	tc_json_object_set(out, "stage_status", tc_pj_clone(tc_json_get(
	    st.state, "stage_status")));
	tc_json_object_set(out, "halt", tc_pj_clone(tc_json_get(
	    tc_pypto_orch_get(st.state), "halt")));
	tc_error_clear(&why);
	tc_pypto_store_close(&st);
	return out;
}

tc_json *
tc_pypto_run_pipeline(const tc_pypto_run_opts *o, tc_pypto_progress progress,
    void *ctx, tc_error *err)
{
	tc_attempt_streak streak = { NULL, 0 };
	long steps = 0;
	long max_attempts = o->max_attempts > 0 ? o->max_attempts : 3;
	long max_steps = o->max_steps > 0 ? o->max_steps : 200;

	for (;;) {
		tc_attempt_report report;
		tc_json *done, *acc;
		bool stop, ok;

		tc_error_clear(err);
		done = stopped(&o->state, steps, &stop, err);
		if (stop || tc_error_msg(err)[0] != '\0') {
			tc_attempt_streak_free(&streak);
			return done;
		}
		if (steps >= max_steps) {
			tc_error_set(err, "pypto run stopped after %ld accepted steps "
			    "(--max-steps); the pipeline continues with the next run",
			    steps);
			break;
		}
		acc = tc_pypto_run_next(o, &report, err);
		if (progress != NULL)
			progress(&report, acc, acc == NULL ? tc_error_msg(err) :
			    NULL, ctx);
		ok = acc != NULL;
		steps += ok;
		tc_json_free(acc);
		if (!tc_attempt_streak_count(&streak, &report, ok, max_attempts,
		    TC_PYPTO_ORCH_DIR "/dispatches/", err))
			break;
	}
	tc_attempt_streak_free(&streak);
	return NULL;
}
