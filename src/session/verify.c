/*
 * verify.c - verify_session (docs/spec/controller.md "Verify"): re-read every
 * sealed result, check its digest, re-validate it against its step, check its
 * outcome, its PHASE_REPORT.md and its dispatch receipt, and that a completed
 * session has its FINAL_E2E_REPORT.md.
 *
 * After the reference's checks of a step, tunectl's own (evidence.h):
 * PHASE_REPORT.md says what the result says, every artifact its manifest
 * binds is unchanged, and under the strict policy the result still
 * carries the gate evidence its status claims.  A completed session's
 * FINAL_E2E_REPORT.md must be the report its sealed evidence renders.
 * A BASE step's fusion analysis must still match its content fingerprint.
 *
 * The reference stops at the first problem; with TC_VERIFY_ALL every
 * step is checked and each broken step contributes its first problem.
 */
#include <stdlib.h>
#include <string.h>

#include "session_internal.h"
#include "tunectl/derive.h"
#include "tunectl/evidence.h"
#include "tunectl/fileio.h"
#include "tunectl/path.h"
#include "tunectl/sha256.h"

static void
add_error(tc_json *errors, const tc_error *err)
{
	tc_json_array_push(errors, tc_json_new_string(tc_error_msg(err)));
}

/* The file behind a path named in the session, refused when a symlink
 * leads it out of the artifact root.  NULL with err set. */
static char *
artifact_file(const tc_session *s, const tc_json *relative,
    const char *label, tc_error *err)
{
	char *resolved;

	if (tc_session__check_path_text(relative, err) != 0)
		return NULL;
	resolved = tc_path_under_root(s->artifact_root,
	    tc_json_string(relative), label, err);
	if (resolved == NULL) {
		/* Without a root directory the read fails below, with the
		 * reference's OS error.  (Asked only now: resolving under
		 * the root stats it anyway.) */
		if (tc_is_directory(s->artifact_root))
			return NULL;
		tc_error_clear(err);
		return tc_session_artifact_path(s, tc_json_string(relative));
	}
	free(resolved);
	/* Read through the joined path so that OS errors name the same
	 * file as the reference's messages do. */
	return tc_session_artifact_path(s, tc_json_string(relative));
}

static int
check_receipt(const tc_session *s, const tc_json *step, tc_error *err)
{
	char hex[TC_SHA256_HEX_LEN + 1];
	char *path;
	int rc;

	if (tc_json_get(step, "dispatch_receipt_path") == NULL)
		return 0;
	path = artifact_file(s, tc_json_get(step, "dispatch_receipt_path"),
	    "dispatch_receipt_path", err);
	if (path == NULL)
		return -1;
	rc = tc_sha256_file(path, hex, NULL, err);
	free(path);
	if (rc != 0)
		return -1;
	if (!sess_str_is(tc_json_get(step, "dispatch_receipt_sha256"), hex)) {
		tc_error_set(err, "dispatch receipt digest mismatch: %s",
		    tc_step_id(step));
		return -1;
	}
	return 0;
}

/*
 * The strict checks of a sealed step, against the session as it was when
 * the step was sealed: the steps before it (as sealed) with this one
 * pending.  A system-generated short-circuit result claims nothing.
 */
static int
check_strict(const tc_session *s, size_t index, const tc_json *result,
    tc_error *err)
{
	tc_session *then;
	size_t i;
	int rc;

	if (tc_session_policy(s) != TC_POLICY_STRICT ||
	    tc_json_get(result, "system_generated_by") != NULL)
		return 0;
	if (tc_strict_check_reentered(s, index, err) != 0)
		return -1;
	then = tc_session_wrap(tc_json_clone(s->doc), s->path);
	for (i = index; i < tc_session_step_count(then); i++)
		tc_json_object_set_string(tc_session_step_at(then, i), "state",
		    "pending");
	rc = tc_strict_check_result(then, tc_session_step_at(then, index),
	    result, err);
	tc_session_free(then);
	return rc;
}

/*
 * The members of a sealed result that no check below reads beyond their
 * type (tc_result_validate wants "decisions" to be an array): verify
 * digests them but does not build them.  A check that comes to read
 * their contents must take its key out of this list; that includes the
 * Final report, rendered from the Final's tree (final_report.c keeps the
 * same list for the reports it reads itself).
 */
static const char *const type_only_keys[] = { "decisions", NULL };

/*
 * Every fusion analysis a BASE step produced (a JSON artifact holding
 * analysis_content_fingerprint): the fingerprint must still be the
 * SHA-256 of the document's content, as derive-session recomputes it.
 */
static int
check_analyses(const tc_session *s, const tc_json *step,
    const tc_json *result, tc_error *err)
{
	const tc_json *produced = tc_json_get(result, "produced_artifacts");
	size_t i;

	if (!sess_str_is(tc_json_get(step, "phase"),
	    "base_profile_source_mapping") ||
	    !tc_json_is(produced, TC_JSON_ARRAY))
		return 0;
	for (i = 0; i < produced->u.arr.len; i++) {
		const char *rel = tc_json_string(produced->u.arr.items[i]);
		const tc_json *declared;
		tc_error ignored = TC_ERROR_INIT;
		tc_json *doc;
		char *file, hex[65];
		size_t n = rel != NULL ? strlen(rel) : 0;
		int rc = 0;

		if (n < 5 || strcmp(rel + n - 5, ".json") != 0)
			continue;
		file = tc_path_under_root(s->artifact_root, rel, "artifact",
		    &ignored);
		/* what is missing or escapes is the manifest check's to say */
		doc = file != NULL && tc_is_regular_file(file) ?
		    tc_json_parse_file(file, &ignored) : NULL;
		tc_error_clear(&ignored);
		free(file);
		declared = tc_json_get(doc, "analysis_content_fingerprint");
		if (declared != NULL && (tc_import_analysis_fingerprint(doc, hex,
		    &ignored) != 0 || !sess_str_is(declared, hex))) {
			tc_error_clear(&ignored);
			tc_error_set(err, "profiling analysis content fingerprint "
			    "mismatch: %s: %s", tc_step_id(step), rel);
			rc = -1;
		}
		tc_json_free(doc);
		if (rc != 0)
			return -1;
	}
	return 0;
}

/* The Final result and its ledger, kept from checking the Final step for
 * the check of FINAL_E2E_REPORT.md, which renders from both. */
struct final_inputs {
	tc_json *result, *ledger;
};

static int
check_step(const tc_session *s, size_t index, unsigned flags,
    struct final_inputs *final, tc_error *err)
{
	const tc_json *step = tc_session_step_at(s, index);
	char digest[65];
	char *path, *dir, *report, *report_text;
	tc_json *result, *ledger = NULL;
	size_t report_len = 0;
	int rc = -1;

	path = artifact_file(s, tc_json_get(step, "result_path"), "result_path",
	    err);
	if (path == NULL)
		return -1;
	if ((result = tc_json_parse_file_digest(path, type_only_keys, digest,
	    err)) == NULL) {
		free(path);
		return -1;
	}
	if (!sess_str_is(tc_json_get(step, "result_sha256"), digest)) {
		tc_error_set(err, "sealed phase result digest mismatch: %s",
		    tc_step_id(step));
		goto out;
	}
	if (tc_result_validate_keep(result, step, s, TC_RESULT_ALLOW_SYSTEM,
	    &ledger, err) != 0)
		goto out;
	if (!tc_json_equal(tc_json_get(result, "status"),
	    tc_json_get(step, "outcome_status"))) {
		tc_error_set(err, "sealed phase result outcome mismatch: %s",
		    tc_step_id(step));
		goto out;
	}
	dir = tc_path_dirname(path);
	report = tc_path_join(dir, "PHASE_REPORT.md");
	free(dir);
	/* One read finds the report and gives the bytes compared below; the
	 * stat only tells a missing report from one that cannot be read
	 * (whose read error the comparison reports, as before). */
	report_text = tc_read_file(report, 0, &report_len, NULL);
	if (report_text == NULL && !tc_is_regular_file(report)) {
		tc_error_set(err, "missing phase report: %s", tc_step_id(step));
		free(report);
		goto out;
	}
	if (check_receipt(s, step, err) != 0 ||
	    (report_text != NULL ? tc_check_phase_report_text(result, step,
	    report_text, report_len, err) :
	    tc_check_phase_report(result, step, report, err)) != 0 ||
	    (!(flags & TC_VERIFY_NO_ANALYSES) &&
	    check_analyses(s, step, result, err) != 0) ||
	    tc_manifest_check(s, step, err) != 0 ||
	    check_strict(s, index, result, err) != 0) {
		free(report_text);
		free(report);
		goto out;
	}
	free(report_text);
	free(report);
	rc = 0;
	/* the first sealed Final, as the report takes it */
	if (ledger != NULL && final->ledger == NULL) {
		final->result = result;
		final->ledger = ledger;
		result = ledger = NULL;
	}
out:
	tc_json_free(result);
	tc_json_free(ledger);
	free(path);
	return rc;
}

size_t
tc_verify_loaded(const tc_session *s, unsigned flags, tc_json *errors)
{
	tc_error err = TC_ERROR_INIT;
	struct final_inputs final = { NULL, NULL };
	size_t i, added = 0;
	bool memo;

	if (tc_session__check_root(s, &err) != 0) {
		add_error(errors, &err);
		tc_error_clear(&err);
		return 1;
	}
	/* Each artifact is read and hashed once however many steps bind it
	 * (the ledger: once for the Final's checks and its manifest entry);
	 * nothing writes while verify reads.  (The memo is the session's
	 * scratch, as in tc_session_check_bound.) */
	memo = tc_session_memo_begin((tc_session *)s);
	for (i = 0; i < tc_session_step_count(s); i++) {
		const tc_json *step = tc_session_step_at(s, i);

		if (!tc_step_is_sealed(step))
			continue;
		if (check_step(s, i, flags, &final, &err) != 0) {
			add_error(errors, &err);
			added++;
			if (!(flags & TC_VERIFY_ALL))
				goto out;
		}
	}
	if (tc_session_is_completed(s)) {
		char *report = tc_session_artifact_path(s, "FINAL_E2E_REPORT.md");

		if (!tc_is_regular_file(report)) {
			tc_error_set(&err, "completed session is missing "
			    "FINAL_E2E_REPORT.md");
			add_error(errors, &err);
			added++;
		} else if (added == 0 && tc_check_final_report(s, final.result,
		    final.ledger, &err) != 0) {
			add_error(errors, &err);
			added++;
		}
		free(report);
	}
out:
	if (memo)
		tc_session_memo_end((tc_session *)s);
	tc_json_free(final.result);
	tc_json_free(final.ledger);
	tc_error_clear(&err);
	return added;
}

tc_json *
tc_verify_session(const char *session_path, unsigned flags)
{
	return tc_verify_session_keep(session_path, flags, NULL);
}

tc_json *
tc_verify_session_keep(const char *session_path, unsigned flags,
    tc_session **loaded)
{
	tc_error err = TC_ERROR_INIT;
	tc_json *out = tc_json_new_object();
	tc_json *errors = tc_json_new_array();
	tc_session *s = NULL;

	if (tc_session_load(session_path, 0, &s, &err) != 0)
		add_error(errors, &err);
	else
		(void)tc_verify_loaded(s, flags, errors);
	if (errors->u.arr.len > 0) {
		tc_json_object_set(out, "errors", errors);
		tc_json_object_set_bool(out, "valid", false);
	} else {
		tc_json_free(errors);
		tc_json_object_set_bool(out, "valid", true);
		tc_json_object_set(out, "session_id",
		    tc_json_clone(tc_json_get(s->doc, "session_id")));
		tc_json_object_set_string(out, "status", s->status);
	}
	tc_error_clear(&err);
	if (loaded != NULL)
		*loaded = s;
	else
		tc_session_free(s);
	return out;
}
