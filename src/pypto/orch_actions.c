/*
 * orch_actions.c - tunectl's orchestrator actions on the state beyond the
 * reference's eleven (consent, decline, configure, resume), run under the
 * same lock and atomic write as the wrapper, and never from inside a
 * dispatched worker.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pypto_internal.h"
#include "orch_internal.h"
#include "tunectl/path.h"
#include "tunectl/pypto_check.h"

static const char *const actions[] = {
	"consent", "decline", "configure", "resume", NULL
};

void
tc_pypto_orch_input_init(tc_pypto_orch_input *in, const char *action)
{
	memset(in, 0, sizeof(*in));
	in->action = action;
	in->collect_golden_perf = in->run_stage2_verifier = -1;
}

bool
tc_pypto_orch_action_known(const char *action)
{
	return tc_pypto__strv_has(actions, action);
}

static int
parse_devices(const char *text, tc_json **out, tc_error *err)
{
	tc_json *list = tc_json_new_array();
	char *copy = tc_xstrdup(text), *save = NULL, *tok;

	for (tok = strtok_r(copy, ",", &save); tok != NULL;
	    tok = strtok_r(NULL, ",", &save)) {
		char *end;
		long d = strtol(tok, &end, 10);

		if (end == tok || *end != '\0' || d < 0 || d > 65535) {
			tc_error_set(err, "configure refused: --devices must list "
			    "physical device ids (non-negative integers), got '%s'",
			    tok);
			free(copy);
			tc_json_free(list);
			return -1;
		}
		tc_json_array_push(list, tc_json_new_int(d));
	}
	free(copy);
	if (list->u.arr.len == 0) {
		tc_error_set(err, "configure refused: --devices names no device");
		tc_json_free(list);
		return -1;
	}
	*out = list;
	return 0;
}

static void
set_text(tc_json *obj, const char *key, const char *value)
{
	if (value == NULL)
		return;
	if (*value == '\0')
		tc_json_object_set_null(obj, key);
	else
		tc_json_object_set_string(obj, key, value);
}

/* A flag option: -1 (not given) leaves it as it is. */
static void
set_flag(tc_json *obj, const char *key, int value)
{
	if (value >= 0)
		tc_json_object_set_bool(obj, key, value == 1);
}

/* The options of a pipeline configured for the first time. */
static tc_json *
default_options(void)
{
	tc_json *opt = tc_json_new_object();

	tc_json_object_set_bool(opt, "collect_golden_perf", false);
	tc_json_object_set_bool(opt, "run_stage2_verifier", false);
	return opt;
}

static int
configure(tc_json *state, const tc_pypto_orch_input *in, tc_json *out,
    tc_error *err)
{
	tc_json *orch = tc_pypto_orch(state);
	tc_json *opt = tc_json_get(orch, "options");
	tc_json *devices = NULL;

	if (in->devices != NULL && parse_devices(in->devices, &devices, err) != 0)
		return -1;
	if (!tc_json_is(opt, TC_JSON_OBJECT)) {
		opt = default_options();
		tc_json_object_set(orch, "options", opt);
	}
	if (devices != NULL)
		tc_json_object_set(opt, "devices", devices);
	set_flag(opt, "collect_golden_perf", in->collect_golden_perf);
	set_flag(opt, "run_stage2_verifier", in->run_stage2_verifier);
	set_text(opt, "request", in->request);
	set_text(opt, "docs_cache", in->docs_cache);
	set_text(opt, "resource_root", in->resource_root);
	tc_pypto_orch_event(state, "configure", NULL);
	tc_json_object_set(out, "options", tc_pj_clone(opt));
	return 0;
}

/* After the user (or an external fix) resolved what halted the pipeline:
 * clear the halt and, for an exhausted device pool, the exclusions. */
static int
resume(tc_json *state, const tc_pypto_orch_input *in, tc_json *out,
    tc_error *err)
{
	tc_json *orch = tc_pypto_orch(state);
	const tc_json *halt = tc_json_get(orch, "halt");
	tc_json *ev;

	if (!tc_json_is(halt, TC_JSON_OBJECT)) {
		tc_error_set(err, "resume refused: the pipeline is not halted");
		return -1;
	}
	if (in->reason == NULL || tc_js_is_blank(in->reason)) {
		tc_error_set(err, "resume refused: say what was resolved "
		    "(--reason)");
		return -1;
	}
	ev = tc_json_new_object();
	tc_json_object_set(ev, "halt", tc_pj_clone(halt));
	tc_json_object_set_string(ev, "reason", in->reason);
	tc_pypto_orch_event(state, "resume", ev);
	tc_json_object_set(out, "resumed", tc_pj_clone(halt));
	tc_json_object_set_null(orch, "halt");
	tc_json_object_remove(orch, "excluded_devices");
	return 0;
}

tc_json *
tc_pypto_orch_action(const tc_pypto_state_opts *o,
    const tc_pypto_orch_input *in, tc_error *err)
{
	tc_pypto_store st;
	tc_json *work = NULL, *out = NULL;
	int rc;

	if (tc_pypto_refuse_worker(err) != 0)
		return NULL;
	if (!tc_pypto_orch_action_known(in->action)) {
		tc_error_set(err, "unsupported action: %s",
		    in->action != NULL ? in->action : "undefined");
		return NULL;
	}
	if (tc_pypto_store_open(o, true, TC_LOCK_DEFAULT_TIMEOUT_S, &st,
	    err) != 0)
		return NULL;
	if (!st.exists) {
		tc_error_set(err, "%s refused: %s does not exist (tunectl pypto "
		    "state --op-dir DIR init)", in->action, st.state_path);
		goto out;
	}
	work = tc_json_clone(st.state);
	out = tc_json_new_object();
	tc_json_object_set_bool(out, "ok", true);
	tc_json_object_set_string(out, "action", in->action);
	if (strcmp(in->action, "configure") == 0)
		rc = configure(work, in, out, err);
	else if (strcmp(in->action, "resume") == 0)
		rc = resume(work, in, out, err);
	else if ((rc = tc_pypto_store_check_bound(&st, true, err)) == 0)
		rc = tc_pypto_consent_apply(&st, work, in, out, err);
	if (rc != 0 || tc_pypto_store_write(&st, work, err) != 0) {
		tc_json_free(out);
		out = NULL;
		goto out;
	}
	tc_json_object_set_string(out, "statePath", st.state_path);
out:
	tc_json_free(work);
	tc_pypto_store_close(&st);
	return out;
}

/* stage5-check run by the orchestrator itself: the report is written under
 * .orchestrator/stage5/ and its digest bound in the state, under the state
 * lock (the way pypto run-next binds a verifier's re-derived check). */
tc_json *
tc_pypto_check_record(const tc_pypto_state_opts *o,
    const tc_pypto_check_opts *co, tc_error *err)
{
	tc_pypto_store st;
	tc_pypto_check_opts c2 = *co;
	tc_json *report = NULL, *work = NULL;

	if (tc_pypto_refuse_worker(err) != 0)
		return NULL;
	if (co->gates != NULL) {
		tc_error_set(err, "a stage5-check of a gate selection (--gates) is "
		    "never recorded");
		return NULL;
	}
	if (tc_pypto_store_open(o, true, TC_LOCK_DEFAULT_TIMEOUT_S, &st,
	    err) != 0)
		return NULL;
	if (!st.exists || tc_pypto_consent(st.state) == NULL) {
		tc_error_set(err, "check --record binds the report in the state of "
		    "a confirmed Stage 5: %s", !st.exists ? "no state file" :
		    "no entry confirmation");
		goto out;
	}
	c2.op_dir = st.op_dir;
	if (tc_pypto_store_check_bound(&st, true, err) != 0 ||
	    (report = tc_pypto_check_stage5(&c2, err)) == NULL)
		goto out;
	work = tc_json_clone(st.state);
	if (tc_pypto_check_bind(st.op_dir, work, report, err) != 0 ||
	    tc_pypto_store_write(&st, work, err) != 0) {
		tc_json_free(report);
		report = NULL;
		goto out;
	}
	tc_json_object_set(report, "bound", tc_pj_clone(tc_json_get(
	    tc_json_get(tc_pypto_orch(work), "stage5"), "check")));
out:
	tc_json_free(work);
	tc_pypto_store_close(&st);
	return report;
}
