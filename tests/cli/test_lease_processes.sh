#!/usr/bin/env bash
# What a lease leaves behind: nothing.  A command that forks a grandchild
# and times out, a command whose leader exits leaving a background child,
# a double-forked daemon, and a runner that is itself killed.
. "$(dirname "$0")/lib.sh"

j() { python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' "$@"; }
unset SUPERKERNEL_DEVICE_LEASE_HELD SUPERKERNEL_DEVICE_IDS SUPERKERNEL_DEVICE_LEASE_ROOT
L=$T/leases
W=$T/work
mkdir -p "$W"
alive() { kill -0 "$1" 2>/dev/null; }

run() {	# run NAME TIMEOUT -- CMD...
	local name=$1 t=$2
	shift 2
	tc lease run --lease-root "$L" --device-id 0 --timeout-seconds "$t" --cwd "$W" \
	    --manifest-out "$T/$name.json" "$@"
}

# A grandchild that ignores SIGTERM, under a leader that times out.
run grandchild 1.5 -- /bin/sh -c 'sh -c "trap \"\" TERM; echo \$\$ > gc.pid; while :; do sleep 0.05; done" & wait'
expect_rc 1 "the timed-out command fails"
expect_eq "$(j "$T/grandchild.json" 'd["reason"]')" "command_timeout" "recorded as a timeout"
check "the grandchild's pid was recorded" test -s "$W/gc.pid"
check "a timed-out command leaves no grandchild behind" bash -c '! kill -0 "$(cat "$1")" 2>/dev/null' _ "$W/gc.pid"

# The leader exits 0 while a background child keeps running.
run background 10 -- /bin/sh -c 'sleep 60 & echo $! > bg.pid; exit 0'
expect_rc 0 "the leader's own outcome is kept"
check "a background child is not left running after the lease" bash -c '! kill -0 "$(cat "$1")" 2>/dev/null' _ "$W/bg.pid"

# A double-forked daemon in a session of its own escapes the process
# group; it is re-parented to the runner and killed there.
run daemon 10 -- /bin/sh -c 'setsid sh -c "sleep 60 & echo \$! > daemon.pid" & wait'
expect_rc 0 "the daemonising command passes"
check "the daemon pid was recorded" test -s "$W/daemon.pid"
check "a double-forked daemon is not left running after the lease" bash -c '! kill -0 "$(cat "$1")" 2>/dev/null' _ "$W/daemon.pid"

# The runner itself receives SIGTERM: the command is stopped before the
# lease goes, and the manifest says why.
"$TUNECTL_BIN" lease run --lease-root "$L" --device-id 0 --timeout-seconds 60 --cwd "$W" \
    --manifest-out "$T/interrupted.json" -- /bin/sh -c 'echo $$ > leader.pid; exec sleep 60' >/dev/null 2>&1 &
runner=$!
for _ in $(seq 200); do [ -s "$W/leader.pid" ] && break; sleep 0.05; done
kill -TERM "$runner"
wait "$runner"
rc=$?
expect_rc 1 "a runner stopped by SIGTERM exits 1 (failed)"
expect_eq "$(j "$T/interrupted.json" 'd["status"], d["reason"], d["command"]["interrupted_by"]')" "('failed', 'runner_interrupted', 'TERM')" "the manifest records the interruption"
check "the command does not outlive its runner" bash -c '! kill -0 "$(cat "$1")" 2>/dev/null' _ "$W/leader.pid"
tc lease status --lease-root "$L"
expect_out '"held": []' "the lease is free afterwards"

finish
