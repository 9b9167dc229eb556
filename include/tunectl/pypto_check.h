/*
 * pypto_check.h - the file-decidable part of the verifier's stage5-check
 * (docs/spec/pypto.md "Stage 5 check gates", gates P1-P8).
 *
 * Every gate is reported as PASS, FAIL (with the reference's
 * failure_category), PARTIAL (its file-decidable part passed and the rest
 * needs an NPU run or human review) or UNDECIDED.  The 15 Stage 4 gates
 * and P5 need the final code executed on the target hardware and are
 * never reported as PASS here, so the overall verdict is either "FAILED"
 * or "NOT COMPLETE" (every file-decidable gate passed).
 *
 * The machine-readable facts of PERFORMANCE_REPORT.md live in exactly one
 * fenced block whose info string is "json stage5-evidence" (docs/pypto.md);
 * SPEC.md's facts in its "json machine-contract" block (docs/spec/pypto.md
 * "SPEC machine contract").
 */
#ifndef TUNECTL_PYPTO_CHECK_H
#define TUNECTL_PYPTO_CHECK_H

#include "tunectl/error.h"
#include "tunectl/json.h"

typedef struct tc_pypto_check_opts {
	const char *op_dir;
	const char *dispatch_path;	/* NULL: derived from the state */
	const tc_json *dispatch;	/* in memory; overrides dispatch_path */
	const char *report_path;	/* NULL: <op>/PERFORMANCE_REPORT.md */
	const char *review_path;	/* the verifier's review evidence */
	const tc_json *review;		/* the same, in memory */
	const char *interpreter;	/* runs the final code; NULL: python3 */
	double timeout_s;		/* per run; <= 0: 600 */
	const char *gates;		/* comma list to run only these gates
					 * (never a PASS); NULL: all */
} tc_pypto_check_opts;

/* Run the gates.  Returns {verdict, failure_category, failed_checks,
 * gates:[{gate, title, status, failure_category, evidence, undecided}]};
 * NULL only when the op dir cannot be used at all. */
tc_json *tc_pypto_check_stage5(const tc_pypto_check_opts *o, tc_error *err);

/* The verdict text in the reference's shape ("Stage 5 verification
 * FAILED." / "Failed checks: ..." / "failure_category: ..." / per gate). */
char *tc_pypto_check_render(const tc_json *result);

/* Write a stage5-check report under <op>/.orchestrator/stage5/ and bind
 * its digest in state (the orchestration record; state is modified, not
 * written).  Refused for a report of a partial gate selection. */
int tc_pypto_check_bind(const char *op_dir, tc_json *state,
    const tc_json *report, tc_error *err);

struct tc_pypto_state_opts;

/* Run the check as the orchestrator and bind its report in the state of
 * a confirmed Stage 5 (check stage5 --record); refused in a worker. */
tc_json *tc_pypto_check_record(const struct tc_pypto_state_opts *o,
    const tc_pypto_check_opts *co, tc_error *err);

/* The JSON of exactly one fenced block with the given info string. */
tc_json *tc_pypto_fenced_json(const char *text, const char *info,
    tc_error *err);

#endif
