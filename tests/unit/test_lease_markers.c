/*
 * test_lease_markers.c - device id lists, the three parent-lease markers
 * (parent_lease_held, lease_environment), explicit environments and the
 * lease timestamps.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "tunectl/buf.h"
#include "tunectl/json.h"
#include "tunectl/lease.h"

static const long ids01[] = { 0, 1 };

static void
test_ids_are_sorted_and_checked(void **state)
{
	const long unsorted[] = { 3, 0, 2 }, dup[] = { 1, 1 }, neg[] = { -1 };
	tc_error err = TC_ERROR_INIT;
	long *out = NULL;
	char *joined;

	(void)state;
	assert_int_equal(tc_lease_ids_canonical(unsorted, 3, &out, &err), 0);
	joined = tc_lease_ids_join(out, 3);
	assert_string_equal(joined, "0,2,3");
	free(joined);
	free(out);
	assert_int_equal(tc_lease_ids_canonical(dup, 2, &out, &err), -1);
	assert_string_equal(tc_error_msg(&err),
	    "device_ids must be sorted unique non-negative integers");
	assert_int_equal(tc_lease_ids_canonical(neg, 1, &out, &err), -1);
	assert_int_equal(tc_lease_ids_canonical(ids01, 0, &out, &err), -1);
	assert_null(out);
	tc_error_clear(&err);
}

static void
test_no_markers_means_no_parent_lease(void **state)
{
	char *env[] = { (char *)"PATH=/bin", NULL };
	tc_error err = TC_ERROR_INIT;

	(void)state;
	assert_int_equal(tc_lease_parent_held(ids01, 2, "/l", env, &err), 0);
	assert_int_equal(tc_lease_parent_held(ids01, 2, "/l", NULL, &err), 0);
}

static void
test_exact_markers_are_an_inherited_lease(void **state)
{
	char *env[] = { (char *)"SUPERKERNEL_DEVICE_LEASE_HELD=1",
	    (char *)"SUPERKERNEL_DEVICE_IDS=0,1",
	    (char *)"SUPERKERNEL_DEVICE_LEASE_ROOT=/l", NULL };
	tc_error err = TC_ERROR_INIT;

	(void)state;
	assert_int_equal(tc_lease_parent_held(ids01, 2, "/l", env, &err), 1);
}

static void
test_some_markers_are_incomplete(void **state)
{
	char *env[] = { (char *)"SUPERKERNEL_DEVICE_IDS=0,1",
	    (char *)"SUPERKERNEL_DEVICE_LEASE_ROOT=/l", NULL };
	tc_error err = TC_ERROR_INIT;

	(void)state;
	assert_int_equal(tc_lease_parent_held(ids01, 2, "/l", env, &err), -1);
	assert_string_equal(tc_error_msg(&err),
	    "parent device lease markers are incomplete");
	tc_error_clear(&err);
}

static void
test_each_mismatching_marker_is_named(void **state)
{
	static const char *const cases[][4] = {
		{ "2", "0,1", "/l", "SUPERKERNEL_DEVICE_LEASE_HELD" },
		{ "1", "0", "/l", "SUPERKERNEL_DEVICE_IDS" },
		{ "1", "0, 1", "/l", "SUPERKERNEL_DEVICE_IDS" },
		{ "1", "0,1", "/l/", "SUPERKERNEL_DEVICE_LEASE_ROOT" },
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		tc_error err = TC_ERROR_INIT;
		char *env[4];
		char *want = tc_xasprintf("parent device lease marker mismatch: "
		    "%s", cases[i][3]);

		env[0] = tc_xasprintf("SUPERKERNEL_DEVICE_LEASE_HELD=%s",
		    cases[i][0]);
		env[1] = tc_xasprintf("SUPERKERNEL_DEVICE_IDS=%s", cases[i][1]);
		env[2] = tc_xasprintf("SUPERKERNEL_DEVICE_LEASE_ROOT=%s",
		    cases[i][2]);
		env[3] = NULL;
		assert_int_equal(tc_lease_parent_held(ids01, 2, "/l", env, &err),
		    -1);
		assert_string_equal(tc_error_msg(&err), want);
		tc_error_clear(&err);
		free(want);
		free(env[0]);
		free(env[1]);
		free(env[2]);
	}
}

static void
test_child_environment_carries_the_markers(void **state)
{
	char *env[] = { (char *)"PATH=/bin", (char *)"HOME=/h", NULL };
	tc_error err = TC_ERROR_INIT;
	char **child = tc_lease_environment(env, ids01, 2, "/l", &err);
	size_t n = 0;

	(void)state;
	assert_non_null(child);
	while (child[n] != NULL)
		n++;
	assert_int_equal(n, 5);
	assert_string_equal(tc_envp_get(child, "PATH"), "/bin");
	assert_string_equal(tc_envp_get(child, "SUPERKERNEL_DEVICE_LEASE_HELD"),
	    "1");
	assert_string_equal(tc_envp_get(child, "SUPERKERNEL_DEVICE_IDS"), "0,1");
	assert_string_equal(tc_envp_get(child, "SUPERKERNEL_DEVICE_LEASE_ROOT"),
	    "/l");
	tc_envp_free(child);
}

static void
test_child_environment_keeps_exact_markers_once(void **state)
{
	char *env[] = { (char *)"SUPERKERNEL_DEVICE_LEASE_HELD=1",
	    (char *)"SUPERKERNEL_DEVICE_IDS=0,1",
	    (char *)"SUPERKERNEL_DEVICE_LEASE_ROOT=/l", NULL };
	tc_error err = TC_ERROR_INIT;
	char **child = tc_lease_environment(env, ids01, 2, "/l", &err);
	size_t n = 0;

	(void)state;
	assert_non_null(child);
	while (child[n] != NULL)
		n++;
	assert_int_equal(n, 3);
	tc_envp_free(child);
}

static void
test_child_environment_refuses_partial_markers(void **state)
{
	char *env[] = { (char *)"SUPERKERNEL_DEVICE_LEASE_HELD=1", NULL };
	tc_error err = TC_ERROR_INIT;

	(void)state;
	assert_null(tc_lease_environment(env, ids01, 2, "/l", &err));
	assert_string_equal(tc_error_msg(&err),
	    "device lease environment contains partial parent markers");
	tc_error_clear(&err);
}

static void
test_child_environment_refuses_conflicting_markers(void **state)
{
	char *env[] = { (char *)"SUPERKERNEL_DEVICE_LEASE_HELD=1",
	    (char *)"SUPERKERNEL_DEVICE_IDS=0,1",
	    (char *)"SUPERKERNEL_DEVICE_LEASE_ROOT=/other", NULL };
	tc_error err = TC_ERROR_INIT;

	(void)state;
	assert_null(tc_lease_environment(env, ids01, 2, "/l", &err));
	assert_string_equal(tc_error_msg(&err), "device lease environment "
	    "conflicts with SUPERKERNEL_DEVICE_LEASE_ROOT");
	tc_error_clear(&err);
}

static char *
env_error(const char *json)
{
	tc_error err = TC_ERROR_INIT;
	tc_json *doc = tc_json_parse(json, strlen(json), &err);
	char **env;
	char *msg;

	assert_non_null(doc);
	env = tc_lease_env_from_json(doc, &err);
	tc_json_free(doc);
	if (env != NULL) {
		tc_envp_free(env);
		return NULL;
	}
	msg = tc_xstrdup(tc_error_msg(&err));
	tc_error_clear(&err);
	return msg;
}

static void
test_explicit_environment_refuses_secret_looking_names(void **state)
{
	static const char *const names[] = {
		"GITHUB_TOKEN", "db_password", "MY_PASSWD", "AWS_SECRET_X",
		"PRIVATE_KEY_PATH", "CREDENTIALS", "OPENAI_API_KEY",
		"AWS_ACCESS_KEY_ID", "HTTP_AUTHORIZATION", "Cookie"
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		char *json = tc_xasprintf("{\"%s\": \"v\"}", names[i]);
		char *want = tc_xasprintf("command environment variable looks "
		    "like a secret and is refused: '%s'", names[i]);
		char *msg = env_error(json);

		assert_non_null(msg);
		assert_string_equal(msg, want);
		free(msg);
		free(want);
		free(json);
	}
}

static void
test_explicit_environment_checks_names_and_values(void **state)
{
	char *msg;

	(void)state;
	msg = env_error("{\"A-B\": \"v\"}");
	assert_string_equal(msg, "command environment variable name is "
	    "invalid: 'A-B'");
	free(msg);
	msg = env_error("{\"\": \"v\"}");
	assert_string_equal(msg, "command environment variable name is "
	    "invalid: ''");
	free(msg);
	msg = env_error("{\"A\": null}");
	assert_string_equal(msg, "command environment value must be a string "
	    "without NUL: 'A'");
	free(msg);
	msg = env_error("{\"A\": \"x\\u0000\"}");
	assert_non_null(msg);
	free(msg);
	msg = env_error("[]");
	assert_string_equal(msg, "command environment must be a JSON object");
	free(msg);
}

static void
test_explicit_environment_is_sorted(void **state)
{
	const char *json = "{\"b\": \"2\", \"_a\": \"1\", \"A\": \"0\"}";
	tc_error err = TC_ERROR_INIT;
	tc_json *doc = tc_json_parse(json, strlen(json), &err);
	char **env = tc_lease_env_from_json(doc, &err);

	(void)state;
	assert_non_null(env);
	assert_string_equal(env[0], "A=0");
	assert_string_equal(env[1], "_a=1");
	assert_string_equal(env[2], "b=2");
	assert_null(env[3]);
	tc_envp_free(env);
	tc_json_free(doc);
}

static void
test_timestamps_are_utc_with_z(void **state)
{
	char ts[40];

	(void)state;
	tc_lease_timestamp(ts);
	assert_int_equal(ts[4], '-');
	assert_int_equal(ts[10], 'T');
	assert_int_equal(ts[strlen(ts) - 1], 'Z');
	assert_true(strlen(ts) == 20 || strlen(ts) == 27);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ids_are_sorted_and_checked),
		cmocka_unit_test(test_no_markers_means_no_parent_lease),
		cmocka_unit_test(test_exact_markers_are_an_inherited_lease),
		cmocka_unit_test(test_some_markers_are_incomplete),
		cmocka_unit_test(test_each_mismatching_marker_is_named),
		cmocka_unit_test(test_child_environment_carries_the_markers),
		cmocka_unit_test(test_child_environment_keeps_exact_markers_once),
		cmocka_unit_test(test_child_environment_refuses_partial_markers),
		cmocka_unit_test(test_child_environment_refuses_conflicting_markers),
		cmocka_unit_test(test_explicit_environment_refuses_secret_looking_names),
		cmocka_unit_test(test_explicit_environment_checks_names_and_values),
		cmocka_unit_test(test_explicit_environment_is_sorted),
		cmocka_unit_test(test_timestamps_are_utc_with_z),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
