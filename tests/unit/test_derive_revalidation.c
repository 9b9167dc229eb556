/*
 * test_derive_revalidation.c - a derived session's evidence import is
 * re-validated on every load (docs/spec/controller.md
 * "Evidence-import manifest" steps 5-10,
 * docs/spec/controller.md "Files inside the parent root"): each check is
 * triggered either by tampering with a file on disk (the next load refuses it)
 * or by editing the manifest and re-binding its digest, so that exactly that
 * check is reached.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <unistd.h>

#include <cmocka.h>

#include "test_derive_fixture.h"
#include "tunectl/derive.h"
#include "tunectl/sha256.h"

struct st {
	struct dfx *f;
	char *manifest_path;
	tc_json *doc;		/* the child session as derived */
	tc_json *manifest;	/* its manifest as derived */
};

static int
setup_mode(void **state, const char *mode)
{
	struct st *st = tc_xcalloc(1, sizeof(*st));
	struct tc_derive_args a;
	tc_error err = TC_ERROR_INIT;
	tc_session *s;

	st->f = dfx_new();
	dfx_parent(st->f, "none", NULL);
	a = dfx_args(st->f, mode);
	if (strcmp(mode, "multistream") == 0)
		a.source_scope_map = NULL;
	if ((s = tc_derive_session(&a, &err)) == NULL)
		fail_msg("derive: %s", tc_error_msg(&err));
	st->doc = tc_json_clone(s->doc);
	tc_session_free(s);
	st->manifest_path = tc_xasprintf("%s/imports/evidence-import.json",
	    st->f->croot);
	st->manifest = tc_json_parse_file(st->manifest_path, NULL);
	assert_non_null(st->manifest);
	*state = st;
	return 0;
}

static int
setup(void **state)
{
	return setup_mode(state, "source-range");
}

static int
setup_multistream(void **state)
{
	return setup_mode(state, "multistream");
}

static int
teardown(void **state)
{
	struct st *st = *state;

	tc_json_free(st->doc);
	tc_json_free(st->manifest);
	free(st->manifest_path);
	dfx_free(st->f);
	free(st);
	return 0;
}

/* The next load of the child session from disk. */
static void
expect_load(struct st *st, const char *msg)
{
	tc_error err = TC_ERROR_INIT;
	tc_session *s = NULL;
	int rc = tc_session_load(st->f->csession, 0, &s, &err);

	if (msg == NULL) {
		if (rc != 0)
			fail_msg("unexpected: %s", tc_error_msg(&err));
	} else {
		assert_int_equal(rc, -1);
		assert_string_equal(tc_error_msg(&err), msg);
	}
	tc_session_free(s);
	tc_error_clear(&err);
}

/* Edit the manifest at a slash path (NULL removes), write it, bind the
 * session to its new digest (so the digest check passes), and expect
 * msg from the next load. */
static void
expect_rebound(struct st *st, const char *path, const char *value,
    const char *msg)
{
	tc_json *m = fx_edit(tc_json_clone(st->manifest), path, value);
	tc_json *doc = tc_json_clone(st->doc);
	char hex[65];

	assert_int_equal(tc_write_json(st->manifest_path, m, 0, NULL), 0);
	assert_int_equal(tc_json_digest(m, hex, NULL), 0);
	tc_json_object_set_string(tc_json_get(doc, "evidence_import"),
	    "sha256", hex);
	assert_int_equal(tc_write_json(st->f->csession, doc, 0, NULL), 0);
	expect_load(st, msg);
	tc_json_free(m);
	tc_json_free(doc);
}

/* Change one byte of a file in place (same size). */
static void
flip_byte(const char *path)
{
	size_t len;
	char *data = tc_read_file(path, 0, &len, NULL);

	assert_non_null(data);
	assert_true(len > 20);
	data[len / 2] = data[len / 2] == 'x' ? 'y' : 'x';
	assert_int_equal(tc_write_atomic(path, data, len, 0, NULL), 0);
	free(data);
}

static char *
quoted(const char *s)
{
	return tc_xasprintf("\"%s\"", s);
}

static void
test_a_fresh_derived_session_loads(void **state)
{
	expect_load(*state, NULL);
}

static void
test_tampered_parent_session_is_refused(void **state)
{
	struct st *st = *state;

	flip_byte(st->f->psession);
	expect_load(st, "imported parent session digest mismatch");
}

static void
test_tampered_base_result_is_refused(void **state)
{
	struct st *st = *state;
	char *base = dfx_path(st->f,
	    "phases/base-profile-source-mapping/phase-result.json");

	flip_byte(base);
	expect_load(st, "imported BASE/SMAP result digest mismatch");
	free(base);
}

static void
test_each_tampered_artifact_is_refused(void **state)
{
	struct st *st = *state;
	const char *files[] = { st->f->analysis, st->f->ledger, st->f->smap };
	const char *msgs[] = {
		"imported artifact profiling_analysis digest mismatch",
		"imported artifact ledger digest mismatch",
		"imported artifact source_scope_map digest mismatch",
	};
	size_t i;

	for (i = 0; i < 3; i++) {
		char *keep = tc_read_file(files[i], 0, NULL, NULL);

		flip_byte(files[i]);
		expect_load(st, msgs[i]);
		fx_write(files[i], keep);
		expect_load(st, NULL);
		free(keep);
	}
}

static void
test_tampered_manifest_is_refused(void **state)
{
	struct st *st = *state;

	flip_byte(st->manifest_path);
	expect_load(st, "evidence import digest mismatch");
}

static void
test_artifact_swapped_for_an_escaping_symlink_is_refused(void **state)
{
	struct st *st = *state;
	char *outside = tc_xasprintf("%s/outside-ledger.json", st->f->dir);
	char *keep = tc_read_file(st->f->ledger, 0, NULL, NULL);

	/* the same bytes, but outside the parent root */
	fx_write(outside, keep);
	assert_int_equal(unlink(st->f->ledger), 0);
	assert_int_equal(symlink(outside, st->f->ledger), 0);
	expect_load(st, "imported artifact ledger must be inside the parent "
	    "artifact root");
	free(keep);
	free(outside);
}

static void
test_parent_session_swapped_for_an_escaping_symlink_is_refused(void **state)
{
	struct st *st = *state;
	char *outside = tc_xasprintf("%s/outside-session.json", st->f->dir);
	char *keep = tc_read_file(st->f->psession, 0, NULL, NULL);

	fx_write(outside, keep);
	assert_int_equal(unlink(st->f->psession), 0);
	assert_int_equal(symlink(outside, st->f->psession), 0);
	expect_load(st, "parent session must be inside the parent artifact root");
	free(keep);
	free(outside);
}

static void
test_overlapping_roots_are_refused_on_load(void **state)
{
	struct st *st = *state;
	char *root = quoted(st->f->dir);
	char *inner, *imports;
	tc_json *doc;

	/* a parent root that contains the child's */
	expect_rebound(st, "parent/artifact_root", root,
	    "derived artifact root must be disjoint from the parent artifact "
	    "root");
	free(root);
	/* a child moved inside its parent, with its manifest */
	assert_int_equal(tc_write_json(st->manifest_path, st->manifest, 0,
	    NULL), 0);
	inner = tc_xasprintf("%s/sub", st->f->proot);
	imports = tc_xasprintf("%s/imports", inner);
	assert_int_equal(tc_mkdirs(imports, NULL), 0);
	free(imports);
	imports = tc_xasprintf("%s/imports/evidence-import.json", inner);
	assert_int_equal(tc_write_json(imports, st->manifest, 0, NULL), 0);
	doc = tc_json_clone(st->doc);
	tc_json_object_set_string(doc, "artifact_root", inner);
	assert_int_equal(tc_write_json(st->f->csession, doc, 0, NULL), 0);
	expect_load(st, "derived artifact root must be disjoint from the parent "
	    "artifact root");
	tc_json_free(doc);
	free(imports);
	free(inner);
}

static void
test_parent_reference_checks(void **state)
{
	struct st *st = *state;
	char *missing = tc_xasprintf("parent session cannot be read: [Errno 2] "
	    "No such file or directory: '%s/nope.json'", st->f->proot);

	expect_rebound(st, "parent", "[]",
	    "evidence import parent must be an object");
	expect_rebound(st, "parent/artifact_root", NULL,
	    "parent artifact_root must be a non-empty canonical string");
	expect_rebound(st, "parent/artifact_root", "\"parent-artifacts\"",
	    "parent artifact_root must be absolute");
	expect_rebound(st, "parent/session_path", "\"../x.json\"",
	    "parent session_path must be a relative artifact path");
	expect_rebound(st, "parent/session_path", "\"nope.json\"", missing);
	expect_rebound(st, "parent/session_path", "\"evidence\"",
	    "parent session must be a regular file");
	expect_rebound(st, "parent/session_sha256", "\"00\"",
	    "imported parent session digest mismatch");
	expect_rebound(st, "parent/session_fingerprint", "\"00\"",
	    "imported parent session fingerprint mismatch");
	expect_rebound(st, "parent/session_id", "\"other-parent\"",
	    "imported parent session identity mismatch");
	free(missing);
}

static void
test_base_handoff_checks(void **state)
{
	struct st *st = *state;
	const char *differs = "imported BASE/SMAP handoff differs from the "
	    "parent session";

	expect_rebound(st, "base_handoff", "null",
	    "evidence import base_handoff must be an object");
	expect_rebound(st, "base_handoff/result_path", "\"/etc/hosts\"",
	    "imported BASE/SMAP result_path must be a relative artifact path");
	expect_rebound(st, "base_handoff/result_path", "\"phases\"",
	    "imported BASE/SMAP result must be a regular file");
	expect_rebound(st, "base_handoff/file_sha256", "\"00\"",
	    "imported BASE/SMAP result digest mismatch");
	expect_rebound(st, "base_handoff/result_sha256", "\"00\"",
	    "imported BASE/SMAP semantic digest mismatch");
	expect_rebound(st, "base_handoff/outcome_status", "\"no_gain\"", differs);
	expect_rebound(st, "base_handoff/step_id", "\"s0-baseline\"", differs);
	expect_rebound(st, "base_handoff/step_id", "\"no-such-step\"", differs);
}

static void
test_artifact_role_checks(void **state)
{
	struct st *st = *state;

	expect_rebound(st, "artifacts", "[]",
	    "evidence import artifacts must be an object");
	expect_rebound(st, "artifacts/config", "{}",
	    "evidence import contains an unsupported artifact role");
	expect_rebound(st, "artifacts/source_scope_map", NULL,
	    "evidence import is missing required artifacts");
	expect_rebound(st, "artifacts/ledger", NULL,
	    "evidence import is missing required artifacts");
	expect_rebound(st, "artifacts/profiling_analysis", NULL,
	    "evidence import is missing required artifacts");
}

static void
test_artifact_descriptor_checks(void **state)
{
	struct st *st = *state;
	char *missing = tc_xasprintf("imported artifact ledger cannot be read: "
	    "[Errno 2] No such file or directory: '%s/evidence/gone.json'",
	    st->f->proot);
	char *final_ledger = dfx_path(st->f, "ledger.json");
	char hex[65], *sha;
	uint64_t size;
	char *size_text;

	expect_rebound(st, "artifacts/ledger", "\"evidence/experiment-ledger.json\"",
	    "imported artifact ledger descriptor must be an object");
	expect_rebound(st, "artifacts/ledger/path", "\"../outside.json\"",
	    "imported artifact ledger path must be a relative artifact path");
	expect_rebound(st, "artifacts/ledger/path", "\"evidence/gone.json\"",
	    missing);
	expect_rebound(st, "artifacts/ledger/path", "\"evidence\"",
	    "imported artifact ledger must be a regular file");
	expect_rebound(st, "artifacts/ledger/sha256", "\"00\"",
	    "imported artifact ledger digest mismatch");
	expect_rebound(st, "artifacts/ledger/size_bytes", "1",
	    "imported artifact ledger size mismatch");
	expect_rebound(st, "artifacts/ledger/size_bytes", "\"214\"",
	    "imported artifact ledger size mismatch");
	/* a real file of the parent, correctly digested, that the BASE
	 * result does not declare */
	assert_int_equal(tc_sha256_file(final_ledger, hex, &size, NULL), 0);
	sha = quoted(hex);
	size_text = tc_xasprintf("%llu", (unsigned long long)size);
	{
		tc_json *m = tc_json_clone(st->manifest);

		tc_json_free(st->manifest);
		st->manifest = fx_edit(fx_edit(m, "artifacts/ledger/sha256", sha),
		    "artifacts/ledger/size_bytes", size_text);
	}
	expect_rebound(st, "artifacts/ledger/path", "\"ledger.json\"",
	    "imported artifact ledger is not bound by BASE/SMAP");
	free(size_text);
	free(sha);
	free(final_ledger);
	free(missing);
}

/* Replace an artifact with new content and re-bind everything the
 * manifest records about it, so that only the content check fails. */
static void
expect_content(struct st *st, const char *file, const char *role,
    const char *content, const char *msg)
{
	char hex[65], *path, *sha, *size;
	uint64_t n;

	fx_write(file, content);
	assert_int_equal(tc_sha256_file(file, hex, &n, NULL), 0);
	path = tc_xasprintf("artifacts/%s/sha256", role);
	sha = quoted(hex);
	st->manifest = fx_edit(st->manifest, path, sha);
	free(path);
	path = tc_xasprintf("artifacts/%s/size_bytes", role);
	size = tc_xasprintf("%llu", (unsigned long long)n);
	expect_rebound(st, path, size, msg);
	free(size);
	free(sha);
	free(path);
}

static void
test_content_checks_run_again_on_load(void **state)
{
	struct st *st = *state;

	expect_content(st, st->f->ledger, "ledger",
	    "{\"schema_version\": 2, \"experiments\": {}}",
	    "experiment ledger does not contain the analyzed experiment");
	expect_content(st, st->f->ledger, "ledger", "{",
	    "experiment ledger cannot be read: Expecting property name enclosed "
	    "in double quotes: line 1 column 2 (char 1)");
	expect_content(st, st->f->ledger, "ledger", DFX_LEDGER, NULL);
	expect_content(st, st->f->smap, "source_scope_map", "[]",
	    "source scope map must use source_scope_map_v2 schema 2.0 or 2.1");
	expect_content(st, st->f->smap, "source_scope_map", DFX_SMAP, NULL);
	expect_content(st, st->f->analysis, "profiling_analysis", "[1]",
	    "profiling analysis must be a JSON object");
	expect_content(st, st->f->analysis, "profiling_analysis",
	    "{" DFX_ANALYSIS_BODY ", \"analysis_content_fingerprint\": \"00\"}",
	    "profiling analysis content fingerprint mismatch");
}

static void
test_identity_must_match_the_analysis(void **state)
{
	struct st *st = *state;
	const char *msg = "evidence import identity differs from profiling "
	    "analysis";

	expect_rebound(st, "identity/round_id", "\"Sbest-P1\"", msg);
	expect_rebound(st, "identity/extra", "\"x\"", msg);
	expect_rebound(st, "identity", "null", msg);
}

static void
test_multistream_import_needs_no_source_map(void **state)
{
	struct st *st = *state;

	assert_null(tc_json_get(tc_json_get(st->manifest, "artifacts"),
	    "source_scope_map"));
	expect_load(st, NULL);
	/* the analysis and the ledger stay required */
	expect_rebound(st, "artifacts/profiling_analysis", NULL,
	    "evidence import is missing required artifacts");
}

static void
test_every_load_path_sees_the_tampering(void **state)
{
	struct st *st = *state;
	tc_error err = TC_ERROR_INIT;
	tc_json *task, *verdict;

	/* a task made before the tampering goes stale because creating the
	 * current task fails */
	task = tc_dispatch_task_for(st->f->csession, NULL, &err);
	assert_non_null(task);
	flip_byte(st->f->analysis);
	assert_null(tc_dispatch_task_for(st->f->csession, NULL, &err));
	assert_string_equal(tc_error_msg(&err),
	    "imported artifact profiling_analysis digest mismatch");
	assert_int_equal(tc_dispatch_task_check(task, st->f->csession, NULL,
	    NULL, &err), -1);
	assert_string_equal(tc_error_msg(&err),
	    "imported artifact profiling_analysis digest mismatch");
	assert_null(tc_resume_session(st->f->csession, NULL, &err));
	assert_string_equal(tc_error_msg(&err),
	    "imported artifact profiling_analysis digest mismatch");
	verdict = tc_verify_session(st->f->csession, 0);
	assert_false(tc_json_get(verdict, "valid")->u.b);
	tc_json_free(verdict);
	tc_json_free(task);
	tc_error_clear(&err);
}

static void
test_task_carries_the_import_and_compares_it(void **state)
{
	struct st *st = *state;
	tc_error err = TC_ERROR_INIT;
	tc_json *task = tc_dispatch_task_for(st->f->csession, NULL, &err);

	assert_non_null(task);
	assert_true(tc_json_equal(tc_json_get(task, "evidence_import"),
	    tc_json_get(st->doc, "evidence_import")));
	assert_int_equal(tc_dispatch_task_check(task, st->f->csession, NULL,
	    NULL, &err), 0);
	task = fx_edit(task, "evidence_import/sha256", "\"" DFX_SMAP_FP "\"");
	assert_int_equal(tc_dispatch_task_check(task, st->f->csession, NULL,
	    NULL, &err), -1);
	assert_string_equal(tc_error_msg(&err),
	    "stale dispatch task does not match the current session");
	task = fx_edit(task, "evidence_import", NULL);
	assert_int_equal(tc_dispatch_task_check(task, st->f->csession, NULL,
	    NULL, &err), -1);
	assert_string_equal(tc_error_msg(&err),
	    "stale dispatch task does not match the current session");
	tc_json_free(task);
	tc_error_clear(&err);
}

#define T(fn) cmocka_unit_test_setup_teardown(fn, setup, teardown)

int
main(void)
{
	const struct CMUnitTest tests[] = {
		T(test_a_fresh_derived_session_loads),
		T(test_tampered_parent_session_is_refused),
		T(test_tampered_base_result_is_refused),
		T(test_each_tampered_artifact_is_refused),
		T(test_tampered_manifest_is_refused),
		T(test_artifact_swapped_for_an_escaping_symlink_is_refused),
		T(test_parent_session_swapped_for_an_escaping_symlink_is_refused),
		T(test_overlapping_roots_are_refused_on_load),
		T(test_parent_reference_checks),
		T(test_base_handoff_checks),
		T(test_artifact_role_checks),
		T(test_artifact_descriptor_checks),
		T(test_content_checks_run_again_on_load),
		T(test_identity_must_match_the_analysis),
		T(test_every_load_path_sees_the_tampering),
		T(test_task_carries_the_import_and_compares_it),
		cmocka_unit_test_setup_teardown(
		    test_multistream_import_needs_no_source_map,
		    setup_multistream, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
