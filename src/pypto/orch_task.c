/*
 * orch_task.c - the task a PyPTO-Pro worker is given (bound to the state's
 * digest, carrying only technical details: the artifact paths, the
 * dispatch parameters of its role and mode, the previous return
 * verbatim) and the checks of the result it hands back.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pypto_internal.h"
#include "orch_internal.h"
#include "tunectl/fileio.h"
#include "tunectl/path.h"

/* The verifier's failure categories (docs/spec/pypto.md "Failure categories").
 */
static const char *const categories[] = {
	"missing_file", "incomplete_structure", "unsupported", "golden_failure",
	"design_violation", "import_violation", "cheating", "perf_violation",
	"precision_failure", "runtime_failure", "performance_evidence_invalid",
	"performance_item_coverage_invalid", "stage5_contract_blocked",
	"env_error", "false_gap", "confirmed_gap", "capability_inconclusive",
	"signature_mismatch", "delivery_import_unsafe", "dispatch_invalid",
	"kb_selection_invalid", "kb_usage_invalid",
	"wrapper_boundary_violation", "other", NULL
};

bool
tc_pypto_category_known(const char *c)
{
	return tc_pypto__strv_has(categories, c);
}

const char *
tc_pypto_category_static(const char *c)
{
	int i = tc_pypto__strv_index(categories, c);

	return i >= 0 ? categories[i] : "other";
}

static const char *const out_default[] = { "delivered", "env_error", NULL };
static const char *const out_math[] = { "delivered", "stage1_material_gap",
    "env_error", NULL };
static const char *const out_staging[] = { "delivered", "staging_failed",
    "env_error", NULL };
static const char *const out_architect[] = { "delivered",
    "kb_selection_invalid", "design_violation", "env_error", NULL };
static const char *const out_coder[] = { "delivered", "env_error",
    "upstream_suspected", "capability_gap", NULL };
static const char *const out_optimizer[] = { "handoff", NULL };
static const char *const out_verdict[] = { "PASS", "FAIL", NULL };
static const char *const out_upstream[] = { "UPSTREAM_CONFIRMED",
    "UPSTREAM_REJECTED", "UPSTREAM_INCONCLUSIVE", "env_error", NULL };
static const char *const out_gap[] = { "FALSE_GAP", "CONFIRMED_GAP",
    "INCONCLUSIVE", "env_error", NULL };

static const char *const *
outcomes(const char *role, const char *mode)
{
	if (strcmp(role, "mathematician") == 0)
		return mode != NULL && strcmp(mode, "staging") == 0 ? out_staging :
		    out_math;
	if (strcmp(role, "architect") == 0)
		return out_architect;
	if (strcmp(role, "coder") == 0)
		return out_coder;
	if (strcmp(role, "optimizer") == 0)
		return out_optimizer;
	if (strcmp(role, "verifier") == 0) {
		if (mode != NULL && strcmp(mode, "upstream-contract-check") == 0)
			return out_upstream;
		if (mode != NULL && strcmp(mode, "capability_gap_check") == 0)
			return out_gap;
		return out_verdict;
	}
	return out_default;
}

/* What each executor delivers (docs/spec/pypto.md "Actors and skills"); the
 * verifier and the module modes deliver verdicts and staged files. */
static void
deliverables(tc_json *list, const char *role, const char *mode,
    const char *op)
{
	char buf[256];

	if (strcmp(role, "planner") == 0) {
		static const char *const f[] = { "SPEC.md", "EXPLORE_REPORT.md",
		    "PRO_MATERIAL_INDEX.md", "MEMORY.md",
		    "KB_SELECTION.json (per class)", NULL };
		size_t i;

		for (i = 0; f[i] != NULL; i++)
			tc_json_array_push(list, tc_json_new_string(f[i]));
	} else if (strcmp(role, "mathematician") == 0 && mode == NULL) {
		snprintf(buf, sizeof(buf), "%s_golden.py", op);
		tc_json_array_push(list, tc_json_new_string(buf));
		snprintf(buf, sizeof(buf), "%s_golden_cpu.py", op);
		tc_json_array_push(list, tc_json_new_string(buf));
	} else if (strcmp(role, "mathematician") == 0) {
		snprintf(buf, sizeof(buf), "modules/%s_golden_stage<suffix>.py",
		    op);
		tc_json_array_push(list, tc_json_new_string(buf));
	} else if (strcmp(role, "architect") == 0) {
		tc_json_array_push(list, tc_json_new_string("DESIGN.md"));
		tc_json_array_push(list, tc_json_new_string("DESIGN_BINDINGS.json"));
		tc_json_array_push(list,
		    tc_json_new_string("module_interfaces.yaml"));
	} else if (strcmp(role, "coder") == 0) {
		if (mode != NULL && strcmp(mode, "module") == 0)
			snprintf(buf, sizeof(buf),
			    "modules/test_%s_module<suffix>.py", op);
		else
			snprintf(buf, sizeof(buf), "test_%s.py", op);
		tc_json_array_push(list, tc_json_new_string(buf));
		tc_json_array_push(list, tc_json_new_string("KB_USAGE.json"));
	} else if (strcmp(role, "optimizer") == 0) {
		static const char *const f[] = { "PERFORMANCE_CASES.json",
		    "PERFORMANCE_REPORT.md", "performance.json",
		    "performance.log", "perf_report.md", "docs/perf/round_NNN/",
		    NULL };
		size_t i;

		snprintf(buf, sizeof(buf), "test_%s.py (best version)", op);
		tc_json_array_push(list, tc_json_new_string(buf));
		for (i = 0; f[i] != NULL; i++)
			tc_json_array_push(list, tc_json_new_string(f[i]));
	}
}

static void
copy_opt(tc_json *inputs, const tc_json *opt, const char *key)
{
	const tc_json *v = tc_json_get(opt, key);

	tc_json_object_set(inputs, key, v != NULL ? tc_json_clone(v) :
	    tc_json_new_null());
}

static tc_json *
optimization_target(const tc_json *state)
{
	const tc_json *c = tc_pypto_consent(state);

	return tc_json_clone(tc_json_get(c, "optimization_target"));
}

/* The dispatch parameters of each role and mode (docs/spec/pypto.md
 * "Orchestrator protocol", "Stage 5 entry confirmation", "Verifier modes"). */
static tc_json *
inputs_for(const tc_json *state, const tc_pypto_step *s)
{
	const tc_json *orch = tc_pypto_orch_get(state);
	const tc_json *opt = tc_json_get(orch, "options");
	const tc_json *path = tc_json_get(state, "stage4_path");
	tc_json *in = tc_json_new_object();
	const char *mode = s->mode;

	copy_opt(in, opt, "docs_cache");
	copy_opt(in, opt, "resource_root");
	if (strcmp(s->role, "planner") == 0)
		copy_opt(in, opt, "request");
	if (strcmp(s->role, "mathematician") == 0) {
		tc_json_object_set_bool(in, "collect_golden_perf",
		    tc_json_truthy(tc_json_get(opt, "collect_golden_perf")));
		tc_json_object_set_bool(in, "profile_only", false);
		tc_json_object_set_bool(in, "staging",
		    mode != NULL && strcmp(mode, "staging") == 0);
	}
	if (strcmp(s->role, "coder") == 0) {
		tc_json_object_set(in, "stage4_path", path != NULL ?
		    tc_json_clone(path) : tc_json_new_null());
		tc_json_object_set_bool(in, "finalize",
		    mode != NULL && strcmp(mode, "finalize") == 0);
	}
	if (s->module != NULL)
		tc_json_object_set_string(in, "module_k", s->module);
	if (strcmp(s->role, "verifier") == 0 && mode != NULL) {
		if (strcmp(mode, "stage2-check") == 0)
			tc_json_object_set_bool(in, "collect_golden_perf",
			    tc_json_truthy(tc_json_get(opt, "collect_golden_perf")));
		if (strcmp(mode, "stage3-check") == 0) {
			tc_json *a = tc_json_new_array();

			tc_json_array_push(a, tc_json_new_string("DESIGN.md"));
			tc_json_array_push(a,
			    tc_json_new_string("DESIGN_BINDINGS.json"));
			tc_json_array_push(a,
			    tc_json_new_string("module_interfaces.yaml"));
			tc_json_object_set(in, "artifacts", a);
		}
		if (strcmp(mode, "stage4-check") == 0 ||
		    strcmp(mode, "stage5-check") == 0)
			tc_json_object_set(in, "stage4_path", path != NULL ?
			    tc_json_clone(path) : tc_json_new_null());
		if (strcmp(mode, "stage5-check") == 0)
			tc_json_object_set(in, "optimization_target",
			    optimization_target(state));
	}
	if (strcmp(s->role, "optimizer") == 0) {
		const tc_json *c = tc_pypto_consent(state);

		tc_json_object_set(in, "spec_perf_target",
		    tc_json_get(c, "spec_perf_target") != NULL ?
		    tc_json_clone(tc_json_get(c, "spec_perf_target")) :
		    tc_json_new_null());
		tc_json_object_set_string(in, "spec_perf_target_source",
		    "SPEC.md json machine-contract perf_target (null: the "
		    "default Golden reference, or unavailable)");
		tc_json_object_set(in, "p0_cases",
		    tc_pj_clone(tc_json_get(c, "p0_cases")));
		tc_json_object_set(in, "optimization_target",
		    optimization_target(state));
		tc_json_object_set(in, "consent_basis",
		    tc_pj_clone(tc_json_get(c, "basis")));
		tc_json_object_set(in, "stage4_verifier_pass",
		    tc_json_get(orch, "stage4_pass") != NULL ?
		    tc_json_clone(tc_json_get(orch, "stage4_pass")) :
		    tc_json_new_null());
		tc_json_object_set(in, "stage4_path", path != NULL ?
		    tc_json_clone(path) : tc_json_new_null());
	}
	return in;
}

tc_json *
tc_pypto_task_build(const tc_pypto_store *st, const tc_pypto_step *s)
{
	const char *op = tc_path_basename(st->op_dir);
	tc_json *t = tc_json_new_object(), *step = tc_json_new_object();
	tc_json *outs = tc_json_new_array(), *del = tc_json_new_array();
	const char *const *allowed = outcomes(s->role, s->mode);
	int64_t seq = 0;
	size_t i;

	(void)tc_json_int64(tc_json_get(tc_pypto_orch_get(st->state),
	    "sequence"), &seq);
	tc_json_object_set_string(t, "schema_version", TC_PYPTO_TASK_SCHEMA);
	tc_json_object_set_string(t, "operator", op);
	tc_json_object_set_string(t, "op_dir", st->op_dir);
	tc_json_object_set_string(t, "project_dir", st->project);
	tc_json_object_set_string(t, "state_path", st->state_path);
	tc_json_object_set_string(t, "state_sha256", st->sha);
	tc_json_object_set_int(t, "sequence", seq + 1);
	tc_json_object_set_string(step, "step_id", s->step_id);
	tc_json_object_set_int(step, "stage", s->stage);
	tc_json_object_set_string(step, "role", s->role);
	tc_json_object_set_string(step, "phase", s->role);
	if (s->mode != NULL)
		tc_json_object_set_string(step, "mode", s->mode);
	else
		tc_json_object_set_null(step, "mode");
	if (s->module != NULL)
		tc_json_object_set_string(step, "module", s->module);
	else
		tc_json_object_set_null(step, "module");
	tc_json_object_set_string(step, "agent_id", tc_pypto_role_agent(s->role));
	tc_json_object_set_string(step, "skill", tc_pypto_role_skill(s->role));
	tc_json_object_set(t, "step", step);
	tc_json_object_set_int(t, "device_id", s->device_id);
	tc_json_object_set(t, "inputs", inputs_for(st->state, s));
	tc_json_object_set(t, "feedback", s->feedback != NULL ?
	    tc_json_clone(s->feedback) : tc_json_new_null());
	for (i = 0; allowed[i] != NULL; i++)
		tc_json_array_push(outs, tc_json_new_string(allowed[i]));
	tc_json_object_set(t, "outcomes", outs);
	deliverables(del, s->role, s->mode, op);
	tc_json_object_set(t, "deliverables", del);
	tc_json_object_set_string(t, "result_schema", TC_PYPTO_RESULT_SCHEMA);
	return t;
}

/* ---- results ---------------------------------------------------------------------- */

static const char *const result_keys[] = {
	"schema_version", "step_id", "role", "mode", "module", "state_sha256",
	"outcome", "summary", "evidence", "artifacts", "failure_category",
	"failed_checks", "env_triage", "suspected_category",
	"confirmed_category", "handoff", "review", NULL
};

static bool
blank(const char *s)
{
	return s == NULL || tc_js_is_blank(s);
}

static int
check_env_triage(const tc_json *t, tc_error *err)
{
	const char *kind = tc_json_get_string(t, "kind");
	int64_t dev;

	if (!tc_json_is(t, TC_JSON_OBJECT)) {
		tc_error_set(err, "an env_error return needs env_triage {kind: "
		    "hardware|software, evidence, device_id for hardware}");
		return -1;
	}
	if (kind == NULL || (strcmp(kind, "hardware") != 0 &&
	    strcmp(kind, "software") != 0)) {
		tc_error_set(err, "env_triage.kind must be hardware (bad, invisible "
		    "or hung card: re-dispatch on another device) or software "
		    "(packages, CANN, environment: stop and report)");
		return -1;
	}
	if (blank(tc_json_get_string(t, "evidence"))) {
		tc_error_set(err, "env_triage.evidence must carry the raw output");
		return -1;
	}
	if (strcmp(kind, "hardware") == 0 &&
	    (!tc_json_int64(tc_json_get(t, "device_id"), &dev) || dev < 0)) {
		tc_error_set(err, "a hardware env_triage names the failing "
		    "device_id");
		return -1;
	}
	return 0;
}

static int
check_artifacts(const tc_json *arts, const char *op_dir, tc_error *err)
{
	size_t i;

	if (arts == NULL)
		return 0;
	if (!tc_json_is(arts, TC_JSON_ARRAY)) {
		tc_error_set(err, "result artifacts must be a list of paths "
		    "relative to the operator directory");
		return -1;
	}
	for (i = 0; i < arts->u.arr.len; i++) {
		const char *a = tc_json_string(arts->u.arr.items[i]);
		char *p = a != NULL ? tc_path_under_root(op_dir, a,
		    "result artifact", err) : NULL;

		if (a == NULL) {
			tc_error_set(err, "result artifacts must be strings");
			return -1;
		}
		if (p == NULL)
			return -1;
		if (!tc_path_exists(p)) {
			tc_error_set(err, "result artifact %s does not exist", a);
			free(p);
			return -1;
		}
		free(p);
	}
	return 0;
}

static bool
string_or_null_equal(const tc_json *v, const char *s)
{
	if (s == NULL)
		return v == NULL || v->type == TC_JSON_NULL;
	return tc_json_string(v) != NULL && strcmp(tc_json_string(v), s) == 0;
}

int
tc_pypto_result_check(const tc_json *task, const tc_json *r,
    const char *op_dir, tc_error *err)
{
	const tc_json *step = tc_json_get(task, "step");
	const char *role = tc_json_get_string(step, "role");
	const char *mode = tc_json_get_string(step, "mode");
	const char *outcome = tc_json_get_string(r, "outcome");
	const char *cat = tc_json_get_string(r, "failure_category");
	const char *const *allowed;
	size_t i;

	if (!tc_json_is(r, TC_JSON_OBJECT)) {
		tc_error_set(err, "a pypto result must be a JSON object");
		return -1;
	}
	for (i = 0; i < r->u.obj.len; i++)
		if (!tc_pypto__strv_has(result_keys, r->u.obj.members[i].key)) {
			tc_error_set(err, "unknown result field: %s",
			    r->u.obj.members[i].key);
			return -1;
		}
	if (!string_or_null_equal(tc_json_get(r, "schema_version"),
	    TC_PYPTO_RESULT_SCHEMA)) {
		tc_error_set(err, "result schema_version must be %s",
		    TC_PYPTO_RESULT_SCHEMA);
		return -1;
	}
	if (!tc_json_equal(tc_json_get(r, "step_id"), tc_json_get(step,
	    "step_id")) || !string_or_null_equal(tc_json_get(r, "role"), role) ||
	    !string_or_null_equal(tc_json_get(r, "mode"), mode) ||
	    !string_or_null_equal(tc_json_get(r, "module"),
	    tc_json_get_string(step, "module"))) {
		tc_error_set(err, "the result does not answer this task: step_id, "
		    "role, mode and module must be the task's (%s)",
		    tc_json_get_string(step, "step_id"));
		return -1;
	}
	if (!tc_json_equal(tc_json_get(r, "state_sha256"),
	    tc_json_get(task, "state_sha256"))) {
		tc_error_set(err, "the result's state_sha256 is not the task's: a "
		    "result answers the state it was dispatched from");
		return -1;
	}
	allowed = outcomes(role, mode);
	if (outcome == NULL || !tc_pypto__strv_has(allowed, outcome)) {
		tc_buf b = TC_BUF_INIT;

		for (i = 0; allowed[i] != NULL; i++)
			tc_buf_printf(&b, "%s%s", i ? ", " : "", allowed[i]);
		tc_error_set(err, "result outcome for %s%s%s must be one of: %s",
		    role, mode != NULL ? " " : "", mode != NULL ? mode : "",
		    tc_buf_cstr(&b));
		tc_buf_free(&b);
		return -1;
	}
	if (blank(tc_json_get_string(r, "summary"))) {
		tc_error_set(err, "result summary must be a non-empty string");
		return -1;
	}
	if (tc_json_get(r, "evidence") != NULL &&
	    tc_json_string(tc_json_get(r, "evidence")) == NULL) {
		tc_error_set(err, "result evidence must be a string (raw output)");
		return -1;
	}
	if (strcmp(outcome, "delivered") != 0 && strcmp(outcome, "PASS") != 0 &&
	    strcmp(outcome, "handoff") != 0 &&
	    blank(tc_json_get_string(r, "evidence"))) {
		tc_error_set(err, "a %s return must carry its raw evidence", outcome);
		return -1;
	}
	if (strcmp(outcome, "FAIL") == 0 && !tc_pypto_category_known(cat)) {
		tc_error_set(err, "a FAIL verdict needs a failure_category from the "
		    "verifier's list (got %s)", cat != NULL ? cat : "none");
		return -1;
	}
	if (cat != NULL && strcmp(outcome, "FAIL") != 0) {
		tc_error_set(err, "failure_category belongs to a FAIL verdict only");
		return -1;
	}
	if ((strcmp(outcome, "env_error") == 0 ||
	    (cat != NULL && strcmp(cat, "env_error") == 0)) &&
	    check_env_triage(tc_json_get(r, "env_triage"), err) != 0)
		return -1;
	if (strcmp(outcome, "upstream_suspected") == 0) {
		const char *sc = tc_json_get_string(r, "suspected_category");

		if (sc == NULL || (strcmp(sc, "kb_selection_invalid") != 0 &&
		    strcmp(sc, "design_violation") != 0)) {
			tc_error_set(err, "upstream_suspected names suspected_category "
			    "kb_selection_invalid or design_violation");
			return -1;
		}
	}
	if (strcmp(outcome, "UPSTREAM_CONFIRMED") == 0) {
		const char *cc = tc_json_get_string(r, "confirmed_category");

		if (cc == NULL || (strcmp(cc, "kb_selection_invalid") != 0 &&
		    strcmp(cc, "design_violation") != 0)) {
			tc_error_set(err, "UPSTREAM_CONFIRMED names confirmed_category "
			    "kb_selection_invalid or design_violation");
			return -1;
		}
	}
	if (strcmp(outcome, "handoff") == 0 &&
	    !tc_json_is(tc_json_get(r, "handoff"), TC_JSON_OBJECT)) {
		tc_error_set(err, "the optimizer returns its handoff object "
		    "(handoff)");
		return -1;
	}
	if (tc_json_get(r, "review") != NULL &&
	    !tc_json_is(tc_json_get(r, "review"), TC_JSON_OBJECT)) {
		tc_error_set(err, "result review must be an object");
		return -1;
	}
	return check_artifacts(tc_json_get(r, "artifacts"), op_dir, err);
}
