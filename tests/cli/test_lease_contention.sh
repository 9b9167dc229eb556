#!/usr/bin/env bash
# Contention torture and fair waiting: 16 processes compete for 2 devices
# with single- and multi-device requests for a bounded time; afterwards
# the manifests must show that no device ever had two holders and that
# every request either ran or was blocked with the lease timeout message.
# Then waiters for one device must be served in arrival order.
. "$(dirname "$0")/lib.sh"

unset SUPERKERNEL_DEVICE_LEASE_HELD SUPERKERNEL_DEVICE_IDS SUPERKERNEL_DEVICE_LEASE_ROOT
L=$T/leases
W=$T/work
M=$T/manifests
mkdir -p "$W" "$M"

# The command itself checks exclusion: it claims each of its devices by
# creating a directory, which fails if another holder has it.
cat > "$T/claim.sh" <<'SH'
#!/bin/sh
ids=$(echo "$SUPERKERNEL_DEVICE_IDS" | tr ',' ' ')
for d in $ids; do mkdir "busy.$d" 2>/dev/null || exit 3; done
sleep 0.01
for d in $ids; do rmdir "busy.$d"; done
SH
chmod +x "$T/claim.sh"

worker() {	# worker N: issue requests until the end time
	local n=$1 k=0 ids lt=1.5
	# A quarter of the workers give up quickly, so blocked requests mix in.
	[ $((n % 4)) = 0 ] && lt=0.02
	while [ "$(date +%s%N)" -lt "$end" ]; do
		case $(( (n + k) % 3 )) in
		0) ids=(--device-id 0) ;;
		1) ids=(--device-id 1) ;;
		*) ids=(--device-id 1 --device-id 0) ;;
		esac
		"$TUNECTL_BIN" lease run --lease-root "$L" "${ids[@]}" --timeout-seconds 20 \
		    --lease-timeout-seconds "$lt" --cwd "$W" --command-id "w$n-$k" \
		    --manifest-out "$M/w$n-$k.json" -- "$T/claim.sh" >"$M/w$n-$k.out" 2>&1
		echo "$?" > "$M/w$n-$k.rc"
		k=$((k + 1))
	done
}
end=$(( $(date +%s%N) + 3000000000 ))
for n in $(seq 1 16); do worker "$n" & done
wait

python3 - "$M" > "$T/verdict" <<'PY'
import glob, json, os, sys
from datetime import datetime

def ts(s):
    return datetime.fromisoformat(s.replace("Z", "+00:00"))

mdir = sys.argv[1]
problems, intervals = [], {0: [], 1: []}
counts = {"passed": 0, "blocked": 0}
rcs = sorted(glob.glob(os.path.join(mdir, "*.rc")))
for rcfile in rcs:
    name = rcfile[:-3]
    rc = int(open(rcfile).read())
    if not os.path.exists(name + ".json"):
        said = open(name + ".out", errors="replace").read().strip()[-300:]
        problems.append(f"{name}: no manifest (exit {rc}): {said!r}")
        continue
    d = json.load(open(name + ".json"))
    st = d["status"]
    if st == "passed" and rc == 0:
        acc = d["lease_accounting"]
        rel = ts(acc["released_at"])
        for dev in acc["devices"]:
            intervals[dev["device_id"]].append((ts(dev["acquired_at"]), rel, name))
        if [x["device_id"] for x in acc["devices"]] != d["device_ids"]:
            problems.append(f"{name}: accounting devices differ from device_ids")
        if not ts(acc["acquired_at"]) <= ts(d["command"]["started_at"]) <= ts(d["command"]["finished_at"]) <= rel:
            problems.append(f"{name}: command ran outside its lease")
    elif st == "blocked" and rc == 2:
        want = [f"timed out acquiring NPU device lease {i}" for i in d["device_ids"]]
        if d["reason"] not in want or d["command"] is not None:
            problems.append(f"{name}: blocked with {d['reason']!r}")
    else:
        problems.append(f"{name}: status {st} exit {rc} reason {d['reason']!r}")
        continue
    counts[st] += 1
for dev, ivs in intervals.items():
    ivs.sort()
    for (a0, a1, an), (b0, b1, bn) in zip(ivs, ivs[1:]):
        if b0 < a1:
            problems.append(f"device {dev}: {an} and {bn} overlap")
print(f"requests={len(rcs)} passed={counts['passed']} blocked={counts['blocked']}")
print(f"device0={len(intervals[0])} device1={len(intervals[1])}")
for p in problems:
    print("PROBLEM", p)
PY
echo "# $(head -2 "$T/verdict" | tr '\n' ' ')"
check "every request ran or was blocked with the lease timeout message; no device had two holders" \
    test "$(grep -c PROBLEM "$T/verdict")" = 0
grep PROBLEM "$T/verdict" | head -5 | sed 's/^/# /'
check "the torture issued requests from all 16 workers" test "$(ls "$M" | sed -n 's/^w\([0-9]*\)-0\.rc$/\1/p' | wc -l)" = 16
check "both devices were used under contention" grep -q "device0=[1-9].* device1=[1-9]" "$T/verdict"
check "no claim directory is left behind" test -z "$(ls "$W")"

# ---- fair waiting: arrival order ------------------------------------------------------

F=$T/fair
mkdir -p "$F"
mkfifo "$F/gate"
"$TUNECTL_BIN" lease run --lease-root "$F/leases" --device-id 0 --timeout-seconds 300 --cwd "$F" \
    --manifest-out "$F/holder.json" -- /bin/sh -c "read x < '$F/gate'" >/dev/null 2>&1 &
holder=$!
waiting() {	# waiting N: until lease status shows N waiters for device 0
	local i
	for i in $(seq 400); do
		"$TUNECTL_BIN" lease status --lease-root "$F/leases" 2>/dev/null |
		    python3 -c 'import json,sys; d=json.load(sys.stdin); sys.exit(0 if [x for x in d["devices"] if x["device_id"]==0 and x["state"]=="held" and x["waiting"]==int(sys.argv[1])] else 1)' "$1" 2>/dev/null && return 0
		sleep 0.05
	done
	return 1
}
check "the holder holds device 0" waiting 0
pids=()
for w in 1 2 3 4 5; do
	if [ "$w" = 3 ]; then devs=(--device-id 0 --device-id 1); else devs=(--device-id 0); fi
	# Each waiter's output and exit status are kept: when one goes
	# wrong, what it said is printed below instead of being lost.
	( "$TUNECTL_BIN" lease run --lease-root "$F/leases" "${devs[@]}" --timeout-seconds 60 --cwd "$F" \
	    --manifest-out "$F/w$w.json" -- /bin/sh -c "echo w$w >> '$F/order'" >"$F/w$w.out" 2>&1
	  echo "$?" > "$F/w$w.rc" ) &
	pids+=($!)
	check "waiter $w is queued behind the earlier ones" waiting "$w"
done
open_gate "$F/gate" "the holder of device 0"
wait_for 120 "the holder and the five waiters" "$holder" "${pids[@]}"
for w in 1 2 3 4 5; do
	if [ ! -f "$F/w$w.json" ]; then
		echo "# waiter w$w wrote no manifest (exit $(cat "$F/w$w.rc" 2>/dev/null || echo unknown)); it said:"
		sed 's/^/#   /' "$F/w$w.out" 2>/dev/null
	fi
done
check "every waiter exited 0 with a manifest" \
    test "$(cat "$F"/w[1-5].rc 2>/dev/null | tr -d '\n')" = 00000 -a "$(ls "$F"/w[1-5].json 2>/dev/null | wc -l)" = 5
expect_eq "$(tr '\n' ' ' < "$F/order")" "w1 w2 w3 w4 w5 " "waiters for a device are served in arrival order (a multi-device request included)"
expect_eq "$(python3 -c 'import json,sys; print(all(json.load(open(f))["lease_accounting"]["wait_seconds"] > 0 for f in sys.argv[1:]))' "$F"/w*.json)" "True" "each waiter's manifest accounts for its wait"

finish
