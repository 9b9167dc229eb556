#!/usr/bin/env bash
# loaded_regression.sh - whether the loaded-machine policy still refuses a
# real regression, and still admits a real win.  Prints numbers; asserts
# nothing (the outcome depends on the machine and on what else runs on it).
#
# The policy is the one examples/dgemm/tune.yaml freezes for a machine that
# is not idle (docs/measurement.md, "The DGEMM spec's policy"): the
# improvement's bootstrap interval decides (--decide-by ci), an interval
# that clears the threshold waives the spread and stddev checks
# (--stability relative), a baseline may spread up to 100 %
# (--max-spread-pct 100), stddev may grow 50 %.
#
# Each round measures a CPU-bound program (awk counting to WORK) against
#   slow: the same program doing FACTOR times the work (a real regression)
#   fast: the same program doing 1/FACTOR of the work (a real win)
# RUNS runs each, in both orders of measuring: interleaved (bench ab,
# A B A B ...) and sequential (bench run of the baseline, then of the
# candidate), and gates every comparison with `tunectl gate promote`.
# Per comparison it prints the mean improvement, its 95 % interval, the
# baseline's spread and the verdict; then the tally: how many regressions
# were refused (must be all) and how many wins admitted.
#
#   bench/loaded_regression.sh [ROUNDS]
#
# Environment: BUILD (default build), RUNS (5), WORK (3000000), FACTOR
# (1.25), NEIGHBOURS (0: the machine's own load; K starts K CPU-bound
# loops for the whole series, each bounded by timeout and killed on exit),
# KEEP=1 keeps the run sets.
set -eu
cd "$(dirname "$0")/.."
BUILD=${BUILD:-build}
TUNECTL="$PWD/$BUILD/tunectl"
ROUNDS=${1:-3}
RUNS=${RUNS:-5}
WORK=${WORK:-3000000}
FACTOR=${FACTOR:-1.25}
NEIGHBOURS=${NEIGHBOURS:-0}
[ -x "$TUNECTL" ] || { echo "build tunectl first (make BUILD=$BUILD)" >&2; exit 1; }
case $ROUNDS$RUNS$WORK$NEIGHBOURS in *[!0-9]*) echo "ROUNDS, RUNS, WORK and NEIGHBOURS are counts" >&2; exit 2 ;; esac

DIR=$(mktemp -d "${TMPDIR:-/tmp}/tunectl-bench-loaded.XXXXXX")
PIDS=''
cleanup() {
	for p in $PIDS; do kill "$p" 2>/dev/null || true; done
	[ "${KEEP:-0}" = 1 ] || rm -rf "$DIR"
}
trap cleanup EXIT
for _ in $(seq 1 "$NEIGHBOURS"); do
	timeout $(( ROUNDS * 120 + 60 )) sh -c 'while :; do :; done' &
	PIDS="$PIDS $!"
done

POLICY=(--expected-ranks 1 --warmup 0 --promotion-mode S1=whole_scope --decide-by ci
	--stability relative --max-spread-pct 100 --allow-stddev-regression-pct 50
	--min-improvement-pct 2)

# measure ORDER OUT_BASE OUT_CAND N_BASE N_CAND
measure() {
	if [ "$1" = interleaved ]; then
		"$TUNECTL" bench ab --runs "$RUNS" --out-a "$2" --out-b "$3" -- \
		    awk "BEGIN { for (i = 0; i < $4; i++) s += i }" --- \
		    awk "BEGIN { for (i = 0; i < $5; i++) s += i }" >/dev/null 2>&1
	else
		"$TUNECTL" bench run --runs "$RUNS" --out "$2" -- \
		    awk "BEGIN { for (i = 0; i < $4; i++) s += i }" >/dev/null 2>&1 &&
		"$TUNECTL" bench run --runs "$RUNS" --out "$3" -- \
		    awk "BEGIN { for (i = 0; i < $5; i++) s += i }" >/dev/null 2>&1
	fi
}

# verdict GATE.json: "promoted|refused mean [lo, hi] spread"
verdict() {
	python3 - "$1" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
p = d["candidates"]["S1"]["promotion"]
lo, hi = p.get("ci95_improvement_pct") or (float("nan"), float("nan"))
print("%s %+.1f [%+.1f, %+.1f] %.1f" % ("promoted" if p.get("promoted") else "refused",
      p.get("mean_improvement_pct"), lo, hi, d["baseline_stability"]["spread_pct"]))
PY
}

echo "machine: $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg), $NEIGHBOURS neighbour(s) started"
echo "program: awk counting to $WORK; slow x$FACTOR, fast /$FACTOR; $RUNS runs per side"
printf '%-5s %-11s %-5s %-9s %8s %20s %9s\n' round order kind verdict mean interval spread%
SLOW=$(awk -v n="$WORK" -v f="$FACTOR" 'BEGIN { printf "%d", n * f }')
FAST=$(awk -v n="$WORK" -v f="$FACTOR" 'BEGIN { printf "%d", n / f }')
refused=0 regressions=0 admitted=0 wins=0
for r in $(seq 1 "$ROUNDS"); do
	for order in interleaved sequential; do
		for kind in slow fast; do
			n=$SLOW
			[ $kind = fast ] && n=$FAST
			d="$DIR/$r-$order-$kind"
			if ! measure $order "$d-base" "$d-cand" "$WORK" "$n"; then
				echo "$r $order $kind: a run failed (see $d-*)" >&2
				continue
			fi
			"$TUNECTL" gate promote --baseline "$d-base" --candidate "S1=$d-cand" \
			    "${POLICY[@]}" --json-out "$d.json" >/dev/null 2>&1 || true
			read -r v mean lo hi spread <<<"$(verdict "$d.json")"
			printf '%-5s %-11s %-5s %-9s %+7.1f%% %20s %9s\n' "$r" $order $kind "$v" "$mean" "$lo $hi" "$spread"
			if [ $kind = slow ]; then
				regressions=$((regressions + 1))
				[ "$v" = refused ] && refused=$((refused + 1))
			else
				wins=$((wins + 1))
				[ "$v" = promoted ] && admitted=$((admitted + 1))
			fi
		done
	done
done
echo "load average at the end: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "regressions refused: $refused of $regressions (a regression admitted would be a false win)"
echo "wins admitted: $admitted of $wins"
