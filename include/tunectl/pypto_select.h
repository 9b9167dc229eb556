/*
 * pypto_select.h - Stage 5 best-version selection (pypto-orchestration.md
 * docs/spec/pypto.md "Best-version selection").  Score = (weighted, by default
 * equal-weight) arithmetic mean of case_speedup(c) =
 * frozen_baseline_duration(c) / candidate_duration(c) over the frozen target
 * cases; durations are the per-case formal aggregates of each candidate's
 * compare round.  Among the correct and compliant candidates the anchor A is
 * the raw highest score; S = {A} plus every candidate whose score is within the
 * frozen stability range of A (judged against A only, never pairwise); the
 * member of S with the smallest evaluation_order wins.  All arithmetic is exact
 * (GMP rationals of the binary64 durations), so ties at the boundary of the
 * range are decided the same way on every machine.
 */
#ifndef TUNECTL_PYPTO_SELECT_H
#define TUNECTL_PYPTO_SELECT_H

#include <stdbool.h>
#include <stddef.h>

#include "tunectl/error.h"
#include "tunectl/json.h"

typedef struct tc_pypto_score_in {
	const char *id;
	long evaluation_order;
	bool rankable;			/* correct and compliant */
	const double *durations;	/* per case, aligned with the rule */
} tc_pypto_score_in;

typedef struct tc_pypto_selection_rule {
	size_t n_cases;
	const char *const *case_ids;
	const double *baseline;		/* frozen baseline per case */
	const bool *target;		/* in optimization_target.case_ids */
	const double *weights;		/* NULL: equal weights */
	bool relative;			/* stability range relative to |A| */
	const char *stability_value;	/* non-negative decimal text */
} tc_pypto_selection_rule;

/* The pure ranking: {candidates:[...], anchor, tie_set, selected,
 * baseline_kept}.  Candidates keep their input order. */
tc_json *tc_pypto_rank(const tc_pypto_selection_rule *rule,
    const tc_pypto_score_in *cands, size_t n, tc_error *err);

typedef struct tc_pypto_select_opts {
	const char *op_dir;
	const char *candidates_path;
	const char *stability_kind;	/* required without a frozen contract */
	const char *stability_value;
	const char *manifest_path;	/* target cases without a frozen contract */
} tc_pypto_select_opts;

/*
 * Load the candidate table (docs/pypto.md), re-verify every candidate's
 * round from its raw evidence, check evaluation_order (baseline 0, then
 * 1, 2, ... in the order the rounds were collected), rank, and return the
 * full recomputable table.
 */
tc_json *tc_pypto_select(const tc_pypto_select_opts *o, tc_error *err);

/* The candidate table as Markdown (for PERFORMANCE_REPORT.md). */
char *tc_pypto_selection_markdown(const tc_json *selection);

#endif
