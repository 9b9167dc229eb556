/*
 * test_lease_acquire.c - device locks: one file per device, ascending
 * order, the informational holder record, the single deadline and its
 * message, release of earlier locks on timeout, stale queue tickets,
 * refusing a symlinked lock file, and lease status.
 */
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "tunectl/buf.h"
#include "tunectl/fileio.h"
#include "tunectl/json.h"
#include "tunectl/lease.h"
#include "unit_fixture.h"

struct fx {
	char *dir;
	char *root;
};

static int
fx_setup(void **state)
{
	struct fx *f = tc_xcalloc(1, sizeof(*f));

	f->dir = unit_tmpdir("lease");
	f->root = tc_xasprintf("%s/leases", f->dir);
	*state = f;
	return 0;
}

static int
fx_teardown(void **state)
{
	struct fx *f = *state;
	int rc = unit_rmtree(f->dir);

	free(f->root);
	free(f->dir);
	free(f);
	return rc == 0 ? 0 : -1;
}

/* Lock a device's file through a separate open file description, as
 * another process would. */
static int
hold_device(const char *root, long id)
{
	char *path = tc_lease_lock_path(root, id);
	int fd;

	assert_int_equal(tc_mkdirs(root, NULL), 0);
	fd = open(path, O_RDWR | O_CREAT, 0666);
	assert_true(fd >= 0);
	assert_int_equal(flock(fd, LOCK_EX | LOCK_NB), 0);
	free(path);
	return fd;
}

static bool
device_free(const char *root, long id)
{
	char *path = tc_lease_lock_path(root, id);
	int fd = open(path, O_RDONLY);
	bool free_now = fd >= 0 && flock(fd, LOCK_EX | LOCK_NB) == 0;

	if (fd >= 0)
		close(fd);
	free(path);
	return free_now;
}

static void
test_acquire_locks_each_device_in_ascending_order(void **state)
{
	struct fx *f = *state;
	const long ids[] = { 0, 3 };
	tc_lease_hold hold = TC_LEASE_HOLD_INIT;
	tc_error err = TC_ERROR_INIT;
	char *path, *text;

	assert_int_equal(tc_lease_acquire(f->root, ids, 2, 5, "cmd:x", &hold,
	    &err), TC_LEASE_ACQUIRED);
	assert_int_equal(hold.len, 2);
	assert_int_equal(hold.locks[0].device_id, 0);
	assert_int_equal(hold.locks[1].device_id, 3);
	assert_true(strcmp(hold.locks[0].acquired_at,
	    hold.locks[1].acquired_at) <= 0);
	assert_false(device_free(f->root, 0));
	assert_false(device_free(f->root, 3));
	path = tc_lease_lock_path(f->root, 3);
	text = tc_read_file(path, 0, NULL, &err);
	assert_non_null(text);
	{
		char *want = tc_xasprintf("{\"pid\": %ld, \"device_id\": 3, "
		    "\"acquired_at\": \"%s\", \"command_id\": \"cmd:x\"}",
		    (long)getpid(), hold.locks[1].acquired_at);

		assert_string_equal(text, want);
		free(want);
	}
	free(text);
	free(path);
	tc_lease_release(&hold);
	assert_true(device_free(f->root, 0));
	assert_true(device_free(f->root, 3));
}

static void
test_timeout_names_the_device_and_releases_earlier_locks(void **state)
{
	struct fx *f = *state;
	const long ids[] = { 0, 1 };
	tc_lease_hold hold = TC_LEASE_HOLD_INIT;
	tc_error err = TC_ERROR_INIT;
	int other = hold_device(f->root, 1);

	assert_int_equal(tc_lease_acquire(f->root, ids, 2, 0.2, NULL, &hold,
	    &err), TC_LEASE_TIMEOUT);
	assert_string_equal(tc_error_msg(&err),
	    "timed out acquiring NPU device lease 1");
	assert_int_equal(hold.timed_out_device, 1);
	assert_int_equal(hold.len, 0);
	assert_true(device_free(f->root, 0));
	close(other);
	tc_error_clear(&err);
}

static void
test_a_free_device_is_taken_even_with_a_tiny_timeout(void **state)
{
	struct fx *f = *state;
	const long ids[] = { 2 };
	tc_lease_hold hold = TC_LEASE_HOLD_INIT;
	tc_error err = TC_ERROR_INIT;

	assert_int_equal(tc_lease_acquire(f->root, ids, 1, 1e-9, NULL, &hold,
	    &err), TC_LEASE_ACQUIRED);
	tc_lease_release(&hold);
}

static void
test_stale_ticket_of_a_dead_waiter_is_removed(void **state)
{
	struct fx *f = *state;
	const long ids[] = { 0 };
	tc_lease_hold hold = TC_LEASE_HOLD_INIT;
	tc_error err = TC_ERROR_INIT;
	char *queue = tc_xasprintf("%s/npu-device-0.queue", f->root);
	char *ticket = tc_xasprintf("%s/00000000000000000007", queue);

	assert_int_equal(tc_mkdirs(queue, NULL), 0);
	assert_int_equal(tc_write_atomic(ticket, "", 0, 0, NULL), 0);
	assert_int_equal(tc_lease_acquire(f->root, ids, 1, 5, NULL, &hold,
	    &err), TC_LEASE_ACQUIRED);
	assert_false(tc_path_exists(ticket));
	tc_lease_release(&hold);
	free(ticket);
	free(queue);
}

static void
test_symlinked_lock_file_is_refused(void **state)
{
	struct fx *f = *state;
	const long ids[] = { 0 };
	tc_lease_hold hold = TC_LEASE_HOLD_INIT;
	tc_error err = TC_ERROR_INIT;
	char *target = tc_xasprintf("%s/elsewhere", f->dir);
	char *lock = tc_lease_lock_path(f->root, 0);

	assert_int_equal(tc_mkdirs(f->root, NULL), 0);
	assert_int_equal(symlink(target, lock), 0);
	assert_int_equal(tc_lease_acquire(f->root, ids, 1, 1, NULL, &hold,
	    &err), TC_LEASE_LOCK_ERROR);
	assert_non_null(strstr(tc_error_msg(&err), "is a symbolic link, not a "
	    "regular file"));
	assert_false(tc_path_exists(target));
	tc_error_clear(&err);
	free(lock);
	free(target);
}

static void
test_status_reports_held_and_free_devices(void **state)
{
	struct fx *f = *state;
	const long ids[] = { 1 };
	tc_lease_hold hold = TC_LEASE_HOLD_INIT;
	tc_error err = TC_ERROR_INIT;
	tc_json *st, *devs;
	int other = hold_device(f->root, 0);

	close(other);	/* device 0 exists and is free */
	assert_int_equal(tc_lease_acquire(f->root, ids, 1, 5, "job-7", &hold,
	    &err), TC_LEASE_ACQUIRED);
	st = tc_lease_status(f->root, &err);
	assert_non_null(st);
	devs = tc_json_get_array(st, "devices");
	assert_int_equal(devs->u.arr.len, 2);
	assert_string_equal(tc_json_get_string(devs->u.arr.items[0], "state"),
	    "free");
	assert_string_equal(tc_json_get_string(devs->u.arr.items[1], "state"),
	    "held");
	assert_string_equal(tc_json_get_string(tc_json_get(devs->u.arr.items[1],
	    "holder"), "command_id"), "job-7");
	assert_int_equal(tc_json_get_array(st, "held")->u.arr.len, 1);
	assert_int_equal(tc_json_get_array(st, "free")->u.arr.len, 1);
	tc_json_free(st);
	tc_lease_release(&hold);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(
		    test_acquire_locks_each_device_in_ascending_order,
		    fx_setup, fx_teardown),
		cmocka_unit_test_setup_teardown(
		    test_timeout_names_the_device_and_releases_earlier_locks,
		    fx_setup, fx_teardown),
		cmocka_unit_test_setup_teardown(
		    test_a_free_device_is_taken_even_with_a_tiny_timeout,
		    fx_setup, fx_teardown),
		cmocka_unit_test_setup_teardown(
		    test_stale_ticket_of_a_dead_waiter_is_removed,
		    fx_setup, fx_teardown),
		cmocka_unit_test_setup_teardown(
		    test_symlinked_lock_file_is_refused, fx_setup, fx_teardown),
		cmocka_unit_test_setup_teardown(
		    test_status_reports_held_and_free_devices, fx_setup,
		    fx_teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
