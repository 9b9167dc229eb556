#!/usr/bin/env bash
# run-next, run and prompt: one fresh host process per attempt, immutable
# receipts, and every way a host can misbehave (docs/spec/controller.md
# "Run-next and receipts", "Host delegation" and acceptance cases #26-#29).
. "$(dirname "$0")/lib.sh"

HOST="$TUNECTL_SRC/tests/fixtures/hosts/fake_host.py"
jq_() { /usr/bin/python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print(eval(sys.argv[2]))" "$@"; }

runner() {	# runner NAME MODE -> writes $T/NAME.json
	printf '["%s", "%s"]\n' "$HOST" "$2" >"$T/$1.json"
}
new_session() {	# new_session DIR MODE
	tc init --session "$1/artifacts/auto-tune-session.json" --artifact-root "$1/artifacts" \
	    --session-id session-20260905-a --optional-mode "${2:-none}"
	S="$1/artifacts/auto-tune-session.json"
	A="$1/artifacts"
}
for m in ok exit7 no-result bad-json wrong-step wrong-agent sleep grandchild flood edit-session; do
	runner "$m" "$m"
done

# --- #26: a good host is dispatched, sealed, and its receipt bound ---------
new_session "$T/s26"
tc run-next --session "$S" --runner-command-json "$T/ok.json"
expect_rc 0 "run-next with a good host exits 0"
tc next --session "$S"
expect_out '"phase": "s0_baseline"' "after run-next the next phase is s0_baseline"
receipts=$(ls "$A"/dispatches/*/dispatch-receipt.json | wc -l)
expect_eq "$receipts" 1 "exactly one dispatch receipt is written"
R="$A/dispatches/intake-preparation-attempt-001/dispatch-receipt.json"
expect_eq "$(jq_ "$R" "d['agent_id']")" "sk-intake-preparation" "the receipt names the phase agent"
expect_eq "$(jq_ "$R" "d['runner_status']")" "passed" "the receipt records runner_status passed"
expect_eq "$(jq_ "$R" "d['return_code']")" "0" "the receipt records the host's return code"
expect_eq "$(jq_ "$R" "d['task_sha256']")" "$(sha256sum <"$A/dispatches/intake-preparation-attempt-001/phase-task.json" | cut -d' ' -f1)" \
    "the receipt binds the task file's bytes"
expect_eq "$(jq_ "$S" "d['steps'][0]['dispatch_receipt_path']")" \
    "dispatches/intake-preparation-attempt-001/dispatch-receipt.json" "the sealed step binds the receipt path"
expect_eq "$(jq_ "$S" "d['steps'][0]['dispatch_receipt_sha256']")" "$(sha256sum <"$R" | cut -d' ' -f1)" \
    "the sealed step binds the receipt's digest"
tc verify --session "$S"
expect_rc 0 "the session verifies after run-next"

# --- #27: a failing host keeps the step pending; a retry takes attempt 2 ----
new_session "$T/s27"
tc run-next --session "$S" --runner-command-json "$T/exit7.json"
expect_rc 1 "a host exiting 7 fails run-next"
expect_out "Agent host exited with status 7" "the failure names the host's status"
tc next --session "$S"
expect_out '"step_id": "intake-preparation"' "a failed attempt leaves the step pending"
R1="$A/dispatches/intake-preparation-attempt-001/dispatch-receipt.json"
expect_eq "$(jq_ "$R1" "d['runner_status']")" "failed" "the failed attempt's receipt says failed"
expect_eq "$(jq_ "$R1" "d['return_code']")" "7" "the failed receipt records return code 7"
check "the failed attempt keeps its empty logs" test -f "$A/dispatches/intake-preparation-attempt-001/runner.stdout.log"
tc run-next --session "$S" --runner-command-json "$T/ok.json"
expect_rc 0 "a retry with a good host succeeds"
check "the retry uses attempt 002" test -f "$A/dispatches/intake-preparation-attempt-002/dispatch-receipt.json"
expect_eq "$(jq_ "$S" "d['steps'][0]['dispatch_receipt_path']")" \
    "dispatches/intake-preparation-attempt-002/dispatch-receipt.json" "the step binds the successful attempt"
tc verify --session "$S"
expect_rc 0 "the session verifies after a failed and a good attempt"

# --- #28: an impersonating result is archived, not sealed --------------------
new_session "$T/s28"
tc run-next --session "$S" --runner-command-json "$T/wrong-agent.json"
expect_rc 1 "a result with the wrong agent_id fails"
expect_out "phase result agent_id does not match the current step" "the refusal names agent_id"
R1="$A/dispatches/intake-preparation-attempt-001/dispatch-receipt.json"
expect_eq "$(jq_ "$R1" "d['runner_status']")" "failed" "the impersonating attempt's receipt says failed"
expect_eq "$(jq_ "$R1" "'agent_id' in d['error']")" "True" "the receipt's error mentions agent_id"
expect_eq "$(jq_ "$R1" "len(d['result_sha256'])")" "64" "the receipt binds the refused result's bytes"
check "the phase is not sealed" test ! -e "$A/phases/intake-preparation/phase-result.json"

# --- other host failures ----------------------------------------------------
new_session "$T/sx"
tc run-next --session "$S" --runner-command-json "$T/no-result.json"
expect_out "Agent host did not produce a readable phase result: [Errno 2] No such file or directory: '$A/dispatches/intake-preparation-attempt-001/phase-result.json'" \
    "a host that writes no result is refused with the OS error"
tc run-next --session "$S" --runner-command-json "$T/bad-json.json"
expect_out "Agent host did not produce a readable phase result: Expecting property name enclosed in double quotes: line 1 column 2 (char 1)" \
    "a result that is not JSON is refused with the parser's message"
tc run-next --session "$S" --runner-command-json "$T/wrong-step.json"
expect_out "phase result step_id does not match the current step" "a result for another step is refused"
tc run-next --session "$S" --runner-command-json "$T/edit-session.json"
expect_rc 1 "a host that edits the session fails"
expect_out "stale dispatch task does not match the current session" "its result is refused as stale"
check "the stale result is not sealed" test ! -e "$A/phases/intake-preparation/phase-result.json"
n=$(ls -d "$A"/dispatches/intake-preparation-attempt-* | wc -l)
expect_eq "$n" 4 "every failed attempt keeps its own directory"

# --- timeouts end the host's whole process group ------------------------------
new_session "$T/st"
tc run-next --session "$S" --runner-command-json "$T/sleep.json" --timeout-seconds 1 --grace-seconds 1
expect_rc 1 "a host past its timeout fails run-next"
expect_out "Agent host timed out after 1.0 seconds" "the timeout message uses Python's float form"
R1="$A/dispatches/intake-preparation-attempt-001/dispatch-receipt.json"
expect_eq "$(jq_ "$R1" "d['runner_status']")" "timed_out" "the receipt says timed_out"
expect_eq "$(jq_ "$R1" "'return_code' in d")" "False" "a timed-out receipt has no return_code"
export FAKE_PIDFILE="$T/grandchild.pid"
tc run-next --session "$S" --runner-command-json "$T/grandchild.json" --timeout-seconds 1 --grace-seconds 1
expect_out "Agent host timed out after 1.0 seconds" "a host whose grandchild ignores SIGTERM times out"
gpid=$(cat "$FAKE_PIDFILE" 2>/dev/null || echo 0)
sleep 0.2
# A killed orphan may linger as a zombie until init reaps it: only a
# running process counts as left behind.
alive() { [ -e "/proc/$1" ] && ! grep -q '^State:.*Z' "/proc/$1/status" 2>/dev/null; }
if [ "$gpid" -gt 0 ] && ! alive "$gpid"; then ok "no process of the timed-out host is left behind"
else not_ok "no process of the timed-out host is left behind" "grandchild $gpid still alive"; kill -9 "$gpid" 2>/dev/null; fi

# --- a flooding host is streamed to its log, not buffered -------------------
new_session "$T/sf"
tc run-next --session "$S" --runner-command-json "$T/flood.json"
expect_rc 0 "a host writing 100 MB to stdout still seals"
size=$(stat -c %s "$A/dispatches/intake-preparation-attempt-001/runner.stdout.log")
expect_eq "$size" 104857600 "all 100 MB reach the stdout log"

# --- argument errors ----------------------------------------------------------
echo '[]' >"$T/empty.json"
tc run-next --session "$S" --runner-command-json "$T/empty.json"
expect_out "runner_argv must be a non-empty string list" "an empty runner argv is refused"
echo '["ok", ""]' >"$T/blank.json"
tc run-next --session "$S" --runner-command-json "$T/blank.json"
expect_out "runner_argv must be a non-empty string list" "a runner argv with an empty string is refused"
tc run-next --session "$S" --runner-command-json "$T/ok.json" --timeout-seconds 0
expect_out "timeout_seconds must be positive" "a zero timeout is refused"
echo '["/nonexistent/host"]' >"$T/missing.json"
new_session "$T/sm"
tc run-next --session "$S" --runner-command-json "$T/missing.json"
expect_out "[Errno 2] No such file or directory: '/nonexistent/host'" "a missing host executable is reported"
expect_eq "$(jq_ "$A/dispatches/intake-preparation-attempt-001/dispatch-receipt.json" "d['runner_status']")" "failed" \
    "a host that cannot start still gets a failed receipt"
tc run-next --session "$T/none/auto-tune-session.json" --runner-command-json "$T/ok.json"
expect_rc 1 "run-next on a missing session fails"
check "no attempt directory is made for a session that cannot load" test ! -e "$T/none/dispatches"

# --- two run-next never race for one session ----------------------------------
new_session "$T/sr"
runner slow sleep
( "$TUNECTL_BIN" run-next --session "$S" --runner-command-json "$T/slow.json" --timeout-seconds 3 --grace-seconds 1 >/dev/null 2>&1 & )
sleep 0.5
TUNECTL_LOCK_TIMEOUT=30 tc run-next --session "$S" --runner-command-json "$T/ok.json"
expect_out "another run-next is already running for session" "a second run-next on the same session is refused at once, whatever TUNECTL_LOCK_TIMEOUT says"
sleep 3.5

# --- a controller killed mid-attempt takes its host along; the next run-next goes on
new_session "$T/sk"
"$TUNECTL_BIN" run-next --session "$S" --runner-command-json "$T/sleep.json" >/dev/null 2>&1 &
ctl=$!
for _ in 1 2 3 4 5 6 7 8 9 10; do
	[ -e "$A/dispatches/intake-preparation-attempt-001/phase-task.json" ] && break
	sleep 0.2
done
sleep 0.5
{ kill -9 "$ctl"; wait "$ctl"; } 2>/dev/null
sleep 0.3
if pgrep -f "$A/dispatches/intake-preparation-attempt-001" >/dev/null; then
	not_ok "a killed controller leaves no host running"
	pkill -9 -f "$A/dispatches/intake-preparation-attempt-001"
else
	ok "a killed controller leaves no host running"
fi
tc run-next --session "$S" --runner-command-json "$T/ok.json"
expect_rc 0 "run-next after a killed controller succeeds"
check "it takes the next attempt number" test -f "$A/dispatches/intake-preparation-attempt-002/dispatch-receipt.json"
check "the killed attempt keeps its task as evidence" test -f "$A/dispatches/intake-preparation-attempt-001/phase-task.json"
tc verify --session "$S"
expect_rc 0 "the session verifies after a killed controller"

# --- a seal whose receipt was lost to a crash is completed ----------------------
new_session "$T/sc"
mkdir -p "$A/dispatches/intake-preparation-attempt-001"
tc dispatch --session "$S" --output "$A/dispatches/intake-preparation-attempt-001/phase-task.json"
/usr/bin/python3 "$HOST" ok --task "$A/dispatches/intake-preparation-attempt-001/phase-task.json" \
    --result "$A/dispatches/intake-preparation-attempt-001/phase-result.json"
tc seal --session "$S" --result "$A/dispatches/intake-preparation-attempt-001/phase-result.json"
tc run-next --session "$S" --runner-command-json "$T/ok.json"
expect_rc 0 "run-next after an interrupted seal succeeds"
expect_err "completed the receipt" "run-next says it completed an interrupted attempt"
R1="$A/dispatches/intake-preparation-attempt-001/dispatch-receipt.json"
expect_eq "$(jq_ "$R1" "d['recovered']")" "True" "the recovered receipt is marked recovered"
expect_eq "$(jq_ "$S" "d['steps'][0]['dispatch_receipt_path']")" \
    "dispatches/intake-preparation-attempt-001/dispatch-receipt.json" "the recovered receipt is bound to its step"
tc verify --session "$S"
expect_rc 0 "the recovered session verifies"

# --- prompt: the five things a worker must be told ---------------------------
TASK="$A/dispatches/s0-baseline-attempt-001/phase-task.json"
tc prompt --task "$TASK" --result /tmp/r.json --host claude
expect_rc 0 "prompt prints a prompt"
expect_out "Phase task file: $TASK" "the prompt names the exact task path"
expect_out "agent_id: sk-s0-baseline" "the prompt names the agent_id"
expect_out "Load and follow the skill \`superkernel-s0-baseline\`" "the prompt tells the worker to load and follow the skill"
expect_out "execute-phase --task $TASK" "the prompt gives the validation command"
expect_out "/tmp/r.json" "the prompt names the result path"
expect_out "superkernel-auto-tune-phase-result-v1" "the prompt names the result schema"
expect_out "you own this phase only" "the prompt states the phase boundary"
tc prompt --task "$TASK" --host gemini
expect_rc 2 "an unknown host is a usage error"

# --- #29: the whole both-branch session through `tunectl run` ---------------
new_session "$T/s29" both
export FAKE_STATUS_optional_multistream=accepted FAKE_CANDIDATE=Sbest-derived
tc run --session "$S" --runner-command-json "$T/ok.json"
unset FAKE_STATUS_optional_multistream FAKE_CANDIDATE
expect_rc 0 "tunectl run drives a both-branch session to completion"
expect_err "session completed" "run reports completion"
expect_out "completed: 9 steps" "run prints a summary, not the session document"
expect_out "final-e2e-report             sealed   accepted" "one line per step with its state and outcome"
check "without --json the session document is not printed" bash -c '! grep -q "\"steps\"" <<<"$0"' "$out"
tc run --session "$S" --runner-command-json "$T/ok.json" --json
expect_rc 0 "tunectl run --json on a completed session"
expect_eq "$(python3 -c 'import json,sys; print(json.loads(sys.argv[1])["status"])' "$out")" "completed" \
    "--json prints the session document"
expect_eq "$(jq_ "$S" "d['status']")" "completed" "the session is completed"
expect_eq "$(jq_ "$S" "','.join(s['step_id'] for s in d['steps'])")" \
    "intake-preparation,s0-baseline,stage-a-scope-selection,stage-o-option-tuning,base-profile-source-mapping,optional-multistream,base-profile-derived,optional-source-range,final-e2e-report" \
    "nine steps in canonical order, base-profile-derived included"
expect_eq "$(jq_ "$S" "all('dispatch_receipt_path' in s for s in d['steps'])")" "True" "every step binds a dispatch receipt"
tc verify --session "$S"
expect_rc 0 "the completed session verifies"
report=$(cat "$A/FINAL_E2E_REPORT.md")
check "the report states the beneficial outcome" grep -q "最终 E2E 结论: 有收益" <<<"$report"
check "the report names the derived candidate" grep -q "Sbest-derived" <<<"$report"
check "the report gives the improvement" grep -q "10.000000%" <<<"$report"

# run stops after --max-attempts failures of one step
new_session "$T/sa"
tc run --session "$S" --runner-command-json "$T/exit7.json" --max-attempts 2
expect_rc 1 "run stops when a step keeps failing"
expect_out "step intake-preparation failed 2 attempts in a row" "run names the failing step"
expect_err "attempt 002" "run prints a progress line per attempt"

finish
