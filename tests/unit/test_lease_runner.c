/*
 * test_lease_runner.c - run_command in process: the validation messages
 * in the reference's order with nothing written, the manifest of a
 * passing run, the fingerprint helper, and the blocked outcome of
 * invalid parent markers.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "tunectl/buf.h"
#include "tunectl/fileio.h"
#include "tunectl/json.h"
#include "tunectl/lease.h"
#include "tunectl/sha256.h"
#include "unit_fixture.h"

struct fx {
	char *dir;
	char *root;
	char *manifest;
	long ids[2];
	char *argv[3];
	tc_lease_request req;
};

static int
fx_setup(void **state)
{
	struct fx *f = tc_xcalloc(1, sizeof(*f));

	f->dir = unit_tmpdir("runner");
	f->root = tc_xasprintf("%s/leases", f->dir);
	f->manifest = tc_xasprintf("%s/out/m.json", f->dir);
	f->ids[0] = 1;
	f->ids[1] = 0;
	f->argv[0] = (char *)"/bin/true";
	f->argv[1] = NULL;
	f->req.argv = f->argv;
	f->req.lease_root = f->root;
	f->req.device_ids = f->ids;
	f->req.ndevices = 2;
	f->req.timeout_s = 10;
	f->req.cwd = f->dir;
	f->req.manifest_out = f->manifest;
	unsetenv(TC_LEASE_ENV_HELD);
	unsetenv(TC_LEASE_ENV_IDS);
	unsetenv(TC_LEASE_ENV_ROOT);
	*state = f;
	return 0;
}

static int
fx_teardown(void **state)
{
	struct fx *f = *state;
	int rc = unit_rmtree(f->dir);

	unsetenv(TC_LEASE_ENV_HELD);
	free(f->manifest);
	free(f->root);
	free(f->dir);
	free(f);
	return rc == 0 ? 0 : -1;
}

static void
expect_refusal(struct fx *f, const char *msg)
{
	tc_error err = TC_ERROR_INIT;
	tc_lease_outcome o;
	tc_json *m = NULL;

	assert_int_equal(tc_lease_run(&f->req, &m, &o, &err), TC_LEASE_EINPUT);
	assert_null(m);
	assert_string_equal(tc_error_msg(&err), msg);
	assert_false(tc_path_exists(f->root));
	assert_false(tc_path_exists(f->manifest));
	tc_error_clear(&err);
}

static void
test_validation_runs_in_the_reference_order(void **state)
{
	struct fx *f = *state;
	const long bad_ids[] = { 0, 0 };
	char *empty[] = { NULL };
	char *relative[] = { (char *)"true", NULL };

	/* Everything wrong at once: the argv message comes first. */
	f->req.argv = empty;
	f->req.device_ids = bad_ids;
	f->req.cwd = "/no/such/dir";
	f->req.timeout_s = -1;
	expect_refusal(f, "command argv must be a non-empty string array");
	f->req.argv = relative;
	expect_refusal(f, "command executable must be an existing absolute "
	    "file");
	f->req.argv = f->argv;
	expect_refusal(f, "device_ids must be sorted unique non-negative "
	    "integers");
	f->req.device_ids = f->ids;
	expect_refusal(f, "command cwd must be an existing directory");
	f->req.cwd = f->dir;
	expect_refusal(f, "lease_timeout_seconds must be positive");
	f->req.has_lease_timeout = true;
	f->req.lease_timeout_s = 1;
	expect_refusal(f, "timeout_seconds must be positive");
	f->req.timeout_s = 1;
	f->req.has_lease_timeout = false;
}

static void
test_existing_manifest_and_logs_are_refused(void **state)
{
	struct fx *f = *state;
	char *log = tc_xasprintf("%s/out/m.stdout.log", f->dir);
	char *msg = tc_xasprintf("lease command manifest already exists: %s",
	    f->manifest);
	tc_error err = TC_ERROR_INIT;
	tc_lease_outcome o;
	tc_json *m = NULL;

	assert_int_equal(tc_write_atomic(log, "", 0, TC_WRITE_MKDIRS, NULL), 0);
	assert_int_equal(tc_lease_run(&f->req, &m, &o, &err), TC_LEASE_EINPUT);
	assert_string_equal(tc_error_msg(&err),
	    "lease command log output already exists");
	assert_int_equal(tc_write_atomic(f->manifest, "{}", 2, 0, NULL), 0);
	assert_int_equal(tc_lease_run(&f->req, &m, &o, &err), TC_LEASE_EINPUT);
	assert_string_equal(tc_error_msg(&err), msg);
	assert_false(tc_path_exists(f->root));
	tc_error_clear(&err);
	free(msg);
	free(log);
}

static void
test_a_passing_run_records_the_v2_manifest(void **state)
{
	struct fx *f = *state;
	tc_error err = TC_ERROR_INIT;
	tc_lease_outcome o;
	tc_json *m = NULL, *disk;
	char fp[72];

	assert_int_equal(tc_lease_run(&f->req, &m, &o, &err), 0);
	assert_int_equal(o, TC_LEASE_PASSED);
	assert_string_equal(tc_json_get_string(m, "schema_version"),
	    TC_LEASE_COMMAND_SCHEMA);
	assert_string_equal(tc_json_get_string(m, "status"), "passed");
	assert_string_equal(tc_json_get_string(m, "command_id"),
	    "parent-command");
	assert_string_equal(tc_json_get_string(m, "lease_mode"), "acquired");
	assert_int_equal(tc_json_get_array(m, "device_ids")->u.arr.len, 2);
	assert_true(tc_json_is(tc_json_get(m, "reason"), TC_JSON_NULL));
	assert_int_equal(tc_lease_manifest_fingerprint(m, fp, &err), 0);
	assert_string_equal(tc_json_get_string(m, "manifest_fingerprint"), fp);
	disk = tc_json_parse_file(f->manifest, &err);
	assert_non_null(disk);
	assert_true(tc_json_equal(disk, m));
	tc_json_free(disk);
	tc_json_free(m);
}

static void
test_fingerprint_ignores_itself_and_covers_the_rest(void **state)
{
	const char *a = "{\"b\": 1, \"manifest_fingerprint\": \"x\"}";
	const char *b = "{\"b\": 1}";
	const char *c = "{\"b\": 2}";
	tc_error err = TC_ERROR_INIT;
	tc_json *ja = tc_json_parse(a, strlen(a), &err);
	tc_json *jb = tc_json_parse(b, strlen(b), &err);
	tc_json *jc = tc_json_parse(c, strlen(c), &err);
	char fa[72], fb[72], fc[72], hex[65];

	(void)state;
	assert_int_equal(tc_lease_manifest_fingerprint(ja, fa, &err), 0);
	assert_int_equal(tc_lease_manifest_fingerprint(jb, fb, &err), 0);
	assert_int_equal(tc_lease_manifest_fingerprint(jc, fc, &err), 0);
	assert_string_equal(fa, fb);
	assert_string_not_equal(fb, fc);
	tc_sha256_hex("{\"b\":1}", 7, hex);
	assert_memory_equal(fb, "sha256:", 7);
	assert_string_equal(fb + 7, hex);
	tc_json_free(ja);
	tc_json_free(jb);
	tc_json_free(jc);
}

static void
test_invalid_parent_markers_block_without_running(void **state)
{
	struct fx *f = *state;
	tc_error err = TC_ERROR_INIT;
	tc_lease_outcome o;
	tc_json *m = NULL;

	setenv(TC_LEASE_ENV_HELD, "1", 1);
	assert_int_equal(tc_lease_run(&f->req, &m, &o, &err), 0);
	assert_int_equal(o, TC_LEASE_BLOCKED);
	assert_string_equal(tc_json_get_string(m, "reason"), "parent lease "
	    "context invalid: parent device lease markers are incomplete");
	assert_true(tc_json_is(tc_json_get(m, "command"), TC_JSON_NULL));
	assert_true(tc_json_is(tc_json_get(m, "lease_mode"), TC_JSON_NULL));
	assert_false(tc_path_exists(f->root));
	tc_json_free(m);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(
		    test_validation_runs_in_the_reference_order, fx_setup,
		    fx_teardown),
		cmocka_unit_test_setup_teardown(
		    test_existing_manifest_and_logs_are_refused, fx_setup,
		    fx_teardown),
		cmocka_unit_test_setup_teardown(
		    test_a_passing_run_records_the_v2_manifest, fx_setup,
		    fx_teardown),
		cmocka_unit_test(
		    test_fingerprint_ignores_itself_and_covers_the_rest),
		cmocka_unit_test_setup_teardown(
		    test_invalid_parent_markers_block_without_running,
		    fx_setup, fx_teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
