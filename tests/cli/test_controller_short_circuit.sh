#!/usr/bin/env bash
# test_controller_short_circuit.sh - a failed gate seals the remaining
# steps not_run / not_requested with controller-generated scenes and goes
# straight to Final (acceptance cases 34 and 35 of
# docs/spec/controller.md "Acceptance cases", "Short-circuit").
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/controller_fixtures.sh"

# --- 34: an S0 blocker short-circuits to Final and seals not_run scenes
ctl_init "$T/a" none
ctl_seal
ctl_seal blocked
expect_rc 0 "a blocked S0 is sealed"
tc next --session "$S"
expect_out '"step_id": "final-e2e-report"' "after a blocked S0 the next step is Final"
check "the skipped gates are sealed not_run, the none optional step not_requested" test \
    "$(jpy "$S" '",".join(s["step_id"] + ":" + s.get("outcome_status", "-") for s in d["steps"])')" = \
    "intake-preparation:succeeded,s0-baseline:blocked,stage-a-scope-selection:not_run,stage-o-option-tuning:not_run,base-profile-source-mapping:not_run,optional-experiments:not_requested,final-e2e-report:-"
for step in stage-a-scope-selection stage-o-option-tuning base-profile-source-mapping optional-experiments; do
	check "short-circuit leaves PHASE_REPORT.md for $step" test -f "$R/phases/$step/PHASE_REPORT.md"
done
gen="$R/phases/stage-a-scope-selection/phase-result.json"
check "a generated result carries the reserved system_generated_by" test "$(jpy "$gen" 'd["system_generated_by"]')" = superkernel-auto-tune
check "a generated result says why it did not run" test "$(jpy "$gen" 'd["summary_zh"]')" = "未执行：s0_baseline 阶段已结算。"
check "a generated result blocks on the failing summary" test "$(jpy "$gen" 'd["blockers"]')" = '[{"reason_zh": "s0_baseline 阶段已结算。"}]'
check "a generated result guides to the Final phase" test "$(jpy "$gen" 'd["next_step_guidance_zh"]')" = "控制 Agent 已短路至最终 E2E 报告阶段。"
check "a generated result fingerprints the session state" grep -Eq '"session_state": "[0-9a-f]{64}"' "$gen"
check "each generated result fingerprints a different session state" test \
    "$(jpy "$gen" 'd["input_fingerprints"]["session_state"]')" != \
    "$(jpy "$R/phases/stage-o-option-tuning/phase-result.json" 'd["input_fingerprints"]["session_state"]')"
check "generated results are bound by their digest" test \
    "$(jpy "$S" 'd["steps"][2]["result_sha256"]')" = "$(py_digest "$gen")"
check "the generated PHASE_REPORT.md lists the blocker" grep -q '^- {"reason_zh": "s0_baseline 阶段已结算。"}$' \
    "$R/phases/stage-a-scope-selection/PHASE_REPORT.md"
tc verify --session "$S"
expect_rc 0 "a short-circuited session verifies"

# --- 35: every required failure gate short-circuits and preserves phase scenes
gate() {	# gate DIR PREFIX-STATUSES...  (seal with these statuses in order)
	local dir=$1 st
	shift
	ctl_init "$dir" none
	for st in "$@"; do ctl_seal "$st"; done
}
cases=("blocked" "succeeded failed" "succeeded succeeded no_gain"
    "succeeded succeeded accepted blocked" "succeeded succeeded accepted accepted invalid")
n=0
for c in "${cases[@]}"; do
	n=$((n + 1))
	# shellcheck disable=SC2086
	gate "$T/g$n" $c
	tc next --session "$S"
	expect_out '"step_id": "final-e2e-report"' "gate '$c' goes straight to Final"
	tc verify --session "$S"
	expect_rc 0 "gate '$c' leaves a valid session"
	ctl_seal not_run
	expect_rc 0 "gate '$c' then seals a not_run Final"
	check "gate '$c' not_run Final report has the comparison table" grep -q '## 关键数据对比' "$R/FINAL_E2E_REPORT.md"
	check "gate '$c' not_run Final report says not run" grep -q '最终 E2E 结论: 未执行' "$R/FINAL_E2E_REPORT.md"
	tc verify --session "$S"
	expect_rc 0 "gate '$c' completed session still verifies"
done

# Stage O no_gain continues normally (only blocked/failed/invalid short-circuit)
ctl_init "$T/o" none
for st in succeeded succeeded accepted no_gain; do ctl_seal "$st"; done
tc next --session "$S"
expect_out '"step_id": "base-profile-source-mapping"' "Stage O no_gain continues to BASE"

# a foreign file where a generated scene goes stops the short-circuit
ctl_init "$T/x" none
ctl_seal
mkdir -p "$R/phases/stage-o-option-tuning"
echo 'foreign' > "$R/phases/stage-o-option-tuning/phase-result.json"
ctl_seal blocked
expect_rc 1 "a short-circuit over a foreign scene exits 1"
expect_out "cannot short-circuit an existing phase scene: stage-o-option-tuning" "a foreign scene stops the short-circuit"
tc next --session "$S"
expect_out '"step_id": "s0-baseline"' "the interrupted short-circuit leaves the session unchanged"

finish
