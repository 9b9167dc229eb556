/*
 * fuzz_pypto_orch.c - libFuzzer target for the documents tunectl reads as
 * the PyPTO-Pro orchestrator: a worker's result against its task, the
 * next step derived from a (hand-edited) state, the routing decision, the
 * optimizer's handoff and the role prompt.
 *
 * Input: part 0 the task; part 1 the result; part 2 (optional) the state;
 * part 3 (optional) a handoff (default: the result's "handoff").  Each
 * part that does not parse as JSON is replaced by an empty object.
 *
 * Invariants: every refusal has a message; a result that passes its
 * checks is routed to a decision with an actions list and a summary, or
 * refused with a message; a derived step has a role, a step id made of
 * safe characters and a device, or a status with a message; the handoff
 * report says valid exactly when the validator returned 0, with an
 * errors list; a prompt is text or a refusal with a message.
 */
#include "fuzz_common.h"
#include "tunectl/pypto_orch.h"
#include "tunectl/pypto_stage5.h"
#include "../../src/pypto/orch_internal.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char *po_root;

static tc_json *
po_part(const char *p, size_t len)
{
	tc_json *v = len > 0 ? fz_parse(p, len) : NULL;

	return v != NULL ? v : tc_json_new_object();
}

static void
po_route(const tc_json *state, const tc_json *task, const tc_json *result,
    const char *verdict, const char *category)
{
	tc_pypto_decision d;
	tc_error err = TC_ERROR_INIT;

	if (fz_status(tc_pypto_route(state, task, result, verdict, category,
	    verdict != NULL ? "evidence" : NULL, po_root, &d, &err), &err) != 0)
		return;
	FZ_REQUIRE(tc_json_is(d.actions, TC_JSON_ARRAY));
	FZ_REQUIRE(d.summary != NULL);
	FZ_REQUIRE(d.next == NULL || tc_json_is(d.next, TC_JSON_OBJECT));
	tc_pypto_decision_free(&d);
}

static void
po_next(const tc_json *state)
{
	tc_pypto_step s;
	tc_json *prep = NULL;
	const char *status = NULL;
	tc_error err = TC_ERROR_INIT;
	int rc = tc_pypto_next_step(state, &s, &status, &prep, &err);

	if (rc != 0) {
		FZ_REQUIRE(status != NULL && tc_error_msg(&err)[0] != '\0');
		FZ_REQUIRE(prep == NULL);
		tc_error_clear(&err);
		return;
	}
	FZ_REQUIRE(tc_pypto_role_known(s.role) && s.device_id >= 0);
	FZ_REQUIRE(strspn(s.step_id, "abcdefghijklmnopqrstuvwxyz"
	    "0123456789-_") == strlen(s.step_id));
	tc_json_free(prep);
	tc_pypto_step_free(&s);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *parts[4];
	size_t lens[4], n;
	tc_json *task, *result, *state, *handoff, *report = NULL;
	tc_error err = TC_ERROR_INIT;
	char *prompt;
	int rc;

	if (po_root == NULL) {
		po_root = fz_mkroot("pypto-orch");
		fz_write_str(po_root, "SPEC.md", "# spec\n");
	}
	n = fz_split(data, size, parts, lens, 4);
	task = po_part(parts[0], lens[0]);
	result = po_part(n > 1 ? parts[1] : "", n > 1 ? lens[1] : 0);
	state = po_part(n > 2 ? parts[2] : "", n > 2 ? lens[2] : 0);
	handoff = n > 3 ? po_part(parts[3], lens[3]) :
	    tc_json_clone(tc_json_get(result, "handoff"));

	prompt = fz_result(tc_pypto_prompt(task, "/t/task.json", NULL, "claude",
	    "tunectl", &err), &err);
	free(prompt);
	if (fz_status(tc_pypto_result_check(task, result, po_root, &err),
	    &err) == 0)
		po_route(state, task, result, NULL, NULL);
	po_route(state, task, result, "FAIL", tc_json_get_string(result,
	    "failure_category"));
	po_route(state, task, result, "NOT_COMPLETE", NULL);
	(void)tc_pypto_stage5_route(tc_json_get_string(result,
	    "failure_category"), tc_json_get_string(result, "evidence"));
	po_next(state);
	rc = tc_pypto_handoff_validate(po_root, handoff, state, &report, &err);
	FZ_REQUIRE(tc_json_is(tc_json_get(report, "valid"), TC_JSON_BOOL) &&
	    tc_json_get(report, "valid")->u.b == (rc == 0));
	FZ_REQUIRE(tc_json_is(tc_json_get(report, "errors"), TC_JSON_ARRAY));
	if (rc != 0)
		FZ_REQUIRE(tc_error_msg(&err)[0] != '\0');
	tc_error_clear(&err);
	tc_json_free(report);
	tc_json_free(tc_pypto_env_triage(tc_json_get(handoff, "env_triage")));
	tc_json_free(task);
	tc_json_free(result);
	tc_json_free(state);
	tc_json_free(handoff);
	return 0;
}
