/*
 * final_report.c - FINAL_E2E_REPORT.md (docs/spec/reports.md
 * "Final E2E report"), result first: outcome, the key comparison table (frozen
 * S0, one chosen row per stage and metric, the final clean E2E), gates, the
 * recommended or fallback configuration, then the session summary, the seven
 * Final sections, the ledger table and the phase handoffs.  The rendering is a
 * pure function of the loaded documents; reading them (and writing the file,
 * never over sealed evidence) comes at the end.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "tunectl/fileio.h"
#include "tunectl/final.h"
#include "tunectl/path.h"
#include "tunectl/report.h"

/* A fixed phrase of the report, in the reference's Chinese and in
 * English. */
struct phrase {
	const char *zh, *en;
};

/* Every fixed phrase of the report. */
struct phrases {
	struct phrase title, overview, verdict, basis, comparison,
	    units_note, kinds_note, table_head, s0_label, s0_missing,
	    synthetic_reason, no_evidence, stage_missing, sep,
	    best_attempt, diagnostic_only, final_label, gates_head,
	    gate_sep, final_gates, final_gates_missing, runs_note,
	    config_head, winner_fmt_pre, winner_fmt_post, no_winner,
	    fallback, fallback_missing, scope, promotion, option_config,
	    config_file, config_fp, not_given, config_basis,
	    config_basis_missing, config_evidence, session_head,
	    improvement, evidence_none, auto_head, auto_verdict_pre,
	    auto_verdict_post, auto_note, handoffs_head, ledger_head,
	    sentence_end;
	struct phrase sections[TC_FINAL_DETAIL_KEY_COUNT];
	struct phrase outcomes[5];	/* by classification, class_order */
};

static const char *const class_order[5] = {
	"beneficial", "no_gain", "not_run", "failed", "blocked"
};

static const struct phrases ph = {
	.title = {
		"# SuperKernel Auto Tune 最终 E2E 报告",
		"# SuperKernel Auto Tune Final E2E Report"
	},
	.overview = { "## 结果速览", "## Result Overview" },
	.verdict = { "- 最终 E2E 结论: ", "- Final E2E verdict: " },
	.basis = { "- 判定依据: ", "- Basis: " },
	.comparison = { "## 关键数据对比", "## Key Measurements" },
	.units_note = {
		"耗时单位 ms；耗时差 = 实验 \u2212 基线；改善率为正表示更快。"
		    "不同测量口径不互算。",
		"Times in ms; delta = candidate \u2212 baseline; a positive "
		    "improvement means faster. Different metrics are never "
		    "compared with each other."
	},
	.kinds_note = {
		"screening / option / optional_clean 是阶段实验，profiling "
		    "是诊断，均不替代最终 clean E2E。",
		"screening / option / optional_clean are stage experiments "
		    "and profiling is a diagnostic; none of them replaces the "
		    "final clean E2E."
	},
	.table_head = {
		"| 阶段/候选 | 测量口径 | 基线耗时 ms | 实验耗时 ms | "
		    "耗时差 ms | 改善率 | 运行数 | 门禁/状态 | 证据 |",
		"| Stage/candidate | Metric | Baseline ms | Candidate ms | "
		    "Delta ms | Improvement | Runs | Gate/status | Evidence |"
	},
	.s0_label = { "S0（冻结基线）", "S0 (frozen baseline)" },
	.s0_missing = {
		"N/A：旧账本未提供结构化基线",
		"N/A: the legacy ledger has no structured baseline"
	},
	.synthetic_reason = {
		"来自 final_e2e；独立进程数未提供，不将 sample_count "
		    "当作运行数",
		"from final_e2e; the number of independent processes is not "
		    "given and sample_count is not used as a run count"
	},
	.no_evidence = { "N/A：未提供证据", "N/A: no evidence given" },
	.stage_missing = {
		"；N/A：未提供关键测量，原因见阶段正文",
		"; N/A: no key measurement given, see the stage section"
	},
	.sep = { "；", "; " },
	.best_attempt = {
		"；最佳已测尝试，未通过门禁，非优胜者",
		"; best measured attempt, failed the gates, not a winner"
	},
	.diagnostic_only = {
		"；仅诊断，非优胜者",
		"; diagnostic only, not a winner"
	},
	.final_label = { "最终 E2E / ", "Final E2E / " },
	.gates_head = { "### 门禁与统计说明", "### Gates and Statistics" },
	.gate_sep = { "：", ": " },
	.final_gates = {
		"- 最终阈值 / P90 / stddev：",
		"- Final threshold / P90 / stddev: "
	},
	.final_gates_missing = {
		"N/A：未提供结构化门禁说明，见最终 Clean E2E 正文。",
		"N/A: no structured gate description, see the "
		    "Final Clean E2E section."
	},
	.runs_note = {
		"- 运行数仅指独立进程次数；旧 final_e2e.sample_count "
		    "不自动解释为运行数。",
		"- Runs count independent processes only; a legacy "
		    "final_e2e.sample_count is never read as a run count."
	},
	.config_head = {
		"## 配置与建议",
		"## Configuration and Recommendation"
	},
	.winner_fmt_pre = { "- 优胜者：`", "- Winner: `" },
	.winner_fmt_post = {
		"`（最终 clean E2E 验证）",
		"` (verified by the final clean E2E)"
	},
	.no_winner = {
		"- 优胜者：无。最佳尝试不是推荐配置。",
		"- Winner: none. The best attempt is not a recommended "
		    "configuration."
	},
	.fallback = { "- 回退配置：", "- Fallback configuration: " },
	.fallback_missing = {
		"N/A：未提供已验证回退配置，不推断默认 SK-off",
		"N/A: no verified fallback configuration given; "
		    "SK-off is not assumed"
	},
	.scope = { "SK 框定方式", "SK scope strategy" },
	.promotion = { "晋级路径", "Promotion path" },
	.option_config = { "Option 配置", "Option config" },
	.config_file = { "配置文件", "Config file" },
	.config_fp = { "配置 fingerprint", "Config fingerprint" },
	.not_given = {
		"N/A（未提供证据，不猜测默认值）",
		"N/A (no evidence given; defaults are not guessed)"
	},
	.config_basis = { "- 配置依据: ", "- Configuration basis: " },
	.config_basis_missing = {
		"N/A：缺少配置证据",
		"N/A: configuration evidence missing"
	},
	.config_evidence = { "- 配置证据: ", "- Configuration evidence: " },
	.session_head = {
		"## 会话与原始交接摘要",
		"## Session and Original Handoff Summary"
	},
	.improvement = { "- 收益率: `", "- Improvement: `" },
	.evidence_none = { "无", "none" },
	.auto_head = { "## 自动结论", "## Automatic Conclusion" },
	.auto_verdict_pre = {
		"- 最终 clean E2E 是唯一终局判定：",
		"- The final clean E2E is the only terminal verdict: "
	},
	.auto_verdict_post = { "。", "." },
	.auto_note = {
		"- 下表中的单 SK 分类仅用于解释与溯源，不可替代最终 E2E 结论。",
		"- The per-SK classifications below only explain and trace "
		    "results; they never replace the final E2E verdict."
	},
	.handoffs_head = { "## 阶段交接", "## Phase Handoffs" },
	.ledger_head = { "## Ledger 汇总", "## Ledger Summary" },
	.sentence_end = { "。", "." },
	.sections = {
		{ "## 环境与准备", "## Environment and Preparation" },
		{ "## S0 基线", "## S0 Baseline" },
		{ "## Stage A 框定方式", "## Stage A Scope Selection" },
		{ "## Stage O Option", "## Stage O Option Tuning" },
		{ "## BASE Profile 与 SMAP", "## BASE Profile and SMAP" },
		{ "## 可选实验", "## Optional Experiments" },
		{ "## 最终 Clean E2E", "## Final Clean E2E" },
	},
	.outcomes = {
		{
			"调优成功，最终 clean E2E 有收益",
			"Tuning succeeded: the final clean E2E shows a gain"
		},
		{
			"最终 clean E2E 无收益，未产生终局优胜者",
			"The final clean E2E shows no gain; there is no final winner"
		},
		{
			"未获得最终 E2E 验证的优胜者；最终 clean E2E 未执行",
			"No winner verified by a final E2E; the final clean E2E was not run"
		},
		{
			"最终验证失败，未产生终局优胜者",
			"The final verification failed; there is no final winner"
		},
		{
			"调优阻塞，未产生终局优胜者",
			"Tuning is blocked; there is no final winner"
		},
	},
};

/* Rendering state: the output, the language, and the first error. */
struct render {
	tc_buf out;
	bool en;
	tc_error *err;
	int failed;
};

/* The phrase in the report's language. */
static const char *
say(const struct render *r, const struct phrase *p)
{
	return r->en ? p->en : p->zh;
}

static void
line(struct render *r, const char *s)
{
	tc_buf_puts(&r->out, s);
	tc_buf_putc(&r->out, '\n');
}

/* str(v) of a member, without a newline. */
static void
put_str(struct render *r, const tc_json *v)
{
	tc_json_str(&r->out, v);
}

static void
put_json(struct render *r, const tc_json *v)
{
	if (r->failed)
		return;
	if (tc_report_json_inline(&r->out, v, r->err) != 0)
		r->failed = 1;
}

static bool
str_eq(const tc_json *v, const char *s)
{
	return tc_json_is(v, TC_JSON_STRING) && strcmp(v->u.str.ptr, s) == 0;
}

/* A number member, NULL when null/absent/not a number. */
static const tc_json *
num(const tc_json *obj, const char *key)
{
	const tc_json *v = tc_json_get(obj, key);
	double d;

	return tc_json_number(v, &d) ? v : NULL;
}

/* ", ".join(f"`{p}`" for p in items), or fallback when empty. */
static void
evidence_text(tc_buf *b, const tc_json *items, const char *fallback)
{
	size_t i, n = 0;

	if (tc_json_is(items, TC_JSON_ARRAY)) {
		for (i = 0; i < items->u.arr.len; i++) {
			if (n++ > 0)
				tc_buf_puts(b, ", ");
			tc_buf_putc(b, '`');
			tc_json_str(b, items->u.arr.items[i]);
			tc_buf_putc(b, '`');
		}
	}
	if (n == 0)
		tc_buf_puts(b, fallback);
}

/* " | " and one cell through _summary_cell */
static void
cell(struct render *r, const char *text)
{
	tc_buf_puts(&r->out, " | ");
	tc_report_cell_str(&r->out, text);
}

/* '%.6f' % v of a number, or NULL (-> N/A) for a missing one. */
static const char *
fixed6(tc_buf *b, const tc_json *v, int sign)
{
	double d;

	tc_buf_reset(b);
	if (v == NULL || !tc_json_number(v, &d))
		return NULL;
	tc_report_fmt_fixed6(b, d, sign);
	return b->data;
}

/*
 * _summary_row: label, metric, baseline %.6f, candidate %.6f, delta
 * %+.6f and improvement %+.6f% (both only when both numbers exist),
 * count, status, evidence -- every cell through _summary_cell.
 */
static void
summary_row(struct render *r, const char *label, const char *metric,
    const tc_json *base, const tc_json *cand, const tc_json *count,
    const char *status, const char *evidence)
{
	tc_buf num_text = TC_BUF_INIT;

	tc_buf_puts(&r->out, "| ");
	tc_report_cell_str(&r->out, label);
	cell(r, metric);
	cell(r, fixed6(&num_text, base, 0));
	cell(r, fixed6(&num_text, cand, 0));
	if (base != NULL && cand != NULL) {
		tc_buf_reset(&num_text);
		tc_report_fmt_fixed6(&num_text, tc_final_delta(base, cand), 1);
		cell(r, num_text.data);
		tc_buf_reset(&num_text);
		tc_report_fmt_fixed6(&num_text,
		    tc_final_report_improvement(base, cand), 1);
		tc_buf_putc(&num_text, '%');
		cell(r, num_text.data);
	} else {
		cell(r, NULL);
		cell(r, NULL);
	}
	tc_buf_puts(&r->out, " | ");
	tc_report_cell(&r->out, count);
	cell(r, status);
	cell(r, evidence);
	tc_buf_puts(&r->out, " |\n");
	tc_buf_free(&num_text);
}

/* ---- the comparison table ----------------------------------------------- */

static const tc_json *
summary_stages(const tc_json *summary)
{
	const tc_json *s = tc_json_get(summary, "stages");

	return tc_json_is(s, TC_JSON_ARRAY) ? s : NULL;
}

/* Python min() key: (not eligible, candidate_ms is None, selector_rank
 * or inf, candidate_ms or inf, candidate_id); true when a < b. */
static bool
row_before(const tc_json *a, const tc_json *b)
{
	const tc_json *ea = tc_json_get(a, "eligible"),
	    *eb = tc_json_get(b, "eligible");
	int na = !(tc_json_is(ea, TC_JSON_BOOL) && ea->u.b);
	int nb = !(tc_json_is(eb, TC_JSON_BOOL) && eb->u.b);
	const tc_json *ca = num(a, "candidate_ms"), *cb = num(b, "candidate_ms");
	const tc_json *ra = num(a, "selector_rank"), *rb = num(b, "selector_rank");
	const tc_json *ia = tc_json_get(a, "candidate_id"),
	    *ib = tc_json_get(b, "candidate_id");
	double x = INFINITY, y = INFINITY;
	size_t n;
	int c;

	if (na != nb)
		return na < nb;
	if ((ca == NULL) != (cb == NULL))
		return ca != NULL;
	if (ra != NULL)
		(void)tc_json_number(ra, &x);
	if (rb != NULL)
		(void)tc_json_number(rb, &y);
	if (x != y)
		return x < y;
	x = y = INFINITY;
	if (ca != NULL)
		(void)tc_json_number(ca, &x);
	if (cb != NULL)
		(void)tc_json_number(cb, &y);
	if (x != y)
		return x < y;
	if (!tc_json_is(ia, TC_JSON_STRING) || !tc_json_is(ib, TC_JSON_STRING))
		return false;
	n = ia->u.str.len < ib->u.str.len ? ia->u.str.len : ib->u.str.len;
	c = memcmp(ia->u.str.ptr, ib->u.str.ptr, n);
	return c != 0 ? c < 0 : ia->u.str.len < ib->u.str.len;
}

static bool
step_in_stage(const tc_json *step, const struct tc_summary_stage *st)
{
	if (!str_eq(tc_json_get(step, "phase"), st->phase))
		return false;
	return st->optional_branch == NULL ||
	    str_eq(tc_json_get(step, "optional_branch"), st->optional_branch);
}

/* The N/A row of a stage whose summary has no rows. */
static void
stage_missing_row(struct render *r, const struct tc_summary_stage *st,
    const tc_json *steps, const tc_json *summary)
{
	const tc_json *rows = summary_stages(summary);
	tc_buf status = TC_BUF_INIT, ev = TC_BUF_INIT;
	size_t i, n = 0, nev = 0;

	for (i = 0; steps != NULL && i < steps->u.arr.len; i++)
		if (step_in_stage(steps->u.arr.items[i], st))
			n++;
	if (n == 0)
		return;
	if (strcmp(st->stage, "optional_experiments") == 0 && rows != NULL) {
		for (i = 0; i < rows->u.arr.len; i++) {
			const char *s = tc_json_get_string(rows->u.arr.items[i],
			    "stage");

			if (s != NULL && strncmp(s, "optional_", 9) == 0)
				return;
		}
	}
	n = 0;
	for (i = 0; i < steps->u.arr.len; i++) {
		const tc_json *step = steps->u.arr.items[i];
		const tc_json *outcome = tc_json_get(step, "outcome_status");
		const tc_json *rp = tc_json_get(step, "result_path");

		if (!step_in_stage(step, st))
			continue;
		if (n++ > 0)
			tc_buf_puts(&status, "; ");
		tc_json_str(&status, tc_json_get(step, "step_id"));
		tc_buf_puts(&status, ": ");
		/* outcome_status or state */
		if (tc_json_is(outcome, TC_JSON_STRING) && outcome->u.str.len > 0)
			tc_json_str(&status, outcome);
		else
			tc_json_str(&status, tc_json_get(step, "state"));
		if (tc_json_is(rp, TC_JSON_STRING) && rp->u.str.len > 0) {
			if (nev++ > 0)
				tc_buf_puts(&ev, ", ");
			tc_buf_putc(&ev, '`');
			tc_json_str(&ev, rp);
			tc_buf_putc(&ev, '`');
		}
	}
	tc_buf_puts(&status, say(r, &ph.stage_missing));
	if (nev == 0)
		tc_buf_puts(&ev, say(r, &ph.no_evidence));
	summary_row(r, st->stage, st->kind, NULL, NULL, NULL, status.data,
	    ev.data);
	tc_buf_free(&status);
	tc_buf_free(&ev);
}

/* One chosen row of a stage, and its gate line. */
static void
stage_row(struct render *r, const struct tc_summary_stage *st,
    const tc_json *row, tc_buf *gates)
{
	const tc_json *elig = tc_json_get(row, "eligible");
	const tc_json *cand = num(row, "candidate_ms");
	const char *kind = tc_json_get_string(row, "kind");
	tc_buf label = TC_BUF_INIT, metric = TC_BUF_INIT, status = TC_BUF_INIT,
	    ev = TC_BUF_INIT;

	tc_buf_printf(&label, "%s / ", st->stage);
	tc_json_str(&label, tc_json_get(row, "candidate_id"));
	tc_json_str(&metric, tc_json_get(row, "kind"));
	tc_buf_puts(&metric, " / ");
	tc_json_str(&metric, tc_json_get(row, "metric"));
	tc_json_str(&status, tc_json_get(row, "status"));
	tc_buf_puts(&status, say(r, &ph.sep));
	tc_json_str(&status, tc_json_get(row, "reason_zh"));
	if (!(tc_json_is(elig, TC_JSON_BOOL) && elig->u.b) && cand != NULL)
		tc_buf_puts(&status, say(r, kind != NULL &&
		    strcmp(kind, "profiling") == 0 ? &ph.diagnostic_only :
		    &ph.best_attempt));
	evidence_text(&ev, tc_json_get(row, "evidence_artifacts"),
	    say(r, &ph.no_evidence));
	summary_row(r, label.data, metric.data, num(row, "baseline_ms"), cand,
	    tc_json_get(row, "run_count"), status.data, ev.data);
	tc_buf_puts(gates, "- ");
	tc_buf_puts(gates, label.data);
	tc_buf_puts(gates, say(r, &ph.gate_sep));
	tc_json_str(gates, tc_json_get(row, "gates_zh"));
	tc_buf_putc(gates, '\n');
	tc_buf_free(&label);
	tc_buf_free(&metric);
	tc_buf_free(&status);
	tc_buf_free(&ev);
}

static void
stage_rows(struct render *r, const struct tc_summary_stage *st,
    const tc_json *summary, const tc_json *steps, tc_buf *gates)
{
	const tc_json *rows = summary_stages(summary);
	const tc_json **mine;
	size_t i, j, n = 0;

	if (rows != NULL) {
		mine = tc_xcalloc(rows->u.arr.len + 1, sizeof(*mine));
		for (i = 0; i < rows->u.arr.len; i++)
			if (str_eq(tc_json_get(rows->u.arr.items[i], "stage"),
			    st->stage))
				mine[n++] = rows->u.arr.items[i];
	} else {
		mine = NULL;
	}
	if (n == 0) {
		free(mine);
		stage_missing_row(r, st, steps, summary);
		return;
	}
	/* one row per distinct metric, in first-appearance order */
	for (i = 0; i < n; i++) {
		const tc_json *metric = tc_json_get(mine[i], "metric");
		const tc_json *best = NULL;
		bool seen = false;

		for (j = 0; j < i; j++)
			if (tc_json_equal(tc_json_get(mine[j], "metric"), metric))
				seen = true;
		if (seen)
			continue;
		for (j = i; j < n; j++) {
			if (!tc_json_equal(tc_json_get(mine[j], "metric"), metric))
				continue;
			if (best == NULL || row_before(mine[j], best))
				best = mine[j];
		}
		stage_row(r, st, best, gates);
	}
	free(mine);
}

static void
comparison_table(struct render *r, const tc_json *session,
    const tc_json *fe, const tc_json *summary, tc_buf *gates)
{
	const tc_json *steps = tc_json_get_array(session, "steps");
	const tc_json *baseline = tc_json_get_object(summary, "baseline");
	tc_json *synthetic = NULL;
	const tc_json *reason;
	bool measured = tc_final_is_measured(fe);
	tc_buf label = TC_BUF_INIT, status = TC_BUF_INIT, ev = TC_BUF_INIT;
	const tc_json *fb = tc_json_get(fe, "baseline"),
	    *fc = tc_json_get(fe, "candidate");
	size_t i;

	line(r, say(r, &ph.table_head));
	line(r, "|---|---|---:|---:|---:|---:|---|---|---|");
	if (baseline == NULL && measured) {
		synthetic = tc_json_new_object();
		tc_json_object_set_string(synthetic, "metric",
		    "final clean median");
		if (num(fb, "median_ms") != NULL)
			tc_json_object_set(synthetic, "value_ms",
			    tc_json_clone(num(fb, "median_ms")));
		if (tc_json_get(fb, "run_count") != NULL)
			tc_json_object_set(synthetic, "run_count",
			    tc_json_clone(tc_json_get(fb, "run_count")));
		tc_json_object_set_string(synthetic, "reason_zh",
		    say(r, &ph.synthetic_reason));
		if (tc_json_get(fe, "evidence_artifacts") != NULL)
			tc_json_object_set(synthetic, "evidence_artifacts",
			    tc_json_clone(tc_json_get(fe, "evidence_artifacts")));
		baseline = synthetic;
	}
	reason = tc_json_get(baseline, "reason_zh");
	if (tc_json_is(reason, TC_JSON_STRING) && reason->u.str.len > 0)
		tc_json_str(&status, reason);
	else
		tc_buf_puts(&status, say(r, &ph.s0_missing));
	evidence_text(&ev, tc_json_get(baseline, "evidence_artifacts"),
	    say(r, &ph.no_evidence));
	{
		const tc_json *metric = tc_json_get(baseline, "metric");
		tc_buf m = TC_BUF_INIT;

		if (metric != NULL && !tc_json_is(metric, TC_JSON_NULL))
			tc_json_str(&m, metric);
		summary_row(r, say(r, &ph.s0_label), m.len > 0 ? m.data : NULL,
		    num(baseline, "value_ms"), NULL,
		    tc_json_get(baseline, "run_count"), status.data, ev.data);
		tc_buf_free(&m);
	}
	for (i = 0; i < TC_SUMMARY_STAGE_COUNT; i++)
		stage_rows(r, &tc_summary_stages[i], summary, steps, gates);

	tc_buf_puts(&label, say(r, &ph.final_label));
	tc_json_str(&label, tc_json_get(fe, "candidate_id"));
	tc_buf_reset(&status);
	tc_json_str(&status, tc_json_get(fe, "classification"));
	tc_buf_puts(&status, say(r, &ph.sep));
	tc_json_str(&status, tc_json_get(fe, "reason_zh"));
	tc_buf_reset(&ev);
	evidence_text(&ev, tc_json_get(fe, "evidence_artifacts"),
	    say(r, &ph.no_evidence));
	summary_row(r, label.data, "final clean / median",
	    measured ? num(fb, "median_ms") : NULL,
	    measured ? num(fc, "median_ms") : NULL,
	    measured ? tc_json_get(fc, "run_count") : NULL, status.data, ev.data);
	tc_buf_free(&label);
	tc_buf_free(&status);
	tc_buf_free(&ev);
	tc_json_free(synthetic);
}

/* ---- configuration and recommendation ----------------------------------- */

static void
config_line(struct render *r, const char *label, const tc_json *value)
{
	tc_buf_puts(&r->out, "- ");
	tc_buf_puts(&r->out, label);
	tc_buf_puts(&r->out, ": ");
	if (value == NULL || tc_json_is(value, TC_JSON_NULL)) {
		line(r, say(r, &ph.not_given));
		return;
	}
	tc_buf_putc(&r->out, '`');
	if (tc_json_is(value, TC_JSON_OBJECT) || tc_json_is(value, TC_JSON_ARRAY))
		put_json(r, value);
	else
		put_str(r, value);
	line(r, "`");
}

static void
configuration(struct render *r, const tc_json *fe, const tc_json *summary)
{
	bool winner = str_eq(tc_json_get(fe, "classification"), "beneficial");
	const tc_json *role = tc_json_get_object(summary,
	    winner ? "winner" : "fallback");
	tc_json *config;
	const tc_json *oc, *optimize, *debug, *reason, *cid;
	size_t i;

	if (winner) {
		/* final_e2e's fields overlaid by the summary winner's */
		config = tc_json_clone(fe);
		for (i = 0; role != NULL && i < role->u.obj.len; i++)
			tc_json_object_setn(config, role->u.obj.members[i].key,
			    role->u.obj.members[i].key_len,
			    tc_json_clone(role->u.obj.members[i].value));
		tc_buf_puts(&r->out, say(r, &ph.winner_fmt_pre));
		put_str(r, tc_json_get(fe, "candidate_id"));
		line(r, say(r, &ph.winner_fmt_post));
	} else {
		config = role != NULL ? tc_json_clone(role) : tc_json_new_object();
		line(r, say(r, &ph.no_winner));
		tc_buf_puts(&r->out, say(r, &ph.fallback));
		cid = tc_json_get(config, "candidate_id");
		if (cid != NULL && !tc_json_is(cid, TC_JSON_NULL) &&
		    !(tc_json_is(cid, TC_JSON_STRING) && cid->u.str.len == 0))
			put_str(r, cid);
		else
			tc_buf_puts(&r->out, say(r, &ph.fallback_missing));
		tc_buf_putc(&r->out, '\n');
	}
	oc = tc_json_get(config, "option_config");
	optimize = oc;
	debug = tc_json_get(config, "debug_option_config");
	if (tc_json_is(oc, TC_JSON_OBJECT) &&
	    (tc_json_get(oc, "super_kernel_optimize_options") != NULL ||
	    tc_json_get(oc, "super_kernel_debug_options") != NULL)) {
		optimize = tc_json_get(oc, "super_kernel_optimize_options");
		if (tc_json_get(oc, "super_kernel_debug_options") != NULL)
			debug = tc_json_get(oc, "super_kernel_debug_options");
	}
	config_line(r, say(r, &ph.scope),
	    tc_json_get(config, "scope_strategy"));
	config_line(r, say(r, &ph.promotion),
	    tc_json_get(config, "promotion_path"));
	config_line(r, say(r, &ph.option_config), oc);
	config_line(r, "Optimize options", optimize);
	config_line(r, "Debug options", debug);
	config_line(r, say(r, &ph.config_file),
	    tc_json_get(config, "config_path"));
	config_line(r, say(r, &ph.config_fp),
	    tc_json_get(config, "config_fingerprint"));
	tc_buf_puts(&r->out, say(r, &ph.config_basis));
	reason = tc_json_get(config, "reason_zh");
	if (reason != NULL && !tc_json_is(reason, TC_JSON_NULL) &&
	    !(tc_json_is(reason, TC_JSON_STRING) && reason->u.str.len == 0))
		put_str(r, reason);
	else
		tc_buf_puts(&r->out, say(r, &ph.config_basis_missing));
	tc_buf_putc(&r->out, '\n');
	tc_buf_puts(&r->out, say(r, &ph.config_evidence));
	evidence_text(&r->out, tc_json_get(config, "evidence_artifacts"), "N/A");
	tc_buf_putc(&r->out, '\n');
	tc_json_free(config);
}

/* ---- the ledger table ----------------------------------------------------- */

static void
join_sep(tc_buf *b, size_t *n, const char *sep)
{
	if ((*n)++ > 0)
		tc_buf_puts(b, sep);
}

static int
cmp_cstr(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* The frozen config of an experiment: "key=value; ...".  Returns how
 * many entries b got (0: the cell is "-"). */
static size_t
config_cell(tc_buf *b, const tc_json *exp)
{
	static const char *const config_keys[] = {
		"source_revision", "baseline_config_fingerprint",
		"control_fingerprint"
	};
	size_t i, n = 0;

	for (i = 0; i < 3; i++) {
		if (tc_json_get_string(exp, config_keys[i]) == NULL)
			continue;
		join_sep(b, &n, "; ");
		tc_buf_printf(b, "%s=", config_keys[i]);
		tc_json_str(b, tc_json_get(exp, config_keys[i]));
	}
	return n;
}

/* The round ids, one a line. */
static size_t
rounds_cell(tc_buf *b, const tc_json *rounds)
{
	size_t i, n = 0;

	for (i = 0; rounds != NULL && i < rounds->u.arr.len; i++) {
		const tc_json *rd = rounds->u.arr.items[i];
		const tc_json *id;

		if (!tc_json_is(rd, TC_JSON_OBJECT))
			continue;
		join_sep(b, &n, "<br>");
		id = tc_json_get(rd, "round_id");
		if (id != NULL)
			tc_json_str(b, id);
		else
			tc_buf_puts(b, "unknown");
	}
	return n;
}

/* The lifecycle, one line per round that records any of its keys. */
static size_t
lifecycle_cell(tc_buf *b, const tc_json *rounds)
{
	static const char *const lifecycle_keys[] = {
		"correctness", "clean", "profiling"
	};
	size_t i, k, n = 0;

	for (i = 0; rounds != NULL && i < rounds->u.arr.len; i++) {
		const tc_json *lc = tc_json_get_object(rounds->u.arr.items[i],
		    "lifecycle");
		size_t parts = 0;

		for (k = 0; lc != NULL && k < 3; k++) {
			const tc_json *v = tc_json_get(lc, lifecycle_keys[k]);

			if (v == NULL)
				continue;
			if (parts++ == 0)
				join_sep(b, &n, "<br>");
			else
				tc_buf_puts(b, ", ");
			tc_buf_printf(b, "%s=", lifecycle_keys[k]);
			tc_json_str(b, v);
		}
	}
	return n;
}

/* The declared option pointers, sorted and unique. */
static size_t
pointers_cell(tc_buf *b, const tc_json *rounds)
{
	const char **ptrs = NULL;
	size_t i, j, n = 0, nptr = 0;

	for (i = 0; rounds != NULL && i < rounds->u.arr.len; i++) {
		const tc_json *ch = tc_json_get_array(rounds->u.arr.items[i],
		    "declared_option_changes");

		for (j = 0; ch != NULL && j < ch->u.arr.len; j++) {
			const char *p = tc_json_get_string(ch->u.arr.items[j],
			    "pointer");

			if (p == NULL)
				continue;
			ptrs = tc_xrealloc(ptrs, (nptr + 1) * sizeof(*ptrs));
			ptrs[nptr++] = p;
		}
	}
	if (nptr > 0)
		qsort(ptrs, nptr, sizeof(*ptrs), cmp_cstr);
	for (i = 0; i < nptr; i++) {
		if (i > 0 && strcmp(ptrs[i], ptrs[i - 1]) == 0)
			continue;
		join_sep(b, &n, "<br>");
		tc_buf_puts(b, ptrs[i]);
	}
	free(ptrs);
	return n;
}

/* The SK classification counts, sorted by class. */
static size_t
classes_cell(tc_buf *b, const tc_json *decisions)
{
	const char **ptrs = NULL;
	size_t i, j, n = 0, nptr = 0;

	for (i = 0; decisions != NULL && i < decisions->u.arr.len; i++) {
		const char *c = tc_json_get_string(decisions->u.arr.items[i],
		    "classification");

		if (c == NULL)
			continue;
		ptrs = tc_xrealloc(ptrs, (nptr + 1) * sizeof(*ptrs));
		ptrs[nptr++] = c;
	}
	if (nptr > 0)
		qsort(ptrs, nptr, sizeof(*ptrs), cmp_cstr);
	for (i = 0; i < nptr; i = j) {
		for (j = i; j < nptr && strcmp(ptrs[j], ptrs[i]) == 0; j++)
			;
		join_sep(b, &n, ", ");
		tc_buf_printf(b, "%s=%zu", ptrs[i], j - i);
	}
	free(ptrs);
	return n;
}

/* A cell: what b holds ("-" when it got no entry), then b is emptied. */
static void
put_cell(tc_buf *out, tc_buf *b, size_t n, const char *after)
{
	tc_buf_puts(out, n > 0 ? b->data : "-");
	tc_buf_puts(out, after);
	tc_buf_reset(b);
}

static void
ledger_row(struct render *r, const tc_json_member *m)
{
	const tc_json *exp = m->value;
	const tc_json *rounds = tc_json_get_array(exp, "rounds");
	const tc_json *blockers = tc_json_get_array(exp, "blockers");
	tc_buf b = TC_BUF_INIT;

	tc_buf_puts(&r->out, "| `");
	tc_buf_add(&r->out, m->key, m->key_len);
	tc_buf_puts(&r->out, "` | ");
	put_cell(&r->out, &b, config_cell(&b, exp), " | ");
	put_cell(&r->out, &b, rounds_cell(&b, rounds), " | ");
	put_cell(&r->out, &b, lifecycle_cell(&b, rounds), " | ");
	put_cell(&r->out, &b, pointers_cell(&b, rounds), " | ");
	put_cell(&r->out, &b, classes_cell(&b, tc_json_get_array(exp,
	    "performance_scope_decisions")), "");
	tc_buf_printf(&r->out, " | %zu |\n",
	    blockers != NULL ? blockers->u.arr.len : (size_t)0);
	tc_buf_free(&b);
}

/* ---- the whole report ------------------------------------------------------ */

static const char *
outcome_sentence(const struct render *r, const tc_json *fe)
{
	size_t i;

	for (i = 0; i < 5; i++)
		if (str_eq(tc_json_get(fe, "classification"), class_order[i]))
			return say(r, &ph.outcomes[i]);
	return "";
}

static void
verdict_line(struct render *r, const char *label, const tc_json *fe)
{
	tc_buf_puts(&r->out, say(r, &ph.verdict));
	tc_buf_puts(&r->out, label);
	tc_buf_puts(&r->out, " (`");
	put_str(r, tc_json_get(fe, "classification"));
	line(r, "`)");
}

/* prefix + str(v) + suffix, one line */
static void
value_line(struct render *r, const char *prefix, const tc_json *v,
    const char *suffix)
{
	tc_buf_puts(&r->out, prefix);
	put_str(r, v);
	line(r, suffix);
}

static void
session_summary(struct render *r, const struct tc_final_report_input *in,
    const tc_json *fe, const char *label)
{
	const tc_json *entry = tc_json_get(in->session, "entrypoint");
	const tc_json *parent, *base;

	line(r, say(r, &ph.session_head));
	line(r, "");
	value_line(r, "- Session: `", tc_json_get(in->session, "session_id"), "`");
	tc_buf_puts(&r->out, "- Entrypoint: `");
	if (tc_json_is(entry, TC_JSON_STRING) && entry->u.str.len > 0)
		put_str(r, entry);
	else
		tc_buf_puts(&r->out, "full");
	line(r, "`");
	value_line(r, "- Optional mode: `",
	    tc_json_get(in->session, "optional_mode"), "`");
	value_line(r, "- Final status: `", tc_json_get(in->result, "status"), "`");
	line(r, "");
	put_str(r, tc_json_get(in->result, "summary_zh"));
	line(r, "");
	line(r, "");
	verdict_line(r, label, fe);
	value_line(r, "- Candidate: `", tc_json_get(fe, "candidate_id"), "`");
	tc_buf_printf(&r->out, "- %s: `", say(r, &ph.scope));
	put_str(r, tc_json_get(fe, "scope_strategy"));
	line(r, "`");
	tc_buf_printf(&r->out, "- %s: `", say(r, &ph.option_config));
	put_json(r, tc_json_get(fe, "option_config"));
	line(r, "`");
	tc_buf_puts(&r->out, say(r, &ph.basis));
	put_str(r, tc_json_get(fe, "reason_zh"));
	line(r, "");
	if (in->import_manifest != NULL) {
		parent = tc_json_get(in->import_manifest, "parent");
		base = tc_json_get(in->import_manifest, "base_handoff");
		value_line(r, "- Imported parent: `",
		    tc_json_get(parent, "session_id"), "`");
		tc_buf_puts(&r->out, "- Imported BASE/SMAP: `");
		put_str(r, tc_json_get(base, "step_id"));
		tc_buf_puts(&r->out, "` / `");
		put_str(r, tc_json_get(base, "result_sha256"));
		line(r, "`");
	}
	if (tc_final_is_measured(fe)) {
		double d = 0;

		value_line(r, "- Baseline clean E2E median: `",
		    tc_json_get(tc_json_get(fe, "baseline"), "median_ms"),
		    "` ms");
		value_line(r, "- Candidate clean E2E median: `",
		    tc_json_get(tc_json_get(fe, "candidate"), "median_ms"),
		    "` ms");
		tc_buf_puts(&r->out, say(r, &ph.improvement));
		(void)tc_json_number(tc_json_get(fe, "improvement_pct"), &d);
		tc_report_fmt_fixed6(&r->out, d, 0);
		line(r, "%`");
	}
	tc_buf_puts(&r->out, "- E2E evidence: ");
	evidence_text(&r->out, tc_json_get(fe, "evidence_artifacts"),
	    say(r, &ph.evidence_none));
	line(r, "");
}

char *
tc_report_final_render(const struct tc_final_report_input *in, tc_error *err)
{
	const tc_json *fe = tc_json_get(in->ledger, "final_e2e");
	const tc_json *details = tc_json_get(in->result, "details_zh");
	const tc_json *experiments = tc_json_get_object(in->ledger,
	    "experiments");
	const tc_json *steps = tc_json_get_array(in->session, "steps");
	const tc_json *gates_text, *note;
	struct render r = { TC_BUF_INIT, in->lang == TC_REPORT_EN, err, 0 };
	const char *status = tc_json_get_string(in->result, "status");
	const char *label = r.en ? tc_final_outcome_label_en(status) :
	    tc_final_outcome_label(status);
	tc_buf gates = TC_BUF_INIT;
	size_t i;

	line(&r, say(&r, &ph.title));
	line(&r, "");
	line(&r, say(&r, &ph.overview));
	line(&r, "");
	tc_buf_printf(&r.out, "**%s%s**\n", outcome_sentence(&r, fe),
	    say(&r, &ph.sentence_end));
	line(&r, "");
	verdict_line(&r, label, fe);
	tc_buf_puts(&r.out, say(&r, &ph.basis));
	put_str(&r, tc_json_get(fe, "reason_zh"));
	line(&r, "");
	line(&r, "");

	line(&r, say(&r, &ph.comparison));
	line(&r, "");
	line(&r, say(&r, &ph.units_note));
	line(&r, say(&r, &ph.kinds_note));
	line(&r, "");
	comparison_table(&r, in->session, fe, in->summary, &gates);
	line(&r, "");
	line(&r, say(&r, &ph.gates_head));
	line(&r, "");
	tc_buf_puts(&r.out, tc_buf_cstr(&gates));
	tc_buf_free(&gates);
	tc_buf_puts(&r.out, say(&r, &ph.final_gates));
	gates_text = tc_json_get(in->summary, "final_gates_zh");
	if (tc_json_is(gates_text, TC_JSON_STRING) && gates_text->u.str.len > 0)
		put_str(&r, gates_text);
	else
		tc_buf_puts(&r.out, say(&r, &ph.final_gates_missing));
	line(&r, "");
	line(&r, say(&r, &ph.runs_note));
	line(&r, "");

	line(&r, say(&r, &ph.config_head));
	line(&r, "");
	configuration(&r, fe, in->summary);
	note = tc_json_get(in->summary, "display_note_zh");
	if (note != NULL && !tc_json_is(note, TC_JSON_NULL) &&
	    !(tc_json_is(note, TC_JSON_STRING) && note->u.str.len == 0)) {
		line(&r, "");
		tc_buf_puts(&r.out, "> ");
		tc_report_cell(&r.out, note);
		line(&r, "");
	}
	line(&r, "");

	session_summary(&r, in, fe, label);
	for (i = 0; i < TC_FINAL_DETAIL_KEY_COUNT; i++) {
		line(&r, "");
		line(&r, say(&r, &ph.sections[i]));
		line(&r, "");
		put_str(&r, tc_json_get(details, tc_final_detail_keys[i]));
		line(&r, "");
	}
	line(&r, "");
	line(&r, say(&r, &ph.ledger_head));
	line(&r, "");
	value_line(&r, "- Ledger: `", tc_json_get(in->result, "ledger_path"), "`");
	tc_buf_printf(&r.out, "- Active experiments: `%zu`\n",
	    experiments != NULL ? experiments->u.obj.len : (size_t)0);
	line(&r, "");
	line(&r, say(&r, &ph.auto_head));
	line(&r, "");
	tc_buf_printf(&r.out, "%s%s%s\n", say(&r, &ph.auto_verdict_pre), label,
	    say(&r, &ph.auto_verdict_post));
	line(&r, say(&r, &ph.auto_note));
	line(&r, "");
	line(&r, "| Experiment | Frozen config | Rounds | Lifecycle | Options | "
	    "SK classification | Blockers |");
	line(&r, "|---|---|---|---|---|---|---|");
	for (i = 0; experiments != NULL && i < experiments->u.obj.len; i++)
		ledger_row(&r, &experiments->u.obj.members[i]);
	line(&r, "");
	line(&r, say(&r, &ph.handoffs_head));
	line(&r, "");
	for (i = 0; steps != NULL && i < steps->u.arr.len; i++) {
		const tc_json *step = steps->u.arr.items[i];

		tc_buf_puts(&r.out, "- `");
		put_str(&r, tc_json_get(step, "step_id"));
		tc_buf_puts(&r.out, "` / `");
		put_str(&r, tc_json_get(step, "agent_id"));
		value_line(&r, "`: `", tc_json_get(step, "state"), "`");
	}
	if (r.failed) {
		tc_buf_free(&r.out);
		return NULL;
	}
	return tc_buf_detach(&r.out, NULL);
}

/* ---- loading what the report is rendered from ------------------------------ */

tc_json *
tc_report_read_summary(const char *path, tc_error *err)
{
	tc_error sub = TC_ERROR_INIT;
	tc_json *doc = tc_json_parse_file(path, &sub);

	if (doc == NULL) {
		tc_error_set(err, "report_summary cannot be read: %s",
		    tc_error_msg(&sub));
		tc_error_clear(&sub);
		return NULL;
	}
	if (!tc_json_is(doc, TC_JSON_OBJECT)) {
		tc_json_free(doc);
		tc_error_set(err, "report_summary must be a JSON object");
		return NULL;
	}
	return doc;
}

struct loaded {
	const char *root;
	const tc_json *result, *ledger;
	tc_json *manifest;
	const tc_json *summary;
	tc_json *owned_result, *owned_ledger;	/* what load_inputs read */
};

static void
loaded_free(struct loaded *l)
{
	tc_json_free(l->owned_result);
	tc_json_free(l->owned_ledger);
	tc_json_free(l->manifest);
}

static const tc_json *
sealed_final_step(const tc_json *session)
{
	const tc_json *steps = tc_json_get_array(session, "steps");
	size_t i;

	for (i = 0; steps != NULL && i < steps->u.arr.len; i++) {
		const tc_json *step = steps->u.arr.items[i];

		if (str_eq(tc_json_get(step, "phase"), "final_e2e_report") &&
		    str_eq(tc_json_get(step, "state"), "sealed"))
			return step;
	}
	return NULL;
}

/* The members of the Final result the report never reads beyond their
 * type: not built (tc_json_parse_file_digest).  A part of the report that
 * comes to read one must take it out of this list. */
static const char *const result_type_only[] = { "decisions", NULL };

static tc_json *
read_under_root(const char *root, const char *rel,
    const char *const *type_only, tc_error *err)
{
	char *path = tc_path_join(root, rel);
	tc_json *doc = tc_json_parse_file_digest(path, type_only, NULL, err);

	free(path);
	return doc;
}

/* What every report checks before reading anything: the artifact root
 * and the sealed Final step, whose result_path goes to *rp. */
static int
find_final(const tc_json *session, struct loaded *l, const char **rp,
    tc_error *err)
{
	const tc_json *step;

	memset(l, 0, sizeof(*l));
	l->root = tc_json_get_string(session, "artifact_root");
	if (l->root == NULL) {
		tc_error_set(err, "artifact_root must be a non-empty canonical "
		    "string");
		return -1;
	}
	if ((step = sealed_final_step(session)) == NULL ||
	    (*rp = tc_json_get_string(step, "result_path")) == NULL) {
		tc_error_set(err, "final phase is not sealed");
		return -1;
	}
	return 0;
}

/* With the result and ledger in l: the summary and, for a derived
 * session, its evidence import manifest. */
static int
load_rest(const tc_json *session, const tc_json *override, struct loaded *l,
    tc_error *err)
{
	const tc_json *fe = tc_json_get(l->ledger, "final_e2e"), *ei;
	const char *mp;
	tc_error sub = TC_ERROR_INIT;

	if (override != NULL) {
		if (tc_final_validate_report_summary(override, fe, l->root,
		    err) != 0)
			return -1;
		l->summary = override;
	} else {
		l->summary = tc_json_get(l->ledger, "report_summary");
		if (tc_json_is(l->summary, TC_JSON_NULL))
			l->summary = NULL;
	}
	ei = tc_json_get_object(session, "evidence_import");
	if (ei != NULL && (mp = tc_json_get_string(ei, "path")) != NULL) {
		l->manifest = read_under_root(l->root, mp, NULL, &sub);
		if (l->manifest == NULL) {
			tc_error_set(err, "evidence import cannot be read: %s",
			    tc_error_msg(&sub));
			tc_error_clear(&sub);
			return -1;
		}
		if (!tc_json_is(l->manifest, TC_JSON_OBJECT)) {
			tc_error_set(err, "evidence import must be a JSON object");
			return -1;
		}
	}
	return 0;
}

static int
load_inputs(const tc_json *session, const tc_json *override,
    struct loaded *l, tc_error *err)
{
	const char *rp;

	if (find_final(session, l, &rp, err) != 0)
		return -1;
	/* read without a digest check, as the reference does */
	l->result = l->owned_result = read_under_root(l->root, rp,
	    result_type_only, err);
	if (l->result == NULL)
		return -1;
	if (!tc_json_is(l->result, TC_JSON_OBJECT)) {
		tc_error_set(err, "phase result must be an object");
		goto fail;
	}
	l->ledger = l->owned_ledger = tc_final_load_ledger_value(l->root,
	    tc_json_get(l->result, "ledger_path"), err);
	if (l->ledger == NULL || load_rest(session, override, l, err) != 0)
		goto fail;
	return 0;
fail:
	loaded_free(l);
	return -1;
}

static char *
render_loaded(const tc_json *session, const struct loaded *l,
    enum tc_report_lang lang, tc_error *err)
{
	struct tc_final_report_input in = {
		session, l->result, l->ledger, l->summary, l->manifest, lang
	};

	return tc_report_final_render(&in, err);
}

char *
tc_report_final_md(const tc_json *session, const tc_json *summary_override,
    enum tc_report_lang lang, tc_error *err)
{
	struct loaded l;
	char *text;

	if (load_inputs(session, summary_override, &l, err) != 0)
		return NULL;
	text = render_loaded(session, &l, lang, err);
	loaded_free(&l);
	return text;
}

char *
tc_report_final_md_from(const tc_json *session, const tc_json *result,
    const tc_json *ledger, enum tc_report_lang lang, tc_error *err)
{
	struct loaded l;
	const char *rp;
	char *text = NULL;

	if (find_final(session, &l, &rp, err) != 0)
		return NULL;
	l.result = result;
	l.ledger = ledger;
	if (load_rest(session, NULL, &l, err) == 0)
		text = render_loaded(session, &l, lang, err);
	loaded_free(&l);
	return text;
}

/* Does target (resolved) name rel under root (resolved)? */
static bool
same_file(const char *target, const char *root, const char *rel)
{
	char *joined, *resolved;
	bool same;

	if (rel == NULL)
		return false;
	joined = tc_path_join(root, rel);
	resolved = tc_path_resolve(joined, NULL);
	same = resolved != NULL && strcmp(resolved, target) == 0;
	free(resolved);
	free(joined);
	return same;
}

/* Is target (resolved) inside <root>/<dir>? */
static bool
inside(const char *target, const char *root, const char *dir)
{
	char *joined = tc_path_join(root, dir);
	char *resolved = tc_path_resolve(joined, NULL);
	bool in = resolved != NULL && tc_path_is_within(target, resolved);

	free(resolved);
	free(joined);
	return in;
}

/*
 * The files a report must never replace: the session, the ledger, the
 * evidence import, and anything in the controller's append-only scene
 * directories (sealed results, phase reports, dispatch attempts and
 * receipts, phase-execution manifests and logs).
 */
static bool
is_sealed_evidence(const char *target, const tc_json *session,
    const char *session_path, const struct loaded *l)
{
	static const char *const scene_dirs[] = {
		"phases", "dispatches", "phase-executions", "imports"
	};
	const tc_json *steps = tc_json_get_array(session, "steps");
	size_t i;

	/* the session path is taken relative to the working directory */
	if (same_file(target, ".", session_path))
		return true;
	if (same_file(target, l->root, tc_json_get_string(l->result,
	    "ledger_path")) ||
	    same_file(target, l->root, tc_json_get_string(
	    tc_json_get(session, "evidence_import"), "path")))
		return true;
	for (i = 0; i < sizeof(scene_dirs) / sizeof(scene_dirs[0]); i++)
		if (inside(target, l->root, scene_dirs[i]))
			return true;
	/* result and receipt paths are relative artifact paths, so they
	 * normally lie in the scene directories; check them by name too */
	for (i = 0; steps != NULL && i < steps->u.arr.len; i++) {
		const tc_json *step = steps->u.arr.items[i];

		if (same_file(target, l->root, tc_json_get_string(step,
		    "result_path")) ||
		    same_file(target, l->root, tc_json_get_string(step,
		    "dispatch_receipt_path")))
			return true;
	}
	return false;
}

int
tc_report_write_final_at(const tc_json *session, const char *session_path,
    const char *output, const tc_json *summary_override,
    enum tc_report_lang lang, char **path_out, tc_error *err)
{
	struct loaded l;
	char *text = NULL, *target, *resolved = NULL;
	size_t len;
	int rc = -1;

	if (load_inputs(session, summary_override, &l, err) != 0)
		return -1;
	target = output != NULL ? tc_xstrdup(output) :
	    tc_path_join(l.root, "FINAL_E2E_REPORT.md");
	if ((resolved = tc_path_resolve(target, err)) == NULL)
		goto out;
	if (is_sealed_evidence(resolved, session, session_path, &l)) {
		tc_error_set(err, "report output must not replace sealed "
		    "evidence: %s", target);
		goto out;
	}
	if ((text = render_loaded(session, &l, lang, err)) == NULL)
		goto out;
	len = strlen(text);
	if (tc_write_atomic(target, text, len, TC_WRITE_MKDIRS, err) != 0)
		goto out;
	rc = 0;
	if (path_out != NULL) {
		*path_out = target;
		target = NULL;
	}
out:
	free(text);
	free(resolved);
	free(target);
	loaded_free(&l);
	return rc;
}

int
tc_report_write_final(const tc_json *session, const char *output,
    const tc_json *summary_override, enum tc_report_lang lang, char **path,
    tc_error *err)
{
	return tc_report_write_final_at(session, NULL, output, summary_override,
	    lang, path, err);
}
