#!/usr/bin/env bash
# tunectl tune SPEC with the spec's gate policy beyond the reference:
# gate.decide_by ci, gate.stability.rule relative and max_spread_pct reach
# every gate the generic workers call and ledger final-e2e, and the session
# verifies (docs/workload-spec.md "gate").  A script workload, simulated
# timings: fast is 40 % faster than slow, n=2 halves the time.
. "$(dirname "$0")/lib.sh"
command -v python3 >/dev/null 2>&1 || { skip "no python3"; finish; }
cd "$T"
mkdir ex
jf() {	# jf FILE EXPR: EXPR over the JSON document d of FILE
	/usr/bin/python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' "$1" "$2"
}
# the shared slow/fast spec with the rules beyond the reference's
sed -e 's/^name: slow-fast/name: decide-ci/' "$TUNECTL_SRC/tests/fixtures/workloads/tune_slow_fast.yaml" > ex/ci.yaml
cat >> ex/ci.yaml <<'YAML'
  stability: {rule: relative, max_spread_pct: 8.0}
  decide_by: ci
  order: sequential
YAML
tc tune ex/ci.yaml --session-dir s
expect_rc 0 "decide_by ci: the session completes"
expect_err "final clean E2E: beneficial" "and the winner is beneficial"
tune_err=$err
R=$(cd s/latest && pwd -P)
tc verify --session "$R/auto-tune-session.json"
expect_rc 0 "tunectl verify"
check "the session verifies" grep -q '"valid": true' <<< "$out"
check "gate.order sequential: the Final compared against the frozen S0, no baseline measured again" \
	test ! -e "$R/final/baseline" -a ! -e "$R/stage-a/baseline"
check "freeze.json holds the rule" \
	test "$(jf "$R/intake/freeze.json" "(d['gate']['decide_by'], d['gate']['stability']['rule'])")" = "('ci', 'relative')"
check "the final promotion gate decided by the interval" \
	test "$(jf "$R/final/promotion.json" "d['candidates']['Sbest']['promotion']['decide_by']")" = ci
check "under the relative stability rule, with the spec's limit" \
	test "$(jf "$R/final/promotion.json.provenance.json" "(d['decide_by'], d['stability_rule'], d['max_spread_pct'])")" = "('ci', 'relative', 8.0)"
check "S0's stability gate judged against the spec's limit" \
	test "$(jf "$R/s0/stability.json" "d['baseline_stability']['max_spread_pct']")" = 8.0
check "Stage A screened by the interval" \
	grep -q '"decide_by": "ci"' "$R/stage-a/selection.json"
check "the zh reason of the final record names the ci rule" \
	grep -q '判定规则 ci：改进的 bootstrap 95% 置信区间不含 0 且下界 >= 2.0%' <<< "$(jf "$R/ledger.json" "d['final_e2e']['reason_zh']")"
check "and the relative stability rule" \
	grep -q '稳定性规则 relative' <<< "$(jf "$R/ledger.json" "d['final_e2e']['reason_zh']")"
check "the final gates line of the summary names it" \
	grep -q '判定规则 ci' <<< "$(jf "$R/ledger.json" "d['report_summary']['final_gates_zh']")"
check "tune's console summary names it" grep -q '^tune: 依据最终 clean E2E.*判定规则 ci' <<< "$tune_err"
check "FINAL_E2E_REPORT.md carries it" grep -q '判定规则 ci' "$R/FINAL_E2E_REPORT.md"
check "ledger final-e2e recorded the same rule" \
	test "$(jf "$R/ledger.json.provenance.json" "(d['decide_by'], d['stability_rule'], d['max_spread_pct'])")" = "('ci', 'relative', 8.0)"

# An unknown rule is refused when the spec is read.
sed 's/rule: relative/rule: loose/' ex/ci.yaml > ex/bad.yaml
tc tune ex/bad.yaml --session-dir s2
expect_rc 1 "an unknown gate.stability.rule is refused"
expect_err "gate.stability.rule must be one of spread, relative" "naming the field and the choices"
finish
