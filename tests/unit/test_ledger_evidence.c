/*
 * test_ledger_evidence.c - artifact evidence validation of an experiment
 * result (docs/spec/ledger.md "Artifact evidence validation",
 * "The validation wrapper"): analysis files on disk, their binding to the
 * experiment and its rounds, input and profile files, and the decision coverage
 * checked against an analyser hook (a fake standing in for the reference's
 * external analyser).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <sys/stat.h>
#include <unistd.h>

#include "test_ledger_fixture.h"
#include "tunectl/fileio.h"
#include "unit_fixture.h"

#define PREFIX TC_LEDGER_EXCEPTION_PREFIX "ValueError: "
#define L_BASE "profiling_analysis_result.S3-BASE"

static const char *const inputs[] = {
	"sk_meta", "baseline_config", "candidate_config", "baseline_workload",
	"candidate_workload", "declared_change_set", NULL
};

struct world {
	char root[256];
	tc_json *result;
};

static void
put(const char *root, const char *rel, const char *text)
{
	char *path = tc_xasprintf("%s/%s", root, rel);
	tc_error err = TC_ERROR_INIT;

	assert_int_equal(tc_write_atomic(path, text, strlen(text), TC_WRITE_MKDIRS,
	    &err), 0);
	free(path);
}

/* The analysis file of one round, bound to it. */
static tc_json *
analysis_for(const tc_json *result, const tc_json *round)
{
	static const char *const round_fields[] = {
		"baseline_config_fingerprint", "candidate_config_fingerprint",
		"control_fingerprint", "workload_fingerprint",
		"baseline_profile_fingerprint", "candidate_profile_fingerprint",
		"declared_change_set", NULL
	};
	const char *rid = tc_json_get_string(round, "round_id");
	tc_json *a = tc_json_new_object(), *in = tc_json_new_object();
	size_t i;

	tc_json_object_set_string(a, "schema_version", "1.2");
	tc_json_object_set_string(a, "candidate_name", "S3");
	tc_json_object_set_string(a, "experiment_id", "S3");
	tc_json_object_set_string(a, "round_id", rid);
	tc_json_object_set(a, "analysis_agent_id", tc_json_clone(tc_json_getn(
	    tc_json_get(result, "profiling_analysis_agent_ids"), rid,
	    strlen(rid))));
	tc_json_object_set_string(a, "source_revision", "source-sha");
	for (i = 0; round_fields[i] != NULL; i++)
		tc_json_object_set(a, round_fields[i],
		    tc_json_clone(tc_json_get(round, round_fields[i])));
	tc_json_object_set_string(a, "baseline_workload_fingerprint",
	    "workload-fp");
	tc_json_object_set_string(a, "candidate_workload_fingerprint",
	    "workload-fp");
	tc_json_object_set_string(a, "baseline_control_fingerprint", "control-fp");
	tc_json_object_set_string(a, "candidate_control_fingerprint",
	    "control-fp");
	fx_set_str(in, "baseline_profile", "../../%s",
	    tc_json_get_string(round, "baseline_profile"));
	fx_set_str(in, "candidate_profile", "../../%s",
	    tc_json_get_string(round, "candidate_profile"));
	for (i = 0; inputs[i] != NULL; i++)
		fx_set_str(in, inputs[i], "../inputs/%s.json", inputs[i]);
	tc_json_object_set_null(in, "sk_prof");
	tc_json_object_set(a, "inputs", in);
	return a;
}

static void
write_json(const char *root, const char *rel, const tc_json *v)
{
	char *path = tc_xasprintf("%s/%s", root, rel);
	tc_error err = TC_ERROR_INIT;

	assert_int_equal(tc_write_json(path, v, TC_WRITE_MKDIRS, &err), 0);
	free(path);
}

/* Lay out every artifact the S3 result names under a fresh root. */
static int
setup(void **state)
{
	struct world *w = tc_xcalloc(1, sizeof(*w));
	const tc_json *rounds;
	size_t i, k;

	unit_tmpdir_into(w->root, sizeof(w->root), "ledger-ev");
	w->result = fx_result();
	put(w->root, "profiles/frozen-baseline.json", "{}\n");
	rounds = tc_json_get(w->result, "rounds");
	for (i = 0; i < rounds->u.arr.len; i++) {
		const tc_json *r = rounds->u.arr.items[i];
		const char *rid = tc_json_get_string(r, "round_id");
		char rel[256];
		tc_json *a = analysis_for(w->result, r);

		put(w->root, tc_json_get_string(r, "candidate_profile"), "{}\n");
		for (k = 0; inputs[k] != NULL; k++) {
			snprintf(rel, sizeof(rel), "%s/inputs/%s.json", rid, inputs[k]);
			put(w->root, rel, "{}\n");
		}
		snprintf(rel, sizeof(rel), "%s/profiling-analysis/"
		    "profiling-analysis-result.json", rid);
		write_json(w->root, rel, a);
		tc_json_free(a);
	}
	*state = w;
	return 0;
}

static int
teardown(void **state)
{
	struct world *w = *state;

	assert_int_equal(unit_rmtree(w->root), 0);
	tc_json_free(w->result);
	free(w);
	return 0;
}

/* Rewrite one analysis file through a mutation. */
static void
mutate_analysis(struct world *w, const char *rid, const char *ptr,
    const char *json)
{
	char *rel = tc_xasprintf("%s/profiling-analysis/"
	    "profiling-analysis-result.json", rid);
	char *path = tc_xasprintf("%s/%s", w->root, rel);
	tc_error err = TC_ERROR_INIT;
	tc_json *a = tc_json_parse_file(path, &err);

	assert_non_null(a);
	if (json == NULL)
		fx_del(a, ptr);
	else
		fx_set(a, ptr, json);
	write_json(w->root, rel, a);
	tc_json_free(a);
	free(rel);
	free(path);
}

/* ---- a fake analyser: producer decisions and scope actions equal to
 * the result's own records for the round, unless a test edits them. -- */

struct fake {
	const tc_json *result;
	tc_json *extra_decision;	/* appended to every round */
	const char *tamper_field;	/* edited in the first decision */
	const char *tamper_json;
	bool tamper_action;
	bool tamper_both;		/* edit the decision and its action */
	bool fail_reanalysis;
	int calls;
};

static int
fake_analyze(void *ctx, const tc_json *result, const char *round_id,
    const char *analysis_path, const tc_json *analysis, tc_json **decisions,
    tc_json **actions, tc_error *err)
{
	static const char *const lists[] = {
		"performance_scope_decisions", "unresolved_performance_ranges"
	};
	static const char *const dfields[] = {
		"range_id", "sk_id", "classification", "action", "mapping_method",
		"mapping_confidence", "boundary", NULL
	};
	static const char *const afields[] = {
		"range_id", "sk_id", "classification", "action", "source_scope",
		"boundary", NULL
	};
	struct fake *f = ctx;
	size_t l, i, k;

	(void)analysis;
	assert_non_null(strstr(analysis_path, round_id));
	f->calls++;
	*decisions = tc_json_new_array();
	*actions = tc_json_new_array();
	for (l = 0; l < 2; l++) {
		const tc_json *list = tc_json_get(result, lists[l]);

		for (i = 0; i < list->u.arr.len; i++) {
			const tc_json *d = list->u.arr.items[i];
			tc_json *pd, *pa;

			if (strcmp(tc_json_get_string(d, "round_id"), round_id) != 0)
				continue;
			pd = tc_json_new_object();
			pa = tc_json_new_object();
			for (k = 0; dfields[k] != NULL; k++)
				tc_json_object_set(pd, dfields[k],
				    tc_json_clone(tc_json_get(d, dfields[k])));
			for (k = 0; afields[k] != NULL; k++)
				tc_json_object_set(pa, afields[k],
				    tc_json_clone(tc_json_get(d, afields[k])));
			if (f->tamper_field != NULL && (*decisions)->u.arr.len == 0 &&
			    strcmp(round_id, "S3-BASE") == 0) {
				tc_json_object_set(f->tamper_action ? pa : pd,
				    f->tamper_field, fx_parse(f->tamper_json));
				if (f->tamper_both)
					tc_json_object_set(pa, f->tamper_field,
					    fx_parse(f->tamper_json));
			}
			tc_json_array_push(*decisions, pd);
			tc_json_array_push(*actions, pa);
		}
	}
	if (f->extra_decision != NULL && strcmp(round_id, "S3-BASE") == 0) {
		tc_json_array_push(*decisions, tc_json_clone(f->extra_decision));
		tc_json_array_push(*actions, tc_json_clone(f->extra_decision));
	}
	(void)err;
	return 0;
}

static int
fake_reanalyze(void *ctx, const tc_json *result, const char *round_id,
    const char *analysis_path, const tc_json *analysis, tc_error *err)
{
	struct fake *f = ctx;

	(void)result;
	(void)round_id;
	(void)analysis_path;
	(void)analysis;
	if (f->fail_reanalysis) {
		tc_error_set(err, "重新分析结果与存储的分析不一致");
		return -1;
	}
	return 0;
}

static tc_json *
validate_with(struct world *w, struct fake *f)
{
	tc_ledger_analyzer an = { fake_analyze, fake_reanalyze, f };
	tc_ledger_opts o = { w->root, f != NULL ? &an : NULL };

	if (f != NULL)
		f->result = w->result;
	return tc_experiment_validate(w->result, &o);
}

static void
expect_single_error(tc_json *v, const char *msg)
{
	const tc_json *errors = tc_json_get(v, "errors");

	if (errors->u.arr.len != 1 || strcmp(tc_json_string(errors->u.arr.items[0]),
	    msg) != 0) {
		fprintf(stderr, "# expected: %s\n", msg);
		fx_dump(errors);
	}
	assert_false(tc_json_get(v, "valid")->u.b);
	assert_false(tc_json_get(v, "artifact_evidence_validated")->u.b);
	assert_int_equal(errors->u.arr.len, 1);
	assert_string_equal(tc_json_string(errors->u.arr.items[0]), msg);
	tc_json_free(v);
}

/* ---- tests --------------------------------------------------------------- */

static void
test_complete_artifacts_without_analyser_are_valid_but_not_validated(void **state)
{
	struct world *w = *state;
	tc_json *v = validate_with(w, NULL);

	fx_dump(tc_json_get(v, "errors"));
	assert_true(tc_json_get(v, "valid")->u.b);
	assert_false(tc_json_get(v, "artifact_evidence_validated")->u.b);
	assert_false(tc_json_get(v, "conditional_evidence_eligible")->u.b);
	tc_json_free(v);
}

static void
test_analyser_backed_validation_makes_evidence_eligible(void **state)
{
	struct world *w = *state;
	struct fake f = { 0 };
	tc_json *v = validate_with(w, &f);

	fx_dump(tc_json_get(v, "errors"));
	assert_true(tc_json_get(v, "valid")->u.b);
	assert_true(tc_json_get(v, "artifact_evidence_validated")->u.b);
	assert_true(tc_json_get(v, "conditional_evidence_eligible")->u.b);
	assert_int_equal(f.calls, 3);
	tc_json_free(v);
}

static void
test_missing_analysis_artifact_is_a_wrapped_value_error(void **state)
{
	struct world *w = *state;
	char *p = tc_xasprintf("%s/S3-BASE/profiling-analysis/"
	    "profiling-analysis-result.json", w->root);

	assert_int_equal(unlink(p), 0);
	free(p);
	expect_single_error(validate_with(w, NULL), TC_LEDGER_EXCEPTION_PREFIX
	    "ValueError: profiling_analysis_result.S3-BASE artifact is missing: "
	    "S3-BASE/profiling-analysis/profiling-analysis-result.json");
}

static void
test_analysis_that_is_a_directory_is_not_a_json_file(void **state)
{
	struct world *w = *state;
	char *p = tc_xasprintf("%s/S3-BASE/profiling-analysis/"
	    "profiling-analysis-result.json", w->root);

	assert_int_equal(unlink(p), 0);
	assert_int_equal(mkdir(p, 0755), 0);
	free(p);
	expect_single_error(validate_with(w, NULL), PREFIX L_BASE
	    " must be a JSON file");
}

static void
test_artifact_validation_rejects_symlink_escape(void **state)
{
	struct world *w = *state;
	char *p = tc_xasprintf("%s/S3-BASE/profiling-analysis/"
	    "profiling-analysis-result.json", w->root);

	assert_int_equal(unlink(p), 0);
	assert_int_equal(symlink("/etc/hostname", p), 0);
	free(p);
	expect_single_error(validate_with(w, NULL), PREFIX L_BASE
	    " escapes artifact root");
}

static void
test_analysis_with_nonstandard_constant_is_refused(void **state)
{
	struct world *w = *state;

	put(w->root, "S3-P1/profiling-analysis/profiling-analysis-result.json",
	    "{\"x\": NaN}");
	expect_single_error(validate_with(w, NULL), TC_LEDGER_EXCEPTION_PREFIX
	    "ValueError: non-standard JSON constant NaN");
}

static void
test_analysis_must_be_bound_to_the_experiment(void **state)
{
	struct world *w = *state;

	mutate_analysis(w, "S3-BASE", "/candidate_name", "\"S2\"");
	expect_single_error(validate_with(w, NULL), PREFIX L_BASE
	    " candidate_name does not match experiment result");
	mutate_analysis(w, "S3-BASE", "/candidate_name", "\"S3\"");
	mutate_analysis(w, "S3-BASE", "/analysis_agent_id", "\"prof-agent-9\"");
	expect_single_error(validate_with(w, NULL), PREFIX L_BASE
	    " analysis_agent_id does not match experiment result");
	mutate_analysis(w, "S3-BASE", "/analysis_agent_id", "\"prof-agent-1\"");
	mutate_analysis(w, "S3-BASE", "/round_id", "\"S3-P1\"");
	expect_single_error(validate_with(w, NULL), PREFIX L_BASE
	    " round_id does not match experiment result");
}

static void
test_analysis_must_be_bound_to_its_declared_round(void **state)
{
	struct world *w = *state;

	mutate_analysis(w, "S3-P1", "/candidate_config_fingerprint",
	    "\"candidate-base-fp\"");
	expect_single_error(validate_with(w, NULL), PREFIX
	    "profiling_analysis_result.S3-P1 candidate_config_fingerprint does "
	    "not match declared round");
	mutate_analysis(w, "S3-P1", "/candidate_config_fingerprint",
	    "\"candidate-pruned-fp\"");
	mutate_analysis(w, "S3-P1", "/declared_change_set/only_change_zh",
	    "\"只改了别的。\"");
	expect_single_error(validate_with(w, NULL), PREFIX
	    "profiling_analysis_result.S3-P1 declared_change_set does not match "
	    "declared round");
	mutate_analysis(w, "S3-P1", "/declared_change_set/only_change_zh",
	    "\"只启用 SuperKernel 并应用本轮范围。\"");
	mutate_analysis(w, "S3-P1", "/candidate_control_fingerprint", "\"c2\"");
	expect_single_error(validate_with(w, NULL), PREFIX
	    "profiling_analysis_result.S3-P1 candidate_control_fingerprint does "
	    "not match declared round");
}

static void
test_analysis_inputs_must_exist_under_the_root(void **state)
{
	struct world *w = *state;

	mutate_analysis(w, "S3-BASE", "/inputs/sk_meta", "\"../inputs/none.json\"");
	expect_single_error(validate_with(w, NULL), PREFIX L_BASE
	    " inputs.sk_meta artifact is missing");
	mutate_analysis(w, "S3-BASE", "/inputs/sk_meta",
	    "\"../../../../../../etc/hostname\"");
	expect_single_error(validate_with(w, NULL), PREFIX L_BASE
	    " inputs.sk_meta escapes artifact root");
	mutate_analysis(w, "S3-BASE", "/inputs/sk_meta", "\"../inputs/sk_meta.json\"");
	mutate_analysis(w, "S3-BASE", "/inputs/source_scope_map",
	    "\"../inputs/smap.json\"");
	expect_single_error(validate_with(w, NULL), PREFIX L_BASE
	    " inputs.source_scope_map artifact is missing");
	mutate_analysis(w, "S3-BASE", "/inputs/source_scope_map", "null");
	mutate_analysis(w, "S3-BASE", "/inputs/baseline_config", NULL);
	expect_single_error(validate_with(w, NULL), PREFIX L_BASE
	    " inputs.baseline_config must be a relative path");
}

static void
test_analysis_profiles_must_be_the_declared_round_profiles(void **state)
{
	struct world *w = *state;
	char *p;

	mutate_analysis(w, "S3-BASE", "/inputs/candidate_profile",
	    "\"../inputs/sk_meta.json\"");
	expect_single_error(validate_with(w, NULL), PREFIX L_BASE
	    " inputs.candidate_profile does not match declared round");
	mutate_analysis(w, "S3-BASE", "/inputs/candidate_profile",
	    "\"../profiles/candidate.json\"");
	p = tc_xasprintf("%s/profiles/frozen-baseline.json", w->root);
	assert_int_equal(unlink(p), 0);
	free(p);
	expect_single_error(validate_with(w, NULL), PREFIX L_BASE
	    " inputs.baseline_profile artifact is missing");
}

static void
test_artifact_root_must_be_an_existing_directory(void **state)
{
	struct world *w = *state;
	char *missing = tc_xasprintf("%s/no-such-dir", w->root);
	tc_ledger_opts o = { missing, NULL };
	tc_json *v = tc_experiment_validate(w->result, &o);

	expect_single_error(v, PREFIX "artifact root must be an existing "
	    "directory");
	free(missing);
}

static void
test_analyser_decisions_must_match_every_submitted_record(void **state)
{
	struct world *w = *state;
	struct fake f = { 0 };

	f.tamper_field = "boundary";
	f.tamper_json = "{\"start_op\": \"other\", \"end_op\": \"x\"}";
	expect_single_error(validate_with(w, &f), PREFIX
	    "performance_scope_decisions[0].boundary does not match analyzer "
	    "per_sk_decisions");
	f.tamper_field = "candidate_binding_status";
	f.tamper_json = "\"bound\"";
	expect_single_error(validate_with(w, &f), PREFIX
	    "performance_scope_decisions[0].candidate_binding_status does not "
	    "match analyzer structural proof");
	f.tamper_field = "source_scope";
	f.tamper_json = "\"model.other\"";
	f.tamper_action = true;
	expect_single_error(validate_with(w, &f), PREFIX
	    "performance_scope_decisions[0].source_scope does not match analyzer "
	    "scope_actions");
}

static void
test_analyser_coverage_must_be_complete_and_exact(void **state)
{
	struct world *w = *state;
	struct fake f = { 0 };

	f.extra_decision = fx_parse("{\"range_id\": \"range-omitted\"}");
	expect_single_error(validate_with(w, &f), PREFIX L_BASE
	    " handoff collections must provide complete analyzer coverage "
	    "exactly once; missing=['range-omitted'], extra=[], duplicates=[]");
	tc_json_free(f.extra_decision);
	f.extra_decision = fx_parse("{\"range_id\": \"range-beneficial\"}");
	expect_single_error(validate_with(w, &f), PREFIX L_BASE
	    " duplicates range_id=range-beneficial");
	tc_json_free(f.extra_decision);
	f.extra_decision = NULL;
	f.fail_reanalysis = true;
	expect_single_error(validate_with(w, &f), PREFIX
	    "重新分析结果与存储的分析不一致");
}

static void
test_merge_with_analyser_promotes_validated_evidence(void **state)
{
	struct world *w = *state;
	struct fake f = { 0 };
	tc_ledger_analyzer an = { fake_analyze, fake_reanalyze, &f };
	tc_ledger_opts o = { w->root, &an };
	tc_error err = TC_ERROR_INIT;
	tc_json *l = tc_json_new_object(), *out, *again;

	out = tc_ledger_merge(l, w->result, &o, &err);
	if (out == NULL)
		fprintf(stderr, "# %s\n", tc_error_msg(&err));
	assert_non_null(out);
	assert_int_equal(tc_json_get(out, "artifact_validated_experiment_ids")
	    ->u.arr.len, 1);
	assert_int_equal(tc_json_get(out, "conditional_performance_evidence")
	    ->u.obj.len, 1);
	/* A structural-only merge first, then an artifact-backed re-merge
	 * adds the id. */
	tc_json_free(out);
	out = tc_ledger_merge(l, w->result, NULL, &err);
	assert_int_equal(tc_json_get(out, "artifact_validated_experiment_ids")
	    ->u.arr.len, 0);
	again = tc_ledger_merge(out, w->result, &o, &err);
	assert_non_null(again);
	assert_string_equal(tc_json_string(tc_json_get(again,
	    "artifact_validated_experiment_ids")->u.arr.items[0]), "S3");
	assert_int_equal(tc_json_get(again, "conditional_performance_evidence")
	    ->u.obj.len, 1);
	tc_json_free(again);
	tc_json_free(out);
	tc_json_free(l);
}

static void
test_analysis_documents_of_the_wrong_shape_are_refused(void **state)
{
	struct world *w = *state;
	tc_buf deep = TC_BUF_INIT;
	size_t i;

	put(w->root, "S3-FINAL/profiling-analysis/profiling-analysis-result.json",
	    "[1, 2]");
	expect_single_error(validate_with(w, NULL), PREFIX
	    "profiling_analysis_result.S3-FINAL must contain a JSON object");
	tc_buf_puts(&deep, "{\"a\": ");
	for (i = 0; i < 300; i++)
		tc_buf_putc(&deep, '[');
	for (i = 0; i < 300; i++)
		tc_buf_putc(&deep, ']');
	tc_buf_putc(&deep, '}');
	put(w->root, "S3-FINAL/profiling-analysis/profiling-analysis-result.json",
	    deep.data);
	tc_buf_free(&deep);
	expect_single_error(validate_with(w, NULL), PREFIX
	    "profiling_analysis_result.S3-FINAL exceeds the JSON nesting depth "
	    "limit of 256");
	put(w->root, "S3-FINAL/profiling-analysis/profiling-analysis-result.json",
	    "{\"x\": ");
	expect_single_error(validate_with(w, NULL), TC_LEDGER_EXCEPTION_PREFIX
	    "JSONDecodeError: Expecting value: line 1 column 7 (char 6)");
}

static void
test_analysis_inputs_must_be_an_object(void **state)
{
	struct world *w = *state;

	mutate_analysis(w, "S3-BASE", "/inputs", "[]");
	expect_single_error(validate_with(w, NULL), PREFIX L_BASE
	    " inputs must be an object");
}

static void
test_artifact_root_that_cannot_be_resolved_is_refused(void **state)
{
	struct world *w = *state;
	char *loop = tc_xasprintf("%s/loop", w->root);
	tc_ledger_opts o = { loop, NULL };
	tc_json *v;

	assert_int_equal(symlink(loop, loop), 0);
	v = tc_experiment_validate(w->result, &o);
	assert_false(tc_json_get(v, "valid")->u.b);
	assert_non_null(strstr(tc_json_string(tc_json_get(v, "errors")
	    ->u.arr.items[0]), "ValueError: artifact root cannot be resolved: "));
	tc_json_free(v);
	free(loop);
}

static void
test_analyser_scope_actions_must_cover_its_decisions(void **state)
{
	struct world *w = *state;
	struct fake f = { 0 };

	f.tamper_field = "range_id";
	f.tamper_json = "\"range-elsewhere\"";
	f.tamper_action = true;
	expect_single_error(validate_with(w, &f), PREFIX L_BASE
	    " scope_actions must provide complete analyzer coverage; "
	    "missing=['range-beneficial'], extra=['range-elsewhere']");
	f.tamper_action = false;
	f.tamper_field = "range_id";
	f.tamper_json = "\"range-elsewhere\"";
	f.extra_decision = NULL;
	f.tamper_both = true;
	expect_single_error(validate_with(w, &f), PREFIX
	    "performance_scope_decisions[0] has no exact analyzer decision for "
	    "round/range");
}

#define T(f) cmocka_unit_test_setup_teardown(f, setup, teardown)

int
main(void)
{
	const struct CMUnitTest tests[] = {
		T(test_complete_artifacts_without_analyser_are_valid_but_not_validated),
		T(test_analyser_backed_validation_makes_evidence_eligible),
		T(test_missing_analysis_artifact_is_a_wrapped_value_error),
		T(test_analysis_that_is_a_directory_is_not_a_json_file),
		T(test_artifact_validation_rejects_symlink_escape),
		T(test_analysis_with_nonstandard_constant_is_refused),
		T(test_analysis_must_be_bound_to_the_experiment),
		T(test_analysis_must_be_bound_to_its_declared_round),
		T(test_analysis_inputs_must_exist_under_the_root),
		T(test_analysis_profiles_must_be_the_declared_round_profiles),
		T(test_artifact_root_must_be_an_existing_directory),
		T(test_analyser_decisions_must_match_every_submitted_record),
		T(test_analyser_coverage_must_be_complete_and_exact),
		T(test_merge_with_analyser_promotes_validated_evidence),
		T(test_analysis_documents_of_the_wrong_shape_are_refused),
		T(test_analysis_inputs_must_be_an_object),
		T(test_artifact_root_that_cannot_be_resolved_is_refused),
		T(test_analyser_scope_actions_must_cover_its_decisions),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
