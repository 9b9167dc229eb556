#!/usr/bin/env bash
# test_render_final_report.sh - "tunectl render-final-report" end to end:
# a "none" session sealed through Final with the reference's fixtures,
# then re-rendering (idempotent), the read-only --summary override
# (docs/spec/controller.md "Acceptance cases" #2, #5), --lang en, refusals, and
# the NaN ledger of docs/spec/controller.md "Acceptance cases" #3.
. "$(dirname "$0")/lib.sh"

if ! "$TUNECTL_BIN" help init >/dev/null 2>&1; then
	echo "ok 1 # SKIP tunectl init does not exist yet"
	echo "1..1"
	exit 0
fi

ROOT="$T/art"
S="$ROOT/auto-tune-session.json"
AAA=aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa
DETAILS='{"environment": "已结算。", "s0": "已结算。", "stage_a": "已结算。",
 "stage_o": "已结算。", "base_profile_source_mapping": "已结算。",
 "optional_experiments": "已结算。", "final_e2e": "已结算。"}'

# result FILE STEP_ID PHASE AGENT STATUS [EXTRA_JSON_MEMBERS [DETAILS]]
result() {
	local extra=${6:-} details=${7:-"{}"}
	cat >"$1" <<EOF
{"schema_version": "superkernel-auto-tune-phase-result-v1",
 "session_id": "$SID", "step_id": "$2", "phase": "$3", "agent_id": "$4",
 "status": "$5", "summary_zh": "$3 阶段已结算。",
 "input_fingerprints": {"control": "$AAA"}, "consumed_artifacts": [],
 "produced_artifacts": [], "decisions": [], "blockers": [],
 "next_step_guidance_zh": "交由控制 Agent 校验并调度下一阶段。",
 "details_zh": $details$extra}
EOF
}

# advance SESSION: init and seal every step before Final (fixture defaults)
advance() {
	local session=$1 root
	root=$(dirname "$session")
	tc init --session "$session" --artifact-root "$root" --session-id "$SID" \
	    --optional-mode none
	[ "$rc" = 0 ] || return 1
	set -- \
	    intake-preparation intake_preparation sk-intake-preparation succeeded \
	    s0-baseline s0_baseline sk-s0-baseline succeeded \
	    stage-a-scope-selection stage_a_scope_selection sk-stage-a-scope-selection accepted \
	    stage-o-option-tuning stage_o_option_tuning sk-stage-o-option-tuning no_gain \
	    base-profile-source-mapping base_profile_source_mapping sk-base-profile-source-mapping succeeded \
	    optional-experiments optional_experiments sk-optional-experiments not_requested
	while [ $# -gt 0 ]; do
		result "$T/r.json" "$1" "$2" "$3" "$4"
		tc seal --session "$session" --result "$T/r.json"
		[ "$rc" = 0 ] || return 1
		shift 4
	done
}

summary() {	# summary STAGE_ROWS_JSON
	cat <<EOF
{"schema_version": "superkernel-report-summary-v1",
 "baseline": {"metric": "TP worst-rank mean", "value_ms": 10.0, "run_count": 5,
  "reason_zh": "五次基线稳定。", "evidence_artifacts": ["evidence.json"]},
 "stages": $1,
 "fallback": {"candidate_id": "S0", "scope_strategy": "SK-off",
  "reason_zh": "已验证并恢复 SK-off。", "evidence_artifacts": ["evidence.json"]}}
EOF
}

row() {	# row ID RANK CANDIDATE_MS ELIGIBLE STATUS
	printf '{"stage": "stage_a", "kind": "screening", "candidate_id": "%s",
 "metric": "TP worst-rank mean", "baseline_ms": 10.0, "candidate_ms": %s,
 "run_count": 3, "eligible": %s, "selector_rank": %s, "status": "%s",
 "reason_zh": "收益未达标。", "gates_zh": "阈值 1%%；P90 不通过；stddev 不通过",
 "evidence_artifacts": ["evidence.json"]}' "$1" "$3" "$4" "$2" "$5"
}

ledger() {	# ledger SUMMARY_JSON_OR_EMPTY
	local s=""
	[ -n "$1" ] && s=", \"report_summary\": $1"
	cat <<EOF
{"schema_version": 2, "experiments": {},
 "final_e2e": {"classification": "not_run", "candidate_id": "Sbest",
  "scope_strategy": "explicit_candidates",
  "option_config": {"auto_op_parallel": true}, "evidence_artifacts": [],
  "reason_zh": "依据最终 clean E2E 结算。"}$s}
EOF
}

seal_final() {	# seal_final SESSION
	result "$T/final.json" final-e2e-report final_e2e_report sk-final-e2e-report \
	    not_run ", \"ledger_path\": \"ledger.json\"" "$DETAILS"
	tc seal --session "$1" --result "$T/final.json"
}

json_digests() {	# every *.json under a root, with its SHA-256
	(cd "$1" && find . -name '*.json' -type f -print0 | sort -z |
	    xargs -0 sha256sum)
}

SID=session-20260905-a
mkdir -p "$ROOT"
advance "$S"
expect_rc 0 "init and seal the six steps before Final"
printf '{}\n' >"$ROOT/evidence.json"
ledger "$(summary "[$(row S1 1 11.0 false no_gain), $(row S2 2 10.5 false no_gain)]")" \
    >"$ROOT/ledger.json"
seal_final "$S"
expect_rc 0 "seal a not_run Final whose ledger has a report_summary"
check "seal wrote FINAL_E2E_REPORT.md" test -f "$ROOT/FINAL_E2E_REPORT.md"
sealed_report=$(cat "$ROOT/FINAL_E2E_REPORT.md")
out=$sealed_report
expect_out "## 关键数据对比" "the sealed report leads with the comparison table"
expect_out "| stage_a / S1 | screening / TP worst-rank mean | 10.000000 | 11.000000 | +1.000000 | -10.000000% | 3 |" \
    "selector rank 1 is shown before the faster rank 2 (acceptance case #5)"
expect_out "最终 E2E 结论: 未执行 (\`not_run\`)" "the Final label is 未执行"
expect_out "- 回退配置：S0" "the fallback is named"

tc render-final-report --session "$S"
expect_rc 0 "render-final-report succeeds on a completed session"
expect_eq "$out" "{
  \"report\": \"$ROOT/FINAL_E2E_REPORT.md\"
}" "it prints the default report path"
check "re-rendering reproduces the sealed report byte for byte" \
    test "$(cat "$ROOT/FINAL_E2E_REPORT.md")" == "$sealed_report"

# docs/spec/controller.md "Acceptance cases" #2 / #5: the override is read-only
# and changes only the output.
before=$(json_digests "$ROOT")
summary "[$(row S1 1 11.0 false no_gain), $(row S2 2 10.5 true accepted)]" >"$T/override.json"
tc render-final-report --session "$S" --summary "$T/override.json" \
    --output "$ROOT/REPORT.summary.md"
expect_rc 0 "render with a --summary override"
expect_out "\"report\": \"$ROOT/REPORT.summary.md\"" "the output path is printed as given"
out=$(cat "$ROOT/REPORT.summary.md")
expect_out "| stage_a / S2 | screening / TP worst-rank mean | 10.000000 | 10.500000 |" \
    "the override's accepted candidate wins the row"
check "no sealed JSON changed" test "$(json_digests "$ROOT")" == "$before"
check "the sealed report was not touched" \
    test "$(cat "$ROOT/FINAL_E2E_REPORT.md")" == "$sealed_report"

tc render-final-report --session "$S" --output "$T/en.md" --lang en
expect_rc 0 "render in English"
out=$(cat "$T/en.md")
expect_out "# SuperKernel Auto Tune Final E2E Report" "English title"
expect_out "- Final E2E verdict: not run (\`not_run\`)" "English verdict"

tc render-final-report --session "$S" --lang fr
expect_rc 2 "an unknown --lang is a usage error"
expect_err "invalid choice: 'fr'" "the usage error names the choice"
tc render-final-report --lang fr --no-such-flag
expect_err "argument --lang: invalid choice: 'fr' (choose from 'zh', 'en')" \
    "named before the missing --session and the unrecognized argument, as argparse checks choices while it reads"
check "not the missing --session" [ "${err/required/}" = "$err" ]
tc render-final-report --output "$T/x.md"
expect_rc 2 "--session is required"

sed 's/"schema_version": "superkernel-report-summary-v1"/"schema_version": "v0"/' \
    "$T/override.json" >"$T/bad.json"
tc render-final-report --session "$S" --summary "$T/bad.json" --output "$T/bad.md"
expect_rc 1 "an invalid override is refused"
expect_out "report_summary schema_version is invalid" "with the reference's message"
check "nothing is written for a refused override" test ! -e "$T/bad.md"
tc render-final-report --session "$S" --summary "$T/missing.json"
expect_rc 1 "a missing override is refused"
expect_out "report_summary cannot be read: [Errno 2] No such file or directory" \
    "with Python's OSError text"

ledger_before=$(sha256sum <"$ROOT/ledger.json")
tc render-final-report --session "$S" --output "$ROOT/ledger.json"
expect_rc 1 "the report never replaces the ledger"
expect_out "report output must not replace sealed evidence" "refusal names the reason"
check "the ledger is unchanged" test "$(sha256sum <"$ROOT/ledger.json")" == "$ledger_before"
tc render-final-report --session "$S" --output "$S"
expect_rc 1 "the report never replaces the session file"

tc verify --session "$S"
expect_rc 0 "the session still verifies after all renders"

# A session whose Final is still pending cannot be rendered.
ROOT2="$T/art2"
mkdir -p "$ROOT2"
advance "$ROOT2/auto-tune-session.json"
tc render-final-report --session "$ROOT2/auto-tune-session.json"
expect_rc 1 "render before the Final is sealed is refused"
expect_out "final phase is not sealed" "with the reference's message"

# docs/spec/controller.md "Acceptance cases" #3: NaN in the ledger is a
# report_summary error, not a parse error, and the session stays active.
printf '{}\n' >"$ROOT2/evidence.json"
ledger "$(summary "[$(row S1 1 NaN false no_gain)]")" >"$ROOT2/ledger.json"
seal_final "$ROOT2/auto-tune-session.json"
expect_rc 1 "a NaN candidate_ms in the ledger is refused at seal"
expect_out "report_summary candidate_ms must be positive and finite" \
    "the error is the report_summary validation error"
tc next --session "$ROOT2/auto-tune-session.json"
expect_out "\"step_id\": \"final-e2e-report\"" "the Final step is still pending"
check "no report was written" test ! -e "$ROOT2/FINAL_E2E_REPORT.md"

# docs/spec/controller.md "Acceptance cases" #2: a legacy ledger (no
# report_summary) renders with N/A.
ledger "" >"$ROOT2/ledger.json"
seal_final "$ROOT2/auto-tune-session.json"
expect_rc 0 "a legacy ledger seals"
out=$(cat "$ROOT2/FINAL_E2E_REPORT.md")
expect_out "| S0（冻结基线） | N/A | N/A | N/A | N/A | N/A | N/A | N/A：旧账本未提供结构化基线 | N/A：未提供证据 |" \
    "the legacy report shows N/A rows"

finish
