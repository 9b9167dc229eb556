/*
 * test_derive_checks.c - the content checks of imported evidence
 * (docs/spec/controller.md "Imported file checks",
 * docs/spec/controller.md "Imported ledger checks") and the two content
 * fingerprints (docs/spec/controller.md "Where each digest is used"), each
 * message triggered by the smallest edit of a valid document.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "test_derive_fixture.h"
#include "tunectl/derive.h"

enum { ANALYSIS, SMAP, LEDGER };

/* Check doc (of kind) against the fixture analysis. */
static void
expect(int kind, tc_json *doc, const char *msg)
{
	tc_json *analysis = fx_json(DFX_ANALYSIS);
	tc_error err = TC_ERROR_INIT;
	int rc;

	if (kind == ANALYSIS)
		rc = tc_import_check_analysis(doc, &err);
	else if (kind == SMAP)
		rc = tc_import_check_source_map(doc, analysis, &err);
	else
		rc = tc_import_check_ledger(doc, analysis, &err);
	if (msg == NULL) {
		if (rc != 0)
			fail_msg("unexpected: %s", tc_error_msg(&err));
	} else {
		assert_int_equal(rc, -1);
		assert_string_equal(tc_error_msg(&err), msg);
	}
	tc_error_clear(&err);
	tc_json_free(analysis);
	tc_json_free(doc);
}

/* Edit a fixture document, then recompute its fingerprint so that only
 * the edit is refused. */
static tc_json *
analysis_with(const char *path, const char *value)
{
	tc_json *a = fx_edit(fx_json(DFX_ANALYSIS), path, value);
	char hex[65];

	assert_int_equal(tc_import_analysis_fingerprint(a, hex, NULL), 0);
	tc_json_object_set_string(a, "analysis_content_fingerprint", hex);
	return a;
}

static tc_json *
smap_with(const char *path, const char *value)
{
	tc_json *m = fx_edit(fx_json(DFX_SMAP), path, value);
	char hex[65];

	assert_int_equal(tc_import_source_map_fingerprint(m, hex, NULL), 0);
	tc_json_object_set_string(tc_json_get(m, "provenance"),
	    "source_scope_map_content_fingerprint", hex);
	return m;
}

static void
test_analysis_fingerprint_is_ascii_escaped_like_python(void **state)
{
	tc_json *a = fx_json(DFX_ANALYSIS);
	char hex[65];

	(void)state;
	assert_int_equal(tc_import_analysis_fingerprint(a, hex, NULL), 0);
	assert_string_equal(hex, DFX_ANALYSIS_FP);
	assert_string_not_equal(hex, DFX_ANALYSIS_FP_UNICODE);
	tc_json_free(a);
}

static void
test_source_map_fingerprint_drops_only_its_own_key(void **state)
{
	tc_json *m = fx_json(DFX_SMAP);
	char hex[65];

	(void)state;
	assert_int_equal(tc_import_source_map_fingerprint(m, hex, NULL), 0);
	assert_string_equal(hex, DFX_SMAP_FP);
	tc_json_free(m);
}

static void
test_valid_fixture_documents_pass(void **state)
{
	(void)state;
	expect(ANALYSIS, fx_json(DFX_ANALYSIS), NULL);
	expect(SMAP, fx_json(DFX_SMAP), NULL);
	expect(LEDGER, fx_json(DFX_LEDGER), NULL);
	/* absent or null source_scope_mapping is fine */
	expect(ANALYSIS, analysis_with("source_scope_mapping", NULL), NULL);
	expect(ANALYSIS, analysis_with("source_scope_mapping", "null"), NULL);
	/* 2.1 maps and an explicit source_revision are accepted */
	expect(SMAP, smap_with("schema_version", "\"2.1\""), NULL);
	expect(SMAP, smap_with("provenance/source_revision",
	    "\"revision-abc\""), NULL);
	/* ledger schema 2.0 compares equal to 2, as in Python */
	expect(LEDGER, fx_edit(fx_json(DFX_LEDGER), "schema_version", "2.0"),
	    NULL);
}

static void
test_analysis_must_be_a_schema_1_2_object(void **state)
{
	(void)state;
	expect(ANALYSIS, fx_json("[]"), "profiling analysis must be a JSON object");
	expect(ANALYSIS, analysis_with("schema_version", "1.2"),
	    "profiling analysis must use schema_version 1.2");
	expect(ANALYSIS, analysis_with("schema_version", "\"1.1\""),
	    "profiling analysis must use schema_version 1.2");
}

static void
test_analysis_identity_fields_are_canonical(void **state)
{
	(void)state;
	expect(ANALYSIS, analysis_with("experiment_id", NULL),
	    "profiling analysis experiment_id must be a non-empty canonical string");
	expect(ANALYSIS, analysis_with("round_id", "\" Sbest-BASE\""),
	    "profiling analysis round_id must be a non-empty canonical string");
	expect(ANALYSIS, analysis_with("candidate_name", "7"),
	    "profiling analysis candidate_name must be a non-empty canonical string");
	expect(ANALYSIS, analysis_with("source_revision", "\"\""),
	    "profiling analysis source_revision must be a non-empty canonical string");
}

static void
test_analysis_content_fingerprint_must_match(void **state)
{
	tc_json *a;

	(void)state;
	/* an edit without recomputing */
	a = fx_edit(fx_json(DFX_ANALYSIS), "summary_zh", "\"改过\"");
	expect(ANALYSIS, a, "profiling analysis content fingerprint mismatch");
	/* the ensure_ascii=False digest is not the fingerprint */
	a = fx_edit(fx_json(DFX_ANALYSIS), "analysis_content_fingerprint",
	    "\"" DFX_ANALYSIS_FP_UNICODE "\"");
	expect(ANALYSIS, a, "profiling analysis content fingerprint mismatch");
	a = fx_edit(fx_json(DFX_ANALYSIS), "analysis_content_fingerprint", NULL);
	expect(ANALYSIS, a, "profiling analysis content fingerprint mismatch");
	a = fx_edit(fx_json(DFX_ANALYSIS), "analysis_content_fingerprint",
	    "\" " DFX_ANALYSIS_FP "\"");
	expect(ANALYSIS, a, "profiling analysis content fingerprint mismatch");
}

static void
test_analysis_fingerprint_refuses_nan(void **state)
{
	tc_json *a = fx_edit(fx_json(DFX_ANALYSIS), "hotspots", "[NaN]");

	(void)state;
	expect(ANALYSIS, a, "Out of range float values are not JSON compliant");
}

static void
test_analysis_source_scope_mapping_must_be_exact(void **state)
{
	const char *msg = "profiling analysis source_scope_mapping is not exact";

	(void)state;
	expect(ANALYSIS, analysis_with("source_scope_mapping/status",
	    "\"approximate\""), msg);
	expect(ANALYSIS, analysis_with("source_scope_mapping/protocol",
	    "\"source_scope_map_v1\""), msg);
	expect(ANALYSIS, analysis_with("source_scope_mapping", "\"exact\""), msg);
}

static void
test_source_map_protocol_and_schema(void **state)
{
	const char *msg = "source scope map must use source_scope_map_v2 schema "
	    "2.0 or 2.1";

	(void)state;
	expect(SMAP, fx_json("[]"), msg);
	expect(SMAP, smap_with("protocol", "\"source_scope_map_v1\""), msg);
	expect(SMAP, smap_with("schema_version", "\"2.2\""), msg);
	expect(SMAP, smap_with("schema_version", "2.0"), msg);
	expect(SMAP, fx_edit(fx_json(DFX_SMAP), "provenance", "[]"),
	    "source scope map provenance must be an object");
}

static void
test_source_map_content_fingerprint_must_match(void **state)
{
	const char *msg = "source scope map content fingerprint mismatch";

	(void)state;
	expect(SMAP, fx_edit(fx_json(DFX_SMAP), "source_ranges/0/end_line",
	    "43"), msg);
	expect(SMAP, fx_edit(fx_json(DFX_SMAP),
	    "provenance/source_scope_map_content_fingerprint", NULL), msg);
	/* the source-map fingerprint is NOT ensure_ascii: NaN is allowed in
	 * its digest, so only the mismatch is reported */
	expect(SMAP, fx_edit(fx_json(DFX_SMAP), "source_ranges/0/end_line",
	    "NaN"), msg);
}

static void
test_source_map_revision_must_match_the_analysis(void **state)
{
	const char *msg = "source scope map source revision differs from "
	    "profiling analysis";

	(void)state;
	expect(SMAP, smap_with("provenance/stable_marker_revision",
	    "\"revision-other\""), msg);
	/* source_revision, when present, wins over the stable marker */
	expect(SMAP, smap_with("provenance/source_revision",
	    "\"revision-other\""), msg);
	expect(SMAP, smap_with("provenance/source_revision", "null"), msg);
	expect(SMAP, smap_with("provenance/stable_marker_revision", NULL), msg);
}

static void
test_source_map_needs_an_exact_cover_range(void **state)
{
	const char *msg = "source scope map has no actionable exact_cover range";

	(void)state;
	expect(SMAP, smap_with("source_ranges/0/relation",
	    "\"diagnostic_only\""), msg);
	expect(SMAP, smap_with("source_ranges", "[]"), msg);
	expect(SMAP, smap_with("source_ranges", "{}"), msg);
	expect(SMAP, smap_with("source_ranges", "[\"exact_cover\"]"), msg);
}

static void
test_imported_ledger_checks(void **state)
{
	(void)state;
	expect(LEDGER, fx_json("[]"), "experiment ledger must be a schema 2 ledger");
	expect(LEDGER, fx_edit(fx_json(DFX_LEDGER), "schema_version", "1"),
	    "experiment ledger must be a schema 2 ledger");
	expect(LEDGER, fx_edit(fx_json(DFX_LEDGER), "schema_version", "\"2\""),
	    "experiment ledger must be a schema 2 ledger");
	expect(LEDGER, fx_edit(fx_json(DFX_LEDGER), "experiments", "[]"),
	    "experiment ledger must be a schema 2 ledger");
	expect(LEDGER, fx_edit(fx_json(DFX_LEDGER), "experiments/Sbest", NULL),
	    "experiment ledger does not contain the analyzed experiment");
	expect(LEDGER, fx_edit(fx_json(DFX_LEDGER), "experiments/Sbest", "[]"),
	    "experiment ledger does not contain the analyzed experiment");
	expect(LEDGER, fx_edit(fx_json(DFX_LEDGER),
	    "experiments/Sbest/source_revision", "\"revision-old\""),
	    "experiment ledger source revision differs from profiling analysis");
	expect(LEDGER, fx_edit(fx_json(DFX_LEDGER),
	    "experiments/Sbest/rounds/0/round_id", "\"Sbest-P1\""),
	    "experiment ledger does not contain the analyzed BASE round");
	expect(LEDGER, fx_edit(fx_json(DFX_LEDGER), "experiments/Sbest/rounds",
	    "{}"), "experiment ledger does not contain the analyzed BASE round");
	/* no final_e2e is needed in an imported ledger */
	expect(LEDGER, fx_edit(fx_json(DFX_LEDGER), "final_e2e", NULL), NULL);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_analysis_fingerprint_is_ascii_escaped_like_python),
		cmocka_unit_test(test_source_map_fingerprint_drops_only_its_own_key),
		cmocka_unit_test(test_valid_fixture_documents_pass),
		cmocka_unit_test(test_analysis_must_be_a_schema_1_2_object),
		cmocka_unit_test(test_analysis_identity_fields_are_canonical),
		cmocka_unit_test(test_analysis_content_fingerprint_must_match),
		cmocka_unit_test(test_analysis_fingerprint_refuses_nan),
		cmocka_unit_test(test_analysis_source_scope_mapping_must_be_exact),
		cmocka_unit_test(test_source_map_protocol_and_schema),
		cmocka_unit_test(test_source_map_content_fingerprint_must_match),
		cmocka_unit_test(test_source_map_revision_must_match_the_analysis),
		cmocka_unit_test(test_source_map_needs_an_exact_cover_range),
		cmocka_unit_test(test_imported_ledger_checks),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
