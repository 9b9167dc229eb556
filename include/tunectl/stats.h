/*
 * stats.h - the statistics the measurement gates use, reproducing Python's
 * statistics module on binary64 input bit for bit, plus the two
 * beyond-the-reference tests (bootstrap interval, Mann-Whitney U).
 *
 *   tc_stat_mean     statistics.mean: exact rational mean, rounded once
 *   tc_stat_median   statistics.median: middle value, or (a + b) / 2
 *   tc_stat_pstdev   statistics.pstdev (Python >= 3.11): the correctly
 *                    rounded square root of the exact population variance
 *   tc_stat_quantile the reference's q(values, p): linear interpolation at
 *                    (n - 1) * p, "v[lo] + (v[hi] - v[lo]) * frac"
 *
 * Every function takes the values in any order and leaves them untouched;
 * n must be > 0 (callers report "cannot summarize an empty sample set").
 */
#ifndef TUNECTL_STATS_H
#define TUNECTL_STATS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

double tc_stat_mean(const double *v, size_t n);
double tc_stat_median(const double *v, size_t n);
double tc_stat_pstdev(const double *v, size_t n);
double tc_stat_quantile(const double *v, size_t n, double p);
double tc_stat_min(const double *v, size_t n);
double tc_stat_max(const double *v, size_t n);

/* The reference's Stats block (docs/spec/gates.md "Run-set statistics"). */
typedef struct tc_stats {
	size_t count;
	double mean_ms;
	double p50_ms;
	double p90_ms;
	double stddev_ms;
	double min_ms;
	double max_ms;
} tc_stats;

/* All fields at once (one copy, selection instead of a full sort).
 * n must be > 0. */
void tc_stats_compute(const double *v, size_t n, tc_stats *out);

/* ---- beyond the reference ------------------------------------------- */

#define TC_BOOTSTRAP_RESAMPLES	10000
/* The most rounds tunectl runs: gate --bootstrap-resamples, and a gate
 * report recomputed from its provenance record (which a worker writes). */
#define TC_BOOTSTRAP_RESAMPLES_MAX	10000000
#define TC_BOOTSTRAP_SEED	UINT64_C(0x74756e6563746c31)	/* "tunectl1" */

/*
 * Percentile bootstrap of the improvement percentage
 * (mean(base) - mean(cand)) / mean(base) * 100: each of `resamples`
 * rounds draws nb values from base and nc from cand with replacement
 * (xoshiro256** seeded through splitmix64 from `seed`), and the interval
 * is [q(0.025), q(0.975)] of the sorted round results with the same q()
 * as tc_stat_quantile.  Deterministic for a given input, seed and count.
 * Rounds whose resampled baseline mean is 0 are skipped.  Returns false
 * when no round was usable (both bounds are then NaN).
 */
bool tc_bootstrap_improvement_ci(const double *base, size_t nb,
    const double *cand, size_t nc, unsigned resamples, uint64_t seed,
    double *lo, double *hi);

/*
 * The same interval for n paired runs: base[k] and cand[k] were taken in
 * the same round of an interleaved measurement.  Each round draws n round
 * indices with replacement and takes both sides' runs of those rounds,
 * so drift between rounds (a neighbour starting or stopping) moves both
 * means alike.  The same generator, seed and q() as above.
 */
bool tc_bootstrap_paired_improvement_ci(const double *base,
    const double *cand, size_t n, unsigned resamples, uint64_t seed,
    double *lo, double *hi);

/*
 * The improvement of a figure better higher (a throughput), in percent,
 * from the improvement pct of the reciprocal 1/value its runs log (what
 * a gate compares, lower is better).  The reciprocal's mean fell from b
 * to c = b (1 - pct/100); the figure that mean stands for, 1/c against
 * 1/b, rose by the factor b/c = 1/(1 - pct/100), so the result is
 * (1/(1 - pct/100) - 1) * 100 = pct / (1 - pct/100).  The map rises
 * with pct, so the bounds of an interval map one by one (lower to lower).
 * pct >= 100 (a reciprocal at or below 0, which no positive figure
 * gives) is +infinity; NaN stays NaN.
 */
double tc_reciprocal_gain_pct(double pct);

/*
 * Percentile bootstrap of the median (statistics.median semantics) of
 * v[0..n): `resamples` rounds of n draws with replacement, the same
 * generator and q() as above; the interval is [q(0.025), q(0.975)].
 * Used on paired ratios of an interleaved A/B compare.  Returns false
 * (NaN bounds) for an empty sample or no rounds.
 */
bool tc_bootstrap_median_ci(const double *v, size_t n, unsigned resamples,
    uint64_t seed, double *lo, double *hi);

/*
 * Two-sided Mann-Whitney U test of base against cand.  u is U of base
 * (count of pairs with base > cand, ties counting 1/2).  Exact
 * (enumerated distribution of U) when there are no ties and
 * nb * nc <= TC_MWU_EXACT_MAX_PAIRS; otherwise the normal approximation
 * with tie correction and a 0.5 continuity correction.  p is capped at
 * 1.  method is "exact" or "normal".
 */
#define TC_MWU_EXACT_MAX_PAIRS	2500
typedef struct tc_mwu {
	double u;
	double p_value;
	const char *method;
} tc_mwu;

void tc_mann_whitney(const double *base, size_t nb, const double *cand,
    size_t nc, tc_mwu *out);

#endif
