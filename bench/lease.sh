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

now() { date +%s%N; }
ms() { awk -v ns="$1" -v n="$N" 'BEGIN { printf "%.3f", ns / n / 1e6 }'; }

t0=$(now)
for i in $(seq "$N"); do /bin/true; done
direct=$(( $(now) - t0 ))

t0=$(now)
for i in $(seq "$N"); do "$TC" version >/dev/null; done
startup=$(( $(now) - t0 ))

t0=$(now)
for i in $(seq "$N"); do
	"$TC" lease run --lease-root "$D/leases" --device-id 0 --timeout-seconds 10 \
	    --cwd "$D" --manifest-out "$D/m/$i.json" -- /bin/true >/dev/null
done
leased=$(( $(now) - t0 ))

t0=$(now)
for i in $(seq "$N"); do
	"$TC" lease run --lease-root "$D/leases" --device-id 0 --device-id 1 --timeout-seconds 10 \
	    --cwd "$D" --manifest-out "$D/m2/$i.json" -- /bin/true >/dev/null
done
leased2=$(( $(now) - t0 ))

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

echo "lease runner overhead, $N commands each (ms per command):"
echo "  /bin/true directly                       $(ms "$direct")"
echo "  tunectl version (binary start-up)        $(ms "$startup")"
echo "  tunectl lease run -- /bin/true, 1 device  $(ms "$leased")"
echo "  tunectl lease run -- /bin/true, 2 devices $(ms "$leased2")"
echo "  extra per command, 1 device              $(ms $((leased - direct)))"
echo "  extra per command without start-up       $(ms $((leased - direct - startup)))"
echo "  extra per command, 2 devices             $(ms $((leased2 - direct)))"
echo "  acquire (lease_accounting.wait_seconds)  median $acq_med, mean $acq_mean"
echo "  exit -> release (reaping, cleanup)       median $cleanup_med"
echo "  this filesystem: create a file $fs_create, fsync $fs_fsync"
echo "  (the manifest protocol needs 3 creates + 2 fsyncs per command)"
