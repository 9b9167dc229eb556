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
 * SK id and step and both time texts; there are no more rows than lines;
 * the file read in pieces of 1 to 16 bytes (the first byte says how
 * many) gives the records of the whole text, in the same order.  The
 * baseline reader keeps no more rows than lines, and gives the same
 * result read here, on a second thread, or joined where it started;
 * a job cancelled at once frees whatever it read.  Each line's plain
 * split (tc_analysis__csv_plain_commas) gives every comma, in order, or
 * refuses a line with a quote, a CR or more commas than it has room for.
 */
#include "fuzz_common.h"
#include "../../src/analysis/analysis_internal.h"
#include "tunectl/text.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Each record's fields, each NUL-ended, then a 0x1e. */
static int
pc_log(void *vctx, const struct an_csv_rec *rec, size_t recno,
    tc_error *err)
{
	tc_buf *out = vctx;
	size_t i;

	(void)err;
	tc_buf_printf(out, "%zu", recno);
	for (i = 0; i < rec->n; i++)
		tc_buf_add(out, rec->f[i], strlen(rec->f[i]) + 1);
	tc_buf_putc(out, '\x1e');
	return 0;
}

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
	{
		tc_buf whole = TC_BUF_INIT, pieces = TC_BUF_INIT;
		size_t piece = size > 0 ? 1 + data[0] % 16 : 1;

		FZ_REQUIRE(tc_analysis__csv_text_each((const char *)data, size,
		    pc_log, &whole, &err) == 0);
		FZ_REQUIRE(tc_analysis__csv_file_each_sized(path, piece,
		    (size_t)1 << 20, false, pc_log, &pieces, &err) == 0);
		FZ_REQUIRE(pieces.len == whole.len && (whole.len == 0 ||
		    memcmp(pieces.data, whole.data, whole.len) == 0));
		/* strict: the same records for UTF-8 text without a BOM,
		 * else -2 with no error text */
		{
			tc_buf strict = TC_BUF_INIT;
			bool utf8 = tc_utf8_valid((const char *)data, size) &&
			    !(size >= 3 && memcmp(data, "\xef\xbb\xbf", 3) == 0);
			int rs = tc_analysis__csv_file_each_sized(path, piece,
			    (size_t)1 << 20, true, pc_log, &strict, &err);

			if (utf8)
				FZ_REQUIRE(rs == 0 && strict.len == whole.len &&
				    (whole.len == 0 || memcmp(strict.data,
				    whole.data, whole.len) == 0));
			else
				FZ_REQUIRE(rs == -2 &&
				    tc_error_msg(&err)[0] == '\0');
			tc_error_clear(&err);
			tc_buf_free(&strict);
		}
		tc_buf_free(&whole);
		tc_buf_free(&pieces);
	}
	{
		struct an_baseline *b = tc_analysis__baseline_read(path), *t, *l;
		size_t kept = tc_analysis__baseline_count(b);

		FZ_REQUIRE(kept == SIZE_MAX || kept <= pc_lines(data, size));
		t = tc_analysis__baseline_join(tc_analysis__baseline_start(path,
		    true), path);
		l = tc_analysis__baseline_join(tc_analysis__baseline_start(path,
		    false), path);
		FZ_REQUIRE(tc_analysis__baseline_count(t) == kept);
		FZ_REQUIRE(tc_analysis__baseline_count(l) == kept);
		tc_analysis__baseline_free(b);
		tc_analysis__baseline_free(t);
		tc_analysis__baseline_free(l);
		tc_analysis__baseline_free(tc_analysis__baseline_join(
		    tc_analysis__baseline_start(path, true), NULL));
	}
	/* each line's plain split against its definition, byte by byte,
	 * with room for every comma and for only a few */
	{
		const char *t = (const char *)data, *end = t + size;
		uint32_t at[AN_PLAIN_COMMAS];

		while (t <= end) {
			const char *nl = memchr(t, '\n', (size_t)(end - t));
			size_t len = nl != NULL ? (size_t)(nl - t) :
			    (size_t)(end - t), max, k, c;
			long got;
			bool plain;

			for (max = 0; max <= AN_PLAIN_COMMAS; max += 3) {
				got = tc_analysis__csv_plain_commas(t, len, at,
				    max);
				plain = memchr(t, '"', len) == NULL &&
				    memchr(t, '\r', len) == NULL;
				for (k = c = 0; plain && k < len; k++)
					if (t[k] == ',' && (c >= max ||
					    at[c++] != k))
						plain = false;
				FZ_REQUIRE(plain ? got == (long)c : got == -1);
				if (len < 16)
					break;	/* short lines: one max */
			}
			if (nl == NULL)
				break;
			t = nl + 1;
		}
	}
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
