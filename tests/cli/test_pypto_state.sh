#!/usr/bin/env bash
# tunectl pypto state / cases / items / select through the CLI: exit
# codes, the reference's messages on stderr, JSON on stdout, the lint gate
# from the environment, and usage errors.
. "$(dirname "$0")/lib.sh"

P=$T/proj
mkdir -p "$P/custom"
cd "$P"

tc pypto state --op-dir custom/op init
expect_rc 0 "init exits 0"
expect_out '"current_stage": 1' "init reports the current stage"
check "init wrote the state file" test -f custom/op/.orchestrator_state.json

tc pypto state --op-dir custom/op complete_stage --stage 1
expect_rc 1 "complete_stage(1) without SPEC.md is refused"
expect_err "cannot complete Stage 1: $P/custom/op/SPEC.md does not exist." "the refusal names SPEC.md"

echo "# spec" >custom/op/SPEC.md
tc pypto state --op-dir custom/op complete_stage --stage 1
expect_rc 0 "complete_stage(1) records the SPEC hash"
tc pypto state --op-dir custom/op complete_stage --stage 3
expect_rc 1 "completing a stage that is not current is refused"
expect_err "cannot complete stage 3: current_stage is 2" "with the reference's message"

tc pypto state --op-dir custom/op start_stage --stage abc
expect_rc 1 "a non-numeric stage is refused"
expect_err "invalid stage: NaN (must be 1..5)" "as Number() coerces it"

tc pypto state --op-dir custom/op plan_stage4 --is-fusion maybe
expect_rc 2 "--is-fusion takes true or false"

tc pypto state --op-dir custom/op init extra
expect_rc 2 "two actions are a usage error"

tc pypto state --op-dir custom init
expect_rc 1 "the custom/ root itself is refused"
expect_err "permission denied: state_transition may only update an operator directory under $P/custom, but received $P/custom." "with the permission message"

tc pypto state --op-dir custom/op --agent pypto-pro-op-coder complete_stage --stage 2
expect_rc 1 "a sub-agent may not transition the state"
expect_err 'but was called by "pypto-pro-op-coder"' "the caller is named"

cat >"$T/lint.sh" <<'EOF'
#!/bin/sh
echo '{"summary": {"pass": 0, "warn": 0, "info": 0, "fail": 1, "skip": 0, "has_error_fail": true}, "findings": [{"rule_id": "PL04", "severity": "S1", "status": "FAIL", "message": "golden missing", "file": "op_golden.py"}]}'
EOF
chmod +x "$T/lint.sh"
TUNECTL_PYPTO_LINT_GATE="$T/lint.sh" tc pypto state --op-dir custom/op complete_stage --stage 2
expect_rc 1 "an S1 lint finding blocks complete_stage"
expect_err "[pypto-pro-op-lint] gate blocked: action=complete_stage, stage=2, module=-, op_dir=$P/custom/op" "with the gate header"
expect_err "  [PL04][S1] golden missing (op_golden.py)" "and the formatted finding"
tc pypto state --op-dir custom/op complete_stage --stage 2 --lint-gate /bin/true
expect_rc 1 "a gate that prints nothing blocks too"
expect_err "lint script returned empty output" "with the empty-output message"

tc pypto state --op-dir custom/op complete_stage --stage 2
expect_rc 0 "without a gate the stage completes"
tc pypto state --op-dir custom/op rollback_to_stage --target-stage 1 --reason "material gap" --failure-category stage1_material_gap
expect_rc 0 "rollback before Stage 5 is allowed"
tc pypto state --op-dir custom/op history
expect_rc 0 "history exits 0"
expect_out '"failure_category": "stage1_material_gap"' "history lists the rollback"
tc pypto state --op-dir custom/op show
expect_rc 0 "show exits 0"
expect_out '"action": "complete_stage"' "show lists complete_stage as legal"
expect_out '"status": "intact"' "show reports the SPEC freeze"

# Walk to Stage 5 and try to roll back.
for s in 1 2 3; do tc pypto state --op-dir custom/op complete_stage --stage $s; done
tc pypto state --op-dir custom/op plan_stage4 --is-fusion true --module-count 1
expect_out '"stage4_path": "L1"' "plan_stage4 with fusion takes the L1 path"
tc pypto state --op-dir custom/op complete_stage --stage 4
expect_rc 1 "Stage 4 on L1 needs its modules verified"
expect_err 'cannot complete_stage(4): module 1 status is "pending", not "verified"' "the pending module is named"
tc pypto state --op-dir custom/op start_module --module 1
tc pypto state --op-dir custom/op submit_for_verify --module 1
tc pypto state --op-dir custom/op complete_module --module 1
expect_rc 0 "complete_module exits 0"
tc pypto state --op-dir custom/op complete_stage --stage 4
expect_out '"current_stage": 5' "complete_stage(4) enters Stage 5"
tc pypto state --op-dir custom/op rollback_to_stage --target-stage 3 --reason design
expect_rc 1 "rollback after Stage 5 entry is refused"
expect_err "rollback_to_stage refused: Stage 5 has been entered" "by tunectl's policy"
tc pypto state --op-dir custom/op --allow-stage5-rollback rollback_to_stage --target-stage 3 --reason design
expect_rc 0 "--allow-stage5-rollback overrides the policy"

# cases
cat >"$T/cases.json" <<'EOF'
{"schema_version": 1, "cases": [{"id": "p0", "shape": "[1,32]", "dtype": "fp16", "test_function": "test_p0"}],
 "optimization_target": {"case_ids": ["p0", "p1"], "selection_mode": "single_p0"}}
EOF
tc pypto cases validate --manifest "$T/cases.json"
expect_rc 0 "a manifest without the Stage 5 flag only checks cases"
expect_out '"valid": true' "and says valid"
tc pypto cases validate --manifest "$T/cases.json" --stage5
expect_rc 1 "the full Stage 5 contract checks optimization_target"
expect_out "optimization_target.case_ids names unknown case id 'p1' (not in cases[].id)" "with the reason on stdout"
echo '{"schema_version": 1, "cases": [{"id": "a", "shape": "[1]", "dtype": "fp16"}, {"id": "a", "shape": "[1]", "dtype": "fp16"}]}' >"$T/dup.json"
tc pypto cases validate --manifest "$T/dup.json"
expect_rc 1 "duplicate ids are refused"
expect_out "case manifest contains duplicate case id 'a'" "with the reference's message"

# items
L=$T/ledger.json
tc pypto items init --ledger "$L"
expect_rc 0 "items init creates the ledger"
tc pypto items init --ledger "$L"
expect_rc 1 "a ledger is created once"
tc pypto items source --ledger "$L" --kind general_method --count 1 --ref "methods.md"
expect_rc 0 "items source records a denominator"
tc pypto items add --ledger "$L" --item '{"item_id": "general-01", "source_kind": "general_method", "source_ref": "methods.md#1", "case_scope": ["p0"], "applicability": {"status": "applicable", "basis": "b"}, "expected_metric": "m"}'
expect_rc 0 "items add registers a row"
expect_out '"phase": "enumerate:kb_selected"' "and next names the missing enumeration"
tc pypto items close --ledger "$L" --item general-01 --status rejected
expect_rc 1 "rejected without a reason is refused"
expect_err "rejected needs a concrete reason" "with the reason rule"
tc pypto items add --ledger "$L" --item '{"item_id": "bd-1", "source_kind": "bottleneck_derived"}'
expect_rc 1 "an incomplete bottleneck item is refused"
tc pypto items validate --ledger "$L" --require-closed
expect_rc 1 "an open ledger is not closed"
expect_out '"valid": false' "validate reports it"

tc pypto nonsense
expect_rc 2 "an unknown pypto subcommand is a usage error"
tc pypto help
expect_rc 0 "pypto help exits 0"
expect_out "tunectl pypto check stage5" "and lists check stage5"

finish
