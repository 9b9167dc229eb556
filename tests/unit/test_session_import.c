/*
 * test_session_import.c - the evidence import of a derived session, as
 * docs/spec/controller.md "Session validation" step 8 checks it on every load:
 * the reference's shape, the manifest's digest binding, schema and explicit
 * approval (docs/spec/controller.md "Evidence-import manifest" 1-4).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "test_session_fixture.h"
#include "tunectl/fileio.h"
#include "tunectl/session.h"

#define MANIFEST "{\"schema_version\": \"superkernel-auto-tune-evidence-import-v1\", " \
	"\"authorization\": {\"approved\": true, \"source\": \"explicit-user-request\", " \
	"\"approved_at\": \"2026-09-05T01:02:03+00:00\"}, \"parent\": {}, " \
	"\"base_handoff\": {}, \"artifacts\": {}, \"identity\": {}}"

/* A manifest that passes docs/spec/controller.md "Evidence-import manifest"
 * steps 1-4 goes on to the parent checks of step 5
 * (test_derive_revalidation.c), where this placeholder's empty "parent" is the
 * first thing refused. */
#define PASSED_STEPS_1_TO_4 \
	"parent artifact_root must be a non-empty canonical string"

struct fx {
	char *dir;
	char *manifest_path;
	tc_json *doc;
};

/* Write manifest_text and bind the session to its digest. */
static void
bind_manifest(struct fx *f, const char *manifest_text)
{
	tc_json *m = fx_json(manifest_text);
	tc_json *ref = tc_json_new_object();
	char hex[65];

	fx_write(f->manifest_path, manifest_text);
	assert_int_equal(tc_json_digest(m, hex, NULL), 0);
	tc_json_object_set_string(ref, "path", "imports/evidence-import.json");
	tc_json_object_set_string(ref, "sha256", hex);
	tc_json_object_set(f->doc, "evidence_import", ref);
	tc_json_free(m);
}

static int
setup(void **state)
{
	struct fx *f = tc_xcalloc(1, sizeof(*f));
	char *imports;

	f->dir = fx_tmpdir();
	imports = tc_xasprintf("%s/imports", f->dir);
	assert_int_equal(mkdir(imports, 0755), 0);
	free(imports);
	f->manifest_path = tc_xasprintf("%s/imports/evidence-import.json", f->dir);
	f->doc = fx_session("multistream", "optional-from-base", f->dir);
	bind_manifest(f, MANIFEST);
	*state = f;
	return 0;
}

static int
teardown(void **state)
{
	struct fx *f = *state;

	tc_json_free(f->doc);
	free(f->manifest_path);
	fx_rmtree(f->dir);
	free(f);
	return 0;
}

static void
expect(struct fx *f, const char *msg)
{
	tc_error err = TC_ERROR_INIT;
	int rc = tc_session_validate(f->doc, 0, &err);

	if (msg == NULL) {
		if (rc != 0)
			fail_msg("unexpected: %s", tc_error_msg(&err));
	} else {
		assert_int_equal(rc, -1);
		assert_string_equal(tc_error_msg(&err), msg);
	}
	tc_error_clear(&err);
}

static void
test_a_bound_approved_manifest_reaches_the_parent_checks(void **state)
{
	expect(*state, PASSED_STEPS_1_TO_4);
}

static void
test_derived_session_requires_one_reference(void **state)
{
	struct fx *f = *state;

	f->doc = fx_edit(f->doc, "evidence_import/extra", "1");
	expect(f, "derived session requires one canonical evidence_import reference");
	f->doc = fx_edit(f->doc, "evidence_import/extra", NULL);
	f->doc = fx_edit(f->doc, "evidence_import/sha256", NULL);
	expect(f, "derived session requires one canonical evidence_import reference");
	f->doc = fx_edit(f->doc, "evidence_import", NULL);
	expect(f, "derived session requires one canonical evidence_import reference");
	f->doc = fx_edit(f->doc, "evidence_import", "[]");
	expect(f, "derived session requires one canonical evidence_import reference");
}

static void
test_reference_fields_are_checked(void **state)
{
	struct fx *f = *state;

	f->doc = fx_edit(f->doc, "evidence_import/path", "\"/etc/import.json\"");
	expect(f, "evidence_import path must be a relative artifact path");
	f->doc = fx_edit(f->doc, "evidence_import/path", "\" imports/x\"");
	expect(f, "evidence_import path must be a non-empty canonical string");
	f->doc = fx_edit(f->doc, "evidence_import/path",
	    "\"imports/evidence-import.json\"");
	f->doc = fx_edit(f->doc, "evidence_import/sha256", "\"\"");
	expect(f, "evidence_import sha256 must be a non-empty canonical string");
}

static void
test_manifest_must_be_readable_object(void **state)
{
	struct fx *f = *state;
	char *msg;

	assert_int_equal(unlink(f->manifest_path), 0);
	msg = tc_xasprintf("evidence import cannot be read: [Errno 2] No such "
	    "file or directory: '%s'", f->manifest_path);
	expect(f, msg);
	free(msg);
	fx_write(f->manifest_path, "{");
	expect(f, "evidence import cannot be read: Expecting property name "
	    "enclosed in double quotes: line 1 column 2 (char 1)");
	bind_manifest(f, "[]");
	expect(f, "evidence import must be a JSON object");
}

static void
test_manifest_is_bound_by_digest(void **state)
{
	struct fx *f = *state;

	/* Same content, other formatting: the digest is semantic. */
	fx_write(f->manifest_path, "  " MANIFEST "\n");
	expect(f, PASSED_STEPS_1_TO_4);
	fx_write(f->manifest_path, MANIFEST " ");
	f->doc = fx_edit(f->doc, "evidence_import/sha256",
	    "\"0000000000000000000000000000000000000000000000000000000000000000\"");
	expect(f, "evidence import digest mismatch");
}

static void
test_manifest_schema_and_approval(void **state)
{
	struct fx *f = *state;

	bind_manifest(f, "{\"schema_version\": \"v0\"}");
	expect(f, "evidence import schema_version is invalid");
	bind_manifest(f, "{\"schema_version\": \"superkernel-auto-tune-evidence-import-v1\"}");
	expect(f, "evidence import lacks explicit approval");
	bind_manifest(f, "{\"schema_version\": \"superkernel-auto-tune-evidence-import-v1\", "
	    "\"authorization\": {\"approved\": 1, \"source\": \"explicit-user-request\", "
	    "\"approved_at\": \"now\"}}");
	expect(f, "evidence import lacks explicit approval");
	bind_manifest(f, "{\"schema_version\": \"superkernel-auto-tune-evidence-import-v1\", "
	    "\"authorization\": {\"approved\": true, \"source\": \"agent\", "
	    "\"approved_at\": \"now\"}}");
	expect(f, "evidence import lacks explicit approval");
	bind_manifest(f, "{\"schema_version\": \"superkernel-auto-tune-evidence-import-v1\", "
	    "\"authorization\": {\"approved\": true, \"source\": \"explicit-user-request\", "
	    "\"approved_at\": \" \"}}");
	expect(f, "evidence import lacks explicit approval");
}

static void
test_import_check_can_be_skipped_for_derivation(void **state)
{
	struct fx *f = *state;
	tc_error err = TC_ERROR_INIT;

	assert_int_equal(unlink(f->manifest_path), 0);
	assert_int_equal(tc_session_validate(f->doc, TC_SESSION_NO_IMPORT, &err), 0);
	f->doc = fx_edit(f->doc, "evidence_import", NULL);
	assert_int_equal(tc_session_validate(f->doc, TC_SESSION_NO_IMPORT, &err), 0);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_a_bound_approved_manifest_reaches_the_parent_checks, setup, teardown),
		cmocka_unit_test_setup_teardown(test_derived_session_requires_one_reference, setup, teardown),
		cmocka_unit_test_setup_teardown(test_reference_fields_are_checked, setup, teardown),
		cmocka_unit_test_setup_teardown(test_manifest_must_be_readable_object, setup, teardown),
		cmocka_unit_test_setup_teardown(test_manifest_is_bound_by_digest, setup, teardown),
		cmocka_unit_test_setup_teardown(test_manifest_schema_and_approval, setup, teardown),
		cmocka_unit_test_setup_teardown(test_import_check_can_be_skipped_for_derivation, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
