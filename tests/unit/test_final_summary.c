/*
 * test_final_summary.c - report_summary validation (docs/spec/controller.md
 * "Report summary"): every message, each triggered by one edit of the
 * reference's report_summary() fixture (with a winner added when the Final is
 * beneficial), evidence files resolved under the artifact root.
 */
#include "test_final_fixture.h"

#include "tunectl/final.h"

#define WINNER								\
	"{\"candidate_id\": \"Sbest\", \"scope_strategy\": \"explicit_candidates\","	\
	" \"option_config\": {\"auto_op_parallel\": true},"		\
	" \"promotion_path\": \"whole-scope\", \"reason_zh\": \"最终验证通过。\","	\
	" \"evidence_artifacts\": [\"evidence.json\"]}"

struct edit {
	const char *where;	/* "" summary, "baseline", "stage", "fallback", "winner" */
	const char *key;
	const char *value;	/* JSON text; NULL removes */
};

struct summary_case {
	const char *name;
	bool beneficial;	/* beneficial Final, summary with WINNER */
	struct edit edits[3];
	const char *expect;	/* NULL: valid */
};

#define MISSING_OR_OUTSIDE(label, item) \
	"report_summary " label " evidence missing or outside artifact root: " item

static const struct summary_case cases[] = {
	{ "the reference fixture is valid", false, { { NULL, NULL, NULL } },
	  NULL },
	{ "the fixture with a matching winner is valid", true,
	  { { NULL, NULL, NULL } }, NULL },
	{ "another schema_version is refused", false,
	  { { "", "schema_version", "\"superkernel-report-summary-v2\"" } },
	  "report_summary schema_version is invalid" },
	{ "missing baseline is refused", false,
	  { { "", "baseline", NULL } },
	  "report_summary requires baseline object and stages list" },
	{ "stages as an object is refused", false,
	  { { "", "stages", "{}" } },
	  "report_summary requires baseline object and stages list" },
	{ "a stage row that is not an object is refused", false,
	  { { "", "stages", "[5]" } },
	  "report_summary measurement must be an object" },
	{ "baseline without metric is refused", false,
	  { { "baseline", "metric", NULL } },
	  "report_summary metric must be a non-empty canonical string" },
	{ "stage reason with outer whitespace is refused", false,
	  { { "stage", "reason_zh", "\" 收益未达标。\"" } },
	  "report_summary reason_zh must be a non-empty canonical string" },
	{ "NaN candidate_ms is refused", false,
	  { { "stage", "candidate_ms", "NaN" } },
	  "report_summary candidate_ms must be positive and finite" },
	{ "zero candidate_ms is refused", false,
	  { { "stage", "candidate_ms", "0" } },
	  "report_summary candidate_ms must be positive and finite" },
	{ "boolean baseline_ms is refused", false,
	  { { "stage", "baseline_ms", "true" } },
	  "report_summary baseline_ms must be positive and finite" },
	{ "negative baseline value_ms is refused", false,
	  { { "baseline", "value_ms", "-10.0" } },
	  "report_summary value_ms must be positive and finite" },
	{ "boolean run_count is refused", false,
	  { { "stage", "run_count", "true" } },
	  "report_summary run_count must be a positive integer" },
	{ "float run_count is refused", false,
	  { { "stage", "run_count", "3.0" } },
	  "report_summary run_count must be a positive integer" },
	{ "zero selector_rank is refused", false,
	  { { "stage", "selector_rank", "0" } },
	  "report_summary selector_rank must be a positive integer" },
	{ "measured stage row without run_count is refused", false,
	  { { "stage", "run_count", "null" } },
	  "report_summary measured result requires run_count" },
	{ "measured baseline without run_count is refused", false,
	  { { "baseline", "run_count", NULL } },
	  "report_summary measured result requires run_count" },
	{ "measured row without evidence is refused", false,
	  { { "stage", "evidence_artifacts", NULL } },
	  "report_summary measurement requires evidence_artifacts" },
	{ "measured row with empty evidence is refused", false,
	  { { "stage", "evidence_artifacts", "[]" } },
	  "report_summary measurement requires evidence_artifacts" },
	{ "evidence that is not a list is refused", false,
	  { { "stage", "evidence_artifacts", "\"evidence.json\"" } },
	  "report_summary measurement requires evidence_artifacts" },
	{ "row with a paired baseline but no candidate still needs evidence",
	  false, { { "stage", "candidate_ms", "null" },
	  { "stage", "evidence_artifacts", "[]" } },
	  "report_summary measurement requires evidence_artifacts" },
	{ "unmeasured row needs no evidence", false,
	  { { "stage", "candidate_ms", NULL }, { "stage", "baseline_ms", NULL },
	    { "stage", "evidence_artifacts", NULL } }, NULL },
	{ "evidence outside the root is refused", false,
	  { { "stage", "evidence_artifacts", "[\"../outside.json\"]" } },
	  "report_summary measurement evidence must be a relative artifact path" },
	{ "absolute evidence is refused", false,
	  { { "baseline", "evidence_artifacts", "[\"/etc/passwd\"]" } },
	  "report_summary measurement evidence must be a relative artifact path" },
	{ "evidence with outer whitespace is refused", false,
	  { { "stage", "evidence_artifacts", "[\" evidence.json\"]" } },
	  "report_summary measurement evidence must be a non-empty canonical "
	  "string" },
	{ "missing evidence file is refused", false,
	  { { "stage", "evidence_artifacts", "[\"evidence.json\", \"missing.json\"]" } },
	  MISSING_OR_OUTSIDE("measurement", "missing.json") },
	{ "a directory is not evidence", false,
	  { { "stage", "evidence_artifacts", "[\"dir\"]" } },
	  MISSING_OR_OUTSIDE("measurement", "dir") },
	{ "a symlink leaving the root is not evidence", false,
	  { { "stage", "evidence_artifacts", "[\"outside-link.json\"]" } },
	  MISSING_OR_OUTSIDE("measurement", "outside-link.json") },
	{ "a symlink inside the root is evidence", false,
	  { { "stage", "evidence_artifacts", "[\"inside-link.json\"]" } }, NULL },
	{ "evidence in a subdirectory is accepted", false,
	  { { "stage", "evidence_artifacts", "[\"dir/nested.json\"]" } }, NULL },
	{ "stage final_e2e is refused", false,
	  { { "stage", "stage", "\"final_e2e\"" } },
	  "report_summary stage/kind is invalid; final clean comes only from "
	  "final_e2e" },
	{ "kind final_clean is refused", false,
	  { { "stage", "kind", "\"final_clean\"" } },
	  "report_summary stage/kind is invalid; final clean comes only from "
	  "final_e2e" },
	{ "stage_a with the option kind is refused", false,
	  { { "stage", "kind", "\"option\"" } },
	  "report_summary stage/kind is invalid; final clean comes only from "
	  "final_e2e" },
	{ "stage row without candidate_id is refused", false,
	  { { "stage", "candidate_id", NULL } },
	  "report_summary candidate_id must be a non-empty canonical string" },
	{ "empty gates_zh is refused", false,
	  { { "stage", "gates_zh", "\"\"" } },
	  "report_summary gates_zh must be a non-empty canonical string" },
	{ "unknown stage status is refused", false,
	  { { "stage", "status", "\"winner\"" } },
	  "report_summary status/eligible is invalid" },
	{ "non-boolean eligible is refused", false,
	  { { "stage", "eligible", "1" } },
	  "report_summary status/eligible is invalid" },
	{ "missing eligible is refused", false,
	  { { "stage", "eligible", NULL } },
	  "report_summary status/eligible is invalid" },
	{ "eligible row that was not accepted is refused", false,
	  { { "stage", "eligible", "true" } },
	  "report_summary eligible candidate must be measured and accepted" },
	{ "eligible row without a measurement is refused", false,
	  { { "stage", "eligible", "true" }, { "stage", "status", "\"accepted\"" },
	    { "stage", "candidate_ms", NULL } },
	  "report_summary eligible candidate must be measured and accepted" },
	{ "eligible accepted measured row is valid", false,
	  { { "stage", "eligible", "true" }, { "stage", "status", "\"accepted\"" } },
	  NULL },
	{ "another metric than the frozen S0 is refused", false,
	  { { "stage", "metric", "\"pooled P50\"" } },
	  "report_summary clean comparison metric must match frozen S0" },
	{ "a paired baseline without an S0 value is refused", false,
	  { { "baseline", "value_ms", "null" } },
	  "report_summary clean comparison metric must match frozen S0" },
	{ "a baseline other than the frozen S0 is refused", false,
	  { { "stage", "baseline_ms", "20.0" } },
	  "report_summary baseline_ms must match frozen S0" },
	{ "a baseline off by more than 1e-9 relative is refused", false,
	  { { "stage", "baseline_ms", "10.0000001" } },
	  "report_summary baseline_ms must match frozen S0" },
	{ "a baseline within 1e-9 relative matches", false,
	  { { "stage", "baseline_ms", "10.000000001" } }, NULL },
	{ "an integer baseline equals the float S0", false,
	  { { "stage", "baseline_ms", "10" } }, NULL },
	{ "profiling rows may use their own baseline and metric", false,
	  { { "stage", "stage", "\"base_profile_source_mapping\"" },
	    { "stage", "kind", "\"profiling\"" },
	    { "stage", "baseline_ms", "20.0" } }, NULL },
	{ "a consistent improvement_pct is accepted", false,
	  { { "stage", "improvement_pct", "-10.0" } }, NULL },
	{ "an inconsistent improvement_pct is refused", false,
	  { { "stage", "improvement_pct", "10.0" } },
	  "report_summary improvement_pct does not match measurements" },
	{ "a string improvement_pct is refused", false,
	  { { "stage", "improvement_pct", "\"-10.0\"" } },
	  "report_summary improvement_pct does not match measurements" },
	{ "a boolean improvement_pct is refused", false,
	  { { "stage", "improvement_pct", "false" } },
	  "report_summary improvement_pct does not match measurements" },
	{ "improvement_pct without a candidate is refused", false,
	  { { "stage", "improvement_pct", "-10.0" },
	    { "stage", "candidate_ms", "null" } },
	  "report_summary improvement_pct requires paired measurements" },
	{ "improvement_pct without a baseline is refused", false,
	  { { "stage", "improvement_pct", "-10.0" },
	    { "stage", "baseline_ms", NULL } },
	  "report_summary improvement_pct requires paired measurements" },
	{ "empty final_gates_zh is refused", false,
	  { { "", "final_gates_zh", "\"\"" } },
	  "report_summary final_gates_zh must be a non-empty canonical string" },
	{ "numeric display_note_zh is refused", false,
	  { { "", "display_note_zh", "5" } },
	  "report_summary display_note_zh must be a non-empty canonical string" },
	{ "fallback that is not an object is refused", false,
	  { { "", "fallback", "[]" } }, "report_summary fallback must be an object" },
	{ "null fallback is skipped", false,
	  { { "", "fallback", "null" } }, NULL },
	{ "fallback without candidate_id is refused", false,
	  { { "fallback", "candidate_id", NULL } },
	  "report_summary fallback.candidate_id must be a non-empty canonical "
	  "string" },
	{ "fallback scope with outer whitespace is refused", false,
	  { { "fallback", "scope_strategy", "\" SK-off\"" } },
	  "report_summary fallback.scope_strategy must be a non-empty canonical "
	  "string" },
	{ "fallback without reason is refused", false,
	  { { "fallback", "reason_zh", NULL } },
	  "report_summary fallback.reason_zh must be a non-empty canonical string" },
	{ "empty config_path is refused", false,
	  { { "fallback", "config_path", "\"\"" } },
	  "report_summary fallback.config_path must be a non-empty canonical "
	  "string" },
	{ "numeric config_fingerprint is refused", false,
	  { { "fallback", "config_fingerprint", "1" } },
	  "report_summary fallback.config_fingerprint must be a non-empty "
	  "canonical string" },
	{ "unknown promotion_path is refused", false,
	  { { "fallback", "promotion_path", "\"range\"" } },
	  "report_summary promotion_path must be whole-scope or FINAL" },
	{ "fallback without evidence is refused", false,
	  { { "fallback", "evidence_artifacts", NULL } },
	  "report_summary fallback requires evidence_artifacts" },
	{ "fallback with missing evidence is refused", false,
	  { { "fallback", "evidence_artifacts", "[\"missing.json\"]" } },
	  MISSING_OR_OUTSIDE("fallback", "missing.json") },
	{ "fallback option_config must be an object", false,
	  { { "fallback", "option_config", "[]" } },
	  "report_summary fallback.option_config must be an object" },
	{ "fallback debug_option_config must be an object", false,
	  { { "fallback", "debug_option_config", "\"{}\"" } },
	  "report_summary fallback.debug_option_config must be an object" },
	{ "nested optimize options must be an object", false,
	  { { "fallback", "option_config",
	      "{\"super_kernel_optimize_options\": []}" } },
	  "report_summary fallback.option_config.super_kernel_optimize_options "
	  "must be an object" },
	{ "nested debug options must be an object", false,
	  { { "fallback", "option_config",
	      "{\"super_kernel_debug_options\": 1}" } },
	  "report_summary fallback.option_config.super_kernel_debug_options "
	  "must be an object" },
	{ "disagreeing debug options are refused", false,
	  { { "fallback", "option_config",
	      "{\"super_kernel_debug_options\": {\"a\": 1}}" },
	    { "fallback", "debug_option_config", "{\"a\": 2}" } },
	  "report_summary debug options disagree" },
	{ "agreeing debug options are accepted", false,
	  { { "fallback", "option_config",
	      "{\"super_kernel_debug_options\": {\"a\": 1}}" },
	    { "fallback", "debug_option_config", "{\"a\": 1.0}" } }, NULL },
	{ "a missing config file is refused", false,
	  { { "fallback", "config_path", "\"missing.yaml\"" } },
	  MISSING_OR_OUTSIDE("config_path", "missing.yaml") },
	{ "an absolute config file is refused", false,
	  { { "fallback", "config_path", "\"/etc/passwd\"" } },
	  "report_summary config_path evidence must be a relative artifact path" },
	{ "an existing config file is accepted", false,
	  { { "fallback", "config_path", "\"evidence.json\"" } }, NULL },
	{ "a winner needs a beneficial final_e2e", false,
	  { { "", "winner", WINNER } },
	  "report_summary winner requires beneficial final_e2e" },
	{ "a winner that is not an object is refused", true,
	  { { "", "winner", "5" } }, "report_summary winner must be an object" },
	{ "a fake winner candidate is refused", true,
	  { { "winner", "candidate_id", "\"fake-winner\"" } },
	  "report_summary winner candidate_id differs from final_e2e" },
	{ "a winner with another scope is refused", true,
	  { { "winner", "scope_strategy", "\"whole\"" } },
	  "report_summary winner scope_strategy differs from final_e2e" },
	{ "a winner with other options is refused", true,
	  { { "winner", "option_config", "{}" } },
	  "report_summary winner option_config differs from final_e2e" },
	{ "a winner without options is refused", true,
	  { { "winner", "option_config", NULL } },
	  "report_summary winner option_config differs from final_e2e" },
	{ "a winner without promotion_path is refused", true,
	  { { "winner", "promotion_path", NULL } },
	  "report_summary winner requires whole-scope or FINAL promotion_path" },
	{ "a FINAL promotion is accepted", true,
	  { { "winner", "promotion_path", "\"FINAL\"" } }, NULL },
	{ "a winner without evidence is refused", true,
	  { { "winner", "evidence_artifacts", "[]" } },
	  "report_summary winner requires evidence_artifacts" },
	{ "a winner with a missing config file is refused", true,
	  { { "winner", "config_path", "\"config.yaml\"" } },
	  MISSING_OR_OUTSIDE("config_path", "config.yaml") },
};

static tc_json *
edit_target(tc_json *summary, const char *where)
{
	if (strcmp(where, "") == 0)
		return summary;
	if (strcmp(where, "stage") == 0)
		return tc_json_get_array(summary, "stages")->u.arr.items[0];
	return tc_json_get(summary, where);
}

struct env {
	char *root, *outside;
};

static int
setup_root(void **state)
{
	struct env *e = tc_xcalloc(1, sizeof(*e));
	char *link;

	e->root = fx_mkroot();
	e->outside = fx_mkroot();
	fx_write(e->root, "evidence.json", "{}\n");
	fx_write(e->root, "dir/nested.json", "{}\n");
	fx_write(e->outside, "outside.json", "{}\n");
	link = tc_xasprintf("%s/outside-link.json", e->root);
	{
		char *target = tc_xasprintf("%s/outside.json", e->outside);

		assert_int_equal(symlink(target, link), 0);
		free(target);
	}
	free(link);
	link = tc_xasprintf("%s/inside-link.json", e->root);
	assert_int_equal(symlink("evidence.json", link), 0);
	free(link);
	*state = e;
	return 0;
}

static int
teardown_root(void **state)
{
	struct env *e = *state;

	fx_rmrf(e->root);
	fx_rmrf(e->outside);
	free(e);
	return 0;
}

static const struct env *the_env;

static void
run_case(void **state)
{
	const struct summary_case *c = *state;
	tc_json *summary = fx_parse(FX_SUMMARY);
	tc_json *fe = fx_parse(c->beneficial ? FX_FINAL_E2E_BENEFICIAL :
	    FX_FINAL_E2E_NOT_RUN);
	tc_error err = TC_ERROR_INIT;
	size_t i;
	int rc;

	if (c->beneficial)
		fx_set(summary, "winner", WINNER);
	for (i = 0; i < 3 && c->edits[i].where != NULL; i++) {
		tc_json *target = edit_target(summary, c->edits[i].where);

		assert_non_null(target);
		if (c->edits[i].value == NULL)
			tc_json_object_remove(target, c->edits[i].key);
		else
			fx_set(target, c->edits[i].key, c->edits[i].value);
	}
	rc = tc_final_validate_report_summary(summary, fe, the_env->root, &err);
	if (c->expect == NULL) {
		if (rc != 0)
			fail_msg("%s: unexpected error: %s", c->name,
			    tc_error_msg(&err));
	} else {
		assert_int_equal(rc, -1);
		fx_assert_error(&err, c->expect);
	}
	tc_error_clear(&err);
	tc_json_free(summary);
	tc_json_free(fe);
}

static void
test_summary_that_is_not_an_object_is_refused(void **state)
{
	tc_json *fe = fx_parse(FX_FINAL_E2E_NOT_RUN), *list = fx_parse("[]");
	tc_error err = TC_ERROR_INIT;

	(void)state;
	assert_int_equal(tc_final_validate_report_summary(list, fe,
	    the_env->root, &err), -1);
	fx_assert_error(&err, "report_summary schema_version is invalid");
	assert_int_equal(tc_final_validate_report_summary(NULL, fe,
	    the_env->root, &err), -1);
	fx_assert_error(&err, "report_summary schema_version is invalid");
	tc_error_clear(&err);
	tc_json_free(list);
	tc_json_free(fe);
}

/* The first failing row wins: the baseline (row 0) is checked before the
 * stage rows, and rows in list order. */
static void
test_rows_are_checked_in_order(void **state)
{
	tc_json *summary = fx_parse(FX_SUMMARY);
	tc_json *fe = fx_parse(FX_FINAL_E2E_NOT_RUN);
	tc_json *stages = tc_json_get_array(summary, "stages");
	tc_error err = TC_ERROR_INIT;

	(void)state;
	tc_json_array_push(stages, fx_parse("{\"stage\": \"bogus\"}"));
	fx_set(stages->u.arr.items[0], "selector_rank", "-1");
	assert_int_equal(tc_final_validate_report_summary(summary, fe,
	    the_env->root, &err), -1);
	fx_assert_error(&err, "report_summary selector_rank must be a positive "
	    "integer");
	fx_set(tc_json_get(summary, "baseline"), "value_ms", "0");
	assert_int_equal(tc_final_validate_report_summary(summary, fe,
	    the_env->root, &err), -1);
	fx_assert_error(&err, "report_summary value_ms must be positive and "
	    "finite");
	tc_error_clear(&err);
	tc_json_free(summary);
	tc_json_free(fe);
}

int
main(void)
{
	static const struct CMUnitTest fixed[] = {
		cmocka_unit_test(test_summary_that_is_not_an_object_is_refused),
		cmocka_unit_test(test_rows_are_checked_in_order),
	};
	size_t nfixed = sizeof(fixed) / sizeof(fixed[0]);
	size_t ncases = sizeof(cases) / sizeof(cases[0]);
	struct CMUnitTest *tests = tc_xcalloc(nfixed + ncases, sizeof(*tests));
	void *state = NULL;
	size_t i;
	int rc;

	memcpy(tests, fixed, sizeof(fixed));
	for (i = 0; i < ncases; i++) {
		tests[nfixed + i].name = cases[i].name;
		tests[nfixed + i].test_func = run_case;
		tests[nfixed + i].initial_state = (void *)&cases[i];
	}
	/* one artifact root for the whole group */
	setup_root(&state);
	the_env = state;
	rc = _cmocka_run_group_tests("final_summary", tests, nfixed + ncases,
	    NULL, NULL);
	teardown_root(&state);
	free(tests);
	return rc;
}
