/*
 * fuzz_report_summary.c - libFuzzer target for report_summary
 * (docs/spec/controller.md "Report summary") and the reports rendered from the
 * ledger: summary validation against a final_e2e with evidence files under the
 * artifact root, the FINAL_E2E_REPORT.md renderer (both languages, with a
 * --summary override), and the HTML report of the session.
 *
 * Fixture: a completed session whose Final step names ledger.json.
 * Input: part 0 a report_summary (the --summary override); part 1
 * (optional) the bytes of ledger.json for this input (else the fixture's
 * ledger).
 *
 * Invariants: every refusal has a message; a summary that validates
 * against the ledger that loads renders; the HTML report never contains
 * markup that came from a document ("<script", "<iframe", "javascript:").
 */
#include "fuzz_common.h"
#include "tunectl/final.h"
#include "tunectl/html.h"
#include "tunectl/report.h"
#include "../unit/test_derive_fixture.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static struct dfx *sum_fx;
static tc_json *sum_session;
static char *sum_ledger_bytes;
static size_t sum_ledger_len;

static void
sum_cleanup(void)
{
	dfx_free(sum_fx);
	tc_json_free(sum_session);
	free(sum_ledger_bytes);
}

static void
sum_init(void)
{
	tc_error err = TC_ERROR_INIT;
	char *ledger;

	sum_fx = dfx_new();
	dfx_parent(sum_fx, "none", NULL);
	atexit(sum_cleanup);
	sum_session = tc_json_parse_file(sum_fx->psession, &err);
	ledger = dfx_path(sum_fx, "ledger.json");
	sum_ledger_bytes = tc_read_file(ledger, 0, &sum_ledger_len, &err);
	FZ_REQUIRE(sum_session != NULL && sum_ledger_bytes != NULL);
	free(ledger);
	fz_write_str(sum_fx->proot, "evidence.json", "{}\n");
	fz_write_str(sum_fx->proot, "evidence/summary.json", "{}\n");
}

static void
sum_html(void)
{
	tc_error err = TC_ERROR_INIT;
	tc_buf out = TC_BUF_INIT;

	if (fz_status(tc_report_html(sum_fx->psession, &out, &err), &err) == 0) {
		const char *html = tc_buf_cstr(&out);

		FZ_REQUIRE(strstr(html, "<script") == NULL);
		FZ_REQUIRE(strstr(html, "<iframe") == NULL);
		FZ_REQUIRE(strstr(html, "javascript:") == NULL);
	}
	tc_buf_free(&out);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *parts[2];
	size_t lens[2], n;
	tc_error err = TC_ERROR_INIT;
	tc_json *summary, *ledger;
	char *md;
	int ok = -1;

	if (sum_fx == NULL)
		sum_init();
	n = fz_split(data, size, parts, lens, 2);
	if (n > 1)
		fz_write(sum_fx->proot, "ledger.json", parts[1], lens[1]);
	else
		fz_write(sum_fx->proot, "ledger.json", sum_ledger_bytes,
		    sum_ledger_len);
	ledger = fz_result(tc_final_load_ledger(sum_fx->proot, "ledger.json",
	    &err), &err);
	summary = fz_parse(parts[0], lens[0]);
	if (summary != NULL && ledger != NULL)
		ok = fz_status(tc_final_validate_report_summary(summary,
		    tc_json_get(ledger, "final_e2e"), sum_fx->proot, &err),
		    &err);
	FZ_NOTE("ledger %s, summary %s, summary valid: %d\n",
	    ledger != NULL ? "loads" : "refused",
	    summary != NULL ? "parses" : "does not parse", ok == 0);
	if (summary != NULL) {
		md = fz_result(tc_report_final_md(sum_session, summary,
		    TC_REPORT_ZH, &err), &err);
		if (ok == 0 && md == NULL)
			FZ_REQUIRE(fz_has_surrogate(summary) ||
			    fz_has_surrogate(ledger));
		free(md);
		md = fz_result(tc_report_final_md(sum_session, summary,
		    TC_REPORT_EN, &err), &err);
		free(md);
	}
	/* the ledger's own summary */
	md = fz_result(tc_report_final_md(sum_session, NULL, TC_REPORT_ZH, &err),
	    &err);
	if (ledger != NULL && md == NULL)
		FZ_REQUIRE(fz_has_surrogate(ledger));
	free(md);
	sum_html();
	tc_json_free(summary);
	tc_json_free(ledger);
	return 0;
}
