#!/usr/bin/env bash
# demo_reliability.sh N [--busy] [--busy-core C] [--out DIR] [--profile P]
#
# Runs `tunectl demo` N times with real timings and prints how often the
# demo gets through: the outcome tally (beneficial with all seven phases
# run by workers, or each kind of short-circuit), the median wall time, and
# every gate's margin per run (the numbers the gates compared against their
# thresholds).
#
# --busy keeps one core busy for the whole series with a `yes >/dev/null`
# pinned to it (default: the core the demo's rank 0 is pinned to, the
# first CPU this process may use), started and stopped by this script: it
# is bounded by `timeout` (N x 300 s) and killed by a trap on every exit.
#
# Without arguments (as `make bench` runs it) N is 1.  Knobs: BUILD
# (default build), TMPDIR.  Results are kept under --out (default: a fresh
# directory under TMPDIR) for a closer look.
set -u

usage() {
	echo "usage: $0 N [--busy] [--busy-core C] [--out DIR] [--profile standard|quick]" >&2
	exit 2
}

N=1
if [ $# -ge 1 ]; then
	N=$1
	shift
fi
case $N in '' | *[!0-9]*) usage ;; esac
[ "$N" -ge 1 ] || usage
BUSY=0 CORE= OUT= PROFILE=standard
while [ $# -gt 0 ]; do
	case $1 in
	--busy) BUSY=1 ;;
	--busy-core) [ $# -ge 2 ] || usage; BUSY=1 CORE=$2; shift ;;
	--out) [ $# -ge 2 ] || usage; OUT=$2; shift ;;
	--profile) [ $# -ge 2 ] || usage; PROFILE=$2; shift ;;
	*) usage ;;
	esac
	shift
done

ROOT=$(cd "$(dirname "$0")/.." && pwd)
TUNECTL=${TUNECTL:-$ROOT/${BUILD:-build}/tunectl}
[ -x "$TUNECTL" ] || { echo "$0: $TUNECTL is missing; run make first" >&2; exit 1; }
OUT=${OUT:-$(mktemp -d "${TMPDIR:-/tmp}/demo-reliability.XXXXXX")}
mkdir -p "$OUT" || exit 1

busy_pid=
stop_busy() {
	if [ -n "$busy_pid" ]; then
		kill "$busy_pid" 2>/dev/null
		wait "$busy_pid" 2>/dev/null
		busy_pid=
	fi
}
trap stop_busy EXIT
trap 'stop_busy; exit 130' INT TERM

if [ "$BUSY" = 1 ]; then
	if [ -z "$CORE" ]; then
		CORE=$(python3 -c 'import os; print(min(os.sched_getaffinity(0)))')
	fi
	command -v taskset >/dev/null || { echo "$0: --busy needs taskset (util-linux)" >&2; exit 1; }
	timeout $((N * 300)) taskset -c "$CORE" yes >/dev/null &
	busy_pid=$!
	echo "# busy: yes >/dev/null pinned to CPU $CORE (pid $busy_pid) for the whole series"
fi
echo "# $N demo runs, profile $PROFILE, results in $OUT"
echo "# load average before: $(cut -d' ' -f1-3 /proc/loadavg)"

for i in $(seq "$N"); do
	dir=$OUT/run-$i
	start=$(date +%s.%N)
	"$TUNECTL" demo --artifact-root "$dir" --profile "$PROFILE" --no-html --quiet \
	    > "$OUT/run-$i.log" 2>&1
	rc=$?
	end=$(date +%s.%N)
	python3 -c 'import sys; print("%.1f" % (float(sys.argv[2]) - float(sys.argv[1])))' \
	    "$start" "$end" > "$dir.wall"
	echo "# run $i: exit $rc, $(cat "$dir.wall") s, load $(cut -d' ' -f1 /proc/loadavg)"
done
stop_busy

python3 - "$OUT" "$N" <<'PY'
import json, os, statistics, sys

out, n = sys.argv[1], int(sys.argv[2])


def load(path):
    try:
        with open(path, encoding="utf-8") as f:
            return json.load(f)
    except (OSError, ValueError):
        return None


def spread(root, rel):
    """The stability gate of a series and of every re-measurement of it
    (rel, rel-2.json, ...: the workers measure a disturbed series again,
    at most three times); the last one is what the gates went on with."""
    shown = []
    for k in range(1, 10):
        r = rel if k == 1 else "%s-%d.json" % (rel[:-5], k)
        st = (load(os.path.join(root, r)) or {}).get("baseline_stability") or {}
        if st.get("spread_pct") is None:
            break
        shown.append("%.2f%% (%+.2f)" % (st["spread_pct"], st["max_spread_pct"] - st["spread_pct"]))
    if not shown:
        return "-"
    return shown[-1] + ("" if len(shown) == 1 else "  [%d series: %s]" % (len(shown), ", ".join(shown)))


def evaluation(root, rel, key, name=None):
    """mean improvement / P90 / stddev regression and their margins."""
    rep = load(os.path.join(root, rel))
    if not rep or not rep.get("candidates"):
        return "-"
    cands = rep["candidates"]
    if name is None:
        name = (rep.get("selection") or {}).get("selected_for_deep_analysis") or \
            max(cands, key=lambda c: cands[c].get("improvement_pct") or -1e9)
    ev = cands[name].get(key) or (cands[name].get("promotion") if key == "promotion" else None)
    if not ev:
        return "-"
    need = 0.0 if ev.get("mean_improvement_rule") == "strictly_positive" else ev["min_improvement_pct"]
    return "%s %+.1f%%/%+.1f (p90 %+.1f/%+.1f, sd %+.1f/%+.1f)" % (
        name, ev["mean_improvement_pct"], ev["mean_improvement_pct"] - need,
        ev["p90_regression_pct"], ev["allow_p90_regression_pct"] - ev["p90_regression_pct"],
        ev["stddev_regression_pct"], ev["allow_stddev_regression_pct"] - ev["stddev_regression_pct"])


tally, walls, rows = {}, [], []
for i in range(1, n + 1):
    base = os.path.join(out, "run-%d" % i)
    try:
        wall = float(open(base + ".wall").read())
        walls.append(wall)
    except (OSError, ValueError):
        wall = None
    latest = os.path.join(base, "latest")
    session = load(os.path.join(latest, "auto-tune-session.json"))
    ledger = load(os.path.join(latest, "ledger.json")) or {}
    cls = (ledger.get("final_e2e") or {}).get("classification")
    if session is None:
        outcome = "no session (see run-%d.log)" % i
    else:
        generated = [s["step_id"] for s in session["steps"]
                     if (load(os.path.join(latest, s.get("result_path") or "-")) or {}).get("system_generated_by")]
        stop = next((s for s in session["steps"] if s.get("outcome_status") in ("blocked", "failed", "invalid")
                     or (s["phase"] == "stage_a_scope_selection" and s.get("outcome_status") == "no_gain")), None)
        if cls == "beneficial" and not generated:
            outcome = "beneficial, all seven phases"
        elif cls == "beneficial":
            outcome = "beneficial, short-circuited " + ",".join(generated)
        elif stop is not None:
            outcome = "%s %s" % (stop["step_id"], stop["outcome_status"])
        else:
            outcome = "final %s" % cls
    tally[outcome] = tally.get(outcome, 0) + 1
    rows.append((i, wall, outcome, spread(latest, "s0/stability.json"),
                 evaluation(latest, "stage-a/selection.json", "screening_eligibility"),
                 spread(latest, "stage-o/O0-stability.json"),
                 evaluation(latest, "stage-o/O1-trial.json", "option_trial_evaluation", "O1"),
                 evaluation(latest, "final/promotion.json", "promotion", "Sbest")))

print()
print("Gate margins per run: value (margin to the threshold; positive = passed with room)")
for r in rows:
    print("run %d  %s s  %s" % (r[0], "%.1f" % r[1] if r[1] is not None else "?", r[2]))
    print("    S0 spread %s | Stage A %s" % (r[3], r[4]))
    print("    O0 spread %s | O1 trial %s" % (r[5], r[6]))
    print("    final %s" % r[7])
print()
print("Outcomes:")
for k, v in sorted(tally.items(), key=lambda kv: -kv[1]):
    print("  %2d x %s" % (v, k))
if walls:
    print("Median wall time: %.1f s (min %.1f, max %.1f)" % (statistics.median(walls), min(walls), max(walls)))
PY
