/*
 * prompt.c - the child prompt of a phase worker (docs/spec/controller.md
 * "Host delegation").
 *
 * Every prompt carries the five required elements: (1) the exact task
 * path and the step's agent_id, phase and skill; (2) the instruction to
 * load and follow the skill; (3) the validation command to run first;
 * (4) the exact writable result path and the result schema; (5) the
 * boundary that the worker owns this phase only.  Support workers get a
 * prompt of the same shape for their support task (tc_support_prompt).
 * Host flavours differ only in how they name the skill mechanism; every
 * prompt also names the absolute path of the skill's SKILL.md when the
 * caller found it.
 */
#include <string.h>

#include "tunectl/buf.h"
#include "tunectl/host.h"
#include "tunectl/phases.h"
#include "tunectl/support.h"

static const char *
skill_hint(const char *host)
{
	if (strcmp(host, "claude") == 0)
		return "Load it with Claude Code's skill mechanism (its SKILL.md) "
		    "and follow it.";
	if (strcmp(host, "codex") == 0)
		return "Codex lists it among your skills (.agents/skills); open "
		    "its SKILL.md and follow it.";
	if (strcmp(host, "opencode") == 0)
		return "Load it with OpenCode's skill tool (.opencode/skills) or "
		    "open its SKILL.md, and follow it.";
	return "Read the skill's SKILL.md and follow it.";
}

static void
list_handoffs(tc_buf *b, const tc_json *handoffs)
{
	size_t i;

	if (!tc_json_is(handoffs, TC_JSON_ARRAY) || handoffs->u.arr.len == 0) {
		tc_buf_puts(b, "  (none: this is the first step of the session)\n");
		return;
	}
	for (i = 0; i < handoffs->u.arr.len; i++) {
		const tc_json *h = handoffs->u.arr.items[i];

		tc_buf_printf(b, "  - %s: %s (status %s, sha256 %s)\n",
		    tc_json_get_string_or(h, "step_id", "?"), tc_json_get_string_or(h, "result_path", "?"),
		    tc_json_get_string_or(h, "outcome_status", "?"),
		    tc_json_get_string_or(h, "result_sha256", "?"));
	}
}

char *
tc_host_prompt(const tc_json *task, const char *task_path,
    const char *result_path, const char *host, const char *program,
    const char *skill_path, tc_error *err)
{
	const tc_json *step = tc_json_get(task, "step");
	const tc_json *import = tc_json_get(task, "evidence_import");
	const char *schema = tc_json_get_string(task, "schema_version");
	const char *agent_id, *phase, *skill, *step_id;
	tc_buf b = TC_BUF_INIT;

	if (schema == NULL || strcmp(schema, TC_TASK_SCHEMA) != 0) {
		tc_error_set(err, "dispatch task schema_version is invalid");
		return NULL;
	}
	agent_id = tc_json_get_string(step, "agent_id");
	phase = tc_json_get_string(step, "phase");
	skill = tc_json_get_string(step, "skill");
	step_id = tc_json_get_string(step, "step_id");
	if (agent_id == NULL || phase == NULL || skill == NULL ||
	    step_id == NULL) {
		tc_error_set(err, "dispatch task step lacks step_id, phase, "
		    "agent_id or skill");
		return NULL;
	}
	if (host == NULL)
		host = "generic";
	if (result_path == NULL)
		result_path = "<the --result path your host was given>";

	tc_buf_printf(&b,
	    "You are %s, a fresh worker for exactly one phase of a tunectl "
	    "auto-tune session (session %s).\n\n",
	    agent_id, tc_json_get_string_or(task, "session_id", "?"));
	tc_buf_printf(&b,
	    "1. Your task\n"
	    "   Phase task file: %s\n"
	    "   step_id:  %s\n"
	    "   phase:    %s\n"
	    "   agent_id: %s\n"
	    "   skill:    %s\n"
	    "   Artifact root: %s\n\n",
	    task_path, step_id, phase, agent_id, skill,
	    tc_json_get_string_or(task, "artifact_root", "?"));
	tc_buf_printf(&b,
	    "2. Load and follow the skill `%s` for this phase. %s\n",
	    skill, skill_hint(host));
	if (skill_path != NULL)
		tc_buf_printf(&b, "   The skill's instructions are in:\n"
		    "     %s\n", skill_path);
	tc_buf_puts(&b, "\n");
	tc_buf_printf(&b,
	    "3. Before doing anything else, validate the task:\n"
	    "     %s execute-phase --task %s --phase %s\n"
	    "   It must exit 0 and print this phase's plan. If it refuses the "
	    "task (stale, or assigned to another phase agent), stop and report "
	    "the refusal; never work around it. Run this phase's tools only "
	    "through `%s execute-phase --task %s --phase %s --tool NAME ...` as "
	    "the plan lists them.\n\n",
	    program, task_path, phase, program, task_path, phase);
	tc_buf_printf(&b,
	    "4. Write exactly one phase result, a JSON object, to this path "
	    "(and nowhere else):\n"
	    "     %s\n"
	    "   schema_version \"%s\", with session_id \"%s\", step_id \"%s\", "
	    "phase \"%s\", agent_id \"%s\", status, summary_zh, "
	    "input_fingerprints, consumed_artifacts, produced_artifacts, "
	    "decisions, blockers, next_step_guidance_zh and details_zh. "
	    "Artifact paths are relative to the artifact root. Every number "
	    "you report must come from evidence files you list: list every "
	    "gate report you write with `%s gate ... --json-out` (it leaves a "
	    ".provenance.json beside it) in produced_artifacts, with the run "
	    "sets it reads; a strict session refuses a status claim without "
	    "it. Do not seal the result: the controller validates and seals "
	    "it after you exit.\n\n",
	    result_path, TC_RESULT_SCHEMA, tc_json_get_string_or(task, "session_id", "?"),
	    step_id, phase, agent_id, program);
	if (tc_json_get_string(step, "reentry_candidate") != NULL)
		tc_buf_printf(&b,
		    "   This step re-enters Stage O after a failed BASE: work on "
		    "the Stage A candidate %s (\"reentry_candidate\").\n\n",
		    tc_json_get_string(step, "reentry_candidate"));
	tc_buf_printf(&b,
	    "5. Boundary: you own this phase only. Do not edit the session "
	    "file (%s), sealed files under phases/, other attempts under "
	    "dispatches/, or receipts; do not start, seal or impersonate any "
	    "other phase. If you cannot complete the phase, write a result "
	    "with status blocked or failed and the blocker, and exit.\n\n",
	    tc_json_get_string_or(task, "session_path", "?"));
	tc_buf_puts(&b, "Handoffs this phase consumes (sealed, digest-bound):\n");
	list_handoffs(&b, tc_json_get(task, "consumed_handoffs"));
	if (tc_json_is(import, TC_JSON_OBJECT))
		tc_buf_printf(&b,
		    "\nThis is a derived session. Load the bound evidence-import "
		    "manifest %s (sha256 %s) under the artifact root; use only the "
		    "parent evidence it binds, and never ask for fresh "
		    "Intake/S0/A/O/BASE handoffs or accept unbound paths.\n",
		    tc_json_get_string_or(import, "path", "?"), tc_json_get_string_or(import, "sha256", "?"));
	return tc_buf_detach(&b, NULL);
}

/*
 * The prompt of a support worker: the same shape for a support task
 * (the role, its skill, the step it serves, its output directory and
 * request, and the boundary of a read-only role or an executor).
 */
char *
tc_support_prompt(const tc_json *task, const char *task_path,
    const char *result_path, const char *host, const char *program,
    const char *skill_path, tc_error *err)
{
	const tc_json *role = tc_json_get(task, "role");
	const tc_json *step = tc_json_get(task, "requested_for");
	const tc_json *attempt = tc_json_get(task, "attempt");
	const tc_json *request = tc_json_get(task, "request");
	const char *root = tc_json_get_string_or(task, "artifact_root", "?");
	const char *agent_id = tc_json_get_string(role, "agent_id");
	const char *skill = tc_json_get_string(role, "skill");
	bool read_only = tc_json_truthy(tc_json_get(role, "read_only"));
	tc_buf b = TC_BUF_INIT;

	(void)host;
	if (agent_id == NULL || skill == NULL || step == NULL) {
		tc_error_set(err, "support task lacks role.agent_id, role.skill "
		    "or requested_for");
		return NULL;
	}
	if (result_path == NULL)
		result_path = "<the --result path your host was given>";
	tc_buf_printf(&b,
	    "You are %s, a fresh support worker for step %s (phase %s) of a "
	    "tunectl auto-tune session (session %s). You serve that phase; "
	    "you do not own it.\n\n",
	    agent_id, tc_json_get_string_or(step, "step_id", "?"), tc_json_get_string_or(step, "phase", "?"),
	    tc_json_get_string_or(task, "session_id", "?"));
	tc_buf_printf(&b,
	    "1. Your task\n"
	    "   Support task file: %s\n"
	    "   role:     %s\n"
	    "   skill:    %s\n"
	    "   Artifact root: %s\n",
	    task_path, agent_id, skill, root);
	if (tc_json_is(attempt, TC_JSON_OBJECT))
		tc_buf_printf(&b,
		    "   Output directory (yours alone): %s/%s\n"
		    "   Phase task of the step you serve: %s/%s\n",
		    root, tc_json_get_string_or(attempt, "output_dir", "?"), root,
		    tc_json_get_string_or(attempt, "phase_task", "?"));
	if (tc_json_is(request, TC_JSON_OBJECT))
		tc_buf_printf(&b, "   Request from the phase: %s/%s (sha256 %s)\n",
		    root, tc_json_get_string_or(request, "path", "?"),
		    tc_json_get_string_or(request, "sha256", "?"));
	tc_buf_printf(&b,
	    "\n2. Load and follow the skill `%s`. Its instructions are in:\n"
	    "     %s\n\n", skill, skill_path != NULL ? skill_path :
	    "(the skill's SKILL.md)");
	tc_buf_printf(&b,
	    "3. Write exactly one support result, a JSON object, to this path "
	    "(and nowhere else):\n"
	    "     %s\n"
	    "   schema_version \"%s\", session_id \"%s\", agent_id \"%s\", "
	    "status (succeeded, blocked or failed), summary, "
	    "produced_artifacts (paths relative to the artifact root, every "
	    "one inside your output directory), findings and blockers. Every "
	    "number must come from a file you list.\n\n",
	    result_path, TC_SUPPORT_RESULT_SCHEMA,
	    tc_json_get_string_or(task, "session_id", "?"), agent_id);
	if (read_only)
		tc_buf_printf(&b,
		    "4. Boundary: you are read-only. Write only inside your "
		    "output directory and the result path. %s digests every other "
		    "file of the artifact root before and after you run; any "
		    "change refuses your result. Do not run the workload or "
		    "change sources, configurations, options or scopes.\n",
		    program);
	else
		tc_buf_printf(&b,
		    "4. Boundary: write your evidence inside your output "
		    "directory. Never touch the session file, phases/, "
		    "dispatches/, imports/ or other support attempts: %s "
		    "refuses your result if you do. Run tools only through "
		    "`%s execute-phase --task <phase task above> --phase %s "
		    "--tool NAME ...` with --manifest-out inside your output "
		    "directory.\n", program, program,
		    tc_json_get_string_or(step, "phase", "?"));
	return tc_buf_detach(&b, NULL);
}
