/*
 * fuzz_result.c - libFuzzer target for phase results (docs/spec/controller.md
 * "Phase result validation"): validation against a fixed session
 * (tc_result_validate, every step of a "both" schedule, Final with its ledger,
 * final_e2e and report_summary), the PHASE_REPORT.md renderer, and a real seal
 * of the first step.
 *
 * Input: part 0 the phase result; part 1 (optional) the bytes of
 * <root>/ledger.json, else a valid schema 2 ledger is there.  The step
 * validated against is the one the result's step_id names, else step
 * (size % steps).  The flag TC_RESULT_ALLOW_SYSTEM is set for inputs
 * whose size is a multiple of 3.
 *
 * Invariants: every refusal has a message; a result that validates for
 * the first (pending) step seals, and the sealed session verifies.
 */
#include "fuzz_common.h"
#include "tunectl/report.h"
#include "tunectl/session.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define RES_LEDGER \
	"{\"schema_version\": 2, \"experiments\": {}, \"final_e2e\": " \
	"{\"classification\": \"beneficial\", \"candidate_id\": \"Sbest\", " \
	"\"scope_strategy\": \"explicit_candidates\", \"option_config\": " \
	"{\"auto_op_parallel\": true}, \"evidence_artifacts\": [\"evidence.json\"], " \
	"\"reason_zh\": \"依据最终 clean E2E 结算。\", \"baseline\": " \
	"{\"median_ms\": 10.0, \"sample_count\": 5}, \"candidate\": " \
	"{\"median_ms\": 9.0, \"sample_count\": 5}, \"improvement_pct\": 10.0}}"

static const char *res_root;
static char *res_session_path;
static char *res_session_bytes;
static size_t res_session_len;
static tc_session *res_session;

static void
res_init(void)
{
	tc_error err = TC_ERROR_INIT;
	tc_json *doc;

	res_root = fz_mkroot("result");
	res_session_path = tc_xasprintf("%s/auto-tune-session.json", res_root);
	doc = tc_session_init(res_session_path, res_root, "session-20260905-a",
	    "both", &err);
	FZ_REQUIRE(doc != NULL);
	tc_json_free(doc);
	res_session_bytes = tc_read_file(res_session_path, 0, &res_session_len,
	    &err);
	FZ_REQUIRE(res_session_bytes != NULL);
	FZ_REQUIRE(tc_session_load(res_session_path, 0, &res_session, &err) == 0);
}

/* Put the scratch root back as res_init left it. */
static void
res_reset(const char *ledger, size_t ledger_len)
{
	char *phases = tc_xasprintf("%s/phases", res_root);

	fz_rmtree(phases);
	free(phases);
	fz_write(res_root, "auto-tune-session.json", res_session_bytes,
	    res_session_len);
	fz_write_str(res_root, "evidence.json", "{}\n");
	if (ledger != NULL)
		fz_write(res_root, "ledger.json", ledger, ledger_len);
	else
		fz_write_str(res_root, "ledger.json", RES_LEDGER);
}

static void
res_seal_first(const tc_json *result)
{
	tc_error err = TC_ERROR_INIT;
	tc_session *sealed = NULL;
	tc_json *v;

	if (fz_status(tc_seal_handoff(res_session_path, result, 0, &sealed,
	    &err), &err) != 0)
		return;
	tc_session_free(sealed);
	v = tc_verify_session(res_session_path, TC_VERIFY_ALL);
	if (!tc_json_is(tc_json_get(v, "valid"), TC_JSON_BOOL) ||
	    !tc_json_get(v, "valid")->u.b) {
		tc_buf b = TC_BUF_INIT;

		tc_json_repr(&b, v);
		fprintf(stderr, "sealed session does not verify: %s\n",
		    tc_buf_cstr(&b));
		abort();
	}
	tc_json_free(v);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *parts[2];
	size_t lens[2], n, index = 0, nsteps;
	tc_error err = TC_ERROR_INIT;
	tc_json *result, *step;
	const char *step_id;
	unsigned flags = size % 3 == 0 ? TC_RESULT_ALLOW_SYSTEM : 0;

	if (res_root == NULL)
		res_init();
	n = fz_split(data, size, parts, lens, 2);
	res_reset(n > 1 ? parts[1] : NULL, n > 1 ? lens[1] : 0);
	if ((result = fz_parse(parts[0], lens[0])) == NULL)
		return 0;
	nsteps = tc_session_step_count(res_session);
	step_id = tc_json_get_string(result, "step_id");
	step = step_id != NULL ?
	    tc_session_find_step(res_session, step_id, &index) : NULL;
	if (step == NULL) {
		index = size % nsteps;
		step = tc_session_step_at(res_session, index);
	}
	if (fz_status(tc_result_validate(result, step, res_session, flags,
	    &err), &err) == 0) {
		char *md = fz_result(tc_report_phase_md(result, step, &err),
		    &err);

		free(md);
		if (index == 0 && flags == 0)
			res_seal_first(result);
	}
	tc_json_free(result);
	return 0;
}
