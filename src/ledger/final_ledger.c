/*
 * final_ledger.c - _load_ledger (docs/spec/controller.md
 * "Loading the Final ledger"): the schema 2 ledger a Final result names, read
 * under the artifact root and checked in the reference's order; and the
 * Final-only result checks of docs/spec/controller.md "Phase result validation"
 * step 15.
 */
#include <stdlib.h>
#include <string.h>

#include "final_internal.h"
#include "tunectl/buf.h"
#include "tunectl/fileio.h"
#include "tunectl/final.h"
#include "tunectl/path.h"
#include "tunectl/sha256.h"

bool
tc_final_ledger_is_schema2(const tc_json *ledger)
{
	const tc_json *v = tc_json_get(ledger, "schema_version");

	if (tc_json_is(v, TC_JSON_INT))
		return strcmp(v->u.int_text, "2") == 0;
	if (tc_json_is(v, TC_JSON_FLOAT))
		return v->u.f == 2.0;
	return false;
}

int
tc_final_check_ledger_shape(const tc_json *ledger, tc_error *err)
{
	const tc_json *experiments, *rounds, *blockers;
	size_t i;

	if (!tc_json_is(ledger, TC_JSON_OBJECT) ||
	    !tc_final_ledger_is_schema2(ledger)) {
		tc_error_set(err, "ledger_path must reference a schema 2 ledger");
		return -1;
	}
	experiments = tc_json_get(ledger, "experiments");
	if (!tc_json_is(experiments, TC_JSON_OBJECT)) {
		tc_error_set(err, "ledger_path schema 2 ledger experiments must "
		    "be an object");
		return -1;
	}
	/* Python walks the entries in file order; tc_json keeps them sorted,
	 * so with several bad entries the first reported may differ. */
	for (i = 0; i < experiments->u.obj.len; i++) {
		const tc_json_member *m = &experiments->u.obj.members[i];

		if (!tc_text_is_canonical(m->key, m->key_len)) {
			tc_error_set(err, "ledger experiment_id must be a "
			    "non-empty canonical string");
			return -1;
		}
		if (!tc_json_is(m->value, TC_JSON_OBJECT)) {
			tc_error_set(err, "ledger experiment must be an object");
			return -1;
		}
		rounds = tc_json_get(m->value, "rounds");
		if (rounds != NULL && !tc_json_is(rounds, TC_JSON_ARRAY)) {
			tc_error_set(err, "ledger experiment rounds must be a "
			    "list");
			return -1;
		}
		blockers = tc_json_get(m->value, "blockers");
		if (blockers != NULL && !tc_json_is(blockers, TC_JSON_ARRAY)) {
			tc_error_set(err, "ledger experiment blockers must be a "
			    "list");
			return -1;
		}
	}
	return 0;
}

/*
 * Read <root>/<rel>.  The reference follows symlinks without a
 * containment check; tunectl refuses a ledger whose resolution leaves the
 * artifact root (documents are untrusted), reported as unreadable.
 */
static tc_json *
read_ledger(const char *root, const tc_json *rel,
    tc_final_ledger_bytes *bytes, tc_error *err)
{
	tc_error sub = TC_ERROR_INIT;
	char *path, *resolved = NULL, *text;
	tc_json *doc = NULL;
	size_t len;

	if (memchr(rel->u.str.ptr, '\0', rel->u.str.len) != NULL) {
		tc_error_set(err, "ledger_path cannot be read: embedded null "
		    "byte");
		return NULL;
	}
	path = tc_path_join(root, rel->u.str.ptr);
	if (tc_path_exists(path)) {
		resolved = tc_path_under_root(root, rel->u.str.ptr,
		    "ledger_path", &sub);
		if (resolved == NULL)
			goto fail;
	}
	/* tc_json_parse_file(), keeping the digest of the bytes read */
	if ((text = tc_json_read_path(path, &len, &sub)) == NULL)
		goto fail;
	if (bytes != NULL) {
		tc_sha256_hex(text, len, bytes->sha256);
		bytes->size = len;
	}
	doc = tc_json_parse_text(text, len, &sub);
	free(text);
	if (doc == NULL)
		goto fail;
	free(resolved);
	free(path);
	return doc;
fail:
	tc_error_set(err, "ledger_path cannot be read: %s", tc_error_msg(&sub));
	tc_error_clear(&sub);
	free(resolved);
	free(path);
	return NULL;
}

static tc_json *
load_ledger(const char *artifact_root, const tc_json *ledger_path,
    tc_final_ledger_bytes *bytes, tc_error *err)
{
	const tc_json *fe, *summary;
	tc_json *ledger;

	if (tc_require_relative_artifact(ledger_path, "ledger_path", err) != 0)
		return NULL;
	if ((ledger = read_ledger(artifact_root, ledger_path, bytes,
	    err)) == NULL)
		return NULL;
	if (tc_final_check_ledger_shape(ledger, err) != 0)
		goto fail;
	fe = tc_json_get(ledger, "final_e2e");
	if (tc_final_validate_e2e(fe, err) != 0)
		goto fail;
	/* present even as null: null is not a valid summary */
	summary = tc_json_get(ledger, "report_summary");
	if (summary != NULL && tc_final_validate_report_summary(summary, fe,
	    artifact_root, err) != 0)
		goto fail;
	return ledger;
fail:
	tc_json_free(ledger);
	return NULL;
}

tc_json *
tc_final_load_ledger_value(const char *artifact_root,
    const tc_json *ledger_path, tc_error *err)
{
	return load_ledger(artifact_root, ledger_path, NULL, err);
}

tc_json *
tc_final_load_ledger(const char *artifact_root, const char *ledger_path,
    tc_error *err)
{
	tc_json *value, *ledger;

	if (ledger_path == NULL)
		return tc_final_load_ledger_value(artifact_root, NULL, err);
	value = tc_json_new_string(ledger_path);
	ledger = tc_final_load_ledger_value(artifact_root, value, err);
	tc_json_free(value);
	return ledger;
}

int
tc_final_check_result(const tc_json *result, const char *artifact_root,
    tc_json **ledger_out, tc_error *err)
{
	return tc_final_check_result_bytes(result, artifact_root, ledger_out,
	    NULL, err);
}

int
tc_final_check_result_bytes(const tc_json *result, const char *artifact_root,
    tc_json **ledger_out, tc_final_ledger_bytes *bytes, tc_error *err)
{
	const tc_json *details = tc_json_get(result, "details_zh");
	const char *status, *expected;
	tc_buf missing = TC_BUF_INIT;
	tc_json *ledger;
	size_t i;

	if (bytes != NULL) {
		bytes->sha256[0] = '\0';
		bytes->size = 0;
	}
	for (i = 0; i < TC_FINAL_DETAIL_KEY_COUNT; i++) {
		if (tc_is_nonblank_string(tc_json_get(details,
		    tc_final_detail_keys[i])))
			continue;
		if (missing.len > 0)
			tc_buf_puts(&missing, ", ");
		tc_buf_puts(&missing, tc_final_detail_keys[i]);
	}
	if (missing.len > 0) {
		tc_error_set(err, "final details_zh is missing: %s",
		    tc_buf_cstr(&missing));
		tc_buf_free(&missing);
		return -1;
	}
	if (tc_json_get(result, "ledger_path") == NULL) {
		tc_error_set(err, "final phase result requires ledger_path");
		return -1;
	}
	ledger = load_ledger(artifact_root, tc_json_get(result, "ledger_path"),
	    bytes, err);
	if (ledger == NULL)
		return -1;
	status = tc_json_get_string(result, "status");
	expected = tc_final_status_for(tc_json_get(ledger, "final_e2e"));
	if (status == NULL || expected == NULL || strcmp(status, expected) != 0) {
		tc_error_set(err, "final phase result status does not match "
		    "ledger final_e2e classification");
		tc_json_free(ledger);
		return -1;
	}
	if (ledger_out != NULL)
		*ledger_out = ledger;
	else
		tc_json_free(ledger);
	return 0;
}
