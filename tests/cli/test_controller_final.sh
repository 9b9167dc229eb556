#!/usr/bin/env bash
# test_controller_final.sh - sealing the Final step: terminal sections,
# the ledger and its final_e2e, report_summary refusals that keep the
# session active, and the rendered FINAL_E2E_REPORT.md (acceptance cases
# 3, 36, 38, 39, 40, 41, 42 of docs/spec/controller.md "Acceptance cases").
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/controller_fixtures.sh"

# final_with_summary DIR STATUS [PY]: a none session at Final, evidence.json,
# a ledger with experiments {} and the reference tests' report_summary.
SUMMARY_PY='
ledger["experiments"] = {}
ledger["report_summary"] = {
    "schema_version": "superkernel-report-summary-v1",
    "baseline": {"metric": "TP worst-rank mean", "value_ms": 10.0, "run_count": 5,
                 "reason_zh": "五次基线稳定。", "evidence_artifacts": ["evidence.json"]},
    "stages": [{"stage": "stage_a", "candidate_id": "S1", "kind": "screening",
                "metric": "TP worst-rank mean", "baseline_ms": 10.0, "candidate_ms": 11.0,
                "run_count": 3, "eligible": False, "selector_rank": 1, "status": "no_gain",
                "reason_zh": "收益未达标。", "gates_zh": "阈值 1%；P90 不通过；stddev 不通过",
                "evidence_artifacts": ["evidence.json"]}],
    "fallback": {"candidate_id": "S0", "scope_strategy": "SK-off",
                 "reason_zh": "已验证并恢复 SK-off。", "evidence_artifacts": ["evidence.json"]},
}
stage = ledger["report_summary"]["stages"][0]
'
final_with_summary() {
	ctl_init "$1" none
	ctl_advance_to_final
	echo '{}' > "$R/evidence.json"
	ctl_result "$T/final.json" "$2" "$SUMMARY_PY${3:-}"
}

# --- 38: a complete not_run Final finishes the session and renders the report
ctl_init "$T/a" none
ctl_advance_to_final
ctl_seal not_run 'result["details_zh"] = {"environment": "环境确认完成。", "s0": "S0 已结算。",
    "stage_a": "框定方式已结算。", "stage_o": "Option 已结算。",
    "base_profile_source_mapping": "BASE/SMAP 已结算。",
    "optional_experiments": "未请求可选实验。", "final_e2e": "没有合法 clean E2E，记录 not_run。"}'
expect_rc 0 "a not_run Final with all sections is sealed"
check "sealing Final completes the session" test "$(jpy "$S" 'd["status"]')" = completed
check "sealing Final writes FINAL_E2E_REPORT.md" test -f "$R/FINAL_E2E_REPORT.md"
for text in '没有合法 clean E2E' 'Ledger 汇总' 'Sbest-BASE' 'revision-abc' 'beneficial=1' '/auto_op_parallel' '自动结论' '最终 E2E 结论: 未执行'; do
	check "the Final report contains '$text'" grep -qF "$text" "$R/FINAL_E2E_REPORT.md"
done
tc verify --session "$S"
expect_rc 0 "the completed session verifies"

# --- 39: a Final without every terminal section is refused
ctl_init "$T/b" none
ctl_advance_to_final
ctl_seal not_run 'result["details_zh"] = {"environment": "已结算。"}'
expect_rc 1 "a Final missing sections exits 1"
expect_out "final details_zh is missing: s0, stage_a, stage_o, base_profile_source_mapping, optional_experiments, final_e2e" \
    "a Final names its missing details_zh sections in order"
check "a refused Final leaves the session active" test "$(jpy "$S" 'd["status"]')" = active
check "a refused Final leaves no scene" test ! -e "$R/phases/final-e2e-report"

# --- 40: a Final without or with an escaping ledger_path is refused
ctl_seal not_run 'del result["ledger_path"]'
expect_out "final phase result requires ledger_path" "a Final without ledger_path is refused"
ctl_seal not_run 'result["ledger_path"] = "../outside.json"'
expect_out "ledger_path must be a relative artifact path" "a Final with ../ ledger_path is refused"

# --- 41: a ledger without a structured final_e2e is refused
ctl_seal not_run 'del ledger["final_e2e"]'
expect_out "ledger final_e2e must be an object" "a ledger without final_e2e is refused"

# --- 42: every terminal class completes with its label; metric drift is refused
for pair in accepted:有收益 no_gain:无收益 not_run:未执行 failed:失败或阻塞 blocked:失败或阻塞; do
	st=${pair%%:*}
	label=${pair#*:}
	ctl_init "$T/c-$st" none
	ctl_advance_to_final
	ctl_seal "$st"
	expect_rc 0 "a $st Final is sealed"
	check "a $st Final completes the session" test "$(jpy "$S" 'd["status"]')" = completed
	check "a $st Final report reads $label" grep -qF "最终 E2E 结论: $label" "$R/FINAL_E2E_REPORT.md"
done
ctl_init "$T/d" none
ctl_advance_to_final
ctl_seal accepted 'ledger["final_e2e"]["improvement_pct"] = 99.0'
expect_out "final_e2e improvement_pct does not match clean E2E medians" "metric drift in improvement_pct is refused"
ctl_seal not_run 'ledger["final_e2e"]["classification"] = "failed"'
expect_out "final phase result status does not match ledger final_e2e classification" \
    "a Final status that differs from the ledger classification is refused"
ctl_seal invalid
expect_out "final phase result status does not match ledger final_e2e classification" "a Final can never be sealed invalid"

# --- 36: budget and final failures keep the available baseline and report
for st in not_run failed blocked no_gain; do
	final_with_summary "$T/e-$st" "$st" 'result["summary_zh"] = "预算耗尽，保留可用基线。"'
	tc seal --session "$S" --result "$T/final.json"
	expect_rc 0 "a $st Final with a summary is sealed"
	check "a $st Final report keeps the Final summary" grep -qF '预算耗尽，保留可用基线。' "$R/FINAL_E2E_REPORT.md"
	check "a $st Final report keeps the baseline" grep -qF '10.000000' "$R/FINAL_E2E_REPORT.md"
	check "a $st Final report names no winner" grep -qF '优胜者：无' "$R/FINAL_E2E_REPORT.md"
	tc verify --session "$S"
	expect_rc 0 "a $st Final with a summary verifies"
done

# --- 3: report_summary refusals keep the session active
mutations=('stage["metric"] = "pooled P50"' 'stage["baseline_ms"] = 20.0'
    'stage["stage"] = "final_e2e"' 'stage["kind"] = "final_clean"'
    'stage["candidate_ms"] = float("nan")' 'stage["run_count"] = True'
    'stage["evidence_artifacts"] = ["../outside.json"]'
    'stage["evidence_artifacts"] = ["missing.json"]')
n=0
for m in "${mutations[@]}"; do
	n=$((n + 1))
	final_with_summary "$T/f$n" not_run "$m"
	tc seal --session "$S" --result "$T/final.json"
	expect_rc 1 "report_summary mutation '$m' exits 1"
	expect_out "report_summary" "report_summary mutation '$m' is a report_summary error"
	check "report_summary mutation '$m' keeps the session active" test "$(jpy "$S" 'd["status"]')" = active
	check "report_summary mutation '$m' leaves no Final scene" test ! -e "$R/phases/final-e2e-report"
	check "report_summary mutation '$m' renders no report" test ! -e "$R/FINAL_E2E_REPORT.md"
done
check "a NaN candidate_ms is read from the ledger as NaN" grep -q 'NaN' "$T/f5/artifacts/ledger.json"

finish
