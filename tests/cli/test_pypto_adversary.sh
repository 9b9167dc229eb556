#!/usr/bin/env bash
# test_pypto_adversary.sh - the PyPTO worker as adversary (issue 34, items 2
# and 4): a worker rewrites evidence an accepted step bound (its receipt,
# task or result, SPEC.md after Stage 1, the Stage 5 entry snapshot) and
# dispatch, accept, run-next, consent and the advancing state actions
# refuse to build on it, naming the file and the rule, writing nothing
# (sections 1-5); a worker in the dispatch -> accept flow forges a Stage 5
# PASS in the state and also rewrites tunectl's in-tree mark: the state
# bound under tunectl's state directory puts the dispatch snapshot back
# (6); a state edited between commands is refused by dispatch and
# run-next until it is put back or adopted (7); a worker that also
# rewrites the dispatch snapshots and the task's digest of them still has
# its edit undone, from the copy the binding keeps (8).
# The project comes from the example operator through Stages 1-4, as in
# test_pypto_orchestrate.sh.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/pypto_fixtures.sh"
answer_task() {	# answer_task TASK OUT: a blocked optimizer handoff answering TASK
	python3 - "$1" "$2" <<'PY'
import json, sys
t = json.load(open(sys.argv[1]))
json.dump({"schema_version": "tunectl-pypto-result-v1",
           "step_id": t["step"]["step_id"], "role": "optimizer", "mode": None,
           "module": None, "state_sha256": t["state_sha256"],
           "outcome": "handoff", "summary": "blocked", "evidence": "",
           "artifacts": [], "handoff": {
               "schema_version": 1, "kind": "pypto_optimizer_handoff",
               "operator": t["operator"],
               "optimization_target": t["inputs"]["optimization_target"],
               "summary": "blocked", "commands": [],
               "exit": "stage5_contract_blocked",
               "block": {"root_cause": "a frozen input is unusable",
                         "frozen_inputs": ["SPEC.md"], "evidence": "e"}}},
          open(sys.argv[2], "w"))
PY
}
# fingerprint: the state, and how many files the orchestrator directory holds
fingerprint() { echo "$(sha "$OP/.orchestrator_state.json") $(find "$OP/.orchestrator" | wc -l)"; }

P=$T/ready/project
OP=$P/custom/rmsnorm
st() { tc pypto state --project "$P" --op-dir custom/rmsnorm "$@"; }
pp() { tc pypto "$1" --project "$P" --op-dir custom/rmsnorm "${@:2}"; }
mkdir -p "$P/custom"
st init
pp run --runner-command-json "$HOST" --timeout-seconds 300
expect_rc 0 "the example operator reaches the Stage 5 entry confirmation"
expect_out '"status": "awaiting_consent"' "and waits there"

use() {	# use NAME: a fresh copy of the Stage-4-complete project
	rm -rf "$T/$1"
	cp -a "$T/ready" "$T/$1"
	P=$T/$1/project
	OP=$P/custom/rmsnorm
}
RCPT=.orchestrator/dispatches/s1-001-planner-attempt-001/dispatch-receipt.json
RES=.orchestrator/dispatches/s2-003-mathematician-attempt-001/phase-result.json
RULE="evidence bound by an accepted PyPTO step is never rewritten"

# ---- 1. an accepted step's receipt rewritten: consent and dispatch refuse --
use receipt
echo " " >>"$OP/$RCPT"
before=$(fingerprint)
st consent --basis user_requested --statement "tune every P0" --no-questions
expect_rc 1 "consent over a rewritten receipt is refused"
expect_err "bound evidence changed since step s1-001-planner was accepted: $RCPT" \
    "naming the step and the file"
expect_err "$RULE" "and the rule"
expect_eq "$(fingerprint)" "$before" "nothing was written"

# ---- 2. between dispatch and accept the worker rewrites an earlier result --
use accept
st consent --basis user_requested --statement "tune every P0" --no-questions >/dev/null
pp dispatch --output "$T/task.json"
expect_rc 0 "the optimizer's task is dispatched"
answer_task "$T/task.json" "$T/result.json"
printf ' ' >>"$OP/$RES"
before=$(fingerprint)
pp accept --task "$T/task.json" --result "$T/result.json"
expect_rc 1 "accept over a rewritten earlier result is refused"
expect_err "bound evidence changed since step s2-003-mathematician was accepted: $RES" \
    "naming the result and the step that bound it"
expect_eq "$(fingerprint)" "$before" "nothing was written (no attempt, no state)"
pp dispatch
expect_rc 1 "dispatch refuses it too"
expect_err "$RES" "naming the same file"
expect_eq "$(fingerprint)" "$before" "and writes no task snapshot"
truncate -s -1 "$OP/$RES"
pp accept --task "$T/task.json" --result "$T/result.json"
expect_rc 0 "with the file put back, the same accept goes through"

# ---- 3. run-next: the worker itself rewrites an earlier result -------------
use runnext
st consent --basis user_requested --statement "tune every P0" --no-questions >/dev/null
state=$(sha "$OP/.orchestrator_state.json")
PYPTO_STUB_MODE=tamper_evidence pp run-next --runner-command-json "$HOST"
expect_rc 1 "run-next refuses to seal over evidence its worker rewrote"
expect_err "since step s1-001-planner was accepted: .orchestrator/dispatches/s1-001-planner-attempt-001/phase-result.json" \
    "naming the file"
expect_eq "$(sha "$OP/.orchestrator_state.json")" "$state" "the state is not advanced"
expect_eq "$(jq_ "$OP/.orchestrator/dispatches/s5-008-optimizer-attempt-001/dispatch-receipt.json" "d['runner_status']")" \
    failed "the attempt's receipt says failed"
pp run-next --runner-command-json "$HOST"
expect_rc 1 "the next run-next refuses before any worker runs"
check "no second attempt was started" test ! -e "$OP/.orchestrator/dispatches/s5-008-optimizer-attempt-002"

# ---- 4. SPEC.md edited after Stage 1 completed -----------------------------
use spec
echo "perf_target: anything" >>"$OP/SPEC.md"
st consent --basis user_requested --statement "tune every P0" --no-questions
expect_rc 1 "consent over an edited SPEC.md is refused"
expect_err "bound evidence changed since Stage 1 was completed: SPEC.md" "naming SPEC.md"

# ---- 5. the Stage 5 entry snapshot rewritten: advancing actions refuse -----
use entry
st consent --basis user_requested --statement "tune every P0" --no-questions >/dev/null
python3 - "$OP/.orchestrator/stage5/entry-001.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1])); d["frozen_inputs"] = []
json.dump(d, open(sys.argv[1], "w"))
PY
before=$(fingerprint)
pp dispatch
expect_rc 1 "dispatch over a rewritten entry snapshot is refused"
expect_err "bound evidence changed since the Stage 5 entry snapshot was bound: .orchestrator/stage5/entry-" \
    "naming the snapshot"
expect_eq "$(fingerprint)" "$before" "nothing was written"
st start_stage --stage 5
expect_rc 1 "an advancing state action is refused too"
expect_err "entry-001.json" "naming the snapshot"
st complete_stage --stage 5
expect_rc 1 "complete_stage(5) re-checks the bound evidence too"
expect_err "entry-001.json" "naming the snapshot"
st fail_stage --stage 5
expect_rc 0 "failing the stage (a way out) is not"

# ---- 6. a forged Stage 5 PASS, the in-tree mark rewritten too --------------
# The worker of a dispatched task binds a hand-written PASS in the state and
# writes the state's digest into .orchestrator/state-written.sha256, so that
# the state looks like one tunectl wrote, while a real stage5-check fails.
use forged
st consent --basis user_requested --statement "tune every P0" --no-questions >/dev/null
pp dispatch --output "$T/task6.json"
expect_rc 0 "the optimizer's task is dispatched"
dispatched=$(sha "$OP/.orchestrator_state.json")
python3 - "$OP" <<'PY'
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
mark = op + "/.orchestrator/state-written.sha256"
open(mark, "w").write(hashlib.sha256(open(sp, "rb").read()).hexdigest() + "\n")
PY
tc pypto check stage5 --project "$P" --op-dir "$OP"
check "a real stage5-check fails" test "$rc" != 0
refused_accept() {	# refused_accept N MESSAGE WHY: accept of task N refused, state put back
	answer_task "$T/task$1.json" "$T/result$1.json"
	pp accept --task "$T/task$1.json" --result "$T/result$1.json"
	expect_rc 1 "the accept is refused"
	expect_err "was changed outside tunectl" "it names the edit"
	expect_err "$2" "and says what was restored"
	expect_eq "$(sha "$OP/.orchestrator_state.json")" "$dispatched" \
	    "the state is the one tunectl wrote again, $3"
	st complete_stage --stage 5
	expect_rc 1 "Stage 5 does not complete"
}
refused_accept 6 "was changed outside tunectl since the dispatch (sha256 $(sha "$OP/.orchestrator_state.json")): the dispatch snapshot (sha256 $dispatched) was restored" \
    "the rewritten mark notwithstanding"
expect_eq "$(jq_ "$OP/.orchestrator_state.json" "d['stage_status']['5']")" in_progress "Stage 5 stays in progress"

# ---- 8. the dispatch snapshot and the task's digest of it rewritten too -----
# The worker forges the PASS as in 6, then makes its forged state look like
# the one the task was cut from: it writes it as a dispatch snapshot
# (.orchestrator/dispatches/state-<its sha256>.json), puts that digest in
# the task's state_sha256, deletes the real snapshot and rewrites the
# in-tree mark.  Only the binding under the state directory still knows
# which state tunectl wrote; the refused accept puts that state back.
forge_pass() {	# forge_pass TASK: the forged state, its snapshot and task digest
	python3 - "$OP" "$1" <<'PY'
import hashlib, json, os, sys
op, taskp = sys.argv[1], sys.argv[2]
sp = op + "/.orchestrator_state.json"
s = json.load(open(sp))
s5 = s["orchestration"]["stage5"]
path = op + "/.orchestrator/stage5/check-901.json"
json.dump({"schema_version": 1, "kind": "pypto_stage5_check", "verdict": "PASS",
           "failure_category": None, "failed_checks": [], "checks_total": 25,
           "checks_passed": 25, "partial": False, "gates": [],
           "entry_sha256": s5["entry"]["sha256"]}, open(path, "w"))
s5["check"] = {"path": ".orchestrator/stage5/check-901.json", "verdict": "PASS",
               "sha256": hashlib.sha256(open(path, "rb").read()).hexdigest()}
raw = json.dumps(s, indent=2).encode()
open(sp, "wb").write(raw)
forged = hashlib.sha256(raw).hexdigest()
d = op + "/.orchestrator/dispatches"
for f in os.listdir(d):
    if f.startswith("state-"):
        os.remove(os.path.join(d, f))
open(os.path.join(d, "state-%s.json" % forged), "wb").write(raw)
t = json.load(open(taskp)); t["state_sha256"] = forged
json.dump(t, open(taskp, "w"))
open(op + "/.orchestrator/state-written.sha256", "w").write(forged + "\n")
print(forged)
PY
}
use snapshot
st consent --basis user_requested --statement "tune every P0" --no-questions >/dev/null
pp dispatch --output "$T/task8.json"
expect_rc 0 "the optimizer's task is dispatched"
dispatched=$(sha "$OP/.orchestrator_state.json")
forged=$(forge_pass "$T/task8.json")
expect_eq "$(sha "$OP/.orchestrator_state.json")" "$forged" "the state is the worker's"
cp "$OP/.orchestrator_state.json" "$T/forged8.json"
refused_accept 8 "was changed outside tunectl (sha256 $forged): the state tunectl wrote last (sha256 $dispatched) was restored" \
    "though the snapshots and the task's digest were rewritten"
# the restore does not make the worker's state tunectl's previous one
cp "$OP/.orchestrator_state.json" "$T/restored8.json"
cp "$T/forged8.json" "$OP/.orchestrator_state.json"
pp dispatch
expect_rc 1 "the forged state written back after the restore is refused"
expect_err "was changed outside tunectl since tunectl last wrote it (sha256 now $forged" "naming it"
cp "$T/restored8.json" "$OP/.orchestrator_state.json"
pp dispatch --output "$T/task8b.json"
expect_rc 0 "with tunectl's state back, dispatch goes on"
check "and cuts the task from tunectl's state" test "$(jq_ "$T/task8b.json" "d['state_sha256']")" = "$dispatched"

# ---- 7. a state edited between commands ------------------------------------
use edited
st consent --basis user_requested --statement "tune every P0" --no-questions >/dev/null
good=$(sha "$OP/.orchestrator_state.json")
cp "$OP/.orchestrator_state.json" "$T/good-state.json"
python3 - "$OP/.orchestrator_state.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1])); d["orchestration"]["halt"] = None
d["orchestration"]["options"] = {"devices": [7]}
json.dump(d, open(sys.argv[1], "w"), indent=2)
PY
edited=$(sha "$OP/.orchestrator_state.json")
before=$(fingerprint)
pp dispatch
expect_rc 1 "dispatch refuses a state edited since tunectl wrote it"
expect_err ".orchestrator_state.json was changed outside tunectl since tunectl last wrote it (sha256 now $edited; tunectl wrote $good" \
    "naming both digests"
expect_err "pypto-states/" "and where the binding is kept"
expect_eq "$(fingerprint)" "$before" "nothing was written"
pp run-next --runner-command-json "$HOST"
expect_rc 1 "run-next refuses it too, before any worker runs"
check "no attempt was started" test ! -e "$OP/.orchestrator/dispatches/s5-008-optimizer-attempt-001"
cp "$T/good-state.json" "$OP/.orchestrator_state.json"
pp dispatch
expect_rc 0 "with tunectl's state put back, dispatch goes on"
cp "$T/good-state.json" "$OP/.orchestrator_state.json"
python3 - "$OP/.orchestrator_state.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1])); d["orchestration"]["options"] = {"devices": [1]}
json.dump(d, open(sys.argv[1], "w"), indent=2)
PY
st configure
expect_rc 0 "configure adopts a state the operator edited on purpose"
pp dispatch
expect_rc 0 "after which dispatch goes on"
expect_out '"device_id": 1' "with the adopted options"

# ---- 9. a large state is bound (and its copy read back) whole --------------
mkdir -p "$T/big/project/custom/op"
sb() { tc pypto state --project "$T/big/project" --op-dir custom/op "$@"; }
sb init
python3 - "$T/big/project/custom/op/.orchestrator_state.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1])); d["notes"] = "x" * 200000
json.dump(d, open(sys.argv[1], "w"), indent=2)
PY
sb configure
expect_rc 0 "configure adopts a 200 KB state"
tc pypto dispatch --project "$T/big/project" --op-dir custom/op
expect_rc 0 "its binding (holding a copy of it) is read whole: dispatch goes on"

finish
