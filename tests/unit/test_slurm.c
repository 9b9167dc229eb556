/*
 * test_slurm.c - reading what Slurm prints (no cluster needed): GRES
 * requests, device index lists, GRES allocations with indices and
 * "scontrol -o" fields; and the in-job step refusing to run outside a
 * Slurm job.  The cluster tests are tests/cli/test_slurm.sh.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "tunectl/buf.h"
#include "tunectl/slurm.h"
#include "unit_fixture.h"

static void
expect_ids(const long *got, size_t n, const long *want, size_t wn)
{
	size_t i;

	assert_int_equal(n, wn);
	for (i = 0; i < n; i++)
		assert_int_equal(got[i], want[i]);
}

static void
test_gres_requests_name_type_and_count(void **state)
{
	tc_error err = TC_ERROR_INIT;
	char *name, *type;
	long count;

	(void)state;
	assert_int_equal(tc_slurm_gres_parse("gpu:2", &name, &type, &count,
	    &err), 0);
	assert_string_equal(name, "gpu");
	assert_null(type);
	assert_int_equal(count, 2);
	free(name);
	assert_int_equal(tc_slurm_gres_parse("gres:npu:a910b:8", &name, &type,
	    &count, &err), 0);
	assert_string_equal(name, "npu");
	assert_string_equal(type, "a910b");
	assert_int_equal(count, 8);
	free(name);
	free(type);
}

static void
test_malformed_gres_is_refused_with_the_value(void **state)
{
	static const char *const bad[] = {
		"gpu", "gpu:", "gpu:0", "gpu:-1", ":2", "gpu:x", "gpu:2x",
		"gpu:a:b:2", "1gpu:2", "gpu:2,npu:1", ""
	};
	tc_error err = TC_ERROR_INIT;
	char *name, *type;
	long count;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		assert_int_equal(tc_slurm_gres_parse(bad[i], &name, &type,
		    &count, &err), -1);
		assert_null(name);
	}
	assert_int_equal(tc_slurm_gres_parse("gpu", &name, &type, &count,
	    &err), -1);
	assert_string_equal(tc_error_msg(&err), "invalid --gres value: 'gpu' "
	    "(expected NAME[:TYPE]:COUNT, e.g. gpu:2)");
	tc_error_clear(&err);
}

static void
test_index_lists_expand_ranges_sorted_unique(void **state)
{
	static const long want[] = { 0, 1, 3, 5, 6, 7 };
	long *ids;
	size_t n;

	(void)state;
	assert_int_equal(tc_slurm_ids_parse("5-7,3,0-1,6", &ids, &n), 0);
	expect_ids(ids, n, want, 6);
	free(ids);
	assert_int_equal(tc_slurm_ids_parse("", &ids, &n), -1);
	assert_int_equal(tc_slurm_ids_parse("1,", &ids, &n), -1);
	assert_int_equal(tc_slurm_ids_parse("3-1", &ids, &n), -1);
	assert_int_equal(tc_slurm_ids_parse("a", &ids, &n), -1);
	assert_int_equal(tc_slurm_ids_parse("0,,1", &ids, &n), -1);
}

static void
test_allocation_indices_are_found_per_gres_name(void **state)
{
	static const long npu[] = { 0, 1 }, gpu[] = { 0, 2 };
	const char *alloc = "npu:2(IDX:0-1),gpu:a100:2(IDX:0,2)";
	long *ids;
	size_t n;

	(void)state;
	assert_int_equal(tc_slurm_gres_idx(alloc, "npu", &ids, &n), 0);
	expect_ids(ids, n, npu, 2);
	free(ids);
	assert_int_equal(tc_slurm_gres_idx(alloc, "gpu", &ids, &n), 0);
	expect_ids(ids, n, gpu, 2);
	free(ids);
	assert_int_equal(tc_slurm_gres_idx(alloc, "mps", &ids, &n), 1);
	assert_int_equal(tc_slurm_gres_idx(alloc, "gp", &ids, &n), 1);
	assert_int_equal(tc_slurm_gres_idx("gpu:1", "gpu", &ids, &n), -1);
	assert_int_equal(tc_slurm_gres_idx(NULL, "gpu", &ids, &n), 1);
}

static void
test_scontrol_fields_are_whole_keys(void **state)
{
	const char *line = "JobId=7 JobName=tunectl:x JOB_GRES=gpu:1 "
	    "Nodes=vm CPU_IDs=0 Mem=0 GRES=gpu:1(IDX:1) JobState=RUNNING";
	char *v;

	(void)state;
	v = tc_slurm_field(line, "GRES");
	assert_string_equal(v, "gpu:1(IDX:1)");
	free(v);
	v = tc_slurm_field(line, "JobId");
	assert_string_equal(v, "7");
	free(v);
	v = tc_slurm_field(line, "JobState");
	assert_string_equal(v, "RUNNING");
	free(v);
	assert_null(tc_slurm_field(line, "State"));
	assert_null(tc_slurm_field(line, "Reason"));
}

static void
test_the_step_refuses_to_run_outside_a_job(void **state)
{
	char *dir = unit_tmpdir("slurm-unit"), *spec, *err_path;
	tc_error err = TC_ERROR_INIT;
	FILE *f;

	(void)state;
	spec = tc_xasprintf("%s/spec.json", dir);
	err_path = tc_xasprintf("%s/step-error.json", dir);
	f = fopen(spec, "w");
	assert_non_null(f);
	fprintf(f, "{\"schema_version\": \"%s\", \"argv\": [\"/bin/true\"], "
	    "\"stage\": \"%s\", \"gres_name\": \"gpu\", \"gres_count\": 1, "
	    "\"timeout_seconds\": 5, \"grace_seconds\": 5, "
	    "\"lease_timeout_seconds\": 5, \"cwd\": \"/\", "
	    "\"lease_root\": \"%s/l\", \"command_id\": \"x\", "
	    "\"environment\": null}", TC_SLURM_STEP_SCHEMA, dir, dir);
	fclose(f);
	unsetenv("SLURM_JOB_ID");
	assert_int_equal(tc_slurm_step_run(spec, &err), -1);
	assert_string_equal(tc_error_msg(&err), "tunectl lease slurm-step runs "
	    "inside a Slurm job (SLURM_JOB_ID is not set)");
	tc_error_clear(&err);
	/* The submitter learns why from the stage directory. */
	assert_int_equal(access(err_path, F_OK), 0);
	assert_int_equal(unit_rmtree(dir), 0);
	free(dir);
	free(spec);
	free(err_path);
}

static void
test_a_spec_of_another_schema_is_refused(void **state)
{
	char *dir = unit_tmpdir("slurm-unit"), *spec;
	tc_error err = TC_ERROR_INIT;
	FILE *f;

	(void)state;
	spec = tc_xasprintf("%s/spec.json", dir);
	f = fopen(spec, "w");
	assert_non_null(f);
	fputs("{\"schema_version\": \"other\", \"argv\": [\"/bin/true\"]}", f);
	fclose(f);
	assert_int_equal(tc_slurm_step_run(spec, &err), -1);
	assert_non_null(strstr(tc_error_msg(&err), "not a tunectl-slurm-step-v1 "
	    "step spec"));
	tc_error_clear(&err);
	assert_int_equal(unit_rmtree(dir), 0);
	free(dir);
	free(spec);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_gres_requests_name_type_and_count),
		cmocka_unit_test(test_malformed_gres_is_refused_with_the_value),
		cmocka_unit_test(test_index_lists_expand_ranges_sorted_unique),
		cmocka_unit_test(test_allocation_indices_are_found_per_gres_name),
		cmocka_unit_test(test_scontrol_fields_are_whole_keys),
		cmocka_unit_test(test_the_step_refuses_to_run_outside_a_job),
		cmocka_unit_test(test_a_spec_of_another_schema_is_refused),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
