/*
 * stats_acc.h - exact accumulators of sum(x) and sum(x^2) over finite
 * doubles (private to src/bench/).  Accumulators merge exactly, so the
 * pooled statistics of a run or run set come from its ranks' accumulators
 * without touching the samples again.
 */
#ifndef TUNECTL_BENCH_STATS_ACC_H
#define TUNECTL_BENCH_STATS_ACC_H

#include <stddef.h>
#include <stdint.h>

#include "tunectl/stats.h"

/* sum: offsets 0..2097 plus 53 bits plus headroom; squares: 0..4194
 * plus 106 bits plus headroom (2^64 values cannot overflow either). */
#define TC_ACC_SUM_LIMBS 36
#define TC_ACC_SQ_LIMBS 70

__extension__ typedef unsigned __int128 tc_u128;

/* Values sharing one binary exponent (timings usually do) are summed in
 * 128-bit registers first and flushed into the limbs when the exponent
 * changes or 2^20 values have been added (2^20 squares of 53-bit
 * mantissas fit in 126 bits). */
typedef struct tc_acc {
	uint64_t count;
	uint64_t pos[TC_ACC_SUM_LIMBS];
	uint64_t neg[TC_ACC_SUM_LIMBS];
	uint64_t sq[TC_ACC_SQ_LIMBS];
	int cur_ex;			/* -1: nothing pending */
	uint32_t cur_n;
	tc_u128 cur_pos, cur_neg, cur_sq;
} tc_acc;

void tc_acc_init(tc_acc *a);
void tc_acc_add(tc_acc *a, double x);		/* x finite */
void tc_acc_flush(tc_acc *a);			/* pending -> limbs */
void tc_acc_merge(tc_acc *dst, const tc_acc *src);
double tc_acc_mean(const tc_acc *a);		/* statistics.mean */
double tc_acc_pstdev(const tc_acc *a);		/* statistics.pstdev */

/* The Stats block from an accumulator of v[0..n-1]; scratch (n doubles,
 * may be NULL) is clobbered. */
void tc_stats_from_acc(const tc_acc *a, const double *v, size_t n,
    double *scratch, tc_stats *out);

#endif
