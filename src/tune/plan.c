/*
 * plan.c - the planner: from a checked workload spec, the plan a tuning
 * session freezes (tunectl-tune-plan-v1) - the variants Stage A screens,
 * the option matrix after the constraints and the trials Stage O makes,
 * every series of runs of every phase, the builds, and what it all costs
 * in time - and the same plan in words.  Template expansion lives here
 * too: the planner counts builds by their expanded commands.
 *
 * The plan is computed, never guessed: Stage O's trials are listed
 * against the baseline (a session makes them against the incumbent of
 * the moment, which may move them, never their number); a build is
 * counted once per distinct expanded build command; the time estimate is
 * runs x the spec's estimate of one run, and its upper bound uses the
 * timeouts and every re-measurement a disturbed series may need.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tunectl/buf.h"
#include "tunectl/sha256.h"
#include "tune_internal.h"

/* Matrix points listed in the plan; beyond, only counted.  The text
 * lists a small matrix whole. */
#define MATRIX_LISTED 256
#define TEXT_MATRIX_LISTED 24

char *
tc_tune_expand(const char *tmpl,
    const char *(*lookup)(const char *name, void *ctx), void *ctx)
{
	tc_buf b = TC_BUF_INIT;
	const char *p;

	for (p = tmpl; *p != '\0'; p++) {
		const char *end, *val;

		if ((p[0] == '{' && p[1] == '{') || (p[0] == '}' && p[1] == '}')) {
			tc_buf_putc(&b, *p++);
			continue;
		}
		if (*p != '{' || (end = strchr(p, '}')) == NULL) {
			tc_buf_putc(&b, *p);
			continue;
		}
		{
			char *name = tc_xstrndup(p + 1, (size_t)(end - p - 1));

			val = lookup(name, ctx);
			free(name);
		}
		if (val != NULL)
			tc_buf_puts(&b, val);
		else
			tc_buf_add(&b, p, (size_t)(end - p + 1));
		p = end;
	}
	return tc_buf_detach(&b, NULL);
}

static tc_json *
value_json(const tc_tune_value *v)
{
	if (!v->is_num)
		return tc_json_new_string(v->text);
	if (v->num == floor(v->num) && fabs(v->num) < 9e15 &&
	    strpbrk(v->text, ".eE") == NULL)
		return tc_json_new_int((int64_t)v->num);
	return tc_json_new_float(v->num);
}

/* ---- points of the option matrix ---------------------------------------- */

/* A point: the index of each parameter's value. */
struct matrix {
	const tc_tune_spec *s;
	size_t *idx;		/* the point being looked at */
	tc_tune_value *vals;	/* its values */
};

static void
load_point(struct matrix *m)
{
	size_t i;

	for (i = 0; i < m->s->nparams; i++)
		m->vals[i] = m->s->params[i].values[m->idx[i]];
}

/* Whether the point m->vals satisfies every constraint; -1 on an error
 * ("SPEC:LINE: constraint '...' at block=16, ...: why"). */
static int
allowed(const struct matrix *m, bool *ok, tc_error *err)
{
	const tc_tune_spec *s = m->s;
	size_t i, j;

	*ok = true;
	for (i = 0; i < s->nconstraints && *ok; i++)
		if (tc_tune_expr_eval(s->constraints[i].expr, m->vals, ok,
		    err) != 0) {
			tc_buf at = TC_BUF_INIT;

			for (j = 0; j < s->nparams; j++)
				tc_buf_printf(&at, "%s%s=%s", j > 0 ? ", " : "",
				    s->params[j].name, m->vals[j].text);
			tc_error_prefix(err, "%s:%u: constraint '%s' at %s: ",
			    s->path, s->constraints[i].line,
			    s->constraints[i].text, tc_buf_cstr(&at));
			tc_buf_free(&at);
			return -1;
		}
	return 0;
}

static tc_json *
point_json(const tc_tune_spec *s, const tc_tune_value *vals)
{
	tc_json *o = tc_json_new_object();
	size_t i;

	for (i = 0; i < s->nparams; i++)
		tc_json_object_set(o, s->params[i].name, value_json(&vals[i]));
	return o;
}

/* Advance idx to the next point; false after the last. */
static bool
next_point(const tc_tune_spec *s, size_t *idx)
{
	size_t i;

	for (i = s->nparams; i-- > 0;) {
		if (++idx[i] < s->params[i].nvalues)
			return true;
		idx[i] = 0;
	}
	return false;
}

static bool
is_baseline(const tc_tune_spec *s, const tc_tune_value *vals)
{
	size_t i;

	for (i = 0; i < s->nparams; i++)
		if (strcmp(vals[i].text, s->baseline[i].value.text) != 0)
			return false;
	return true;
}

/* The matrix after the constraints (listed up to MATRIX_LISTED points)
 * and the trials of Stage O's search.  Returns the options object. */
static tc_json *
options_json(const tc_tune_spec *s, tc_json *trials, size_t *ntrials,
    tc_error *err)
{
	struct matrix m = { s, NULL, NULL };
	tc_json *o = tc_json_new_object(), *params = tc_json_new_array(),
	    *cons = tc_json_new_array(), *matrix = tc_json_new_array();
	double total = 1;
	size_t i, j, nallowed = 0;
	bool ok;

	for (i = 0; i < s->nparams; i++) {
		tc_json *p = tc_json_new_object(), *vals = tc_json_new_array();

		for (j = 0; j < s->params[i].nvalues; j++)
			tc_json_array_push(vals,
			    value_json(&s->params[i].values[j]));
		tc_json_object_set_string(p, "name", s->params[i].name);
		tc_json_object_set(p, "values", vals);
		tc_json_array_push(params, p);
		total *= (double)s->params[i].nvalues;
	}
	for (i = 0; i < s->nconstraints; i++)
		tc_json_array_push(cons,
		    tc_json_new_string(s->constraints[i].text));
	tc_json_object_set(o, "parameters", params);
	tc_json_object_set(o, "constraints", cons);
	tc_json_object_set_string(o, "search", s->search ==
	    TC_TUNE_EXHAUSTIVE ? "exhaustive" : "one-at-a-time");
	*ntrials = 0;
	if (s->nparams == 0) {
		tc_json_object_set_int(o, "points", 0);
		tc_json_object_set_int(o, "points_allowed", 0);
		tc_json_object_set(o, "matrix", matrix);
		return o;
	}
	if (total > TC_TUNE_MAX_POINTS) {
		tc_error_set(err, "%s:%u: the option space has %.0f points, more "
		    "than %d: narrow options.parameters", s->path,
		    s->params[0].line, total, TC_TUNE_MAX_POINTS);
		tc_json_free(o);
		tc_json_free(matrix);
		return NULL;
	}
	m.idx = tc_xcalloc(s->nparams, sizeof(size_t));
	m.vals = tc_xcalloc(s->nparams, sizeof(tc_tune_value));
	do {
		load_point(&m);
		if (allowed(&m, &ok, err) != 0) {
			tc_json_free(o);
			tc_json_free(matrix);
			o = NULL;
			goto out;
		}
		if (!ok)
			continue;
		if (nallowed++ < MATRIX_LISTED)
			tc_json_array_push(matrix, point_json(s, m.vals));
		if (s->search == TC_TUNE_EXHAUSTIVE && !is_baseline(s, m.vals)) {
			tc_json_array_push(trials, point_json(s, m.vals));
			(*ntrials)++;
		}
	} while (next_point(s, m.idx));
	if (s->search == TC_TUNE_EXHAUSTIVE &&
	    *ntrials > TC_TUNE_MAX_EXHAUSTIVE_TRIALS) {
		tc_error_set(err, "%s:%u: options.search exhaustive would make "
		    "%zu option trials (every allowed point but the baseline's, "
		    "each a series of %ld runs), more than %d: narrow "
		    "options.parameters, add constraints, or search "
		    "one-at-a-time", s->path, s->search_line != 0 ?
		    s->search_line : s->params[0].line, *ntrials, s->gate.runs,
		    TC_TUNE_MAX_EXHAUSTIVE_TRIALS);
		tc_json_free(o);
		tc_json_free(matrix);
		o = NULL;
		goto out;
	}
	/* One at a time: each other value of each parameter, the rest at
	 * the baseline. */
	for (i = 0; s->search == TC_TUNE_ONE_AT_A_TIME && i < s->nparams; i++)
		for (j = 0; j < s->params[i].nvalues; j++) {
			size_t k;

			for (k = 0; k < s->nparams; k++)
				m.vals[k] = s->baseline[k].value;
			if (strcmp(s->params[i].values[j].text,
			    s->baseline[i].value.text) == 0)
				continue;
			m.vals[i] = s->params[i].values[j];
			if (allowed(&m, &ok, err) != 0) {
				tc_json_free(o);
				tc_json_free(matrix);
				o = NULL;
				goto out;
			}
			if (ok) {
				tc_json *t = point_json(s, m.vals);

				tc_json_object_set_string(t, "changes",
				    s->params[i].name);
				tc_json_array_push(trials, t);
				(*ntrials)++;
			}
		}
	tc_json_object_set_int(o, "points", (int64_t)total);
	tc_json_object_set_int(o, "points_allowed", (int64_t)nallowed);
	tc_json_object_set_int(o, "matrix_listed", (int64_t)(nallowed <
	    MATRIX_LISTED ? nallowed : MATRIX_LISTED));
	tc_json_object_set(o, "matrix", matrix);
out:
	free(m.idx);
	free(m.vals);
	return o;
}

/* ---- builds --------------------------------------------------------------- */

struct builds {
	char **keys;
	size_t n;
};

/* Count the build of one configuration, once per distinct command. */
static void
count_build(struct builds *b, const tc_tune_spec *s,
    const tc_tune_variant *v, const tc_tune_value *vals)
{
	tc_tune_config c = { v, vals };
	char *key;
	size_t i;

	if (s->build.command == NULL)
		return;
	key = tc_tune_expand_config(s, s->build.command, &c, NULL, NULL);
	for (i = 0; i < b->n; i++)
		if (strcmp(b->keys[i], key) == 0) {
			free(key);
			return;
		}
	b->keys = tc_xrealloc(b->keys, (b->n + 1) * sizeof(char *));
	b->keys[b->n++] = key;
}

static void
builds_free(struct builds *b)
{
	size_t i;

	for (i = 0; i < b->n; i++)
		free(b->keys[i]);
	free(b->keys);
}

static const tc_tune_variant *
baseline_variant(const tc_tune_spec *s)
{
	size_t i;

	for (i = 0; i < s->nvariants; i++)
		if (strcmp(s->variants[i].name, s->baseline_variant) == 0)
			return &s->variants[i];
	return NULL;
}

/* The digest of every build input, which keys the build cache. */
static tc_json *
inputs_json(const tc_tune_spec *s, tc_error *err)
{
	tc_json *arr = tc_json_new_array();
	size_t i;

	for (i = 0; i < s->nbuild_inputs; i++) {
		char hex[TC_SHA256_HEX_LEN + 1];
		tc_json *o;

		if (tc_tune_input_digest(s, i, hex, err) != 0) {
			tc_json_free(arr);
			return NULL;
		}
		o = tc_json_new_object();
		tc_json_object_set_string(o, "path", s->build_inputs[i]);
		tc_json_object_set_string(o, "sha256", hex);
		tc_json_array_push(arr, o);
	}
	return arr;
}

/* ---- the plan ---------------------------------------------------------- */

static void
set_string_or_null(tc_json *o, const char *key, const char *s)
{
	tc_json_object_set_string_or_null(o, key, s);
}

static tc_json *
commands_json(const tc_tune_spec *s, tc_json *inputs)
{
	tc_json *c = tc_json_new_object(), *t = tc_json_new_object();

	set_string_or_null(c, "setup", s->setup.command);
	set_string_or_null(c, "build", s->build.command);
	tc_json_object_set(c, "build_inputs", inputs);
	set_string_or_null(c, "run", s->run.command);
	set_string_or_null(c, "check", s->check.command);
	set_string_or_null(c, "check_expected_output", s->check_expected);
	set_string_or_null(c, "profile", s->profile.command);
	tc_json_object_set(t, "setup", tc_json_new_float(s->setup.timeout_s));
	tc_json_object_set(t, "build", tc_json_new_float(s->build.timeout_s));
	tc_json_object_set(t, "run", tc_json_new_float(s->run.timeout_s));
	tc_json_object_set(t, "check", tc_json_new_float(s->check.timeout_s));
	tc_json_object_set(t, "profile",
	    tc_json_new_float(s->profile.timeout_s));
	tc_json_object_set(c, "timeout_seconds", t);
	return c;
}

static tc_json *
metric_json(const tc_tune_spec *s)
{
	static const char *const froms[] = {
		"stdout", "stderr", "file", "rank-log"
	};
	tc_json *m = tc_json_new_object();

	tc_json_object_set_string(m, "from", froms[s->metric.from]);
	set_string_or_null(m, "regex", s->metric.regex);
	set_string_or_null(m, "file", s->metric.file);
	set_string_or_null(m, "pointer", s->metric.pointer);
	tc_json_object_set_string(m, "unit", s->metric.unit);
	tc_json_object_set_string(m, "direction", s->metric.higher_is_better ?
	    "higher" : "lower");
	return m;
}

static tc_json *
gate_json(const tc_tune_gate *g)
{
	tc_json *o = tc_json_new_object(), *st = tc_json_new_object();

	tc_json_object_set_int(o, "runs", g->runs);
	tc_json_object_set_int(o, "warmup_runs", g->warmup_runs);
	tc_json_object_set_int(o, "warmup_samples", g->warmup_samples);
	tc_json_object_set_string(st, "rule", g->stability_rule);
	tc_json_object_set(st, "max_spread_pct",
	    tc_json_new_float(g->max_spread_pct));
	tc_json_object_set_int(st, "series_attempts", g->series_attempts);
	/* absent when the spec has none, so that a plan frozen before the
	 * key existed reads the same */
	if (g->screen_remeasure_spread_pct > 0)
		tc_json_object_set(st, "screen_remeasure_spread_pct",
		    tc_json_new_float(g->screen_remeasure_spread_pct));
	tc_json_object_set(o, "stability", st);
	tc_json_object_set(o, "min_improvement_pct",
	    tc_json_new_float(g->min_improvement_pct));
	tc_json_object_set(o, "allow_p90_regression_pct",
	    tc_json_new_float(g->allow_p90_regression_pct));
	tc_json_object_set(o, "allow_stddev_regression_pct",
	    tc_json_new_float(g->allow_stddev_regression_pct));
	tc_json_object_set_string(o, "decide_by", g->decide_by);
	tc_json_object_set_string(o, "order", g->order);
	return o;
}

static tc_json *
bindings_json(const tc_tune_binding *b, size_t n)
{
	tc_json *o = tc_json_new_object();
	size_t i;

	for (i = 0; i < n; i++)
		tc_json_object_set(o, b[i].name, value_json(&b[i].value));
	return o;
}

static tc_json *
variants_json(const tc_tune_spec *s)
{
	tc_json *arr = tc_json_new_array();
	size_t i;

	for (i = 0; i < s->nvariants; i++) {
		tc_json *v = tc_json_new_object();

		tc_json_object_set_string(v, "name", s->variants[i].name);
		tc_json_object_set(v, "params", bindings_json(
		    s->variants[i].params, s->variants[i].nparams));
		tc_json_object_set_string(v, "role", strcmp(s->variants[i].name,
		    s->baseline_variant) == 0 ? "baseline" : "screened");
		tc_json_array_push(arr, v);
	}
	return arr;
}

/* What the phases run: series of (warm-up + timed) runs, checks, builds. */
struct tally {
	long runs, runs_at_most, checks, builds;
	tc_json *phases;
};

static void
phase(struct tally *t, const tc_tune_spec *s, const char *name,
    const char *what, long series, long extra_series, long checks,
    long single_runs)
{
	tc_json *p = tc_json_new_object();
	long per = s->gate.warmup_runs + s->gate.runs;
	long runs = series * per + checks + single_runs;

	tc_json_object_set_string(p, "phase", name);
	tc_json_object_set_string(p, "what", what);
	tc_json_object_set_int(p, "series", series);
	tc_json_object_set_int(p, "check_runs", checks);
	tc_json_object_set_int(p, "runs", runs);
	tc_json_object_set_int(p, "runs_at_most", runs + extra_series * per);
	tc_json_array_push(t->phases, p);
	t->runs += runs;
	t->runs_at_most += runs + extra_series * per;
	t->checks += checks;
}

static tc_json *
estimate_json(const tc_tune_spec *s, const struct tally *t)
{
	tc_json *e = tc_json_new_object();
	double build = s->build.estimate_s > 0 ? s->build.estimate_s :
	    s->build.timeout_s;
	double most = (double)t->runs_at_most * s->run.timeout_s +
	    (double)t->builds * s->build.timeout_s +
	    (s->setup.command != NULL ? s->setup.timeout_s : 0);

	if (s->run.estimate_s > 0) {
		tc_json_object_set(e, "seconds", tc_json_new_float(
		    (double)t->runs * s->run.estimate_s +
		    (double)t->builds * (s->build.command != NULL ? build : 0)));
		tc_json_object_set_string(e, "basis", "run.estimate_seconds x "
		    "runs, build.estimate_seconds (else build.timeout) x builds");
	} else {
		tc_json_object_set_null(e, "seconds");
		tc_json_object_set_string(e, "basis", "no run.estimate_seconds: "
		    "only the upper bound is known");
	}
	tc_json_object_set(e, "seconds_at_most", tc_json_new_float(most));
	return e;
}

tc_json *
tc_tune_plan(const tc_tune_spec *s, tc_error *err)
{
	tc_json *plan, *trials = tc_json_new_array(), *options, *inputs, *b;
	const tc_tune_variant *bv = baseline_variant(s);
	struct tally t = { 0, 0, 0, 0, tc_json_new_array() };
	struct builds builds = { NULL, 0 };
	size_t ntrials, i;
	long has_check = s->check.command != NULL || s->check_expected != NULL;
	long screened = s->nvariants > 0 ? (long)s->nvariants - 1 : 0;
	long extra = s->gate.series_attempts - 1;
	/* interleaved: each comparison measures its baseline again, run for
	 * run beside the candidates */
	long il = strcmp(s->gate.order, "interleaved") == 0;

	if ((options = options_json(s, trials, &ntrials, err)) == NULL) {
		tc_json_free(trials);
		tc_json_free(t.phases);
		return NULL;
	}
	if ((inputs = inputs_json(s, err)) == NULL) {
		tc_json_free(options);
		tc_json_free(trials);
		tc_json_free(t.phases);
		return NULL;
	}
	tc_json_object_set(options, "trials", trials);
	/* builds: every variant at the baseline's options, then the baseline
	 * variant at every trial's (the session builds the winner's) */
	count_build(&builds, s, bv, NULL);
	for (i = 0; i < s->nvariants; i++)
		count_build(&builds, s, &s->variants[i], NULL);
	for (i = 0; i < trials->u.arr.len; i++) {
		tc_tune_value *vals = tc_xcalloc(s->nparams + 1, sizeof(*vals));
		size_t k;

		for (k = 0; k < s->nparams; k++) {
			const tc_json *v = tc_json_get(trials->u.arr.items[i],
			    s->params[k].name);
			size_t j;

			for (j = 0; j < s->params[k].nvalues; j++) {
				tc_json *vj = value_json(
				    &s->params[k].values[j]);

				if (tc_json_equal(vj, v))
					vals[k] = s->params[k].values[j];
				tc_json_free(vj);
			}
		}
		count_build(&builds, s, bv, vals);
		free(vals);
	}
	t.builds = (long)builds.n;
	builds_free(&builds);

	phase(&t, s, "intake", "one probe run of the baseline (the metric is "
	    "read, the check passes)", 0, 0, has_check, 1);
	phase(&t, s, "s0-baseline", "the baseline series, judged by the "
	    "stability rule", 1, extra, 0, 0);
	phase(&t, s, "stage-a-scope-selection", screened == 0 ? "no variants "
	    "to screen: a session needs a second variant (Stage A must select "
	    "one for Stage O to run)" : il ? "one series per screened variant, "
	    "at the baseline's options, interleaved with a new baseline "
	    "series" : "one series per screened variant, at the baseline's "
	    "options", screened > 0 ? screened + il : 0,
	    screened > 0 ? (screened + il) * extra : 0, screened * has_check, 0);
	phase(&t, s, "stage-o-option-tuning", ntrials == 0 ? "no option "
	    "trials" : il ? "the incumbent O0, then per option trial one "
	    "series of it interleaved with one of the incumbent" : "the "
	    "incumbent O0, then one series per option trial",
	    ntrials > 0 ? 1 + (1 + il) * (long)ntrials : 0,
	    ntrials > 0 ? (1 + (1 + il) * (long)ntrials) * extra : 0,
	    (long)ntrials * has_check, 0);
	phase(&t, s, "base-profile-source-mapping", s->profile.command != NULL ?
	    "one profiled run of the winner" : "no profile command: BASE "
	    "records that none was asked", 0, 0, 0,
	    s->profile.command != NULL ? 1 : 0);
	phase(&t, s, "final-e2e-report", il ? "the winner, one series "
	    "interleaved with one of the baseline" : "the winner, one series, "
	    "against the frozen baseline", 1 + il, (1 + il) * extra, 0, 0);

	plan = tc_json_new_object();
	tc_json_object_set_string(plan, "schema_version", "tunectl-tune-plan-v1");
	b = tc_json_new_object();
	tc_json_object_set_string(b, "path", s->path);
	tc_json_object_set_string(b, "sha256", s->sha256);
	tc_json_object_set_int(b, "version", TC_TUNE_SPEC_VERSION);
	tc_json_object_set(plan, "spec", b);
	tc_json_object_set_string(plan, "name", s->name);
	set_string_or_null(plan, "description", s->description);
	tc_json_object_set(plan, "commands", commands_json(s, inputs));
	tc_json_object_set(plan, "metric", metric_json(s));
	tc_json_object_set_int(plan, "ranks", s->ranks);
	tc_json_object_set(plan, "gate_policy", gate_json(&s->gate));
	b = tc_json_new_object();
	set_string_or_null(b, "variant", s->baseline_variant);
	tc_json_object_set(b, "params", bindings_json(s->baseline, s->nparams));
	tc_json_object_set(plan, "baseline", b);
	tc_json_object_set(plan, "variants", variants_json(s));
	tc_json_object_set(plan, "options", options);
	tc_json_object_set(plan, "phases", t.phases);
	b = tc_json_new_object();
	tc_json_object_set_int(b, "runs", t.runs);
	tc_json_object_set_int(b, "runs_at_most", t.runs_at_most);
	tc_json_object_set_int(b, "check_runs", t.checks);
	tc_json_object_set_int(b, "builds", t.builds);
	tc_json_object_set(plan, "totals", b);
	tc_json_object_set(plan, "estimate", estimate_json(s, &t));
	return plan;
}

/* ---- the plan in words --------------------------------------------------- */

static void
put_point(tc_buf *out, const tc_json *point)
{
	size_t i;
	bool first = true;

	for (i = 0; point != NULL && i < point->u.obj.len; i++) {
		const char *key = point->u.obj.members[i].key;

		if (strcmp(key, "changes") == 0)
			continue;
		tc_buf_printf(out, "%s%s=", first ? "" : " ", key);
		first = false;
		tc_json_str(out, point->u.obj.members[i].value);
	}
}

static void
put_duration(tc_buf *out, double s)
{
	if (s < 120)
		tc_buf_printf(out, "%.0f s", s);
	else if (s < 7200)
		tc_buf_printf(out, "%.1f min", s / 60);
	else
		tc_buf_printf(out, "%.1f h", s / 3600);
}

static void
put_line(tc_buf *out, const char *label, const tc_json *o, const char *key)
{
	const char *v = tc_json_get_string(o, key);

	if (v != NULL)
		tc_buf_printf(out, "  %-9s %s\n", label, v);
}

void
tc_tune_plan_text(const tc_json *plan, tc_buf *out)
{
	const tc_json *c = tc_json_get(plan, "commands");
	const tc_json *m = tc_json_get(plan, "metric");
	const tc_json *g = tc_json_get(plan, "gate_policy");
	const tc_json *st = tc_json_get(g, "stability");
	const tc_json *opt = tc_json_get(plan, "options");
	const tc_json *arr, *tot = tc_json_get(plan, "totals");
	const tc_json *est = tc_json_get(plan, "estimate");
	double d;
	size_t i;

	tc_buf_printf(out, "plan for %s (%s, sha256 %.12s)\n",
	    tc_json_get_string(plan, "name"),
	    tc_json_get_string(tc_json_get(plan, "spec"), "path"),
	    tc_json_get_string(tc_json_get(plan, "spec"), "sha256"));
	if (tc_json_get_string(plan, "description") != NULL)
		tc_buf_printf(out, "  %s\n", tc_json_get_string(plan,
		    "description"));
	tc_buf_puts(out, "\ncommands\n");
	put_line(out, "setup", c, "setup");
	put_line(out, "build", c, "build");
	put_line(out, "run", c, "run");
	put_line(out, "check", c, "check");
	if (tc_json_get_string(c, "check_expected_output") != NULL)
		tc_buf_printf(out, "  %-9s stdout contains \"%s\"\n", "expect",
		    tc_json_get_string(c, "check_expected_output"));
	if (tc_json_get_string(c, "check") == NULL &&
	    tc_json_get_string(c, "check_expected_output") == NULL)
		tc_buf_printf(out, "  %-9s none asked\n", "check");
	put_line(out, "profile", c, "profile");
	tc_buf_printf(out, "\nmetric: %s from %s", tc_json_get_string(m, "unit"),
	    tc_json_get_string(m, "from"));
	if (tc_json_get_string(m, "regex") != NULL)
		tc_buf_printf(out, " by /%s/", tc_json_get_string(m, "regex"));
	if (tc_json_get_string(m, "file") != NULL)
		tc_buf_printf(out, " %s at '%s'", tc_json_get_string(m, "file"),
		    tc_json_get_string(m, "pointer"));
	tc_buf_printf(out, ", %s is better; ranks ", tc_json_get_string(m,
	    "direction"));
	tc_json_str(out, tc_json_get(plan, "ranks"));
	tc_buf_puts(out, "\ngate: runs ");
	tc_json_str(out, tc_json_get(g, "runs"));
	tc_buf_puts(out, " after ");
	tc_json_str(out, tc_json_get(g, "warmup_runs"));
	tc_buf_puts(out, " warm-up; stability (rule ");
	tc_buf_puts(out, tc_json_get_string(st, "rule"));
	tc_buf_puts(out, "): spread <= ");
	tc_json_str(out, tc_json_get(st, "max_spread_pct"));
	tc_buf_puts(out, " % (a disturbed series measured again, ");
	tc_json_str(out, tc_json_get(st, "series_attempts"));
	tc_buf_puts(out, " series at most)");
	if (tc_json_get(st, "screen_remeasure_spread_pct") != NULL) {
		tc_buf_puts(out, "\n      Stage A's screening measured again "
		    "as a whole while any side spreads > ");
		tc_json_str(out, tc_json_get(st,
		    "screen_remeasure_spread_pct"));
		tc_buf_puts(out, " % (the same series at most)");
	}
	tc_buf_puts(out, "\n      decide by ");
	tc_buf_puts(out, tc_json_get_string(g, "decide_by"));
	tc_buf_puts(out, ", improvement >= ");
	tc_json_str(out, tc_json_get(g, "min_improvement_pct"));
	tc_buf_puts(out, " %, p90 regression <= ");
	tc_json_str(out, tc_json_get(g, "allow_p90_regression_pct"));
	tc_buf_puts(out, " %, stddev regression <= ");
	tc_json_str(out, tc_json_get(g, "allow_stddev_regression_pct"));
	tc_buf_printf(out, " %%\n      runs %s\n\nbaseline: ",
	    strcmp(tc_json_get_string(g, "order"), "interleaved") == 0 ?
	    "interleaved: baseline and candidates alternate (A B A B ...)" :
	    "sequential: each series after the other");
	if (tc_json_get_string(tc_json_get(plan, "baseline"), "variant"))
		tc_buf_printf(out, "variant %s ", tc_json_get_string(
		    tc_json_get(plan, "baseline"), "variant"));
	put_point(out, tc_json_get(tc_json_get(plan, "baseline"), "params"));
	arr = tc_json_get(plan, "variants");
	tc_buf_printf(out, "\n\nStage A screens %zu variant(s)\n",
	    arr->u.arr.len > 0 ? arr->u.arr.len - 1 : 0);
	for (i = 0; i < arr->u.arr.len; i++) {
		const tc_json *v = arr->u.arr.items[i];

		tc_buf_printf(out, "  %-12s %-9s ", tc_json_get_string(v, "name"),
		    tc_json_get_string(v, "role"));
		put_point(out, tc_json_get(v, "params"));
		tc_buf_putc(out, '\n');
	}
	tc_buf_puts(out, "\nStage O option space: ");
	tc_json_str(out, tc_json_get(opt, "points"));
	tc_buf_puts(out, " points, ");
	tc_json_str(out, tc_json_get(opt, "points_allowed"));
	tc_buf_printf(out, " allowed by %zu constraint(s); search %s\n",
	    tc_json_get(opt, "constraints")->u.arr.len,
	    tc_json_get_string(opt, "search"));
	arr = tc_json_get(opt, "parameters");
	for (i = 0; i < arr->u.arr.len; i++) {
		tc_buf_printf(out, "  %-12s ", tc_json_get_string(
		    arr->u.arr.items[i], "name"));
		tc_json_str(out, tc_json_get(arr->u.arr.items[i], "values"));
		tc_buf_putc(out, '\n');
	}
	arr = tc_json_get(opt, "constraints");
	for (i = 0; i < arr->u.arr.len; i++)
		tc_buf_printf(out, "  where %s\n", tc_json_string(
		    arr->u.arr.items[i]));
	arr = tc_json_get(opt, "matrix");
	if (arr->u.arr.len > 0 && arr->u.arr.len <= TEXT_MATRIX_LISTED) {
		tc_buf_puts(out, "  the matrix after the constraints:\n");
		for (i = 0; i < arr->u.arr.len; i++) {
			tc_buf_puts(out, "    ");
			put_point(out, arr->u.arr.items[i]);
			tc_buf_putc(out, '\n');
		}
	} else if (arr->u.arr.len > 0) {
		tc_buf_puts(out, "  the matrix after the constraints: too many "
		    "points to list here (--json lists them)\n");
	}
	arr = tc_json_get(opt, "trials");
	tc_buf_printf(out, "  %zu trial(s) against %s:\n", arr->u.arr.len,
	    strcmp(tc_json_get_string(opt, "search"), "exhaustive") == 0 ?
	    "O0 (every allowed point; the best accepted one wins)" :
	    "the incumbent");
	for (i = 0; i < arr->u.arr.len; i++) {
		tc_buf_puts(out, "    ");
		put_point(out, arr->u.arr.items[i]);
		tc_buf_putc(out, '\n');
	}
	tc_buf_puts(out, "\nruns per phase (warm-up and checks included; "
	    "at most, with every re-measurement)\n");
	arr = tc_json_get(plan, "phases");
	for (i = 0; i < arr->u.arr.len; i++) {
		const tc_json *p = arr->u.arr.items[i];

		tc_buf_printf(out, "  %-28s ", tc_json_get_string(p, "phase"));
		tc_json_str(out, tc_json_get(p, "runs"));
		tc_buf_puts(out, " (");
		tc_json_str(out, tc_json_get(p, "runs_at_most"));
		tc_buf_printf(out, ")  %s\n", tc_json_get_string(p, "what"));
	}
	tc_buf_puts(out, "  total runs ");
	tc_json_str(out, tc_json_get(tot, "runs"));
	tc_buf_puts(out, " (at most ");
	tc_json_str(out, tc_json_get(tot, "runs_at_most"));
	tc_buf_puts(out, "), builds ");
	tc_json_str(out, tc_json_get(tot, "builds"));
	tc_buf_puts(out, "\n\ntime: ");
	if (tc_json_number(tc_json_get(est, "seconds"), &d)) {
		tc_buf_puts(out, "about ");
		put_duration(out, d);
		tc_buf_puts(out, ", ");
	} else {
		tc_buf_puts(out, "unknown (give run.estimate_seconds), ");
	}
	tc_buf_puts(out, "at most ");
	if (tc_json_number(tc_json_get(est, "seconds_at_most"), &d))
		put_duration(out, d);
	tc_buf_puts(out, " (every run to its timeout)\n");
}
