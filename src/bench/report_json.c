/*
 * report_json.c - the JSON forms of Stats blocks and run-set summaries
 * (docs/spec/gates.md "Report JSON"): RunSet, Run, per-rank Stats with
 * mean_exact_ms.
 */
#include <stdio.h>

#include "tunectl/bench.h"
#include "bench_internal.h"

tc_json *
tc_bench_float_or_null(bool has, double v)
{
	return has ? tc_json_new_float(v) : tc_json_new_null();
}

tc_json *
tc_bench__stats_json(const tc_stats *s)
{
	tc_json *o = tc_json_new_object();

	tc_json_object_set_int(o, "count", (int64_t)s->count);
	tc_json_object_set(o, "mean_ms", tc_json_new_float(s->mean_ms));
	tc_json_object_set(o, "p50_ms", tc_json_new_float(s->p50_ms));
	tc_json_object_set(o, "p90_ms", tc_json_new_float(s->p90_ms));
	tc_json_object_set(o, "stddev_ms", tc_json_new_float(s->stddev_ms));
	tc_json_object_set(o, "min_ms", tc_json_new_float(s->min_ms));
	tc_json_object_set(o, "max_ms", tc_json_new_float(s->max_ms));
	return o;
}

tc_json *
tc_stats_to_json(const tc_stats *s, const double *samples)
{
	tc_json *o = tc_bench__stats_json(s);

	tc_json_object_set(o, "samples_ms", tc_json_new_float_array(samples, s->count));
	return o;
}

static tc_json *
run_to_json(const tc_run_summary *r)
{
	tc_json *o = tc_json_new_object(), *ranks = tc_json_new_object();
	char key[32];

	for (size_t i = 0; i < r->rank_count; i++) {
		const tc_rank_summary *k = &r->ranks[i];
		tc_json *b = tc_stats_to_json(&k->decode, k->samples);

		tc_json_object_set_string(b, "mean_exact_ms", k->mean_exact_ms);
		snprintf(key, sizeof(key), "%ld", k->rank);
		tc_json_object_set(ranks, key, b);
	}
	tc_json_object_set_string(o, "path", r->path);
	tc_json_object_set_int(o, "rank_count", (int64_t)r->rank_count);
	tc_json_object_set_int(o, "warmup", r->warmup);
	tc_json_object_set(o, "ranks", ranks);
	tc_json_object_set(o, "decode", tc_stats_to_json(&r->decode,
	    r->samples));
	tc_json_object_set(o, "prefill", r->has_prefill ?
	    tc_stats_to_json(&r->prefill, r->prefill_samples) :
	    tc_json_new_null());
	tc_json_object_set_int(o, "worst_rank", r->worst_rank);
	tc_json_object_set(o, "worst_rank_mean_ms",
	    tc_json_new_float(r->worst_rank_mean_ms));
	tc_json_object_set_string(o, "worst_rank_mean_exact_ms",
	    r->worst_rank_mean_exact_ms != NULL ?
	    r->worst_rank_mean_exact_ms : "0");
	return o;
}

tc_json *
tc_runset_to_json(const tc_runset *rs)
{
	tc_json *o = tc_json_new_object(), *runs = tc_json_new_array();
	tc_json *exact = tc_json_new_array();

	for (size_t i = 0; i < rs->run_count; i++) {
		tc_json_array_push(runs, run_to_json(&rs->runs[i]));
		tc_json_array_push(exact, tc_json_new_string(
		    rs->run_worst_rank_means_exact_ms[i]));
	}
	tc_json_object_set_string(o, "path", rs->path);
	tc_json_object_set_int(o, "run_count", (int64_t)rs->run_count);
	tc_json_object_set(o, "runs", runs);
	tc_json_object_set(o, "decode", tc_stats_to_json(&rs->decode,
	    rs->samples));
	tc_json_object_set(o, "run_worst_rank_means_ms",
	    tc_json_new_float_array(rs->run_worst_rank_means_ms, rs->run_count));
	tc_json_object_set(o, "run_worst_rank_means_exact_ms", exact);
	tc_json_object_set(o, "median_run_worst_rank_mean_ms",
	    tc_json_new_float(rs->median_run_worst_rank_mean_ms));
	tc_json_object_set(o, "worst_rank_mean_ms",
	    tc_json_new_float(rs->worst_rank_mean_ms));
	return o;
}
