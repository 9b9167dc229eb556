#!/usr/bin/env bash
# lease.sh - the lease runner's overhead per command: "tunectl lease run
# -- /bin/true" against running /bin/true directly, N times each, plus
# the start-up cost of the tunectl binary itself, so the runner's own work
# (acquire + spawn + wait + manifest) can be read off.  Prints numbers;
# asserts nothing.  N=200 by default (N=... to change).
set -eu
cd "$(dirname "$0")/.."
BUILD=${BUILD:-build}
TC=$PWD/$BUILD/tunectl
N=${N:-200}
D=$(mktemp -d "${TMPDIR:-/tmp}/tunectl-bench.XXXXXX")
trap 'rm -rf "$D"' EXIT
unset SUPERKERNEL_DEVICE_LEASE_HELD SUPERKERNEL_DEVICE_IDS SUPERKERNEL_DEVICE_LEASE_ROOT

# measure VAR CMD...: run CMD N times; VAR gets "wall_ns cpu_ns" (cpu =
# user + sys of the children, which a busy machine disturbs less).
measure() {
	local var=$1 t0 c0
	shift
	children_cpu_ns
	c0=$cpu_ns
	t0=$(date +%s%N)
	for i in $(seq "$N"); do "$@" "$i"; done
	children_cpu_ns
	printf -v "$var" '%s %s' $(( $(date +%s%N) - t0 )) $(( cpu_ns - c0 ))
}
# cpu_ns = user + sys of this shell's reaped children so far ("times" has
# to run in this shell, not in a command substitution's subshell).
children_cpu_ns() {
	times > "$D/times"
	cpu_ns=$(awk 'NR == 2 { split($1, u, /[ms]/); split($2, s, /[ms]/);
	    printf "%.0f", ((u[1] * 60 + u[2]) + (s[1] * 60 + s[2])) * 1e9 }' "$D/times")
}
ms() { awk -v ns="$1" -v n="$N" 'BEGIN { printf "%.3f", ns / n / 1e6 }'; }

direct_cmd() { /bin/true; }
version_cmd() { "$TC" version >/dev/null; }
lease1_cmd() {
	"$TC" lease run --lease-root "$D/leases" --device-id 0 --timeout-seconds 10 \
	    --cwd "$D" --manifest-out "$D/m/$1.json" -- /bin/true >/dev/null
}
lease2_cmd() {
	"$TC" lease run --lease-root "$D/leases" --device-id 0 --device-id 1 --timeout-seconds 10 \
	    --cwd "$D" --manifest-out "$D/m2/$1.json" -- /bin/true >/dev/null
}
measure direct direct_cmd
measure startup version_cmd
measure leased lease1_cmd
measure leased2 lease2_cmd
read -r direct direct_cpu <<<"$direct"
read -r startup startup_cpu <<<"$startup"
read -r leased leased_cpu <<<"$leased"
read -r leased2 leased2_cpu <<<"$leased2"

acct=$(python3 - "$D/m" <<'PY'
import glob, json, sys
from datetime import datetime
def ts(s): return datetime.fromisoformat(s.replace("Z", "+00:00")).timestamp()
ws, rs = [], []
for f in glob.glob(sys.argv[1] + "/*.json"):
    d = json.load(open(f))
    a = d["lease_accounting"]
    ws.append(a["wait_seconds"])
    rs.append(ts(a["released_at"]) - ts(d["command"]["finished_at"]))
ws.sort(); rs.sort()
print("%.3f %.3f %.3f" % (ws[len(ws)//2] * 1e3, sum(ws) / len(ws) * 1e3, rs[len(rs)//2] * 1e3))
PY
)
read -r acq_med acq_mean cleanup_med <<<"$acct"

# The floor set by the filesystem: the reference's protocol creates three
# files per command (two logs, the manifest's temp file) and fsyncs twice.
fs=$(python3 - "$D" <<'PY'
import os, sys, time
d = os.path.join(sys.argv[1], "fs")
os.makedirs(d)
t = time.perf_counter()
for i in range(200):
    os.close(os.open(f"{d}/f{i}", os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o666))
create = (time.perf_counter() - t) / 200
fd = os.open(f"{d}/s", os.O_CREAT | os.O_WRONLY, 0o666)
t = time.perf_counter()
for i in range(200):
    os.write(fd, b"x" * 1024)
    os.fsync(fd)
fsync = (time.perf_counter() - t) / 200
print("%.3f %.3f" % (create * 1e3, fsync * 1e3))
PY
)
read -r fs_create fs_fsync <<<"$fs"

echo "lease runner overhead, $N commands each (ms per command; wall / CPU user+sys):"
echo "  /bin/true directly                        $(ms "$direct") / $(ms "$direct_cpu")"
echo "  tunectl version (binary start-up)         $(ms "$startup") / $(ms "$startup_cpu")"
echo "  tunectl lease run -- /bin/true, 1 device  $(ms "$leased") / $(ms "$leased_cpu")"
echo "  tunectl lease run -- /bin/true, 2 devices $(ms "$leased2") / $(ms "$leased2_cpu")"
echo "  extra per command, 1 device               $(ms $((leased - direct))) / $(ms $((leased_cpu - direct_cpu)))"
echo "  extra per command without start-up       $(ms $((leased - direct - startup))) / $(ms $((leased_cpu - direct_cpu - startup_cpu)))"
echo "  extra per command, 2 devices              $(ms $((leased2 - direct))) / $(ms $((leased2_cpu - direct_cpu)))"
echo "  acquire (lease_accounting.wait_seconds)   median $acq_med, mean $acq_mean"
echo "  exit -> release (reaping, cleanup)        median $cleanup_med"
echo "  this filesystem: create a file $fs_create, fsync $fs_fsync"
echo "  (the manifest protocol needs 3 creates + 2 fsyncs per command)"
