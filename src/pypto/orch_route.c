/*
 * orch_route.c - what the orchestrator does with a worker's return: the
 * stage 1-4 return and verdict tables (docs/spec/pypto.md
 * "Orchestrator protocol", "Stage 4 check routing",
 * docs/spec/pypto.md "Module check routing"), the Stage 5 routing table
 * (docs/spec/pypto.md "Stage 5 check routing"), the optimizer's three exits
 * (docs/spec/pypto.md "Stage 5 exits") and the environment triage
 * (docs/spec/pypto.md "Environment triage": a hardware fault re-dispatches the
 * step on another device, a software fault stops and reports).
 *
 * A decision is data: the state actions to apply in order, the next
 * sub-step (with the raw evidence the next worker gets verbatim), a halt,
 * a device to exclude.  Nothing here reads or writes the state file.
 * After Stage 5 was entered no decision ever rolls back.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pypto_internal.h"
#include "orch_internal.h"
#include "stage5_internal.h"

void
tc_pypto_decision_free(tc_pypto_decision *d)
{
	tc_json_free(d->actions);
	tc_json_free(d->next);
	tc_json_free(d->halt);
	tc_json_free(d->orch_set);
	free(d->summary);
	memset(d, 0, sizeof(*d));
	d->exclude_device = -1;
}

struct route {
	const tc_json *state;
	const tc_json *task;
	const tc_json *result;
	const char *role, *mode, *module;
	int stage;
	const char *outcome;
	const char *category;
	const char *evidence;
	tc_pypto_decision *d;
};

static bool
is(const char *a, const char *b)
{
	return a != NULL && b != NULL && strcmp(a, b) == 0;
}

static void
summary(struct route *r, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static void
summary(struct route *r, const char *fmt, ...)
{
	va_list ap;
	tc_error e = TC_ERROR_INIT;

	va_start(ap, fmt);
	tc_error_vset(&e, fmt, ap);
	va_end(ap);
	free(r->d->summary);
	r->d->summary = tc_xstrdup(tc_error_msg(&e));
	tc_error_clear(&e);
}

static tc_json *
action(struct route *r, const char *name)
{
	tc_json *a = tc_json_new_object();

	tc_json_object_set_string(a, "action", name);
	tc_json_array_push(r->d->actions, a);
	return a;
}

static void
act_stage(struct route *r, const char *name, int stage)
{
	char num[8];

	snprintf(num, sizeof(num), "%d", stage);
	tc_json_object_set_string(action(r, name), "stage", num);
}

static void
act_rollback(struct route *r, int target, const char *category)
{
	tc_json *a = action(r, "rollback_to_stage");
	char num[8];
	const char *ev = r->evidence != NULL && !tc_js_is_blank(r->evidence) ?
	    r->evidence : r->outcome;

	snprintf(num, sizeof(num), "%d", target);
	tc_json_object_set_string(a, "target_stage", num);
	tc_json_object_set_string(a, "reason", ev);
	if (category != NULL)
		tc_json_object_set_string(a, "failure_category", category);
}

static void
act_module(struct route *r, const char *name)
{
	tc_json *a = action(r, name);

	tc_json_object_set_string(a, "module", r->module);
	if (strcmp(name, "fail_module") == 0) {
		tc_json_object_set_string(a, "failure_category", r->category);
		tc_json_object_set_string(a, "failing_module_boundary", r->module);
		if (r->evidence != NULL)
			tc_json_object_set_string(a, "last_error", r->evidence);
	}
}

/* The feedback the next worker receives: the failing step, the category,
 * the raw evidence verbatim and what it is asked to do. */
static tc_json *
feedback(struct route *r, const char *instruction)
{
	tc_json *f = tc_json_new_object();
	const tc_json *checks = tc_json_get(r->result, "failed_checks");

	tc_json_object_set(f, "from_step", tc_pj_clone(tc_json_get(
	    tc_json_get(r->task, "step"), "step_id")));
	tc_json_object_set_string(f, "from_role", r->role);
	tc_json_object_set_string(f, "outcome", r->outcome);
	if (r->category != NULL)
		tc_json_object_set_string(f, "failure_category", r->category);
	else
		tc_json_object_set_null(f, "failure_category");
	if (tc_json_is(checks, TC_JSON_ARRAY))
		tc_json_object_set(f, "failed_checks", tc_pj_clone(checks));
	tc_json_object_set_string(f, "evidence", r->evidence != NULL ?
	    r->evidence : "");
	tc_json_object_set_string(f, "instruction", instruction);
	return f;
}

static void
next_step(struct route *r, const char *role, const char *mode,
    const char *module, tc_json *fb)
{
	tc_json *n = tc_json_new_object();

	tc_json_object_set_int(n, "stage", r->stage);
	tc_json_object_set_string(n, "role", role);
	if (mode != NULL)
		tc_json_object_set_string(n, "mode", mode);
	else
		tc_json_object_set_null(n, "mode");
	if (module != NULL)
		tc_json_object_set_string(n, "module", module);
	else
		tc_json_object_set_null(n, "module");
	tc_json_object_set(n, "feedback", fb != NULL ? fb : tc_json_new_null());
	tc_json_free(r->d->next);
	r->d->next = n;
}

static void
halt(struct route *r, const char *kind, const char *reason)
{
	tc_json *h = tc_json_new_object();

	tc_json_object_set_string(h, "kind", kind);
	tc_json_object_set_string(h, "reason", reason);
	tc_json_object_set(h, "step_id", tc_pj_clone(tc_json_get(
	    tc_json_get(r->task, "step"), "step_id")));
	tc_json_object_set_string(h, "evidence", r->evidence != NULL ?
	    r->evidence : "");
	r->d->halt = h;
}

static void
orch_set(struct route *r, const char *key, tc_json *value)
{
	if (r->d->orch_set == NULL)
		r->d->orch_set = tc_json_new_object();
	tc_json_object_set(r->d->orch_set, key, value);
}

/* The same step again (same role, mode, module and feedback). */
static void
same_step(struct route *r)
{
	const tc_json *fb = tc_json_get(r->task, "feedback");

	next_step(r, r->role, r->mode, r->module,
	    tc_json_is(fb, TC_JSON_OBJECT) ? tc_json_clone(fb) : NULL);
}

/*
 * docs/spec/pypto.md "Environment triage" and "Orchestrator protocol" ①: the
 * environment check decides.  A hardware fault (bad, invisible or hung card)
 * re-dispatches the very step on another device; a software fault (packages,
 * CANN, environment variables) stops the pipeline and reports to the user.
 * Never a performance conclusion.
 */
static void
triage(struct route *r, const tc_json *t)
{
	const char *kind = tc_json_get_string(t, "kind");
	int64_t dev = -1;

	if (is(kind, "hardware")) {
		if (!tc_json_int64(tc_json_get(t, "device_id"), &dev))
			(void)tc_json_int64(tc_json_get(r->task, "device_id"), &dev);
		r->d->exclude_device = (long)dev;
		same_step(r);
		summary(r, "env_error (hardware, device %lld): device excluded; "
		    "the step is re-dispatched on another device", (long long)dev);
		return;
	}
	halt(r, "env_software", "a software environment fault (packages, CANN "
	    "or environment variables) stops the pipeline: fix it and resume");
	summary(r, "env_error (software): the pipeline stops and reports; "
	    "resume after the environment is fixed");
}

static const tc_json *
env_triage_of(const struct route *r)
{
	const tc_json *h = tc_json_get(r->result, "handoff");

	if (tc_json_get(r->result, "env_triage") != NULL)
		return tc_json_get(r->result, "env_triage");
	return tc_json_get(h, "env_triage");
}

static const char *
verifier_mode_of(int stage)
{
	static const char *const m[] = { NULL, "stage1-check", "stage2-check",
	    "stage3-check", "stage4-check", "stage5-check" };

	return m[stage];
}

/* ---- stages 1-3 ---------------------------------------------------------------- */

static int
route_executor_123(struct route *r)
{
	const tc_json *opt = tc_json_get(tc_pypto_orch_get(r->state), "options");

	if (is(r->outcome, "env_error")) {
		triage(r, env_triage_of(r));
		return 0;
	}
	if (is(r->outcome, "delivered")) {
		if (r->stage == 2 &&
		    !tc_json_truthy(tc_json_get(opt, "run_stage2_verifier"))) {
			act_stage(r, "complete_stage", 2);
			summary(r, "golden delivered; no Stage 2 verifier was asked "
			    "for: complete_stage(2)");
			return 0;
		}
		next_step(r, "verifier", verifier_mode_of(r->stage), NULL, NULL);
		summary(r, "%s delivered: dispatch %s", r->role,
		    verifier_mode_of(r->stage));
		return 0;
	}
	if (is(r->outcome, "stage1_material_gap")) {
		act_rollback(r, 1, NULL);
		summary(r, "Stage 1 material gap: rollback_to_stage(1), the "
		    "planner completes the facts");
		return 0;
	}
	if (is(r->outcome, "kb_selection_invalid")) {
		act_rollback(r, 1, "kb_selection_invalid");
		summary(r, "kb_selection_invalid (the architect may not edit the "
		    "selection): rollback_to_stage(1)");
		return 0;
	}
	if (is(r->outcome, "design_violation")) {
		next_step(r, "architect", NULL, NULL, feedback(r, "fix the design "
		    "violation you reported; stay in Stage 3 (no verifier yet)"));
		summary(r, "design_violation from the architect: back to the "
		    "architect, Stage 3 continues");
		return 0;
	}
	return -1;
}

static int
route_verdict_123(struct route *r, const char *op_dir, tc_error *err)
{
	const char *executor = r->stage == 1 ? "planner" : r->stage == 2 ?
	    "mathematician" : "architect";

	if (is(r->outcome, "PASS")) {
		if (r->stage == 3) {
			bool fusion = false;
			long count = 0;
			tc_json *a;
			char num[24];
			tc_error yerr = TC_ERROR_INIT;

			if (tc_pypto_module_interfaces(op_dir, &fusion, &count,
			    &yerr) != 0) {
				r->category = "design_violation";
				r->evidence = tc_error_msg(&yerr);
				next_step(r, "architect", NULL, NULL, feedback(r,
				    "stage3-check passed, but plan_stage4 cannot read "
				    "module_interfaces.yaml; fix it"));
				summary(r, "stage3-check PASS but module_interfaces.yaml "
				    "is unreadable: back to the architect");
				tc_error_clear(&yerr);
				return 0;
			}
			act_stage(r, "complete_stage", 3);
			a = action(r, "plan_stage4");
			snprintf(num, sizeof(num), "%ld", count);
			tc_json_object_set_string(a, "module_count", num);
			tc_json_object_set_bool(a, "is_fusion", fusion);
			summary(r, "stage3-check PASS: complete_stage(3), plan_stage4 "
			    "(%s, %ld module%s)", fusion ? "L1" : "L0", count,
			    count == 1 ? "" : "s");
			return 0;
		}
		act_stage(r, "complete_stage", r->stage);
		summary(r, "%s PASS: complete_stage(%d)",
		    verifier_mode_of(r->stage), r->stage);
		return 0;
	}
	if (is(r->category, "env_error")) {
		triage(r, env_triage_of(r));
		return 0;
	}
	if (is(r->category, "dispatch_invalid")) {
		next_step(r, "verifier", r->mode, NULL, feedback(r, "the previous "
		    "dispatch was invalid; this dispatch carries the parameters "
		    "from the state"));
		summary(r, "dispatch_invalid: the verifier is dispatched again, no "
		    "artifact changes");
		return 0;
	}
	if (r->stage == 3 && is(r->category, "kb_selection_invalid")) {
		act_rollback(r, 1, "kb_selection_invalid");
		summary(r, "stage3-check kb_selection_invalid: "
		    "rollback_to_stage(1)");
		return 0;
	}
	(void)err;
	next_step(r, executor, NULL, NULL, feedback(r, "repair what the "
	    "verifier found (its evidence is verbatim above) and deliver "
	    "again"));
	summary(r, "%s FAIL (%s): back to the %s", r->mode,
	    r->category != NULL ? r->category : "?", executor);
	return 0;
}

/* ---- stage 4 ----------------------------------------------------------------- */

static tc_json *
return_to_coder(struct route *r)
{
	tc_json *rt = tc_json_new_object();

	tc_json_object_set_string(rt, "mode", r->mode != NULL ? r->mode : "");
	tc_json_object_set_string(rt, "module", r->module != NULL ? r->module :
	    "");
	return rt;
}

static void
back_to_coder(struct route *r, const char *instruction)
{
	const tc_json *fb = tc_json_get(r->task, "feedback");
	const tc_json *rt = tc_json_get(fb, "return_to");
	const char *mode = r->mode, *module = r->module;

	/* A verifier side trip (upstream or capability check) returns the
	 * coder to the mode it came from. */
	if (is(r->role, "verifier") && tc_json_is(rt, TC_JSON_OBJECT)) {
		mode = tc_json_get_string(rt, "mode");
		module = tc_json_get_string(rt, "module");
		mode = mode != NULL && *mode != '\0' ? mode : NULL;
		module = module != NULL && *module != '\0' ? module : NULL;
	} else if (is(r->role, "verifier")) {
		const char *path = tc_json_get_string(r->state, "stage4_path");

		mode = is(r->mode, "module-check") ? "module" :
		    is(path, "L1") ? "finalize" : NULL;
	}
	next_step(r, "coder", mode, module, feedback(r, instruction));
}

static int
route_coder(struct route *r)
{
	if (is(r->outcome, "env_error")) {
		triage(r, env_triage_of(r));
		return 0;
	}
	if (is(r->outcome, "delivered")) {
		if (is(r->mode, "module")) {
			act_module(r, "submit_for_verify");
			next_step(r, "verifier", "module-check", r->module, NULL);
			summary(r, "module %s delivered: submit_for_verify, "
			    "module-check", r->module);
		} else {
			next_step(r, "verifier", "stage4-check", NULL, NULL);
			summary(r, "Stage 4 delivery: dispatch stage4-check");
		}
		return 0;
	}
	if (is(r->outcome, "upstream_suspected")) {
		tc_json *fb = feedback(r, "confirm or reject the suspected upstream "
		    "error with a minimal reproduction");

		tc_json_object_set(fb, "suspected_category", tc_pj_clone(
		    tc_json_get(r->result, "suspected_category")));
		tc_json_object_set(fb, "return_to", return_to_coder(r));
		next_step(r, "verifier", "upstream-contract-check", NULL, fb);
		summary(r, "the coder suspects %s: upstream-contract-check",
		    tc_json_get_string(r->result, "suspected_category"));
		return 0;
	}
	if (is(r->outcome, "capability_gap")) {
		tc_json *fb = feedback(r, "confirm or refute the claimed capability "
		    "gap (docs constraint plus a reproducible minimal experiment)");

		tc_json_object_set(fb, "return_to", return_to_coder(r));
		next_step(r, "verifier", "capability_gap_check", NULL, fb);
		summary(r, "capability gap claimed: capability_gap_check (never a "
		    "direct rollback)");
		return 0;
	}
	return -1;
}

static int
route_side_checks(struct route *r)
{
	if (is(r->outcome, "env_error")) {
		triage(r, env_triage_of(r));
		return 0;
	}
	if (is(r->outcome, "UPSTREAM_CONFIRMED")) {
		const char *c = tc_json_get_string(r->result, "confirmed_category");

		act_rollback(r, is(c, "kb_selection_invalid") ? 1 : 3, c);
		summary(r, "UPSTREAM_CONFIRMED (%s): rollback_to_stage(%d)", c,
		    is(c, "kb_selection_invalid") ? 1 : 3);
		return 0;
	}
	if (is(r->outcome, "UPSTREAM_REJECTED")) {
		back_to_coder(r, "the verifier rejected the upstream suspicion; "
		    "its counter-evidence is above; continue in the same mode");
		summary(r, "UPSTREAM_REJECTED: counter-evidence to the coder");
		return 0;
	}
	if (is(r->outcome, "UPSTREAM_INCONCLUSIVE")) {
		back_to_coder(r, "the upstream check was inconclusive: supply the "
		    "evidence the verifier names, then raise it again");
		summary(r, "UPSTREAM_INCONCLUSIVE: the coder supplies evidence");
		return 0;
	}
	if (is(r->outcome, "FALSE_GAP")) {
		back_to_coder(r, "the claimed limitation was refuted; the verifier's "
		    "analysis is above, verbatim; continue");
		summary(r, "false_gap: the verifier's analysis goes to the coder");
		return 0;
	}
	if (is(r->outcome, "CONFIRMED_GAP")) {
		act_rollback(r, 3, "capability_gap");
		summary(r, "confirmed_gap: rollback_to_stage(3) with the failure "
		    "information only");
		return 0;
	}
	if (is(r->outcome, "INCONCLUSIVE")) {
		back_to_coder(r, "capability inconclusive: gather the evidence the "
		    "verifier specifies and re-investigate; no state change");
		summary(r, "capability_inconclusive: the coder gathers evidence");
		return 0;
	}
	return -1;
}

static int
route_stage4_check(struct route *r)
{
	const char *c = r->category;

	if (is(r->outcome, "PASS")) {
		tc_json *pass = tc_json_new_object();

		act_stage(r, "complete_stage", 4);
		tc_json_object_set(pass, "step_id", tc_pj_clone(tc_json_get(
		    tc_json_get(r->task, "step"), "step_id")));
		tc_json_object_set(pass, "summary", tc_pj_clone(tc_json_get(
		    r->result, "summary")));
		tc_json_object_set_string(pass, "evidence", r->evidence != NULL ?
		    r->evidence : "");
		orch_set(r, "stage4_pass", pass);
		summary(r, "stage4-check PASS: complete_stage(4); Stage 5 awaits "
		    "the entry confirmation");
		return 0;
	}
	if (is(c, "env_error")) {
		triage(r, env_triage_of(r));
	} else if (is(c, "cheating")) {
		back_to_coder(r, "red-line rewrite from the honest DESIGN plan; "
		    "the cheating code may not be reused");
		summary(r, "cheating: red-line rewrite by the coder, Stage 4 stays");
	} else if (is(c, "design_violation")) {
		act_rollback(r, 3, c);
		summary(r, "design_violation: rollback_to_stage(3)");
	} else if (is(c, "kb_selection_invalid")) {
		act_rollback(r, 1, c);
		summary(r, "kb_selection_invalid: rollback_to_stage(1)");
	} else if (is(c, "golden_failure")) {
		act_rollback(r, 2, c);
		summary(r, "golden_failure: rollback_to_stage(2)");
	} else if (is(c, "dispatch_invalid")) {
		next_step(r, "verifier", "stage4-check", NULL, feedback(r,
		    "re-run with stage4_path from the state"));
		summary(r, "dispatch_invalid: stage4-check again, no coder");
	} else {
		back_to_coder(r, "repair what stage4-check found and deliver "
		    "again");
		summary(r, "stage4-check FAIL (%s): back to the coder",
		    c != NULL ? c : "?");
	}
	return 0;
}

static int
route_module_check(struct route *r)
{
	const char *c = r->category;

	if (is(r->outcome, "PASS")) {
		act_module(r, "complete_module");
		summary(r, "module-check %s PASS: complete_module", r->module);
		return 0;
	}
	if (is(c, "env_error")) {
		triage(r, env_triage_of(r));
	} else if (is(c, "dispatch_invalid")) {
		next_step(r, "verifier", "module-check", r->module, feedback(r,
		    "re-run with module_k from the state"));
		summary(r, "dispatch_invalid: module-check again, no coder");
	} else if (is(c, "kb_selection_invalid")) {
		act_rollback(r, 1, c);
		summary(r, "kb_selection_invalid: rollback_to_stage(1)");
	} else if (is(c, "design_violation") || is(c, "golden_failure")) {
		act_rollback(r, 3, c);
		summary(r, "%s (module boundary): rollback_to_stage(3)", c);
	} else {
		act_module(r, "fail_module");
		back_to_coder(r, is(c, "cheating") ? "red-line rewrite of the "
		    "module; the cheating code may not be reused" :
		    "debug the module with the category and evidence above, then "
		    "deliver it again");
		summary(r, "module-check %s FAIL (%s): fail_module, the coder "
		    "debugs", r->module, c != NULL ? c : "?");
	}
	return 0;
}

/* ---- stage 5 ------------------------------------------------------------------ */

static bool
names_frozen_input(const char *evidence)
{
	static const char *const names[] = { "SPEC.md", "_golden.py",
	    "_golden_cpu.py", "KB_SELECTION.json", "module_interfaces.yaml",
	    NULL };
	size_t i;

	for (i = 0; evidence != NULL && names[i] != NULL; i++)
		if (strstr(evidence, names[i]) != NULL)
			return true;
	return false;
}

const char *
tc_pypto_stage5_route(const char *c, const char *evidence)
{
	static const char *const repair[] = { "performance_evidence_invalid",
	    "performance_item_coverage_invalid", "precision_failure",
	    "runtime_failure", "cheating", "perf_violation", "design_violation",
	    "kb_usage_invalid", "wrapper_boundary_violation",
	    "import_violation", "signature_mismatch", "delivery_import_unsafe",
	    NULL };
	static const char *const wait[] = { "stage5_contract_blocked",
	    "kb_selection_invalid", "golden_failure", NULL };
	size_t i;

	if (is(c, "dispatch_invalid"))
		return "reverify";
	if (is(c, "env_error"))
		return "triage";
	for (i = 0; repair[i] != NULL; i++)
		if (is(c, repair[i]))
			return "repair";
	for (i = 0; wait[i] != NULL; i++)
		if (is(c, wait[i]))
			return "wait";
	if (is(c, "missing_file") || is(c, "incomplete_structure"))
		return names_frozen_input(evidence) ? "reclassify" : "repair";
	return "reclassify";
}

static const char *
repair_instruction(const char *c)
{
	if (is(c, "performance_evidence_invalid"))
		return "re-collect or correct the performance evidence per the "
		    "perf-tune skill (raw evidence above), then hand off again; "
		    "Stage 5 stays in progress, never a rollback";
	if (is(c, "performance_item_coverage_invalid"))
		return "repair the source coverage, item closure, final sweep or "
		    "best-version selection (the full P7 evidence is above), then "
		    "hand off again";
	if (is(c, "missing_file") || is(c, "incomplete_structure"))
		return "fill in the missing updatable code, record or deliverable "
		    "in Stage 5, then hand off again";
	return "restore the latest correct and compliant version, fix the code "
	    "or sync the as-built records (DESIGN.md, DESIGN_BINDINGS.json, "
	    "KB_USAGE.json within their owner schemas), re-verify and hand off "
	    "again; no performance waiver of an iron rule; the coder and the "
	    "architect are never re-dispatched";
}

static int
route_optimizer(struct route *r)
{
	const tc_json *h = tc_json_get(r->result, "handoff");
	const char *exit_ = tc_json_get_string(h, "exit");
	const tc_json *block = tc_json_get(h, "block");

	if (is(exit_, "closed")) {
		next_step(r, "verifier", "stage5-check", NULL, NULL);
		summary(r, "optimizer closed the loop: dispatch stage5-check");
		return 0;
	}
	if (is(exit_, "env_error")) {
		r->evidence = tc_json_get_string(tc_json_get(h, "env_triage"),
		    "evidence");
		triage(r, tc_json_get(h, "env_triage"));
		return 0;
	}
	if (is(exit_, "stage5_contract_blocked")) {
		r->evidence = tc_json_get_string(block, "evidence");
		halt(r, "stage5_contract_blocked", tc_json_get_string(block,
		    "root_cause") != NULL ? tc_json_get_string(block,
		    "root_cause") : "a frozen Stage 5 input is unusable");
		summary(r, "stage5_contract_blocked: Stage 5 stays in progress and "
		    "waits for the user or an external fix (resume), or a decided "
		    "fail_stage(5) with the evidence; no guessing, no rollback");
		return 0;
	}
	return -1;
}

static int
route_stage5_check(struct route *r)
{
	const char *row;

	if (is(r->outcome, "PASS")) {
		act_stage(r, "complete_stage", 5);
		summary(r, "stage5-check PASS (bound by digest): complete_stage(5)");
		return 0;
	}
	if (is(r->outcome, "NOT_COMPLETE")) {
		const tc_json *owners = tc_json_get(r->result, "missing_owners");
		bool optimizer = tc_pj_array_has_string(owners, "optimizer");

		if (optimizer) {
			next_step(r, "optimizer", NULL, NULL, feedback(r, "evidence "
			    "is missing (listed above): produce it with the tunectl "
			    "commands named there, then hand off again"));
			summary(r, "stage5-check NOT_COMPLETE: missing evidence goes "
			    "back to the optimizer");
		} else {
			next_step(r, "verifier", "stage5-check", NULL, feedback(r,
			    "your review evidence is incomplete (listed above): "
			    "review every item and return the review"));
			summary(r, "stage5-check NOT_COMPLETE: the verifier completes "
			    "its review");
		}
		return 0;
	}
	row = tc_pypto_stage5_route(r->category, r->evidence);
	if (strcmp(row, "repair") == 0) {
		next_step(r, "optimizer", NULL, NULL, feedback(r,
		    repair_instruction(r->category)));
		summary(r, "stage5-check FAIL (%s): Stage 5 stays in progress; the "
		    "raw evidence goes to the optimizer", r->category);
	} else if (strcmp(row, "reverify") == 0) {
		next_step(r, "verifier", "stage5-check", NULL, feedback(r, "the "
		    "dispatch now carries stage4_path from the state and the "
		    "target cases from the entry confirmation"));
		summary(r, "dispatch_invalid: stage5-check again, no optimizer");
	} else if (strcmp(row, "wait") == 0) {
		halt(r, "stage5_contract_blocked", "a frozen Stage 5 input is "
		    "unusable or the frozen contracts contradict: no guessing, no "
		    "rollback, no upstream re-dispatch");
		summary(r, "stage5-check %s: Stage 5 waits for the user or an "
		    "external fix (resume), or a decided fail_stage(5)",
		    r->category);
	} else if (strcmp(row, "triage") == 0) {
		triage(r, env_triage_of(r));
	} else {
		next_step(r, "verifier", "stage5-check", NULL, feedback(r,
		    "determine the root cause and its category from the raw "
		    "evidence above; the orchestrator does not re-classify"));
		summary(r, "stage5-check %s: the verifier re-classifies from the "
		    "raw evidence (never an earliest-stage rollback)",
		    r->category != NULL ? r->category : "other");
	}
	return 0;
}

/* ---- entry ---------------------------------------------------------------------- */

int
tc_pypto_route(const tc_json *state, const tc_json *task,
    const tc_json *result, const char *verdict, const char *category,
    const char *evidence, const char *op_dir, tc_pypto_decision *d,
    tc_error *err)
{
	const tc_json *step = tc_json_get(task, "step");
	struct route r;
	int rc = -1;
	double stage = tc_js_number(tc_json_get(step, "stage"));

	memset(d, 0, sizeof(*d));
	d->exclude_device = -1;
	memset(&r, 0, sizeof(r));
	r.state = state;
	r.task = task;
	r.result = result;
	r.d = d;
	r.role = tc_json_get_string(step, "role");
	r.mode = tc_json_get_string(step, "mode");
	r.module = tc_json_get_string(step, "module");
	r.stage = stage >= 1 && stage <= 5 ? (int)stage : 0;
	r.outcome = verdict != NULL ? verdict :
	    tc_json_get_string(result, "outcome");
	r.category = verdict != NULL ? category :
	    tc_json_get_string(result, "failure_category");
	r.evidence = evidence != NULL ? evidence :
	    tc_json_get_string(result, "evidence");
	if (r.role == NULL || r.outcome == NULL || r.stage == 0) {
		tc_error_set(err, "cannot route: the task or result lacks its role, "
		    "stage or outcome");
		return -1;
	}
	d->actions = tc_json_new_array();
	if (is(r.role, "verifier") && (is(r.mode, "upstream-contract-check") ||
	    is(r.mode, "capability_gap_check")))
		rc = route_side_checks(&r);
	else if (is(r.role, "verifier") && is(r.mode, "module-check"))
		rc = route_module_check(&r);
	else if (is(r.role, "verifier") && is(r.mode, "stage4-check"))
		rc = route_stage4_check(&r);
	else if (is(r.role, "verifier") && is(r.mode, "stage5-check"))
		rc = route_stage5_check(&r);
	else if (is(r.role, "verifier") && r.stage <= 3)
		rc = route_verdict_123(&r, op_dir, err);
	else if (is(r.role, "mathematician") && is(r.mode, "staging")) {
		rc = 0;
		if (is(r.outcome, "delivered")) {
			tc_json *l1 = tc_json_new_object();

			tc_json_object_set_bool(l1, "staging_done", true);
			orch_set(&r, "l1", l1);
			summary(&r, "per-module goldens staged: the module loop "
			    "starts");
		} else if (is(r.outcome, "staging_failed")) {
			act_rollback(&r, 3, "golden_failure");
			summary(&r, "module golden staging failed: "
			    "rollback_to_stage(3)");
		} else if (is(r.outcome, "env_error")) {
			triage(&r, env_triage_of(&r));
		} else {
			rc = -1;
		}
	} else if (is(r.role, "coder"))
		rc = route_coder(&r);
	else if (is(r.role, "optimizer"))
		rc = route_optimizer(&r);
	else if (r.stage <= 3)
		rc = route_executor_123(&r);
	if (rc != 0) {
		if (tc_error_msg(err)[0] == '\0')
			tc_error_set(err, "no routing rule for %s %s returning %s",
			    r.role, r.mode != NULL ? r.mode : "", r.outcome);
		tc_pypto_decision_free(d);
		return -1;
	}
	if (d->summary == NULL)
		d->summary = tc_xstrdup("routed");
	return 0;
}
