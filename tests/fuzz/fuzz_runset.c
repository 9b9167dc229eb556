/*
 * fuzz_runset.c - libFuzzer target for measurement run sets
 * (docs/spec/gates.md "The performance analysis") and the gate documents: the
 * rank-log parser and run-set loader (tc_runset_load over a scratch run
 * directory), runset.json, the statistics, S0 stability, the promotion
 * gate of a run set against itself, and the screening-matrix v2 and
 * winner-option-matrix v1 validators.
 *
 * Input: part 0 the rank log run-1/log_0.log; part 1 (optional)
 * run-1/log_1.log (then two ranks are expected); part 2 (optional) the
 * run set's runset.json; part 3 (optional) a screening matrix or winner
 * option matrix document.  The warm-up is the first byte modulo 5 (0 for
 * an empty input).
 *
 * Invariants: every refusal has a message; a loaded run set has at least
 * one decode sample per rank and finite statistics; its JSON form has the
 * run count it was loaded with.
 */
#include <math.h>

#include "fuzz_common.h"
#include "tunectl/bench.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char *rs_root;
static char *rs_dir;

static void
rs_loaded(tc_runset *rs)
{
	tc_error err = TC_ERROR_INIT;
	tc_stability st;
	tc_evaluation ev;
	tc_gate_policy policy = TC_GATE_POLICY_INIT;
	tc_json *v;
	double pct;

	FZ_REQUIRE(isfinite(rs->worst_rank_mean_ms));
	v = tc_runset_to_json(rs);
	FZ_REQUIRE(tc_json_is(v, TC_JSON_OBJECT));
	tc_json_free(v);
	tc_stability_eval_runset(rs, &st);
	v = tc_stability_to_json(&st);
	tc_json_free(v);
	tc_stability_free(&st);
	(void)fz_status(tc_improvement_pct(rs, rs, &pct, &err) == 0 ? 0 : -1,
	    &err);
	tc_evaluate(rs, rs, &policy, TC_GATE_FINAL_PROMOTION, true, &ev);
	tc_evaluate(rs, rs, &policy, TC_GATE_OPTION_TRIAL, true, &ev);
	tc_evaluate(rs, rs, &policy, TC_GATE_SELECTION_ONLY, false, &ev);
}

static void
rs_matrix(const char *text, size_t len)
{
	static const char *const names[] = { "S1", "S2", "S3" };
	tc_error err = TC_ERROR_INIT;
	tc_json *doc = fz_parse(text, len), *v;

	if (doc == NULL)
		return;
	v = fz_result(tc_screening_matrix_validate(doc, names, 3, &err), &err);
	tc_json_free(v);
	v = fz_result(tc_option_matrix_validate(doc, &err), &err);
	tc_json_free(v);
	tc_json_free(doc);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *parts[4];
	size_t lens[4], n;
	tc_error err = TC_ERROR_INIT;
	tc_runset_opts opts = TC_RUNSET_OPTS_INIT;
	tc_runset *rs = NULL;
	int rc;

	if (rs_root == NULL) {
		rs_root = fz_mkroot("runset");
		rs_dir = tc_xasprintf("%s/rs", rs_root);
	}
	fz_reset_root(rs_root);
	n = fz_split(data, size, parts, lens, 4);
	fz_write(rs_root, "rs/run-1/log_0.log", parts[0], lens[0]);
	if (n > 1)
		fz_write(rs_root, "rs/run-1/log_1.log", parts[1], lens[1]);
	if (n > 2)
		fz_write(rs_root, "rs/runset.json", parts[2], lens[2]);
	opts.warmup = size > 0 ? data[0] % 5 : 0;
	opts.expected_ranks = n > 1 ? 2 : 1;
	rc = tc_runset_load(rs_dir, &opts, &rs, &err);
	FZ_REQUIRE(rc == TC_BENCH_OK || rc == TC_BENCH_FAIL ||
	    rc == TC_BENCH_VALUE_ERROR);
	if (rc == TC_BENCH_OK) {
		FZ_REQUIRE(rs != NULL);
		rs_loaded(rs);
		tc_runset_free(rs);
	} else {
		FZ_REQUIRE(tc_error_msg(&err)[0] != '\0');
	}
	tc_error_clear(&err);
	if (n > 3)
		rs_matrix(parts[3], lens[3]);
	return 0;
}
