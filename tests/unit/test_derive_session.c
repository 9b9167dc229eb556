/*
 * test_derive_session.c - derive_session (docs/spec/controller.md
 * "Derivation preconditions") through the library: what a derivation writes
 * (manifest docs/spec/controller.md "Evidence-import manifest" and session),
 * the choice of the latest accepted BASE/SMAP handoff (step 11), the mode check
 * that the CLI's argument parser hides, and that a derivation refused while
 * creating directories removes the ones it made.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <unistd.h>

#include <cmocka.h>

#include "test_derive_fixture.h"
#include "tunectl/derive.h"
#include "tunectl/path.h"
#include "tunectl/sha256.h"

static void
expect_refused(const struct tc_derive_args *a, const char *msg)
{
	tc_error err = TC_ERROR_INIT;
	tc_session *s = tc_derive_session(a, &err);

	assert_null(s);
	assert_string_equal(tc_error_msg(&err), msg);
	tc_error_clear(&err);
}

static void
test_request_checks_come_first_and_write_nothing(void **state)
{
	struct dfx *f = dfx_new();
	struct tc_derive_args a = dfx_args(f, "none");

	(void)state;
	/* no parent exists at all: the request is refused before it is read */
	a.approved = false;
	expect_refused(&a, "deriving a session requires explicit approval of "
	    "imported evidence");
	a.approved = true;
	expect_refused(&a, "derived optional_mode must be multistream, "
	    "source-range, or both");
	a.optional_mode = NULL;
	expect_refused(&a, "derived optional_mode must be multistream, "
	    "source-range, or both");
	a.optional_mode = "both";
	a.session_id = "derived\t";
	expect_refused(&a, "session_id must be a non-empty canonical string");
	a.session_id = "derived";
	assert_false(tc_path_exists(f->croot));
	dfx_free(f);
}

static void
test_derivation_writes_the_manifest_the_reference_writes(void **state)
{
	struct dfx *f = dfx_new();
	struct tc_derive_args a;
	tc_error err = TC_ERROR_INIT;
	char hex[65], fp[65], *base, *mpath;
	tc_json *m, *parent, *arts;
	tc_session *s;
	uint64_t size;

	(void)state;
	dfx_parent(f, "none", NULL);
	a = dfx_args(f, "both");
	s = tc_derive_session(&a, &err);
	if (s == NULL)
		fail_msg("derive: %s", tc_error_msg(&err));
	assert_string_equal(s->entrypoint, "optional-from-base");
	assert_string_equal(s->optional_mode, "both");
	assert_string_equal(s->status, "active");
	assert_string_equal(s->artifact_root, f->croot);
	assert_string_equal(tc_json_get_string(tc_json_get(s->doc,
	    "evidence_import"), "path"), "imports/evidence-import.json");
	mpath = tc_xasprintf("%s/imports/evidence-import.json", f->croot);
	m = tc_json_parse_file(mpath, NULL);
	assert_non_null(m);
	assert_int_equal(tc_json_digest(m, hex, NULL), 0);
	assert_string_equal(tc_json_get_string(tc_json_get(s->doc,
	    "evidence_import"), "sha256"), hex);
	assert_string_equal(tc_json_get_string(m, "schema_version"),
	    TC_EVIDENCE_IMPORT_SCHEMA);
	assert_true(tc_json_get(tc_json_get(m, "authorization"),
	    "approved")->u.b);
	assert_string_equal(tc_json_get_string(tc_json_get(m, "authorization"),
	    "source"), "explicit-user-request");
	/* parent: bytes digest and fingerprint of the file as it is */
	parent = tc_json_parse_file(f->psession, NULL);
	assert_int_equal(tc_json_digest(parent, fp, NULL), 0);
	assert_int_equal(tc_sha256_file(f->psession, hex, NULL, NULL), 0);
	assert_string_equal(tc_json_get_string(tc_json_get(m, "parent"),
	    "session_sha256"), hex);
	assert_string_equal(tc_json_get_string(tc_json_get(m, "parent"),
	    "session_fingerprint"), fp);
	assert_string_equal(tc_json_get_string(tc_json_get(m, "parent"),
	    "session_path"), "auto-tune-session.json");
	assert_string_equal(tc_json_get_string(tc_json_get(m, "parent"),
	    "artifact_root"), f->proot);
	assert_string_equal(tc_json_get_string(tc_json_get(m, "parent"),
	    "session_id"), "parent-session");
	/* base handoff: the parent's step, plus the file's byte digest */
	base = dfx_path(f, "phases/base-profile-source-mapping/phase-result.json");
	assert_int_equal(tc_sha256_file(base, hex, NULL, NULL), 0);
	assert_string_equal(tc_json_get_string(tc_json_get(m, "base_handoff"),
	    "file_sha256"), hex);
	assert_string_equal(tc_json_get_string(tc_json_get(m, "base_handoff"),
	    "step_id"), "base-profile-source-mapping");
	assert_string_equal(tc_json_get_string(tc_json_get(m, "base_handoff"),
	    "outcome_status"), "succeeded");
	assert_true(tc_json_equal(tc_json_get(tc_json_get(m, "base_handoff"),
	    "result_sha256"), tc_json_get(tc_json_get(parent,
	    "steps")->u.arr.items[4], "result_sha256")));
	assert_true(tc_json_equal(tc_json_get(tc_json_get(m, "base_handoff"),
	    "result_path"), tc_json_get(tc_json_get(parent,
	    "steps")->u.arr.items[4], "result_path")));
	/* artifacts: relative path, digest and size of each file */
	arts = tc_json_get(m, "artifacts");
	assert_int_equal(arts->u.obj.len, 3);
	assert_int_equal(tc_sha256_file(f->ledger, hex, &size, NULL), 0);
	assert_string_equal(tc_json_get_string(tc_json_get(arts, "ledger"),
	    "path"), DFX_LEDGER_REL);
	assert_string_equal(tc_json_get_string(tc_json_get(arts, "ledger"),
	    "sha256"), hex);
	{
		int64_t n = -1;

		assert_true(tc_json_int64(tc_json_get(tc_json_get(arts,
		    "ledger"), "size_bytes"), &n));
		assert_int_equal(n, (int64_t)size);
	}
	assert_string_equal(tc_json_get_string(tc_json_get(arts,
	    "profiling_analysis"), "path"), DFX_ANALYSIS_REL);
	assert_string_equal(tc_json_get_string(tc_json_get(arts,
	    "source_scope_map"), "path"), DFX_SMAP_REL);
	assert_string_equal(tc_json_get_string(tc_json_get(m, "identity"),
	    "round_id"), "Sbest-BASE");
	assert_int_equal(tc_json_get(m, "identity")->u.obj.len, 4);
	/* the session's steps: optional-from-base both */
	assert_int_equal(tc_session_step_count(s), 3);
	assert_string_equal(tc_step_id(tc_session_step_at(s, 0)),
	    "optional-multistream");
	tc_json_free(parent);
	tc_json_free(m);
	free(mpath);
	free(base);
	tc_session_free(s);
	dfx_free(f);
}

static void
test_a_later_derived_base_is_the_one_imported(void **state)
{
	static const char *const statuses[] = {
		"optional-multistream=accepted", NULL
	};
	struct dfx *f = dfx_new();
	struct tc_derive_args a;
	tc_error err = TC_ERROR_INIT;
	tc_session *s;
	tc_json *m;
	char *mpath;

	(void)state;
	dfx_parent(f, "both", statuses);
	a = dfx_args(f, "source-range");
	s = tc_derive_session(&a, &err);
	if (s == NULL)
		fail_msg("derive: %s", tc_error_msg(&err));
	mpath = tc_xasprintf("%s/imports/evidence-import.json", f->croot);
	m = tc_json_parse_file(mpath, NULL);
	assert_string_equal(tc_json_get_string(tc_json_get(m, "base_handoff"),
	    "step_id"), "base-profile-derived");
	assert_string_equal(s->entrypoint, "source-range-from-smap");
	tc_json_free(m);
	free(mpath);
	tc_session_free(s);
	dfx_free(f);
}

static void
test_accepted_multistream_without_a_later_base_is_refused(void **state)
{
	static const char *const statuses[] = {
		"optional-multistream=accepted", "base-profile-derived=blocked",
		NULL
	};
	struct dfx *f = dfx_new();
	struct tc_derive_args a;

	(void)state;
	dfx_parent(f, "both", statuses);
	a = dfx_args(f, "multistream");
	expect_refused(&a, "accepted multistream requires a later derived "
	    "BASE/SMAP handoff");
	assert_false(tc_path_exists(f->croot));
	dfx_free(f);
}

/* ---- tc_derive_latest_base on hand-made parents ----------------------- */

struct base_fx {
	char *root;
	char *result;		/* phases/base-profile-source-mapping/phase-result.json */
	tc_session *s;
};

static void
base_fx_init(struct base_fx *b, const char *mode)
{
	char *dir;

	b->root = fx_tmpdir();
	dir = tc_xasprintf("%s/phases/base-profile-source-mapping", b->root);
	assert_int_equal(tc_mkdirs(dir, NULL), 0);
	b->result = tc_xasprintf("%s/phase-result.json", dir);
	free(dir);
	b->s = tc_session_wrap(fx_session(mode, "full", b->root), "s.json");
}

static void
base_fx_free(struct base_fx *b)
{
	tc_session_free(b->s);
	free(b->result);
	fx_rmtree(b->root);
}

static void
expect_base(struct base_fx *b, const char *msg)
{
	tc_error err = TC_ERROR_INIT;
	const tc_json *step = NULL;
	tc_json *result = NULL;
	char sha[65];
	int rc = tc_derive_latest_base(b->s, b->root, &step, &result, sha, &err);

	if (msg == NULL) {
		if (rc != 0)
			fail_msg("unexpected: %s", tc_error_msg(&err));
		assert_non_null(step);
		assert_non_null(result);
	} else {
		assert_int_equal(rc, -1);
		assert_string_equal(tc_error_msg(&err), msg);
		assert_null(result);
	}
	tc_json_free(result);
	tc_error_clear(&err);
}

static void
test_latest_base_selection_and_its_result(void **state)
{
	struct base_fx b;
	char hex[65], *missing;
	tc_json *r;

	(void)state;
	base_fx_init(&b, "none");
	expect_base(&b, "parent session has no accepted BASE/SMAP handoff");
	fx_mark_sealed(b.s->doc, 4, "blocked");
	expect_base(&b, "parent session has no accepted BASE/SMAP handoff");
	fx_mark_sealed(b.s->doc, 4, "no_gain");
	missing = tc_xasprintf("BASE/SMAP phase result cannot be read: [Errno 2] "
	    "No such file or directory: '%s'", b.result);
	expect_base(&b, missing);
	free(missing);
	fx_write(b.result, "{");
	expect_base(&b, "BASE/SMAP phase result cannot be read: Expecting "
	    "property name enclosed in double quotes: line 1 column 2 (char 1)");
	fx_write(b.result, "[]");
	expect_base(&b, "BASE/SMAP phase result must be a JSON object");
	fx_write(b.result, "{\"a\": 1}");
	expect_base(&b, "BASE/SMAP phase result digest mismatch");
	r = fx_json("{\"a\": 1}");
	assert_int_equal(tc_json_digest(r, hex, NULL), 0);
	tc_json_object_set_string(tc_session_step_at(b.s, 4), "result_sha256",
	    hex);
	expect_base(&b, NULL);
	tc_json_free(r);
	base_fx_free(&b);
}

static void
test_accepted_multistream_after_the_base_needs_a_rebase(void **state)
{
	struct base_fx b;
	char *missing;

	(void)state;
	base_fx_init(&b, "both");
	fx_mark_sealed(b.s->doc, 4, "succeeded");
	fx_mark_sealed(b.s->doc, 5, "accepted");
	expect_base(&b, "accepted multistream requires a later derived "
	    "BASE/SMAP handoff");
	/* a multistream that was not accepted keeps the incumbent BASE: the
	 * selection goes on to read its result */
	fx_mark_sealed(b.s->doc, 5, "no_gain");
	missing = tc_xasprintf("BASE/SMAP phase result cannot be read: [Errno 2] "
	    "No such file or directory: '%s'", b.result);
	expect_base(&b, missing);
	free(missing);
	base_fx_free(&b);
}

/* ---- nothing left behind ----------------------------------------------- */

static void
test_a_failed_write_removes_the_directories_it_made(void **state)
{
	struct dfx *f = dfx_new();
	struct tc_derive_args a;
	tc_error err = TC_ERROR_INIT;
	char *blocker, *imports;

	(void)state;
	dfx_parent(f, "none", NULL);
	/* the child root exists; its session lives under "sub", which is a
	 * file, so creating the session's directory fails after imports/
	 * was made */
	assert_int_equal(tc_mkdirs(f->croot, NULL), 0);
	blocker = tc_xasprintf("%s/sub", f->croot);
	fx_write(blocker, "not a directory");
	a = dfx_args(f, "source-range");
	free((char *)f->csession);
	f->csession = tc_xasprintf("%s/sub/auto-tune-session.json", f->croot);
	a.session = f->csession;
	assert_null(tc_derive_session(&a, &err));
	assert_non_null(strstr(tc_error_msg(&err), "[Errno"));
	imports = tc_xasprintf("%s/imports", f->croot);
	assert_false(tc_path_exists(imports));
	assert_true(tc_is_directory(f->croot));
	free(imports);
	free(blocker);
	tc_error_clear(&err);
	dfx_free(f);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_request_checks_come_first_and_write_nothing),
		cmocka_unit_test(test_derivation_writes_the_manifest_the_reference_writes),
		cmocka_unit_test(test_a_later_derived_base_is_the_one_imported),
		cmocka_unit_test(test_accepted_multistream_without_a_later_base_is_refused),
		cmocka_unit_test(test_latest_base_selection_and_its_result),
		cmocka_unit_test(test_accepted_multistream_after_the_base_needs_a_rebase),
		cmocka_unit_test(test_a_failed_write_removes_the_directories_it_made),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
