/*
 * fuzz_projection_csv.c - libFuzzer target for the CSV reader of the
 * structural projection (src/analysis/projection.c), a reader of its own
 * beside kernel_details.c: csv.reader's records, a UTF-8 BOM skipped,
 * exact decimals for start and duration.  Driven through the candidate
 * rows the projection reads (tc_analysis__candidate_sk_rows); the baseline
 * rows go through the same record splitter.
 *
 * Input: the bytes of one kernel_details.csv.  Invariants: the reader
 * either accepts the file or fails with a message; reading twice gives
 * the same rows; every SK row it keeps has non-negative device, model,
 * SK id and step and both time texts; there are no more rows than lines.
 */
#include "fuzz_common.h"
#include "../../src/analysis/analysis_internal.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char *pc_root;

static size_t
pc_lines(const uint8_t *data, size_t size)
{
	size_t i, n = 1;

	for (i = 0; i < size; i++)
		if (data[i] == '\n' || data[i] == '\r')
			n++;
	return n;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct an_sk_row *rows = NULL, *again = NULL;
	size_t n = 0, n2 = 0, i;
	tc_error err = TC_ERROR_INIT;
	char *path;
	int rc, rc2;

	if (pc_root == NULL)
		pc_root = fz_mkroot("projection-csv");
	fz_write(pc_root, "kernel_details.csv", data, size);
	path = tc_xasprintf("%s/kernel_details.csv", pc_root);
	rc = tc_analysis__candidate_sk_rows(path, &rows, &n, &err);
	if (rc != 0) {
		FZ_REQUIRE(tc_error_msg(&err)[0] != '\0');
		FZ_REQUIRE(rows == NULL && n == 0);
	} else {
		FZ_REQUIRE(n <= pc_lines(data, size));
		for (i = 0; i < n; i++) {
			FZ_REQUIRE(rows[i].device >= 0 && rows[i].model >= 0);
			FZ_REQUIRE(rows[i].sk >= 0 && rows[i].step >= 0);
			FZ_REQUIRE(rows[i].start_text != NULL &&
			    rows[i].dur_text != NULL);
		}
	}
	tc_error_clear(&err);
	rc2 = tc_analysis__candidate_sk_rows(path, &again, &n2, &err);
	FZ_REQUIRE(rc2 == rc && n2 == n);
	for (i = 0; i < n && rc == 0; i++) {
		FZ_REQUIRE(rows[i].sk == again[i].sk &&
		    rows[i].step == again[i].step);
		FZ_REQUIRE(strcmp(rows[i].start_text, again[i].start_text) == 0);
	}
	tc_error_clear(&err);
	tc_analysis__sk_rows_free(rows, n);
	tc_analysis__sk_rows_free(again, n2);
	free(path);
	return 0;
}
