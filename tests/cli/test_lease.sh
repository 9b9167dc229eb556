#!/usr/bin/env bash
# tunectl lease run: the lease runner of
# docs/spec/controller.md "Lease runner" - outcomes, exit codes, the v2 manifest
# and its fingerprints, every validation message, the parent markers, explicit
# environments, and tunectl lease status.
. "$(dirname "$0")/lib.sh"

# j FILE EXPR: evaluate a Python expression over the JSON document d.
j() { python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' "$@"; }

L=$T/leases
W=$T/work
mkdir -p "$W"
unset SUPERKERNEL_DEVICE_LEASE_HELD SUPERKERNEL_DEVICE_IDS SUPERKERNEL_DEVICE_LEASE_ROOT

run() {	# run NAME [options...] -- CMD...: lease run with the usual flags
	local name=$1
	shift
	tc lease run --lease-root "$L" --device-id 0 --timeout-seconds 10 \
	    --cwd "$W" --manifest-out "$T/m/$name.json" "$@"
}

# ---- outcomes and the manifest ---------------------------------------------

run ok -- /bin/sh -c 'echo out; echo err >&2; env | grep ^SUPERKERNEL_ | sort'
expect_rc 0 "a command exiting 0 passes with exit 0"
expect_out '"status": "passed"' "the manifest is printed on stdout"
m=$T/m/ok.json
check "the manifest is written" test -f "$m"
expect_eq "$(j "$m" 'd["schema_version"]')" "superkernel-shared-device-lease-command-v2" "manifest schema id"
expect_eq "$(j "$m" 'd["command_id"]')" "parent-command" "command_id defaults to parent-command"
expect_eq "$(j "$m" 'd["reason"]')" "None" "a passed command has reason null"
expect_eq "$(j "$m" 'd["lease_mode"]')" "acquired" "a fresh lease is acquired"
expect_eq "$(j "$m" 'd["environment_mode"]')" "inherited_parent_environment" "no --environment-json inherits the environment"
expect_eq "$(j "$m" 'd["lease_root"]')" "$(cd "$L" && pwd -P)" "lease_root is absolute and resolved"
expect_eq "$(j "$m" 'd["cwd"]')" "$(cd "$W" && pwd -P)" "cwd is absolute and resolved"
expect_eq "$(j "$m" 'd["lease_timeout_seconds"]')" "10.0" "lease timeout defaults to the command timeout"
expect_eq "$(j "$m" 'd["device_ids"]')" "[0]" "device ids recorded"
expect_eq "$(j "$m" 'd["executable"]["path"]')" "$(readlink -f /bin/sh)" "executable path is resolved"
expect_eq "$(j "$m" 'd["executable"]["file_fingerprint"]')" "sha256:$(sha256sum "$(readlink -f /bin/sh)" | cut -d' ' -f1)" "executable fingerprint is sha256: of its bytes"
expect_eq "$(j "$m" 'sorted(d["command"])')" "['argv', 'finished_at', 'pid', 'return_code', 'started_at', 'timed_out']" "command record has the reference's fields"
expect_eq "$(j "$m" 'd["command"]["argv"][0]')" "/bin/sh" "command argv is recorded as given"
expect_eq "$(j "$m" 'd["logs"]["stdout"]')" "$T/m/ok.stdout.log" "stdout log beside the manifest"
expect_eq "$(cat "$T/m/ok.stderr.log")" "err" "stderr streamed to its log"
expect_eq "$(sed -n 1p "$T/m/ok.stdout.log")" "out" "stdout streamed to its log"
expect_eq "$(sed -n 2,4p "$T/m/ok.stdout.log" | tr '\n' ' ')" "SUPERKERNEL_DEVICE_IDS=0 SUPERKERNEL_DEVICE_LEASE_HELD=1 SUPERKERNEL_DEVICE_LEASE_ROOT=$(cd "$L" && pwd -P) " "the child sees the three lease markers"
fp=$(python3 - "$m" <<'PY'
import hashlib, json, sys
d = json.load(open(sys.argv[1]))
fp = d.pop("manifest_fingerprint")
canon = json.dumps(d, ensure_ascii=False, sort_keys=True, separators=(",", ":"), allow_nan=False)
print("ok" if fp == "sha256:" + hashlib.sha256(canon.encode()).hexdigest() else "bad " + fp)
PY
)
expect_eq "$fp" "ok" "manifest_fingerprint is sha256: of the canonical manifest without it"
expect_eq "$(j "$m" 'sorted(d["lease_accounting"])')" "['acquired_at', 'devices', 'held_seconds', 'released_at', 'requested_at', 'wait_seconds']" "lease accounting fields"
expect_eq "$(j "$m" 'd["lease_accounting"]["wait_seconds"] >= 0 and d["lease_accounting"]["held_seconds"] > 0')" "True" "wait and hold durations recorded"
expect_eq "$(j "$m" 'd["lease_accounting"]["requested_at"] <= d["lease_accounting"]["acquired_at"] <= d["command"]["started_at"] <= d["command"]["finished_at"] <= d["lease_accounting"]["released_at"]')" "True" "the command ran inside the lease interval"
check "the lock file holds pid, device, time and command" grep -q '^{"pid": [0-9]*, "device_id": 0, "acquired_at": "[0-9T:.-]*Z", "command_id": "parent-command"}$' "$L/npu-device-0.lock"

run nonzero --command-id my:tool -- /bin/sh -c 'exit 7'
expect_rc 1 "a command exiting non-zero fails with exit 1"
expect_eq "$(j "$T/m/nonzero.json" 'd["status"], d["reason"], d["command"]["return_code"], d["command_id"]')" "('failed', 'command_nonzero', 7, 'my:tool')" "non-zero: failed, command_nonzero, return code kept"

run timeout --timeout-seconds 0.5 -- /bin/sleep 30
expect_rc 1 "a timed-out command fails with exit 1"
expect_eq "$(j "$T/m/timeout.json" 'd["status"], d["reason"], d["command"]["timed_out"], d["command"]["return_code"]')" "('failed', 'command_timeout', True, -15)" "timeout: SIGTERM ends it, recorded as command_timeout"

run killed --timeout-seconds 0.5 -- /bin/sh -c 'trap "" TERM; while :; do sleep 0.05; done'
expect_eq "$(j "$T/m/killed.json" 'd["command"]["return_code"], d["command"]["timed_out"]')" "(-9, True)" "a command ignoring SIGTERM is killed after the grace period"

printf 'echo no shebang\n' > "$W/noshebang"
chmod +x "$W/noshebang"
run noexec --command-id noexec-run -- "$W/noshebang"
expect_rc 1 "a command that cannot be executed fails"
# Under valgrind posix_spawn is emulated with fork, and an exec failure
# turns into exit 127 of the child instead of an error from the spawn.
if [ "${VALGRIND:-0}" != 1 ]; then
	expect_eq "$(j "$T/m/noexec.json" 'd["reason"], d["command"]["pid"]')" "('command_start_failed', None)" "start failure is recorded, not pretended"
	expect_out "Exec format error" "start failure names the error"
fi

# ---- blocked: lease timeout --------------------------------------------------

mkfifo "$T/gate"
tc_bg() { "$TUNECTL_BIN" "$@" >/dev/null 2>&1 </dev/null & }
tc_bg lease run --lease-root "$L" --device-id 1 --timeout-seconds 300 --cwd "$W" \
    --manifest-out "$T/m/holder.json" --command-id the-holder -- /bin/sh -c "read x < '$T/gate'"
holder=$!
for _ in $(seq 200); do grep -q the-holder "$L/npu-device-1.lock" 2>/dev/null && break; sleep 0.05; done
tc lease status --lease-root "$L"
expect_rc 0 "lease status exits 0"
st=$T/status.json
printf '%s\n' "$out" > "$st"
expect_eq "$(j "$st" 'd["held"], d["free"]')" "([1], [0])" "status lists held and free devices"
expect_eq "$(j "$st" '[x["holder"]["command_id"] for x in d["devices"] if x["state"] == "held"]')" "['the-holder']" "status names the holder's command"
expect_eq "$(j "$st" '[x["holder"]["pid_alive"] for x in d["devices"] if x["state"] == "held"]')" "[True]" "status says the holder is alive"
expect_eq "$(j "$st" '[x["last_holder"]["command_id"] for x in d["devices"] if x["state"] == "free"]')" "['noexec-run']" "status shows a free device's last holder"

tc lease run --lease-root "$L" --device-id 0 --device-id 1 --timeout-seconds 10 \
    --lease-timeout-seconds 0.3 --cwd "$W" --manifest-out "$T/m/blocked.json" -- /bin/true
expect_rc 2 "a lease timeout is blocked with exit 2"
b=$T/m/blocked.json
expect_eq "$(j "$b" 'd["status"], d["reason"]')" "('blocked', 'timed out acquiring NPU device lease 1')" "blocked reason names the device that timed out"
expect_eq "$(j "$b" 'd["command"], d["lease_mode"]')" "(None, None)" "blocked: command and lease_mode are null"
expect_eq "$(j "$b" 'd["lease_timeout_seconds"]')" "0.3" "the lease timeout is recorded"
expect_eq "$(j "$b" 'd["lease_accounting"]["wait_seconds"] >= 0.3 and d["lease_accounting"]["held_seconds"] is None')" "True" "blocked: the wait is accounted, nothing held"
check "blocked: no logs created" test ! -e "$T/m/blocked.stdout.log"
tc lease status --lease-root "$L"
printf '%s\n' "$out" > "$st"
expect_eq "$(j "$st" 'd["free"]')" "[0]" "the device taken before the timeout was released"
open_gate "$T/gate" "the lease holder"
wait_for 60 "the lease holder" "$holder"
expect_eq "$(j "$T/m/holder.json" 'd["status"]')" "passed" "the holder finished normally"

# ---- validation messages (argparse errors, exit 2, nothing written) -----------

refused() {	# refused "message" "name" [run args...]
	local msg=$1 name=$2
	shift 2
	tc lease run "$@"
	expect_rc 2 "$name: exit 2"
	expect_err "tunectl lease: error: $msg" "$name: message"
}
base=(--lease-root "$T/fresh" --timeout-seconds 5 --cwd "$W")
refused "command argv must be a non-empty string array" "no command" "${base[@]}" --device-id 0 --manifest-out "$T/v/a.json"
refused "command argv must be a non-empty string array" "an empty argument" "${base[@]}" --device-id 0 --manifest-out "$T/v/a.json" -- /bin/echo ""
refused "command executable must be an existing absolute file" "a relative executable" "${base[@]}" --device-id 0 --manifest-out "$T/v/a.json" -- echo hi
refused "command executable must be an existing absolute file" "a missing executable" "${base[@]}" --device-id 0 --manifest-out "$T/v/a.json" -- /no/such/tool
refused "command executable must be an existing absolute file" "a directory as executable" "${base[@]}" --device-id 0 --manifest-out "$T/v/a.json" -- /tmp
refused "device_ids must be sorted unique non-negative integers" "duplicate device ids" "${base[@]}" --device-id 0 --device-id 0 --manifest-out "$T/v/a.json" -- /bin/true
refused "device_ids must be sorted unique non-negative integers" "a negative device id" "${base[@]}" --device-id -1 --manifest-out "$T/v/a.json" -- /bin/true
refused "argument --device-id: invalid int value: 'x'" "a non-integer device id" "${base[@]}" --device-id x --manifest-out "$T/v/a.json" -- /bin/true
refused "command cwd must be an existing directory" "a missing cwd" --lease-root "$T/fresh" --timeout-seconds 5 --cwd "$T/nope" --device-id 0 --manifest-out "$T/v/a.json" -- /bin/true
refused "lease_timeout_seconds must be positive" "a zero lease timeout" "${base[@]}" --lease-timeout-seconds 0 --device-id 0 --manifest-out "$T/v/a.json" -- /bin/true
refused "lease_timeout_seconds must be positive" "a zero command timeout as lease timeout" --lease-root "$T/fresh" --timeout-seconds 0 --cwd "$W" --device-id 0 --manifest-out "$T/v/a.json" -- /bin/true
refused "timeout_seconds must be positive" "a negative command timeout" --lease-root "$T/fresh" --timeout-seconds -1 --lease-timeout-seconds 1 --cwd "$W" --device-id 0 --manifest-out "$T/v/a.json" -- /bin/true
refused "lease command manifest already exists: $T/m/ok.json" "an existing manifest" "${base[@]}" --device-id 0 --manifest-out "$T/m/ok.json" -- /bin/true
mkdir -p "$T/v" && : > "$T/v/pre.stderr.log"
refused "lease command log output already exists" "an existing log" "${base[@]}" --device-id 0 --manifest-out "$T/v/pre.json" -- /bin/true
printf '{"API_TOKEN": "x"}' > "$T/v/secret.json"
refused "command environment variable looks like a secret and is refused: 'API_TOKEN'" "a secret-looking variable" "${base[@]}" --device-id 0 --manifest-out "$T/v/a.json" --environment-json "$T/v/secret.json" -- /bin/true
printf '{"my_password2": "x"}' > "$T/v/secret2.json"
refused "command environment variable looks like a secret and is refused: 'my_password2'" "secret names match case-insensitively" "${base[@]}" --device-id 0 --manifest-out "$T/v/a.json" --environment-json "$T/v/secret2.json" -- /bin/true
printf '{"1BAD": "x"}' > "$T/v/badname.json"
refused "command environment variable name is invalid: '1BAD'" "an invalid variable name" "${base[@]}" --device-id 0 --manifest-out "$T/v/a.json" --environment-json "$T/v/badname.json" -- /bin/true
printf '{"PATH": 1}' > "$T/v/badval.json"
refused "command environment value must be a string without NUL: 'PATH'" "a non-string value" "${base[@]}" --device-id 0 --manifest-out "$T/v/a.json" --environment-json "$T/v/badval.json" -- /bin/true
printf '{"PATH": "a\\u0000b"}' > "$T/v/nul.json"
refused "command environment value must be a string without NUL: 'PATH'" "a value with NUL" "${base[@]}" --device-id 0 --manifest-out "$T/v/a.json" --environment-json "$T/v/nul.json" -- /bin/true
printf '["PATH"]' > "$T/v/list.json"
refused "command environment must be a JSON object" "an environment that is not an object" "${base[@]}" --device-id 0 --manifest-out "$T/v/a.json" --environment-json "$T/v/list.json" -- /bin/true
printf '{' > "$T/v/broken.json"
refused "Expecting property name enclosed in double quotes" "an environment file that is not JSON" "${base[@]}" --device-id 0 --manifest-out "$T/v/a.json" --environment-json "$T/v/broken.json" -- /bin/true
check "refused requests write nothing" test ! -e "$T/v/a.json" -a ! -e "$T/v/a.stdout.log" -a ! -e "$T/fresh"
tc lease run --lease-root "$L" --timeout-seconds 5 --cwd "$W" --manifest-out "$T/v/a.json" -- /bin/true
expect_rc 2 "--device-id is required"
expect_err "the following arguments are required: --device-id" "missing --device-id is named"

# ---- explicit environment ------------------------------------------------------

printf '{"ZED": "last", "ALPHA": "first"}' > "$T/env.json"
run explicit --environment-json "$T/env.json" -- /usr/bin/env
expect_rc 0 "an explicit environment runs"
expect_eq "$(j "$T/m/explicit.json" 'd["environment_mode"]')" "explicit_environment" "environment_mode explicit"
expect_eq "$(grep -c . "$T/m/explicit.stdout.log")" "5" "the child gets only the explicit variables and the markers"
check "explicit variables reach the child" grep -qx "ALPHA=first" "$T/m/explicit.stdout.log"

printf '{"SUPERKERNEL_DEVICE_LEASE_HELD": "1"}' > "$T/partial.json"
run partial --environment-json "$T/partial.json" -- /usr/bin/env
expect_rc 2 "partial markers in an explicit environment block"
expect_eq "$(j "$T/m/partial.json" 'd["reason"], d["command"], d["lease_mode"]')" "('parent lease context invalid: device lease environment contains partial parent markers', None, None)" "partial markers: the reference's message"

python3 -c 'import json,sys; print(json.dumps({"SUPERKERNEL_DEVICE_LEASE_HELD": "1", "SUPERKERNEL_DEVICE_IDS": "0,1", "SUPERKERNEL_DEVICE_LEASE_ROOT": sys.argv[1]}))' "$(cd "$L" && pwd -P)" > "$T/conflict.json"
run conflict --environment-json "$T/conflict.json" -- /usr/bin/env
expect_rc 2 "conflicting markers in an explicit environment block"
expect_eq "$(j "$T/m/conflict.json" 'd["reason"]')" "parent lease context invalid: device lease environment conflicts with SUPERKERNEL_DEVICE_IDS" "conflicting marker: the reference's message"

# ---- inherited parent markers --------------------------------------------------

LR=$(cd "$L" && pwd -P)
# the parent really holds 0 and 1: its command runs the child runner
"$TUNECTL_BIN" lease run --lease-root "$L" --device-id 0 --device-id 1 --timeout-seconds 20 --cwd "$W" \
    --manifest-out "$T/m/parent.json" -- "$TUNECTL_BIN" lease run --lease-root "$L" --device-id 1 --device-id 0 \
    --timeout-seconds 5 --lease-timeout-seconds 1 --cwd "$W" --manifest-out "$T/m/inherit.json" -- /bin/true >/dev/null 2>&1
rc=$?
expect_rc 0 "exact parent markers from a parent holding the lease: the child inherits and runs"
expect_eq "$(j "$T/m/inherit.json" 'd["lease_mode"], d["lease_accounting"]["devices"]')" "('inherited', [])" "inherited lease: no lock taken"
# the same markers from a process that holds nothing are only a claim
env SUPERKERNEL_DEVICE_LEASE_HELD=1 SUPERKERNEL_DEVICE_IDS=0,1 SUPERKERNEL_DEVICE_LEASE_ROOT="$LR" \
    "$TUNECTL_BIN" lease run --lease-root "$L" --device-id 1 --device-id 0 --timeout-seconds 5 --cwd "$W" \
    --manifest-out "$T/m/claim.json" -- /bin/true >/dev/null 2>&1
rc=$?
expect_rc 2 "exact parent markers without the lease held: blocked"
expect_eq "$(j "$T/m/claim.json" 'd["reason"], d["lease_mode"], d["command"]')" \
    "('parent lease context invalid: parent device lease is not held by this process or its ancestors: device 0', None, None)" \
    "markers without the lease: the first device not held is named"

for case in "HELD=1 IDS=0:SUPERKERNEL_DEVICE_IDS" "HELD=2 IDS=0,1:SUPERKERNEL_DEVICE_LEASE_HELD" "HELD=1 IDS=0,1 ROOT=/elsewhere:SUPERKERNEL_DEVICE_LEASE_ROOT"; do
	vals=${case%%:*} name=${case##*:}
	held=1 ids=0,1 root=$LR
	for kv in $vals; do case $kv in HELD=*) held=${kv#HELD=};; IDS=*) ids=${kv#IDS=};; ROOT=*) root=${kv#ROOT=};; esac; done
	rm -f "$T/m/mm.json" "$T/m/mm.stdout.log" "$T/m/mm.stderr.log"
	env SUPERKERNEL_DEVICE_LEASE_HELD=$held SUPERKERNEL_DEVICE_IDS=$ids SUPERKERNEL_DEVICE_LEASE_ROOT=$root \
	    "$TUNECTL_BIN" lease run --lease-root "$L" --device-id 0 --device-id 1 --timeout-seconds 5 --cwd "$W" \
	    --manifest-out "$T/m/mm.json" -- /bin/true >/dev/null 2>&1
	rc=$?
	expect_rc 2 "mismatching parent marker $name blocks"
	expect_eq "$(j "$T/m/mm.json" 'd["reason"], d["lease_mode"]')" "('parent lease context invalid: parent device lease marker mismatch: $name', None)" "mismatch message names $name"
done

env SUPERKERNEL_DEVICE_LEASE_HELD=1 SUPERKERNEL_DEVICE_IDS=0,1 SUPERKERNEL_DEVICE_LEASE_ROOT="$LR" \
    "$TUNECTL_BIN" lease run --lease-root "$L" --device-id 0 --timeout-seconds 5 --cwd "$W" \
    --manifest-out "$T/m/subset.json" -- /bin/true >/dev/null 2>&1
rc=$?
expect_rc 2 "a parent holding 0,1 does not satisfy a request for 0 (fail closed)"
expect_eq "$(j "$T/m/subset.json" 'd["reason"]')" "parent lease context invalid: parent device lease marker mismatch: SUPERKERNEL_DEVICE_IDS" "subset request: IDS mismatch"

env SUPERKERNEL_DEVICE_LEASE_HELD=1 \
    "$TUNECTL_BIN" lease run --lease-root "$L" --device-id 0 --timeout-seconds 5 --cwd "$W" \
    --manifest-out "$T/m/incomplete.json" -- /bin/true >/dev/null 2>&1
rc=$?
expect_rc 2 "incomplete parent markers block"
expect_eq "$(j "$T/m/incomplete.json" 'd["reason"]')" "parent lease context invalid: parent device lease markers are incomplete" "incomplete markers: the reference's message"

# ---- lease run usage ----------------------------------------------------------------

tc lease
expect_rc 2 "lease without a subcommand is a usage error"
tc lease frob
expect_rc 2 "an unknown lease subcommand is a usage error"
expect_err "invalid choice: 'frob'" "the unknown subcommand is named"
tc lease run --via ssh --no-such-flag -- true
expect_rc 2 "an unknown --via is a usage error"
expect_err "argument --via: invalid choice: 'ssh' (choose from 'local', 'slurm')" \
    "named before missing options and unrecognized arguments, as argparse checks choices while it reads"
check "not the missing options" [ "${err/required/}" = "$err" ]
tc lease status --via ssh
expect_err "argument --via: invalid choice: 'ssh' (choose from 'local', 'slurm')" \
    "lease status names it before the missing --lease-root"
tc lease status --lease-root "$T/none"
expect_rc 1 "status of a missing lease root fails"
expect_err "No such file or directory" "status names the missing root"

finish
