/*
 * test_report_phase.c - PHASE_REPORT.md (docs/spec/reports.md "Phase report"),
 * byte for byte: identity bullets, conclusion, next step, and the blockers
 * section only when there are blockers (one json.dumps line each).
 */
#include "test_final_fixture.h"

#include "tunectl/report.h"

#define STEP								\
	"{\"step_id\": \"s0-baseline\", \"phase\": \"s0_baseline\","	\
	" \"agent_id\": \"sk-s0-baseline\", \"skill\": \"superkernel-s0-baseline\","	\
	" \"optional_branch\": null, \"derived_family_rebase\": false,"	\
	" \"state\": \"pending\"}"

static tc_json *
result_with_blockers(const char *blockers)
{
	return fx_parsef("{\"schema_version\": "
	    "\"superkernel-auto-tune-phase-result-v1\","
	    " \"session_id\": \"session-20260905-a\", \"step_id\": \"s0-baseline\","
	    " \"phase\": \"s0_baseline\", \"agent_id\": \"sk-s0-baseline\","
	    " \"status\": \"blocked\", \"summary_zh\": \"S0 不稳定：波动 7%%。\","
	    " \"input_fingerprints\": {}, \"consumed_artifacts\": [],"
	    " \"produced_artifacts\": [], \"decisions\": [], \"blockers\": %s,"
	    " \"next_step_guidance_zh\": \"交由控制 Agent 短路至最终报告。\","
	    " \"details_zh\": {}}", blockers);
}

static char *
render(const char *blockers)
{
	tc_json *result = result_with_blockers(blockers);
	tc_json *step = fx_parse(STEP);
	tc_error err = TC_ERROR_INIT;
	char *text = tc_report_phase_md(result, step, &err);

	if (text == NULL)
		fail_msg("phase report failed: %s", tc_error_msg(&err));
	tc_json_free(result);
	tc_json_free(step);
	return text;
}

static void
test_phase_report_without_blockers(void **state)
{
	char *text = render("[]");

	(void)state;
	assert_string_equal(text,
	    "# s0_baseline 阶段报告\n"
	    "\n"
	    "- Session: `session-20260905-a`\n"
	    "- Step: `s0-baseline`\n"
	    "- Agent: `sk-s0-baseline`\n"
	    "- Status: `blocked`\n"
	    "\n"
	    "## 结论\n"
	    "\n"
	    "S0 不稳定：波动 7%。\n"
	    "\n"
	    "## 下一步\n"
	    "\n"
	    "交由控制 Agent 短路至最终报告。\n");
	free(text);
}

static void
test_phase_report_lists_each_blocker_as_json(void **state)
{
	char *text = render("[{\"reason_zh\": \"波动 7%\", \"code\": \"s0_unstable\","
	    " \"evidence\": [\"runs/a.json\", 7, 1.5, null, true]}, \"plain\", {}]");

	(void)state;
	assert_string_equal(text,
	    "# s0_baseline 阶段报告\n"
	    "\n"
	    "- Session: `session-20260905-a`\n"
	    "- Step: `s0-baseline`\n"
	    "- Agent: `sk-s0-baseline`\n"
	    "- Status: `blocked`\n"
	    "\n"
	    "## 结论\n"
	    "\n"
	    "S0 不稳定：波动 7%。\n"
	    "\n"
	    "## 下一步\n"
	    "\n"
	    "交由控制 Agent 短路至最终报告。\n"
	    "\n"
	    "## 阻塞项\n"
	    "\n"
	    "- {\"code\": \"s0_unstable\", \"evidence\": [\"runs/a.json\", 7, 1.5, "
	    "null, true], \"reason_zh\": \"波动 7%\"}\n"
	    "- \"plain\"\n"
	    "- {}\n");
	free(text);
}

/* The system-generated short-circuit result of
 * docs/spec/controller.md "Short-circuit". */
static void
test_phase_report_of_a_short_circuit_scene(void **state)
{
	tc_json *result = fx_parse("{\"schema_version\": "
	    "\"superkernel-auto-tune-phase-result-v1\","
	    " \"session_id\": \"s\", \"step_id\": \"optional-experiments\","
	    " \"phase\": \"optional_experiments\","
	    " \"agent_id\": \"sk-optional-experiments\","
	    " \"status\": \"not_requested\", \"summary_zh\": \"未执行：S0 不稳定。\","
	    " \"input_fingerprints\": {\"session_state\": \"x\"},"
	    " \"consumed_artifacts\": [], \"produced_artifacts\": [],"
	    " \"decisions\": [], \"blockers\": [{\"reason_zh\": \"S0 不稳定。\"}],"
	    " \"next_step_guidance_zh\": \"控制 Agent 已短路至最终 E2E 报告阶段。\","
	    " \"details_zh\": {}, \"system_generated_by\": \"superkernel-auto-tune\"}");
	tc_json *step = fx_parse("{\"step_id\": \"optional-experiments\","
	    " \"phase\": \"optional_experiments\","
	    " \"agent_id\": \"sk-optional-experiments\"}");
	tc_error err = TC_ERROR_INIT;
	char *text = tc_report_phase_md(result, step, &err);

	(void)state;
	assert_non_null(text);
	assert_string_equal(text,
	    "# optional_experiments 阶段报告\n\n"
	    "- Session: `s`\n"
	    "- Step: `optional-experiments`\n"
	    "- Agent: `sk-optional-experiments`\n"
	    "- Status: `not_requested`\n\n"
	    "## 结论\n\n未执行：S0 不稳定。\n\n"
	    "## 下一步\n\n控制 Agent 已短路至最终 E2E 报告阶段。\n\n"
	    "## 阻塞项\n\n- {\"reason_zh\": \"S0 不稳定。\"}\n");
	free(text);
	tc_json_free(result);
	tc_json_free(step);
}

static void
test_phase_report_refuses_an_unencodable_blocker(void **state)
{
	tc_json *result = result_with_blockers("[\"\\udc80\"]");
	tc_json *step = fx_parse(STEP);
	tc_error err = TC_ERROR_INIT;

	(void)state;
	assert_null(tc_report_phase_md(result, step, &err));
	assert_non_null(strstr(tc_error_msg(&err), "surrogates not allowed"));
	tc_error_clear(&err);
	tc_json_free(result);
	tc_json_free(step);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_phase_report_without_blockers),
		cmocka_unit_test(test_phase_report_lists_each_blocker_as_json),
		cmocka_unit_test(test_phase_report_of_a_short_circuit_scene),
		cmocka_unit_test(test_phase_report_refuses_an_unencodable_blocker),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
