/*
 * report_render.c - perf_report.md and performance.log of a formal
 * compare, rendered from performance.json with the reference's layout and
 * strings (docs/spec/pypto.md "Deliverables").  Where the reference names the
 * NPU profiler (msprof, op_summary CSVs) the hardware-neutral timing
 * source and its timing.csv are named instead (docs/pypto.md).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pypto_internal.h"
#include "tunectl/pypto_compare.h"

static bool
get_num(const tc_json *obj, const char *key, double *out)
{
	const tc_json *v = tc_json_get(obj, key);

	return v != NULL && v->type != TC_JSON_NULL &&
	    v->type != TC_JSON_BOOL && tc_json_number(v, out);
}

static void
put_value(tc_buf *b, const tc_json *v)
{
	tc_json_str(b, v);
}

/* "<r[of]>/n_cases_total\n": a count of the cases out of all of them. */
static void
put_of_total(tc_buf *b, const tc_json *r, const char *of)
{
	put_value(b, tc_json_get(r, of));
	tc_buf_putc(b, '/');
	put_value(b, tc_json_get(r, "n_cases_total"));
	tc_buf_putc(b, '\n');
}

/* Python format width for str: pads by code points. */
static void
pad(tc_buf *b, const char *s, size_t width, bool right)
{
	size_t cps = tc_utf8_length(s, strlen(s)), i;

	if (right)
		for (i = cps; i < width; i++)
			tc_buf_putc(b, ' ');
	tc_buf_puts(b, s);
	if (!right)
		for (i = cps; i < width; i++)
			tc_buf_putc(b, ' ');
}

static void
padf(tc_buf *b, double v, int decimals, size_t width, const char *suffix)
{
	tc_buf t = TC_BUF_INIT;

	tc_py_fixed(&t, v, decimals);
	pad(b, tc_buf_cstr(&t), width, true);
	tc_buf_puts(b, suffix);
	tc_buf_free(&t);
}

static void
repr_list(tc_buf *b, const tc_json *v)
{
	tc_pj_pylist(b, v);
}

struct route {
	tc_json *routes;
	bool scalar;
	tc_json *terminals;	/* sorted, unique */
	tc_json *overlaps;
};

static void
sorted_insert(tc_json *arr, const char *s)
{
	size_t i;

	if (tc_pj_array_has_string(arr, s))
		return;
	tc_json_array_push(arr, tc_json_new_string(s));
	for (i = arr->u.arr.len - 1; i > 0; i--) {
		tc_json **it = arr->u.arr.items;

		if (strcmp(tc_json_string(it[i - 1]), tc_json_string(it[i])) <= 0)
			break;
		{
			tc_json *t = it[i];

			it[i] = it[i - 1];
			it[i - 1] = t;
		}
	}
}

static void
route_of(const tc_json *diags, struct route *r)
{
	size_t i;

	r->routes = tc_json_new_array();
	r->terminals = tc_json_new_array();
	r->overlaps = tc_json_new_array();
	r->scalar = false;
	for (i = 0; i < diags->u.arr.len; i++) {
		const tc_json *d = diags->u.arr.items[i];
		const tc_json *st = tc_json_get(d, "scalar_route_triggered");

		tc_json_array_push(r->routes, tc_json_new_string(
		    tc_json_get_string_or(d, "routing_label", "unknown")));
		if (tc_json_is(st, TC_JSON_BOOL) && st->u.b)
			r->scalar = true;
		sorted_insert(r->terminals, tc_json_get_string_or(d, "roofline_terminal_status",
		    "insufficient_evidence"));
		sorted_insert(r->overlaps, tc_json_get_string_or(d, "pipeline_overlap_status",
		    "unverified"));
	}
}

static void
route_free(struct route *r)
{
	tc_json_free(r->routes);
	tc_json_free(r->terminals);
	tc_json_free(r->overlaps);
}

static bool
has_diagnoses(const tc_json *c)
{
	const tc_json *d = tc_json_get(c, "repeat_bound_diagnoses");

	return tc_json_is(d, TC_JSON_ARRAY) && d->u.arr.len > 0;
}

static const char *
evidence_dir(const tc_json *c)
{
	const char *d = tc_json_get_string(c, "deep_profile_dir");

	if (d == NULL || d[0] == '\0')
		d = tc_json_get_string(c, "asc_prof_dir");
	return d != NULL && d[0] != '\0' ? d : "quick-summary-only";
}

/* What the report's header and the log's both state, with the text each
 * gives for a missing one. */
struct header {
	const char *selector_kind, *selector_name;	/* case_selector */
	const char *cases_type, *cases_path, *cases_sha256;
	const char *golden_status;	/* performance_cases.golden_diagnostic */
	const char *target_metric, *target_status;
	double threshold;		/* default_target_threshold, or 1.0 */
	bool valid_for_target;		/* valid_for_target_met is true */
	bool golden_cases;		/* n_default_target_cases > 0 */
};

static void
header_facts(const tc_json *r, struct header *h)
{
	const tc_json *sel = tc_json_get(r, "case_selector");
	const tc_json *pc = tc_json_get(r, "performance_cases");
	const tc_json *vt;
	const char *sn;
	double n = 0;

	h->selector_kind = tc_json_get_string_or(sel, "kind", "unknown");
	sn = tc_json_get_string(sel, "name");
	h->selector_name = sn != NULL && *sn ? sn : "-";
	h->cases_type = tc_json_get_string_or(pc, "type", "unknown");
	h->cases_path = tc_json_get_string_or(pc, "path", "unknown");
	h->cases_sha256 = tc_json_get_string_or(pc, "sha256", "unknown");
	h->golden_status = tc_json_get_string_or(tc_json_get(pc,
	    "golden_diagnostic"), "status", "not_provided");
	h->target_metric = tc_json_get_string_or(r, "default_target_metric",
	    "");
	h->target_status = tc_json_get_string_or(r, "default_target_status",
	    "");
	h->threshold = 1.0;
	(void)get_num(r, "default_target_threshold", &h->threshold);
	vt = tc_json_get(r, "valid_for_target_met");
	h->valid_for_target = tc_json_is(vt, TC_JSON_BOOL) && vt->u.b;
	h->golden_cases = get_num(r, "n_default_target_cases", &n) && n > 0;
}

static void
md_header(tc_buf *b, const tc_json *r)
{
	struct header h;

	header_facts(r, &h);
	tc_buf_puts(b, "# 性能评估结果\n\n");
	tc_buf_printf(b, "- **Operator**: %s\n", tc_json_get_string_or(r, "task", ""));
	tc_buf_puts(b, "- **Device**: npu:");
	put_value(b, tc_json_get(r, "device_id"));
	tc_buf_printf(b, " (source=%s)\n", tc_json_get_string_or(r, "device_select_source", ""));
	tc_buf_puts(b, "- **Warmup**: ");
	put_value(b, tc_json_get(r, "warmup"));
	tc_buf_puts(b, "\n- **Repeats**: ");
	put_value(b, tc_json_get(r, "repeats"));
	tc_buf_puts(b, "\n- **Seed**: ");
	put_value(b, tc_json_get(r, "seed"));
	tc_buf_printf(b, "\n- **Timing method**: %s\n",
	    tc_json_get_string_or(r, "timing_method", ""));
	tc_buf_printf(b, "- **Timing source**: %s\n",
	    tc_json_get_string_or(r, "timing_source_metric", "unknown"));
	tc_buf_printf(b, "- **Target Op Name**: `%s`\n",
	    tc_json_get_string_or(r, "target_op_name", "unknown"));
	tc_buf_printf(b, "- **Case selector**: `%s:%s`\n", h.selector_kind,
	    h.selector_name);
	tc_buf_printf(b, "- **Profiling mode**: %s\n",
	    tc_json_get_string_or(r, "profiling_mode", ""));
	tc_buf_printf(b, "- **Collection ID**: %s\n",
	    tc_json_get_string_or(r, "collection_id", ""));
	tc_buf_printf(b, "- **Performance cases**: `%s`; source=`%s`; "
	    "sha256=`%s`\n", h.cases_type, h.cases_path, h.cases_sha256);
	tc_buf_printf(b, "- **Golden target source status**: `%s`\n",
	    h.golden_status);
	tc_buf_printf(b, "- **Default target**: `%s >= ", h.target_metric);
	tc_py_fixed(b, h.threshold, 1);
	tc_buf_puts(b, "` for every P0 case\n");
	tc_buf_printf(b, "- **Default target status**: `%s` "
	    "(valid_for_target_met=%s)\n", h.target_status,
	    h.valid_for_target ? "true" : "false");
	if (h.golden_cases) {
		tc_buf_printf(b, "- **Comparison scope**: `%s`\n",
		    tc_json_get_string_or(r, "comparison_scope", ""));
		tc_buf_printf(b, "- **Golden source**: `%s` (iterations=",
		    tc_json_get_string_or(r, "golden_timing_method", "None"));
		put_value(b, tc_json_get(r, "golden_iterations"));
		tc_buf_puts(b, ", normalized per iteration)\n");
		tc_buf_puts(b, "- **Ratio semantics**: this ratio is valid for the "
		    "Stage 5 default Golden target; it is not baseline-to-final "
		    "optimization speedup.\n");
	}
	tc_buf_puts(b, "\n");
}

static void
num_cell(tc_buf *b, const tc_json *c, const char *key, int decimals)
{
	double v;

	if (get_num(c, key, &v))
		tc_py_fixed(b, v, decimals);
	else
		tc_buf_puts(b, "N/A");
}

struct cell {
	const char *key;
	int decimals;
};

/* num_cell of each of the n cells, joined by sep. */
static void
num_cells(tc_buf *b, const tc_json *c, const struct cell *cells, size_t n,
    const char *sep)
{
	size_t i;

	for (i = 0; i < n; i++) {
		if (i > 0)
			tc_buf_puts(b, sep);
		num_cell(b, c, cells[i].key, cells[i].decimals);
	}
}

static void
md_cases(tc_buf *b, const tc_json *r)
{
	static const struct cell row[] = {
		{ "asc_us", 2 }, { "ref_us", 2 }, { "golden_reference_ratio", 3 }
	};
	const tc_json *pcs = tc_json_get(r, "per_case");
	size_t i;

	if (!tc_json_is(pcs, TC_JSON_ARRAY) || pcs->u.arr.len == 0)
		return;
	tc_buf_puts(b, "## Golden 默认目标对比\n\n");
	tc_buf_puts(b, "| Case | Shape | DType | PyPTO目标kernel(us) | "
	    "Golden每迭代E2E(us) | 默认目标比值(E2E/kernel) |\n");
	tc_buf_puts(b, "| ---- | ----- | ----- | ------------- | -------- | "
	    "-------------- |\n");
	for (i = 0; i < pcs->u.arr.len; i++) {
		const tc_json *c = pcs->u.arr.items[i];

		tc_buf_printf(b, "| %s | %s | %s | ", tc_json_get_string_or(c, "case", ""),
		    tc_json_get_string_or(c, "shape", "?"), tc_json_get_string_or(c, "dtype", "?"));
		num_cells(b, c, row, 3, " | ");
		tc_buf_puts(b, " |\n");
	}
	tc_buf_puts(b, "\n### 重复采样证据\n\n");
	for (i = 0; i < pcs->u.arr.len; i++) {
		const tc_json *c = pcs->u.arr.items[i];

		tc_buf_printf(b, "- `%s`: samples_us=", tc_json_get_string_or(c, "case", ""));
		repr_list(b, tc_json_get(c, "duration_samples_us"));
		tc_buf_puts(b, "; selected_op_names=");
		repr_list(b, tc_json_get(c, "selected_op_names"));
		tc_buf_printf(b, "; evidence=`%s`\n", evidence_dir(c));
	}
	tc_buf_puts(b, "\n");
}

static void
md_routing(tc_buf *b, const tc_json *r)
{
	const tc_json *pcs = tc_json_get(r, "per_case");
	size_t i;
	bool any = false;

	for (i = 0; tc_json_is(pcs, TC_JSON_ARRAY) && i < pcs->u.arr.len; i++)
		any = any || has_diagnoses(pcs->u.arr.items[i]);
	if (!any)
		return;
	tc_buf_puts(b, "## Pipe / Bound 路由（诊断，不是最终 Roofline 结论）\n\n");
	tc_buf_puts(b, "| Case | Repeat 路由 | Scalar 候选 | Roofline 结论 | "
	    "搬运/计算流水证据 |\n");
	tc_buf_puts(b, "| ---- | ----------- | ----------- | ------------- | "
	    "----------------- |\n");
	for (i = 0; i < pcs->u.arr.len; i++) {
		const tc_json *c = pcs->u.arr.items[i];
		struct route rt;

		if (!has_diagnoses(c))
			continue;
		route_of(tc_json_get(c, "repeat_bound_diagnoses"), &rt);
		tc_buf_printf(b, "| %s | ", tc_json_get_string_or(c, "case", ""));
		tc_json_repr(b, rt.routes);
		tc_buf_printf(b, " | %s | ", rt.scalar ? "true" : "false");
		tc_json_repr(b, rt.terminals);
		tc_buf_puts(b, " | ");
		tc_json_repr(b, rt.overlaps);
		tc_buf_puts(b, " |\n");
		route_free(&rt);
	}
	tc_buf_puts(b, "\n> `op_summary` 的 pipe ratio 只用于选择下一项实验；它不包含"
	    "事件先后关系，不能单独证明 compute/movement bound 或搬运与计算已经重叠。"
	    "最终结论必须在 `PERFORMANCE_REPORT.md` 中引用工作量/流量模型及 timeline "
	    "或等价依赖证据。\n\n");
}

static int
cmp_cstr(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* The rows of the summary table: "| label | value |\n". */
static void
value_row(tc_buf *b, const char *label, const tc_json *v)
{
	tc_buf_printf(b, "| %s | ", label);
	put_value(b, v);
	tc_buf_puts(b, " |\n");
}

static void
fixed_row(tc_buf *b, const char *label, double v, int decimals)
{
	tc_buf_printf(b, "| %s | ", label);
	tc_py_fixed(b, v, decimals);
	tc_buf_puts(b, " |\n");
}

static void
num_row(tc_buf *b, const char *label, const tc_json *r, const char *key)
{
	tc_buf_printf(b, "| %s | ", label);
	num_cell(b, r, key, 3);
	tc_buf_puts(b, " |\n");
}

static void
md_summary(tc_buf *b, const tc_json *r)
{
	const tc_json *stats = tc_json_get(r, "golden_reference_ratio_stats");
	const tc_json *pcs = tc_json_get(r, "per_case");
	double v, thr = 1.0, mean;
	size_t i, met = 0, missed = 0, nd = 0;
	const char **dtypes;

	(void)get_num(r, "default_target_threshold", &thr);
	tc_buf_puts(b, "## PyPTO measurement summary\n\n| Metric | Value |\n"
	    "| ---- | -- |\n");
	value_row(b, "Cases", tc_json_get(r, "n_cases_total"));
	value_row(b, "Valid PyPTO measurements", tc_json_get(r, "n_cases_valid"));
	if (get_num(r, "mean_asc_us", &v)) {
		fixed_row(b, "Mean PyPTO target-kernel (us)", v, 3);
		num_row(b, "Median PyPTO target-kernel (us)", r, "median_asc_us");
		num_row(b, "Total PyPTO target-kernel (us)", r, "total_asc_us");
	}
	if (tc_json_get(r, "n_default_target_cases") != NULL)
		value_row(b, "Golden target cases",
		    tc_json_get(r, "n_default_target_cases"));
	else
		tc_buf_puts(b, "| Golden target cases | 0 |\n");
	fixed_row(b, "Default target threshold", thr, 1);
	tc_buf_printf(b, "| Default target status | %s |\n",
	    tc_json_get_string_or(r, "default_target_status", ""));
	if (!get_num(stats, "geomean", &v)) {
		tc_buf_puts(b, "\n");
		return;
	}
	(void)get_num(stats, "mean", &mean);
	fixed_row(b, "Mean Golden-E2E/PyPTO-kernel target ratio", mean, 3);
	for (i = 0; tc_json_is(pcs, TC_JSON_ARRAY) && i < pcs->u.arr.len; i++) {
		const tc_json *m = tc_json_get(pcs->u.arr.items[i],
		    "default_target_met");

		if (tc_json_is(m, TC_JSON_BOOL)) {
			if (m->u.b)
				met++;
			else
				missed++;
		}
	}
	tc_buf_printf(b, "| Target-met cases (ratio >=1) | %zu |\n", met);
	tc_buf_printf(b, "| Target-missed cases (ratio <1) | %zu |\n\n", missed);

	dtypes = tc_xcalloc(pcs->u.arr.len + 1, sizeof(*dtypes));
	for (i = 0; i < pcs->u.arr.len; i++) {
		const tc_json *c = pcs->u.arr.items[i];
		const char *dt = tc_json_get_string_or(c, "dtype", "?");
		size_t k;

		if (!get_num(c, "golden_reference_ratio", &v))
			continue;
		for (k = 0; k < nd; k++)
			if (strcmp(dtypes[k], dt) == 0)
				break;
		if (k == nd)
			dtypes[nd++] = dt;
	}
	qsort(dtypes, nd, sizeof(*dtypes), cmp_cstr);
	if (nd > 0) {
		tc_buf_puts(b, "### 按数据类型汇总\n\n| DType | 用例数 | "
		    "平均默认目标比值 | 达标(>=1) | 未达标(<1) |\n| ----- | ------ | "
		    "------------------- | ------------- | -------- |\n");
		for (i = 0; i < nd; i++) {
			double *vals = tc_xcalloc(pcs->u.arr.len, sizeof(double));
			size_t k, n = 0, better = 0, worse = 0;

			for (k = 0; k < pcs->u.arr.len; k++) {
				const tc_json *c = pcs->u.arr.items[k];

				if (strcmp(tc_json_get_string_or(c, "dtype", "?"), dtypes[i]) != 0 ||
				    !get_num(c, "golden_reference_ratio", &v))
					continue;
				vals[n++] = v;
				if (v >= 1)
					better++;
				else
					worse++;
			}
			tc_buf_printf(b, "| %s | %zu | ", dtypes[i], n);
			tc_py_fixed(b, tc_pypto_mean(vals, n), 3);
			tc_buf_printf(b, " | %zu | %zu |\n", better, worse);
			free(vals);
		}
		tc_buf_puts(b, "\n");
	}
	free(dtypes);
}

static void
md_analysis(tc_buf *b, const tc_json *r)
{
	const tc_json *stats = tc_json_get(r, "golden_reference_ratio_stats");
	const tc_json *pcs = tc_json_get(r, "per_case");
	const char *round = tc_json_get_string(r, "deep_profile_round");
	double mean, thr = 1.0;
	size_t i;

	(void)get_num(r, "default_target_threshold", &thr);
	tc_buf_puts(b, "## 简短分析\n\n");
	if (get_num(stats, "mean", &mean)) {
		tc_buf_puts(b, "- Golden 每迭代 E2E / PyPTO target-kernel 平均目标比值为 ");
		tc_py_fixed(b, mean, 3);
		tc_buf_puts(b, "；默认目标要求每个 P0 case 均不低于 ");
		tc_py_fixed(b, thr, 1);
		tc_buf_puts(b, "。该比值不是 baseline→final 优化加速比。\n");
	} else {
		tc_buf_puts(b, "- 未提供完整 Golden 数据；PyPTO 采集有效，但默认目标不可判定。\n");
	}
	tc_buf_puts(b, "- 详细瓶颈分析见归档目录（逐 repeat 的 timing.csv + summary.txt）。\n\n");
	tc_buf_puts(b, "## 深度瓶颈分析\n\n");
	if (round != NULL && round[0] != '\0') {
		tc_buf_printf(b, "- 深度采集轮次：`%s`\n", round);
		for (i = 0; tc_json_is(pcs, TC_JSON_ARRAY) && i < pcs->u.arr.len;
		    i++) {
			const tc_json *c = pcs->u.arr.items[i];
			const char *d = tc_json_get_string(c, "deep_profile_dir");

			if (d != NULL && d[0] != '\0')
				tc_buf_printf(b, "- `%s`：`%s/summary.txt` 及逐 repeat 的 "
				    "`timing.csv`\n", tc_json_get_string_or(c, "case", ""), d);
		}
	} else {
		tc_buf_puts(b, "- quick 模式仅用于筛选，没有深度归档；最终证据必须用同配置 "
		    "`--compare` 重采。\n");
	}
	tc_buf_puts(b, "\n\n");
}

char *
tc_pypto_render_perf_report(const tc_json *summary)
{
	tc_buf b = TC_BUF_INIT;

	md_header(&b, summary);
	md_cases(&b, summary);
	md_routing(&b, summary);
	md_summary(&b, summary);
	md_analysis(&b, summary);
	return tc_buf_detach(&b, NULL);
}

/* ---- performance.log ---------------------------------------------------------- */

static void
rule(tc_buf *b, char c)
{
	int i;

	for (i = 0; i < 100; i++)
		tc_buf_putc(b, c);
	tc_buf_putc(b, '\n');
}

static void
log_header(tc_buf *b, const tc_json *r)
{
	struct header h;

	header_facts(r, &h);
	rule(b, '=');
	tc_buf_printf(b, "PyPTO Performance Collection (%s): %s  (warmup=",
	    tc_json_get_string_or(r, "timing_source_metric", "unknown"), tc_json_get_string_or(r, "task", ""));
	put_value(b, tc_json_get(r, "warmup"));
	tc_buf_puts(b, ", repeats=");
	put_value(b, tc_json_get(r, "repeats"));
	tc_buf_puts(b, ", seed=");
	put_value(b, tc_json_get(r, "seed"));
	tc_buf_printf(b, ")\nCollection ID: %s\n", tc_json_get_string_or(r, "collection_id", ""));
	tc_buf_printf(b, "Performance cases: %s sha256=%s path=%s\n",
	    h.cases_type, h.cases_sha256, h.cases_path);
	tc_buf_printf(b, "Golden target source status: %s\n", h.golden_status);
	tc_buf_printf(b, "Default target: %s >= ", h.target_metric);
	tc_py_fixed(b, h.threshold, 1);
	tc_buf_printf(b, " for every P0 case | status=%s | valid=%s\n",
	    h.target_status,
	    h.valid_for_target ? "True" : "False");
	if (h.golden_cases)
		tc_buf_puts(b, "Comparison scope: golden_e2e_to_pypto_target_kernel "
		    "(valid for the default target; NOT baseline-to-final "
		    "optimization speedup)\n");
	tc_buf_printf(b, "Target Op Name: %s | Timing source: %s\n",
	    tc_json_get_string_or(r, "target_op_name", "unknown"),
	    tc_json_get_string_or(r, "timing_source_metric", "unknown"));
	tc_buf_printf(b, "Case selector: %s:%s\n", h.selector_kind,
	    h.selector_name);
	rule(b, '=');
	pad(b, "Case", 5, false);
	tc_buf_putc(b, ' ');
	pad(b, "Shape", 35, false);
	tc_buf_putc(b, ' ');
	pad(b, "dtype", 10, false);
	tc_buf_putc(b, ' ');
	pad(b, "GoldenE2E", 12, true);
	tc_buf_putc(b, ' ');
	pad(b, "PyPTOKernel", 12, true);
	tc_buf_putc(b, ' ');
	pad(b, "TargetRatio", 12, true);
	tc_buf_putc(b, '\n');
	rule(b, '-');
}

static void
log_case(tc_buf *b, const tc_json *c)
{
	double ref, asc, ratio;
	bool hr = get_num(c, "ref_us", &ref), ha = get_num(c, "asc_us", &asc);
	bool hq = get_num(c, "golden_reference_ratio", &ratio);

	pad(b, tc_json_get_string_or(c, "case", ""), 5, false);
	tc_buf_putc(b, ' ');
	pad(b, tc_json_get_string_or(c, "shape", "?"), 35, false);
	tc_buf_putc(b, ' ');
	pad(b, tc_json_get_string_or(c, "dtype", "?"), 10, false);
	tc_buf_putc(b, ' ');
	if (hr && ha && hq) {
		padf(b, ref, 2, 12, " ");
		padf(b, asc, 2, 12, " ");
		padf(b, ratio, 3, 9, "x\n");
	} else {
		tc_buf r1 = TC_BUF_INIT, r2 = TC_BUF_INIT;

		if (hr)
			tc_py_fixed(&r1, ref, 2);
		else
			tc_buf_puts(&r1, "N/A");
		if (ha)
			tc_py_fixed(&r2, asc, 2);
		else
			tc_buf_puts(&r2, "N/A");
		pad(b, tc_buf_cstr(&r1), 12, true);
		tc_buf_putc(b, ' ');
		pad(b, tc_buf_cstr(&r2), 12, true);
		tc_buf_putc(b, ' ');
		pad(b, "N/A", 10, true);
		tc_buf_puts(b, "  (ref_err=");
		tc_json_str(b, tc_json_get(c, "ref_error"));
		tc_buf_puts(b, ", asc_err=");
		tc_json_str(b, tc_json_get(c, "asc_error"));
		tc_buf_puts(b, ")\n");
		tc_buf_free(&r1);
		tc_buf_free(&r2);
	}
	tc_buf_puts(b, "  samples_us=");
	repr_list(b, tc_json_get(c, "duration_samples_us"));
	tc_buf_puts(b, " selected_op_names=");
	repr_list(b, tc_json_get(c, "selected_op_names"));
	tc_buf_printf(b, " evidence=%s\n", evidence_dir(c));
	if (has_diagnoses(c)) {
		struct route rt;

		route_of(tc_json_get(c, "repeat_bound_diagnoses"), &rt);
		tc_buf_puts(b, "  bound_route=");
		tc_json_repr(b, rt.routes);
		tc_buf_printf(b, " scalar_candidate=%s roofline=",
		    rt.scalar ? "True" : "False");
		tc_json_repr(b, rt.terminals);
		tc_buf_puts(b, " pipeline=");
		tc_json_repr(b, rt.overlaps);
		tc_buf_puts(b, "\n");
		route_free(&rt);
	}
}

static void
log_summary(tc_buf *b, const tc_json *r)
{
	static const struct cell ref[] = {
		{ "mean_ref_us", 2 }, { "median_ref_us", 2 }, { "total_ref_us", 2 }
	};
	static const struct cell asc[] = {
		{ "mean_asc_us", 2 }, { "median_asc_us", 2 }, { "total_asc_us", 2 }
	};
	const tc_json *stats = tc_json_get(r, "golden_reference_ratio_stats");
	const tc_json *pcs = tc_json_get(r, "per_case");
	double v;
	size_t i;
	bool diags = false;

	if (get_num(stats, "geomean", &v)) {
		static const char *const keys[] = { "geomean", "mean", "median" };
		static const char *const labels[] = {
			"  Geomean : ", "  Mean    : ", "  Median  : "
		};
		double mn = 0, mx = 0;

		tc_buf_puts(b, "--- Golden default-target ratio (NOT "
		    "baseline-to-final speedup) ---\n");
		for (i = 0; i < 3; i++) {
			(void)get_num(stats, keys[i], &v);
			tc_buf_puts(b, labels[i]);
			tc_py_fixed(b, v, 2);
			tc_buf_puts(b, "x\n");
		}
		(void)get_num(stats, "min", &mn);
		(void)get_num(stats, "max", &mx);
		tc_buf_puts(b, "  Min/Max : ");
		tc_py_fixed(b, mn, 2);
		tc_buf_puts(b, "x / ");
		tc_py_fixed(b, mx, 2);
		tc_buf_puts(b, "x\n  Golden target cases: ");
		put_of_total(b, r, "n_default_target_cases");
	}
	tc_buf_puts(b, "  Valid PyPTO measurements: ");
	put_of_total(b, r, "n_cases_valid");
	if (get_num(r, "mean_asc_us", &v)) {
		tc_buf_puts(b, "--- PyPTO target-kernel Task Duration (us) ---\n");
		if (get_num(r, "mean_ref_us", &v)) {
			tc_buf_puts(b, "  Golden E2E mean/median/total : ");
			num_cells(b, r, ref, 3, " / ");
			tc_buf_putc(b, '\n');
		}
		tc_buf_puts(b, "  PyPTO mean/median/total : ");
		num_cells(b, r, asc, 3, " / ");
		tc_buf_putc(b, '\n');
		if (get_num(r, "aggregate_golden_reference_ratio", &v)) {
			tc_buf_puts(b, "  Aggregate ratio (Σgolden E2E/ΣPyPTO kernel; "
			    "not target criterion) : ");
			tc_py_fixed(b, v, 2);
			tc_buf_puts(b, "x\n");
		}
	}
	for (i = 0; tc_json_is(pcs, TC_JSON_ARRAY) && i < pcs->u.arr.len; i++)
		diags = diags || has_diagnoses(pcs->u.arr.items[i]);
	if (diags)
		tc_buf_puts(b, "Bound-route note: op_summary ratios are diagnostic "
		    "only; terminal Roofline and overlap claims require a "
		    "workload/traffic model plus timeline or equivalent dependency "
		    "evidence in PERFORMANCE_REPORT.md.\n");
}

char *
tc_pypto_render_perf_log(const tc_json *summary)
{
	tc_buf b = TC_BUF_INIT;
	const tc_json *pcs = tc_json_get(summary, "per_case");
	size_t i;

	log_header(&b, summary);
	for (i = 0; tc_json_is(pcs, TC_JSON_ARRAY) && i < pcs->u.arr.len; i++)
		log_case(&b, pcs->u.arr.items[i]);
	rule(&b, '-');
	log_summary(&b, summary);
	for (i = 0; i < 100; i++)
		tc_buf_putc(&b, '=');
	return tc_buf_detach(&b, NULL);
}
