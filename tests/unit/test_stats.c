/*
 * test_stats.c - tunectl's statistics against Python's statistics module
 * (values computed with /usr/bin/python3 3.11 while writing the tests) and
 * the reference's quantile, plus the bootstrap and Mann-Whitney extras.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <cmocka.h>

#include "tunectl/stats.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))

static void
mean_is_exact_rational_mean_rounded_once(void **state)
{
	const double a[] = { 0.1, 0.2, 0.3 };
	const double b[] = { 1e16, 1.0, -1e16 };
	const double c[] = { 8.42, 11.48, 11.701, 4.65 };

	(void)state;
	/* naive summation gives 0.20000000000000004 */
	assert_true(tc_stat_mean(a, N(a)) == 0.2);
	assert_true(tc_stat_mean(b, N(b)) == 0.3333333333333333);
	/* sum/len gives 9.06275; statistics.mean 9.062750000000001 */
	assert_true(tc_stat_mean(c, N(c)) == 9.062750000000001);
}

static void
mean_rounds_subnormal_results_correctly(void **state)
{
	const double a[] = { 5e-324, 5e-324, 0.0 };

	(void)state;
	assert_true(tc_stat_mean(a, N(a)) == 5e-324);
}

static void
median_takes_middle_or_average_of_two(void **state)
{
	const double even[] = { 3.0, 1.0, 2.0, 4.0 };
	const double odd[] = { 5.0, 1.0, 3.0 };
	const double one[] = { 7.25 };

	(void)state;
	assert_true(tc_stat_median(even, N(even)) == 2.5);
	assert_true(tc_stat_median(odd, N(odd)) == 3.0);
	assert_true(tc_stat_median(one, 1) == 7.25);
}

static void
pstdev_is_correctly_rounded_sqrt_of_exact_variance(void **state)
{
	const double a[] = { 1.5, 2.5, 2.5, 2.75, 3.25, 4.75 };
	/* sqrt(float(variance)) gives 1.839241570744734 here */
	const double b[] = { 11.9, 7.399, 9.481 };
	const double same[] = { 4.0, 4.0, 4.0 };

	(void)state;
	assert_true(tc_stat_pstdev(a, N(a)) == 0.986893273527251);
	assert_true(tc_stat_pstdev(b, N(b)) == 1.8392415707447338);
	assert_true(tc_stat_pstdev(same, N(same)) == 0.0);
}

static void
pstdev_ties_to_even_below_the_smallest_subnormal(void **state)
{
	const double a[] = { 5e-324, 0.0 };	/* sqrt = 2.5e-324 exactly */

	(void)state;
	assert_true(tc_stat_pstdev(a, N(a)) == 0.0);
}

static void
quantile_interpolates_at_n_minus_one_times_p(void **state)
{
	const double runs[] = { 10.0, 10.1, 10.2, 10.3, 10.4 };
	const double two[] = { 1.0, 2.0 };
	const double four[] = { 4.0, 1.0, 3.0, 2.0 };
	const double one[] = { 7.5 };

	(void)state;
	assert_true(tc_stat_quantile(runs, N(runs), 0.9) == 10.360000000000001);
	assert_true(tc_stat_quantile(two, N(two), 0.9) == 1.9);
	assert_true(tc_stat_quantile(four, N(four), 0.9) == 3.7);
	assert_true(tc_stat_quantile(one, 1, 0.9) == 7.5);
}

static void
stats_block_matches_the_separate_functions(void **state)
{
	const double v[] = { 10.4, 10.0, 10.2, 10.1, 10.3 };
	tc_stats s;

	(void)state;
	tc_stats_compute(v, N(v), &s);
	assert_int_equal(s.count, 5);
	assert_true(s.mean_ms == 10.2);
	assert_true(s.p50_ms == 10.2);
	assert_true(s.p90_ms == 10.360000000000001);
	assert_true(s.stddev_ms == 0.14142135623730975);
	assert_true(s.min_ms == 10.0);
	assert_true(s.max_ms == 10.4);
}

static void
stats_leave_the_input_order_alone(void **state)
{
	const double v[] = { 3.0, 1.0, 2.0 };
	double w[] = { 3.0, 1.0, 2.0 };
	tc_stats s;

	(void)state;
	tc_stats_compute(w, N(w), &s);
	assert_memory_equal(v, w, sizeof(v));
}

static void
large_inputs_use_the_histogram_selection_correctly(void **state)
{
	/* 70001 distinct values (a permutation of k/1000) and 70000 values
	 * with three distinct levels; expectations from python */
	size_t n = 70001;
	double *v = malloc(n * sizeof(*v));
	tc_stats s;

	(void)state;
	assert_non_null(v);
	for (size_t i = 0; i < n; i++)
		v[i] = (double)((i * 7919) % 70001) / 1000.0;
	tc_stats_compute(v, n, &s);
	assert_true(s.p50_ms == 35.0);
	assert_true(s.p90_ms == 63.0);
	assert_true(s.mean_ms == 35.0);
	assert_true(s.stddev_ms == 20.207548094709562);
	for (size_t i = 0; i < 70000; i++)
		v[i] = (double)(i % 3) * 0.5 + 10.0;
	tc_stats_compute(v, 70000, &s);
	assert_true(s.p50_ms == 10.5);
	assert_true(s.p90_ms == 11.0);
	assert_true(s.mean_ms == 10.499992857142857);
	assert_true(s.stddev_ms == 0.40824974842838146);
	free(v);
}

static void
bootstrap_of_constant_sets_is_the_point_value(void **state)
{
	const double b[] = { 10.0, 10.0, 10.0, 10.0, 10.0 };
	const double c[] = { 8.0, 8.0, 8.0 };
	double lo, hi;

	(void)state;
	assert_true(tc_bootstrap_improvement_ci(b, N(b), c, N(c), 1000, 1,
	    &lo, &hi));
	assert_true(lo == 20.0);
	assert_true(hi == 20.0);
}

static void
bootstrap_is_deterministic_per_seed(void **state)
{
	const double b[] = { 10.0, 10.1, 10.2, 10.3, 10.4 };
	const double c[] = { 9.9, 10.0, 10.3 };
	double lo1, hi1, lo2, hi2, lo3, hi3;

	(void)state;
	tc_bootstrap_improvement_ci(b, N(b), c, N(c), 2000, 42, &lo1, &hi1);
	tc_bootstrap_improvement_ci(b, N(b), c, N(c), 2000, 42, &lo2, &hi2);
	tc_bootstrap_improvement_ci(b, N(b), c, N(c), 2000, 43, &lo3, &hi3);
	assert_true(lo1 == lo2 && hi1 == hi2);
	assert_true(lo1 != lo3 || hi1 != hi3);
	assert_true(lo1 < hi1);
	assert_true(lo1 < 0 && hi1 > 0);	/* overlapping sets */
}

static void
bootstrap_without_data_reports_no_interval(void **state)
{
	const double b[] = { 1.0 };
	double lo, hi;

	(void)state;
	assert_false(tc_bootstrap_improvement_ci(b, 1, b, 0, 100, 1, &lo, &hi));
	assert_true(isnan(lo) && isnan(hi));
}

/* Paired by round: rounds that drift together leave the per-round gain,
 * which resampling each side on its own blurs into an interval around 0. */
static void
paired_bootstrap_keeps_each_round_together(void **state)
{
	const double b[] = { 10.0, 14.0, 10.0, 14.0, 12.0 };
	const double c[] = { 9.0, 12.6, 9.0, 12.6, 10.8 };
	const double s[] = { 11.0, 15.4, 11.0, 15.4, 13.2 };
	double lo, hi;

	(void)state;
	assert_true(tc_bootstrap_paired_improvement_ci(b, c, N(b), 2000, 7,
	    &lo, &hi));
	assert_true(fabs(lo - 10.0) < 1e-9 && fabs(hi - 10.0) < 1e-9);
	assert_true(tc_bootstrap_paired_improvement_ci(b, s, N(b), 2000, 7,
	    &lo, &hi));
	assert_true(fabs(lo + 10.0) < 1e-9 && fabs(hi + 10.0) < 1e-9);
	assert_true(tc_bootstrap_improvement_ci(b, N(b), c, N(c), 2000, 7,
	    &lo, &hi));
	assert_true(lo < 0 && hi > 10.0);
	assert_false(tc_bootstrap_paired_improvement_ci(b, c, 0, 100, 1, &lo,
	    &hi));
	assert_true(isnan(lo) && isnan(hi));
}

/* A figure better higher is logged as 1/value: 100 -> 300 GB/s is the
 * reciprocal falling 0.01 -> 0.00333 (-66.67 %), the figure tripling
 * (+200 %); a reciprocal that doubles is the figure halving. */
static void
reciprocal_gain_is_the_figures_own_improvement(void **state)
{
	(void)state;
	assert_true(fabs(tc_reciprocal_gain_pct((0.01 - 0.01 / 3) / 0.01 *
	    100) - 200.0) < 1e-9);
	assert_true(fabs(tc_reciprocal_gain_pct(50.0) - 100.0) < 1e-12);
	assert_true(fabs(tc_reciprocal_gain_pct(-100.0) + 50.0) < 1e-12);
	assert_true(tc_reciprocal_gain_pct(0.0) == 0.0);
	assert_true(isinf(tc_reciprocal_gain_pct(100.0)));
	assert_true(isnan(tc_reciprocal_gain_pct(NAN)));
}

/* The interval of the reciprocal's improvement maps bound by bound: each
 * bootstrap round's b/c - 1 is the figure's gain of that round, and the
 * map rises, so the mapped bounds bracket the gain of the means and
 * agree with the figures' own ratio when every round is the same. */
static void
reciprocal_gain_maps_an_interval_bound_by_bound(void **state)
{
	const double fig_b[] = { 100, 104, 98, 101, 97 };
	const double fig_c[] = { 151, 160, 149, 155, 147 };
	double b[5], c[5], mb = 0, mc = 0, lo, hi, d;

	(void)state;
	for (size_t i = 0; i < 5; i++) {
		b[i] = 1.0 / fig_b[i];
		c[i] = 1.0 / fig_c[i];
		mb += b[i] / 5;
		mc += c[i] / 5;
	}
	assert_true(tc_bootstrap_improvement_ci(b, 5, c, 5, 2000, 9, &lo, &hi));
	d = (mb - mc) / mb * 100;
	/* the figure's gain of the means: b/c - 1 of the reciprocals */
	assert_true(fabs(tc_reciprocal_gain_pct(d) - (mb / mc - 1) * 100) <
	    1e-9);
	assert_true(tc_reciprocal_gain_pct(lo) < tc_reciprocal_gain_pct(d));
	assert_true(tc_reciprocal_gain_pct(d) < tc_reciprocal_gain_pct(hi));
	/* about +53 %, its reciprocal's about -35 %: labels matter */
	assert_true(tc_reciprocal_gain_pct(lo) > 45 &&
	    tc_reciprocal_gain_pct(hi) < 62);
	assert_true(lo > 30 && hi < 40);
	b[0] = b[1] = b[2] = b[3] = b[4] = 0.01;
	c[0] = c[1] = c[2] = c[3] = c[4] = 0.008;
	assert_true(tc_bootstrap_improvement_ci(b, 5, c, 5, 100, 1, &lo, &hi));
	assert_true(fabs(tc_reciprocal_gain_pct(lo) - 25.0) < 1e-9);
	assert_true(fabs(tc_reciprocal_gain_pct(hi) - 25.0) < 1e-9);
}

/* Five paired ratios: the interval of their median lies within the
 * sample's range and holds the median; all above 1 excludes no change,
 * a spread around 1 does not. */
static void
median_ci_brackets_the_median_of_paired_ratios(void **state)
{
	const double up[] = { 1.30, 1.22, 1.41, 1.25, 1.35 };
	const double flat[] = { 0.93, 1.04, 1.01, 0.97, 1.08 };
	double lo, hi, lo2, hi2;

	(void)state;
	assert_true(tc_bootstrap_median_ci(up, N(up), 10000, 7, &lo, &hi));
	assert_true(lo >= 1.22 && hi <= 1.41 && lo <= 1.30 && hi >= 1.30);
	assert_true(lo > 1.0);
	assert_true(tc_bootstrap_median_ci(up, N(up), 10000, 7, &lo2, &hi2));
	assert_true(lo == lo2 && hi == hi2);
	assert_true(tc_bootstrap_median_ci(flat, N(flat), 10000, 7, &lo, &hi));
	assert_true(lo < 1.0 && hi > 1.0);
	assert_false(tc_bootstrap_median_ci(flat, 0, 100, 7, &lo, &hi));
	assert_true(isnan(lo) && isnan(hi));
}

static void
mann_whitney_exact_for_separated_small_samples(void **state)
{
	const double b[] = { 6.0, 7.0, 8.0, 9.0, 10.0 };
	const double c[] = { 1.0, 2.0, 3.0 };
	tc_mwu m;

	(void)state;
	tc_mann_whitney(b, N(b), c, N(c), &m);
	assert_string_equal(m.method, "exact");
	assert_true(m.u == 15.0);
	/* two of the C(8,3) = 56 arrangements are this extreme */
	assert_true(fabs(m.p_value - 2.0 / 56.0) < 1e-15);
}

static void
mann_whitney_exact_matches_enumeration(void **state)
{
	/* python: 2 * min(P(U <= 8), P(U >= 8)) for m=4, n=3 = 0.6285714285714286 */
	const double b[] = { 1.0, 4.0, 6.0, 7.0 };
	const double c[] = { 2.0, 3.0, 5.0 };
	tc_mwu m;

	(void)state;
	tc_mann_whitney(b, N(b), c, N(c), &m);
	assert_true(m.u == 8.0);
	assert_true(fabs(m.p_value - 0.6285714285714286) < 1e-12);
}

static void
mann_whitney_normal_with_ties(void **state)
{
	/* python: U=15, sigma^2 = 15/12 * (9 - 24/56), z = (7.5 - 0.5) / sigma,
	 * p = erfc(z / sqrt(2)) */
	const double b[] = { 10.0, 10.1, 10.2, 10.3, 10.4 };
	const double c[] = { 8.0, 8.0, 8.0 };
	tc_mwu m;

	(void)state;
	tc_mann_whitney(b, N(b), c, N(c), &m);
	assert_string_equal(m.method, "normal");
	assert_true(m.u == 15.0);
	assert_true(fabs(m.p_value - 0.032473320326069664) < 1e-12);
}

static void
mann_whitney_all_tied_is_not_significant(void **state)
{
	const double b[] = { 1.0, 1.0 };
	tc_mwu m;

	(void)state;
	tc_mann_whitney(b, 2, b, 2, &m);
	assert_true(m.p_value == 1.0);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(mean_is_exact_rational_mean_rounded_once),
		cmocka_unit_test(reciprocal_gain_is_the_figures_own_improvement),
		cmocka_unit_test(reciprocal_gain_maps_an_interval_bound_by_bound),
		cmocka_unit_test(mean_rounds_subnormal_results_correctly),
		cmocka_unit_test(median_takes_middle_or_average_of_two),
		cmocka_unit_test(pstdev_is_correctly_rounded_sqrt_of_exact_variance),
		cmocka_unit_test(pstdev_ties_to_even_below_the_smallest_subnormal),
		cmocka_unit_test(quantile_interpolates_at_n_minus_one_times_p),
		cmocka_unit_test(stats_block_matches_the_separate_functions),
		cmocka_unit_test(stats_leave_the_input_order_alone),
		cmocka_unit_test(large_inputs_use_the_histogram_selection_correctly),
		cmocka_unit_test(bootstrap_of_constant_sets_is_the_point_value),
		cmocka_unit_test(median_ci_brackets_the_median_of_paired_ratios),
		cmocka_unit_test(bootstrap_is_deterministic_per_seed),
		cmocka_unit_test(bootstrap_without_data_reports_no_interval),
		cmocka_unit_test(paired_bootstrap_keeps_each_round_together),
		cmocka_unit_test(mann_whitney_exact_for_separated_small_samples),
		cmocka_unit_test(mann_whitney_exact_matches_enumeration),
		cmocka_unit_test(mann_whitney_normal_with_ties),
		cmocka_unit_test(mann_whitney_all_tied_is_not_significant),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
