/*
 * test_session_schedule.c - canonical schedules for every entrypoint and
 * optional mode (docs/spec/controller.md "Canonical schedules"), their
 * refusals, and the derived-BASE insertion of `both` (docs/spec/controller.md
 * "Derived BASE insertion").
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "test_session_fixture.h"
#include "tunectl/session.h"

/* "id[branch]" for each step, space separated; "*" marks a rebase. */
static char *
describe(const tc_json *steps)
{
	tc_buf b = TC_BUF_INIT;
	size_t i;

	for (i = 0; i < steps->u.arr.len; i++) {
		const tc_json *s = steps->u.arr.items[i];
		const char *branch = tc_json_get_string(s, "optional_branch");
		const tc_json *rebase = tc_json_get(s, "derived_family_rebase");

		if (i > 0)
			tc_buf_putc(&b, ' ');
		tc_buf_puts(&b, tc_json_get_string(s, "step_id"));
		if (branch != NULL)
			tc_buf_printf(&b, "[%s]", branch);
		if (rebase->u.b)
			tc_buf_putc(&b, '*');
	}
	return tc_buf_detach(&b, NULL);
}

#define GATES "intake-preparation s0-baseline stage-a-scope-selection " \
	"stage-o-option-tuning base-profile-source-mapping "

static void
test_every_schedule_of_the_table(void **state)
{
	static const struct {
		const char *entrypoint, *mode;
		bool accepted;
		const char *steps;
	} table[] = {
		{ "full", "none", false, GATES "optional-experiments[none] final-e2e-report" },
		{ "full", "multistream", false, GATES "optional-experiments[multistream] final-e2e-report" },
		{ "full", "source-range", false, GATES "optional-experiments[source-range] final-e2e-report" },
		{ "full", "both", false, GATES "optional-multistream[multistream] optional-source-range[source-range] final-e2e-report" },
		{ "full", "both", true, GATES "optional-multistream[multistream] base-profile-derived* optional-source-range[source-range] final-e2e-report" },
		{ "optional-from-base", "multistream", false, "optional-multistream[multistream] final-e2e-report" },
		{ "optional-from-base", "both", false, "optional-multistream[multistream] optional-source-range[source-range] final-e2e-report" },
		{ "optional-from-base", "both", true, "optional-multistream[multistream] base-profile-derived* optional-source-range[source-range] final-e2e-report" },
		{ "source-range-from-smap", "source-range", false, "optional-source-range[source-range] final-e2e-report" },
		{ "source-range-from-smap", "source-range", true, "optional-source-range[source-range] final-e2e-report" },
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(table) / sizeof(table[0]); i++) {
		tc_json *steps = tc_schedule_build(table[i].mode,
		    table[i].entrypoint, table[i].accepted, NULL);
		char *got;

		assert_non_null(steps);
		got = describe(steps);
		if (strcmp(got, table[i].steps) != 0)
			fail_msg("%s/%s: %s", table[i].entrypoint, table[i].mode, got);
		free(got);
		tc_json_free(steps);
	}
}

static void
test_steps_carry_the_phase_agent_and_skill(void **state)
{
	tc_json *steps = tc_schedule_build("both", "full", true, NULL);
	size_t i;

	(void)state;
	for (i = 0; i < steps->u.arr.len; i++) {
		const tc_json *s = steps->u.arr.items[i];
		const tc_phase *p = tc_phase_by_name(tc_json_get_string(s, "phase"));

		assert_non_null(p);
		assert_string_equal(tc_json_get_string(s, "agent_id"), p->agent_id);
		assert_string_equal(tc_json_get_string(s, "skill"), p->skill);
		assert_string_equal(tc_json_get_string(s, "state"), "pending");
		if (p->id != TC_PHASE_OPTIONAL)
			assert_true(tc_json_is(tc_json_get(s, "optional_branch"),
			    TC_JSON_NULL));
	}
	tc_json_free(steps);
}

static void
test_refused_combinations(void **state)
{
	static const struct {
		const char *entrypoint, *mode, *msg;
	} table[] = {
		{ "source-range-from-smap", "both",
		  "source-range-from-smap requires optional_mode source-range" },
		{ "optional-from-base", "source-range",
		  "optional-from-base requires multistream or both" },
		{ "optional-from-base", "none",
		  "optional-from-base requires multistream or both" },
		{ "partial", "none", "session entrypoint is invalid" },
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(table) / sizeof(table[0]); i++) {
		tc_error err = TC_ERROR_INIT;

		assert_null(tc_schedule_build(table[i].mode, table[i].entrypoint,
		    false, &err));
		assert_string_equal(tc_error_msg(&err), table[i].msg);
		tc_error_clear(&err);
	}
}

static void
test_derived_base_is_inserted_after_multistream(void **state)
{
	tc_json *steps = tc_schedule_build("both", "optional-from-base", false,
	    NULL);
	tc_json *want = tc_schedule_build("both", "optional-from-base", true,
	    NULL);

	(void)state;
	assert_true(tc_schedule_inserts_derived_base("both",
	    "optional-multistream", "accepted"));
	assert_false(tc_schedule_inserts_derived_base("both",
	    "optional-multistream", "no_gain"));
	assert_false(tc_schedule_inserts_derived_base("multistream",
	    "optional-multistream", "accepted"));
	assert_false(tc_schedule_inserts_derived_base("both",
	    "optional-source-range", "accepted"));
	tc_schedule_insert_derived_base(steps, 0);
	assert_true(tc_json_equal(steps, want));
	tc_json_free(steps);
	tc_json_free(want);
}

static void
test_step_ids(void **state)
{
	(void)state;
	assert_true(tc_step_id_valid("ab", 2));
	assert_true(tc_step_id_valid("a-0", 3));
	assert_false(tc_step_id_valid("a", 1));
	assert_false(tc_step_id_valid("0a", 2));
	assert_false(tc_step_id_valid("a_b", 3));
	assert_false(tc_step_id_valid("aB", 2));
	assert_true(tc_step_id_valid(
	    "a123456789012345678901234567890123456789012345678901234567890123", 64));
	assert_false(tc_step_id_valid(
	    "a1234567890123456789012345678901234567890123456789012345678901234", 65));
	assert_false(tc_step_id_valid("ab\n", 3));
}

/* tc_schedule_check of a document whose steps are a canonical schedule
 * with one member changed: the result Python's == gives (the reference
 * compares step[key] == canonical[key], a missing key reading as None). */
static int
check_with(const char *mode, const char *entrypoint, bool accepted,
    size_t at, const char *key, tc_json *value)
{
	tc_json *doc = tc_json_new_object();
	tc_json *steps = tc_schedule_build(mode, entrypoint, accepted, NULL);
	tc_error err = TC_ERROR_INIT;
	int rc;

	if (key != NULL && value != NULL)
		tc_json_object_set(steps->u.arr.items[at], key, value);
	else if (key != NULL)
		tc_json_object_remove(steps->u.arr.items[at], key);
	if (accepted)
		for (size_t i = 0; i < steps->u.arr.len; i++)
			if (strcmp(tc_json_get_string(steps->u.arr.items[i],
			    "step_id"), "optional-multistream") == 0) {
				tc_json_object_set_string(steps->u.arr.items[i],
				    "state", "sealed");
				tc_json_object_set_string(steps->u.arr.items[i],
				    "outcome_status", "accepted");
			}
	tc_json_object_set(doc, "steps", steps);
	tc_json_object_set_string(doc, "optional_mode", mode);
	tc_json_object_set_string(doc, "entrypoint", entrypoint);
	rc = tc_schedule_check(doc, &err);
	if (rc != 0)
		assert_string_equal(tc_error_msg(&err), "session steps do not "
		    "match the canonical schedule");
	tc_error_clear(&err);
	tc_json_free(doc);
	return rc;
}

static void
test_schedule_check_compares_as_python_does(void **state)
{
	static const char *const keys[] = {
		"step_id", "phase", "agent_id", "skill", "optional_branch",
		"derived_family_rebase",
	};
	size_t k, at;

	(void)state;
	assert_int_equal(check_with("none", "full", false, 0, NULL, NULL), 0);
	assert_int_equal(check_with("both", "full", true, 0, NULL, NULL), 0);
	assert_int_equal(check_with("both", "optional-from-base", false, 0,
	    NULL, NULL), 0);
	for (at = 0; at < 6; at++)
		for (k = 0; k < 6; k++) {
			/* another string, or a number, never equals */
			assert_int_equal(check_with("none", "full", false, at,
			    keys[k], tc_json_new_string("other")), -1);
			assert_int_equal(check_with("none", "full", false, at,
			    keys[k], tc_json_new_int(7)), -1);
		}
	/* a missing key is None: equal only where the schedule has null */
	assert_int_equal(check_with("none", "full", false, 1, "optional_branch",
	    NULL), 0);
	assert_int_equal(check_with("none", "full", false, 5, "optional_branch",
	    NULL), -1);
	assert_int_equal(check_with("none", "full", false, 1, "skill", NULL), -1);
	assert_int_equal(check_with("none", "full", false, 1, "optional_branch",
	    tc_json_new_null()), 0);
	/* False == 0 == 0.0 in Python; None and "false" are not False */
	assert_int_equal(check_with("none", "full", false, 2,
	    "derived_family_rebase", tc_json_new_int(0)), 0);
	assert_int_equal(check_with("none", "full", false, 2,
	    "derived_family_rebase", tc_json_new_float(0.0)), 0);
	assert_int_equal(check_with("none", "full", false, 2,
	    "derived_family_rebase", tc_json_new_null()), -1);
	assert_int_equal(check_with("none", "full", false, 2,
	    "derived_family_rebase", tc_json_new_string("false")), -1);
	assert_int_equal(check_with("both", "full", true, 6,
	    "derived_family_rebase", tc_json_new_int(1)), 0);
	assert_int_equal(check_with("both", "full", true, 6,
	    "derived_family_rebase", tc_json_new_bool(false)), -1);
	/* the keys it does not compare */
	assert_int_equal(check_with("none", "full", false, 3, "state",
	    tc_json_new_string("sealed")), 0);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_every_schedule_of_the_table),
		cmocka_unit_test(test_steps_carry_the_phase_agent_and_skill),
		cmocka_unit_test(test_refused_combinations),
		cmocka_unit_test(test_derived_base_is_inserted_after_multistream),
		cmocka_unit_test(test_step_ids),
		cmocka_unit_test(test_schedule_check_compares_as_python_does),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
