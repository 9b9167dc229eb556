#!/usr/bin/env bash
# test_controller_lifecycle.sh - init, next, seal, resume over whole
# schedules (acceptance cases 17, 21, 22, 23, 24, 33, 37 of
# docs/spec/controller.md "Acceptance cases").
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/controller_fixtures.sh"

# --- 17: init records the serial schedule and a not_requested optional phase
ctl_init "$T/a" none
expect_rc 0 "init exits 0"
expect_out '"schema_version": "superkernel-auto-tune-session-v1"' "init prints the session"
check "init writes the session with the session schema" \
    test "$(jpy "$S" 'd["schema_version"]')" = superkernel-auto-tune-session-v1
check "init records optional_mode none" test "$(jpy "$S" 'd["optional_mode"]')" = none
check "init lays out the seven phases in canonical order" test \
    "$(jpy "$S" '" ".join(s["phase"] for s in d["steps"])')" = \
    "intake_preparation s0_baseline stage_a_scope_selection stage_o_option_tuning base_profile_source_mapping optional_experiments final_e2e_report"
check "init gives the optional step branch none" \
    test "$(jpy "$S" 'd["steps"][5]["optional_branch"]')" = none
check "init stores the resolved artifact root" test "$(jpy "$S" 'd["artifact_root"]')" = "$(cd "$R" && pwd -P)"
check "init writes entrypoint full and status active" \
    test "$(jpy "$S" 'd["entrypoint"] + "/" + d["status"]')" = full/active
check "init timestamps created_at in UTC without microseconds" \
    grep -Eq '"created_at": "[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}\+00:00"' "$S"
tc next --session "$S"
expect_rc 0 "next exits 0"
expect_out '"agent_id": "sk-intake-preparation"' "next names the intake agent first"
expect_out '"state": "pending"' "next prints the pending step object"

# --- 21: sealing writes immutable phase artifacts; the same handoff twice is refused
ctl_result "$T/intake.json"
tc seal --session "$S" --result "$T/intake.json"
expect_rc 0 "seal of a valid intake handoff exits 0"
expect_out '"outcome_status": "succeeded"' "seal prints the session with the outcome"
check "seal writes phases/<step>/phase-result.json" test -f "$R/phases/intake-preparation/phase-result.json"
check "seal writes phases/<step>/PHASE_REPORT.md" test -f "$R/phases/intake-preparation/PHASE_REPORT.md"
check "sealed result_sha256 is the canonical digest of the result" test \
    "$(jpy "$S" 'd["steps"][0]["result_sha256"]')" = "$(py_digest "$T/intake.json")"
check "sealed result file is the result in the reference's pretty form" test \
    "$(python3 -c 'import json,sys; print(json.dumps(json.load(open(sys.argv[1])), ensure_ascii=False, indent=2, sort_keys=True))' "$T/intake.json")" = \
    "$(cat "$R/phases/intake-preparation/phase-result.json")"
check "sealed step records result_path" test \
    "$(jpy "$S" 'd["steps"][0]["result_path"]')" = phases/intake-preparation/phase-result.json
tc seal --session "$S" --result "$T/intake.json"
expect_rc 1 "sealing the same handoff again exits 1"
expect_out "current step is already sealed: intake-preparation" "sealing the same handoff again is already sealed"

# --- 37: resume after a restart returns the same pending step
tc resume --session "$S"
expect_rc 0 "resume exits 0"
expect_out '"session_id": "session-20260905-a"' "resume names the session"
check "resume returns the next pending step s0-baseline" \
    python3 -c 'import json,sys; d=json.loads(sys.argv[1]); sys.exit(d["next_step"]["step_id"] != "s0-baseline" or d["status"] != "active")' "$out"

# --- 22: both mode inserts the derived BASE only after an accepted multistream
ctl_init "$T/b" both
for i in 1 2 3 4 5; do ctl_seal; done
tc next --session "$S"
expect_out '"step_id": "optional-multistream"' "both: after the five gates the next step is optional-multistream"
ctl_seal accepted
expect_rc 0 "both: an accepted multistream is sealed"
tc next --session "$S"
expect_out '"step_id": "base-profile-derived"' "both: accepted multistream makes base-profile-derived next"
expect_out '"derived_family_rebase": true' "both: the derived BASE is a family rebase"
expect_out '"phase": "base_profile_source_mapping"' "both: the derived BASE runs the BASE phase"
ctl_seal
tc next --session "$S"
expect_out '"step_id": "optional-source-range"' "both: after the derived BASE comes optional-source-range"

# --- 33: the complete both lifecycle records every stage and the final ledger report
ctl_seal no_gain
ctl_seal accepted
expect_rc 0 "both: the accepted Final is sealed"
check "both: the session is completed" test "$(jpy "$S" 'd["status"]')" = completed
check "both: nine canonical steps, all sealed" test \
    "$(jpy "$S" '",".join(s["step_id"] + ":" + s["state"] for s in d["steps"])')" = \
    "intake-preparation:sealed,s0-baseline:sealed,stage-a-scope-selection:sealed,stage-o-option-tuning:sealed,base-profile-source-mapping:sealed,optional-multistream:sealed,base-profile-derived:sealed,optional-source-range:sealed,final-e2e-report:sealed"
check "both: sealing Final renders FINAL_E2E_REPORT.md" test -f "$R/FINAL_E2E_REPORT.md"
tc verify --session "$S"
expect_rc 0 "both: the completed session verifies"
expect_out '"valid": true' "both: verify says valid"
tc next --session "$S"
expect_eq "$out" "null" "next of a completed session is null"
tc seal --session "$S" --result "$R/phases/final-e2e-report/phase-result.json"
expect_out "completed session cannot accept a handoff" "a completed session refuses further handoffs"

# --- 23: a multistream without gain keeps the incumbent and skips the derived BASE
ctl_init "$T/c" both
for i in 1 2 3 4 5; do ctl_seal; done
ctl_seal no_gain
tc next --session "$S"
expect_out '"step_id": "optional-source-range"' "both: multistream no_gain goes straight to optional-source-range"
check "both: no derived BASE is inserted after no_gain" test "$(jpy "$S" 'len(d["steps"])')" = 8

# --- 24: a multistream result with a status not allowed for it is refused
ctl_init "$T/d" both
for i in 1 2 3 4 5; do ctl_seal; done
ctl_seal succeeded
expect_rc 1 "both: multistream succeeded exits 1"
expect_out "phase result status is invalid for optional_experiments" "both: multistream succeeded is invalid for optional_experiments"
check "both: the refused handoff leaves no scene" test ! -e "$R/phases/optional-multistream"

# full multistream: an accepted optional-experiments step inserts nothing
ctl_init "$T/e" multistream
for i in 1 2 3 4 5; do ctl_seal; done
ctl_seal accepted
tc next --session "$S"
expect_out '"step_id": "final-e2e-report"' "multistream: accepted optional-experiments goes to Final"

finish
