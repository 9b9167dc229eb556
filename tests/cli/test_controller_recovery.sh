#!/usr/bin/env bash
# test_controller_recovery.sh - a seal interrupted after its phase scene
# was written but before the session was updated is completed by the next
# seal of the same handoff or by resume, never stranded "already sealed";
# and mutating commands lock the session.
#
# A crash is simulated by putting back the session file as it was before
# the seal: exactly the state a kill between the scene writes and the
# session write leaves (the session is written last, atomically).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/controller_fixtures.sh"

# --- the same handoff again completes the seal
ctl_init "$T/a" none
ctl_result "$T/intake.json"
cp "$S" "$T/pre.json"
tc seal --session "$S" --result "$T/intake.json"
cp "$T/pre.json" "$S"
tc seal --session "$S" --result "$T/intake.json"
expect_rc 0 "re-sealing an interrupted handoff exits 0"
expect_out '"outcome_status": "succeeded"' "re-sealing completes the session update"
tc verify --session "$S"
expect_rc 0 "the completed seal verifies"

# --- a different handoff for a step with a scene is still refused
cp "$T/pre.json" "$S"
ctl_result "$T/other.json" blocked
tc seal --session "$S" --result "$T/other.json"
expect_rc 1 "a different handoff over an existing scene exits 1"
expect_out "current step is already sealed: intake-preparation" "a different handoff over an existing scene is refused"

# --- the sealed result itself completes the seal
tc seal --session "$S" --result "$R/phases/intake-preparation/phase-result.json"
expect_rc 0 "sealing with the scene's own result completes the seal"

# --- resume completes an interrupted seal
ctl_result "$T/s0.json"
cp "$S" "$T/pre.json"
tc seal --session "$S" --result "$T/s0.json"
cp "$T/pre.json" "$S"
tc resume --session "$S"
expect_rc 0 "resume over an interrupted seal exits 0"
expect_err "resume completed an interrupted seal" "resume says it completed the seal"
check "resume moves on to the step after the interrupted one" python3 -c '
import json, sys; d = json.loads(sys.argv[1]); sys.exit(d["next_step"]["step_id"] != "stage-a-scope-selection")' "$out"
check "resume wrote the completed session" test "$(jpy "$S" 'd["steps"][1]["state"]')" = sealed

# --- a crash between the result and its report
ctl_result "$T/a.json"
cp "$S" "$T/pre.json"
tc seal --session "$S" --result "$T/a.json"
cp "$T/pre.json" "$S"
rm "$R/phases/stage-a-scope-selection/PHASE_REPORT.md"
tc seal --session "$S" --result "$T/a.json"
expect_rc 0 "re-sealing after a crash before the report exits 0"
check "re-sealing writes the missing PHASE_REPORT.md" test -f "$R/phases/stage-a-scope-selection/PHASE_REPORT.md"
tc verify --session "$S"
expect_rc 0 "the repaired session verifies"

# --- an interrupted short-circuit: generated scenes are adopted
ctl_result "$T/o.json" blocked
cp "$S" "$T/pre.json"
tc seal --session "$S" --result "$T/o.json"
first=$(jpy "$R/phases/base-profile-source-mapping/phase-result.json" 'd["input_fingerprints"]["session_state"]')
cp "$T/pre.json" "$S"
tc seal --session "$S" --result "$T/o.json"
expect_rc 0 "re-sealing an interrupted short-circuit exits 0"
check "the earlier generated scene is kept" test \
    "$(jpy "$R/phases/base-profile-source-mapping/phase-result.json" 'd["input_fingerprints"]["session_state"]')" = "$first"
check "the session binds the kept scene" test \
    "$(jpy "$S" 'd["steps"][4]["result_sha256"]')" = "$(py_digest "$R/phases/base-profile-source-mapping/phase-result.json")"
tc verify --session "$S"
expect_rc 0 "the repaired short-circuit verifies"

# --- a short-circuit stopped by a foreign file resumes once it is gone
ctl_init "$T/b" none
ctl_seal
mkdir -p "$R/phases/stage-o-option-tuning"
echo 'foreign' > "$R/phases/stage-o-option-tuning/phase-result.json"
ctl_result "$T/s0b.json" blocked
tc seal --session "$S" --result "$T/s0b.json"
expect_rc 1 "a foreign scene stops the short-circuit"
rm -r "$R/phases/stage-o-option-tuning"
tc seal --session "$S" --result "$T/s0b.json"
expect_rc 0 "the same handoff seals once the foreign scene is gone"
tc verify --session "$S"
expect_rc 0 "the recovered short-circuit verifies"

# --- an interrupted Final: the report is written before the session
ctl_init "$T/c" none
ctl_advance_to_final
ctl_result "$T/final.json" not_run
cp "$S" "$T/pre.json"
tc seal --session "$S" --result "$T/final.json"
cp "$T/pre.json" "$S"
check "after an interrupted Final the session is still active" test "$(jpy "$S" 'd["status"]')" = active
tc seal --session "$S" --result "$T/final.json"
expect_rc 0 "re-sealing an interrupted Final exits 0"
check "re-sealing the Final completes the session" test "$(jpy "$S" 'd["status"]')" = completed
tc verify --session "$S"
expect_rc 0 "the re-sealed Final verifies"

# --- a completed session without its report (a reference crash): resume renders it
rm "$R/FINAL_E2E_REPORT.md"
tc verify --session "$S"
expect_rc 1 "a completed session without its report does not verify"
tc resume --session "$S"
expect_rc 0 "resume of a completed session without its report exits 0"
check "resume re-renders FINAL_E2E_REPORT.md" test -f "$R/FINAL_E2E_REPORT.md"
expect_out '"next_step": null' "resume of a completed session has no next step"

# --- a second controller waits for the lock, then fails clearly
ctl_init "$T/d" none
python3 - "$S.lock" "$T/locked" <<'PY' &
import fcntl, sys, time
f = open(sys.argv[1], "a")
fcntl.flock(f, fcntl.LOCK_EX)
open(sys.argv[2], "w").close()
time.sleep(60)
PY
holder=$!
while [ ! -e "$T/locked" ]; do sleep 0.05; done
ctl_result "$T/locked-intake.json"
TUNECTL_LOCK_TIMEOUT=0.2 tc seal --session "$S" --result "$T/locked-intake.json"
expect_rc 1 "seal of a locked session exits 1"
expect_out "another tunectl process holds the lock on $S" "seal of a locked session names the lock holder's file"
TUNECTL_LOCK_TIMEOUT=0.2 tc resume --session "$S"
expect_rc 0 "resume with nothing to complete does not wait for the lock"
cp "$S" "$T/pre-locked.json"
# the holder is inside a seal: the scene is written, the session not yet
mkdir -p "$R/phases/intake-preparation"
python3 -c 'import json,sys; print(json.dumps(json.load(open(sys.argv[1])), ensure_ascii=False, indent=2, sort_keys=True))' \
    "$T/locked-intake.json" > "$R/phases/intake-preparation/phase-result.json"
TUNECTL_LOCK_TIMEOUT=0.2 tc resume --session "$S"
expect_rc 1 "resume that must complete a seal waits for the lock, then fails"
expect_out "another tunectl process holds the lock on $S" "resume names the locked session"
rm -r "$R/phases"
tc next --session "$S"
expect_rc 0 "read-only next does not wait for the lock"
kill "$holder"
wait "$holder" 2>/dev/null
tc seal --session "$S" --result "$T/locked-intake.json"
expect_rc 0 "seal proceeds once the lock is released"

finish
