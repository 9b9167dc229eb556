/*
 * fuzz_receipt.c - libFuzzer target for dispatch receipts: the run-next
 * recovery that reads the receipt of a step sealed by a controller which
 * stopped before binding it (tc_run_next's recovery pass), then verify,
 * which re-reads every bound receipt.
 *
 * Fixture: a completed session (every step sealed, no receipt bound) with
 * one attempt directory dispatches/intake-preparation-attempt-001/ whose
 * phase-result.json is the sealed result.  Input: part 0 the bytes of the
 * attempt's dispatch-receipt.json (an empty part 0 means no receipt file:
 * recovery writes one); part 1 (optional) replaces the attempt's
 * phase-result.json.  run-next never starts a host here: the session is
 * completed, so it fails after the recovery pass.
 *
 * Invariants: run-next reports an error with a message; whatever the
 * receipt holds, the session still verifies afterwards (recovery never
 * breaks a valid session), and the file on disk still loads; a receipt
 * that recovery binds names this session and step (finding H4 of
 * docs/hardening.md).
 */
#include "fuzz_common.h"
#include "tunectl/host.h"
#include "tunectl/session.h"
#include "../unit/test_derive_fixture.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define RCP_ATTEMPT "dispatches/intake-preparation-attempt-001"

static struct dfx *rcp_fx;
static char *rcp_session_bytes, *rcp_result_bytes;
static size_t rcp_session_len, rcp_result_len;

static void
rcp_cleanup(void)
{
	dfx_free(rcp_fx);
	free(rcp_session_bytes);
	free(rcp_result_bytes);
}

static void
rcp_init(void)
{
	tc_error err = TC_ERROR_INIT;
	char *sealed;

	rcp_fx = dfx_new();
	dfx_parent(rcp_fx, "none", NULL);
	atexit(rcp_cleanup);
	rcp_session_bytes = tc_read_file(rcp_fx->psession, 0, &rcp_session_len,
	    &err);
	sealed = tc_xasprintf("%s/phases/intake-preparation/phase-result.json",
	    rcp_fx->proot);
	rcp_result_bytes = tc_read_file(sealed, 0, &rcp_result_len, &err);
	FZ_REQUIRE(rcp_session_bytes != NULL && rcp_result_bytes != NULL);
	free(sealed);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *parts[2];
	size_t lens[2], n;
	tc_error err = TC_ERROR_INIT;
	tc_runner runner;
	char *argv[] = { (char *)"/bin/false", NULL };
	tc_run_next_opts opts = { 5.0, 1.0, NULL };
	tc_attempt_report report;
	tc_json *sealed, *v;
	char *dispatches;
	tc_session *s = NULL;

	if (rcp_fx == NULL)
		rcp_init();
	n = fz_split(data, size, parts, lens, 2);
	dispatches = tc_xasprintf("%s/dispatches", rcp_fx->proot);
	fz_rmtree(dispatches);
	free(dispatches);
	fz_write(rcp_fx->proot, "auto-tune-session.json", rcp_session_bytes,
	    rcp_session_len);
	if (n > 1)
		fz_write(rcp_fx->proot, RCP_ATTEMPT "/phase-result.json",
		    parts[1], lens[1]);
	else
		fz_write(rcp_fx->proot, RCP_ATTEMPT "/phase-result.json",
		    rcp_result_bytes, rcp_result_len);
	if (lens[0] > 0)
		fz_write(rcp_fx->proot, RCP_ATTEMPT "/dispatch-receipt.json",
		    parts[0], lens[0]);

	runner.argv = argv;
	runner.argc = 1;
	sealed = tc_run_next(rcp_fx->psession, &runner, &opts, &report, &err);
	FZ_REQUIRE(sealed == NULL);
	FZ_REQUIRE(tc_error_msg(&err)[0] != '\0');
	if (getenv("FUZZ_VERBOSE") != NULL)
		fprintf(stderr, "run-next: %s (recovered: %d)\n",
		    tc_error_msg(&err), (int)report.recovered);
	tc_error_clear(&err);
	tc_attempt_report_free(&report);

	v = tc_verify_session(rcp_fx->psession, TC_VERIFY_ALL);
	if (!tc_json_is(tc_json_get(v, "valid"), TC_JSON_BOOL) ||
	    !tc_json_get(v, "valid")->u.b) {
		tc_buf b = TC_BUF_INIT;

		tc_json_repr(&b, v);
		fprintf(stderr, "recovery broke the session: %s\n",
		    tc_buf_cstr(&b));
		abort();
	}
	tc_json_free(v);
	FZ_REQUIRE(tc_session_load(rcp_fx->psession, 0, &s, &err) == 0);
	{
		const tc_json *step = tc_session_find_step(s,
		    "intake-preparation", NULL);
		const char *rel = tc_json_get_string(step,
		    "dispatch_receipt_path");

		if (rel != NULL) {
			char *path = tc_session_artifact_path(s, rel);
			tc_json *r = tc_json_parse_file(path, &err);

			FZ_REQUIRE(r != NULL);
			FZ_REQUIRE(tc_json_equal(tc_json_get(r, "session_id"),
			    tc_json_get(s->doc, "session_id")));
			FZ_REQUIRE(tc_json_equal(tc_json_get(r, "step_id"),
			    tc_json_get(step, "step_id")));
			tc_json_free(r);
			free(path);
		}
	}
	tc_error_clear(&err);
	tc_session_free(s);
	return 0;
}
