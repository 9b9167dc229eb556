#!/usr/bin/env bash
# test_worker_adversary.sh - a phase worker (or its agent host) plays the
# adversary against run-next, the readers, the lease runner and
# execute-phase (issue 17, docs/security.md "The worker as adversary"):
#   4  the attempt directory swapped for a symlink while the host runs
#   5  a dispatch receipt forged by the host, or left for recovery
#   6  a FIFO where a receipt or a parent session file is read
#   7  malformed entries in a device queue directory
#   8  a lease runner killed with SIGKILL while its command runs
#   9  a host that leaves a background process behind when it exits 0
#  10  a symlinked phase-executions directory under execute-phase
#  11  lease markers in the environment without the lease held
# (items 1 and 2, the HTML report, are in test_report_html.sh).
#
# Every wait is bounded: commands that could hang run under timeout(1),
# and a timeout fails the check that names what it waited for.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/controller_fixtures.sh"

unset SUPERKERNEL_DEVICE_LEASE_HELD SUPERKERNEL_DEVICE_IDS SUPERKERNEL_DEVICE_LEASE_ROOT
HOST="$TUNECTL_SRC/tests/fixtures/hosts/fake_host.py"
OUTSIDE=$T/outside
mkdir -p "$OUTSIDE"
lacks() { ! grep -q "$@"; }	# lacks PATTERN FILE
step_state() { jpy "$1" "next(s['state'] for s in d['steps'] if s['step_id'] == '$2')"; }
bound_receipt() { jpy "$1" "next(s.get('dispatch_receipt_path') for s in d['steps'] if s['step_id'] == '$2')"; }

# wait_file FILE SECONDS: poll (10 ms) until FILE exists; false on timeout
wait_file() {
	local i
	for i in $(seq $(($2 * 100))); do
		[ -e "$1" ] && return 0
		sleep 0.01
	done
	echo "# timed out after $2 s waiting for $1" >&2
	return 1
}
alive() { kill -0 "$1" 2>/dev/null; }

# host SCRIPT BODY: an agent host that first writes an honest result with
# the fake host, then runs BODY with $task, $result and $dir (the attempt
# directory) set.
host() {
	cat >"$T/$1" <<SH
#!/bin/sh
task=\$2 result=\$4 dir=\$(dirname "\$4")
python3 "$HOST" ok "\$@" || exit 9
$2
SH
	chmod +x "$T/$1"
	printf '["%s"]\n' "$T/$1" >"$T/$1.json"
}
printf '["%s", "ok"]\n' "$HOST" >"$T/ok.json"

# ---- 4. the attempt directory swapped while the host runs --------------------------
host swap.sh 'mkdir -p '"$OUTSIDE"'/swapped
cp "$result" "$task" '"$OUTSIDE"'/swapped/
mv "$dir" "$dir.moved"
ln -s '"$OUTSIDE"'/swapped "$dir"'
tc init --session "$T/sw/s.json" --artifact-root "$T/sw" --session-id "$CTL_ID" --optional-mode none
tc run-next --session "$T/sw/s.json" --runner-command-json "$T/swap.sh.json"
expect_rc 1 "an attempt directory swapped for a symlink: run-next refuses"
expect_out "dispatch attempt directory was replaced while the agent host ran" "the swap is named"
check "the swapped attempt: nothing is written outside the root" test ! -e "$OUTSIDE/swapped/dispatch-receipt.json"
check "the swapped attempt: the step stays pending" test "$(step_state "$T/sw/s.json" intake-preparation)" = pending
tc verify --session "$T/sw/s.json"
expect_rc 0 "the swapped attempt: the session still verifies"
tc run-next --session "$T/sw/s.json" --runner-command-json "$T/ok.json"
expect_rc 0 "an honest host then seals the step in a new attempt (the planted link stays)"
expect_eq "$(bound_receipt "$T/sw/s.json" intake-preparation)" \
    "dispatches/intake-preparation-attempt-002/dispatch-receipt.json" "the new attempt's receipt is bound"

# the whole dispatches/ directory swapped while the host runs
host swapall.sh 'mkdir -p '"$OUTSIDE"'/all
mv "$(dirname "$dir")" "$(dirname "$dir").moved"
mkdir -p '"$OUTSIDE"'/all/$(basename "$dir")
cp "$result" "$task" '"$OUTSIDE"'/all/$(basename "$dir")/
ln -s '"$OUTSIDE"'/all "$(dirname "$dir")"'
tc init --session "$T/sa/s.json" --artifact-root "$T/sa" --session-id "$CTL_ID" --optional-mode none
tc run-next --session "$T/sa/s.json" --runner-command-json "$T/swapall.sh.json"
expect_rc 1 "dispatches/ swapped for a symlink while the host runs: run-next refuses"
check "dispatches/ swapped: nothing is written outside the root" \
    test -z "$(find "$OUTSIDE/all" -name dispatch-receipt.json)"
tc verify --session "$T/sa/s.json"
expect_rc 0 "dispatches/ swapped: the session still verifies"

# ---- 5. forged receipts ----------------------------------------------------------------
host forge.sh 'printf "{\"schema_version\": \"superkernel-auto-tune-dispatch-receipt-v1\", \"forged\": true}" >"$dir/dispatch-receipt.json"'
tc init --session "$T/fg/s.json" --artifact-root "$T/fg" --session-id "$CTL_ID" --optional-mode none
tc run-next --session "$T/fg/s.json" --runner-command-json "$T/forge.sh.json"
expect_rc 1 "a host that writes its own dispatch receipt: the attempt is refused"
expect_out "only tunectl writes" "the forged receipt is named"
check "the forged receipt: the step stays pending (nothing sealed)" test "$(step_state "$T/fg/s.json" intake-preparation)" = pending
check "the forged receipt is replaced by tunectl's failure receipt" \
    lacks forged "$T/fg/dispatches/intake-preparation-attempt-001/dispatch-receipt.json"
expect_eq "$(jpy "$T/fg/dispatches/intake-preparation-attempt-001/dispatch-receipt.json" 'd["runner_status"]')" "failed" \
    "the attempt's receipt records the failure"
tc run-next --session "$T/fg/s.json" --runner-command-json "$T/ok.json"
expect_rc 0 "the next honest attempt seals"
check "no bound receipt is the forged one" test -z "$(grep -rl forged "$T/fg/dispatches" --include=dispatch-receipt.json)"
tc verify --session "$T/fg/s.json"
expect_rc 0 "after the forged receipt: the session verifies"

# recovery (a controller killed between sealing and binding the receipt)
# rewrites a receipt it cannot re-derive instead of binding it
tc init --session "$T/rc/s.json" --artifact-root "$T/rc" --session-id "$CTL_ID" --optional-mode none
A1=$T/rc/dispatches/intake-preparation-attempt-001
mkdir -p "$A1"
tc dispatch --session "$T/rc/s.json" --output "$A1/phase-task.json"
"$HOST" ok --task "$A1/phase-task.json" --result "$A1/phase-result.json"
tc seal --session "$T/rc/s.json" --result "$A1/phase-result.json"
python3 - "$A1" <<'PY'
import hashlib, json, sys
d = sys.argv[1]
sha = lambda p: hashlib.sha256(open(p, "rb").read()).hexdigest()
r = {"schema_version": "superkernel-auto-tune-dispatch-receipt-v1", "session_id": "session-20260905-a",
     "step_id": "intake-preparation", "phase": "intake_preparation", "agent_id": "sk-intake-preparation",
     "skill": "x", "attempt": 7, "runner_status": "passed", "forged": True,
     "result_sha256": sha(d + "/phase-result.json"), "task_sha256": sha(d + "/phase-task.json"),
     "runner_argv_sha256": "0" * 64, "started_at": "2000-01-01T00:00:00Z", "finished_at": "2000-01-01T00:00:01Z"}
json.dump(r, open(d + "/dispatch-receipt.json", "w"))
PY
tc run-next --session "$T/rc/s.json" --runner-command-json "$T/ok.json"
expect_eq "$(bound_receipt "$T/rc/s.json" intake-preparation)" \
    "dispatches/intake-preparation-attempt-001/dispatch-receipt.json" "recovery binds a receipt for the sealed step"
check "recovery did not bind the forged receipt" lacks forged "$A1/dispatch-receipt.json"
expect_eq "$(jpy "$A1/dispatch-receipt.json" '[d["attempt"], d["recovered"], d["runner_status"]]')" '[1, true, "passed"]' \
    "the rewritten receipt is tunectl's own recovered receipt"
tc verify --session "$T/rc/s.json"
expect_rc 0 "after recovery the session verifies"

# ---- 6. FIFOs where documents are hashed ---------------------------------------------
tc init --session "$T/ff/s.json" --artifact-root "$T/ff" --session-id "$CTL_ID" --optional-mode none
tc run-next --session "$T/ff/s.json" --runner-command-json "$T/ok.json"
RCPT=$T/ff/$(bound_receipt "$T/ff/s.json" intake-preparation)
rm "$RCPT"
mkfifo "$RCPT"
for cmd in verify status resume "report html"; do
	extra=()
	[ "$cmd" = "report html" ] && extra=(--output "$T/ff.html")
	# shellcheck disable=SC2086
	timeout 10 "$TUNECTL_BIN" $cmd --session "$T/ff/s.json" "${extra[@]}" >"$T/ff.out" 2>&1
	r=$?
	check "a FIFO as a bound receipt: '$cmd' does not hang" test "$r" != 124
done
timeout 10 "$TUNECTL_BIN" verify --session "$T/ff/s.json" >"$T/ff.out" 2>&1
r=$?
check "a FIFO as a bound receipt: verify fails" test "$r" = 1
check "a FIFO as a bound receipt: verify names it" grep -q "Illegal seek" "$T/ff.out"
rm "$RCPT"

python3 "$TUNECTL_SRC/tests/fixtures/derive/derive_fixture.py" parent "$TUNECTL_BIN" "$T/p" >/dev/null
P=$T/p/parent-artifacts
tc derive-session --parent-session "$P/auto-tune-session.json" --session "$T/child/s.json" \
    --artifact-root "$T/child" --session-id derived --profiling-analysis "$P/evidence/profiling-analysis.json" \
    --ledger "$P/evidence/experiment-ledger.json" --approve-imported-evidence --optional-mode multistream
expect_rc 0 "a derived child for the lineage check"
mv "$P/auto-tune-session.json" "$P/auto-tune-session.json.real"
mkfifo "$P/auto-tune-session.json"
timeout 10 "$TUNECTL_BIN" lineage --session "$T/child/s.json" >"$T/lin.out" 2>&1
r=$?
check "a FIFO as the parent session: lineage does not hang" test "$r" != 124
rm "$P/auto-tune-session.json"
mv "$P/auto-tune-session.json.real" "$P/auto-tune-session.json"

# the shared readers themselves
mkfifo "$T/fifo"
timeout 10 "$TUNECTL_BIN" sha256 "$T/fifo" >"$T/sha.out" 2>&1
r=$?
check "sha256 of a FIFO does not hang" test "$r" != 124
check "sha256 of a FIFO: Illegal seek" grep -q "\[Errno 29\] Illegal seek: '$T/fifo'" "$T/sha.out"

# ---- 7. malformed device queue entries -------------------------------------------------
L=$T/leases7
Q=$L/npu-device-0.queue
mkdir -p "$Q"
lease7() {	# lease7 NAME: one lease of device 0, bounded twice over
	timeout 20 "$TUNECTL_BIN" lease run --lease-root "$L" --device-id 0 --timeout-seconds 5 \
	    --lease-timeout-seconds 2 --cwd "$T" --manifest-out "$T/l7/$1.json" -- /bin/true >/dev/null 2>&1
	rc=$?
}
mkdir "$Q/00000000000000000001"
lease7 subdir
check "a directory named like a ticket: lease run does not spin past its deadline" test "$rc" != 124
expect_rc 0 "a directory named like a ticket is not a ticket: the lease is taken"
rmdir "$Q/00000000000000000001"
: >"$Q/99999999999999999999"
lease7 huge
check "a ticket number beyond 2^64: lease run does not spin past its deadline" test "$rc" != 124
expect_rc 0 "a ticket number beyond 2^64 is not a ticket: the lease is taken"
rm "$Q/99999999999999999999"
mkfifo "$Q/00000000000000000001"
lease7 fifo
check "a FIFO named like a ticket: lease run does not hang opening it" test "$rc" != 124
expect_rc 0 "a FIFO named like a ticket is not a ticket: the lease is taken"
timeout 10 "$TUNECTL_BIN" lease status --lease-root "$L" >/dev/null 2>&1
check "a FIFO named like a ticket: lease status does not hang" test "$?" != 124
rm "$Q/00000000000000000001"

# ---- 8. a killed lease runner's command keeps the lease ---------------------------------
L=$T/leases8
"$TUNECTL_BIN" lease run --lease-root "$L" --device-id 0 --timeout-seconds 60 --cwd "$T" \
    --manifest-out "$T/l8/first.json" -- /bin/sh -c 'echo $$ >"$0/cmd.pid"; exec sleep 30' "$T" \
    >/dev/null 2>&1 &
runner=$!
if wait_file "$T/cmd.pid" 10; then
	cmd=$(cat "$T/cmd.pid")
	kill -9 "$runner"
	wait_for 10 "the killed lease runner" "$runner"
	tc lease run --lease-root "$L" --device-id 0 --timeout-seconds 5 --lease-timeout-seconds 0.5 \
	    --cwd "$T" --manifest-out "$T/l8/second.json" -- /bin/true
	check "the first command is still running" alive "$cmd"
	expect_rc 2 "a second lease is refused while the killed runner's command runs"
	expect_eq "$(jpy "$T/l8/second.json" 'd["reason"]')" "timed out acquiring NPU device lease 0" \
	    "the second request times out on the device"
	kill -9 "$cmd" 2>/dev/null
	for i in $(seq 500); do alive "$cmd" || break; sleep 0.01; done
	tc lease run --lease-root "$L" --device-id 0 --timeout-seconds 5 --lease-timeout-seconds 5 \
	    --cwd "$T" --manifest-out "$T/l8/third.json" -- /bin/true
	expect_rc 0 "once the command is gone the device is free again"
else
	not_ok "the lease runner started its command (waited 10 s for cmd.pid)"
	kill -9 "$runner" 2>/dev/null
fi

# ---- 9. a host's background processes end with the host ---------------------------------
host bg.sh '(exec sleep 60) &
echo $! >'"$T"'/bg.pid
setsid sh -c "echo \$\$ >'"$T"'/daemon.pid; exec sleep 60" &
i=0; while [ ! -s '"$T"'/daemon.pid ] && [ $i -lt 500 ]; do sleep 0.01; i=$((i + 1)); done
exit 0'
tc init --session "$T/bg/s.json" --artifact-root "$T/bg" --session-id "$CTL_ID" --optional-mode none
tc run-next --session "$T/bg/s.json" --runner-command-json "$T/bg.sh.json"
expect_rc 0 "a host that leaves background processes still seals its honest result"
bg=$(cat "$T/bg.pid" 2>/dev/null) daemon=$(cat "$T/daemon.pid" 2>/dev/null)
check "the host's background child is gone when run-next returns" test -n "$bg" -a ! -d "/proc/$bg"
check "the host's setsid daemon is gone when run-next returns" test -n "$daemon" -a ! -d "/proc/$daemon"
[ -n "$bg" ] && kill -9 "$bg" 2>/dev/null
[ -n "$daemon" ] && kill -9 "$daemon" 2>/dev/null

# ---- 10. execute-phase and a symlinked phase-executions --------------------------------
ctl_init "$T/ep" none
tc dispatch --session "$S" --output "$T/ep-task.json"
mkdir -p "$OUTSIDE/pe"
ln -s "$OUTSIDE/pe" "$R/phase-executions"
tc execute-phase --task "$T/ep-task.json" --phase intake_preparation --tool check_environment.py \
    --lease-root "$T/leases10" --device-id 0 -- --help
expect_rc 1 "a phase-executions directory symlinked out of the root: execute-phase refuses"
expect_out "escapes the artifact root" "the escape is named"
check "the symlinked phase-executions: nothing is written outside" test -z "$(ls -A "$OUTSIDE/pe")"
rm "$R/phase-executions"
mkdir -p "$R/phase-executions"
ln -s "$OUTSIDE/pe" "$R/phase-executions/intake-preparation"
tc execute-phase --task "$T/ep-task.json" --phase intake_preparation --tool check_environment.py \
    --lease-root "$T/leases10" --device-id 0 -- --help
expect_rc 1 "a step directory symlinked out of the root: execute-phase refuses"
check "the symlinked step directory: nothing is written outside" test -z "$(ls -A "$OUTSIDE/pe")"

# ---- 11. lease markers without the lease ------------------------------------------------
L=$T/leases11
mkdir -p "$L"
LR=$(cd "$L" && pwd -P)
claim() {	# claim NAME: lease run of device 0 with forged markers
	env SUPERKERNEL_DEVICE_LEASE_HELD=1 SUPERKERNEL_DEVICE_IDS=0 SUPERKERNEL_DEVICE_LEASE_ROOT="$LR" \
	    timeout 20 "$TUNECTL_BIN" lease run --lease-root "$L" --device-id 0 --timeout-seconds 5 \
	    --lease-timeout-seconds 0.5 --cwd "$T" --manifest-out "$T/l11/$1.json" -- /bin/true >/dev/null 2>&1
	rc=$?
}
claim free
expect_rc 2 "markers naming a free device do not count as a lease"
expect_eq "$(jpy "$T/l11/free.json" '[d["lease_mode"], d["command"], d["reason"]]')" \
    '[null, null, "parent lease context invalid: parent device lease is not held by this process or its ancestors: device 0"]' \
    "forged markers: the refusal names the device"
"$TUNECTL_BIN" lease run --lease-root "$L" --device-id 0 --timeout-seconds 60 --cwd "$T" \
    --manifest-out "$T/l11/holder.json" -- /bin/sh -c 'echo $$ >"$0/holder.pid"; exec sleep 30' "$T" \
    >/dev/null 2>&1 &
holder=$!
if wait_file "$T/holder.pid" 10; then
	claim other
	expect_rc 2 "markers naming a device another process tree holds do not count either"
	kill "$holder" 2>/dev/null
	wait_for 20 "the holding lease runner to stop on SIGTERM" "$holder"
else
	not_ok "the holder's lease started (waited 10 s for holder.pid)"
	kill -9 "$holder" 2>/dev/null
fi

finish
