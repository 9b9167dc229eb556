/*
 * test_session_canon.c - canonical strings (Python's str.strip() with
 * Unicode whitespace) and relative artifact paths (pathlib parts), the
 * two value rules behind most controller messages.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "test_session_fixture.h"
#include "tunectl/canon.h"

static bool
canonical(const char *json)
{
	tc_json *v = fx_json(json);
	bool ok = tc_is_canonical_string(v);

	tc_json_free(v);
	return ok;
}

static void
test_canonical_strings_follow_python_strip(void **state)
{
	(void)state;
	assert_true(canonical("\"x\""));
	assert_true(canonical("\"a b\""));
	assert_true(canonical("\"会话\""));
	assert_true(canonical("\"\\u200bx\""));		/* ZWSP is not whitespace */
	assert_false(canonical("\"\""));
	assert_false(canonical("\" \""));
	assert_false(canonical("\"x\\n\""));
	assert_false(canonical("\"\\tx\""));
	assert_false(canonical("\"x\\u00a0\""));	/* NBSP */
	assert_false(canonical("\"\\u3000x\""));	/* ideographic space */
	assert_false(canonical("\"x\\u2028\""));	/* line separator */
	assert_false(canonical("\"\\u001cx\""));	/* file separator */
	assert_false(canonical("\"x\\u0085\""));	/* NEL */
	assert_false(canonical("1"));
	assert_false(canonical("null"));
	assert_false(canonical("[\"x\"]"));
	assert_false(tc_is_canonical_string(NULL));
}

static void
test_nonblank_strings_need_content_only(void **state)
{
	tc_json *padded = fx_json("\" x \"");
	tc_json *blank = fx_json("\"\\u3000 \\t\"");

	(void)state;
	assert_true(tc_is_nonblank_string(padded));
	assert_false(tc_is_nonblank_string(blank));
	assert_false(tc_is_nonblank_string(NULL));
	tc_json_free(padded);
	tc_json_free(blank);
}

static void
test_relative_artifact_paths(void **state)
{
	static const struct {
		const char *json, *msg;
	} table[] = {
		{ "\"a/b.json\"", NULL },
		{ "\"./a\"", NULL },
		{ "\"a//b\"", NULL },
		{ "\"..a/b\"", NULL },
		{ "\"a/...\"", NULL },
		{ "\"a\\\\..\\\\b\"", NULL },		/* backslash is a name character */
		{ "\"/a\"", "x must be a relative artifact path" },
		{ "\"//a\"", "x must be a relative artifact path" },
		{ "\"..\"", "x must be a relative artifact path" },
		{ "\"a/..\"", "x must be a relative artifact path" },
		{ "\"a/../b\"", "x must be a relative artifact path" },
		{ "\" a\"", "x must be a non-empty canonical string" },
		{ "[]", "x must be a non-empty canonical string" },
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(table) / sizeof(table[0]); i++) {
		tc_error err = TC_ERROR_INIT;
		tc_json *v = fx_json(table[i].json);
		int rc = tc_require_relative_artifact(v, "x", &err);

		if (table[i].msg == NULL && rc != 0)
			fail_msg("%s refused: %s", table[i].json, tc_error_msg(&err));
		if (table[i].msg != NULL &&
		    (rc == 0 || strcmp(tc_error_msg(&err), table[i].msg) != 0))
			fail_msg("%s: got \"%s\"", table[i].json, tc_error_msg(&err));
		tc_error_clear(&err);
		tc_json_free(v);
	}
}

static void
test_phase_table(void **state)
{
	const tc_phase *p = tc_phase_by_name("base_profile_source_mapping");
	tc_json *with_nul = fx_json("\"s0_baseline\\u0000x\"");

	(void)state;
	assert_non_null(p);
	assert_string_equal(p->agent_id, "sk-base-profile-source-mapping");
	assert_string_equal(p->skill, "superkernel-base-profile-source-mapping");
	assert_null(tc_phase_by_name("final"));
	assert_null(tc_phase_of(with_nul));
	assert_string_equal(tc_phase_get(TC_PHASE_FINAL)->agent_id,
	    "sk-final-e2e-report");
	assert_null(tc_phase_get(TC_PHASE_COUNT));
	tc_json_free(with_nul);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_canonical_strings_follow_python_strip),
		cmocka_unit_test(test_nonblank_strings_need_content_only),
		cmocka_unit_test(test_relative_artifact_paths),
		cmocka_unit_test(test_phase_table),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
