/*
 * test_sidecar_states.c - what the sidecar of a reference-policy session
 * says follows the session as it reads at each question, within one
 * process: sidecar.c works out the state of its records once and keeps
 * it while the session's steps read the same, so these tests change a
 * step in memory between two questions (a result digest that is no
 * longer the bound one, a step no longer sealed, one sealed again) and
 * expect the answer to change with it.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <cmocka.h>

#include "tunectl/evidence.h"
#include "tunectl/fileio.h"
#include "tunectl/path.h"
#include "test_session_fixture.h"

#define DIGEST_A "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
#define DIGEST_B "bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb"

struct fx {
	char *dir;
	tc_session *s;
};

/* A record of the chain after records (seq, prev_sha256 and the
 * session's identity filled in); a seal record binds step_id. */
static tc_json *
record(const tc_json *records, const tc_json *doc, const char *kind,
    const char *step_id)
{
	tc_json *r = tc_json_new_object(), *ms, *m;
	size_t n = records->u.arr.len;
	char prev[65];

	tc_json_object_set_int(r, "seq", (int64_t)n);
	if (n == 0) {
		tc_json_object_set(r, "prev_sha256", tc_json_new_null());
	} else {
		assert_int_equal(tc_json_digest(records->u.arr.items[n - 1],
		    prev, NULL), 0);
		tc_json_object_set_string(r, "prev_sha256", prev);
	}
	tc_json_object_set_string(r, "kind", kind);
	tc_json_object_set(r, "session_id",
	    tc_json_clone(tc_json_get(doc, "session_id")));
	tc_json_object_set(r, "created_at",
	    tc_json_clone(tc_json_get(doc, "created_at")));
	tc_json_object_set(r, "session_sha256", tc_json_new_null());
	if (step_id != NULL) {
		m = tc_json_new_object();
		tc_json_object_set_string(m, "schema_version",
		    TC_MANIFEST_SCHEMA);
		tc_json_object_set_string(m, "step_id", step_id);
		tc_json_object_set_string(m, "result_sha256", DIGEST_A);
		tc_json_object_set(m, "artifacts", tc_json_new_array());
		ms = tc_json_new_array();
		tc_json_array_push(ms, m);
		tc_json_object_set(r, "manifests", ms);
	}
	return r;
}

/* A session whose first two steps are sealed (result DIGEST_A), and a
 * sidecar binding both seals after its init record. */
static int
setup(void **state)
{
	struct fx *f = tc_xcalloc(1, sizeof(*f));
	tc_json *doc, *sidecar, *records, *steps;
	char *session_path, *state_dir, *sc_path;
	tc_error err = TC_ERROR_INIT;

	f->dir = fx_tmpdir();
	state_dir = tc_path_join(f->dir, "state");
	setenv("TUNECTL_STATE_DIR", state_dir, 1);
	doc = fx_session("none", "full", f->dir);
	fx_mark_sealed(doc, 0, "completed");
	fx_mark_sealed(doc, 1, "completed");
	steps = tc_json_get(doc, "steps");
	session_path = tc_path_join(f->dir, "auto-tune-session.json");
	assert_int_equal(tc_write_json(session_path, doc, 0, &err), 0);
	records = tc_json_new_array();
	tc_json_array_push(records, record(records, doc, "init", NULL));
	tc_json_array_push(records, record(records, doc, "seal",
	    tc_step_id(steps->u.arr.items[0])));
	tc_json_array_push(records, record(records, doc, "seal",
	    tc_step_id(steps->u.arr.items[1])));
	sidecar = tc_json_new_object();
	tc_json_object_set_string(sidecar, "schema_version", TC_SIDECAR_SCHEMA);
	tc_json_object_set(sidecar, "records", records);
	sc_path = tc_sidecar_path(session_path);
	assert_non_null(sc_path);
	assert_int_equal(tc_write_json(sc_path, sidecar, TC_WRITE_MKDIRS, &err),
	    0);
	f->s = tc_session_wrap(doc, session_path);
	tc_json_free(sidecar);
	free(sc_path);
	free(session_path);
	free(state_dir);
	*state = f;
	return 0;
}

static int
teardown(void **state)
{
	struct fx *f = *state;

	tc_session_free(f->s);
	fx_rmtree(f->dir);
	unsetenv("TUNECTL_STATE_DIR");
	free(f);
	return 0;
}

static tc_json *
step_at(const struct fx *f, size_t i)
{
	return f->s->steps->u.arr.items[i];
}

/* tc_sidecar_check's verdict; *msg gets its message (or ""). */
static int
checked(const struct fx *f, char *msg, size_t cap)
{
	tc_error err = TC_ERROR_INIT;
	int rc = tc_sidecar_check(f->s, &err);

	snprintf(msg, cap, "%s", rc != 0 ? tc_error_msg(&err) : "");
	tc_error_clear(&err);
	return rc;
}

static void
a_changed_result_digest_is_caught_at_the_next_question(void **state)
{
	struct fx *f = *state;
	const char *id0 = tc_step_id(step_at(f, 0));
	char msg[1024];

	assert_int_equal(checked(f, msg, sizeof(msg)), 0);
	assert_non_null(tc_sidecar_manifest(f->s, id0));
	tc_json_object_set_string(step_at(f, 0), "result_sha256", DIGEST_B);
	assert_int_equal(checked(f, msg, sizeof(msg)), -1);
	assert_non_null(strstr(msg, "does not belong to the sealed result"));
	assert_non_null(strstr(msg, id0));
	assert_null(tc_sidecar_manifest(f->s, id0));
	/* and back: the same digest binds again */
	tc_json_object_set_string(step_at(f, 0), "result_sha256", DIGEST_A);
	assert_int_equal(checked(f, msg, sizeof(msg)), 0);
	assert_non_null(tc_sidecar_manifest(f->s, id0));
}

static void
an_unsealed_step_is_caught_at_the_next_question(void **state)
{
	struct fx *f = *state;
	const char *id0 = tc_step_id(step_at(f, 0));
	const char *id1 = tc_step_id(step_at(f, 1));
	char msg[1024];

	assert_int_equal(checked(f, msg, sizeof(msg)), 0);
	assert_null(tc_sidecar_intent(f->s));
	/* the last record's step pending: an interrupted seal */
	tc_json_object_set_string(step_at(f, 1), "state", "pending");
	assert_int_equal(checked(f, msg, sizeof(msg)), 0);
	assert_null(tc_sidecar_manifest(f->s, id1));
	assert_non_null(tc_sidecar_intent(f->s));
	assert_string_equal(tc_json_get_string(tc_sidecar_intent(f->s),
	    "step_id"), id1);
	/* an earlier record's step pending: refused */
	tc_json_object_set_string(step_at(f, 0), "state", "pending");
	assert_int_equal(checked(f, msg, sizeof(msg)), -1);
	assert_non_null(strstr(msg, "that the session does not show"));
	assert_non_null(strstr(msg, id0));
	/* sealed again: both bind */
	tc_json_object_set_string(step_at(f, 0), "state", "sealed");
	tc_json_object_set_string(step_at(f, 1), "state", "sealed");
	assert_int_equal(checked(f, msg, sizeof(msg)), 0);
	assert_non_null(tc_sidecar_manifest(f->s, id0));
	assert_non_null(tc_sidecar_manifest(f->s, id1));
	assert_null(tc_sidecar_intent(f->s));
}

static void
a_removed_result_digest_is_caught_at_the_next_question(void **state)
{
	struct fx *f = *state;
	const char *id1 = tc_step_id(step_at(f, 1));
	char msg[1024];

	assert_non_null(tc_sidecar_manifest(f->s, id1));
	assert_true(tc_json_object_remove(step_at(f, 1), "result_sha256"));
	assert_int_equal(checked(f, msg, sizeof(msg)), -1);
	assert_non_null(strstr(msg, id1));
	assert_null(tc_sidecar_manifest(f->s, id1));
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(
		    a_changed_result_digest_is_caught_at_the_next_question,
		    setup, teardown),
		cmocka_unit_test_setup_teardown(
		    an_unsealed_step_is_caught_at_the_next_question,
		    setup, teardown),
		cmocka_unit_test_setup_teardown(
		    a_removed_result_digest_is_caught_at_the_next_question,
		    setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
