#!/usr/bin/env bash
# demo_clocks.sh [REPEATS] [--busy-core C]
#
# Which clock should the demo's gates read?  Measures the demo's S0
# baseline (scope none: 48 launches per step) and its O0 incumbent
# (broad_decode: 8 launches per step) the way the demo does -- five
# processes after one discarded warm-up, `tunectl bench run` -- REPEATS
# times (default 3), and gates each run set with `tunectl gate stability`
# three times over: on the decode figure the demo's gates read (the CPU
# time of the rank process), on the wall time and on the rank thread's own
# CPU time, all logged by the same steps.  Prints the S0 spread (the gate
# wants <= 5 %) of every run set under each clock.
#
# --busy-core C keeps CPU C busy (`yes >/dev/null`, bounded by timeout,
# killed on exit) for the whole measurement.
#
# Knobs: BUILD (default build), STEPS (default 400, the demo's), TMPDIR.
set -u
REPEATS=3 CORE=
while [ $# -gt 0 ]; do
	case $1 in
	--busy-core) [ $# -ge 2 ] || exit 2; CORE=$2; shift ;;
	*[!0-9]* | '') echo "usage: $0 [REPEATS] [--busy-core C]" >&2; exit 2 ;;
	*) REPEATS=$1 ;;
	esac
	shift
done
ROOT=$(cd "$(dirname "$0")/.." && pwd)
TUNECTL=$ROOT/${BUILD:-build}/tunectl
SKW=$ROOT/${BUILD:-build}/examples/skw
if [ ! -x "$TUNECTL" ] || [ ! -x "$SKW" ]; then echo "$0: run make first" >&2; exit 1; fi
W=$(mktemp -d "${TMPDIR:-/tmp}/demo-clocks.XXXXXX")
busy_pid=
cleanup() {
	[ -n "$busy_pid" ] && kill "$busy_pid" 2>/dev/null && wait "$busy_pid" 2>/dev/null
	rm -rf "$W"
}
trap cleanup EXIT
trap 'exit 130' INT TERM
if [ -n "$CORE" ]; then
	timeout $((REPEATS * 120)) taskset -c "$CORE" yes >/dev/null &
	busy_pid=$!
fi

config() {	# config SCOPE FILE: the demo's standard workload, one rank
	cat > "$2" <<EOF
{"workload": {"layers": 8, "hidden": 128, "batch": 8, "steps": ${STEPS:-400}, "ranks": 1, "seed": 42},
 "scope": {"strategy": "$1"},
 "model_config": {"custom_params": {"super_kernel_optimize_options": {}, "super_kernel_debug_options": {}}},
 "experiments": {}}
EOF
}

# clock_runset SRC DST COLUMN: SRC's rank logs with COLUMN (1 decode, 2
# wall, 3 rank-thread) as the decode figure, in the reference layout.
clock_runset() {
	python3 - "$1" "$2" "$3" <<'PY'
import glob, os, re, sys
src, dst, col = sys.argv[1], sys.argv[2], int(sys.argv[3])
pat = re.compile(r"Inference time \(decode\): ([0-9.]+) ms wall ([0-9.]+) ms rank-thread ([0-9.]+) ms")
for run in sorted(glob.glob(os.path.join(src, "run-*"))):
    os.makedirs(os.path.join(dst, os.path.basename(run)))
    for log in glob.glob(os.path.join(run, "log_*.log")):
        with open(os.path.join(dst, os.path.basename(run), os.path.basename(log)), "w") as f:
            for m in pat.finditer(open(log).read()):
                f.write("Inference time (decode): %s ms\n" % m.group(col))
PY
}

spread() {	# spread RUNSET: the S0 gate's spread_pct
	"$TUNECTL" gate stability --baseline "$1" --warmup 8 --expected-ranks 1 \
	    --json-out "$1.gate.json" >/dev/null 2>&1 || { echo "?"; return; }
	python3 -c 'import json,sys; print("%.2f" % json.load(open(sys.argv[1]))["baseline_stability"]["spread_pct"])' "$1.gate.json"
}

echo "# S0 / O0 spread (%) per run set; the gate wants <= 5.0; busy core: ${CORE:-none}"
echo "# load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
printf "%-4s %-6s %10s %10s %12s\n" rep set "cpu(gate)" wall rank-thread
for r in $(seq "$REPEATS"); do
	for pair in S0:none O0:broad_decode; do
		name=${pair%%:*} scope=${pair#*:}
		config "$scope" "$W/$name.json"
		rs=$W/$name-$r
		"$TUNECTL" bench run --runs 5 --warmup-runs 1 --out "$rs" -- "$SKW" --config "$W/$name.json" >/dev/null 2>&1
		clock_runset "$rs" "$rs-wall" 2
		clock_runset "$rs" "$rs-thread" 3
		printf "%-4s %-6s %10s %10s %12s\n" "$r" "$name" "$(spread "$rs")" "$(spread "$rs-wall")" "$(spread "$rs-thread")"
	done
done
echo "# load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
