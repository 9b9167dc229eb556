/*
 * deliver.c - PERFORMANCE_REPORT.md rendered by tunectl from the evidence
 * (docs/spec/pypto.md "Deliverables"): the frozen contract, the target
 * cases and target definition, the source ledger with its experiments,
 * the baseline, the candidate table recomputed from the rounds, the
 * final compare with per-case baseline / final / speedup / Golden ratio,
 * the final correctness run (made now), the terminal evidence and the
 * evidence paths.  The target's attainment is always disclosed; with no
 * user target and no Golden contract it is "unavailable" with its raw
 * reason.  The machine-readable facts go into the one ```json
 * stage5-evidence block stage5-check reads.
 *
 * The other deliverables are the compare's own: the case manifest,
 * performance.json / performance.log / perf_report.md of the final
 * compare, and the round archive under docs/perf/.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pypto_internal.h"
#include "orch_internal.h"
#include "tunectl/fileio.h"
#include "tunectl/path.h"
#include "tunectl/pypto_cases.h"
#include "tunectl/pypto_check.h"
#include "tunectl/pypto_compare.h"
#include "tunectl/pypto_items.h"
#include "tunectl/pypto_select.h"
#include "tunectl/pypto_stage5.h"

#define CANDIDATES	"docs/perf/candidates.json"
#define SELECTION	"docs/perf/selection.json"
#define TERMINAL	"docs/perf/terminal_evidence.json"

static void
num(tc_buf *b, const tc_json *v, int decimals)
{
	double d;

	if (v == NULL || !tc_json_number(v, &d))
		tc_buf_puts(b, "-");
	else
		tc_buf_printf(b, "%.*f", decimals, d);
}

static tc_json *
candidate(const tc_json *sel, long order)
{
	const tc_json *rows = tc_json_get(sel, "candidates");
	size_t i;

	for (i = 0; tc_json_is(rows, TC_JSON_ARRAY) && i < rows->u.arr.len; i++)
		if (tc_js_number(tc_json_get(rows->u.arr.items[i],
		    "evaluation_order")) == (double)order)
			return rows->u.arr.items[i];
	return NULL;
}

static const tc_json *
row_of(const tc_json *perf, const char *id)
{
	const tc_json *pcs = tc_json_get(perf, "per_case");
	size_t i;

	for (i = 0; tc_json_is(pcs, TC_JSON_ARRAY) && i < pcs->u.arr.len; i++)
		if (strcmp(tc_json_get_string_or(pcs->u.arr.items[i], "case", ""), id) == 0)
			return pcs->u.arr.items[i];
	return NULL;
}

/* Baseline duration of a case: the candidate-0 row of the selection. */
static double
baseline_us(const tc_json *base, const char *id)
{
	const tc_json *pc = tc_json_get(base, "per_case");
	size_t i;
	double d = NAN;

	for (i = 0; tc_json_is(pc, TC_JSON_ARRAY) && i < pc->u.arr.len; i++)
		if (strcmp(tc_json_get_string_or(pc->u.arr.items[i], "case", ""), id) == 0)
			(void)tc_json_number(tc_json_get(pc->u.arr.items[i],
			    "duration_us"), &d);
	return d;
}

static int
load_terminal(const char *op_dir, const char *path, tc_json **out,
    tc_error *err)
{
	char *p = path != NULL ? tc_xstrdup(path) : tc_path_join(op_dir,
	    TERMINAL);

	*out = tc_pj_load_object(p, "terminal evidence", err);
	if (*out == NULL)
		tc_error_prefix(err, "the per-case terminal evidence (roofline, "
		    "pipeline, scalar) is required: ");
	free(p);
	return *out != NULL ? 0 : -1;
}

/* The target definition and its per-case attainment (docs/spec/pypto.md
 * "Target resolution", "Golden ratio and target status"). */
static tc_json *
target_of(const tc_json *spec, const tc_json *perf, const char *reason)
{
	tc_json *t = tc_json_new_object();
	const tc_json *pt = tc_json_get(spec, "perf_target");
	const char *st = tc_json_get_string_or(perf, "default_target_status", "unavailable");
	const char *kind;

	if (pt != NULL && pt->type != TC_JSON_NULL) {
		kind = "spec_user_target";
		st = "unavailable";
		reason = "SPEC records a numeric perf_target without units or "
		    "semantics: cited verbatim, attainment not recomputable";
	} else if (strcmp(st, "unavailable") != 0) {
		kind = "default_golden";
		pt = NULL;
		reason = "per P0 case: Golden per-iteration E2E / PyPTO target "
		    "kernel >= 1.0 (not an optimization speedup)";
	} else {
		kind = "unavailable";
		pt = NULL;
		if (reason == NULL)
			reason = "SPEC perf_target is null and no Stage 5 Golden "
			    "contract (GOLDEN_PERF_REPORT.json) exists";
	}
	tc_json_object_set_string(t, "kind", kind);
	tc_json_object_set(t, "spec_perf_target", tc_pj_clone(pt));
	tc_json_object_set_string(t, "status", st);
	tc_json_object_set_string(t, "reason", reason);
	return t;
}

static void
md_contract(tc_buf *b, const tc_json *contract, const tc_json *perf)
{
	const tc_json *p = tc_json_get(contract, "protocol");
	const tc_json *sel = tc_json_get(contract, "selection");
	const tc_json *pc = tc_json_get(contract, "performance_cases");
	const tc_json *sr = tc_json_get(sel, "stability_range");

	tc_buf_puts(b, "## 1. Frozen experiment contract\n\n");
	tc_buf_printf(b, "- Manifest: `%s` sha256 `%s`\n", tc_json_get_string_or(pc, "path", "?"),
	    tc_json_get_string_or(pc, "sha256", "?"));
	tc_buf_printf(b, "- Starting implementation: `%s` sha256 `%s` "
	    "(recoverable copy under docs/perf/experiments/*/restore/)\n",
	    tc_json_get_string_or(tc_json_get(contract, "starting_runner"), "path", "?"),
	    tc_json_get_string_or(tc_json_get(contract, "starting_runner"), "sha256", "?"));
	tc_buf_printf(b, "- Device %g (%s), seed 42, warm-up %g, repeats %g, "
	    "retry %g\n", tc_js_number(tc_json_get(perf, "device_id")),
	    tc_json_get_string_or(perf, "device_select_source", "?"),
	    tc_js_number(tc_json_get(p, "warmup")),
	    tc_js_number(tc_json_get(p, "repeats")),
	    tc_js_number(tc_json_get(p, "retry")));
	tc_buf_printf(b, "- Exact target Op Name `%s` (discovery: `%s`), timing "
	    "source `%s`, case selector %s:%s\n", tc_json_get_string_or(p, "target_op_name", "?"),
	    tc_json_get_string_or(tc_json_get(contract, "discovery"), "path", "none"),
	    tc_json_get_string_or(p, "timing_source", "?"),
	    tc_json_get_string_or(tc_json_get(p, "case_selector"), "kind", "?"),
	    tc_json_get_string_or(tc_json_get(p, "case_selector"), "name", "-"));
	tc_buf_printf(b, "- Aggregate metric `%s`, stability range %s %s, tie "
	    "rule `%s`\n", tc_json_get_string_or(sel, "aggregate_metric", "?"),
	    tc_json_get_string_or(sr, "kind", "?"), tc_json_get_string_or(sr, "value", "?"),
	    tc_json_get_string_or(sel, "tie_rule", "?"));
	tc_buf_printf(b, "- Promotion rule (quick to formal): %s\n",
	    tc_json_get_string_or(sel, "promotion_rule", "?"));
	tc_buf_puts(b, "- Correctness standard: the Stage 4 test, every P0 case "
	    "PASS with matched_ratio= and max_abs_error=\n\n");
}

static char *
join(const tc_json *arr)
{
	tc_buf b = TC_BUF_INIT;
	size_t i;

	for (i = 0; tc_json_is(arr, TC_JSON_ARRAY) && i < arr->u.arr.len; i++)
		tc_buf_printf(&b, "%s%s", i ? ", " : "",
		    tc_json_string(arr->u.arr.items[i]) != NULL ?
		    tc_json_string(arr->u.arr.items[i]) : "?");
	return tc_buf_detach(&b, NULL);
}

static void
md_ledger(tc_buf *b, const tc_json *ledger)
{
	const tc_json *src = tc_json_get(ledger, "sources");
	const tc_json *items = tc_json_get(ledger, "items");
	const tc_json *exps = tc_json_get(ledger, "experiments");
	const tc_json *sw = tc_json_get(ledger, "final_sweep");
	size_t i;
	int k;

	tc_buf_puts(b, "## 4. Source coverage ledger\n\n");
	for (k = 0; k < 4; k++) {
		const tc_json *s = tc_json_get(src, tc_pypto_source_kinds[k]);

		tc_buf_printf(b, "- %s: %g item(s), %s", tc_pypto_source_kinds[k],
		    tc_js_number(tc_json_get(s, "count")),
		    tc_json_get_string_or(s, "source_ref", "?"));
		if (tc_json_get(s, "index") != NULL)
			tc_buf_printf(b, " (index `%s`, sha256 `%s`)",
			    tc_json_get_string_or(tc_json_get(s, "index"), "path", "?"),
			    tc_json_get_string_or(tc_json_get(s, "index"), "sha256", "?"));
		tc_buf_putc(b, '\n');
	}
	tc_buf_puts(b, "\n| item | source | status | reason |\n| --- | --- | --- "
	    "| --- |\n");
	for (i = 0; tc_json_is(items, TC_JSON_ARRAY) && i < items->u.arr.len; i++)
		tc_buf_printf(b, "| `%s` | %s | %s | %s |\n",
		    tc_json_get_string_or(items->u.arr.items[i], "item_id", "?"),
		    tc_json_get_string_or(items->u.arr.items[i], "source_kind", "?"),
		    tc_json_get_string_or(items->u.arr.items[i], "status", "?"),
		    tc_json_get_string_or(items->u.arr.items[i], "reason", "-"));
	tc_buf_puts(b, "\n## 6. Experiments\n\n");
	if (!tc_json_is(exps, TC_JSON_ARRAY) || exps->u.arr.len == 0)
		tc_buf_puts(b, "(none)\n");
	for (i = 0; tc_json_is(exps, TC_JSON_ARRAY) && i < exps->u.arr.len; i++) {
		const tc_json *e = exps->u.arr.items[i];
		const tc_json *steps = tc_json_get(e, "steps");
		size_t k2;

		char *its = join(tc_json_get(e, "item_ids"));

		tc_buf_printf(b, "- `%s` (items %s): hypothesis: %s; change: %s; "
		    "decision: **%s**%s%s\n", tc_json_get_string_or(e, "experiment_id", "?"), its,
		    tc_json_get_string_or(e, "hypothesis", "?"),
		    tc_json_get_string_or(tc_json_get(e, "change"), "summary", "?"),
		    tc_json_get_string_or(e, "decision", "open"),
		    tc_json_get(e, "reason") != NULL ? " - " : "",
		    tc_json_get_string_or(e, "reason", ""));
		free(its);
		for (k2 = 0; tc_json_is(steps, TC_JSON_ARRAY) &&
		    k2 < steps->u.arr.len; k2++) {
			const tc_json *st = steps->u.arr.items[k2];

			tc_buf_printf(b, "  - %s on sha256 `%.12s`: %s\n",
			    tc_json_get_string_or(st, "kind", "?"), tc_json_get_string_or(st, "candidate_sha256", "?"),
			    strcmp(tc_json_get_string_or(st, "kind", ""), "correctness") == 0 ?
			    (tc_json_truthy(tc_json_get(st, "passed")) ? "PASS" :
			    "FAIL") : tc_json_get_string_or(st, "round", tc_json_get_string_or(st, "quick_dir", "-")));
		}
	}
	tc_buf_puts(b, "\n## 8. Final sweep\n\n");
	tc_buf_printf(b, "- scope: %s\n- findings: %s\n\n",
	    tc_json_get_string_or(sw, "scope", "not recorded"), tc_json_get_string_or(sw, "findings", "-"));
}

/* Everything the report is rendered from. */
struct report_in {
	char *op_dir;
	tc_json *perf, *contract, *spec, *ledger, *sel, *term, *run, *target;
	tc_pypto_manifest m;
	bool m_ok;
	const tc_json *base, *best;
	tc_json *ab;		/* the final interleaved compare */
};

static void
report_in_free(struct report_in *in)
{
	free(in->op_dir);
	if (in->m_ok)
		tc_pypto_manifest_free(&in->m);
	tc_json_free(in->perf);
	tc_json_free(in->contract);
	tc_json_free(in->spec);
	tc_json_free(in->ledger);
	tc_json_free(in->sel);
	tc_json_free(in->term);
	tc_json_free(in->run);
	tc_json_free(in->target);
	tc_json_free(in->ab);
}

/* The archived evidence: the frozen contract, a re-verifiable formal
 * compare, the cases, the SPEC contract, the ledger, the selection
 * (written to SELECTION) and the terminal evidence. */
static int
load_inputs(const tc_pypto_report_opts *o, struct report_in *in,
    tc_error *err)
{
	tc_pypto_select_opts so;
	char *p = NULL, *msg;
	int rc = -1;

	if (o->op_dir == NULL || (in->op_dir = tc_path_resolve(o->op_dir,
	    err)) == NULL)
		return -1;
	if (tc_pypto_contract_load(in->op_dir, &in->contract, err) <= 0) {
		if (tc_error_msg(err)[0] == '\0')
			tc_error_set(err, "no frozen contract (%s)",
			    TC_PYPTO_FROZEN_CONTRACT);
		return -1;
	}
	p = tc_path_join(in->op_dir, "performance.json");
	if ((in->perf = tc_pj_load_object(p, "performance.json", err)) == NULL)
		goto out;
	if ((msg = tc_pypto_performance_error(in->op_dir, in->perf)) != NULL) {
		tc_error_set(err, "performance.json is not a re-verifiable formal "
		    "compare: %s", msg);
		free(msg);
		goto out;
	}
	free(p);
	p = tc_path_join(in->op_dir, "PERFORMANCE_CASES.json");
	if (tc_pypto_manifest_load(p, &in->m, err) != 0)
		goto out;
	in->m_ok = true;
	if ((in->spec = tc_pypto_spec_contract(in->op_dir, err)) == NULL)
		goto out;
	free(p);
	p = tc_path_join(in->op_dir, TC_PYPTO_LEDGER_DEFAULT);
	if ((in->ledger = tc_pypto_ledger_load(p, err)) == NULL)
		goto out;
	free(p);
	p = tc_path_join(in->op_dir, CANDIDATES);
	memset(&so, 0, sizeof(so));
	so.op_dir = in->op_dir;
	so.candidates_path = p;
	if ((in->sel = tc_pypto_select(&so, err)) == NULL)
		goto out;
	free(p);
	p = tc_path_join(in->op_dir, SELECTION);
	if (tc_write_json(p, in->sel, TC_WRITE_MKDIRS, err) != 0)
		goto out;
	if (load_terminal(in->op_dir, o->terminal_path, &in->term, err) != 0)
		goto out;
	rc = 0;
out:
	free(p);
	return rc;
}

/* The latest interleaved compare of the best version against the frozen
 * baseline: the only source of a speedup claim. */
static int
final_interleaved(struct report_in *in, tc_error *err)
{
	tc_json *recs = tc_pypto_ab_find(in->op_dir, tc_json_get_string(in->base,
	    "executable_sha256"), tc_json_get_string(in->best,
	    "executable_sha256"), err);
	size_t n;

	if (recs == NULL)
		return -1;
	n = recs->u.arr.len;
	if (n == 0) {
		tc_json_free(recs);
		tc_error_set(err, "no interleaved compare of the selected version "
		    "(%s) against the frozen baseline: run pypto compare "
		    "--interleaved after the final compare",
		    tc_json_get_string_or(in->best, "candidate_id", "?"));
		return -1;
	}
	in->ab = tc_json_clone(recs->u.arr.items[n - 1]);
	tc_json_free(recs);
	return 0;
}

/* The frozen baseline and the selected best version, which the final
 * compare must have measured. */
static int
pick_versions(struct report_in *in, tc_error *err)
{
	in->base = candidate(in->sel, 0);
	in->best = tc_json_get(in->sel, "selected");
	if (in->base == NULL || in->best == NULL) {
		tc_error_set(err, "the candidate table has no frozen baseline or no "
		    "selected version");
		return -1;
	}
	if (strcmp(tc_json_get_string_or(in->best, "executable_sha256", ""), tc_json_get_string_or(in->perf,
	    "executable_sha256", "-")) != 0) {
		tc_error_set(err, "the final compare measured sha256 %s, the "
		    "selected best version is %s: install the selected version "
		    "and run its independent final compare first",
		    tc_json_get_string_or(in->perf, "executable_sha256", "?"),
		    tc_json_get_string_or(in->best, "executable_sha256", "?"));
		return -1;
	}
	return final_interleaved(in, err);
}

static tc_json *
final_correctness_json(const tc_json *run)
{
	tc_json *fc = tc_json_new_object();
	tc_buf cmd = TC_BUF_INIT;
	const tc_json *argv = tc_json_get(run, "argv");
	size_t i;

	for (i = 0; i < argv->u.arr.len; i++)
		tc_buf_printf(&cmd, "%s%s", i ? " " : "",
		    tc_json_string(argv->u.arr.items[i]));
	tc_json_object_set_string(fc, "command", tc_buf_cstr(&cmd));
	tc_json_object_set(fc, "exit_code", tc_pj_clone(tc_json_get(run,
	    "exit_code")));
	tc_json_object_set(fc, "stdout_sha256", tc_pj_clone(tc_json_get(run,
	    "stdout_sha256")));
	tc_buf_free(&cmd);
	return fc;
}

static tc_json *
protocol_json(const tc_json *perf)
{
	static const char *const k[] = { "device_id", "warmup", "repeats",
	    "seed", "target_op_name", NULL };
	tc_json *proto = tc_json_new_object();
	size_t j;

	for (j = 0; k[j] != NULL; j++)
		tc_json_object_set(proto, k[j], tc_json_clone(tc_json_get(perf,
		    k[j])));
	tc_json_object_set(proto, "timing_source", tc_pj_clone(
	    tc_json_get(perf, "timing_source_metric")));
	return proto;
}

/* The result a row or the whole reports: the baseline kept is "no change
 * kept" whatever the two measurements of the same code say; otherwise
 * the interleaved compare's verdict (faster, slower, no_change). */
static const char *
result_of(const struct report_in *in, const tc_json *figures)
{
	int64_t order = -1;

	(void)tc_json_int64(tc_json_get(in->best, "evaluation_order"), &order);
	if (order == 0)
		return "no_change_kept";
	return tc_json_get_string_or(figures, "change", "no_change");
}

/* The interleaved figures of one case (or the aggregate), as the
 * evidence block carries them. */
static tc_json *
interleaved_json(const struct report_in *in, const tc_json *f)
{
	static const char *const keys[] = { "baseline_median_us",
	    "final_median_us", "median_ratio", "ci95", "spread", "change",
	    "cases", "metric", NULL };
	tc_json *o = tc_json_new_object();
	size_t k;

	tc_json_object_set(o, "pairs", tc_pj_clone(tc_json_get(in->ab,
	    "pairs")));
	for (k = 0; keys[k] != NULL; k++)
		if (tc_json_get(f, keys[k]) != NULL)
			tc_json_object_set(o, keys[k], tc_json_clone(
			    tc_json_get(f, keys[k])));
	tc_json_object_set_string(o, "result", result_of(in, f));
	return o;
}

/* One row per case: baseline and final times, the Golden ratio and the
 * case's terminal evidence (which must be there). */
static tc_json *
per_case_json(const struct report_in *in, tc_error *err)
{
	tc_json *pcs = tc_json_new_array();
	size_t i;

	for (i = 0; i < in->m.n; i++) {
		const char *id = in->m.cases[i].id;
		const tc_json *row = row_of(in->perf, id);
		const tc_json *tc = tc_json_get(tc_json_get(in->term, "cases"), id);
		const tc_json *ratio = tc_json_get(row, "golden_reference_ratio");
		const tc_json *met = tc_json_get(row, "default_target_met");
		tc_json *c;
		double bu = baseline_us(in->base, id), fu = 0;

		if (!tc_json_is(tc, TC_JSON_OBJECT)) {
			tc_json_free(pcs);
			tc_error_set(err, "the terminal evidence has no entry for case "
			    "%s (cases.%s.roofline_terminal / pipeline_evidence / "
			    "scalar_evidence)", id, id);
			return NULL;
		}
		(void)tc_json_number(tc_json_get(row, "asc_us"), &fu);
		c = tc_json_new_object();
		tc_json_object_set_string(c, "case", id);
		tc_json_object_set_string(c, "shape", in->m.cases[i].shape);
		tc_json_object_set_string(c, "dtype", in->m.cases[i].dtype);
		tc_json_object_set(c, "baseline_us", tc_json_new_float(bu));
		tc_json_object_set(c, "final_us", tc_json_new_float(fu));
		tc_json_object_set(c, "speedup", tc_json_new_float(bu / fu));
		tc_json_object_set(c, "interleaved", interleaved_json(in,
		    tc_pypto_ab_case(in->ab, id)));
		tc_json_object_set(c, "golden_reference_ratio", ratio != NULL ?
		    tc_json_clone(ratio) : tc_json_new_null());
		tc_json_object_set(c, "target_met", met != NULL ?
		    tc_json_clone(met) : tc_json_new_null());
		tc_json_object_set(c, "roofline_terminal", tc_pj_clone(
		    tc_json_get(tc, "roofline_terminal")));
		tc_json_object_set(c, "pipeline_evidence", tc_pj_clone(
		    tc_json_get(tc, "pipeline_evidence")));
		tc_json_object_set(c, "scalar_evidence", tc_pj_clone(
		    tc_json_get(tc, "scalar_evidence")));
		tc_json_array_push(pcs, c);
	}
	return pcs;
}

/* The machine-readable evidence block stage5-check recomputes. */
static tc_json *
evidence_json(const struct report_in *in, tc_error *err)
{
	tc_json *ev = tc_json_new_object(), *pcs, *ab;
	char *fr;

	if ((pcs = per_case_json(in, err)) == NULL) {
		tc_json_free(ev);
		return NULL;
	}
	tc_json_object_set_int(ev, "schema_version", 1);
	tc_json_object_set(ev, "baseline_collection_id", tc_pj_clone(
	    tc_json_get(in->base, "collection_id")));
	tc_json_object_set(ev, "baseline_round", tc_pj_clone(tc_json_get(
	    in->base, "round")));
	tc_json_object_set(ev, "final_collection_id", tc_pj_clone(tc_json_get(
	    in->perf, "collection_id")));
	fr = tc_path_relative_to(tc_json_get_string_or(in->perf, "deep_profile_round", ""),
	    in->op_dir);
	tc_json_object_set_string(ev, "final_round", fr != NULL ? fr : "");
	free(fr);
	tc_json_object_set(ev, "final_source_sha256", tc_pj_clone(tc_json_get(
	    in->perf, "executable_sha256")));
	tc_json_object_set(ev, "final_correctness",
	    final_correctness_json(in->run));
	tc_json_object_set_string(ev, "ledger", TC_PYPTO_LEDGER_DEFAULT);
	tc_json_object_set_string(ev, "candidates", CANDIDATES);
	tc_json_object_set_string(ev, "selection", SELECTION);
	tc_json_object_set(ev, "best_candidate_id", tc_pj_clone(tc_json_get(
	    in->best, "candidate_id")));
	tc_json_object_set(ev, "target", tc_pj_clone(in->target));
	tc_json_object_set(ev, "protocol", protocol_json(in->perf));
	tc_json_object_set(ev, "per_case", pcs);
	ab = tc_json_new_object();
	tc_json_object_set(ab, "path", tc_pj_clone(tc_json_get(in->ab, "path")));
	tc_json_object_set(ab, "collection_id", tc_pj_clone(tc_json_get(in->ab,
	    "collection_id")));
	tc_json_object_set(ab, "pairs", tc_pj_clone(tc_json_get(in->ab,
	    "pairs")));
	tc_json_object_set(ab, "aggregate", interleaved_json(in, tc_json_get(
	    in->ab, "aggregate")));
	tc_json_object_set(ev, "final_interleaved", ab);
	tc_json_object_set_string(ev, "result", result_of(in, tc_json_get(in->ab,
	    "aggregate")));
	return ev;
}

/* Sections 1 to 7: contract, target, Golden contract, ledger, baseline,
 * candidate comparison. */
static void
md_front(tc_buf *b, const struct report_in *in)
{
	const tc_json *ot = tc_json_get(in->contract, "optimization_target");
	char *ids = join(tc_json_get(ot, "case_ids"));
	char *md;

	tc_buf_printf(b, "# PERFORMANCE_REPORT - %s (Stage 5)\n\n",
	    tc_path_basename(in->op_dir));
	tc_buf_puts(b, "Rendered by `tunectl pypto report` from the archived "
	    "evidence; every number below is recomputed by stage5-check.\n\n");
	md_contract(b, in->contract, in->perf);
	tc_buf_puts(b, "## 2. Target cases and target\n\n");
	tc_buf_printf(b, "- optimization_target: case_ids [%s], "
	    "selection_mode `%s`\n", ids, tc_json_get_string_or(ot, "selection_mode", "?"));
	free(ids);
	tc_buf_printf(b, "- Target: **%s** (%s) - %s\n\n", tc_json_get_string_or(in->target,
	    "kind", "?"), tc_json_get_string_or(in->target, "status", "?"), tc_json_get_string_or(in->target,
	    "reason", ""));
	tc_buf_puts(b, "## 3. Golden contract\n\n");
	tc_buf_printf(b, "- %s\n\n", strcmp(tc_json_get_string_or(in->target, "kind", ""),
	    "default_golden") == 0 ? "GOLDEN_PERF_REPORT.json joined: per-case "
	    "per-iteration E2E in performance.json" : "no Stage 5 Golden "
	    "contract: the reference is unavailable (disclosed above)");
	md_ledger(b, in->ledger);
	tc_buf_puts(b, "## 5. Baseline\n\n");
	tc_buf_printf(b, "- baseline_collection_id `%s`, round `%s`\n\n",
	    tc_json_get_string_or(in->base, "collection_id", "?"), tc_json_get_string_or(in->base, "round", "?"));
	md = tc_pypto_selection_markdown(in->sel);
	tc_buf_puts(b, "## 7. Candidate comparison\n\n");
	tc_buf_puts(b, md);
	tc_buf_puts(b, "\n");
	free(md);
}

/* Element k of a two-number array, or NULL. */
static const tc_json *
pair_at(const tc_json *arr, size_t k)
{
	return tc_json_is(arr, TC_JSON_ARRAY) && arr->u.arr.len == 2 ?
	    arr->u.arr.items[k] : NULL;
}

static void
ci_text(tc_buf *b, const tc_json *f)
{
	const tc_json *ci = tc_json_get(f, "ci95");
	const tc_json *sp = tc_json_get(f, "spread");

	num(b, tc_json_get(f, "median_ratio"), 4);
	tc_buf_puts(b, "x, 95% interval [");
	num(b, pair_at(ci, 0), 4);
	tc_buf_puts(b, ", ");
	num(b, pair_at(ci, 1), 4);
	tc_buf_puts(b, "], pairs from ");
	num(b, pair_at(sp, 0), 4);
	tc_buf_puts(b, "x to ");
	num(b, pair_at(sp, 1), 4);
	tc_buf_puts(b, "x");
}

/* The result: from the interleaved compare of the baseline and the best
 * version, never from two separate rounds. */
static void
md_result(tc_buf *b, const struct report_in *in, const tc_json *ev)
{
	const tc_json *ab = tc_json_get(ev, "final_interleaved");
	const tc_json *agg = tc_json_get(ab, "aggregate");
	const tc_json *pcs = tc_json_get(ev, "per_case");
	const char *res = tc_json_get_string_or(ev, "result", "?");
	size_t i;

	if (strcmp(res, "no_change_kept") == 0)
		tc_buf_puts(b, "**Result: no change kept.**  No candidate was "
		    "faster than the frozen baseline beyond the noise; the final "
		    "code is the baseline.  The spread of the same code measured "
		    "in turns: ");
	else
		tc_buf_printf(b, "**Result: %s** (%s).  ", strcmp(res, "faster") == 0 ?
		    "faster than the frozen baseline" : strcmp(res, "slower") == 0 ?
		    "slower than the frozen baseline" : "no change beyond the noise",
		    tc_json_get_string_or(in->best, "candidate_id", "?"));
	ci_text(b, agg);
	tc_buf_printf(b, " (target cases, %s).\n\n", tc_json_get_string_or(agg,
	    "metric", "?"));
	tc_buf_printf(b, "Interleaved compare `%s`: the baseline and the final "
	    "version in turns, ", tc_json_get_string_or(ab, "path", "?"));
	num(b, tc_json_get(ab, "pairs"), 0);
	tc_buf_puts(b, " pairs per case; ratio = baseline / final per pair.\n\n"
	    "| case | baseline median (us) | final median (us) | median ratio, "
	    "95% interval, spread | result |\n| --- | --- | --- | --- | --- |\n");
	for (i = 0; i < pcs->u.arr.len; i++) {
		const tc_json *f = tc_json_get(pcs->u.arr.items[i], "interleaved");

		tc_buf_printf(b, "| %s | ", tc_json_get_string_or(
		    pcs->u.arr.items[i], "case", "?"));
		num(b, tc_json_get(f, "baseline_median_us"), 3);
		tc_buf_puts(b, " | ");
		num(b, tc_json_get(f, "final_median_us"), 3);
		tc_buf_puts(b, " | ");
		ci_text(b, f);
		tc_buf_printf(b, " | %s |\n", tc_json_get_string_or(f, "result",
		    "?"));
	}
	tc_buf_puts(b, "\n");
}

/* Sections 9 to 11: the final version per case, terminal evidence and
 * where the evidence lives. */
static void
md_final(tc_buf *b, const struct report_in *in, const tc_json *ev)
{
	const tc_json *pcs = tc_json_get(ev, "per_case");
	size_t i;

	tc_buf_puts(b, "## 9. Final\n\n");
	tc_buf_printf(b, "- final_collection_id `%s`, round `%s`, "
	    "executable_sha256 `%s` (best version `%s`)\n",
	    tc_json_get_string_or(in->perf, "collection_id", "?"), tc_json_get_string_or(ev, "final_round", "?"),
	    tc_json_get_string_or(in->perf, "executable_sha256", "?"),
	    tc_json_get_string_or(in->best, "candidate_id", "?"));
	tc_buf_printf(b, "- Final correctness (run now): `%s` exit %g\n\n",
	    tc_json_get_string_or(tc_json_get(ev, "final_correctness"), "command", "?"),
	    tc_js_number(tc_json_get(in->run, "exit_code")));
	md_result(b, in, ev);
	tc_buf_puts(b, "Separate formal rounds (the reference's per-case figures; "
	    "two rounds of the same code can differ by more than a change, so "
	    "the result above comes from the interleaved compare):\n\n");
	tc_buf_puts(b, "| case | shape | dtype | baseline (us) | final (us) | "
	    "speedup (separate rounds) | Golden ratio (not a speedup) | target "
	    "|\n| --- | --- | --- | --- | --- | --- | --- | --- |\n");
	for (i = 0; i < pcs->u.arr.len; i++) {
		const tc_json *c = pcs->u.arr.items[i];
		const tc_json *met = tc_json_get(c, "target_met");

		tc_buf_printf(b, "| %s | %s | %s | ", tc_json_get_string_or(c, "case", "?"),
		    tc_json_get_string_or(c, "shape", "?"), tc_json_get_string_or(c, "dtype", "?"));
		num(b, tc_json_get(c, "baseline_us"), 3);
		tc_buf_puts(b, " | ");
		num(b, tc_json_get(c, "final_us"), 3);
		tc_buf_puts(b, " | ");
		num(b, tc_json_get(c, "speedup"), 4);
		tc_buf_puts(b, " | ");
		num(b, tc_json_get(c, "golden_reference_ratio"), 4);
		tc_buf_printf(b, " | %s |\n", tc_json_is(met, TC_JSON_BOOL) ?
		    (met->u.b ? "met" : "not met") : "unavailable");
	}
	tc_buf_puts(b, "\n## 10. Terminal evidence per case\n\n");
	for (i = 0; i < pcs->u.arr.len; i++) {
		const tc_json *c = pcs->u.arr.items[i];

		tc_buf_printf(b, "- %s: roofline `%s` (%s); pipeline `%s` (%s); "
		    "Scalar dominant %s (%s)\n", tc_json_get_string_or(c, "case", "?"),
		    tc_json_get_string_or(tc_json_get(c, "roofline_terminal"), "status", "?"),
		    tc_json_get_string_or(tc_json_get(c, "roofline_terminal"), "basis", "-"),
		    tc_json_get_string_or(tc_json_get(c, "pipeline_evidence"), "status", "?"),
		    tc_json_get_string_or(tc_json_get(c, "pipeline_evidence"), "basis", "-"),
		    tc_json_truthy(tc_json_get(tc_json_get(c, "scalar_evidence"),
		    "dominant")) ? "true" : "false",
		    tc_json_get_string_or(tc_json_get(c, "scalar_evidence"), "basis", "-"));
	}
	tc_buf_puts(b, "\n## 11. Evidence paths\n\n");
	tc_buf_printf(b, "- rounds: `%s` (baseline), `%s` (final); "
	    "instruction timelines under the final round's case directories\n"
	    "- ledger `%s`, candidates `%s`, selection `%s`, discovery `%s`\n\n",
	    tc_json_get_string_or(ev, "baseline_round", "?"), tc_json_get_string_or(ev, "final_round", "?"),
	    TC_PYPTO_LEDGER_DEFAULT, CANDIDATES, SELECTION,
	    tc_json_get_string_or(tc_json_get(in->contract, "discovery"), "path", "none"));
}

tc_json *
tc_pypto_render_report(const tc_pypto_report_opts *o, tc_error *err)
{
	struct report_in in;
	tc_json *ev = NULL;
	tc_buf b = TC_BUF_INIT;
	char *text = NULL, *p = NULL;

	memset(&in, 0, sizeof(in));
	if (load_inputs(o, &in, err) != 0 || pick_versions(&in, err) != 0)
		goto fail;
	if ((in.run = tc_pypto_run_final_test(in.op_dir, o->interpreter,
	    o->timeout_s, in.m.n, err)) == NULL)
		goto fail;
	in.target = target_of(in.spec, in.perf, o->target_unavailable_reason);
	if ((ev = evidence_json(&in, err)) == NULL)
		goto fail;
	md_front(&b, &in);
	md_final(&b, &in, ev);
	if ((text = tc_json_pretty(ev, NULL, err)) == NULL)
		goto fail;
	tc_buf_puts(&b, "## Machine-readable evidence\n\n```json "
	    "stage5-evidence\n");
	tc_buf_puts(&b, text);
	tc_buf_puts(&b, "```\n");
	p = tc_path_join(in.op_dir, "PERFORMANCE_REPORT.md");
	if (tc_write_atomic(p, b.data, b.len, 0, err) != 0)
		goto fail;
	tc_json_object_set(ev, "final_run", in.run);
	in.run = NULL;
	goto out;
fail:
	tc_json_free(ev);
	ev = NULL;
out:
	tc_buf_free(&b);
	free(text);
	free(p);
	report_in_free(&in);
	return ev;
}
