/*
 * paired.c - the improvement interval of a comparison measured
 * interleaved.  `bench ab` takes one run of each side in turn, so run k
 * of the baseline and run k of a candidate ran in the same round, side by
 * side in time: a neighbour that slowed one slowed the other.  When both
 * run sets record the same interleaved measurement (runset.json
 * "interleaved": the same sides, the baseline as side A), the bootstrap
 * resamples rounds, keeping each candidate run with the baseline run of
 * its round (tc_bootstrap_paired_improvement_ci); otherwise it resamples
 * each run set on its own (tc_bootstrap_improvement_ci), as before.  Gate
 * analyze, ledger final-e2e and so every recomputation of their reports
 * draw the interval here, so they agree.
 */
#include <string.h>

#include "tunectl/bench.h"
#include "tunectl/path.h"
#include "tunectl/stats.h"

bool
tc_runset_manifests_interleaved(const tc_json *base_manifest,
    const tc_json *cand_manifest)
{
	const tc_json *bi = tc_json_get(base_manifest, "interleaved");
	const tc_json *ci = tc_json_get(cand_manifest, "interleaved");
	const char *brole = tc_json_get_string(bi, "role");
	const char *crole = tc_json_get_string(ci, "role");
	const tc_json *sides = tc_json_get(bi, "sides");

	return brole != NULL && crole != NULL && strcmp(brole, "A") == 0 &&
	    strcmp(crole, "A") != 0 && tc_json_is(sides, TC_JSON_ARRAY) &&
	    tc_json_equal(sides, tc_json_get(ci, "sides"));
}

bool
tc_runset_paired(const tc_runset *base, const tc_runset *cand)
{
	if (!tc_runset_manifests_interleaved(base->manifest, cand->manifest) ||
	    base->run_count == 0 || base->run_count != cand->run_count)
		return false;
	/* run k of each side: the same round (run-K, zero-padded alike) */
	for (size_t k = 0; k < base->run_count; k++)
		if (strcmp(tc_path_basename(base->runs[k].path),
		    tc_path_basename(cand->runs[k].path)) != 0)
			return false;
	return true;
}

bool
tc_runset_improvement_ci(const tc_runset *base, const tc_runset *cand,
    unsigned resamples, uint64_t seed, double *lo, double *hi, bool *paired)
{
	bool p = tc_runset_paired(base, cand);

	if (paired != NULL)
		*paired = p;
	if (p)
		return tc_bootstrap_paired_improvement_ci(
		    base->run_worst_rank_means_ms,
		    cand->run_worst_rank_means_ms, base->run_count, resamples,
		    seed, lo, hi);
	return tc_bootstrap_improvement_ci(base->run_worst_rank_means_ms,
	    base->run_count, cand->run_worst_rank_means_ms, cand->run_count,
	    resamples, seed, lo, hi);
}
