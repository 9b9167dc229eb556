/*
 * fuzz_kernel_details.c - libFuzzer target for the kernel_details.csv
 * reader of "tunectl analyze fusion" (src/analysis/kernel_details.c).
 *
 * Input: the bytes of one kernel_details.csv.  Invariants: the reader
 * either accepts the file or fails with a message naming it; every row it
 * hands on has a finite start, a positive finite duration, a line number
 * past the header and valid UTF-8 text fields; every rejected row carries
 * one of the reference's three reasons; an accepted file's fingerprint is
 * the SHA-256 of its bytes.
 */
#include <math.h>

#include "fuzz_common.h"
#include "tunectl/sha256.h"
#include "tunectl/text.h"
#include "../../src/analysis/analysis_internal.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char *kd_root;

static void
kd_text(const char *s)
{
	FZ_REQUIRE(s != NULL && tc_utf8_valid(s, strlen(s)));
}

static int
kd_row(void *ctx, const struct an_row *r, tc_error *err)
{
	size_t *rows = ctx, i;

	(void)err;
	FZ_REQUIRE(isfinite(r->start) && isfinite(r->duration));
	FZ_REQUIRE(r->duration > 0 && r->line >= 2);
	FZ_REQUIRE(!r->end.ok || r->end.v == r->start + r->duration);
	kd_text(r->name);
	kd_text(r->type);
	kd_text(r->model_id);
	kd_text(r->step_id);
	kd_text(r->op_state);
	kd_text(r->accelerator_core);
	for (i = 0; i < 4 && !r->partial; i++)
		kd_text(r->discriminator[i]);
	(*rows)++;
	return 0;
}

static int
kd_rejected(void *ctx, const struct an_rejected *r, tc_error *err)
{
	(void)ctx;
	(void)err;
	FZ_REQUIRE(strcmp(r->reason, "invalid_or_missing_start") == 0 ||
	    strcmp(r->reason, "invalid_or_missing_duration") == 0 ||
	    strcmp(r->reason, "non_positive_duration") == 0);
	kd_text(r->name);
	kd_text(r->model_id);
	return 0;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct an_csv_sink sink;
	tc_error err = TC_ERROR_INIT;
	char hex[65], want[65], *path;
	size_t rows = 0;
	int rc;

	if (kd_root == NULL)
		kd_root = fz_mkroot("kernel-details");
	fz_write(kd_root, "kernel_details.csv", data, size);
	path = tc_xasprintf("%s/kernel_details.csv", kd_root);
	sink.ctx = &rows;
	sink.wants = NULL;
	sink.row = kd_row;
	sink.rejected = kd_rejected;
	rc = tc_analysis__kernel_details_read(path, &sink, NULL, hex, &err);
	if (rc == 0) {
		tc_sha256_hex(data, size, want);
		FZ_REQUIRE(strcmp(hex, want) == 0);
	} else {
		FZ_REQUIRE(strstr(tc_error_msg(&err), path) != NULL);
	}
	tc_error_clear(&err);
	free(path);
	return 0;
}
