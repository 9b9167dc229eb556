/*
 * test_fuzz_replay.c - every seed of every fuzz target, replayed through
 * the target's own code path as part of "make check" (no clang or
 * libFuzzer needed).
 *
 * Each tests/fuzz/fuzz_<name>.c is compiled into this file with its
 * LLVMFuzzerTestOneInput renamed, and each test feeds it every file of
 * tests/fuzz/corpus/fuzz_<name>/ in name order.  A target reports a
 * finding by crashing or aborting (its invariants use FZ_REQUIRE), which
 * fails this binary; under "make check SANITIZE=1" the sanitizers watch
 * the replay exactly as they watch a fuzzing run.  Inputs found by
 * fuzzing that once crashed are kept in the corpora, so each is a
 * regression test here.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tunectl/buf.h"
#include "tunectl/error.h"
#include "tunectl/fileio.h"

#define LLVMFuzzerTestOneInput fuzz_json_reader_one
#include "../fuzz/fuzz_json_reader.c"
#undef LLVMFuzzerTestOneInput
#define LLVMFuzzerTestOneInput fuzz_session_one
#include "../fuzz/fuzz_session.c"
#undef LLVMFuzzerTestOneInput
#define LLVMFuzzerTestOneInput fuzz_result_one
#include "../fuzz/fuzz_result.c"
#undef LLVMFuzzerTestOneInput
#define LLVMFuzzerTestOneInput fuzz_dispatch_task_one
#include "../fuzz/fuzz_dispatch_task.c"
#undef LLVMFuzzerTestOneInput
#define LLVMFuzzerTestOneInput fuzz_receipt_one
#include "../fuzz/fuzz_receipt.c"
#undef LLVMFuzzerTestOneInput
#define LLVMFuzzerTestOneInput fuzz_evidence_import_one
#include "../fuzz/fuzz_evidence_import.c"
#undef LLVMFuzzerTestOneInput
#define LLVMFuzzerTestOneInput fuzz_ledger_one
#include "../fuzz/fuzz_ledger.c"
#undef LLVMFuzzerTestOneInput
#define LLVMFuzzerTestOneInput fuzz_final_ledger_one
#include "../fuzz/fuzz_final_ledger.c"
#undef LLVMFuzzerTestOneInput
#define LLVMFuzzerTestOneInput fuzz_report_summary_one
#include "../fuzz/fuzz_report_summary.c"
#undef LLVMFuzzerTestOneInput
#define LLVMFuzzerTestOneInput fuzz_phase_manifest_one
#include "../fuzz/fuzz_phase_manifest.c"
#undef LLVMFuzzerTestOneInput
#define LLVMFuzzerTestOneInput fuzz_lease_one
#include "../fuzz/fuzz_lease.c"
#undef LLVMFuzzerTestOneInput
#define LLVMFuzzerTestOneInput fuzz_runset_one
#include "../fuzz/fuzz_runset.c"
#undef LLVMFuzzerTestOneInput
#define LLVMFuzzerTestOneInput fuzz_pypto_state_one
#include "../fuzz/fuzz_pypto_state.c"
#undef LLVMFuzzerTestOneInput
#define LLVMFuzzerTestOneInput fuzz_pypto_cases_one
#include "../fuzz/fuzz_pypto_cases.c"
#undef LLVMFuzzerTestOneInput
#define LLVMFuzzerTestOneInput fuzz_pypto_items_one
#include "../fuzz/fuzz_pypto_items.c"
#undef LLVMFuzzerTestOneInput
#define LLVMFuzzerTestOneInput fuzz_report_html_one
#include "../fuzz/fuzz_report_html.c"
#undef LLVMFuzzerTestOneInput
#define LLVMFuzzerTestOneInput fuzz_support_one
#include "../fuzz/fuzz_support.c"
#undef LLVMFuzzerTestOneInput
#define LLVMFuzzerTestOneInput fuzz_tune_spec_one
#include "../fuzz/fuzz_tune_spec.c"
#undef LLVMFuzzerTestOneInput
#define LLVMFuzzerTestOneInput fuzz_pypto_orch_one
#include "../fuzz/fuzz_pypto_orch.c"
#undef LLVMFuzzerTestOneInput
#define LLVMFuzzerTestOneInput fuzz_kernel_details_one
#include "../fuzz/fuzz_kernel_details.c"
#undef LLVMFuzzerTestOneInput
#define LLVMFuzzerTestOneInput fuzz_sk_meta_one
#include "../fuzz/fuzz_sk_meta.c"
#undef LLVMFuzzerTestOneInput
#define LLVMFuzzerTestOneInput fuzz_projection_csv_one
#include "../fuzz/fuzz_projection_csv.c"
#undef LLVMFuzzerTestOneInput
#define LLVMFuzzerTestOneInput fuzz_fused_meta_one
#include "../fuzz/fuzz_fused_meta.c"
#undef LLVMFuzzerTestOneInput

typedef int (*replay_fn)(const uint8_t *data, size_t size);

static int
cmp_names(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Feed every file of the target's corpus; returns how many. */
static size_t
replay_corpus(const char *target, replay_fn fn)
{
	const char *src = getenv("TUNECTL_SRC");
	char *dir = tc_xasprintf("%s/tests/fuzz/corpus/%s",
	    src != NULL && *src != '\0' ? src : ".", target);
	DIR *d = opendir(dir);
	struct dirent *de;
	char **names = NULL;
	size_t n = 0, i;

	if (d == NULL)
		fail_msg("cannot open the corpus %s", dir);
	while ((de = readdir(d)) != NULL) {
		if (de->d_name[0] == '.')
			continue;
		names = tc_xrealloc(names, (n + 1) * sizeof(*names));
		names[n++] = tc_xasprintf("%s/%s", dir, de->d_name);
	}
	closedir(d);
	qsort(names, n, sizeof(*names), cmp_names);
	for (i = 0; i < n; i++) {
		tc_error err = TC_ERROR_INIT;
		size_t len;
		char *data = tc_read_file(names[i], 16u << 20, &len, &err);

		if (data == NULL)
			fail_msg("%s", tc_error_msg(&err));
		(void)fn((const uint8_t *)data, len);
		free(data);
		free(names[i]);
	}
	free(names);
	free(dir);
	return n;
}

#define REPLAY_TEST(name)						\
static void								\
name##_corpus_replays_without_a_finding(void **state)			\
{									\
	(void)state;							\
	assert_true(replay_corpus(#name, name##_one) > 0);		\
}

REPLAY_TEST(fuzz_json_reader)
REPLAY_TEST(fuzz_session)
REPLAY_TEST(fuzz_result)
REPLAY_TEST(fuzz_dispatch_task)
REPLAY_TEST(fuzz_receipt)
REPLAY_TEST(fuzz_evidence_import)
REPLAY_TEST(fuzz_ledger)
REPLAY_TEST(fuzz_final_ledger)
REPLAY_TEST(fuzz_report_summary)
REPLAY_TEST(fuzz_phase_manifest)
REPLAY_TEST(fuzz_lease)
REPLAY_TEST(fuzz_runset)
REPLAY_TEST(fuzz_pypto_state)
REPLAY_TEST(fuzz_pypto_cases)
REPLAY_TEST(fuzz_pypto_items)
REPLAY_TEST(fuzz_report_html)
REPLAY_TEST(fuzz_support)
REPLAY_TEST(fuzz_pypto_orch)
REPLAY_TEST(fuzz_tune_spec)
REPLAY_TEST(fuzz_kernel_details)
REPLAY_TEST(fuzz_sk_meta)
REPLAY_TEST(fuzz_projection_csv)
REPLAY_TEST(fuzz_fused_meta)

#define T(name) cmocka_unit_test(name##_corpus_replays_without_a_finding)

int
main(void)
{
	const struct CMUnitTest tests[] = {
		T(fuzz_json_reader), T(fuzz_session), T(fuzz_result),
		T(fuzz_dispatch_task), T(fuzz_receipt), T(fuzz_evidence_import),
		T(fuzz_ledger), T(fuzz_final_ledger), T(fuzz_report_summary),
		T(fuzz_phase_manifest), T(fuzz_lease), T(fuzz_runset),
		T(fuzz_pypto_state), T(fuzz_pypto_cases), T(fuzz_pypto_items),
		T(fuzz_report_html),
		T(fuzz_support),
		T(fuzz_pypto_orch),
		T(fuzz_tune_spec),
		T(fuzz_kernel_details),
		T(fuzz_sk_meta),
		T(fuzz_projection_csv),
		T(fuzz_fused_meta),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
