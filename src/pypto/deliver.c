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

#include "internal.h"
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

static const char *
s_or(const tc_json *o, const char *k, const char *dflt)
{
	const char *s = tc_json_get_string(o, k);

	return s != NULL ? s : dflt;
}

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
		if (strcmp(s_or(pcs->u.arr.items[i], "case", ""), id) == 0)
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
		if (strcmp(s_or(pc->u.arr.items[i], "case", ""), id) == 0)
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
	const char *st = s_or(perf, "default_target_status", "unavailable");

	if (pt != NULL && pt->type != TC_JSON_NULL) {
		tc_json_object_set_string(t, "kind", "spec_user_target");
		tc_json_object_set(t, "spec_perf_target", tc_pj_clone(pt));
		tc_json_object_set_string(t, "status", "unavailable");
		tc_json_object_set_string(t, "reason", "SPEC records a numeric "
		    "perf_target without units or semantics: cited verbatim, "
		    "attainment not recomputable");
	} else if (strcmp(st, "unavailable") != 0) {
		tc_json_object_set_string(t, "kind", "default_golden");
		tc_json_object_set_null(t, "spec_perf_target");
		tc_json_object_set_string(t, "status", st);
		tc_json_object_set_string(t, "reason", "per P0 case: Golden "
		    "per-iteration E2E / PyPTO target kernel >= 1.0 (not an "
		    "optimization speedup)");
	} else {
		tc_json_object_set_string(t, "kind", "unavailable");
		tc_json_object_set_null(t, "spec_perf_target");
		tc_json_object_set_string(t, "status", "unavailable");
		tc_json_object_set_string(t, "reason", reason != NULL ? reason :
		    "SPEC perf_target is null and no Stage 5 Golden contract "
		    "(GOLDEN_PERF_REPORT.json) exists");
	}
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
	tc_buf_printf(b, "- Manifest: `%s` sha256 `%s`\n", s_or(pc, "path", "?"),
	    s_or(pc, "sha256", "?"));
	tc_buf_printf(b, "- Starting implementation: `%s` sha256 `%s` "
	    "(recoverable copy under docs/perf/experiments/*/restore/)\n",
	    s_or(tc_json_get(contract, "starting_runner"), "path", "?"),
	    s_or(tc_json_get(contract, "starting_runner"), "sha256", "?"));
	tc_buf_printf(b, "- Device %g (%s), seed 42, warm-up %g, repeats %g, "
	    "retry %g\n", tc_js_number(tc_json_get(perf, "device_id")),
	    s_or(perf, "device_select_source", "?"),
	    tc_js_number(tc_json_get(p, "warmup")),
	    tc_js_number(tc_json_get(p, "repeats")),
	    tc_js_number(tc_json_get(p, "retry")));
	tc_buf_printf(b, "- Exact target Op Name `%s` (discovery: `%s`), timing "
	    "source `%s`, case selector %s:%s\n", s_or(p, "target_op_name", "?"),
	    s_or(tc_json_get(contract, "discovery"), "path", "none"),
	    s_or(p, "timing_source", "?"),
	    s_or(tc_json_get(p, "case_selector"), "kind", "?"),
	    s_or(tc_json_get(p, "case_selector"), "name", "-"));
	tc_buf_printf(b, "- Aggregate metric `%s`, stability range %s %s, tie "
	    "rule `%s`\n", s_or(sel, "aggregate_metric", "?"),
	    s_or(sr, "kind", "?"), s_or(sr, "value", "?"),
	    s_or(sel, "tie_rule", "?"));
	tc_buf_printf(b, "- Promotion rule (quick to formal): %s\n",
	    s_or(sel, "promotion_rule", "?"));
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
		    s_or(s, "source_ref", "?"));
		if (tc_json_get(s, "index") != NULL)
			tc_buf_printf(b, " (index `%s`, sha256 `%s`)",
			    s_or(tc_json_get(s, "index"), "path", "?"),
			    s_or(tc_json_get(s, "index"), "sha256", "?"));
		tc_buf_putc(b, '\n');
	}
	tc_buf_puts(b, "\n| item | source | status | reason |\n| --- | --- | --- "
	    "| --- |\n");
	for (i = 0; tc_json_is(items, TC_JSON_ARRAY) && i < items->u.arr.len; i++)
		tc_buf_printf(b, "| `%s` | %s | %s | %s |\n",
		    s_or(items->u.arr.items[i], "item_id", "?"),
		    s_or(items->u.arr.items[i], "source_kind", "?"),
		    s_or(items->u.arr.items[i], "status", "?"),
		    s_or(items->u.arr.items[i], "reason", "-"));
	tc_buf_puts(b, "\n## 6. Experiments\n\n");
	if (!tc_json_is(exps, TC_JSON_ARRAY) || exps->u.arr.len == 0)
		tc_buf_puts(b, "(none)\n");
	for (i = 0; tc_json_is(exps, TC_JSON_ARRAY) && i < exps->u.arr.len; i++) {
		const tc_json *e = exps->u.arr.items[i];
		const tc_json *steps = tc_json_get(e, "steps");
		size_t k2;

		char *its = join(tc_json_get(e, "item_ids"));

		tc_buf_printf(b, "- `%s` (items %s): hypothesis: %s; change: %s; "
		    "decision: **%s**%s%s\n", s_or(e, "experiment_id", "?"), its,
		    s_or(e, "hypothesis", "?"),
		    s_or(tc_json_get(e, "change"), "summary", "?"),
		    s_or(e, "decision", "open"),
		    tc_json_get(e, "reason") != NULL ? " - " : "",
		    s_or(e, "reason", ""));
		free(its);
		for (k2 = 0; tc_json_is(steps, TC_JSON_ARRAY) &&
		    k2 < steps->u.arr.len; k2++) {
			const tc_json *st = steps->u.arr.items[k2];

			tc_buf_printf(b, "  - %s on sha256 `%.12s`: %s\n",
			    s_or(st, "kind", "?"), s_or(st, "candidate_sha256", "?"),
			    strcmp(s_or(st, "kind", ""), "correctness") == 0 ?
			    (tc_json_truthy(tc_json_get(st, "passed")) ? "PASS" :
			    "FAIL") : s_or(st, "round", s_or(st, "quick_dir", "-")));
		}
	}
	tc_buf_puts(b, "\n## 8. Final sweep\n\n");
	tc_buf_printf(b, "- scope: %s\n- findings: %s\n\n",
	    s_or(sw, "scope", "not recorded"), s_or(sw, "findings", "-"));
}

tc_json *
tc_pypto_render_report(const tc_pypto_report_opts *o, tc_error *err)
{
	char *op_dir = NULL, *p = NULL, *text = NULL;
	tc_json *perf = NULL, *contract = NULL, *spec = NULL, *ledger = NULL;
	tc_json *sel = NULL, *term = NULL, *ev = NULL, *pcs, *target, *run = NULL;
	tc_pypto_manifest m;
	tc_pypto_select_opts so;
	const tc_json *base, *best;
	bool m_ok = false;
	tc_buf b = TC_BUF_INIT;
	char *msg;
	size_t i;

	if (o->op_dir == NULL || (op_dir = tc_path_resolve(o->op_dir,
	    err)) == NULL)
		goto fail;
	if (tc_pypto_contract_load(op_dir, &contract, err) <= 0) {
		if (tc_error_msg(err)[0] == '\0')
			tc_error_set(err, "no frozen contract (%s)",
			    TC_PYPTO_FROZEN_CONTRACT);
		goto fail;
	}
	p = tc_path_join(op_dir, "performance.json");
	if ((perf = tc_pj_load_object(p, "performance.json", err)) == NULL)
		goto fail;
	if ((msg = tc_pypto_performance_error(op_dir, perf)) != NULL) {
		tc_error_set(err, "performance.json is not a re-verifiable formal "
		    "compare: %s", msg);
		free(msg);
		goto fail;
	}
	free(p);
	p = tc_path_join(op_dir, "PERFORMANCE_CASES.json");
	if (tc_pypto_manifest_load(p, &m, err) != 0)
		goto fail;
	m_ok = true;
	if ((spec = tc_pypto_spec_contract(op_dir, err)) == NULL)
		goto fail;
	free(p);
	p = tc_path_join(op_dir, TC_PYPTO_LEDGER_DEFAULT);
	if ((ledger = tc_pypto_ledger_load(p, err)) == NULL)
		goto fail;
	free(p);
	p = tc_path_join(op_dir, CANDIDATES);
	memset(&so, 0, sizeof(so));
	so.op_dir = op_dir;
	so.candidates_path = p;
	if ((sel = tc_pypto_select(&so, err)) == NULL)
		goto fail;
	free(p);
	p = tc_path_join(op_dir, SELECTION);
	if (tc_write_json(p, sel, TC_WRITE_MKDIRS, err) != 0)
		goto fail;
	if (load_terminal(op_dir, o->terminal_path, &term, err) != 0)
		goto fail;
	base = candidate(sel, 0);
	best = tc_json_get(sel, "selected");
	if (base == NULL || best == NULL) {
		tc_error_set(err, "the candidate table has no frozen baseline or no "
		    "selected version");
		goto fail;
	}
	if (strcmp(s_or(best, "executable_sha256", ""), s_or(perf,
	    "executable_sha256", "-")) != 0) {
		tc_error_set(err, "the final compare measured sha256 %s, the "
		    "selected best version is %s: install the selected version "
		    "and run its independent final compare first",
		    s_or(perf, "executable_sha256", "?"),
		    s_or(best, "executable_sha256", "?"));
		goto fail;
	}
	if ((run = tc_pypto_run_final_test(op_dir, o->interpreter, o->timeout_s,
	    m.n, err)) == NULL)
		goto fail;
	target = target_of(spec, perf, o->target_unavailable_reason);

	/* the evidence block */
	ev = tc_json_new_object();
	tc_json_object_set_int(ev, "schema_version", 1);
	tc_json_object_set(ev, "baseline_collection_id", tc_pj_clone(
	    tc_json_get(base, "collection_id")));
	tc_json_object_set(ev, "baseline_round", tc_pj_clone(tc_json_get(base,
	    "round")));
	tc_json_object_set(ev, "final_collection_id", tc_pj_clone(tc_json_get(
	    perf, "collection_id")));
	{
		char *fr = tc_path_relative_to(s_or(perf, "deep_profile_round", ""),
		    op_dir);

		tc_json_object_set_string(ev, "final_round", fr != NULL ? fr : "");
		free(fr);
	}
	tc_json_object_set(ev, "final_source_sha256", tc_pj_clone(tc_json_get(
	    perf, "executable_sha256")));
	{
		tc_json *fc = tc_json_new_object();
		tc_buf cmd = TC_BUF_INIT;
		const tc_json *argv = tc_json_get(run, "argv");

		for (i = 0; i < argv->u.arr.len; i++)
			tc_buf_printf(&cmd, "%s%s", i ? " " : "",
			    tc_json_string(argv->u.arr.items[i]));
		tc_json_object_set_string(fc, "command", tc_buf_cstr(&cmd));
		tc_json_object_set(fc, "exit_code", tc_pj_clone(tc_json_get(run,
		    "exit_code")));
		tc_json_object_set(fc, "stdout_sha256", tc_pj_clone(tc_json_get(
		    run, "stdout_sha256")));
		tc_json_object_set(ev, "final_correctness", fc);
		tc_buf_free(&cmd);
	}
	tc_json_object_set_string(ev, "ledger", TC_PYPTO_LEDGER_DEFAULT);
	tc_json_object_set_string(ev, "candidates", CANDIDATES);
	tc_json_object_set_string(ev, "selection", SELECTION);
	tc_json_object_set(ev, "best_candidate_id", tc_pj_clone(tc_json_get(
	    best, "candidate_id")));
	tc_json_object_set(ev, "target", tc_pj_clone(target));
	{
		tc_json *proto = tc_json_new_object();
		static const char *const k[] = { "device_id", "warmup", "repeats",
		    "seed", "target_op_name", NULL };
		size_t j;

		for (j = 0; k[j] != NULL; j++)
			tc_json_object_set(proto, k[j], tc_json_clone(tc_json_get(perf,
			    k[j])));
		tc_json_object_set(proto, "timing_source", tc_pj_clone(
		    tc_json_get(perf, "timing_source_metric")));
		tc_json_object_set(ev, "protocol", proto);
	}
	pcs = tc_json_new_array();
	for (i = 0; i < m.n; i++) {
		const char *id = m.cases[i].id;
		const tc_json *row = row_of(perf, id);
		const tc_json *tc = tc_json_get(tc_json_get(term, "cases"), id);
		const tc_json *ratio = tc_json_get(row, "golden_reference_ratio");
		tc_json *c = tc_json_new_object();
		double bu = baseline_us(base, id), fu = 0;

		(void)tc_json_number(tc_json_get(row, "asc_us"), &fu);
		if (!tc_json_is(tc, TC_JSON_OBJECT)) {
			tc_json_free(c);
			tc_json_free(pcs);
			tc_json_free(target);
			tc_error_set(err, "the terminal evidence has no entry for case "
			    "%s (cases.%s.roofline_terminal / pipeline_evidence / "
			    "scalar_evidence)", id, id);
			goto fail;
		}
		tc_json_object_set_string(c, "case", id);
		tc_json_object_set_string(c, "shape", m.cases[i].shape);
		tc_json_object_set_string(c, "dtype", m.cases[i].dtype);
		tc_json_object_set(c, "baseline_us", tc_json_new_float(bu));
		tc_json_object_set(c, "final_us", tc_json_new_float(fu));
		tc_json_object_set(c, "speedup", tc_json_new_float(bu / fu));
		tc_json_object_set(c, "golden_reference_ratio", ratio != NULL ?
		    tc_json_clone(ratio) : tc_json_new_null());
		tc_json_object_set(c, "target_met", tc_json_get(row,
		    "default_target_met") != NULL ? tc_json_clone(tc_json_get(row,
		    "default_target_met")) : tc_json_new_null());
		tc_json_object_set(c, "roofline_terminal", tc_pj_clone(
		    tc_json_get(tc, "roofline_terminal")));
		tc_json_object_set(c, "pipeline_evidence", tc_pj_clone(
		    tc_json_get(tc, "pipeline_evidence")));
		tc_json_object_set(c, "scalar_evidence", tc_pj_clone(
		    tc_json_get(tc, "scalar_evidence")));
		tc_json_array_push(pcs, c);
	}
	tc_json_object_set(ev, "per_case", pcs);

	/* the Markdown */
	tc_buf_printf(&b, "# PERFORMANCE_REPORT - %s (Stage 5)\n\n",
	    tc_path_basename(op_dir));
	tc_buf_puts(&b, "Rendered by `tunectl pypto report` from the archived "
	    "evidence; every number below is recomputed by stage5-check.\n\n");
	md_contract(&b, contract, perf);
	tc_buf_puts(&b, "## 2. Target cases and target\n\n");
	{
		char *ids = join(tc_json_get(tc_json_get(contract,
		    "optimization_target"), "case_ids"));

		tc_buf_printf(&b, "- optimization_target: case_ids [%s], "
		    "selection_mode `%s`\n", ids, s_or(tc_json_get(contract,
		    "optimization_target"), "selection_mode", "?"));
		free(ids);
	}
	tc_buf_printf(&b, "- Target: **%s** (%s) - %s\n\n", s_or(target, "kind",
	    "?"), s_or(target, "status", "?"), s_or(target, "reason", ""));
	tc_buf_puts(&b, "## 3. Golden contract\n\n");
	tc_buf_printf(&b, "- %s\n\n", strcmp(s_or(target, "kind", ""),
	    "default_golden") == 0 ? "GOLDEN_PERF_REPORT.json joined: per-case "
	    "per-iteration E2E in performance.json" : "no Stage 5 Golden "
	    "contract: the reference is unavailable (disclosed above)");
	md_ledger(&b, ledger);
	tc_buf_puts(&b, "## 5. Baseline\n\n");
	tc_buf_printf(&b, "- baseline_collection_id `%s`, round `%s`\n\n",
	    s_or(base, "collection_id", "?"), s_or(base, "round", "?"));
	{
		char *md = tc_pypto_selection_markdown(sel);

		tc_buf_puts(&b, "## 7. Candidate comparison\n\n");
		tc_buf_puts(&b, md);
		tc_buf_puts(&b, "\n");
		free(md);
	}
	tc_buf_puts(&b, "## 9. Final\n\n");
	tc_buf_printf(&b, "- final_collection_id `%s`, round `%s`, "
	    "executable_sha256 `%s` (best version `%s`)\n",
	    s_or(perf, "collection_id", "?"), s_or(ev, "final_round", "?"),
	    s_or(perf, "executable_sha256", "?"),
	    s_or(best, "candidate_id", "?"));
	tc_buf_printf(&b, "- Final correctness (run now): `%s` exit %g\n\n",
	    s_or(tc_json_get(ev, "final_correctness"), "command", "?"),
	    tc_js_number(tc_json_get(run, "exit_code")));
	tc_buf_puts(&b, "| case | shape | dtype | baseline (us) | final (us) | "
	    "speedup | Golden ratio (not a speedup) | target |\n| --- | --- | --- "
	    "| --- | --- | --- | --- | --- |\n");
	for (i = 0; i < pcs->u.arr.len; i++) {
		const tc_json *c = pcs->u.arr.items[i];

		tc_buf_printf(&b, "| %s | %s | %s | ", s_or(c, "case", "?"),
		    s_or(c, "shape", "?"), s_or(c, "dtype", "?"));
		num(&b, tc_json_get(c, "baseline_us"), 3);
		tc_buf_puts(&b, " | ");
		num(&b, tc_json_get(c, "final_us"), 3);
		tc_buf_puts(&b, " | ");
		num(&b, tc_json_get(c, "speedup"), 4);
		tc_buf_puts(&b, " | ");
		num(&b, tc_json_get(c, "golden_reference_ratio"), 4);
		tc_buf_printf(&b, " | %s |\n", tc_json_is(tc_json_get(c,
		    "target_met"), TC_JSON_BOOL) ? (tc_json_get(c,
		    "target_met")->u.b ? "met" : "not met") : "unavailable");
	}
	tc_buf_puts(&b, "\n## 10. Terminal evidence per case\n\n");
	for (i = 0; i < pcs->u.arr.len; i++) {
		const tc_json *c = pcs->u.arr.items[i];

		tc_buf_printf(&b, "- %s: roofline `%s` (%s); pipeline `%s` (%s); "
		    "Scalar dominant %s (%s)\n", s_or(c, "case", "?"),
		    s_or(tc_json_get(c, "roofline_terminal"), "status", "?"),
		    s_or(tc_json_get(c, "roofline_terminal"), "basis", "-"),
		    s_or(tc_json_get(c, "pipeline_evidence"), "status", "?"),
		    s_or(tc_json_get(c, "pipeline_evidence"), "basis", "-"),
		    tc_json_truthy(tc_json_get(tc_json_get(c, "scalar_evidence"),
		    "dominant")) ? "true" : "false",
		    s_or(tc_json_get(c, "scalar_evidence"), "basis", "-"));
	}
	tc_buf_puts(&b, "\n## 11. Evidence paths\n\n");
	tc_buf_printf(&b, "- rounds: `%s` (baseline), `%s` (final); "
	    "instruction timelines under the final round's case directories\n"
	    "- ledger `%s`, candidates `%s`, selection `%s`, discovery `%s`\n\n",
	    s_or(ev, "baseline_round", "?"), s_or(ev, "final_round", "?"),
	    TC_PYPTO_LEDGER_DEFAULT, CANDIDATES, SELECTION,
	    s_or(tc_json_get(contract, "discovery"), "path", "none"));
	text = tc_json_pretty(ev, NULL, err);
	if (text == NULL) {
		tc_json_free(target);
		goto fail;
	}
	tc_buf_puts(&b, "## Machine-readable evidence\n\n```json "
	    "stage5-evidence\n");
	tc_buf_puts(&b, text);
	tc_buf_puts(&b, "```\n");
	free(p);
	p = tc_path_join(op_dir, "PERFORMANCE_REPORT.md");
	if (tc_write_atomic(p, b.data, b.len, 0, err) != 0) {
		tc_json_free(target);
		goto fail;
	}
	tc_json_free(target);
	tc_json_object_set(ev, "final_run", run);
	run = NULL;
	goto out;
fail:
	tc_json_free(ev);
	ev = NULL;
out:
	tc_buf_free(&b);
	free(text);
	free(p);
	free(op_dir);
	if (m_ok)
		tc_pypto_manifest_free(&m);
	tc_json_free(perf);
	tc_json_free(contract);
	tc_json_free(spec);
	tc_json_free(ledger);
	tc_json_free(sel);
	tc_json_free(term);
	tc_json_free(run);
	return ev;
}
