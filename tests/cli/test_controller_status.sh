#!/usr/bin/env bash
# test_controller_status.sh - "tunectl status" summarises a session for a
# human; dispatch refuses sessions without a dispatchable step
# (docs/spec/controller.md "Creating a dispatch task").
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/controller_fixtures.sh"

ctl_init "$T/a" none
ctl_seal
tc status --session "$S"
expect_rc 0 "status exits 0"
expect_out "Session session-20260905-a: active" "status names the session and its status"
expect_out "intake-preparation" "status lists the steps"
check "status shows the sealed step's outcome" grep -Eq 'intake-preparation +intake_preparation +sealed +succeeded' <<<"$out"
check "status marks the next step" grep -Eq '^> 2 +s0-baseline +s0_baseline +pending' <<<"$out"
expect_out "Next step: s0-baseline (phase s0_baseline)" "status names the next legal step"
expect_out "agent sk-s0-baseline, skill superkernel-s0-baseline" "status names the next step's agent and skill"
expect_out "tunectl dispatch --session $S --output TASK.json" "status says what to run next"
expect_out "tunectl seal --session $S --result RESULT.json" "status says how to seal"
expect_out "Integrity: verified" "status reports an intact session"

rm "$R/phases/intake-preparation/PHASE_REPORT.md"
tc status --session "$S"
expect_rc 0 "status of a damaged session still exits 0"
expect_out "Integrity: NOT valid" "status reports a damaged session"
expect_out "missing phase report: intake-preparation" "status lists the problem"

tc status --session "$T/none.json"
expect_rc 1 "status of a missing session exits 1"
expect_err "cannot load session" "status reports why it cannot load"

# dispatch refusals
ctl_init "$T/b" none
ctl_advance_to_final
ctl_seal not_run
tc dispatch --session "$S" --output "$T/task.json"
expect_rc 1 "dispatch of a completed session exits 1"
expect_out "completed session has no dispatchable step" "dispatch refuses a completed session"
check "a refused dispatch writes no task" test ! -e "$T/task.json"
tc status --session "$S"
expect_out "No step is pending: the session is completed." "status of a completed session says so"
# an active session whose every step is sealed (hand-edited) has nothing to dispatch
python3 - "$S" <<'PY'
import json, sys
p = sys.argv[1]
d = json.load(open(p))
d["status"] = "active"
open(p, "w").write(json.dumps(d))
PY
tc dispatch --session "$S" --output "$T/task.json"
expect_out "session has no dispatchable step" "dispatch refuses an active session without a pending step"
tc seal --session "$S" --result "$T/result.json"
expect_out "current step is already sealed: final-e2e-report" "sealing into a fully sealed session names the sealed step"
python3 - "$T/result.json" <<'PY'
import json, sys
p = sys.argv[1]
d = json.load(open(p))
d["step_id"] = "no-such-step"
open(p, "w").write(json.dumps(d))
PY
tc seal --session "$S" --result "$T/result.json"
expect_out "session has no pending step" "seal refuses an active session without a pending step"

finish
