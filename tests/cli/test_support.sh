#!/usr/bin/env bash
# tunectl support dispatch | run | roles: a support role is handed to a
# fresh worker through an agent host, bound to the session as it is, in its
# own attempt directory with a receipt; a read-only role that writes outside
# its output directory (into phases/, the session, the root) is refused with
# the changed paths named.  The stand-in worker is
# tests/fixtures/hosts/fake_support.py.
. "$(dirname "$0")/lib.sh"

FAKE_HOST=$TUNECTL_SRC/tests/fixtures/hosts/fake_host.py
FAKE=$TUNECTL_SRC/tests/fixtures/hosts/fake_support.py
jq_() { /usr/bin/python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print(eval(sys.argv[2]))" "$@"; }
runner() {	# runner FILE ARGV...: an agent-runner-v1 file
	local f=$1
	shift
	/usr/bin/python3 -c 'import json,sys; json.dump(sys.argv[2:], open(sys.argv[1], "w"))' "$f" "$@"
}

A=$T/a
S=$A/auto-tune-session.json
tc init --session "$S" --artifact-root "$A" --session-id sup-1 --optional-mode multistream
runner "$T/phase.json" "$FAKE_HOST"
runner "$T/ok.json" "$FAKE"

# ---- roles -------------------------------------------------------------------
tc support roles
expect_rc 0 "support roles exits 0"
expect_eq "$(printf '%s' "$out" | /usr/bin/python3 -c 'import json,sys; print(" ".join(r["agent_id"] for r in json.load(sys.stdin)))')" \
    "sk-fusion-performance-analyst sk-multistream-tuning-executor sk-source-range-experiment-executor sk-failure-isolation-analyst sk-prof-timeline-analyst" \
    "support roles lists the five roles"
expect_out '"read_only": true' "support roles says which roles are read-only"

# ---- refusals before any attempt --------------------------------------------
tc support run --session "$S" --role sk-nobody --runner-command-json "$T/ok.json"
expect_rc 2 "an unknown role is a usage error"
expect_err "argument --role: invalid choice: 'sk-nobody'" "the usage error lists the roles"
tc support run --session "$S" --role sk-fusion-performance-analyst
expect_rc 2 "support run without a runner (and no TUNECTL_RUNNER_COMMAND_JSON) is a usage error"
tc support run --session "$S" --role sk-fusion-performance-analyst --runner-command-json "$T/ok.json"
expect_rc 1 "intake may not ask for the fusion analyst"
expect_out "support role sk-fusion-performance-analyst is not available to step intake-preparation" \
    "the refusal names the role and the step"
check "a refused role leaves no support attempt" test ! -e "$A/support"

# Seal intake, S0, Stage A and Stage O: BASE is next.
for _ in 1 2 3 4; do tc run-next --session "$S" --runner-command-json "$T/phase.json"; done
expect_eq "$(jq_ "$S" "[s['step_id'] for s in d['steps'] if s['state']=='pending'][0]")" \
    "base-profile-source-mapping" "BASE is the step a support role now serves"
tc support run --session "$S" --role sk-multistream-tuning-executor --runner-command-json "$T/ok.json"
expect_rc 1 "BASE may not ask for the multistream executor"

# ---- dispatch ------------------------------------------------------------------
echo '{"question": "classify"}' >"$A/base-request.json"
tc support dispatch --session "$S" --role sk-fusion-performance-analyst --output "$T/st.json" \
    --request "$A/base-request.json"
expect_rc 0 "support dispatch writes the task"
expect_eq "$(jq_ "$T/st.json" "d['schema_version'], d['role']['agent_id'], d['role']['read_only'], d['requested_for']['step_id'], d['request']['path']")" \
    "('tunectl-support-task-v1', 'sk-fusion-performance-analyst', True, 'base-profile-source-mapping', 'base-request.json')" \
    "the support task names the role, the step it serves and the request"
expect_eq "$(jq_ "$T/st.json" "d['request']['sha256']")" "$(sha256sum "$A/base-request.json" | cut -d' ' -f1)" \
    "the request is bound by the SHA-256 of its bytes"
fp=$("$TUNECTL_BIN" dispatch --session "$S" --output "$T/pt.json" | /usr/bin/python3 -c 'import json,sys; print(json.load(sys.stdin)["session_fingerprint"])')
expect_eq "$(jq_ "$T/st.json" "d['session_fingerprint']")" "$fp" "the support task is bound to the session's current fingerprint"
tc support dispatch --session "$S" --role sk-fusion-performance-analyst --output "$T/x.json" --request /etc/hostname
expect_rc 1 "a request outside the artifact root is refused"
expect_out "support request must be inside the artifact root" "the refusal says why"

# ---- a passing read-only run -----------------------------------------------------
tc support run --session "$S" --role sk-fusion-performance-analyst --runner-command-json "$T/ok.json" \
    --request base-request.json
expect_rc 0 "a well-behaved analyst's support run passes"
D=$A/support/sk-fusion-performance-analyst-attempt-001
check "the attempt directory holds the task, the phase task, the output, the result, the logs and the receipt" \
    test -f "$D/support-task.json" -a -f "$D/phase-task.json" -a -d "$D/output" -a -f "$D/support-result.json" \
    -a -f "$D/runner.stdout.log" -a -f "$D/support-receipt.json"
expect_eq "$(jq_ "$D/support-receipt.json" "d['schema_version'], d['runner_status'], d['tree_check']['changed'], d['read_only']")" \
    "('tunectl-support-receipt-v1', 'passed', [], True)" "the receipt says passed, read-only, nothing changed"
expect_eq "$(jq_ "$D/support-receipt.json" "d['result_sha256']")" "$(sha256sum "$D/support-result.json" | cut -d' ' -f1)" \
    "the receipt binds the result file's digest"
expect_eq "$(jq_ "$D/support-receipt.json" "d['task_sha256']")" "$(sha256sum "$D/support-task.json" | cut -d' ' -f1)" \
    "the receipt binds the task file's digest"
tc prompt --task "$D/support-task.json" --result "$D/support-result.json" --host claude
expect_rc 0 "tunectl prompt builds a support worker's prompt"
path=$(printf '%s\n' "$out" | sed -n 's/^ *\(\/.*\/SKILL\.md\)$/\1/p' | head -1)
check "the support prompt names the role's existing SKILL.md" test -f "$path"
expect_eq "$(basename "$(dirname "$path")")" "superkernel-fusion-performance-analysis" "the SKILL.md is the role's skill"
expect_out "you are read-only" "the support prompt states the read-only boundary"
expect_out "Output directory (yours alone): $A/support/sk-fusion-performance-analyst-attempt-001/output" \
    "the support prompt names the output directory"
tc execute-phase --task "$D/phase-task.json" --phase base_profile_source_mapping
expect_rc 0 "the phase task copied into the attempt validates with execute-phase"
tc verify --session "$S"
expect_rc 0 "a support run leaves the session verifiable (nothing is sealed)"

# ---- the tree check ----------------------------------------------------------------
echo "notes" >"$A/notes.txt"
bad_run() {	# bad_run MODE ROLE: run a misbehaving worker, expect a refusal
	runner "$T/bad.json" "$FAKE" "$1"
	tc support run --session "$S" --role "$2" --runner-command-json "$T/bad.json"
}
bad_run write-phases sk-fusion-performance-analyst
expect_rc 1 "a read-only worker that writes into phases/ is refused"
expect_err "read-only support role sk-fusion-performance-analyst changed files outside its output directory: phases/planted, phases/planted/phase-result.json" \
    "the refusal names the files it planted"
last=$(ls -d "$A"/support/sk-fusion-performance-analyst-attempt-* | tail -1)
expect_eq "$(jq_ "$last/support-receipt.json" "d['runner_status'], d['tree_check']['violations']")" \
    "('failed', ['phases/planted', 'phases/planted/phase-result.json'])" "the receipt records the violation"
rm -rf "$A/phases/planted"

bad_run write-root sk-failure-isolation-analyst
expect_rc 1 "a read-only worker that changes a file at the root is refused"
expect_err "changed files outside its output directory: notes.txt" "the refusal names notes.txt"

bad_run new-dir sk-prof-timeline-analyst
expect_rc 1 "a read-only worker that creates a directory outside its output is refused"
expect_err "scratch-dir" "the refusal names the new directory"
rmdir "$A/scratch-dir"

bad_run touch-session sk-fusion-performance-analyst
expect_rc 1 "a read-only worker that rewrites the session is refused"
expect_err "auto-tune-session.json" "the refusal names the session file"

# ---- other refusals ------------------------------------------------------------------
bad_run outside-output sk-fusion-performance-analyst
expect_rc 1 "a result whose artifact is outside the output directory is refused"
expect_err "is not in the role's output directory" "the refusal says where it must be"
bad_run wrong-agent sk-fusion-performance-analyst
expect_rc 1 "a result for another role is refused"
expect_err "support result agent_id does not match the support role" "the refusal names agent_id"
bad_run bad-json sk-fusion-performance-analyst
expect_rc 1 "an unreadable result is refused"
bad_run exit3 sk-fusion-performance-analyst
expect_rc 1 "a host that exits 3 fails the support run"
expect_err "Agent host exited with status 3" "the failure names the exit status"
runner "$T/sleep.json" "$FAKE" sleep
tc support run --session "$S" --role sk-fusion-performance-analyst --runner-command-json "$T/sleep.json" \
    --timeout-seconds 1 --grace-seconds 1
expect_rc 1 "a host past its timeout is ended and the run fails"
expect_err "Agent host timed out after 1.0 seconds" "the failure names the timeout"
last=$(ls -d "$A"/support/sk-fusion-performance-analyst-attempt-* | tail -1)
expect_eq "$(jq_ "$last/support-receipt.json" "d['runner_status']")" "timed_out" "the receipt says timed_out"

# An executor may write outside its output directory, but never protected evidence.
tc run-next --session "$S" --runner-command-json "$T/phase.json"
runner "$T/bad.json" "$FAKE" write-root
tc support run --session "$S" --role sk-multistream-tuning-executor --runner-command-json "$T/bad.json"
expect_rc 0 "an executor may change files outside protected evidence"
last=$(ls -d "$A"/support/sk-multistream-tuning-executor-attempt-* | tail -1)
expect_eq "$(jq_ "$last/support-receipt.json" "d['tree_check']['changed'], d['tree_check']['violations']")" \
    "(['notes.txt'], [])" "the executor's receipt still records what it changed"
bad_run write-phases sk-multistream-tuning-executor
expect_rc 1 "an executor that writes into phases/ is refused"
expect_err "support role sk-multistream-tuning-executor changed protected evidence: phases/planted" \
    "the refusal names the protected path"
rm -rf "$A/phases/planted"
tc support run --session "$S" --role sk-source-range-experiment-executor --runner-command-json "$T/ok.json"
expect_rc 1 "the source-range executor is refused on the multistream branch"
expect_out "(optional branch source-range only)" "the refusal says which branch it serves"

# The runner exported by run-next reaches a worker's own support run.
A2=$T/b
S2=$A2/auto-tune-session.json
tc init --session "$S2" --artifact-root "$A2" --session-id sup-2 --optional-mode none
cat >"$T/nested.sh" <<NESTED
#!/bin/sh
# a phase worker that asks for support through the runner run-next exported
if [ -z "\$TUNECTL_RUNNER_COMMAND_JSON" ]; then echo "no runner exported" >&2; exit 9; fi
# the host keeps streaming its log while the support worker runs
( for i in 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20; do echo tick; sleep 0.05; done ) &
"$TUNECTL_BIN" support run --session "$S2" --role sk-failure-isolation-analyst \
    --runner-command-json "$T/ok.json" >/dev/null 2>"$T/nested.err"
echo \$? >"$T/nested.rc"
wait
exec /usr/bin/python3 "$FAKE_HOST" "\$@"
NESTED
chmod +x "$T/nested.sh"
runner "$T/nested.json" "$T/nested.sh"
for _ in 1 2 3; do tc run-next --session "$S2" --runner-command-json "$T/phase.json"; done
tc run-next --session "$S2" --runner-command-json "$T/nested.json"
expect_rc 0 "a phase worker that runs a support role still seals its phase"
expect_eq "$(cat "$T/nested.rc" 2>/dev/null)" "0" "the support run inside a phase attempt passes (its host's logs are not held against it)"
check "the nested support attempt exists" test -f "$A2/support/sk-failure-isolation-analyst-attempt-001/support-receipt.json"

finish
