#!/usr/bin/env bash
# test_controller_compat.sh - files are interchangeable with the reference
# controller's: a session written in the reference's format is continued
# by tunectl, every file tunectl writes is Python's json.dumps(indent=2,
# sort_keys=True, ensure_ascii=False) + "\n" of its content, and digests
# and fingerprints agree with Python's canonical JSON.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/controller_fixtures.sh"

is_python_pretty() {	# the file is exactly what the reference's writer emits
	python3 - "$1" <<'PY'
import json, sys
raw = open(sys.argv[1], encoding="utf-8").read()
v = json.loads(raw)
sys.exit(raw != json.dumps(v, ensure_ascii=False, indent=2, sort_keys=True) + "\n")
PY
}

# A session as initialize_session writes it, plus a key tunectl does not know.
R="$T/ref/artifacts"
S="$R/auto-tune-session.json"
mkdir -p "$R"
python3 - "$S" "$R" <<'PY'
import json, sys
path, root = sys.argv[1:3]
phases = [
    ("intake-preparation", "intake_preparation", "sk-intake-preparation", "superkernel-intake-preparation", None),
    ("s0-baseline", "s0_baseline", "sk-s0-baseline", "superkernel-s0-baseline", None),
    ("stage-a-scope-selection", "stage_a_scope_selection", "sk-stage-a-scope-selection", "superkernel-stage-a-scope-selection", None),
    ("stage-o-option-tuning", "stage_o_option_tuning", "sk-stage-o-option-tuning", "superkernel-stage-o-option-tuning", None),
    ("base-profile-source-mapping", "base_profile_source_mapping", "sk-base-profile-source-mapping", "superkernel-base-profile-source-mapping", None),
    ("optional-experiments", "optional_experiments", "sk-optional-experiments", "superkernel-optional-experiments", "none"),
    ("final-e2e-report", "final_e2e_report", "sk-final-e2e-report", "superkernel-final-e2e-report", None),
]
session = {
    "schema_version": "superkernel-auto-tune-session-v1",
    "session_id": "会话-2026",
    "artifact_root": root,
    "optional_mode": "none",
    "entrypoint": "full",
    "status": "active",
    "created_at": "2026-09-05T01:02:03+00:00",
    "operator_note": {"zh": "保留未知字段", "ratio": 1e-07, "big": 123456789012345678901234567890},
    "steps": [{"step_id": i, "phase": p, "agent_id": a, "skill": s, "optional_branch": b,
               "derived_family_rebase": False, "state": "pending"} for i, p, a, s, b in phases],
}
open(path, "w", encoding="utf-8").write(json.dumps(session, ensure_ascii=False, indent=2, sort_keys=True) + "\n")
PY
fingerprint=$(py_digest "$S")

tc dispatch --session "$S" --output "$T/task.json"
expect_rc 0 "tunectl dispatches a reference-written session"
check "the task's session_fingerprint is Python's canonical digest of the session" \
    test "$(jpy "$T/task.json" 'd["session_fingerprint"]')" = "$fingerprint"
check "the task has exactly the reference's keys" test \
    "$(jpy "$T/task.json" '",".join(sorted(d))')" = \
    "artifact_root,consumed_handoffs,handoff,schema_version,session_fingerprint,session_id,session_path,step"
check "the task names the session by its resolved absolute path" \
    test "$(jpy "$T/task.json" 'd["session_path"]')" = "$(cd "$R" && pwd -P)/auto-tune-session.json"
check "the task's seal command runs this tunectl" test \
    "$(jpy "$T/task.json" 'd["handoff"]["seal_command"][0]')" = "$(readlink -f "$TUNECTL_BIN")"
check "the task's seal command is seal --session S --result placeholder" test \
    "$(jpy "$T/task.json" '" ".join(d["handoff"]["seal_command"][1:])')" = \
    "seal --session $(cd "$R" && pwd -P)/auto-tune-session.json --result <phase-result.json>"
check "dispatch writes the task in the reference's format" is_python_pretty "$T/task.json"
check "dispatch prints the task it wrote" test "$out" = "$(cat "$T/task.json")"

# A result with escapes, astral characters, floats and big integers.
ctl_result "$T/intake.json" "" '
result["decisions"] = [{"tab\tkey": "\u0001\u007f", "emoji": "😀", "f": [0.1, 1e16, -0.0, 1.5e-10],
                        "big": 10**30, "slash": "a/b", "quote": "\"\\"}]
result["input_fingerprints"]["控制"] = "b" * 64'
tc seal --session "$S" --result "$T/intake.json"
expect_rc 0 "tunectl seals a handoff into a reference-written session"
check "result_sha256 is Python's canonical digest of the result" \
    test "$(jpy "$S" 'd["steps"][0]["result_sha256"]')" = "$(py_digest "$T/intake.json")"
check "the sealed result file is in the reference's format" is_python_pretty "$R/phases/intake-preparation/phase-result.json"
check "the session is rewritten in the reference's format" is_python_pretty "$S"
check "keys tunectl does not know survive a seal" test \
    "$(jpy "$S" 'd["operator_note"]')" = '{"big": 123456789012345678901234567890, "ratio": 1e-07, "zh": "保留未知字段"}'
check "seal prints the session it wrote" test "$out" = "$(cat "$S")"
check "the old task is stale once the session changed" test \
    "$(py_digest "$S")" != "$fingerprint"

tc dispatch --session "$S" --output "$T/task2.json"
check "the next task consumes the sealed handoff" test \
    "$(jpy "$T/task2.json" 'd["consumed_handoffs"]')" = \
    "[{\"outcome_status\": \"succeeded\", \"result_path\": \"phases/intake-preparation/phase-result.json\", \"result_sha256\": \"$(py_digest "$T/intake.json")\", \"step_id\": \"intake-preparation\"}]"
check "the next task fingerprints the session as written" \
    test "$(jpy "$T/task2.json" 'd["session_fingerprint"]')" = "$(py_digest "$S")"

tc dispatch --session "$S" --output "$S"
expect_rc 1 "dispatch refuses to write its task over the session"
check "the session survives a dispatch aimed at it" is_python_pretty "$S"

# init writes what initialize_session writes
tc init --session "$T/new/s.json" --artifact-root "$T/new/root" --session-id s-new --optional-mode both
check "init writes the reference's format" is_python_pretty "$T/new/s.json"
check "init prints the session it wrote" test "$out" = "$(cat "$T/new/s.json")"
check "init's session has exactly the reference's keys" test \
    "$(jpy "$T/new/s.json" '",".join(sorted(d))')" = \
    "artifact_root,created_at,entrypoint,optional_mode,schema_version,session_id,status,steps"
check "init's steps have exactly the reference's keys" test \
    "$(jpy "$T/new/s.json" '",".join(sorted(d["steps"][0]))')" = \
    "agent_id,derived_family_rebase,optional_branch,phase,skill,state,step_id"

finish
