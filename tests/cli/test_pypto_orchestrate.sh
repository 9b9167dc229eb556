#!/usr/bin/env bash
# tunectl as the PyPTO-Pro orchestrator: Stages 1-4 of the example
# operator through fresh workers, then, from copies of that project, the
# Stage 5 entry confirmation (missing, the target-case rules, declined),
# stale tasks, a worker writing the state, the environment triage of the
# optimizer's env_error, a blocked Stage 5, and complete_stage(5) without
# a bound stage5-check PASS.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/pypto_fixtures.sh"
answer_task() {	# answer_task TASK: result1.json answers TASK
	python3 - "$1" "$T/result1.json" <<'EOF'
import json, sys
t = json.load(open(sys.argv[1])); r = json.load(open(sys.argv[2]))
r["state_sha256"] = t["state_sha256"]; r["step_id"] = t["step"]["step_id"]
json.dump(r, open(sys.argv[2], "w"))
EOF
}

# ---- Stages 1-4 with fresh workers ------------------------------------------------
P=$T/ready/project
OP=$P/custom/rmsnorm
st() { tc pypto state --project "$P" --op-dir custom/rmsnorm "$@"; }
mkdir -p "$P/custom"
st init
expect_rc 0 "init creates the orchestrator state"
tc pypto run --project "$P" --op-dir custom/rmsnorm --runner-command-json "$HOST" --timeout-seconds 300
expect_rc 0 "pypto run drives Stages 1-4 and stops for the user"
expect_out '"status": "awaiting_consent"' "it stops at the Stage 5 entry confirmation"
expect_err "s4-007-verifier-stage4-check" "seven fresh workers ran (planner to stage4-check)"
check "Stage 4 is completed and Stage 5 waits in_progress" \
    test "$(jq_ "$OP/.orchestrator_state.json" "d['stage_status']['4'] + d['stage_status']['5']")" = completedin_progress
n=$(ls "$OP"/.orchestrator/dispatches/*/dispatch-receipt.json | wc -l)
expect_eq "$n" 7 "every step left an immutable receipt"
expect_eq "$(jq_ "$OP/.orchestrator/dispatches/s1-001-planner-attempt-001/dispatch-receipt.json" "d['runner_status']")" \
    passed "the planner's receipt records a passed runner"
hist=$(jq_ "$OP/.orchestrator_state.json" "len(d['orchestration']['history'])")
check "the state's history binds every step's receipt" test "$hist" -ge 7

use() {	# use NAME: a fresh copy of the Stage-4-complete project
	rm -rf "$T/$1"
	cp -a "$T/ready" "$T/$1"
	P=$T/$1/project
	OP=$P/custom/rmsnorm
}

# ---- consent missing -----------------------------------------------------------------
use noconsent
tc pypto dispatch --project "$P" --op-dir custom/rmsnorm
expect_rc 1 "no Stage 5 dispatch before the entry confirmation"
expect_err "Stage 5 awaits the entry confirmation" "and it says what is awaited"
st complete_stage --stage 5
expect_rc 1 "complete_stage(5) is refused without a confirmation"
expect_err "no Stage 5 entry confirmation is recorded" "naming the missing confirmation"
tc pypto compare --op-dir "$OP" --case-manifest "$EX/templates/SPEC.md" --op-name k
expect_rc 1 "no Stage 5 collection before the confirmation"
expect_err "formal compare refused: no Stage 5 collection before the Stage 5 entry confirmation" \
    "the compare names the rule"
tc pypto discover --op-dir "$OP" --case-manifest x --case-id p0_small --kernel k
expect_rc 1 "no discovery run before the confirmation either"
st rollback_to_stage --target-stage 3 --reason "user changed their mind"
expect_rc 1 "no rollback once Stage 5 was entered"
st consent --basis user_requested --statement "tune it"
expect_rc 1 "two P0 cases without a choice: the user must be asked"
expect_err "ask the user which to optimise" "the refusal says to ask"
st consent --basis user_asked --statement "x" --no-questions
expect_rc 1 "an unknown basis is refused"
st consent --basis user_confirmed --statement "asked; the user chose p0_large" --case-ids p0_large
expect_rc 0 "consent with the user's chosen case"
expect_out '"selection_mode": "user_selected"' "freezes user_selected"
expect_out '"entry": {' "and records the entry snapshot"
check "the entry snapshot is written under .orchestrator/stage5" test -f "$OP/.orchestrator/stage5/entry-001.json"
expect_eq "$(jq_ "$OP/.orchestrator_state.json" "d['orchestration']['stage5']['entry']['sha256']")" \
    "$(sha "$OP/.orchestrator/stage5/entry-001.json")" "the state binds the snapshot's digest"
st consent --basis user_confirmed --statement "again" --no-questions
expect_rc 1 "the entry is decided once"
expect_err "already decided" "a second confirmation names the first"

use declined
st decline --reason "the user asked to run autonomously and did not ask for optimisation"
expect_rc 0 "decline records the user's refusal"
tc pypto run --project "$P" --op-dir custom/rmsnorm --runner-command-json "$HOST"
expect_rc 0 "a declined Stage 5 ends the run normally"
expect_out '"status": "declined"' "with the pipeline ended after Stage 4"

# ---- complete_stage(5) only on a bound PASS ------------------------------------------------
use nopass
st consent --basis user_requested --statement "tune every P0, no questions" --no-questions
expect_out '"selection_mode": "all_p0_no_questions"' "no questions: every P0 case"
st complete_stage --stage 5
expect_rc 1 "complete_stage(5) without a bound stage5-check is refused"
expect_err "no stage5-check report is bound" "naming the missing report"
tc pypto check stage5 --project "$P" --op-dir "$OP" --record
expect_rc 1 "a stage5-check without deliverables fails"
check "its report is bound all the same" test -f "$OP/.orchestrator/stage5/check-001.json"
st complete_stage --stage 5
expect_rc 1 "a bound FAILED report does not close Stage 5"
expect_err "says FAILED, not PASS" "the refusal quotes the verdict"

# ---- stale tasks ---------------------------------------------------------------------------
tc pypto dispatch --project "$P" --op-dir custom/rmsnorm --output "$T/task1.json"
expect_rc 0 "dispatch writes the optimizer's task"
expect_out '"role": "optimizer"' "the one legal next step is the optimizer"
tc pypto check task --task "$T/task1.json"
expect_rc 0 "the fresh task is current"
tc prompt --task "$T/task1.json" --host claude
expect_out "tunectl pypto check task --task" "the prompt starts with the task check"
expect_out "Only the orchestrator writes .orchestrator_state.json" "and carries the common boundary"
expect_out "Return one handoff with exactly one exit" "and the optimizer's own"
python3 - "$T/task1.json" "$T/result1.json" <<'EOF'
import json, sys
t = json.load(open(sys.argv[1]))
json.dump({"schema_version": "tunectl-pypto-result-v1", "step_id": t["step"]["step_id"],
           "role": "optimizer", "mode": None, "module": None, "state_sha256": t["state_sha256"],
           "outcome": "handoff", "summary": "s", "evidence": "", "artifacts": [],
           "handoff": {"schema_version": 1, "kind": "pypto_optimizer_handoff", "exit":
                       "stage5_contract_blocked", "operator": "rmsnorm",
                       "optimization_target": t["inputs"]["optimization_target"],
                       "summary": "s", "commands": [], "block": {"root_cause": "r",
                       "frozen_inputs": ["SPEC.md"], "evidence": "e"}}}, open(sys.argv[2], "w"))
EOF
st configure --devices 0,1
expect_rc 0 "the state changes after the dispatch"
tc pypto check task --task "$T/task1.json"
expect_rc 1 "the old task is stale"
expect_out "stale pypto task does not match the current orchestrator state" "with the stale message"
tc pypto accept --project "$P" --op-dir custom/rmsnorm --task "$T/task1.json" --result "$T/result1.json"
expect_rc 1 "accepting a result of a stale task is refused"
expect_err "stale pypto task" "naming the stale task"
tc pypto dispatch --project "$P" --op-dir custom/rmsnorm --output "$T/task2.json"
answer_task "$T/task2.json"
tc pypto accept --project "$P" --op-dir custom/rmsnorm --task "$T/task2.json" --result "$T/result1.json"
expect_rc 0 "a current task's result is accepted"
expect_out '"kind": "stage5_contract_blocked"' "a blocked handoff halts Stage 5"
check "the accepted attempt keeps its receipt" test -f "$OP/.orchestrator/dispatches/$(jq_ "$T/task2.json" "d['step']['step_id']")-attempt-001/dispatch-receipt.json"
tc pypto dispatch --project "$P" --op-dir custom/rmsnorm
expect_rc 1 "nothing is dispatched while halted"
expect_err "the pipeline is halted (stage5_contract_blocked)" "the halt is named"
st resume --reason "the user restored the frozen input"
expect_rc 0 "resume clears the halt"

# ---- a worker writing the state -------------------------------------------------------------------
use writes
st consent --basis user_requested --statement "tune every P0" --no-questions >/dev/null
before=$(sha "$OP/.orchestrator_state.json")
PYPTO_STUB_MODE=write_state tc pypto run-next --project "$P" --op-dir custom/rmsnorm --runner-command-json "$HOST"
expect_rc 1 "a worker's write to the state file fails its step"
expect_err "the worker changed .orchestrator_state.json during the attempt" "and is named"
expect_eq "$(sha "$OP/.orchestrator_state.json")" "$before" "the orchestrator's bytes are restored"
check "the worker's own state action was refused, whatever --agent said" \
    grep -q "state action exit=1 stderr=tunectl: permission denied: state_transition is restricted to the PyPTO-Pro primary, but was called by \"pypto-pro-op-optimizer\". Subagents must not modify .orchestrator_state.json" "$PYPTO_STUB_LOG"
R=$(ls -d "$OP"/.orchestrator/dispatches/s5-008-optimizer-attempt-001)
expect_eq "$(jq_ "$R/dispatch-receipt.json" "d['runner_status']")" failed "the attempt's receipt says failed"
PYPTO_STUB_MODE=write_state tc pypto run --project "$P" --op-dir custom/rmsnorm --runner-command-json "$HOST" --max-attempts 2
expect_rc 1 "pypto run stops on a step that keeps failing"
expect_err "step s5-008-optimizer failed 2 attempts in a row; the step stays pending and every attempt is kept under .orchestrator/dispatches/" \
    "after --max-attempts attempts in a row"
check "each failed attempt kept its directory" test -d "$OP/.orchestrator/dispatches/s5-008-optimizer-attempt-003"

# ---- a forged stage5-check PASS ---------------------------------------------------------------
# A worker in the dispatch -> accept flow writes the state itself: it binds a
# report that says PASS, for the current final test and the bound entry.
forge_pass() {	# forge_pass: bind a hand-written PASS in the state file
	python3 - "$OP" <<'EOF'
import hashlib, json, sys
op = sys.argv[1]
sp = op + "/.orchestrator_state.json"
s = json.load(open(sp))
s5 = s["orchestration"]["stage5"]
runner = hashlib.sha256(open(op + "/test_rmsnorm.py", "rb").read()).hexdigest()
rep = {"schema_version": 1, "kind": "pypto_stage5_check", "verdict": "PASS",
       "failure_category": None, "failed_checks": [], "checks_total": 25,
       "checks_passed": 25, "partial": False, "runner_sha256": runner,
       "entry_sha256": s5["entry"]["sha256"], "gates": []}
path = op + "/.orchestrator/stage5/check-900.json"
json.dump(rep, open(path, "w"))
s5["check"] = {"path": ".orchestrator/stage5/check-900.json", "verdict": "PASS",
               "sha256": hashlib.sha256(open(path, "rb").read()).hexdigest()}
json.dump(s, open(sp, "w"), indent=2)
EOF
}
use forged
st consent --basis user_requested --statement "tune every P0" --no-questions >/dev/null
tc pypto dispatch --project "$P" --op-dir custom/rmsnorm --output "$T/task3.json"
expect_rc 0 "the optimizer's task is dispatched"
dispatched=$(sha "$OP/.orchestrator_state.json")
forge_pass
answer_task "$T/task3.json"
tc pypto accept --project "$P" --op-dir custom/rmsnorm --task "$T/task3.json" --result "$T/result1.json"
expect_rc 1 "accepting over a state the worker edited is refused"
expect_err "was changed outside tunectl since the dispatch" "the refusal names the edit"
expect_err "the dispatch snapshot (sha256 $dispatched) was restored" "and the restored snapshot"
expect_eq "$(sha "$OP/.orchestrator_state.json")" "$dispatched" "the state is the dispatch snapshot again"
expect_eq "$(jq_ "$OP/.orchestrator_state.json" "(d['orchestration']['stage5'].get('check') or {}).get('path')")" None \
    "the forged binding is gone"
forge_pass
st complete_stage --stage 5
expect_rc 1 "a forged bound PASS does not close Stage 5"
expect_err "the bound stage5-check PASS does not hold: recomputed now" "tunectl recomputed the check"
expect_eq "$(jq_ "$OP/.orchestrator_state.json" "d['stage_status']['5']")" in_progress "Stage 5 stays in progress"

# ---- environment triage ------------------------------------------------------------------------------
use env
st consent --basis user_requested --statement "tune every P0" --no-questions >/dev/null
st configure --devices 0,1 >/dev/null
: >"$PYPTO_STUB_LOG"
PYPTO_STUB_MODE=env_hardware_then_software tc pypto run --project "$P" --op-dir custom/rmsnorm --runner-command-json "$HOST"
expect_rc 1 "a software environment fault halts the run"
expect_out '"kind": "env_software"' "after the triage"
expect_eq "$(grep -c '^device=' "$PYPTO_STUB_LOG")" 2 "the optimizer ran twice"
check "first on device 0, then re-dispatched on device 1" \
    test "$(grep '^device=' "$PYPTO_STUB_LOG" | cut -d' ' -f1 | tr '\n' ' ')" = "device=0 device=1 "
expect_eq "$(jq_ "$OP/.orchestrator_state.json" "[e['device_id'] for e in d['orchestration']['excluded_devices']]")" \
    "[0]" "device 0 is excluded after the hardware fault"
st resume --reason "torch_npu installed"
expect_rc 0 "resume after the software fix"
expect_eq "$(jq_ "$OP/.orchestrator_state.json" "d['orchestration'].get('halt') is None and 'excluded_devices' not in d['orchestration']")" \
    True "and the exclusions are cleared"

finish
