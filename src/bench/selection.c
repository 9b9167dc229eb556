/*
 * selection.c - ranking, ties and the selection object (docs/spec/gates.md
 * "Selection and ranking"), and the stdout table every analysis prints
 * (docs/spec/gates.md "Stdout table").
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "tunectl/bench.h"
#include "bench_internal.h"

typedef struct ranked {
	const char *name;
	double metric;
	size_t index;
} ranked;

/* (worst_rank_mean_ms, name) ascending */
static int
cmp_ranked(const void *a, const void *b)
{
	const ranked *x = a, *y = b;

	if (x->metric < y->metric)
		return -1;
	if (x->metric > y->metric)
		return 1;
	return strcmp(x->name, y->name);
}

typedef struct sel {
	ranked *all, *eligible;
	size_t nall, nelig;
	const char *best, *recommended;
} sel;

static void
select_compute(const tc_sel_input *in, sel *s)
{
	size_t n = in->ncandidates;

	memset(s, 0, sizeof(*s));
	s->all = tc_xcalloc(n + 1, sizeof(*s->all));
	s->eligible = tc_xcalloc(n + 1, sizeof(*s->eligible));
	for (size_t i = 0; i < n; i++) {
		ranked r = { in->names[i], in->metric[i], i };

		s->all[s->nall++] = r;
		if (in->passed[i])
			s->eligible[s->nelig++] = r;
	}
	qsort(s->all, s->nall, sizeof(*s->all), cmp_ranked);
	qsort(s->eligible, s->nelig, sizeof(*s->eligible), cmp_ranked);
	s->best = s->nall > 0 ? s->all[0].name : NULL;
	s->recommended = s->nelig > 0 ? s->eligible[0].name : "baseline";
}

static void
select_free(sel *s)
{
	free(s->all);
	free(s->eligible);
}

static tc_json *
names_array(const ranked *r, size_t n)
{
	tc_json *a = tc_json_new_array();

	for (size_t i = 0; i < n; i++)
		tc_json_array_push(a, tc_json_new_string(r[i].name));
	return a;
}

static const char *
stage_name(tc_gate_mode mode)
{
	return mode == TC_GATE_SELECTION_ONLY ? "candidate_screening" :
	    mode == TC_GATE_OPTION_TRIAL ? "winner_option_trial" :
	    "final_promotion";
}

tc_json *
tc_selection_json(const tc_sel_input *in)
{
	tc_json *o = tc_json_new_object(), *inorder;
	sel s;
	bool sel_only = in->mode == TC_GATE_SELECTION_ONLY;
	const char *decision;

	tc_json_object_set_string(o, "stage", stage_name(in->mode));
	if (in->ncandidates == 0) {
		/* the early form (docs/spec/gates.md "Order of a comparison"
		 * step 8): no ranked_candidates key */
		tc_json_object_set_null(o, "best_superkernel_candidate");
		tc_json_object_set_string(o, "recommended", "baseline");
		tc_json_object_set_null(o, "selected_for_deep_analysis");
		tc_json_object_set_bool(o, "baseline_retained", true);
		tc_json_object_set(o, "promoted_candidates", tc_json_new_array());
		tc_json_object_set(o, "screening_eligible_candidates",
		    tc_json_new_array());
		tc_json_object_set(o, "ranked_eligible_candidates",
		    tc_json_new_array());
		tc_json_object_set_string(o, "final_promotion_decision", sel_only ?
		    "deferred_until_winner_profiling" : "baseline_retained");
		return o;
	}
	select_compute(in, &s);
	tc_json_object_set_string(o, "best_superkernel_candidate", s.best);
	tc_json_object_set_string(o, "recommended", s.recommended);
	if (sel_only && s.nelig > 0)
		tc_json_object_set_string(o, "selected_for_deep_analysis",
		    s.recommended);
	else
		tc_json_object_set_null(o, "selected_for_deep_analysis");
	tc_json_object_set_bool(o, "baseline_retained",
	    strcmp(s.recommended, "baseline") == 0);
	inorder = tc_json_new_array();
	for (size_t i = 0; i < in->ncandidates; i++)
		if (in->passed[i])
			tc_json_array_push(inorder,
			    tc_json_new_string(in->names[i]));
	if (in->mode == TC_GATE_FINAL_PROMOTION) {
		tc_json_object_set(o, "promoted_candidates", inorder);
		tc_json_object_set(o, "screening_eligible_candidates",
		    tc_json_new_array());
	} else if (sel_only) {
		tc_json_object_set(o, "promoted_candidates", tc_json_new_array());
		tc_json_object_set(o, "screening_eligible_candidates", inorder);
	} else {
		tc_json_object_set(o, "promoted_candidates", tc_json_new_array());
		tc_json_object_set(o, "screening_eligible_candidates",
		    tc_json_new_array());
		tc_json_free(inorder);
	}
	tc_json_object_set(o, "ranked_eligible_candidates", sel_only ?
	    names_array(s.eligible, s.nelig) : tc_json_new_array());
	tc_json_object_set(o, "ranked_candidates", names_array(s.all, s.nall));
	if (sel_only && s.nelig > 0)
		decision = "deferred_until_winner_profiling";
	else if (in->mode == TC_GATE_OPTION_TRIAL)
		decision = "not_applicable_option_trial";
	else if (strcmp(s.recommended, "baseline") == 0)
		decision = "baseline_retained";
	else
		decision = "promoted";
	tc_json_object_set_string(o, "final_promotion_decision", decision);
	if (in->mode == TC_GATE_OPTION_TRIAL) {
		tc_json_object_set_bool(o, "option_trial_accepted", s.nelig > 0);
		tc_json_object_set_string(o, "retained_incumbent", s.recommended);
	}
	select_free(&s);
	return o;
}

static void
stats_cells(tc_buf *b, const tc_runset *rs)
{
	tc_buf_printf(b, " %zu ", rs->run_count);
	tc_py_fixed(b, rs->worst_rank_mean_ms, 4);
	tc_buf_putc(b, ' ');
	tc_py_fixed(b, rs->decode.p50_ms, 4);
	tc_buf_putc(b, ' ');
	tc_py_fixed(b, rs->decode.p90_ms, 4);
	tc_buf_putc(b, ' ');
	tc_py_fixed(b, rs->decode.stddev_ms, 4);
}

void
tc_selection_table(const tc_sel_table_input *t, tc_buf *out)
{
	const tc_sel_input *in = t->sel;
	const char *label = in->mode == TC_GATE_SELECTION_ONLY ?
	    "screening-eligible" : in->mode == TC_GATE_OPTION_TRIAL ?
	    "option-accepted" : "promoted";
	sel s;

	tc_buf_printf(out, "candidate runs worst-rank-mean-ms p50-ms p90-ms "
	    "stddev-ms improvement %s baseline-stable baseline-spread-pct\n",
	    label);
	tc_buf_puts(out, "baseline");
	stats_cells(out, t->baseline);
	tc_buf_printf(out, " - - %s ", t->stability->stable ? "True" : "False");
	if (t->stability->has_spread_pct)
		tc_json_format_double(out, t->stability->spread_pct);
	else
		tc_buf_puts(out, "None");
	tc_buf_putc(out, '\n');
	for (size_t i = 0; i < in->ncandidates; i++) {
		tc_buf_puts(out, in->names[i]);
		stats_cells(out, t->runsets[i]);
		tc_buf_putc(out, ' ');
		tc_py_fixed(out, t->improvement[i], 2);
		tc_buf_printf(out, "%% %s - -\n", in->passed[i] ? "True" :
		    "False");
	}
	select_compute(in, &s);
	tc_buf_printf(out, "best-superkernel-candidate %s\n",
	    s.best != NULL ? s.best : "None");
	tc_buf_printf(out, "recommended %s\n", s.recommended);
	if (in->mode == TC_GATE_SELECTION_ONLY)
		tc_buf_printf(out, "selected-for-deep-analysis %s\n",
		    s.nelig > 0 ? s.recommended : "None");
	if (in->mode == TC_GATE_OPTION_TRIAL) {
		tc_buf_printf(out, "option-trial-accepted %s\n",
		    s.nelig > 0 ? "True" : "False");
		tc_buf_printf(out, "retained-incumbent %s\n", s.recommended);
	}
	select_free(&s);
}
