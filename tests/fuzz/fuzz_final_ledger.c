/*
 * fuzz_final_ledger.c - libFuzzer target for the Final step's view of the
 * ledger (docs/spec/controller.md "The Final step's ledger", final.h): the
 * ledger file a Final result names (tc_final_load_ledger: read, NaN-tolerant
 * parse, shape, final_e2e, report_summary with evidence files under the root),
 * the final_e2e record and classification mapping, and the Final-only result
 * checks (tc_final_check_result), including an untrusted ledger_path.
 *
 * Input: part 0 the bytes of <root>/ledger.json; part 1 (optional) a Final
 * phase result, whose ledger_path is used as given.
 *
 * Invariants: every refusal has a message; a loaded ledger passes the
 * shape check and its final_e2e validates and maps to a status; a
 * ledger_path that is absolute or has a ".." component is always
 * refused; a result that passes hands over a ledger whose final_e2e maps
 * to the result's status.
 */
#include "fuzz_common.h"
#include "tunectl/final.h"
#include "tunectl/path.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char *fin_root;

static bool
fin_traverses(const tc_json *ledger_path)
{
	const char *s = tc_json_string(ledger_path);

	return s != NULL && (s[0] == '/' || strcmp(s, "..") == 0 ||
	    strncmp(s, "../", 3) == 0 || strstr(s, "/../") != NULL ||
	    (strlen(s) >= 3 && strcmp(s + strlen(s) - 3, "/..") == 0));
}

static void
fin_check_ledger(const tc_json *ledger)
{
	tc_error err = TC_ERROR_INIT;
	const tc_json *e2e = tc_json_get(ledger, "final_e2e");

	FZ_REQUIRE(tc_final_ledger_is_schema2(ledger));
	FZ_REQUIRE(tc_final_check_ledger_shape(ledger, &err) == 0);
	FZ_REQUIRE(tc_final_validate_e2e(e2e, &err) == 0);
	FZ_REQUIRE(tc_final_status_for(e2e) != NULL);
	(void)tc_final_is_measured(e2e);
	(void)tc_final_outcome_label(tc_final_status_for(e2e));
	(void)tc_final_outcome_label_en(tc_final_status_for(e2e));
	if (tc_json_get(ledger, "report_summary") != NULL)
		FZ_REQUIRE(tc_final_validate_report_summary(
		    tc_json_get(ledger, "report_summary"), e2e, fin_root,
		    &err) == 0);
	tc_error_clear(&err);
}

static void
fin_result(const char *text, size_t len)
{
	tc_error err = TC_ERROR_INIT;
	tc_json *result = fz_parse(text, len), *ledger = NULL, *v;
	int rc;

	if (result == NULL)
		return;
	v = fz_result(tc_final_load_ledger_value(fin_root,
	    tc_json_get(result, "ledger_path"), &err), &err);
	if (fin_traverses(tc_json_get(result, "ledger_path")))
		FZ_REQUIRE(v == NULL);
	tc_json_free(v);
	rc = fz_status(tc_final_check_result(result, fin_root, &ledger, &err),
	    &err);
	if (rc == 0) {
		const char *status = tc_json_get_string(result, "status");

		FZ_REQUIRE(!fin_traverses(tc_json_get(result, "ledger_path")));
		FZ_REQUIRE(ledger != NULL);
		FZ_REQUIRE(status != NULL && strcmp(status,
		    tc_final_status_for(tc_json_get(ledger, "final_e2e"))) == 0);
		tc_json_free(ledger);
	}
	tc_json_free(result);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *parts[2];
	size_t lens[2], n;
	tc_error err = TC_ERROR_INIT;
	tc_json *ledger, *doc;

	if (fin_root == NULL)
		fin_root = fz_mkroot("final");
	n = fz_split(data, size, parts, lens, 2);
	fz_write(fin_root, "ledger.json", parts[0], lens[0]);
	fz_write_str(fin_root, "evidence.json", "{}\n");
	fz_write_str(fin_root, "evidence/final.json", "{}\n");

	ledger = fz_result(tc_final_load_ledger(fin_root, "ledger.json", &err),
	    &err);
	if (ledger != NULL) {
		fin_check_ledger(ledger);
		tc_json_free(ledger);
	}
	/* the same checks one by one on whatever parses */
	if ((doc = fz_parse(parts[0], lens[0])) != NULL) {
		const tc_json *e2e = tc_json_get(doc, "final_e2e");
		const char *cls = tc_json_get_string(e2e, "classification");

		(void)fz_status(tc_final_check_ledger_shape(doc, &err), &err);
		if (fz_status(tc_final_validate_e2e(e2e, &err), &err) == 0)
			FZ_REQUIRE(tc_final_status_for(e2e) != NULL);
		if (cls != NULL)
			(void)tc_final_status_for_class(cls);
		(void)fz_status(tc_final_validate_report_summary(
		    tc_json_get(doc, "report_summary"), e2e, fin_root, &err),
		    &err);
		tc_json_free(doc);
	}
	if (n > 1)
		fin_result(parts[1], lens[1]);
	return 0;
}
