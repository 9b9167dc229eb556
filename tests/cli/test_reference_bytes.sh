#!/usr/bin/env bash
# test_reference_bytes.sh - under the default (reference) evidence policy
# every command writes, prints and digests exactly the documents the
# reference's format allows (docs/spec/controller.md, "Session fields",
# "Digests and fingerprints", "Controller commands", "Verify"), checked
# byte for byte after each command: the session file is the pretty form
# of itself and holds only the spec's keys, what seal prints is the file,
# tasks carry the spec's fingerprint of the file, verify and resume print
# the spec's objects, and the artifact root holds only the reference's
# files.  tunectl's own bindings are in the sidecar, which chains to the
# session file it was written with.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/controller_fixtures.sh"

HOST="$TUNECTL_SRC/tests/fixtures/hosts/fake_host.py"

# spec_check LABEL: the session file against the spec, byte for byte.
spec_check() {
	local label=$1 why
	if why=$(python3 - "$S" <<'PY'
import json, sys
raw = open(sys.argv[1], "rb").read()
d = json.loads(raw)
pretty = (json.dumps(d, ensure_ascii=False, indent=2, sort_keys=True) + "\n").encode()
if raw != pretty:
    sys.exit("the file is not json.dumps(indent=2, sort_keys=True, ensure_ascii=False) + newline")
top = {"schema_version", "session_id", "artifact_root", "optional_mode", "entrypoint",
       "status", "created_at", "steps"}
if set(d) != top:
    sys.exit("session keys %s" % sorted(set(d) ^ top))
base = {"step_id", "phase", "agent_id", "skill", "optional_branch", "derived_family_rebase", "state"}
sealed = base | {"result_path", "result_sha256", "outcome_status", "sealed_at"}
receipt = {"dispatch_receipt_path", "dispatch_receipt_sha256"}
for st in d["steps"]:
    keys = set(st)
    want = base if st["state"] == "pending" else sealed
    if st["state"] == "sealed" and receipt <= keys:
        want = sealed | receipt
    if keys != want:
        sys.exit("%s: keys %s" % (st["step_id"], sorted(keys ^ want)))
    if st["state"] == "sealed" and st["result_path"] != "phases/%s/phase-result.json" % st["step_id"]:
        sys.exit("%s: result_path %s" % (st["step_id"], st["result_path"]))
PY
	); then
		ok "$label: the session file is the spec's, byte for byte"
	else
		not_ok "$label: the session file is the spec's, byte for byte" "$why"
	fi
}

# root_check LABEL: only the reference's files under the artifact root
# (tunectl's session lock beside the session is its one addition).
root_check() {
	local extra
	extra=$(cd "$R" && find . -type f ! -name auto-tune-session.json \
	    ! -name auto-tune-session.json.lock ! -name auto-tune-session.json.run.lock \
	    ! -path './phases/*/phase-result.json' ! -path './phases/*/PHASE_REPORT.md' \
	    ! -name FINAL_E2E_REPORT.md ! -name ledger.json ! -path './dispatches/*' \
	    ! -path './intake/*' | sort)
	check "$1: the artifact root holds only the reference's files" test -z "$extra"
}

# digest FILE: the spec's _digest of a JSON file (sorted keys, compact,
# ensure_ascii=False, SHA-256 hex).
digest() {
	python3 -c 'import hashlib, json, sys
d = json.load(open(sys.argv[1], encoding="utf-8"))
print(hashlib.sha256(json.dumps(d, ensure_ascii=False, sort_keys=True, separators=(",", ":")).encode()).hexdigest())' "$1"
}

# sidecar_head: the last record of the session's sidecar: kind and
# session_sha256.
sidecar_head() {
	python3 -c 'import json, sys
r = json.load(open(sys.argv[1]))["records"][-1]
print(r["kind"], r["session_sha256"])' "$(sidecar_of "$S")"
}

# ---- init -----------------------------------------------------------------------
ctl_init "$T/a" none
expect_rc 0 "init of a reference-policy session"
spec_check "init"
check "init prints the file it wrote" test "$out" = "$(cat "$S")"
root_check "init"
check "init starts the sidecar, bound to the file it wrote" \
    test "$(sidecar_head)" = "init $(sha_file "$S")"

# ---- next, dispatch ---------------------------------------------------------------
tc next --session "$S"
check "next prints the first pending step as the file holds it" \
    test "$out" = "$(jpy "$S" 'json.dumps(d["steps"][0], ensure_ascii=False, indent=2, sort_keys=True)')"
tc dispatch --session "$S" --output "$T/task.json"
expect_rc 0 "dispatch writes a task"
check "the task's session_fingerprint is the spec's _digest of the session file" \
    test "$(jpy "$T/task.json" 'd["session_fingerprint"]')" = "$(digest "$S")"
check "the task keys are the spec's" test \
    "$(jpy "$T/task.json" '" ".join(sorted(d))')" = \
    "artifact_root consumed_handoffs handoff schema_version session_fingerprint session_id session_path step"

# ---- seal ------------------------------------------------------------------------
mkdir -p "$R/intake"
echo '{"cpu": "x"}' >"$R/intake/environment.json"
ctl_seal "" 'result["produced_artifacts"] = ["intake/environment.json"]'
expect_rc 0 "seal of intake"
spec_check "seal"
check "seal prints the file it wrote, byte for byte" test "$out" = "$(cat "$S")"
check "the step's result_sha256 is the spec's _digest of the sealed result" \
    test "$(jpy "$S" 'd["steps"][0]["result_sha256"]')" = \
    "$(digest "$R/phases/intake-preparation/phase-result.json")"
root_check "seal"
check "the seal's sidecar record is bound to the session file it wrote" \
    test "$(sidecar_head)" = "seal $(sha_file "$S")"
sidecar_manifest "$S" intake-preparation >"$T/intake.manifest"
check "and binds the artifact the result names" \
    grep -q '"path": "intake/environment.json"' "$T/intake.manifest"
sealed_bytes=$(sha_file "$S")

# ---- read-only commands leave every byte alone ------------------------------------
tc verify --session "$S"
expect_rc 0 "verify of the sealed session"
check "verify prints the spec's object, byte for byte" test "$out" = \
    "$(printf '{\n  "session_id": "%s",\n  "status": "active",\n  "valid": true\n}' "$CTL_ID")"
check "verify says nothing on stderr when every step is bound" test -z "$err"
tc resume --session "$S"
check "resume prints {next_step, session_id, status}" test \
    "$(printf '%s' "$out" | python3 -c 'import json, sys; print(" ".join(sorted(json.load(sys.stdin))))')" = \
    "next_step session_id status"
tc status --session "$S"
check "next, dispatch, verify, resume and status leave the session file alone" \
    test "$(sha_file "$S")" = "$sealed_bytes"

# ---- a short-circuit seal and the Final ------------------------------------------
ctl_seal blocked
expect_rc 0 "S0 blocked short-circuits the session"
spec_check "short-circuit"
check "the short-circuit prints the file it wrote" test "$out" = "$(cat "$S")"
check "the short-circuit's sidecar record binds every step it sealed" test \
    "$(python3 -c 'import json, sys
r = json.load(open(sys.argv[1]))["records"][-1]
print(" ".join(m["step_id"] for m in r["manifests"]))' "$(sidecar_of "$S")")" = \
    "s0-baseline stage-a-scope-selection stage-o-option-tuning base-profile-source-mapping optional-experiments"
root_check "short-circuit"
ctl_seal not_run
expect_rc 0 "the Final seals"
spec_check "Final"
check "the Final prints the file it wrote" test "$out" = "$(cat "$S")"
root_check "Final"
tc verify --session "$S"
check "verify of the completed session prints the spec's object" test "$out" = \
    "$(printf '{\n  "session_id": "%s",\n  "status": "completed",\n  "valid": true\n}' "$CTL_ID")"

# ---- run-next -------------------------------------------------------------------
printf '["%s", "ok"]\n' "$HOST" >"$T/ok.json"
R="$T/rn/artifacts"; S="$R/auto-tune-session.json"
tc init --session "$S" --artifact-root "$R" --session-id session-20260905-a --optional-mode none
tc run-next --session "$S" --runner-command-json "$T/ok.json"
expect_rc 0 "run-next seals intake through a host"
spec_check "run-next"
check "run-next binds its receipt with the spec's keys and digest" test \
    "$(jpy "$S" 'd["steps"][0]["dispatch_receipt_sha256"]')" = \
    "$(sha_file "$R/$(jpy "$S" 'd["steps"][0]["dispatch_receipt_path"]')")"
root_check "run-next"
tc verify --session "$S"
expect_rc 0 "the run-next session verifies"
check "with every step bound" test -z "$err"

finish
