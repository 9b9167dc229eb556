/*
 * fuzz_session.c - libFuzzer target for the session document: the loader
 * (tc_session_load, file read + parse +
 * docs/spec/controller.md "Session validation" validation), the in-memory
 * validator (tc_session_validate with and without the evidence import), and
 * everything that runs on a session that loaded: views, fingerprint, next step,
 * the dispatch task, verify (first problem and --all), status, resume and
 * lineage.
 *
 * Input: one session document.  Its "artifact_root", when it is a string,
 * is replaced by this target's scratch root before the file is written,
 * so the commands only ever touch the scratch directory (the session file
 * is the one trusted location; see docs/security.md).
 *
 * Invariants: the file loader and the in-memory validator agree; every
 * refusal carries a message; verify of a session that loads returns an
 * object with a boolean "valid".
 */
#include "fuzz_common.h"
#include "tunectl/derive.h"
#include "tunectl/session.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char *ses_root;
static char *ses_path;

static void
ses_views(const tc_session *s)
{
	size_t i, n = tc_session_step_count(s), idx;
	tc_error err = TC_ERROR_INIT;
	char hex[65];
	tc_json *task, *errors;

	for (i = 0; i < n; i++) {
		const tc_json *step = tc_session_step_at(s, i);

		(void)tc_step_id(step);
		(void)tc_step_phase(step);
		(void)tc_step_is_sealed(step);
		(void)tc_step_branch(step);
		(void)tc_step_outcome(step);
		FZ_REQUIRE(tc_session_find_step(s, tc_step_id(step), NULL) != NULL);
	}
	(void)tc_session_next_step(s, &idx);
	(void)tc_session_is_completed(s);
	(void)fz_status(tc_session_fingerprint(s, hex, &err), &err);
	task = fz_result(tc_dispatch_task(s, NULL, &err), &err);
	tc_json_free(task);
	errors = tc_json_new_array();
	(void)tc_verify_loaded(s, TC_VERIFY_ALL, errors);
	tc_json_free(errors);
}

static void
ses_commands(void)
{
	tc_error err = TC_ERROR_INIT;
	tc_json *v;
	tc_buf out = TC_BUF_INIT;
	tc_resume_report rep;

	v = tc_verify_session(ses_path, 0);
	FZ_REQUIRE(tc_json_is(tc_json_get(v, "valid"), TC_JSON_BOOL));
	tc_json_free(v);
	v = tc_verify_session(ses_path, TC_VERIFY_ALL);
	FZ_REQUIRE(tc_json_is(tc_json_get(v, "valid"), TC_JSON_BOOL));
	tc_json_free(v);
	(void)fz_status(tc_session_describe(ses_path, "tunectl", &out, &err),
	    &err);
	tc_buf_free(&out);
	v = fz_result(tc_resume_session(ses_path, &rep, &err), &err);
	tc_resume_report_free(&rep);
	tc_json_free(v);
	v = tc_session_lineage(ses_path);
	FZ_REQUIRE(v != NULL);
	tc_json_free(v);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	tc_error err = TC_ERROR_INIT;
	tc_json *doc;
	tc_session *s = NULL;
	int mem_rc, file_rc;

	if (ses_root == NULL) {
		ses_root = fz_mkroot("session");
		ses_path = tc_xasprintf("%s/auto-tune-session.json", ses_root);
	}
	fz_reset_root(ses_root);
	doc = fz_parse((const char *)data, size);
	if (doc == NULL) {
		/* unparsable bytes: the loader refuses them with a message */
		fz_write(ses_root, "auto-tune-session.json", data, size);
		FZ_REQUIRE(fz_status(tc_session_load(ses_path, 0, &s, &err),
		    &err) != 0);
		return 0;
	}
	if (tc_json_is(tc_json_get(doc, "artifact_root"), TC_JSON_STRING))
		tc_json_object_set_string(doc, "artifact_root", ses_root);

	mem_rc = fz_status(tc_session_validate(doc, 0, &err), &err);
	(void)fz_status(tc_session_validate(doc, TC_SESSION_NO_IMPORT, &err),
	    &err);
	{
		size_t len;
		char *text = tc_json_pretty(doc, &len, &err);

		tc_error_clear(&err);
		if (text == NULL) {	/* a lone surrogate cannot be written */
			tc_json_free(doc);
			return 0;
		}
		fz_write(ses_root, "auto-tune-session.json", text, len);
		free(text);
	}
	file_rc = fz_status(tc_session_load(ses_path, 0, &s, &err), &err);
	FZ_REQUIRE(mem_rc == file_rc);
	if (file_rc == 0) {
		ses_views(s);
		tc_session_free(s);
		ses_commands();
	}
	tc_json_free(doc);
	return 0;
}
