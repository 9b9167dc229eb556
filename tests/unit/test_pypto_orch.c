/*
 * test_pypto_orch.c - tunectl as the PyPTO-Pro orchestrator, on documents
 * only: the routing tables (every Stage 5 category, the stage 1-4 returns
 * and verdicts, the optimizer's three exits and the environment triage),
 * the one legal next step, the result checks, the handoff validator's
 * env_error and stage5_contract_blocked exits, and the experiment rules of
 * the item ledger.
 */
#include <ftw.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "../../src/pypto/orch_internal.h"
#include "../../src/pypto/pypto_internal.h"
#include "tunectl/fileio.h"
#include "tunectl/pypto_items.h"
#include "tunectl/pypto_stage5.h"
#include "unit_fixture.h"

static tc_json *
js(const char *text)
{
	tc_error err = TC_ERROR_INIT;
	tc_json *v = tc_json_parse(text, strlen(text), &err);

	if (v == NULL)
		fail_msg("bad test JSON: %s: %s", tc_error_msg(&err), text);
	return v;
}

static tc_json *
state_at(int stage, const char *path, const char *orch)
{
	char buf[2048];
	int s;
	tc_buf st = TC_BUF_INIT;

	for (s = 1; s <= 5; s++)
		tc_buf_printf(&st, "%s\"%d\": \"%s\"", s > 1 ? ", " : "", s,
		    s < stage ? "completed" : s == stage ? "in_progress" :
		    "pending");
	snprintf(buf, sizeof(buf), "{\"schema_version\": \"2.2\", \"max_stage\": "
	    "5, \"current_stage\": %d, \"stage_status\": {%s}, "
	    "\"stage_retry_count\": {\"1\": 0, \"2\": 0, \"3\": 0, \"4\": 0, "
	    "\"5\": 0}%s%s%s \"orchestration\": %s}", stage, tc_buf_cstr(&st),
	    path != NULL ? ", \"stage4_path\": \"" : "", path != NULL ? path : "",
	    path != NULL ? "\"," : ",", orch != NULL ? orch : "{\"sequence\": 3}");
	tc_buf_free(&st);
	return js(buf);
}

static tc_json *
task_for(int stage, const char *role, const char *mode, const char *module)
{
	char buf[1024];

	snprintf(buf, sizeof(buf), "{\"device_id\": 0, \"feedback\": null, "
	    "\"step\": {\"step_id\": \"s%d-004-%s\", \"stage\": %d, \"role\": "
	    "\"%s\", \"mode\": %s%s%s, \"module\": %s%s%s}}", stage, role, stage,
	    role, mode != NULL ? "\"" : "", mode != NULL ? mode : "null",
	    mode != NULL ? "\"" : "", module != NULL ? "\"" : "",
	    module != NULL ? module : "null", module != NULL ? "\"" : "");
	return js(buf);
}

struct routed {
	tc_pypto_decision d;
	tc_json *state, *task, *result;
};

static void
route(struct routed *r, tc_json *state, tc_json *task, const char *result,
    const char *verdict, const char *category)
{
	tc_error err = TC_ERROR_INIT;

	r->state = state;
	r->task = task;
	r->result = js(result);
	if (tc_pypto_route(state, task, r->result, verdict, category,
	    verdict != NULL ? "raw evidence" : NULL, "/nonexistent", &r->d,
	    &err) != 0)
		fail_msg("route: %s", tc_error_msg(&err));
}

static void
routed_free(struct routed *r)
{
	tc_pypto_decision_free(&r->d);
	tc_json_free(r->state);
	tc_json_free(r->task);
	tc_json_free(r->result);
}

static const char *
next_role(const struct routed *r)
{
	return tc_json_get_string(r->d.next, "role");
}

static const char *
action_at(const struct routed *r, size_t i)
{
	if (i >= r->d.actions->u.arr.len)
		return "(none)";
	return tc_json_get_string(r->d.actions->u.arr.items[i], "action");
}

static const char *
action_arg(const struct routed *r, size_t i, const char *key)
{
	return tc_json_get_string(r->d.actions->u.arr.items[i], key);
}

/* ---- Stage 5 ------------------------------------------------------------------ */

static void
stage5_table_maps_every_category(void **st)
{
	static const char *const repair[] = { "performance_evidence_invalid",
	    "performance_item_coverage_invalid", "precision_failure",
	    "runtime_failure", "cheating", "perf_violation", "design_violation",
	    "kb_usage_invalid", "wrapper_boundary_violation", "import_violation",
	    "signature_mismatch", "delivery_import_unsafe", NULL };
	static const char *const wait[] = { "stage5_contract_blocked",
	    "kb_selection_invalid", "golden_failure", NULL };
	size_t i;

	(void)st;
	for (i = 0; repair[i] != NULL; i++)
		assert_string_equal(tc_pypto_stage5_route(repair[i], ""), "repair");
	for (i = 0; wait[i] != NULL; i++)
		assert_string_equal(tc_pypto_stage5_route(wait[i], ""), "wait");
	assert_string_equal(tc_pypto_stage5_route("dispatch_invalid", ""),
	    "reverify");
	assert_string_equal(tc_pypto_stage5_route("env_error", ""), "triage");
	assert_string_equal(tc_pypto_stage5_route("other", ""), "reclassify");
	/* missing updatable files go to the optimizer; a frozen input named
	 * in the evidence goes back to the verifier to re-classify */
	assert_string_equal(tc_pypto_stage5_route("missing_file",
	    "PERFORMANCE_REPORT.md is missing"), "repair");
	assert_string_equal(tc_pypto_stage5_route("incomplete_structure",
	    "module_interfaces.yaml lacks modules"), "reclassify");
}

static void
stage5_pass_completes_the_stage(void **st)
{
	struct routed r;

	(void)st;
	route(&r, state_at(5, "L0", NULL), task_for(5, "verifier",
	    "stage5-check", NULL), "{}", "PASS", NULL);
	assert_string_equal(action_at(&r, 0), "complete_stage");
	assert_string_equal(action_arg(&r, 0, "stage"), "5");
	assert_null(r.d.next);
	routed_free(&r);
}

static void
stage5_failures_stay_in_stage5(void **st)
{
	static const char *const cats[] = { "precision_failure", "cheating",
	    "performance_evidence_invalid", "performance_item_coverage_invalid",
	    "design_violation", NULL };
	size_t i;

	(void)st;
	for (i = 0; cats[i] != NULL; i++) {
		struct routed r;

		route(&r, state_at(5, "L0", NULL), task_for(5, "verifier",
		    "stage5-check", NULL), "{}", "FAIL", cats[i]);
		/* never a rollback, never the coder or the architect */
		assert_int_equal(r.d.actions->u.arr.len, 0);
		assert_string_equal(next_role(&r), "optimizer");
		assert_string_equal(tc_json_get_string(tc_json_get(r.d.next,
		    "feedback"), "evidence"), "raw evidence");
		assert_string_equal(tc_json_get_string(tc_json_get(r.d.next,
		    "feedback"), "failure_category"), cats[i]);
		routed_free(&r);
	}
}

static void
stage5_block_halts_and_dispatch_invalid_reverifies(void **st)
{
	struct routed r;

	(void)st;
	route(&r, state_at(5, "L0", NULL), task_for(5, "verifier",
	    "stage5-check", NULL), "{}", "FAIL", "stage5_contract_blocked");
	assert_int_equal(r.d.actions->u.arr.len, 0);
	assert_string_equal(tc_json_get_string(r.d.halt, "kind"),
	    "stage5_contract_blocked");
	routed_free(&r);
	route(&r, state_at(5, "L0", NULL), task_for(5, "verifier",
	    "stage5-check", NULL), "{}", "FAIL", "dispatch_invalid");
	assert_string_equal(next_role(&r), "verifier");
	assert_string_equal(tc_json_get_string(r.d.next, "mode"), "stage5-check");
	routed_free(&r);
	route(&r, state_at(5, "L0", NULL), task_for(5, "verifier",
	    "stage5-check", NULL), "{}", "FAIL", "other");
	assert_string_equal(next_role(&r), "verifier");
	routed_free(&r);
}

static void
stage5_missing_evidence_goes_to_its_owner(void **st)
{
	struct routed r;

	(void)st;
	route(&r, state_at(5, "L0", NULL), task_for(5, "verifier",
	    "stage5-check", NULL), "{\"missing_owners\": [\"optimizer\"]}",
	    "NOT_COMPLETE", NULL);
	assert_string_equal(next_role(&r), "optimizer");
	routed_free(&r);
	route(&r, state_at(5, "L0", NULL), task_for(5, "verifier",
	    "stage5-check", NULL), "{\"missing_owners\": [\"verifier\"]}",
	    "NOT_COMPLETE", NULL);
	assert_string_equal(next_role(&r), "verifier");
	routed_free(&r);
}

static void
optimizer_exits_route(void **st)
{
	struct routed r;

	(void)st;
	route(&r, state_at(5, "L0", NULL), task_for(5, "optimizer", NULL, NULL),
	    "{\"outcome\": \"handoff\", \"handoff\": {\"exit\": \"closed\"}}", NULL, NULL);
	assert_string_equal(next_role(&r), "verifier");
	assert_string_equal(tc_json_get_string(r.d.next, "mode"), "stage5-check");
	routed_free(&r);
	/* hardware: the same step again, on another device */
	route(&r, state_at(5, "L0", NULL), task_for(5, "optimizer", NULL, NULL),
	    "{\"outcome\": \"handoff\", \"handoff\": {\"exit\": \"env_error\", \"env_triage\": {\"kind\": "
	    "\"hardware\", \"device_id\": 3, \"evidence\": \"npu-smi: card 3 "
	    "lost\"}}}", NULL, NULL);
	assert_int_equal(r.d.exclude_device, 3);
	assert_string_equal(next_role(&r), "optimizer");
	assert_null(r.d.halt);
	routed_free(&r);
	/* software: stop and report */
	route(&r, state_at(5, "L0", NULL), task_for(5, "optimizer", NULL, NULL),
	    "{\"outcome\": \"handoff\", \"handoff\": {\"exit\": \"env_error\", \"env_triage\": {\"kind\": "
	    "\"software\", \"evidence\": \"No module named torch_npu\"}}}", NULL,
	    NULL);
	assert_string_equal(tc_json_get_string(r.d.halt, "kind"), "env_software");
	assert_int_equal(r.d.exclude_device, -1);
	routed_free(&r);
	route(&r, state_at(5, "L0", NULL), task_for(5, "optimizer", NULL, NULL),
	    "{\"outcome\": \"handoff\", \"handoff\": {\"exit\": \"stage5_contract_blocked\", \"block\": "
	    "{\"root_cause\": \"SPEC.md unparseable\", \"evidence\": \"x\"}}}",
	    NULL, NULL);
	assert_string_equal(tc_json_get_string(r.d.halt, "kind"),
	    "stage5_contract_blocked");
	assert_string_equal(tc_json_get_string(r.d.halt, "reason"),
	    "SPEC.md unparseable");
	routed_free(&r);
}

/* ---- Stages 1-4 ------------------------------------------------------------------ */

static void
stage4_check_table(void **st)
{
	static const struct { const char *cat, *action, *target, *role; } t[] = {
		{ "design_violation", "rollback_to_stage", "3", NULL },
		{ "kb_selection_invalid", "rollback_to_stage", "1", NULL },
		{ "golden_failure", "rollback_to_stage", "2", NULL },
		{ "cheating", NULL, NULL, "coder" },
		{ "dispatch_invalid", NULL, NULL, "verifier" },
		{ "kb_usage_invalid", NULL, NULL, "coder" },
		{ "wrapper_boundary_violation", NULL, NULL, "coder" },
		{ "precision_failure", NULL, NULL, "coder" },
	};
	size_t i;

	(void)st;
	for (i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		struct routed r;

		route(&r, state_at(4, "L0", NULL), task_for(4, "verifier",
		    "stage4-check", NULL), "{}", "FAIL", t[i].cat);
		if (t[i].action != NULL) {
			assert_string_equal(action_at(&r, 0), t[i].action);
			assert_string_equal(action_arg(&r, 0, "target_stage"),
			    t[i].target);
			assert_string_equal(action_arg(&r, 0, "failure_category"),
			    t[i].cat);
		} else {
			assert_int_equal(r.d.actions->u.arr.len, 0);
			assert_string_equal(next_role(&r), t[i].role);
		}
		routed_free(&r);
	}
}

static void
stage4_pass_completes_and_records_the_summary(void **st)
{
	struct routed r;

	(void)st;
	route(&r, state_at(4, "L0", NULL), task_for(4, "verifier",
	    "stage4-check", NULL), "{\"summary\": \"all 15 passed\"}", "PASS",
	    NULL);
	assert_string_equal(action_at(&r, 0), "complete_stage");
	assert_string_equal(action_arg(&r, 0, "stage"), "4");
	assert_non_null(tc_json_get(r.d.orch_set, "stage4_pass"));
	routed_free(&r);
}

static void
module_check_fails_the_module_or_rolls_back(void **st)
{
	struct routed r;

	(void)st;
	route(&r, state_at(4, "L1", NULL), task_for(4, "verifier",
	    "module-check", "2"), "{}", "FAIL", "precision_failure");
	assert_string_equal(action_at(&r, 0), "fail_module");
	assert_string_equal(action_arg(&r, 0, "module"), "2");
	assert_string_equal(next_role(&r), "coder");
	assert_string_equal(tc_json_get_string(r.d.next, "mode"), "module");
	assert_string_equal(tc_json_get_string(r.d.next, "module"), "2");
	routed_free(&r);
	route(&r, state_at(4, "L1", NULL), task_for(4, "verifier",
	    "module-check", "2"), "{}", "FAIL", "golden_failure");
	assert_string_equal(action_at(&r, 0), "rollback_to_stage");
	assert_string_equal(action_arg(&r, 0, "target_stage"), "3");
	routed_free(&r);
	route(&r, state_at(4, "L1", NULL), task_for(4, "verifier",
	    "module-check", "2"), "{}", "PASS", NULL);
	assert_string_equal(action_at(&r, 0), "complete_module");
	routed_free(&r);
}

static void
coder_returns_go_to_the_verifier_first(void **st)
{
	struct routed r;

	(void)st;
	route(&r, state_at(4, "L0", NULL), task_for(4, "coder", NULL, NULL),
	    "{\"outcome\": \"capability_gap\", \"evidence\": \"no vf.exp\"}",
	    NULL, NULL);
	assert_int_equal(r.d.actions->u.arr.len, 0);	/* never a direct rollback */
	assert_string_equal(next_role(&r), "verifier");
	assert_string_equal(tc_json_get_string(r.d.next, "mode"),
	    "capability_gap_check");
	routed_free(&r);
	route(&r, state_at(4, "L0", NULL), task_for(4, "verifier",
	    "capability_gap_check", NULL), "{\"outcome\": \"CONFIRMED_GAP\", "
	    "\"evidence\": \"docs + probe\"}", NULL, NULL);
	assert_string_equal(action_at(&r, 0), "rollback_to_stage");
	assert_string_equal(action_arg(&r, 0, "failure_category"),
	    "capability_gap");
	routed_free(&r);
	route(&r, state_at(4, "L0", NULL), task_for(4, "verifier",
	    "upstream-contract-check", NULL), "{\"outcome\": "
	    "\"UPSTREAM_CONFIRMED\", \"confirmed_category\": "
	    "\"kb_selection_invalid\", \"evidence\": \"repro\"}", NULL, NULL);
	assert_string_equal(action_arg(&r, 0, "target_stage"), "1");
	routed_free(&r);
}

static void
stage1_to_3_returns(void **st)
{
	struct routed r;

	(void)st;
	route(&r, state_at(2, NULL, NULL), task_for(2, "mathematician", NULL,
	    NULL), "{\"outcome\": \"stage1_material_gap\", \"evidence\": \"no "
	    "value range\"}", NULL, NULL);
	assert_string_equal(action_at(&r, 0), "rollback_to_stage");
	assert_string_equal(action_arg(&r, 0, "target_stage"), "1");
	assert_string_equal(action_arg(&r, 0, "reason"), "no value range");
	routed_free(&r);
	route(&r, state_at(2, NULL, NULL), task_for(2, "mathematician", NULL,
	    NULL), "{\"outcome\": \"delivered\"}", NULL, NULL);
	assert_string_equal(action_at(&r, 0), "complete_stage");
	routed_free(&r);
	route(&r, state_at(2, NULL, "{\"sequence\": 1, \"options\": "
	    "{\"run_stage2_verifier\": true}}"), task_for(2, "mathematician",
	    NULL, NULL), "{\"outcome\": \"delivered\"}", NULL, NULL);
	assert_string_equal(tc_json_get_string(r.d.next, "mode"), "stage2-check");
	routed_free(&r);
	route(&r, state_at(3, NULL, NULL), task_for(3, "architect", NULL, NULL),
	    "{\"outcome\": \"design_violation\", \"evidence\": \"x\"}", NULL,
	    NULL);
	assert_int_equal(r.d.actions->u.arr.len, 0);
	assert_string_equal(next_role(&r), "architect");
	routed_free(&r);
	route(&r, state_at(1, NULL, NULL), task_for(1, "verifier", "stage1-check",
	    NULL), "{\"outcome\": \"FAIL\", \"failure_category\": "
	    "\"incomplete_structure\", \"evidence\": \"x\"}", NULL, NULL);
	assert_string_equal(next_role(&r), "planner");
	routed_free(&r);
}

static void
stage3_pass_plans_stage4_from_module_interfaces(void **st)
{
	char dir[4096], path[4200];
	tc_error err = TC_ERROR_INIT;
	tc_pypto_decision d;
	tc_json *state = state_at(3, NULL, NULL), *task = task_for(3, "verifier",
	    "stage3-check", NULL), *res = js("{\"outcome\": \"PASS\"}");
	FILE *fp;

	(void)st;
	unit_tmpdir_into(dir, sizeof(dir), "orch-yaml");
	snprintf(path, sizeof(path), "%s/module_interfaces.yaml", dir);
	fp = fopen(path, "w");
	fputs("module_count: 2\nis_fusion: True\n", fp);
	fclose(fp);
	assert_int_equal(tc_pypto_route(state, task, res, NULL, NULL, NULL, dir,
	    &d, &err), 0);
	assert_string_equal(tc_json_get_string(d.actions->u.arr.items[0],
	    "action"), "complete_stage");
	assert_string_equal(tc_json_get_string(d.actions->u.arr.items[1],
	    "action"), "plan_stage4");
	assert_string_equal(tc_json_get_string(d.actions->u.arr.items[1],
	    "module_count"), "2");
	assert_true(tc_json_get(d.actions->u.arr.items[1], "is_fusion")->u.b);
	tc_pypto_decision_free(&d);
	/* unreadable: back to the architect, Stage 3 not completed */
	fp = fopen(path, "w");
	fputs("module_count: 1\nis_fusion: true\n", fp);
	fclose(fp);
	assert_int_equal(tc_pypto_route(state, task, res, NULL, NULL, NULL, dir,
	    &d, &err), 0);
	assert_int_equal(d.actions->u.arr.len, 0);
	assert_string_equal(tc_json_get_string(d.next, "role"), "architect");
	tc_pypto_decision_free(&d);
	assert_int_equal(unit_rmtree(dir), 0);
	tc_json_free(state);
	tc_json_free(task);
	tc_json_free(res);
}

/* ---- the next step --------------------------------------------------------------- */

static const char *
next_of(tc_json *state, tc_pypto_step *s, tc_json **prep)
{
	const char *status = NULL;
	tc_error err = TC_ERROR_INIT;
	int rc = tc_pypto_next_step(state, s, &status, prep, &err);

	tc_error_clear(&err);
	return rc == 0 ? "step" : status;
}

static void
next_step_follows_the_state(void **st)
{
	tc_pypto_step s;
	tc_json *prep = NULL, *state;

	(void)st;
	state = state_at(1, NULL, NULL);
	assert_string_equal(next_of(state, &s, &prep), "step");
	assert_string_equal(s.role, "planner");
	assert_string_equal(s.step_id, "s1-004-planner");
	tc_pypto_step_free(&s);
	tc_json_free(state);

	/* the router's sub-step of this stage is used; one of another stage
	 * is not */
	state = state_at(1, NULL, "{\"sequence\": 4, \"next\": {\"stage\": 1, "
	    "\"role\": \"verifier\", \"mode\": \"stage1-check\"}}");
	assert_string_equal(next_of(state, &s, &prep), "step");
	assert_string_equal(s.step_id, "s1-005-verifier-stage1-check");
	tc_pypto_step_free(&s);
	tc_json_free(state);
	state = state_at(2, NULL, "{\"sequence\": 4, \"next\": {\"stage\": 1, "
	    "\"role\": \"verifier\", \"mode\": \"stage1-check\"}}");
	assert_string_equal(next_of(state, &s, &prep), "step");
	assert_string_equal(s.role, "mathematician");
	tc_pypto_step_free(&s);
	tc_json_free(state);

	state = state_at(5, "L0", NULL);
	assert_string_equal(next_of(state, &s, &prep), "awaiting_consent");
	tc_json_free(state);
	state = state_at(5, "L0", "{\"stage5\": {\"consent\": {\"decision\": "
	    "\"declined\"}}}");
	assert_string_equal(next_of(state, &s, &prep), "declined");
	tc_json_free(state);
	state = state_at(5, "L0", "{\"stage5\": {\"consent\": {\"decision\": "
	    "\"consented\"}}, \"halt\": {\"kind\": \"env_software\", \"reason\": "
	    "\"x\"}}");
	assert_string_equal(next_of(state, &s, &prep), "halted");
	tc_json_free(state);
	state = state_at(5, "L0", "{\"stage5\": {\"consent\": {\"decision\": "
	    "\"consented\"}}}");
	assert_string_equal(next_of(state, &s, &prep), "step");
	assert_string_equal(s.role, "optimizer");
	tc_pypto_step_free(&s);
	tc_json_free(state);
}

static void
devices_excluded_after_a_hardware_fault(void **st)
{
	tc_pypto_step s;
	tc_json *prep = NULL, *state;

	(void)st;
	state = state_at(4, "L0", "{\"options\": {\"devices\": [0, 1]}, "
	    "\"excluded_devices\": [{\"device_id\": 0}]}");
	assert_string_equal(next_of(state, &s, &prep), "step");
	assert_int_equal(s.device_id, 1);
	tc_pypto_step_free(&s);
	tc_json_free(state);
	state = state_at(4, "L0", "{\"options\": {\"devices\": [0, 1]}, "
	    "\"excluded_devices\": [{\"device_id\": 0}, {\"device_id\": 1}]}");
	assert_string_equal(next_of(state, &s, &prep), "halted");
	tc_json_free(state);
}

static void
l1_modules_in_order(void **st)
{
	tc_pypto_step s;
	tc_json *prep = NULL, *state;
	char orch[256];

	(void)st;
	state = state_at(4, "L1", NULL);
	tc_json_object_set(state, "stage4_modules", js("{\"module_count\": 2, "
	    "\"module_status\": {\"1\": \"pending\", \"2\": \"pending\"}}"));
	assert_string_equal(next_of(state, &s, &prep), "step");
	assert_string_equal(s.role, "mathematician");
	assert_string_equal(s.mode, "staging");
	tc_pypto_step_free(&s);
	tc_json_free(state);
	snprintf(orch, sizeof(orch), "{\"l1\": {\"staging_done\": true}}");
	state = state_at(4, "L1", orch);
	tc_json_object_set(state, "stage4_modules", js("{\"module_count\": 2, "
	    "\"module_status\": {\"1\": \"verified\", \"2\": \"pending\"}}"));
	assert_string_equal(next_of(state, &s, &prep), "step");
	assert_string_equal(s.role, "coder");
	assert_string_equal(s.module, "2");
	assert_string_equal(tc_json_get_string(prep, "action"), "start_module");
	tc_json_free(prep);
	prep = NULL;
	tc_pypto_step_free(&s);
	tc_json_free(tc_json_object_take(state, "stage4_modules"));
	tc_json_object_set(state, "stage4_modules", js("{\"module_count\": 2, "
	    "\"max_cycles_per_module\": 10, \"module_status\": {\"1\": "
	    "\"verified\", \"2\": \"awaiting_verify\"}}"));
	assert_string_equal(next_of(state, &s, &prep), "step");
	assert_string_equal(s.mode, "module-check");
	tc_pypto_step_free(&s);
	tc_json_free(tc_json_object_take(state, "stage4_modules"));
	tc_json_object_set(state, "stage4_modules", js("{\"module_count\": 2, "
	    "\"max_cycles_per_module\": 10, \"module_status\": {\"1\": "
	    "\"verified\", \"2\": \"blocked\"}}"));
	assert_string_equal(next_of(state, &s, &prep), "halted");
	tc_json_free(tc_json_object_take(state, "stage4_modules"));
	tc_json_object_set(state, "stage4_modules", js("{\"module_count\": 2, "
	    "\"module_status\": {\"1\": \"verified\", \"2\": \"verified\"}}"));
	assert_string_equal(next_of(state, &s, &prep), "step");
	assert_string_equal(s.mode, "finalize");
	tc_pypto_step_free(&s);
	tc_json_free(state);
}

/* ---- results ----------------------------------------------------------------------- */

static void
result_checks_refuse_what_does_not_answer_the_task(void **st)
{
	static const struct { const char *result, *msg; } bad[] = {
		{ "{\"outcome\": \"delivered\", \"state_sha256\": \"other\"}",
		  "state_sha256" },
		{ "{\"outcome\": \"finished\"}", "must be one of" },
		{ "{\"outcome\": \"env_error\", \"evidence\": \"x\"}", "env_triage" },
		{ "{\"outcome\": \"env_error\", \"evidence\": \"x\", \"env_triage\": "
		  "{\"kind\": \"hardware\", \"evidence\": \"x\"}}", "device_id" },
		{ "{\"outcome\": \"delivered\", \"extra\": 1}", "unknown result "
		  "field: extra" },
		{ "{\"outcome\": \"delivered\", \"artifacts\": [\"../x\"]}", "'..'" },
		{ "{\"outcome\": \"upstream_suspected\", \"evidence\": \"x\"}",
		  "suspected_category" },
	};
	tc_json *task = task_for(4, "coder", NULL, NULL);
	size_t i;

	(void)st;
	tc_json_object_set_string(task, "state_sha256", "abc");
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		tc_json *r = js(bad[i].result);
		tc_error err = TC_ERROR_INIT;

		tc_json_object_set_string(r, "schema_version",
		    TC_PYPTO_RESULT_SCHEMA);
		tc_json_object_set_string(r, "step_id", "s4-004-coder");
		tc_json_object_set_string(r, "role", "coder");
		tc_json_object_set_null(r, "mode");
		tc_json_object_set_null(r, "module");
		if (tc_json_get(r, "state_sha256") == NULL)
			tc_json_object_set_string(r, "state_sha256", "abc");
		tc_json_object_set_string(r, "summary", "s");
		assert_int_equal(tc_pypto_result_check(task, r, "/tmp", &err), -1);
		if (strstr(tc_error_msg(&err), bad[i].msg) == NULL)
			fail_msg("case %zu: %s", i, tc_error_msg(&err));
		tc_error_clear(&err);
		tc_json_free(r);
	}
	tc_json_free(task);
}

/* ---- handoff exits ------------------------------------------------------------------ */

static int
handoff(const char *text, tc_json **report)
{
	tc_error err = TC_ERROR_INIT;
	tc_json *h = js(text);
	int rc = tc_pypto_handoff_validate("/tmp/op", h, NULL, report, &err);

	tc_error_clear(&err);
	tc_json_free(h);
	return rc;
}

static void
handoff_env_and_blocked_exits(void **st)
{
	tc_json *rep;
	const char *head = "{\"schema_version\": 1, \"kind\": "
	    "\"pypto_optimizer_handoff\", \"operator\": \"op\", \"summary\": "
	    "\"s\", \"optimization_target\": null, \"commands\": [], ";
	char buf[1024];

	(void)st;
	snprintf(buf, sizeof(buf), "%s\"exit\": \"env_error\", \"env_triage\": "
	    "{\"kind\": \"hardware\", \"device_id\": 2, \"evidence\": \"hang\"}}",
	    head);
	assert_int_equal(handoff(buf, &rep), 0);
	assert_string_equal(tc_json_get_string(tc_json_get(rep, "triage"),
	    "action"), "redispatch_other_device");
	tc_json_free(rep);
	snprintf(buf, sizeof(buf), "%s\"exit\": \"env_error\", \"env_triage\": "
	    "{\"kind\": \"software\", \"evidence\": \"CANN not configured\"}}",
	    head);
	assert_int_equal(handoff(buf, &rep), 0);
	assert_string_equal(tc_json_get_string(tc_json_get(rep, "triage"),
	    "action"), "stop_and_report");
	tc_json_free(rep);
	/* an env_error never carries performance conclusions */
	snprintf(buf, sizeof(buf), "%s\"exit\": \"env_error\", \"per_case\": [], "
	    "\"env_triage\": {\"kind\": \"software\", \"evidence\": \"x\"}}",
	    head);
	assert_int_equal(handoff(buf, &rep), -1);
	tc_json_free(rep);
	snprintf(buf, sizeof(buf), "%s\"exit\": \"stage5_contract_blocked\", "
	    "\"block\": {\"root_cause\": \"r\", \"frozen_inputs\": [\"SPEC.md\"], "
	    "\"evidence\": \"e\"}}", head);
	assert_int_equal(handoff(buf, &rep), 0);
	tc_json_free(rep);
	snprintf(buf, sizeof(buf), "%s\"exit\": \"stage5_contract_blocked\", "
	    "\"block\": {\"root_cause\": \"r\", \"frozen_inputs\": [], "
	    "\"evidence\": \"e\"}}", head);
	assert_int_equal(handoff(buf, &rep), -1);
	tc_json_free(rep);
	/* a target miss is no exit */
	snprintf(buf, sizeof(buf), "%s\"exit\": \"target_not_met\"}", head);
	assert_int_equal(handoff(buf, &rep), -1);
	tc_json_free(rep);
	/* a closed handoff needs its deliverables */
	snprintf(buf, sizeof(buf), "%s\"exit\": \"closed\"}", head);
	assert_int_equal(handoff(buf, &rep), -1);
	assert_true(tc_json_get(rep, "errors")->u.arr.len > 3);
	tc_json_free(rep);
}

/* ---- experiments ----------------------------------------------------------------------- */

static void
ledger_refuses_two_change_experiments(void **st)
{
	tc_json *l = tc_pypto_ledger_new(), *rep, *errs;
	bool ok;

	(void)st;
	tc_json_object_set(l, "experiments", js("[{\"experiment_id\": "
	    "\"exp-001\", \"item_ids\": [\"general-01\"], \"hypothesis\": \"h\", "
	    "\"changes\": [{\"summary\": \"a\"}, {\"summary\": \"b\"}], "
	    "\"restore_point\": {\"sha256\": \"x\"}, \"status\": \"open\"}]"));
	rep = tc_pypto_ledger_validate(l, false, &ok);
	assert_false(ok);
	errs = tc_json_get(rep, "errors");
	assert_non_null(strstr(tc_json_string(errs->u.arr.items[0]),
	    "carries 2 changes; an experiment carries exactly one change"));
	tc_json_free(rep);
	/* rejected without restoring the code */
	tc_json_object_set(l, "experiments", js("[{\"experiment_id\": "
	    "\"exp-001\", \"item_ids\": [\"general-01\"], \"hypothesis\": \"h\", "
	    "\"change\": {\"summary\": \"a\"}, \"restore_point\": {\"sha256\": "
	    "\"x\"}, \"status\": \"closed\", \"decision\": \"rejected\", "
	    "\"reason\": \"slower\", \"restored_sha256\": \"y\"}]"));
	rep = tc_pypto_ledger_validate(l, false, &ok);
	assert_false(ok);
	assert_non_null(strstr(tc_json_string(tc_json_get(rep,
	    "errors")->u.arr.items[0]), "was not restored"));
	tc_json_free(rep);
	tc_json_free(l);
}

/* The small helpers the pypto files share: string lists, member copies,
 * the document head and an orchestrator input that changes nothing. */
static void
shared_helpers_answer_as_their_copies_did(void **state)
{
	static const char *const list[] = { "a", "bc", NULL };
	static const char *const keys[] = { "x", "gone", NULL };
	tc_json *src = js("{\"x\": [1, {\"y\": 2}], \"z\": 3}");
	tc_json *dst = tc_json_new_object();
	tc_pypto_orch_input in;
	char *text;

	(void)state;
	assert_int_equal(tc_pypto__strv_index(list, "bc"), 1);
	assert_int_equal(tc_pypto__strv_index(list, "b"), -1);
	assert_int_equal(tc_pypto__strv_index(list, NULL), -1);
	assert_true(tc_pypto__strv_has(list, "a"));
	assert_false(tc_pypto__strv_has(list, NULL));
	tc_pj_doc_header(dst, "k");
	tc_pj_copy_members(dst, src, keys);
	text = tc_json_canonical(dst, NULL, NULL);
	assert_string_equal(text, "{\"gone\":null,\"kind\":\"k\","
	    "\"schema_version\":1,\"x\":[1,{\"y\":2}]}");
	free(text);
	tc_json_free(dst);
	tc_json_free(src);
	tc_pypto_orch_input_init(&in, "configure");
	assert_string_equal(in.action, "configure");
	assert_int_equal(in.collect_golden_perf, -1);
	assert_int_equal(in.run_stage2_verifier, -1);
	assert_null(in.devices);
	assert_false(in.no_questions);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(stage5_table_maps_every_category),
		cmocka_unit_test(stage5_pass_completes_the_stage),
		cmocka_unit_test(stage5_failures_stay_in_stage5),
		cmocka_unit_test(stage5_block_halts_and_dispatch_invalid_reverifies),
		cmocka_unit_test(stage5_missing_evidence_goes_to_its_owner),
		cmocka_unit_test(optimizer_exits_route),
		cmocka_unit_test(stage4_check_table),
		cmocka_unit_test(stage4_pass_completes_and_records_the_summary),
		cmocka_unit_test(module_check_fails_the_module_or_rolls_back),
		cmocka_unit_test(coder_returns_go_to_the_verifier_first),
		cmocka_unit_test(stage1_to_3_returns),
		cmocka_unit_test(stage3_pass_plans_stage4_from_module_interfaces),
		cmocka_unit_test(next_step_follows_the_state),
		cmocka_unit_test(devices_excluded_after_a_hardware_fault),
		cmocka_unit_test(l1_modules_in_order),
		cmocka_unit_test(result_checks_refuse_what_does_not_answer_the_task),
		cmocka_unit_test(handoff_env_and_blocked_exits),
		cmocka_unit_test(ledger_refuses_two_change_experiments),
		cmocka_unit_test(shared_helpers_answer_as_their_copies_did),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
