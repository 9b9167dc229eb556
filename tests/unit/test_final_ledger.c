/*
 * test_final_ledger.c - the Final step's ledger (docs/spec/controller.md
 * "Loading the Final ledger"), final_e2e (docs/spec/controller.md
 * "Final E2E record"), the classification mapping (docs/spec/controller.md
 * "Final status from classification") and the Final-only result checks
 * (docs/spec/controller.md "Phase result validation" step 15): every message,
 * triggered by one edit of a valid ledger.
 */
#include "test_final_fixture.h"

#include "tunectl/final.h"
#include "tunectl/text.h"

/* ---- one edit of a valid beneficial ledger -> the expected outcome ------ */

struct edit {
	const char *where;	/* "" ledger, "fe", "fe.baseline", "fe.candidate" */
	const char *key;
	const char *value;	/* JSON text; NULL removes the key */
};

struct ledger_case {
	const char *name;
	struct edit edits[3];
	const char *expect;	/* NULL: valid */
};

static const struct ledger_case ledger_cases[] = {
	/* docs/spec/controller.md "Loading the Final ledger" */
	{ "schema_version 1 is not a schema 2 ledger",
	  { { "", "schema_version", "1" } },
	  "ledger_path must reference a schema 2 ledger" },
	{ "schema_version \"2\" (a string) is not a schema 2 ledger",
	  { { "", "schema_version", "\"2\"" } },
	  "ledger_path must reference a schema 2 ledger" },
	{ "schema_version true is not a schema 2 ledger",
	  { { "", "schema_version", "true" } },
	  "ledger_path must reference a schema 2 ledger" },
	{ "missing schema_version is not a schema 2 ledger",
	  { { "", "schema_version", NULL } },
	  "ledger_path must reference a schema 2 ledger" },
	{ "schema_version 2.0 equals 2 as in Python",
	  { { "", "schema_version", "2.0" } }, NULL },
	{ "missing experiments is refused",
	  { { "", "experiments", NULL } },
	  "ledger_path schema 2 ledger experiments must be an object" },
	{ "experiments as a list is refused",
	  { { "", "experiments", "[]" } },
	  "ledger_path schema 2 ledger experiments must be an object" },
	{ "empty experiments are allowed",
	  { { "", "experiments", "{}" } }, NULL },
	{ "experiment id with outer whitespace is refused",
	  { { "", "experiments", "{\" Sbest\": {}}" } },
	  "ledger experiment_id must be a non-empty canonical string" },
	{ "empty experiment id is refused",
	  { { "", "experiments", "{\"\": {}}" } },
	  "ledger experiment_id must be a non-empty canonical string" },
	{ "experiment that is not an object is refused",
	  { { "", "experiments", "{\"Sbest\": []}" } },
	  "ledger experiment must be an object" },
	{ "experiment rounds must be a list",
	  { { "", "experiments", "{\"Sbest\": {\"rounds\": {}}}" } },
	  "ledger experiment rounds must be a list" },
	{ "experiment rounds null is not a list",
	  { { "", "experiments", "{\"Sbest\": {\"rounds\": null}}" } },
	  "ledger experiment rounds must be a list" },
	{ "experiment blockers must be a list",
	  { { "", "experiments", "{\"Sbest\": {\"blockers\": \"none\"}}" } },
	  "ledger experiment blockers must be a list" },
	{ "missing final_e2e is refused",
	  { { "", "final_e2e", NULL } }, "ledger final_e2e must be an object" },
	{ "final_e2e as a list is refused",
	  { { "", "final_e2e", "[]" } }, "ledger final_e2e must be an object" },
	{ "report_summary null is validated and refused",
	  { { "", "report_summary", "null" } },
	  "report_summary schema_version is invalid" },
	/* docs/spec/controller.md "Final E2E record" */
	{ "unknown classification is refused",
	  { { "fe", "classification", "\"winner\"" } },
	  "ledger final_e2e classification is invalid" },
	{ "missing classification is refused",
	  { { "fe", "classification", NULL } },
	  "ledger final_e2e classification is invalid" },
	{ "missing candidate_id is refused",
	  { { "fe", "candidate_id", NULL } },
	  "final_e2e candidate_id must be a non-empty canonical string" },
	{ "candidate_id with a leading space is refused",
	  { { "fe", "candidate_id", "\" Sbest\"" } },
	  "final_e2e candidate_id must be a non-empty canonical string" },
	{ "candidate_id ending in an ideographic space is refused",
	  { { "fe", "candidate_id", "\"Sbest\\u3000\"" } },
	  "final_e2e candidate_id must be a non-empty canonical string" },
	{ "empty scope_strategy is refused",
	  { { "fe", "scope_strategy", "\"\"" } },
	  "final_e2e scope_strategy must be a non-empty canonical string" },
	{ "reason_zh that is a number is refused",
	  { { "fe", "reason_zh", "3" } },
	  "final_e2e reason_zh must be a non-empty canonical string" },
	{ "missing option_config is refused",
	  { { "fe", "option_config", NULL } },
	  "final_e2e option_config must be an object" },
	{ "option_config as a list is refused",
	  { { "fe", "option_config", "[]" } },
	  "final_e2e option_config must be an object" },
	{ "missing evidence_artifacts is refused",
	  { { "fe", "evidence_artifacts", NULL } },
	  "final_e2e evidence_artifacts must be a list" },
	{ "absolute final evidence path is refused with its index",
	  { { "fe", "evidence_artifacts", "[\"ok.json\", \"/abs.json\"]" } },
	  "final_e2e evidence_artifacts[1] must be a relative artifact path" },
	{ "final evidence with a .. component is refused",
	  { { "fe", "evidence_artifacts", "[\"a/../../b.json\"]" } },
	  "final_e2e evidence_artifacts[0] must be a relative artifact path" },
	{ "empty final evidence path is not canonical",
	  { { "fe", "evidence_artifacts", "[\"\"]" } },
	  "final_e2e evidence_artifacts[0] must be a non-empty canonical string" },
	{ "final evidence existence is not checked",
	  { { "fe", "evidence_artifacts", "[\"missing.json\"]" } }, NULL },
	{ "missing baseline of a measured final is refused",
	  { { "fe", "baseline", NULL } }, "final_e2e baseline must be an object" },
	{ "candidate that is a number is refused",
	  { { "fe", "candidate", "5" } }, "final_e2e candidate must be an object" },
	{ "NaN baseline median is not finite",
	  { { "fe.baseline", "median_ms", "NaN" } },
	  "final_e2e baseline.median_ms must be a finite number" },
	{ "boolean baseline median is not a number",
	  { { "fe.baseline", "median_ms", "true" } },
	  "final_e2e baseline.median_ms must be a finite number" },
	{ "string baseline median is not a number",
	  { { "fe.baseline", "median_ms", "\"10\"" } },
	  "final_e2e baseline.median_ms must be a finite number" },
	{ "missing baseline median is refused",
	  { { "fe.baseline", "median_ms", NULL } },
	  "final_e2e baseline.median_ms must be a finite number" },
	{ "zero baseline median is not positive",
	  { { "fe.baseline", "median_ms", "0" } },
	  "final_e2e baseline.median_ms must be positive" },
	{ "infinite candidate median is not finite",
	  { { "fe.candidate", "median_ms", "Infinity" } },
	  "final_e2e candidate.median_ms must be a finite number" },
	{ "negative candidate median is not positive",
	  { { "fe.candidate", "median_ms", "-9.0" } },
	  "final_e2e candidate.median_ms must be positive" },
	{ "zero p90 is not positive",
	  { { "fe.baseline", "p90_ms", "0.0" } },
	  "final_e2e baseline.p90_ms must be positive" },
	{ "null p90 is not a finite number",
	  { { "fe.baseline", "p90_ms", "null" } },
	  "final_e2e baseline.p90_ms must be a finite number" },
	{ "NaN stddev is not finite",
	  { { "fe.candidate", "stddev_ms", "NaN" } },
	  "final_e2e candidate.stddev_ms must be a finite number" },
	{ "negative stddev is accepted as the reference code does",
	  { { "fe.candidate", "stddev_ms", "-1.5" } }, NULL },
	{ "zero sample_count is not a positive integer",
	  { { "fe.candidate", "sample_count", "0" } },
	  "final_e2e candidate.sample_count must be a positive integer" },
	{ "float sample_count is not an integer",
	  { { "fe.baseline", "sample_count", "5.0" } },
	  "final_e2e baseline.sample_count must be a positive integer" },
	{ "boolean run_count is refused",
	  { { "fe.candidate", "run_count", "true" } },
	  "final_e2e candidate.run_count must be a positive integer" },
	{ "negative run_count is refused",
	  { { "fe.baseline", "run_count", "-3" } },
	  "final_e2e baseline.run_count must be a positive integer" },
	{ "missing improvement_pct is refused",
	  { { "fe", "improvement_pct", NULL } },
	  "final_e2e improvement_pct must be a finite number" },
	{ "boolean improvement_pct is refused",
	  { { "fe", "improvement_pct", "true" } },
	  "final_e2e improvement_pct must be a finite number" },
	{ "NaN improvement_pct is refused",
	  { { "fe", "improvement_pct", "NaN" } },
	  "final_e2e improvement_pct must be a finite number" },
	{ "improvement_pct drifting from the medians is refused",
	  { { "fe", "improvement_pct", "99.0" } },
	  "final_e2e improvement_pct does not match clean E2E medians" },
	{ "improvement_pct just outside rel_tol 1e-6 is refused",
	  { { "fe", "improvement_pct", "10.0001" } },
	  "final_e2e improvement_pct does not match clean E2E medians" },
	{ "improvement_pct within rel_tol 1e-6 is accepted",
	  { { "fe", "improvement_pct", "10.000009" } }, NULL },
	{ "integer medians and improvement are accepted",
	  { { "fe.baseline", "median_ms", "10" },
	    { "fe.candidate", "median_ms", "9" },
	    { "fe", "improvement_pct", "10" } }, NULL },
	{ "beneficial without a gain is refused",
	  { { "fe.candidate", "median_ms", "10.0" },
	    { "fe", "improvement_pct", "0.0" } },
	  "final_e2e beneficial classification requires positive improvement" },
	{ "beneficial with a slower candidate is refused",
	  { { "fe.candidate", "median_ms", "11.0" },
	    { "fe", "improvement_pct", "-10.0" } },
	  "final_e2e beneficial classification requires positive improvement" },
	{ "no_gain with equal medians is accepted",
	  { { "fe", "classification", "\"no_gain\"" },
	    { "fe.candidate", "median_ms", "10.0" },
	    { "fe", "improvement_pct", "0.0" } }, NULL },
	{ "not_run carries no metrics to check",
	  { { "fe", "classification", "\"not_run\"" },
	    { "fe", "baseline", "\"garbage\"" },
	    { "fe", "improvement_pct", "NaN" } }, NULL },
	{ "failed ignores a drifting improvement",
	  { { "fe", "classification", "\"failed\"" },
	    { "fe", "improvement_pct", "99.0" } }, NULL },
	{ "blocked needs no candidate metrics",
	  { { "fe", "classification", "\"blocked\"" },
	    { "fe", "candidate", NULL } }, NULL },
};

static tc_json *
edit_target(tc_json *ledger, const char *where)
{
	tc_json *fe = tc_json_get(ledger, "final_e2e");

	if (strcmp(where, "") == 0)
		return ledger;
	if (strcmp(where, "fe") == 0)
		return fe;
	return tc_json_get(fe, strcmp(where, "fe.baseline") == 0 ? "baseline" :
	    "candidate");
}

static void
apply_edits(tc_json *ledger, const struct edit *edits, size_t n)
{
	size_t i;

	for (i = 0; i < n && edits[i].where != NULL; i++) {
		tc_json *target = edit_target(ledger, edits[i].where);

		assert_non_null(target);
		if (edits[i].value == NULL)
			tc_json_object_remove(target, edits[i].key);
		else
			fx_set(target, edits[i].key, edits[i].value);
	}
}

static void
run_ledger_case(void **state)
{
	const struct ledger_case *c = *state;
	char *root = fx_mkroot();
	tc_json *ledger = fx_ledger(FX_FINAL_E2E_BENEFICIAL, FX_EXPERIMENTS);
	tc_error err = TC_ERROR_INIT;
	tc_json *loaded;

	apply_edits(ledger, c->edits, 3);
	fx_write_json(root, "ledger.json", ledger);
	loaded = tc_final_load_ledger(root, "ledger.json", &err);
	if (c->expect == NULL) {
		if (loaded == NULL)
			fail_msg("%s: unexpected error: %s", c->name,
			    tc_error_msg(&err));
	} else {
		assert_null(loaded);
		fx_assert_error(&err, c->expect);
	}
	tc_json_free(loaded);
	tc_json_free(ledger);
	tc_error_clear(&err);
	fx_rmrf(root);
}

/* ---- ledger_path ---------------------------------------------------------- */

static void
expect_path_error(const char *root, const tc_json *ledger_path,
    const char *expect)
{
	tc_error err = TC_ERROR_INIT;

	assert_null(tc_final_load_ledger_value(root, ledger_path, &err));
	fx_assert_error(&err, expect);
	tc_error_clear(&err);
}

static void
test_ledger_path_must_be_a_canonical_string(void **state)
{
	char *root = fx_mkroot();
	tc_json *v;

	(void)state;
	expect_path_error(root, NULL,
	    "ledger_path must be a non-empty canonical string");
	v = fx_parse("\" ledger.json\"");
	expect_path_error(root, v,
	    "ledger_path must be a non-empty canonical string");
	tc_json_free(v);
	v = fx_parse("7");
	expect_path_error(root, v,
	    "ledger_path must be a non-empty canonical string");
	tc_json_free(v);
	fx_rmrf(root);
}

static void
test_ledger_path_must_stay_relative_and_inside(void **state)
{
	char *root = fx_mkroot();
	tc_error err = TC_ERROR_INIT;

	(void)state;
	assert_null(tc_final_load_ledger(root, "/etc/ledger.json", &err));
	fx_assert_error(&err, "ledger_path must be a relative artifact path");
	assert_null(tc_final_load_ledger(root, "../outside.json", &err));
	fx_assert_error(&err, "ledger_path must be a relative artifact path");
	assert_null(tc_final_load_ledger(root, "a/../../outside.json", &err));
	fx_assert_error(&err, "ledger_path must be a relative artifact path");
	tc_error_clear(&err);
	fx_rmrf(root);
}

static void
test_missing_ledger_reports_the_python_os_error(void **state)
{
	char *root = fx_mkroot();
	tc_error err = TC_ERROR_INIT;
	char *expect = tc_xasprintf("ledger_path cannot be read: [Errno 2] No "
	    "such file or directory: '%s/missing.json'", root);

	(void)state;
	assert_null(tc_final_load_ledger(root, "./missing.json", &err));
	fx_assert_error(&err, expect);
	tc_error_clear(&err);
	free(expect);
	fx_rmrf(root);
}

static void
test_malformed_ledger_reports_the_decode_error(void **state)
{
	char *root = fx_mkroot();
	tc_error err = TC_ERROR_INIT;

	(void)state;
	fx_write(root, "ledger.json", "{\"schema_version\": 2,}");
	assert_null(tc_final_load_ledger(root, "ledger.json", &err));
	fx_assert_error(&err, "ledger_path cannot be read: Expecting property "
	    "name enclosed in double quotes: line 1 column 22 (char 21)");
	tc_error_clear(&err);
	fx_rmrf(root);
}

static void
test_ledger_symlink_leaving_the_root_is_refused(void **state)
{
	char *root = fx_mkroot(), *outside = fx_mkroot();
	char *link = tc_xasprintf("%s/ledger.json", root);
	char *target = tc_xasprintf("%s/ledger.json", outside);
	tc_json *ledger = fx_ledger(FX_FINAL_E2E_NOT_RUN, "{}");
	tc_error err = TC_ERROR_INIT;

	(void)state;
	fx_write_json(outside, "ledger.json", ledger);
	assert_int_equal(symlink(target, link), 0);
	assert_null(tc_final_load_ledger(root, "ledger.json", &err));
	assert_non_null(strstr(tc_error_msg(&err),
	    "ledger_path cannot be read: "));
	assert_non_null(strstr(tc_error_msg(&err), "escapes the artifact root"));
	tc_error_clear(&err);
	tc_json_free(ledger);
	free(link);
	free(target);
	fx_rmrf(outside);
	fx_rmrf(root);
}

static void
test_symlink_inside_the_root_is_followed(void **state)
{
	char *root = fx_mkroot();
	char *link = tc_xasprintf("%s/ledger.json", root);
	tc_json *ledger = fx_ledger(FX_FINAL_E2E_NOT_RUN, "{}"), *loaded;
	tc_error err = TC_ERROR_INIT;

	(void)state;
	fx_write_json(root, "real/ledger-v2.json", ledger);
	assert_int_equal(symlink("real/ledger-v2.json", link), 0);
	loaded = tc_final_load_ledger(root, "ledger.json", &err);
	assert_non_null(loaded);
	assert_true(tc_json_equal(loaded, ledger));
	tc_json_free(loaded);
	tc_json_free(ledger);
	free(link);
	fx_rmrf(root);
}

/* docs/spec/controller.md "Acceptance cases" #3: a ledger holding the
 * non-standard token NaN parses; the error is the report_summary's, not a
 * decode error. */
static void
test_nan_in_ledger_is_a_summary_error_not_a_parse_error(void **state)
{
	char *root = fx_mkroot();
	tc_error err = TC_ERROR_INIT;
	tc_json *ledger = fx_ledger(FX_FINAL_E2E_NOT_RUN, "{}");
	tc_json *summary = fx_parse(FX_SUMMARY);
	char *pretty, *nan_text, *at;

	(void)state;
	fx_write(root, "evidence.json", "{}\n");
	fx_set(tc_json_get_array(summary, "stages")->u.arr.items[0],
	    "candidate_ms", "123456.0");
	tc_json_object_set(ledger, "report_summary", summary);
	pretty = tc_json_pretty(ledger, NULL, &err);
	assert_non_null(pretty);
	at = strstr(pretty, "123456.0");
	assert_non_null(at);
	nan_text = tc_xasprintf("%.*sNaN%s", (int)(at - pretty), pretty,
	    at + strlen("123456.0"));
	fx_write(root, "ledger.json", nan_text);
	assert_null(tc_final_load_ledger(root, "ledger.json", &err));
	fx_assert_error(&err, "report_summary candidate_ms must be positive "
	    "and finite");
	tc_error_clear(&err);
	free(nan_text);
	free(pretty);
	tc_json_free(ledger);
	fx_rmrf(root);
}

/* ---- docs/spec/controller.md "Final status from classification" --------- */

static void
test_classification_maps_to_the_final_status(void **state)
{
	(void)state;
	assert_string_equal(tc_final_status_for_class("beneficial"), "accepted");
	assert_string_equal(tc_final_status_for_class("no_gain"), "no_gain");
	assert_string_equal(tc_final_status_for_class("not_run"), "not_run");
	assert_string_equal(tc_final_status_for_class("failed"), "failed");
	assert_string_equal(tc_final_status_for_class("blocked"), "blocked");
	assert_null(tc_final_status_for_class("invalid"));
	assert_null(tc_final_status_for_class("accepted"));
	assert_null(tc_final_status_for_class(NULL));
}

static void
test_status_labels_match_the_report_vocabulary(void **state)
{
	(void)state;
	assert_string_equal(tc_final_outcome_label("accepted"), "有收益");
	assert_string_equal(tc_final_outcome_label("no_gain"), "无收益");
	assert_string_equal(tc_final_outcome_label("not_run"), "未执行");
	assert_string_equal(tc_final_outcome_label("failed"), "失败或阻塞");
	assert_string_equal(tc_final_outcome_label("blocked"), "失败或阻塞");
	assert_string_equal(tc_final_outcome_label("invalid"), "失败或阻塞");
	assert_string_equal(tc_final_outcome_label_en("accepted"), "beneficial");
	assert_string_equal(tc_final_outcome_label_en("invalid"),
	    "failed or blocked");
}

/* ---- step 15 (docs/spec/controller.md "Phase result validation") -------- */

static void
test_final_result_lists_every_missing_detail_in_order(void **state)
{
	char *root = fx_mkroot();
	tc_json *result = fx_final_result("not_run");
	tc_error err = TC_ERROR_INIT;

	(void)state;
	fx_set(result, "details_zh", "{\"environment\": \"已结算。\","
	    " \"stage_o\": \"  \\u3000 \", \"final_e2e\": 5}");
	assert_int_equal(tc_final_check_result(result, root, NULL, &err), -1);
	fx_assert_error(&err, "final details_zh is missing: s0, stage_a, "
	    "stage_o, base_profile_source_mapping, optional_experiments, "
	    "final_e2e");
	tc_error_clear(&err);
	tc_json_free(result);
	fx_rmrf(root);
}

static void
test_final_result_requires_ledger_path(void **state)
{
	char *root = fx_mkroot();
	tc_json *result = fx_final_result("not_run");
	tc_error err = TC_ERROR_INIT;

	(void)state;
	tc_json_object_remove(result, "ledger_path");
	assert_int_equal(tc_final_check_result(result, root, NULL, &err), -1);
	fx_assert_error(&err, "final phase result requires ledger_path");
	fx_set(result, "ledger_path", "\"../outside.json\"");
	assert_int_equal(tc_final_check_result(result, root, NULL, &err), -1);
	fx_assert_error(&err, "ledger_path must be a relative artifact path");
	fx_set(result, "ledger_path", "null");
	assert_int_equal(tc_final_check_result(result, root, NULL, &err), -1);
	fx_assert_error(&err, "ledger_path must be a non-empty canonical string");
	tc_error_clear(&err);
	tc_json_free(result);
	fx_rmrf(root);
}

static void
test_final_result_without_final_e2e_is_refused(void **state)
{
	char *root = fx_mkroot();
	tc_json *result = fx_final_result("not_run");
	tc_error err = TC_ERROR_INIT;

	(void)state;
	fx_write(root, "ledger.json", "{\"schema_version\": 2, "
	    "\"experiments\": {}}");
	assert_int_equal(tc_final_check_result(result, root, NULL, &err), -1);
	fx_assert_error(&err, "ledger final_e2e must be an object");
	tc_error_clear(&err);
	tc_json_free(result);
	fx_rmrf(root);
}

/* docs/spec/controller.md "Acceptance cases" #42: every terminal class seals
 * with its mapped status only. */
static void
test_final_status_must_equal_the_mapped_classification(void **state)
{
	static const char *const classes[] = {
		"beneficial", "no_gain", "not_run", "failed", "blocked"
	};
	static const char *const statuses[] = {
		"accepted", "no_gain", "not_run", "failed", "blocked", "invalid"
	};
	char *root = fx_mkroot();
	tc_error err = TC_ERROR_INIT;
	size_t i, j;

	(void)state;
	for (i = 0; i < 5; i++) {
		tc_json *ledger = fx_ledger(FX_FINAL_E2E_BENEFICIAL, "{}");
		tc_json *fe = tc_json_get(ledger, "final_e2e");
		char *cls = tc_xasprintf("\"%s\"", classes[i]);

		fx_set(fe, "classification", cls);
		if (strcmp(classes[i], "no_gain") == 0) {
			fx_set(tc_json_get(fe, "candidate"), "median_ms", "10.0");
			fx_set(fe, "improvement_pct", "0.0");
		}
		fx_write_json(root, "ledger.json", ledger);
		for (j = 0; j < 6; j++) {
			tc_json *result = fx_final_result(statuses[j]);
			tc_json *loaded = NULL;
			int rc = tc_final_check_result(result, root, &loaded,
			    &err);

			if (i == j) {
				if (rc != 0)
					fail_msg("%s/%s: %s", classes[i],
					    statuses[j], tc_error_msg(&err));
				assert_non_null(loaded);
				assert_true(tc_json_equal(loaded, ledger));
			} else {
				assert_int_equal(rc, -1);
				assert_null(loaded);
				fx_assert_error(&err, "final phase result status "
				    "does not match ledger final_e2e "
				    "classification");
			}
			tc_json_free(loaded);
			tc_json_free(result);
		}
		free(cls);
		tc_json_free(ledger);
	}
	tc_error_clear(&err);
	fx_rmrf(root);
}

static void
test_final_result_with_metric_drift_names_improvement_pct(void **state)
{
	char *root = fx_mkroot();
	tc_json *ledger = fx_ledger(FX_FINAL_E2E_BENEFICIAL, FX_EXPERIMENTS);
	tc_json *result = fx_final_result("accepted");
	tc_error err = TC_ERROR_INIT;

	(void)state;
	fx_set(tc_json_get(ledger, "final_e2e"), "improvement_pct", "99.0");
	fx_write_json(root, "ledger.json", ledger);
	assert_int_equal(tc_final_check_result(result, root, NULL, &err), -1);
	assert_non_null(strstr(tc_error_msg(&err), "improvement_pct"));
	tc_error_clear(&err);
	tc_json_free(result);
	tc_json_free(ledger);
	fx_rmrf(root);
}

/* ---- predicates ------------------------------------------------------------- */

static void
test_isclose_follows_python(void **state)
{
	(void)state;
	assert_true(tc_py_isclose(10.0, 10.0, 1e-6, 1e-6));
	assert_true(tc_py_isclose(0.0, 1e-6, 1e-6, 1e-6));
	assert_false(tc_py_isclose(0.0, 1.1e-6, 1e-6, 1e-6));
	assert_true(tc_py_isclose(1e9, 1e9 + 999, 1e-6, 1e-6));
	assert_false(tc_py_isclose(1e9, 1e9 + 1001, 1e-6, 1e-6));
	assert_false(tc_py_isclose(NAN, NAN, 1e-6, 1e-6));
	assert_true(tc_py_isclose(INFINITY, INFINITY, 1e-6, 1e-6));
	assert_false(tc_py_isclose(INFINITY, 1e308, 1e-6, 1e-6));
}

static void
test_schema2_uses_python_numeric_equality(void **state)
{
	tc_json *v;

	(void)state;
	v = fx_parse("{\"schema_version\": 2}");
	assert_true(tc_final_ledger_is_schema2(v));
	tc_json_free(v);
	v = fx_parse("{\"schema_version\": 2.0}");
	assert_true(tc_final_ledger_is_schema2(v));
	tc_json_free(v);
	v = fx_parse("{\"schema_version\": 2.5}");
	assert_false(tc_final_ledger_is_schema2(v));
	tc_json_free(v);
	v = fx_parse("[2]");
	assert_false(tc_final_ledger_is_schema2(v));
	tc_json_free(v);
}

int
main(void)
{
	static const struct CMUnitTest fixed[] = {
		cmocka_unit_test(test_ledger_path_must_be_a_canonical_string),
		cmocka_unit_test(test_ledger_path_must_stay_relative_and_inside),
		cmocka_unit_test(test_missing_ledger_reports_the_python_os_error),
		cmocka_unit_test(test_malformed_ledger_reports_the_decode_error),
		cmocka_unit_test(test_ledger_symlink_leaving_the_root_is_refused),
		cmocka_unit_test(test_symlink_inside_the_root_is_followed),
		cmocka_unit_test(test_nan_in_ledger_is_a_summary_error_not_a_parse_error),
		cmocka_unit_test(test_classification_maps_to_the_final_status),
		cmocka_unit_test(test_status_labels_match_the_report_vocabulary),
		cmocka_unit_test(test_final_result_lists_every_missing_detail_in_order),
		cmocka_unit_test(test_final_result_requires_ledger_path),
		cmocka_unit_test(test_final_result_without_final_e2e_is_refused),
		cmocka_unit_test(test_final_status_must_equal_the_mapped_classification),
		cmocka_unit_test(test_final_result_with_metric_drift_names_improvement_pct),
		cmocka_unit_test(test_isclose_follows_python),
		cmocka_unit_test(test_schema2_uses_python_numeric_equality),
	};
	size_t nfixed = sizeof(fixed) / sizeof(fixed[0]);
	size_t ncases = sizeof(ledger_cases) / sizeof(ledger_cases[0]);
	struct CMUnitTest *tests = tc_xcalloc(nfixed + ncases, sizeof(*tests));
	size_t i;
	int rc;

	memcpy(tests, fixed, sizeof(fixed));
	for (i = 0; i < ncases; i++) {
		tests[nfixed + i].name = ledger_cases[i].name;
		tests[nfixed + i].test_func = run_ledger_case;
		tests[nfixed + i].initial_state = (void *)&ledger_cases[i];
	}
	rc = _cmocka_run_group_tests("final_ledger", tests, nfixed + ncases,
	    NULL, NULL);
	free(tests);
	return rc;
}
