/*
 * summary.c - performance.json of a formal compare (pypto-orchestration.md
 * docs/spec/pypto.md "Deliverables"): per-case rows from the archived
 * measurements, the Golden default target block (docs/spec/pypto.md
 * "Golden ratio and target status") recomputed from per-case evidence, and the
 * hardware-neutral timing fields.  Fields only an NPU profiler can fill are
 * null, and null_field_reasons says why.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compare_internal.h"
#include "pypto_internal.h"
#include "tunectl/path.h"
#include "tunectl/pypto_compare.h"

const char *
tc_pypto_timing_method(const char *source)
{
	if (strcmp(source, "runner_reported") == 0)
		return "runner_reported.PYPTO_PERF_TASK";
	return "process_timer.wall_clock";
}

static tc_json *
num_or_null(bool have, double v)
{
	return have ? tc_json_new_float(v) : tc_json_new_null();
}

void
tc_pypto_ratio_stats(const double *r, size_t n, tc_json *out)
{
	double mn = 0, mx = 0;
	size_t i;

	for (i = 0; i < n; i++) {
		if (i == 0 || r[i] < mn)
			mn = r[i];
		if (i == 0 || r[i] > mx)
			mx = r[i];
	}
	tc_json_object_set_int(out, "n_cases_valid", (int64_t)n);
	tc_json_object_set(out, "geomean", num_or_null(n > 0, n > 0 ?
	    tc_pypto_geomean(r, n) : 0));
	tc_json_object_set(out, "mean", num_or_null(n > 0, n > 0 ?
	    tc_pypto_mean(r, n) : 0));
	tc_json_object_set(out, "median", num_or_null(n > 0, n > 0 ?
	    tc_pypto_median(r, n) : 0));
	tc_json_object_set(out, "min", num_or_null(n > 0, mn));
	tc_json_object_set(out, "max", num_or_null(n > 0, mx));
}

static void
timing_stat(tc_json *s, const char *prefix, const double *v, size_t n)
{
	char k1[32], k2[32], k3[32];
	double total = 0;
	size_t i;

	for (i = 0; i < n; i++)
		total += v[i];
	snprintf(k1, sizeof(k1), "mean_%s_us", prefix);
	snprintf(k2, sizeof(k2), "median_%s_us", prefix);
	snprintf(k3, sizeof(k3), "total_%s_us", prefix);
	tc_json_object_set(s, k1, num_or_null(n > 0, n > 0 ?
	    tc_pypto_mean(v, n) : 0));
	tc_json_object_set(s, k2, num_or_null(n > 0, n > 0 ?
	    tc_pypto_median(v, n) : 0));
	tc_json_object_set(s, k3, num_or_null(n > 0, total));
}

static tc_json *
null_reasons(bool joined)
{
	tc_json *r = tc_json_new_object();

	tc_json_object_set_string(r, "per_case[].ref_prof_dir", "the Golden "
	    "reference is read from GOLDEN_PERF_REPORT.json; compare never "
	    "profiles Golden");
	tc_json_object_set_string(r, "per_case[].raw_prof_dir", "no NPU "
	    "profiler session exists for a hardware-neutral timing source; the "
	    "raw evidence is the per-repeat timing CSV in deep_profile_dir");
	tc_json_object_set_string(r, "per_case[].repeat_bound_diagnoses[]."
	    "primary_core", "no op_summary pipe ratios or core times without "
	    "an NPU profiler; routing is insufficient_evidence");
	if (!joined) {
		tc_json_object_set_string(r, "golden_timing_method", "no joined "
		    "Golden contract (GOLDEN_PERF_REPORT.json absent)");
		tc_json_object_set_string(r, "golden_iterations", "no joined "
		    "Golden contract");
		tc_json_object_set_string(r, "per_case[].ref_us", "no joined "
		    "Golden contract; the default target is unavailable");
	}
	return r;
}

/* The figures of the cases that have them, in case order. */
struct figures {
	double *ratios, *refs, *ascs;
	size_t nr, na;
	bool all_met;
};

/* The row of case i: its time, its Golden reference ratio and where its
 * evidence lies; its figures go into f. */
static tc_json *
case_row(const tc_pypto_summary_in *in, size_t i, struct figures *f)
{
	static const char *const copied[] = {
		"duration_samples_us", "selected_op_names",
		"timing_source_metric", "timing_source_files",
		"aggregation_method", "repeat_bound_diagnoses", NULL
	};
	const tc_pypto_case *c = &in->m->cases[i];
	const tc_json *meas = in->measurements[i];
	tc_json *row = tc_json_new_object();
	double asc = 0, ratio = 0;
	bool asc_ok = tc_pj_positive(tc_json_get(meas, "aggregate_us"), &asc);
	bool have_ratio = false;
	char *dn = tc_pypto_case_dir_name(c->id);
	char *case_dir = tc_path_join(in->round_dir, dn);
	size_t k;

	free(dn);
	if (asc_ok)
		f->ascs[f->na++] = asc;
	if (asc_ok && c->has_golden && isfinite(c->golden_us) &&
	    c->golden_us > 0) {
		ratio = c->golden_us / asc;
		if (isfinite(ratio) && ratio > 0) {
			have_ratio = true;
			f->ratios[f->nr] = ratio;
			f->refs[f->nr++] = c->golden_us;
		}
	}
	tc_json_object_set_string(row, "case", c->id);
	tc_json_object_set_string(row, "shape", c->shape);
	tc_json_object_set_string(row, "dtype", c->dtype);
	tc_json_object_set(row, "ref_us", num_or_null(c->has_golden,
	    c->golden_us));
	tc_json_object_set(row, "asc_us", num_or_null(asc_ok, asc));
	tc_json_object_set(row, "speedup", num_or_null(have_ratio, ratio));
	tc_json_object_set(row, "default_target_ratio",
	    num_or_null(have_ratio, ratio));
	tc_json_object_set(row, "golden_reference_ratio",
	    num_or_null(have_ratio, ratio));
	if (have_ratio)
		tc_json_object_set_bool(row, "default_target_met", ratio >= 1.0);
	else
		tc_json_object_set_null(row, "default_target_met");
	if (have_ratio && ratio < 1.0)
		f->all_met = false;
	tc_json_object_set_null(row, "ref_error");
	tc_json_object_set_null(row, "asc_error");
	tc_json_object_set_null(row, "ref_prof_dir");
	tc_json_object_set_string(row, "asc_prof_dir", case_dir);
	tc_json_object_set_string(row, "deep_profile_dir", case_dir);
	tc_json_object_set_null(row, "raw_prof_dir");
	for (k = 0; copied[k] != NULL; k++)
		tc_json_object_set(row, copied[k],
		    tc_json_clone(tc_json_get(meas, copied[k])));
	free(case_dir);
	return row;
}

/* The ratio statistics, timing statistics and aggregate ratio. */
static void
ratio_fields(tc_json *s, const struct figures *f)
{
	static const char *const named[][2] = {
		{ "geomean_speedup", "geomean" }, { "mean_speedup", "mean" },
		{ "median_speedup", "median" }, { "min_speedup", "min" },
		{ "max_speedup", "max" },
	};
	tc_json *stats = tc_json_new_object();
	double sr = 0, sa = 0;
	bool have = f->nr > 0 && f->na > 0 && f->nr == f->na;
	size_t i;

	tc_pypto_ratio_stats(f->ratios, f->nr, stats);
	for (i = 0; i < sizeof(named) / sizeof(named[0]); i++)
		tc_json_object_set(s, named[i][0],
		    tc_json_clone(tc_json_get(stats, named[i][1])));
	tc_json_object_set(s, "golden_reference_ratio_stats", stats);
	tc_json_object_set_int(s, "n_cases_valid", (int64_t)f->na);
	tc_json_object_set_int(s, "n_default_target_cases", (int64_t)f->nr);
	tc_json_object_set_int(s, "n_cross_scope_cases", (int64_t)f->nr);
	timing_stat(s, "ref", f->refs, f->nr);
	timing_stat(s, "asc", f->ascs, f->na);
	for (i = 0; i < f->nr; i++)
		sr += f->refs[i];
	for (i = 0; i < f->na; i++)
		sa += f->ascs[i];
	have = have && sa > 0;
	tc_json_object_set(s, "aggregate_golden_reference_ratio",
	    num_or_null(have, have ? sr / sa : 0));
	tc_json_object_set(s, "total_speedup",
	    num_or_null(have, have ? sr / sa : 0));
}

/* The default target: met, not met, or unavailable (no valid joined
 * Golden contract, or a quick screening, which never decides one). */
static void
target_fields(tc_json *s, const tc_pypto_summary_in *in,
    const struct figures *f, bool joined)
{
	const tc_pypto_manifest *m = in->m;
	const tc_json *proto = tc_json_get(tc_json_get(m->source,
	    "golden_contract"), "protocol");
	int64_t v;
	bool valid, met;

	valid = joined && tc_pj_int(tc_json_get(proto, "device_id"), &v) &&
	    v == in->device && tc_pj_int(tc_json_get(proto, "seed"), &v) &&
	    v == 42 && m->n > 0 && f->na == m->n && f->nr == m->n;
	met = valid && f->all_met;
	if (in->quick) {
		valid = false;
		met = false;
	}
	tc_json_object_set_string(s, "comparison_scope", f->nr > 0 ?
	    "golden_e2e_to_pypto_target_kernel" :
	    "pypto_target_kernel_measurement");
	if (f->nr > 0)
		tc_json_object_set_string(s, "ratio_semantics",
		    "golden_per_iteration_e2e_us / pypto_target_kernel_us");
	else
		tc_json_object_set_null(s, "ratio_semantics");
	tc_json_object_set_string(s, "default_target_metric",
	    "golden_per_iteration_e2e_us / pypto_target_kernel_us");
	tc_json_object_set(s, "default_target_threshold", tc_json_new_float(1.0));
	tc_json_object_set_bool(s, "default_target_met", met);
	tc_json_object_set_string(s, "default_target_status", met ? "met" :
	    valid ? "not_met" : "unavailable");
	tc_json_object_set_bool(s, "valid_for_optimization_speedup", false);
	tc_json_object_set_bool(s, "valid_for_target_met", valid);
	if (f->nr > 0)
		tc_json_object_set_string(s, "golden_timing_method",
		    "torch_npu.kernel_details.all_golden_npu_kernel_sum");
	else
		tc_json_object_set_null(s, "golden_timing_method");
	if (m->golden_iterations > 0)
		tc_json_object_set_int(s, "golden_iterations",
		    m->golden_iterations);
	else
		tc_json_object_set_null(s, "golden_iterations");
}

/* How the cases were run and timed. */
static void
protocol_fields(tc_json *s, const tc_pypto_summary_in *in)
{
	tc_json *sel = tc_json_new_object();
	char *tm;

	tc_json_object_set_int(s, "warmup", in->warmup);
	tc_json_object_set_int(s, "repeats", in->repeats);
	tc_json_object_set_int(s, "seed", 42);
	tc_json_object_set_string(s, "seed_source", in->seed >= 0 ?
	    "cli_override" : "stage4_default");
	tc_json_object_set_int(s, "device_id", in->device);
	tc_json_object_set_string(s, "device_select_source", in->device_source);
	tc_json_object_set_string(s, "target_op_name", in->op_name);
	tc_json_object_set_string(sel, "kind", in->case_selector_kind);
	if (in->case_selector_name != NULL)
		tc_json_object_set_string(sel, "name", in->case_selector_name);
	else
		tc_json_object_set_null(sel, "name");
	tc_json_object_set(s, "case_selector", sel);
	tm = tc_xasprintf("%s%s", tc_pypto_timing_method(in->timing_source),
	    in->quick ? ".quick" : "");
	tc_json_object_set_string(s, "timing_method", tm);
	free(tm);
	tc_json_object_set_string(s, "timing_source_metric", in->timing_source);
	tc_json_object_set_string(s, "profiling_mode", in->quick ? "quick" :
	    "compare");
	tc_json_object_set_bool(s, "valid_for_formal_gate", !in->quick);
}

tc_json *
tc_pypto_summary(const tc_pypto_summary_in *in)
{
	const tc_pypto_manifest *m = in->m;
	tc_json *s = tc_json_new_object(), *rows = tc_json_new_array();
	const tc_json *gd = tc_json_get(m->source, "golden_diagnostic");
	const tc_json *gc = tc_json_get(m->source, "golden_contract");
	struct figures f;
	bool joined;
	size_t i;

	memset(&f, 0, sizeof(f));
	f.ratios = tc_xcalloc(m->n + 1, sizeof(double));
	f.refs = tc_xcalloc(m->n + 1, sizeof(double));
	f.ascs = tc_xcalloc(m->n + 1, sizeof(double));
	f.all_met = true;
	for (i = 0; i < m->n; i++)
		tc_json_array_push(rows, case_row(in, i, &f));
	joined = tc_json_get_string(gd, "status") != NULL &&
	    strcmp(tc_json_get_string(gd, "status"), "joined") == 0 &&
	    tc_json_is(gc, TC_JSON_OBJECT);
	tc_json_object_set_string(s, "task", tc_path_basename(in->op_dir));
	tc_json_object_set_string(s, "task_dir", in->op_dir);
	tc_json_object_set_int(s, "n_cases_total", (int64_t)m->n);
	ratio_fields(s, &f);
	protocol_fields(s, in);
	target_fields(s, in, &f, joined);
	tc_json_object_set(s, "performance_cases", tc_json_clone(m->source));
	tc_json_object_set_string(s, "collection_id", in->collection_id);
	tc_json_object_set_string(s, "deep_profile_round", in->round_dir);
	tc_json_object_set(s, "per_case", rows);
	tc_json_object_set_string(s, "executable_sha256", in->executable_sha256);
	tc_json_object_set(s, "null_field_reasons", null_reasons(joined));
	free(f.ratios);
	free(f.refs);
	free(f.ascs);
	return s;
}
