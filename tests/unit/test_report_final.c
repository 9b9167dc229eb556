/*
 * test_report_final.c - FINAL_E2E_REPORT.md (docs/spec/reports.md
 * "Final E2E report"): byte-exact golden reports for fixed sessions built here
 * (the expectations are written from the specification's layout, not from the
 * renderer), the row selection and cell rules of the acceptance tests
 * (docs/spec/controller.md "Acceptance cases" #1, #2, #4-#9, #29, #36, #38),
 * the read-only --summary override, idempotence and the refusal to overwrite
 * sealed evidence.
 */
#include "test_final_fixture.h"

#include "tunectl/final.h"
#include "tunectl/report.h"

/* The golden texts are arrays of pieces (ISO C caps string literals at
 * 4095 bytes); join them. */
static char *
join(const char *const *pieces)
{
	tc_buf b = TC_BUF_INIT;

	for (; *pieces != NULL; pieces++)
		tc_buf_puts(&b, *pieces);
	return tc_buf_detach(&b, NULL);
}

static void assert_text(const char *actual, const char *expect);

static void
assert_golden(const char *actual, const char *const *pieces)
{
	char *expect = join(pieces);

	assert_text(actual, expect);
	free(expect);
}

/* Fail with the first differing line of two texts. */
static void
assert_text(const char *actual, const char *expect)
{
	const char *a = actual, *e = expect;
	int line = 1;

	if (strcmp(actual, expect) == 0)
		return;
	while (*a != '\0' && *e != '\0') {
		const char *na = strchr(a, '\n'), *ne = strchr(e, '\n');
		size_t la = na != NULL ? (size_t)(na - a) : strlen(a);
		size_t le = ne != NULL ? (size_t)(ne - e) : strlen(e);

		if (la != le || memcmp(a, e, la) != 0 || (na == NULL) != (ne == NULL))
			fail_msg("line %d differs:\n  expected: %.*s\n  actual:   "
			    "%.*s", line, (int)le, e, (int)la, a);
		if (na == NULL)
			break;
		a = na + 1;
		e = ne + 1;
		line++;
	}
	fail_msg("texts differ at line %d (length %zu vs expected %zu)", line,
	    strlen(actual), strlen(expect));
}

static void
assert_contains(const char *text, const char *needle)
{
	if (strstr(text, needle) == NULL)
		fail_msg("report lacks \"%s\"", needle);
}

static void
assert_lacks(const char *text, const char *needle)
{
	if (strstr(text, needle) != NULL)
		fail_msg("report unexpectedly contains \"%s\"", needle);
}

/* Render the report of session (Final on disk) with an optional override. */
static char *
render(const tc_json *session, const char *override, enum tc_report_lang lang)
{
	tc_json *ov = override != NULL ? fx_parse(override) : NULL;
	tc_error err = TC_ERROR_INIT;
	char *text = tc_report_final_md(session, ov, lang, &err);

	if (text == NULL)
		fail_msg("render failed: %s", tc_error_msg(&err));
	tc_json_free(ov);
	return text;
}

static char *
render_error(const tc_json *session, const char *override)
{
	tc_json *ov = override != NULL ? fx_parse(override) : NULL;
	tc_error err = TC_ERROR_INIT;
	char *text = tc_report_final_md(session, ov, TC_REPORT_ZH, &err);
	char *msg;

	if (text != NULL)
		fail_msg("render unexpectedly succeeded");
	msg = tc_xstrdup(tc_error_msg(&err));
	tc_error_clear(&err);
	tc_json_free(ov);
	return msg;
}

#define NA_CFG "N/A（未提供证据，不猜测默认值）"
#define STAGE_NA "；N/A：未提供关键测量，原因见阶段正文"

#define SECTIONS							\
	"## 环境与准备\n\n已结算。\n\n"					\
	"## S0 基线\n\n已结算。\n\n"					\
	"## Stage A 框定方式\n\n已结算。\n\n"				\
	"## Stage O Option\n\n已结算。\n\n"				\
	"## BASE Profile 与 SMAP\n\n已结算。\n\n"			\
	"## 可选实验\n\n已结算。\n\n"					\
	"## 最终 Clean E2E\n\n已结算。\n\n"

#define HANDOFFS							\
	"## 阶段交接\n"							\
	"\n"								\
	"- `intake-preparation` / `sk-intake-preparation`: `sealed`\n"	\
	"- `s0-baseline` / `sk-s0-baseline`: `sealed`\n"		\
	"- `stage-a-scope-selection` / `sk-stage-a-scope-selection`: `sealed`\n" \
	"- `stage-o-option-tuning` / `sk-stage-o-option-tuning`: `sealed`\n"	\
	"- `base-profile-source-mapping` / `sk-base-profile-source-mapping`: `sealed`\n" \
	"- `optional-experiments` / `sk-optional-experiments`: `sealed`\n"	\
	"- `final-e2e-report` / `sk-final-e2e-report`: `sealed`\n"

#define TABLE_HEAD							\
	"耗时单位 ms；耗时差 = 实验 \xe2\x88\x92 基线；改善率为正表示更快。"	\
	"不同测量口径不互算。\n"					\
	"screening / option / optional_clean 是阶段实验，profiling 是诊断，"	\
	"均不替代最终 clean E2E。\n"					\
	"\n"								\
	"| 阶段/候选 | 测量口径 | 基线耗时 ms | 实验耗时 ms | 耗时差 ms | "	\
	"改善率 | 运行数 | 门禁/状态 | 证据 |\n"				\
	"|---|---|---:|---:|---:|---:|---|---|---|\n"

/* docs/spec/controller.md "Acceptance cases" #1: a not_run Final with the
 * reference's report_summary(). */
static const char *const golden_not_run[] = {
	"# SuperKernel Auto Tune 最终 E2E 报告\n"
	"\n"
	"## 结果速览\n"
	"\n"
	"**未获得最终 E2E 验证的优胜者；最终 clean E2E 未执行。**\n"
	"\n"
	"- 最终 E2E 结论: 未执行 (`not_run`)\n"
	"- 判定依据: 依据最终 clean E2E 结算。\n"
	"\n",
	"## 关键数据对比\n"
	"\n"
	TABLE_HEAD
	"| S0（冻结基线） | TP worst-rank mean | 10.000000 | N/A | N/A | N/A | 5 "
	"| 五次基线稳定。 | `evidence.json` |\n"
	"| stage_a / S1 | screening / TP worst-rank mean | 10.000000 | 11.000000 "
	"| +1.000000 | -10.000000% | 3 | no_gain；收益未达标。；最佳已测尝试，"
	"未通过门禁，非优胜者 | `evidence.json` |\n"
	"| stage_o | option | N/A | N/A | N/A | N/A | N/A | "
	"stage-o-option-tuning: no_gain" STAGE_NA
	" | `phases/stage-o-option-tuning/phase-result.json` |\n"
	"| base_profile_source_mapping | profiling | N/A | N/A | N/A | N/A | N/A | "
	"base-profile-source-mapping: succeeded" STAGE_NA
	" | `phases/base-profile-source-mapping/phase-result.json` |\n"
	"| optional_experiments | optional_clean | N/A | N/A | N/A | N/A | N/A | "
	"optional-experiments: not_requested" STAGE_NA
	" | `phases/optional-experiments/phase-result.json` |\n"
	"| 最终 E2E / Sbest | final clean / median | N/A | N/A | N/A | N/A | N/A "
	"| not_run；依据最终 clean E2E 结算。 | N/A：未提供证据 |\n"
	"\n",
	"### 门禁与统计说明\n"
	"\n"
	"- stage_a / S1：阈值 1%；P90 不通过；stddev 不通过\n"
	"- 最终阈值 / P90 / stddev：N/A：未提供结构化门禁说明，见最终 Clean E2E 正文。\n"
	"- 运行数仅指独立进程次数；旧 final_e2e.sample_count 不自动解释为运行数。\n"
	"\n"
	"## 配置与建议\n"
	"\n"
	"- 优胜者：无。最佳尝试不是推荐配置。\n"
	"- 回退配置：S0\n"
	"- SK 框定方式: `SK-off`\n"
	"- 晋级路径: " NA_CFG "\n"
	"- Option 配置: " NA_CFG "\n"
	"- Optimize options: " NA_CFG "\n"
	"- Debug options: " NA_CFG "\n"
	"- 配置文件: " NA_CFG "\n"
	"- 配置 fingerprint: " NA_CFG "\n"
	"- 配置依据: 已验证并恢复 SK-off。\n"
	"- 配置证据: `evidence.json`\n"
	"\n",
	"## 会话与原始交接摘要\n"
	"\n"
	"- Session: `session-20260905-a`\n"
	"- Entrypoint: `full`\n"
	"- Optional mode: `none`\n"
	"- Final status: `not_run`\n"
	"\n"
	"final_e2e_report 阶段已结算。\n"
	"\n"
	"- 最终 E2E 结论: 未执行 (`not_run`)\n"
	"- Candidate: `Sbest`\n"
	"- SK 框定方式: `explicit_candidates`\n"
	"- Option 配置: `{\"auto_op_parallel\": true}`\n"
	"- 判定依据: 依据最终 clean E2E 结算。\n"
	"- E2E evidence: 无\n"
	"\n",
	SECTIONS,
	"## Ledger 汇总\n"
	"\n"
	"- Ledger: `ledger.json`\n"
	"- Active experiments: `0`\n"
	"\n"
	"## 自动结论\n"
	"\n"
	"- 最终 clean E2E 是唯一终局判定：未执行。\n"
	"- 下表中的单 SK 分类仅用于解释与溯源，不可替代最终 E2E 结论。\n"
	"\n"
	"| Experiment | Frozen config | Rounds | Lifecycle | Options | "
	"SK classification | Blockers |\n"
	"|---|---|---|---|---|---|---|\n"
	"\n"
	HANDOFFS,
	NULL
};

/* A beneficial Final on a legacy ledger (no report_summary): synthetic S0
 * row, run_count never taken from sample_count (docs/spec/controller.md
 * "Acceptance cases" #7), the ledger table of the reference's fixture
 * experiment (docs/spec/controller.md "Acceptance cases" #38). */
static const char *const golden_beneficial_legacy[] = {
	"# SuperKernel Auto Tune 最终 E2E 报告\n"
	"\n"
	"## 结果速览\n"
	"\n"
	"**调优成功，最终 clean E2E 有收益。**\n"
	"\n"
	"- 最终 E2E 结论: 有收益 (`beneficial`)\n"
	"- 判定依据: 依据最终 clean E2E 结算。\n"
	"\n",
	"## 关键数据对比\n"
	"\n"
	TABLE_HEAD
	"| S0（冻结基线） | final clean median | 10.000000 | N/A | N/A | N/A | N/A "
	"| 来自 final_e2e；独立进程数未提供，不将 sample_count 当作运行数 "
	"| `evidence.json` |\n"
	"| stage_a | screening | N/A | N/A | N/A | N/A | N/A | "
	"stage-a-scope-selection: accepted" STAGE_NA
	" | `phases/stage-a-scope-selection/phase-result.json` |\n"
	"| stage_o | option | N/A | N/A | N/A | N/A | N/A | "
	"stage-o-option-tuning: no_gain" STAGE_NA
	" | `phases/stage-o-option-tuning/phase-result.json` |\n"
	"| base_profile_source_mapping | profiling | N/A | N/A | N/A | N/A | N/A | "
	"base-profile-source-mapping: succeeded" STAGE_NA
	" | `phases/base-profile-source-mapping/phase-result.json` |\n"
	"| optional_experiments | optional_clean | N/A | N/A | N/A | N/A | N/A | "
	"optional-experiments: not_requested" STAGE_NA
	" | `phases/optional-experiments/phase-result.json` |\n"
	"| 最终 E2E / Sbest | final clean / median | 10.000000 | 9.000000 "
	"| -1.000000 | +10.000000% | 3 | beneficial；依据最终 clean E2E 结算。 "
	"| `evidence.json` |\n"
	"\n",
	"### 门禁与统计说明\n"
	"\n"
	"- 最终阈值 / P90 / stddev：N/A：未提供结构化门禁说明，见最终 Clean E2E 正文。\n"
	"- 运行数仅指独立进程次数；旧 final_e2e.sample_count 不自动解释为运行数。\n"
	"\n"
	"## 配置与建议\n"
	"\n"
	"- 优胜者：`Sbest`（最终 clean E2E 验证）\n"
	"- SK 框定方式: `explicit_candidates`\n"
	"- 晋级路径: " NA_CFG "\n"
	"- Option 配置: `{\"auto_op_parallel\": true}`\n"
	"- Optimize options: `{\"auto_op_parallel\": true}`\n"
	"- Debug options: " NA_CFG "\n"
	"- 配置文件: " NA_CFG "\n"
	"- 配置 fingerprint: " NA_CFG "\n"
	"- 配置依据: 依据最终 clean E2E 结算。\n"
	"- 配置证据: `evidence.json`\n"
	"\n",
	"## 会话与原始交接摘要\n"
	"\n"
	"- Session: `session-20260905-a`\n"
	"- Entrypoint: `full`\n"
	"- Optional mode: `none`\n"
	"- Final status: `accepted`\n"
	"\n"
	"final_e2e_report 阶段已结算。\n"
	"\n"
	"- 最终 E2E 结论: 有收益 (`beneficial`)\n"
	"- Candidate: `Sbest`\n"
	"- SK 框定方式: `explicit_candidates`\n"
	"- Option 配置: `{\"auto_op_parallel\": true}`\n"
	"- 判定依据: 依据最终 clean E2E 结算。\n"
	"- Baseline clean E2E median: `10.0` ms\n"
	"- Candidate clean E2E median: `9.0` ms\n"
	"- 收益率: `10.000000%`\n"
	"- E2E evidence: `evidence.json`\n"
	"\n",
	SECTIONS,
	"## Ledger 汇总\n"
	"\n"
	"- Ledger: `ledger.json`\n"
	"- Active experiments: `1`\n"
	"\n"
	"## 自动结论\n"
	"\n"
	"- 最终 clean E2E 是唯一终局判定：有收益。\n"
	"- 下表中的单 SK 分类仅用于解释与溯源，不可替代最终 E2E 结论。\n"
	"\n"
	"| Experiment | Frozen config | Rounds | Lifecycle | Options | "
	"SK classification | Blockers |\n"
	"|---|---|---|---|---|---|---|\n"
	"| `Sbest` | source_revision=revision-abc; "
	"baseline_config_fingerprint=config-123 | Sbest-BASE | "
	"correctness=passed, clean=passed, profiling=passed | /auto_op_parallel "
	"| beneficial=1, neutral=1 | 0 |\n"
	"\n"
	HANDOFFS,
	NULL
};

#define FINAL_E2E_BENEFICIAL_RUNS					\
	"{\"classification\": \"beneficial\", \"candidate_id\": \"Sbest\","	\
	" \"scope_strategy\": \"explicit_candidates\","			\
	" \"option_config\": {\"auto_op_parallel\": true},"		\
	" \"evidence_artifacts\": [\"evidence.json\"],"			\
	" \"reason_zh\": \"依据最终 clean E2E 结算。\","			\
	" \"baseline\": {\"median_ms\": 10.0, \"sample_count\": 5},"	\
	" \"candidate\": {\"median_ms\": 9.0, \"sample_count\": 120,"	\
	" \"run_count\": 3}, \"improvement_pct\": 10.0}"

struct fx {
	char *root;
	tc_json *session;
};

static void
fx_not_run(struct fx *f, const char *summary)
{
	f->root = fx_mkroot();
	f->session = fx_final_on_disk(f->root, "not_run",
	    fx_ledger(FX_FINAL_E2E_NOT_RUN, "{}"), summary);
}

static void
fx_beneficial(struct fx *f, const char *summary)
{
	f->root = fx_mkroot();
	f->session = fx_final_on_disk(f->root, "accepted",
	    fx_ledger(FINAL_E2E_BENEFICIAL_RUNS, FX_EXPERIMENTS), summary);
}

static void
fx_done(struct fx *f)
{
	tc_json_free(f->session);
	fx_rmrf(f->root);
}

/* A summary string with stage rows replaced by rows (a JSON array). */
static char *
summary_with_stages(const char *rows)
{
	tc_json *s = fx_parse(FX_SUMMARY);
	tc_error err = TC_ERROR_INIT;
	char *text;

	fx_set(s, "stages", rows);
	text = tc_json_canonical(s, NULL, &err);
	assert_non_null(text);
	tc_json_free(s);
	return text;
}

/* ---- golden reports --------------------------------------------------------- */

static void
test_golden_not_run_report_with_summary(void **state)
{
	struct fx f;
	char *text;

	(void)state;
	fx_not_run(&f, FX_SUMMARY);
	text = render(f.session, NULL, TC_REPORT_ZH);
	assert_golden(text, golden_not_run);
	free(text);
	fx_done(&f);
}

static void
test_golden_beneficial_report_of_a_legacy_ledger(void **state)
{
	struct fx f;
	char *text;

	(void)state;
	fx_beneficial(&f, NULL);
	text = render(f.session, NULL, TC_REPORT_ZH);
	assert_golden(text, golden_beneficial_legacy);
	free(text);
	fx_done(&f);
}

/* docs/spec/controller.md "Acceptance cases" #1 */
static void
test_failure_report_starts_with_comparison_and_keeps_best_attempt(void **state)
{
	struct fx f;
	char *text;

	(void)state;
	fx_not_run(&f, FX_SUMMARY);
	text = render(f.session, NULL, TC_REPORT_ZH);
	assert_true(strstr(text, "## 结果速览") < strstr(text, "Session:"));
	assert_true(strstr(text, "## 关键数据对比") < strstr(text, "## 配置与建议"));
	assert_contains(text, "10.000000");
	assert_contains(text, "11.000000");
	assert_contains(text, "+1.000000");
	assert_contains(text, "-10.000000%");
	assert_contains(text, "未通过门禁，非优胜者");
	assert_contains(text, "优胜者：无");
	assert_contains(text, "最终 E2E 结论: 未执行");
	assert_contains(text, "P90 不通过");
	free(text);
	fx_done(&f);
}

/* docs/spec/controller.md "Acceptance cases" #2, the rendering half: a legacy
 * ledger renders with N/A. */
static void
test_legacy_not_run_ledger_renders_na_rows(void **state)
{
	struct fx f;
	char *text;

	(void)state;
	fx_not_run(&f, NULL);
	text = render(f.session, NULL, TC_REPORT_ZH);
	assert_contains(text, "| S0（冻结基线） | N/A | N/A | N/A | N/A | N/A | N/A "
	    "| N/A：旧账本未提供结构化基线 | N/A：未提供证据 |\n");
	assert_contains(text, "- 回退配置：N/A：未提供已验证回退配置，不推断默认 SK-off\n");
	assert_contains(text, "- 配置依据: N/A：缺少配置证据\n- 配置证据: N/A\n");
	assert_lacks(text, "11.000000");
	free(text);
	fx_done(&f);
}

/* docs/spec/controller.md "Acceptance cases" #4 */
static void
test_success_summary_binds_winner_to_final_configuration(void **state)
{
	static const char winner[] =
	    "{\"candidate_id\": \"Sbest\", \"scope_strategy\": \"explicit_candidates\","
	    " \"option_config\": {\"auto_op_parallel\": true},"
	    " \"debug_option_config\": {}, \"promotion_path\": \"whole-scope\","
	    " \"config_path\": \"evidence.json\", \"config_fingerprint\": \"config-123\","
	    " \"reason_zh\": \"最终 clean E2E 通过。\","
	    " \"evidence_artifacts\": [\"evidence.json\"]}";
	struct fx f;
	tc_json *s = fx_parse(FX_SUMMARY);
	tc_error err = TC_ERROR_INIT;
	char *summary, *text, *msg;

	(void)state;
	fx_set(s, "winner", winner);
	summary = tc_json_canonical(s, NULL, &err);
	fx_beneficial(&f, summary);
	text = render(f.session, NULL, TC_REPORT_ZH);
	assert_contains(text, "- 优胜者：`Sbest`（最终 clean E2E 验证）\n");
	assert_contains(text, "- 晋级路径: `whole-scope`\n");
	assert_contains(text, "- 配置 fingerprint: `config-123`\n");
	assert_contains(text, "- 配置文件: `evidence.json`\n");
	assert_contains(text, "Debug options: `{}`");
	assert_contains(text, "+10.000000%");
	assert_contains(text, "- 配置依据: 最终 clean E2E 通过。\n");
	assert_lacks(text, "回退配置");
	free(text);

	fx_set(tc_json_get(s, "winner"), "candidate_id", "\"fake-winner\"");
	free(summary);
	summary = tc_json_canonical(s, NULL, &err);
	msg = render_error(f.session, summary);
	assert_string_equal(msg, "report_summary winner candidate_id differs "
	    "from final_e2e");
	free(msg);
	free(summary);
	tc_json_free(s);
	fx_done(&f);
}

#define ROW(id, rank, ms, extra)					\
	"{\"stage\": \"stage_a\", \"kind\": \"screening\", \"candidate_id\": \"" id "\","	\
	" \"metric\": \"TP worst-rank mean\", \"baseline_ms\": 10.0,"	\
	" \"candidate_ms\": " ms ", \"run_count\": 3, \"selector_rank\": " rank ","	\
	" \"reason_zh\": \"r\", \"gates_zh\": \"g\","			\
	" \"evidence_artifacts\": [\"evidence.json\"]" extra "}"

/* docs/spec/controller.md "Acceptance cases" #5 */
static void
test_summary_uses_selector_rank_and_accepted_candidate_before_best_attempt(
    void **state)
{
	struct fx f;
	char *summary = summary_with_stages("["
	    ROW("S1", "1", "11.0", ", \"eligible\": false, \"status\": \"no_gain\"") ","
	    ROW("S2", "2", "10.5", ", \"eligible\": false, \"status\": \"no_gain\"")
	    "]");
	char *override = summary_with_stages("["
	    ROW("S1", "1", "11.0", ", \"eligible\": false, \"status\": \"no_gain\"") ","
	    ROW("S2", "2", "10.5", ", \"eligible\": true, \"status\": \"accepted\"")
	    "]");
	char *text;

	(void)state;
	fx_not_run(&f, summary);
	text = render(f.session, NULL, TC_REPORT_ZH);
	assert_contains(text, "| stage_a / S1 |");
	assert_lacks(text, "stage_a / S2");
	free(text);
	text = render(f.session, override, TC_REPORT_ZH);
	assert_contains(text, "| stage_a / S2 | screening / TP worst-rank mean "
	    "| 10.000000 | 10.500000 | +0.500000 | -5.000000% | 3 | accepted；r |");
	assert_lacks(text, "stage_a / S1");
	free(text);
	free(summary);
	free(override);
	fx_done(&f);
}

/* Without ranks, the lower time wins; unmeasured rows come last; ties go
 * to the smaller candidate_id; each metric gets its own row. */
static void
test_row_selection_orders_by_time_then_id_per_metric(void **state)
{
	struct fx f;
	char *summary = summary_with_stages("["
	    "{\"stage\": \"stage_o\", \"kind\": \"option\", \"candidate_id\": \"O9\","
	    " \"metric\": \"TP worst-rank mean\", \"eligible\": false,"
	    " \"status\": \"failed\", \"reason_zh\": \"未测\", \"gates_zh\": \"g9\"},"
	    "{\"stage\": \"stage_o\", \"kind\": \"option\", \"candidate_id\": \"O2\","
	    " \"metric\": \"TP worst-rank mean\", \"baseline_ms\": 10.0,"
	    " \"candidate_ms\": 10.2, \"run_count\": 3, \"eligible\": false,"
	    " \"status\": \"no_gain\", \"reason_zh\": \"慢\", \"gates_zh\": \"g2\","
	    " \"evidence_artifacts\": [\"evidence.json\"]},"
	    "{\"stage\": \"stage_o\", \"kind\": \"option\", \"candidate_id\": \"O1\","
	    " \"metric\": \"TP worst-rank mean\", \"baseline_ms\": 10.0,"
	    " \"candidate_ms\": 10.2, \"run_count\": 4, \"eligible\": false,"
	    " \"status\": \"no_gain\", \"reason_zh\": \"慢\", \"gates_zh\": \"g1\","
	    " \"evidence_artifacts\": [\"evidence.json\"]},"
	    "{\"stage\": \"stage_o\", \"kind\": \"option\", \"candidate_id\": \"P1\","
	    " \"metric\": \"prefill mean\", \"candidate_ms\": 5, \"run_count\": 3,"
	    " \"eligible\": false, \"status\": \"no_gain\", \"reason_zh\": \"另一口径\","
	    " \"gates_zh\": \"gp\", \"evidence_artifacts\": [\"evidence.json\"]}"
	    "]");
	char *text;
	const char *o1, *p1;

	(void)state;
	fx_not_run(&f, summary);
	text = render(f.session, NULL, TC_REPORT_ZH);
	o1 = strstr(text, "| stage_o / O1 | option / TP worst-rank mean | 10.000000 "
	    "| 10.200000 | +0.200000 | -2.000000% | 4 | no_gain；慢；最佳已测尝试，"
	    "未通过门禁，非优胜者 | `evidence.json` |\n");
	p1 = strstr(text, "| stage_o / P1 | option / prefill mean | N/A | 5.000000 "
	    "| N/A | N/A | 3 | no_gain；另一口径；最佳已测尝试，未通过门禁，非优胜者 "
	    "| `evidence.json` |\n");
	assert_non_null(o1);
	assert_non_null(p1);
	assert_true(o1 < p1);
	assert_lacks(text, "stage_o / O2");
	assert_lacks(text, "stage_o / O9");
	/* stage_a has no rows any more: its placeholder has no gate line */
	assert_contains(text, "\n\n- stage_o / O1：g1\n- stage_o / P1：gp\n"
	    "- 最终阈值");
	free(text);
	free(summary);
	fx_done(&f);
}

/* docs/spec/controller.md "Acceptance cases" #6 */
static void
test_missing_nested_option_map_is_not_reported_as_effective_options(
    void **state)
{
	struct fx f;
	tc_json *s = fx_parse(FX_SUMMARY);
	tc_error err = TC_ERROR_INIT;
	char *summary, *text;

	(void)state;
	fx_set(tc_json_get(s, "fallback"), "option_config",
	    "{\"super_kernel_debug_options\": {}}");
	summary = tc_json_canonical(s, NULL, &err);
	fx_not_run(&f, summary);
	text = render(f.session, NULL, TC_REPORT_ZH);
	assert_contains(text, "- Option 配置: `{\"super_kernel_debug_options\": {}}`\n");
	assert_contains(text, "- Optimize options: " NA_CFG "\n");
	assert_contains(text, "- Debug options: `{}`\n");
	free(text);
	free(summary);
	tc_json_free(s);
	fx_done(&f);
}

/* Nested maps: optimize from super_kernel_optimize_options, debug from
 * debug_option_config when the nested debug map is absent. */
static void
test_nested_optimize_options_and_debug_fallback(void **state)
{
	struct fx f;
	tc_json *s = fx_parse(FX_SUMMARY);
	tc_error err = TC_ERROR_INIT;
	char *summary, *text;

	(void)state;
	fx_set(tc_json_get(s, "fallback"), "option_config",
	    "{\"super_kernel_optimize_options\": {\"b\": [1, 2], \"a\": \"x\"}}");
	fx_set(tc_json_get(s, "fallback"), "debug_option_config",
	    "{\"sync\": false}");
	summary = tc_json_canonical(s, NULL, &err);
	fx_not_run(&f, summary);
	text = render(f.session, NULL, TC_REPORT_ZH);
	assert_contains(text, "- Optimize options: `{\"a\": \"x\", \"b\": [1, 2]}`\n");
	assert_contains(text, "- Debug options: `{\"sync\": false}`\n");
	free(text);
	free(summary);
	tc_json_free(s);
	fx_done(&f);
}

/* docs/spec/controller.md "Acceptance cases" #7 */
static void
test_final_run_count_does_not_reuse_sample_count(void **state)
{
	struct fx f;
	char *text;
	const char *row, *end;

	(void)state;
	fx_beneficial(&f, FX_SUMMARY);
	text = render(f.session, NULL, TC_REPORT_ZH);
	row = strstr(text, "| 最终 E2E");
	assert_non_null(row);
	end = strchr(row, '\n');
	assert_non_null(strstr(row, "| 3 |"));
	assert_true(strstr(row, "| 3 |") < end);
	assert_true(strstr(row, "120") == NULL || strstr(row, "120") > end);
	free(text);
	fx_done(&f);
}

/* docs/spec/controller.md "Acceptance cases" #9 */
static void
test_summary_table_escapes_markdown_and_keeps_profile_diagnostic(void **state)
{
	struct fx f;
	char *summary = summary_with_stages("["
	    "{\"stage\": \"stage_a\", \"kind\": \"screening\", \"candidate_id\": \"S1\","
	    " \"metric\": \"TP worst-rank mean\", \"baseline_ms\": 10.0,"
	    " \"candidate_ms\": 11.0, \"run_count\": 3, \"eligible\": false,"
	    " \"status\": \"no_gain\", \"reason_zh\": \"失败|原因\\n下一行\","
	    " \"gates_zh\": \"g\", \"evidence_artifacts\": [\"evidence.json\"]},"
	    "{\"stage\": \"base_profile_source_mapping\", \"kind\": \"profiling\","
	    " \"candidate_id\": \"Sbest-BASE\", \"metric\": \"profile SK sum\","
	    " \"baseline_ms\": 20.0, \"candidate_ms\": 18.0, \"run_count\": 3,"
	    " \"eligible\": false, \"status\": \"succeeded\", \"reason_zh\": \"诊断\","
	    " \"gates_zh\": \"仅诊断\", \"evidence_artifacts\": [\"evidence.json\"]}]");
	char *text;

	(void)state;
	fx_not_run(&f, summary);
	text = render(f.session, NULL, TC_REPORT_ZH);
	assert_contains(text, "no_gain；失败\\|原因<br>下一行；最佳已测尝试");
	assert_contains(text, "| base_profile_source_mapping / Sbest-BASE | "
	    "profiling / profile SK sum | 20.000000 | 18.000000 | -2.000000 | "
	    "+10.000000% | 3 | succeeded；诊断；仅诊断，非优胜者 | `evidence.json` |\n");
	assert_contains(text, "最终 E2E 结论: 未执行");
	free(text);
	free(summary);
	fx_done(&f);
}

/* Only optional_* rows suppress the optional_experiments N/A row. */
static void
test_optional_rows_replace_the_optional_placeholder(void **state)
{
	struct fx f;
	char *summary = summary_with_stages("["
	    "{\"stage\": \"optional_multistream\", \"kind\": \"optional_clean\","
	    " \"candidate_id\": \"M1\", \"metric\": \"TP worst-rank mean\","
	    " \"eligible\": false, \"status\": \"not_run\", \"reason_zh\": \"未请求\","
	    " \"gates_zh\": \"无\"}]");
	char *text;

	(void)state;
	fx_not_run(&f, summary);
	text = render(f.session, NULL, TC_REPORT_ZH);
	/* no multistream step in a "none" session: the row still renders,
	 * the placeholder of optional_experiments does not */
	assert_contains(text, "| optional_multistream / M1 | optional_clean / "
	    "TP worst-rank mean | N/A | N/A | N/A | N/A | N/A | not_run；未请求 | "
	    "N/A：未提供证据 |\n");
	assert_lacks(text, "| optional_experiments | optional_clean |");
	assert_contains(text, "| stage_a | screening |");
	free(text);
	free(summary);
	fx_done(&f);
}

static void
test_final_gates_and_display_note_are_rendered(void **state)
{
	struct fx f;
	tc_json *s = fx_parse(FX_SUMMARY);
	tc_error err = TC_ERROR_INIT;
	char *summary, *text;

	(void)state;
	fx_set(s, "final_gates_zh", "\"阈值 2%；P90 通过；stddev 通过\"");
	fx_set(s, "display_note_zh", "\"注意|这里\\n第二行\"");
	summary = tc_json_canonical(s, NULL, &err);
	fx_not_run(&f, summary);
	text = render(f.session, NULL, TC_REPORT_ZH);
	assert_contains(text, "- 最终阈值 / P90 / stddev：阈值 2%；P90 通过；stddev 通过\n");
	assert_contains(text, "- 配置证据: `evidence.json`\n\n> 注意\\|这里<br>第二行\n\n"
	    "## 会话与原始交接摘要\n");
	free(text);
	free(summary);
	tc_json_free(s);
	fx_done(&f);
}

/* docs/spec/controller.md "Acceptance cases" #36: every terminal class renders
 * its label and custom summary. */
static void
test_every_terminal_class_renders_its_label(void **state)
{
	static const struct {
		const char *classification, *status, *label, *sentence;
	} classes[] = {
		{ "no_gain", "no_gain", "无收益", "最终 clean E2E 无收益，未产生终局优胜者" },
		{ "failed", "failed", "失败或阻塞", "最终验证失败，未产生终局优胜者" },
		{ "blocked", "blocked", "失败或阻塞", "调优阻塞，未产生终局优胜者" },
		{ "not_run", "not_run", "未执行",
		  "未获得最终 E2E 验证的优胜者；最终 clean E2E 未执行" },
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(classes) / sizeof(classes[0]); i++) {
		tc_json *ledger = fx_ledger(FX_FINAL_E2E_BENEFICIAL, "{}");
		tc_json *fe = tc_json_get(ledger, "final_e2e");
		tc_json *result = fx_final_result(classes[i].status);
		char *root = fx_mkroot(), *cls, *text, *expect;
		tc_json *session;

		cls = tc_xasprintf("\"%s\"", classes[i].classification);
		fx_set(fe, "classification", cls);
		fx_set(tc_json_get(fe, "candidate"), "median_ms", "10.0");
		fx_set(fe, "improvement_pct", "0.0");
		fx_set(result, "summary_zh", "\"预算耗尽，保留基线。\"");
		session = fx_final_on_disk(root, classes[i].status, ledger,
		    FX_SUMMARY);
		fx_write_json(root, "phases/final-e2e-report/phase-result.json",
		    result);
		text = render(session, NULL, TC_REPORT_ZH);
		expect = tc_xasprintf("**%s。**\n\n- 最终 E2E 结论: %s (`%s`)\n",
		    classes[i].sentence, classes[i].label,
		    classes[i].classification);
		assert_contains(text, expect);
		assert_contains(text, "\n预算耗尽，保留基线。\n");
		assert_contains(text, "10.000000");
		assert_contains(text, "优胜者：无");
		if (strcmp(classes[i].classification, "no_gain") == 0)
			/* measured: the final row compares equal medians */
			assert_contains(text, "| 10.000000 | 10.000000 | +0.000000 "
			    "| -0.000000% | N/A | no_gain；");
		else
			assert_contains(text, "| 最终 E2E / Sbest | final clean / "
			    "median | N/A | N/A | N/A | N/A | N/A |");
		free(expect);
		free(text);
		free(cls);
		tc_json_free(result);
		tc_json_free(session);
		fx_rmrf(root);
	}
}

/* docs/spec/controller.md "Acceptance cases" #10 / #29: derived sessions name
 * their import. */
static void
test_derived_session_names_its_imported_parent(void **state)
{
	struct fx f;
	char *text;
	const char *p;

	(void)state;
	fx_not_run(&f, NULL);
	fx_set(f.session, "entrypoint", "\"source-range-from-smap\"");
	fx_set(f.session, "evidence_import", "{\"path\": "
	    "\"imports/evidence-import.json\", \"sha256\": \"00\"}");
	fx_write(f.root, "imports/evidence-import.json", "{\"parent\": "
	    "{\"session_id\": \"parent-session\"}, \"base_handoff\": "
	    "{\"step_id\": \"base-profile-source-mapping\", \"result_sha256\": "
	    "\"abc123\"}}");
	text = render(f.session, NULL, TC_REPORT_ZH);
	assert_contains(text, "- Entrypoint: `source-range-from-smap`\n");
	p = strstr(text, "- 判定依据: 依据最终 clean E2E 结算。\n"
	    "- Imported parent: `parent-session`\n"
	    "- Imported BASE/SMAP: `base-profile-source-mapping` / `abc123`\n"
	    "- E2E evidence: 无\n");
	assert_non_null(p);
	free(text);
	fx_done(&f);
}

/* ---- --lang en ------------------------------------------------------------ */

static size_t
count_lines(const char *s)
{
	size_t n = 0;

	for (; *s != '\0'; s++)
		n += *s == '\n';
	return n;
}

static void
test_english_report_keeps_layout_and_numbers(void **state)
{
	struct fx f;
	char *zh, *en;

	(void)state;
	fx_not_run(&f, FX_SUMMARY);
	zh = render(f.session, NULL, TC_REPORT_ZH);
	en = render(f.session, NULL, TC_REPORT_EN);
	assert_int_equal(count_lines(en), count_lines(zh));
	assert_true(strncmp(en, "# SuperKernel Auto Tune Final E2E Report\n\n"
	    "## Result Overview\n\n**No winner verified by a final E2E; the final "
	    "clean E2E was not run.**\n\n- Final E2E verdict: not run (`not_run`)\n",
	    strlen("# SuperKernel Auto Tune Final E2E Report\n\n## Result "
	    "Overview\n\n**No winner verified by a final E2E; the final clean E2E "
	    "was not run.**\n\n- Final E2E verdict: not run (`not_run`)\n")) == 0);
	assert_contains(en, "| Stage/candidate | Metric | Baseline ms | Candidate ms "
	    "| Delta ms | Improvement | Runs | Gate/status | Evidence |\n");
	assert_contains(en, "| S0 (frozen baseline) | TP worst-rank mean | 10.000000 "
	    "| N/A | N/A | N/A | 5 | 五次基线稳定。 | `evidence.json` |\n");
	assert_contains(en, "| stage_a / S1 | screening / TP worst-rank mean | "
	    "10.000000 | 11.000000 | +1.000000 | -10.000000% | 3 | no_gain; 收益未达标。; "
	    "best measured attempt, failed the gates, not a winner | `evidence.json` |\n");
	assert_contains(en, "- Winner: none. The best attempt is not a recommended "
	    "configuration.\n- Fallback configuration: S0\n");
	assert_contains(en, "## Environment and Preparation\n\n已结算。\n");
	assert_contains(en, "## Phase Handoffs\n");
	assert_contains(en, "- The final clean E2E is the only terminal verdict: "
	    "not run.\n");
	assert_lacks(en, "## 关键数据对比");
	assert_lacks(en, "优胜者");
	assert_lacks(en, "阶段/候选");
	assert_lacks(en, "N/A：");
	free(zh);
	free(en);
	fx_done(&f);
}

/* ---- loading, writing, read-only override ---------------------------------- */

static void
test_render_requires_a_sealed_final(void **state)
{
	char *root = fx_mkroot();
	tc_json *session = fx_session(root, NULL);
	char *msg = render_error(session, NULL);

	(void)state;
	assert_string_equal(msg, "final phase is not sealed");
	free(msg);
	tc_json_free(session);
	fx_rmrf(root);
}

static void
test_render_reports_a_missing_result_file(void **state)
{
	char *root = fx_mkroot();
	tc_json *session = fx_session(root, "not_run");
	char *msg = render_error(session, NULL);
	char *expect = tc_xasprintf("[Errno 2] No such file or directory: "
	    "'%s/phases/final-e2e-report/phase-result.json'", root);

	(void)state;
	assert_string_equal(msg, expect);
	free(expect);
	free(msg);
	tc_json_free(session);
	fx_rmrf(root);
}

static void
test_render_revalidates_the_ledger(void **state)
{
	struct fx f;
	char *msg;

	(void)state;
	fx_not_run(&f, FX_SUMMARY);
	{
		char *ev = tc_xasprintf("%s/evidence.json", f.root);

		assert_int_equal(unlink(ev), 0);
		free(ev);
	}
	msg = render_error(f.session, NULL);
	assert_string_equal(msg, "report_summary measurement evidence missing or "
	    "outside artifact root: evidence.json");
	free(msg);
	fx_done(&f);
}

static void
test_invalid_override_is_refused(void **state)
{
	struct fx f;
	char *msg;

	(void)state;
	fx_not_run(&f, NULL);
	msg = render_error(f.session, "{\"schema_version\": \"x\"}");
	assert_string_equal(msg, "report_summary schema_version is invalid");
	free(msg);
	fx_done(&f);
}

static void
test_rendering_is_idempotent(void **state)
{
	struct fx f;
	tc_error err = TC_ERROR_INIT;
	char *path = NULL, *first, *second, *expect_path, *text;

	(void)state;
	fx_not_run(&f, FX_SUMMARY);
	assert_int_equal(tc_report_write_final(f.session, NULL, NULL,
	    TC_REPORT_ZH, &path, &err), 0);
	expect_path = tc_xasprintf("%s/FINAL_E2E_REPORT.md", f.root);
	assert_string_equal(path, expect_path);
	first = fx_read(expect_path);
	assert_int_equal(tc_report_write_final(f.session, NULL, NULL,
	    TC_REPORT_ZH, NULL, &err), 0);
	second = fx_read(expect_path);
	assert_string_equal(first, second);
	text = render(f.session, NULL, TC_REPORT_ZH);
	assert_string_equal(first, text);
	assert_golden(first, golden_not_run);
	free(text);
	free(first);
	free(second);
	free(expect_path);
	free(path);
	fx_done(&f);
}

/* docs/spec/controller.md "Acceptance cases" #2: the override is read-only --
 * every existing file keeps its bytes; only the requested output appears. */
static void
test_summary_override_is_read_only(void **state)
{
	static const char *const files[] = {
		"ledger.json", "evidence.json",
		"phases/final-e2e-report/phase-result.json"
	};
	struct fx f;
	tc_error err = TC_ERROR_INIT;
	char *before[3], *out, *path = NULL, *report, *final_report;
	tc_json *override = fx_parse(FX_SUMMARY);
	size_t i;

	(void)state;
	fx_not_run(&f, NULL);
	for (i = 0; i < 3; i++) {
		char *p = tc_xasprintf("%s/%s", f.root, files[i]);

		before[i] = fx_read(p);
		free(p);
	}
	out = tc_xasprintf("%s/out/REPORT.summary.md", f.root);
	assert_int_equal(tc_report_write_final(f.session, out, override,
	    TC_REPORT_ZH, &path, &err), 0);
	assert_string_equal(path, out);
	report = fx_read(out);
	assert_non_null(report);
	assert_contains(report, "11.000000");
	for (i = 0; i < 3; i++) {
		char *p = tc_xasprintf("%s/%s", f.root, files[i]);
		char *now = fx_read(p);

		assert_string_equal(now, before[i]);
		free(now);
		free(before[i]);
		free(p);
	}
	final_report = tc_xasprintf("%s/FINAL_E2E_REPORT.md", f.root);
	assert_false(access(final_report, F_OK) == 0);
	free(final_report);
	free(report);
	free(path);
	free(out);
	tc_json_free(override);
	fx_done(&f);
}

static void
test_report_never_replaces_sealed_evidence(void **state)
{
	static const char *const targets[] = {
		"ledger.json", "phases/final-e2e-report/phase-result.json",
		"phases/s0-baseline/PHASE_REPORT.md",
		"phases/./s0-baseline/../s0-baseline/phase-result.json",
		"phases/new-file.md",
		"dispatches/s0-baseline-attempt-001/runner.stdout.log",
		"imports/evidence-import.json",
	};
	struct fx f;
	tc_error err = TC_ERROR_INIT;
	size_t i;

	(void)state;
	fx_not_run(&f, NULL);
	fx_write(f.root, "phases/s0-baseline/PHASE_REPORT.md", "sealed\n");
	for (i = 0; i < sizeof(targets) / sizeof(targets[0]); i++) {
		char *out = tc_xasprintf("%s/%s", f.root, targets[i]);
		char *before = fx_read(out), *after, *expect;

		assert_int_equal(tc_report_write_final(f.session, out, NULL,
		    TC_REPORT_ZH, NULL, &err), -1);
		expect = tc_xasprintf("report output must not replace sealed "
		    "evidence: %s", out);
		fx_assert_error(&err, expect);
		after = fx_read(out);
		if (before != NULL)
			assert_string_equal(before, after);
		free(expect);
		free(before);
		free(after);
		free(out);
	}
	tc_error_clear(&err);
	fx_done(&f);
}

static void
test_report_does_not_replace_the_session_file(void **state)
{
	struct fx f;
	tc_error err = TC_ERROR_INIT;
	char *session_path;

	(void)state;
	fx_not_run(&f, NULL);
	fx_write_json(f.root, "auto-tune-session.json", f.session);
	session_path = tc_xasprintf("%s/auto-tune-session.json", f.root);
	assert_int_equal(tc_report_write_final_at(f.session, session_path,
	    session_path, NULL, TC_REPORT_ZH, NULL, &err), -1);
	assert_non_null(strstr(tc_error_msg(&err), "must not replace sealed"));
	tc_error_clear(&err);
	free(session_path);
	fx_done(&f);
}

static void
test_read_summary_reports_python_errors(void **state)
{
	char *root = fx_mkroot();
	char *path = tc_xasprintf("%s/summary.json", root);
	tc_error err = TC_ERROR_INIT;
	char *expect;

	(void)state;
	expect = tc_xasprintf("report_summary cannot be read: [Errno 2] No such "
	    "file or directory: '%s'", path);
	assert_null(tc_report_read_summary(path, &err));
	fx_assert_error(&err, expect);
	free(expect);
	fx_write(root, "summary.json", "[1]");
	assert_null(tc_report_read_summary(path, &err));
	fx_assert_error(&err, "report_summary must be a JSON object");
	fx_write(root, "summary.json", "{");
	assert_null(tc_report_read_summary(path, &err));
	fx_assert_error(&err, "report_summary cannot be read: Expecting property "
	    "name enclosed in double quotes: line 1 column 2 (char 1)");
	tc_error_clear(&err);
	free(path);
	fx_rmrf(root);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_golden_not_run_report_with_summary),
		cmocka_unit_test(test_golden_beneficial_report_of_a_legacy_ledger),
		cmocka_unit_test(test_failure_report_starts_with_comparison_and_keeps_best_attempt),
		cmocka_unit_test(test_legacy_not_run_ledger_renders_na_rows),
		cmocka_unit_test(test_success_summary_binds_winner_to_final_configuration),
		cmocka_unit_test(test_summary_uses_selector_rank_and_accepted_candidate_before_best_attempt),
		cmocka_unit_test(test_row_selection_orders_by_time_then_id_per_metric),
		cmocka_unit_test(test_missing_nested_option_map_is_not_reported_as_effective_options),
		cmocka_unit_test(test_nested_optimize_options_and_debug_fallback),
		cmocka_unit_test(test_final_run_count_does_not_reuse_sample_count),
		cmocka_unit_test(test_summary_table_escapes_markdown_and_keeps_profile_diagnostic),
		cmocka_unit_test(test_optional_rows_replace_the_optional_placeholder),
		cmocka_unit_test(test_final_gates_and_display_note_are_rendered),
		cmocka_unit_test(test_every_terminal_class_renders_its_label),
		cmocka_unit_test(test_derived_session_names_its_imported_parent),
		cmocka_unit_test(test_english_report_keeps_layout_and_numbers),
		cmocka_unit_test(test_render_requires_a_sealed_final),
		cmocka_unit_test(test_render_reports_a_missing_result_file),
		cmocka_unit_test(test_render_revalidates_the_ledger),
		cmocka_unit_test(test_invalid_override_is_refused),
		cmocka_unit_test(test_rendering_is_idempotent),
		cmocka_unit_test(test_summary_override_is_read_only),
		cmocka_unit_test(test_report_never_replaces_sealed_evidence),
		cmocka_unit_test(test_report_does_not_replace_the_session_file),
		cmocka_unit_test(test_read_summary_reports_python_errors),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
