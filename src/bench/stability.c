/*
 * stability.c - the S0 baseline stability gate (docs/spec/gates.md
 * "S0 baseline stability"): five runs, spread of the per-run worst-rank means
 * at most 5 % of their mean, computed in Decimal arithmetic so that a spread of
 * exactly 5.0 % passes.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "tunectl/bench.h"
#include "tunectl/decimal.h"

void
tc_stability_eval(const double *values, const char *const *exact, size_t n,
    tc_stability *out)
{
	tc_dec *d;
	size_t nd = n, i;
	bool ok = true;

	memset(out, 0, sizeof(*out));
	out->count = n;
	out->values = tc_xmalloc((n ? n : 1) * sizeof(double));
	if (n > 0)
		memcpy(out->values, values, n * sizeof(double));
	d = tc_xcalloc(n ? n : 1, sizeof(*d));
	for (i = 0; i < n; i++)
		tc_dec_init(&d[i]);
	for (i = 0; i < n && ok; i++) {
		if (exact != NULL)
			ok = exact[i] != NULL &&
			    tc_dec_parse(&d[i], exact[i], strlen(exact[i]));
		else
			ok = tc_dec_from_double_repr(&d[i], values[i]);
	}
	if (!ok)
		nd = 0;		/* any conversion error empties the list */
	if (nd > 0) {
		const tc_dec *mx = &d[0], *mn = &d[0];
		tc_dec spread, sum, cnt, mean, q, hundred;

		for (i = 1; i < nd; i++) {
			if (tc_dec_cmp(&d[i], mx) > 0)
				mx = &d[i];
			if (tc_dec_cmp(&d[i], mn) < 0)
				mn = &d[i];
		}
		tc_dec_init(&spread);
		tc_dec_init(&sum);
		tc_dec_init(&cnt);
		tc_dec_init(&mean);
		tc_dec_init(&q);
		tc_dec_init(&hundred);
		tc_dec_sub(&spread, mx, mn);
		out->has_spread_ms = true;
		out->spread_ms = tc_dec_to_double(&spread);
		for (i = 0; i < nd; i++)
			tc_dec_add(&sum, &sum, &d[i]);
		tc_dec_set_long(&cnt, (long)nd);
		(void)tc_dec_div(&mean, &sum, &cnt);
		out->has_mean_ms = true;
		out->mean_ms = tc_dec_to_double(&mean);
		if (!tc_dec_is_zero(&mean)) {
			tc_dec_set_long(&hundred, 100);
			(void)tc_dec_div(&q, &spread, &mean);
			tc_dec_mul(&q, &q, &hundred);
			out->has_spread_pct = true;
			out->spread_pct = tc_dec_to_double(&q);
		}
		tc_dec_clear(&spread);
		tc_dec_clear(&sum);
		tc_dec_clear(&cnt);
		tc_dec_clear(&mean);
		tc_dec_clear(&q);
		tc_dec_clear(&hundred);
	}
	for (i = 0; i < n; i++)
		tc_dec_clear(&d[i]);
	free(d);
	out->check_required_run_count = n == TC_S0_REQUIRED_RUNS;
	tc_stability_set_limit(out, TC_S0_MAX_SPREAD_PCT);
}

void
tc_stability_set_limit(tc_stability *s, double max_spread_pct)
{
	s->max_spread_pct = max_spread_pct;
	s->check_max_spread_pct = s->has_spread_pct &&
	    s->spread_pct <= max_spread_pct;
	s->stable = s->check_required_run_count && s->check_max_spread_pct;
}

void
tc_stability_eval_runset(const tc_runset *rs, tc_stability *out)
{
	tc_stability_eval(rs->run_worst_rank_means_ms,
	    (const char *const *)rs->run_worst_rank_means_exact_ms,
	    rs->run_count, out);
}

void
tc_stability_free(tc_stability *s)
{
	free(s->values);
	s->values = NULL;
}

static tc_json *
float_or_null(bool has, double v)
{
	return has ? tc_json_new_float(v) : tc_json_new_null();
}

tc_json *
tc_stability_to_json(const tc_stability *s)
{
	tc_json *o = tc_json_new_object(), *checks = tc_json_new_object();
	tc_json *vals = tc_json_new_array();

	tc_json_object_set_bool(checks, "required_run_count",
	    s->check_required_run_count);
	tc_json_object_set_bool(checks, "max_spread_pct",
	    s->check_max_spread_pct);
	tc_json_object_set_bool(o, "stable", s->stable);
	tc_json_object_set(o, "checks", checks);
	tc_json_object_set_int(o, "required_run_count", TC_S0_REQUIRED_RUNS);
	tc_json_object_set(o, "max_spread_pct",
	    tc_json_new_float(s->max_spread_pct));
	for (size_t i = 0; i < s->count; i++)
		tc_json_array_push(vals, tc_json_new_float(s->values[i]));
	tc_json_object_set(o, "run_worst_rank_means_ms", vals);
	tc_json_object_set(o, "spread_ms", float_or_null(s->has_spread_ms,
	    s->spread_ms));
	tc_json_object_set(o, "mean_ms", float_or_null(s->has_mean_ms,
	    s->mean_ms));
	tc_json_object_set(o, "spread_pct", float_or_null(s->has_spread_pct,
	    s->spread_pct));
	return o;
}
