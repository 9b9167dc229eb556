#!/usr/bin/env bash
# slurm.sh - what a leased run costs on Slurm: "tunectl lease run --via
# slurm -- /bin/true" against the local "tunectl lease run -- /bin/true",
# N of each in sequence (N=20 by default), on a throwaway one-node cluster
# (tests/slurm/cluster.sh).  Prints wall time per run for both, the
# overhead Slurm adds per run, and the mean queue wait (submission to the
# step's start) and run time the Slurm manifests record.  Asserts nothing.
# Without root or Slurm packages it prints a SKIP line and exits 0.
set -eu
cd "$(dirname "$0")/.."
BUILD=${BUILD:-build}
TC=$PWD/$BUILD/tunectl
N=${N:-20}
D=$(mktemp -d "${TMPDIR:-/tmp}/tunectl-bench-slurm.XXXXXX")
C=$D/cluster
trap 'tests/slurm/cluster.sh stop "$C" >/dev/null 2>&1; rm -rf "$D"' EXIT
unset SUPERKERNEL_DEVICE_LEASE_HELD SUPERKERNEL_DEVICE_IDS SUPERKERNEL_DEVICE_LEASE_ROOT

rc=0
tests/slurm/cluster.sh start "$C" >/dev/null 2>"$D/cluster.err" || rc=$?
if [ "$rc" -ne 0 ]; then
	echo "SKIP slurm bench: $(tail -1 "$D/cluster.err")"
	exit 0
fi
export SLURM_CONF=$C/slurm.conf
export PATH=$PATH:/usr/sbin:/sbin

now() { date +%s%N; }
ms() { awk -v ns="$1" -v n="$N" 'BEGIN { printf "%.1f", ns / n / 1e6 }'; }

# One warm-up each (page cache, slurmctld's first job).
"$TC" lease run --lease-root "$D/leases" --device-id 0 --timeout-seconds 30 --cwd "$D" \
    --manifest-out "$D/warm-local.json" -- /bin/true >/dev/null
"$TC" lease run --via slurm --gres gpu:1 --lease-root "$D/leases" --timeout-seconds 30 --cwd "$D" \
    --manifest-out "$D/warm-slurm.json" -- /bin/true >/dev/null

t0=$(now)
for i in $(seq "$N"); do
	"$TC" lease run --lease-root "$D/leases" --device-id 0 --timeout-seconds 30 --cwd "$D" \
	    --manifest-out "$D/local/$i.json" -- /bin/true >/dev/null
done
local_ns=$(( $(now) - t0 ))

t0=$(now)
for i in $(seq "$N"); do
	"$TC" lease run --via slurm --gres gpu:1 --lease-root "$D/leases" --timeout-seconds 30 \
	    --cwd "$D" --manifest-out "$D/slurm/$i.json" -- /bin/true >/dev/null
done
slurm_ns=$(( $(now) - t0 ))

python3 - "$D/slurm" "$N" "$(ms "$local_ns")" "$(ms "$slurm_ns")" <<'PY'
import glob, json, os, statistics, sys
mdir, n, local_ms, slurm_ms = sys.argv[1], int(sys.argv[2]), float(sys.argv[3]), float(sys.argv[4])
ms = [json.load(open(p)) for p in glob.glob(os.path.join(mdir, "*.json"))]
assert len(ms) == n and all(m["status"] == "passed" for m in ms), "a Slurm run did not pass"
wait = [m["slurm"]["queue_wait_seconds"] * 1e3 for m in ms]
run = [m["slurm"]["run_seconds"] * 1e3 for m in ms]
print("runs per backend:                %d (sequential, /bin/true, gpu:1)" % n)
print("local lease run:                 %.1f ms/run" % local_ms)
print("slurm lease run:                 %.1f ms/run" % slurm_ms)
print("slurm overhead over local:       %.1f ms/run (x%.1f)" % (slurm_ms - local_ms, slurm_ms / local_ms))
print("  queue wait (submit -> step):   mean %.1f ms, median %.1f ms" % (statistics.mean(wait), statistics.median(wait)))
print("  step start -> srun exit:       mean %.1f ms, median %.1f ms" % (statistics.mean(run), statistics.median(run)))
PY
