/*
 * orch_prompt.c - what a fresh PyPTO-Pro worker is told: its step, the
 * skill to load, the validation command to run first, the dispatch
 * parameters and the previous return verbatim, what to deliver and the
 * result schema, and the boundaries of its role as the pipeline's
 * orchestration protocol draws them (docs/spec/pypto.md "Actors and skills",
 * "Orchestrator protocol", docs/spec/pypto.md "Stage 5 entry confirmation",
 * "Stage 5 inputs and boundary", "Verifier modes", "Optimizer handoff").  Every
 * host (Claude Code, Codex, OpenCode, a script) gets the same text through
 * "tunectl prompt".
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pypto_internal.h"
#include "orch_internal.h"

static const char *const common_rules[] = {
	"Only the orchestrator writes .orchestrator_state.json: never read, "
	"write, create or delete it, never run a state action (tunectl pypto "
	"state ...; it is refused inside a worker anyway), and keep no stage or "
	"progress file of your own. A write to the state file is detected, "
	"undone and fails your step.",
	"Do not touch the operator's .orchestrator/ directory (attempts, "
	"receipts, the Stage 5 entry snapshot, check reports).",
	"Report; do not decide the pipeline: the orchestrator reads your result "
	"and routes it. Forward compiler and tool errors verbatim in evidence.",
	NULL
};

struct role_rules {
	const char *role;
	const char *rules[6];
};

static const struct role_rules role_rules[] = {
	{ "planner", {
	  "Own Stage 1 only: SPEC.md with exactly one ```json machine-contract "
	  "block (no placeholders), EXPLORE_REPORT.md, PRO_MATERIAL_INDEX.md, "
	  "MEMORY.md and each class's KB_SELECTION.json.",
	  "Record every P0 case and any user performance target the user gave; "
	  "never invent one.", NULL } },
	{ "mathematician", {
	  "Own the Goldens only: <op>_golden.py (NPU) and <op>_golden_cpu.py "
	  "(CPU FP32 precision reference); neither imports pypto or pypto_pro.",
	  "Missing facts from Stage 1 are a stage1_material_gap return with the "
	  "facts and the evidence checked, never a guess.",
	  "In staging mode, stage one golden per module "
	  "(modules/<op>_golden_stage<suffix>.py).", NULL } },
	{ "architect", {
	  "Own Stage 3 only: DESIGN.md (sections 0 to 10), DESIGN_BINDINGS.json "
	  "and module_interfaces.yaml.",
	  "KB_SELECTION.json is frozen for you: a wrong selection is a "
	  "kb_selection_invalid return, never an edit.",
	  "The wrapper boundary section of DESIGN.md authorizes no out-of-bounds "
	  "host operation.", NULL } },
	{ "coder", {
	  "SPEC, the Goldens, KB_SELECTION, DESIGN.md and DESIGN_BINDINGS.json "
	  "are frozen read-only inputs for you.",
	  "One @pl.jit kernel per file with all core computation in it; the "
	  "wrapper launches it exactly once, never in a host loop, and only "
	  "checks parameters, derives Python integers and torch.empty's the "
	  "declared outputs. Host-side core computation is cheating.",
	  "Declare every deviation from DESIGN (point, reason, whether Stage 3 "
	  "must be revisited); a suspected upstream error is upstream_suspected, "
	  "a missing capability is capability_gap; an environment fault is "
	  "env_error with the environment check's triage.",
	  "KB_USAGE.json never says verified: only the verifier verifies.",
	  NULL } },
	{ "optimizer", {
	  "Stage 5 only, never a rollback, never the coder or the architect: "
	  "every problem is fixed in Stage 5.",
	  "Frozen: SPEC, the Goldens, KB_SELECTION.json, module_interfaces.yaml, "
	  "staged modules, the public wrapper contract, PERFORMANCE_CASES.json "
	  "with the dispatched target cases (written verbatim, never "
	  "re-selected), the protocol once frozen, the baseline and the Golden "
	  "contract. Updatable: the final test_<op>.py, the performance "
	  "deliverables, and DESIGN.md / DESIGN_BINDINGS.json / KB_USAGE.json "
	  "only as-built (never dropping, downgrading or rewriting a selected KB "
	  "obligation). Anything else changed fails the boundary check.",
	  "Run the contract through tunectl: pypto inputs (a missing input is a "
	  "stage5_contract_blocked handoff), discover, cases freeze, compare "
	  "(--quick only screens), items, experiment (one change each; restore "
	  "before rejecting), select, timeline, report.",
	  "Return one handoff with exactly one exit: closed, env_error (with the "
	  "triage: hardware or software) or stage5_contract_blocked; validate "
	  "it with tunectl pypto handoff validate. A target miss or an "
	  "unavailable Golden is disclosed in a closed handoff, never an exit.",
	  "Never dispatch the verifier or advance the state.", NULL } },
	{ "verifier", {
	  "Never edit an artifact, never retry, never optimise or fix: run the "
	  "checks, capture their output, return the verdict.",
	  "A dispatch that violates its mode's contract is a FAIL with "
	  "failure_category dispatch_invalid, with no check run.",
	  "One primary failure_category per FAIL, every failure listed; "
	  "env_error only when the environment is the sole blocker.",
	  "In Stage 5 never suggest a rollback or another agent. For "
	  "stage5-check return your review (tunectl pypto review template, "
	  "every item answered with its basis): tunectl re-runs the check from "
	  "the files with your review and its verdict decides.", NULL } },
	{ NULL, { NULL } }
};

static const char *const stage_names[] = { "", "plan", "golden", "design",
    "develop", "performance" };

static void
pretty_block(tc_buf *b, const tc_json *v)
{
	char *t;
	const char *p;

	if (v == NULL) {
		tc_buf_puts(b, "     (none)\n");
		return;
	}
	t = tc_json_pretty(v, NULL, NULL);
	p = t;
	while (p != NULL && *p != '\0') {
		size_t n = strcspn(p, "\n");

		tc_buf_printf(b, "     %.*s\n", (int)n, p);
		p += n;
		if (*p == '\n')
			p++;
	}
	free(t);
}

static const char *
skill_hint(const char *host)
{
	if (strcmp(host, "claude") == 0)
		return "Load it with Claude Code's skill mechanism and follow it.";
	if (strcmp(host, "codex") == 0)
		return "Open the skill's SKILL.md (or the agent definition) and "
		    "follow it.";
	if (strcmp(host, "opencode") == 0)
		return "Load it as an OpenCode skill or agent instruction file and "
		    "follow it.";
	return "Read the skill's SKILL.md (or the agent definition) and follow "
	    "it.";
}

char *
tc_pypto_prompt(const tc_json *task, const char *task_path,
    const char *result_path, const char *host, const char *program,
    tc_error *err)
{
	const tc_json *step = tc_json_get(task, "step");
	const tc_json *outs = tc_json_get(task, "outcomes");
	const tc_json *del = tc_json_get(task, "deliverables");
	const tc_json *fb = tc_json_get(task, "feedback");
	const char *role = tc_json_get_string(step, "role");
	const char *mode = tc_json_get_string(step, "mode");
	const char *module = tc_json_get_string(step, "module");
	int64_t stage = 0;
	tc_buf b = TC_BUF_INIT;
	size_t i, k;

	if (tc_json_get_string(task, "schema_version") == NULL ||
	    strcmp(tc_json_get_string(task, "schema_version"),
	    TC_PYPTO_TASK_SCHEMA) != 0 || !tc_pypto_role_known(role) ||
	    !tc_json_int64(tc_json_get(step, "stage"), &stage) || stage < 1 ||
	    stage > 5) {
		tc_error_set(err, "not a pypto task (schema %s, a known role and "
		    "stage)", TC_PYPTO_TASK_SCHEMA);
		return NULL;
	}
	if (host == NULL)
		host = "generic";
	if (result_path == NULL)
		result_path = "<the --result path your host was given>";
	tc_buf_printf(&b, "You are %s, a fresh worker for exactly one step of "
	    "the PyPTO-Pro pipeline of operator %s. tunectl is the "
	    "orchestrator.\n\n", tc_json_get_string_or(step, "agent_id", "?"),
	    tc_json_get_string_or(task, "operator", "?"));
	tc_buf_printf(&b, "1. Your step\n   Task file:  %s\n   step_id:    %s\n"
	    "   stage:      %lld (%s)\n   role:       %s%s%s%s%s\n"
	    "   skill:      %s\n   Operator directory: %s\n"
	    "   Device:     TILE_FWK_DEVICE_ID=%lld (already set for you)\n\n",
	    task_path, tc_json_get_string_or(step, "step_id", "?"), (long long)stage,
	    stage_names[stage], role, mode != NULL ? ", mode " : "",
	    mode != NULL ? mode : "", module != NULL ? ", module " : "",
	    module != NULL ? module : "", tc_json_get_string_or(step, "skill", "?"),
	    tc_json_get_string_or(task, "op_dir", "?"),
	    (long long)tc_pj_int_or(tc_json_get(task, "device_id"), -1));
	tc_buf_printf(&b, "2. Load and follow `%s`%s%s. %s\n\n",
	    tc_json_get_string_or(step, "skill", "?"), mode != NULL ? " in mode " : "",
	    mode != NULL ? mode : "", skill_hint(host));
	tc_buf_printf(&b, "3. Before anything else, check that the task is "
	    "current:\n     %s pypto check task --task %s\n   It must exit 0. "
	    "If it refuses the task as stale, stop and exit; never work around "
	    "it.\n\n", program, task_path);
	tc_buf_puts(&b, "4. Dispatch parameters (technical details only):\n");
	pretty_block(&b, tc_json_get(task, "inputs"));
	if (tc_json_is(fb, TC_JSON_OBJECT)) {
		tc_buf_puts(&b, "   The previous step returned this (verbatim; act "
		    "on it):\n");
		pretty_block(&b, fb);
	} else {
		tc_buf_puts(&b, "   (no feedback: this step starts fresh)\n");
	}
	tc_buf_puts(&b, "\n5. Deliver");
	for (i = 0; tc_json_is(del, TC_JSON_ARRAY) && i < del->u.arr.len; i++)
		tc_buf_printf(&b, "%s%s", i == 0 ? ": " : ", ",
		    tc_json_string(del->u.arr.items[i]));
	tc_buf_printf(&b, "%s in the operator directory, then write exactly one "
	    "result, a JSON object, to\n     %s\n   (and nowhere else): "
	    "schema_version \"%s\", step_id \"%s\", role \"%s\", mode %s%s%s, "
	    "module %s%s%s, state_sha256 \"%s\", outcome (one of:",
	    tc_json_is(del, TC_JSON_ARRAY) && del->u.arr.len > 0 ? "" :
	    ": your verdict", result_path, TC_PYPTO_RESULT_SCHEMA,
	    tc_json_get_string_or(step, "step_id", "?"), role, mode != NULL ? "\"" : "",
	    mode != NULL ? mode : "null", mode != NULL ? "\"" : "",
	    module != NULL ? "\"" : "", module != NULL ? module : "null",
	    module != NULL ? "\"" : "", tc_json_get_string_or(task, "state_sha256", "?"));
	for (i = 0; tc_json_is(outs, TC_JSON_ARRAY) && i < outs->u.arr.len; i++)
		tc_buf_printf(&b, " %s", tc_json_string(outs->u.arr.items[i]));
	tc_buf_puts(&b, "), summary, evidence (the raw output behind anything "
	    "but delivered or PASS), artifacts (paths relative to the operator "
	    "directory), and as the outcome needs: failure_category and "
	    "failed_checks (FAIL), env_triage {kind: hardware|software, "
	    "device_id, device_assessment, evidence, recommendation} "
	    "(env_error), suspected_category (upstream_suspected), "
	    "confirmed_category (UPSTREAM_CONFIRMED), handoff (the optimizer), "
	    "review (stage5-check). Every number you report must come from "
	    "evidence files.\n\n");
	tc_buf_puts(&b, "6. Boundaries\n");
	for (i = 0; common_rules[i] != NULL; i++)
		tc_buf_printf(&b, "   - %s\n", common_rules[i]);
	for (i = 0; role_rules[i].role != NULL; i++) {
		if (strcmp(role_rules[i].role, role) != 0)
			continue;
		for (k = 0; role_rules[i].rules[k] != NULL; k++)
			tc_buf_printf(&b, "   - %s\n", role_rules[i].rules[k]);
	}
	tc_buf_puts(&b, "   If you cannot complete the step, return the outcome "
	    "that says why, with its evidence, and exit.\n");
	return tc_buf_detach(&b, NULL);
}
