#!/usr/bin/env bash
# demo_reliability.sh [N] [--runs N] [--neighbours K] [--spec SPEC] [--busy]
#                     [--busy-core C] [--out DIR] [--profile P] [--run-timeout S]
#                     [--regression-baseline VARIANT]
#
# Runs `tunectl demo` (or, with --spec, `tunectl tune SPEC`) N times with
# real timings and prints how often a session gets through: per run its
# outcome (the final E2E's classification: beneficial, no_gain or not_run,
# and where it stopped), how many phases its workers ran, its wall time and
# the load average; then every gate's margin per run, the outcome tally,
# the median wall time, how many slower candidates (a mean improvement
# below 0, in Stage A, the option trials or the Final gate) were refused
# and how many passed (a regression let through: should be 0), and the
# line "K of N beneficial".
#
# --neighbours K starts K CPU-bound neighbours for the whole series (each
# `sh -c 'while :; do :; done'`, not pinned: the scheduler puts them where
# it likes, as another user's jobs would be), the loaded machine the demo's
# gate policy is for (docs/measurement.md, "The demo's policy").  --busy
# keeps one core busy instead with a `yes >/dev/null` pinned to it
# (default: the first CPU this process may use, the core the demo's rank 0
# prefers when idle).  Both are started and stopped by this script: each is
# bounded by `timeout` (N x the run timeout, plus a minute) and killed by a
# trap on every exit.
#
# --regression-baseline VARIANT (with --spec) ends the series, neighbours
# still running, with one session of a copy of the spec whose baseline is
# VARIANT (the spec's fastest): every candidate is then a real regression,
# and the line "regression session: ..." says whether the gates refused
# them all (expected: not beneficial, no candidate admitted), or that the
# session did not finish (a failed run: no verdict).  The copy is written
# beside the spec (a hidden file, removed on exit), so that paths relative
# to the spec's directory ({spec_dir}/..., build inputs) still resolve.
#
# Each run is bounded by --run-timeout (default 1200 s).  N is 1 without
# arguments (as `make bench` runs it).  Knobs: BUILD (default build),
# TMPDIR.  Results are kept under --out (default: a fresh directory under
# TMPDIR) for a closer look.  This is a benchmark, not a test: the outcomes
# depend on the machine and on whatever else runs on it.
set -u

usage() {
	echo "usage: $0 [N] [--runs N] [--neighbours K] [--spec SPEC] [--busy] [--busy-core C]" >&2
	echo "       [--out DIR] [--profile standard|quick] [--run-timeout SECONDS]" >&2
	echo "       [--regression-baseline VARIANT]" >&2
	exit 2
}

count() {	# count VALUE: a whole number, or usage
	case $1 in '' | *[!0-9]*) usage ;; esac
}

N=1
if [ $# -ge 1 ]; then
	case $1 in -*) ;; *) N=$1; shift ;; esac
fi
BUSY=0 CORE='' OUT='' PROFILE=standard NEIGHBOURS=0 SPEC='' RUN_TIMEOUT=1200 REGRESSION=''
while [ $# -gt 0 ]; do
	case $1 in
	--runs) [ $# -ge 2 ] || usage; N=$2; shift ;;
	--neighbours | --neighbors) [ $# -ge 2 ] || usage; NEIGHBOURS=$2; shift ;;
	--spec) [ $# -ge 2 ] || usage; SPEC=$2; shift ;;
	--busy) BUSY=1 ;;
	--busy-core) [ $# -ge 2 ] || usage; BUSY=1 CORE=$2; shift ;;
	--out) [ $# -ge 2 ] || usage; OUT=$2; shift ;;
	--profile) [ $# -ge 2 ] || usage; PROFILE=$2; shift ;;
	--run-timeout) [ $# -ge 2 ] || usage; RUN_TIMEOUT=$2; shift ;;
	--regression-baseline) [ $# -ge 2 ] || usage; REGRESSION=$2; shift ;;
	*) usage ;;
	esac
	shift
done
count "$N"
count "$NEIGHBOURS"
count "$RUN_TIMEOUT"
if [ "$N" -lt 1 ] || [ "$RUN_TIMEOUT" -lt 1 ] || [ "$NEIGHBOURS" -gt 64 ]; then usage; fi
[ -z "$REGRESSION" ] || [ -n "$SPEC" ] || usage
if [ -n "$SPEC" ]; then
	[ -f "$SPEC" ] || { echo "$0: no spec $SPEC" >&2; exit 2; }
	SPEC=$(cd "$(dirname "$SPEC")" && pwd)/$(basename "$SPEC")
fi

ROOT=$(cd "$(dirname "$0")/.." && pwd)
TUNECTL=${TUNECTL:-$ROOT/${BUILD:-build}/tunectl}
[ -x "$TUNECTL" ] || { echo "$0: $TUNECTL is missing; run make first" >&2; exit 1; }
OUT=${OUT:-$(mktemp -d "${TMPDIR:-/tmp}/demo-reliability.XXXXXX")}
mkdir -p "$OUT" || exit 1
OUT=$(cd "$OUT" && pwd)

# Every background process this script starts; the trap ends each by pid
# (and removes the regression session's copy of the spec).
pids=()
rspec=
stop_load() {
	local p
	[ -z "$rspec" ] || rm -f "$rspec"
	for p in "${pids[@]}"; do
		kill "$p" 2>/dev/null
	done
	for p in "${pids[@]}"; do
		wait "$p" 2>/dev/null
	done
	pids=()
}
trap stop_load EXIT
trap 'stop_load; exit 130' INT TERM

bound=$(((N + 1) * RUN_TIMEOUT + 60))
if [ "$BUSY" = 1 ]; then
	if [ -z "$CORE" ]; then
		CORE=$(python3 -c 'import os; print(min(os.sched_getaffinity(0)))')
	fi
	command -v taskset >/dev/null || { echo "$0: --busy needs taskset (util-linux)" >&2; exit 1; }
	timeout "$bound" taskset -c "$CORE" yes >/dev/null &
	pids+=($!)
	echo "# busy: yes >/dev/null pinned to CPU $CORE (pid $!) for the whole series"
fi
for _ in $(seq "$NEIGHBOURS"); do
	timeout "$bound" sh -c 'while :; do :; done' &
	pids+=($!)
done
[ "$NEIGHBOURS" -gt 0 ] &&
    echo "# neighbours: $NEIGHBOURS CPU-bound sh loops (pids ${pids[*]: -$NEIGHBOURS}) for the whole series"

if [ -n "$SPEC" ]; then
	what="tunectl tune $SPEC"
else
	what="tunectl demo, profile $PROFILE"
fi
echo "# $N runs of $what on $(nproc) CPUs, results in $OUT"
echo "# load average before: $(cut -d' ' -f1-3 /proc/loadavg)"

# The outcome of one run directory (its latest session), in one line; with
# "all", the gate margins of every run and the summary.
REPORT=$(cat <<'PY'
import json, os, statistics, sys


def load(path):
    try:
        with open(path, encoding="utf-8") as f:
            return json.load(f)
    except (OSError, ValueError):
        return None


def outcome(latest):
    """(classification, where it stopped, phases run by workers, phases)."""
    session = load(os.path.join(latest, "auto-tune-session.json"))
    if session is None:
        return "no_session", "no session", 0, 0
    ledger = load(os.path.join(latest, "ledger.json")) or {}
    cls = (ledger.get("final_e2e") or {}).get("classification") or "none"
    steps = [s for s in session["steps"] if s.get("outcome_status") not in (None, "not_requested")]
    generated = [s["step_id"] for s in steps
                 if (load(os.path.join(latest, s.get("result_path") or "-")) or {}).get("system_generated_by")]
    stop = next((s for s in session["steps"] if s.get("outcome_status") in ("blocked", "failed", "invalid")
                 or (s["phase"] == "stage_a_scope_selection" and s.get("outcome_status") == "no_gain")), None)
    if cls == "beneficial" and not generated:
        where = "all phases run"
    elif stop is not None:
        where = "%s %s" % (stop["step_id"], stop["outcome_status"])
    elif generated:
        where = "short-circuited " + ",".join(generated)
    else:
        where = "final %s" % cls
    return cls, where, len(steps) - len(generated), len(steps)


def spread(root, rel):
    """The stability gate of a series and of every re-measurement of it
    (rel, rel-2.json, ...); the last one is what the gates went on with."""
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
    """The improvement (with its interval under decide-by ci), P90 and
    stddev regression, each with its margin."""
    rep = load(os.path.join(root, rel))
    if not rep or not rep.get("candidates"):
        return "-"
    cands = rep["candidates"]
    if name is None:
        name = (rep.get("selection") or {}).get("selected_for_deep_analysis") or \
            max(cands, key=lambda c: cands[c].get("improvement_pct") or -1e9)
    if name not in cands:
        return "-"
    ev = cands[name].get(key) or (cands[name].get("promotion") if key == "promotion" else None)
    if not ev:
        return "-"
    need = 0.0 if ev.get("mean_improvement_rule") == "strictly_positive" else ev["min_improvement_pct"]
    ci = ev.get("ci95_improvement_pct")
    gain = "%+.1f%%/%+.1f" % (ev["mean_improvement_pct"], ev["mean_improvement_pct"] - need)
    if ci and ci[0] is not None:
        gain += " ci [%+.1f, %+.1f]/%+.1f" % (ci[0], ci[1], ci[0] - need)
    waived = ev.get("waived_by_interval")
    return "%s %s (p90 %+.1f/%+.1f, sd %+.1f/%+.1f)%s" % (
        name, gain,
        ev["p90_regression_pct"], ev["allow_p90_regression_pct"] - ev["p90_regression_pct"],
        ev["stddev_regression_pct"], ev["allow_stddev_regression_pct"] - ev["stddev_regression_pct"],
        " waived " + ",".join(waived) if waived else "")


def regressions(latest):
    """Every comparison of the run whose candidate was slower (mean
    improvement below 0): (refused, passed).  A passed one would be a
    regression the gates let through."""
    reports = [("stage-a/selection.json", "screening_eligibility", "eligible"),
               ("final/promotion.json", "promotion", "promoted")]
    trials = os.path.join(latest, "stage-o")
    if os.path.isdir(trials):
        reports += [("stage-o/" + f, "option_trial_evaluation", "accepted")
                    for f in sorted(os.listdir(trials)) if f.endswith("-trial.json")]
    refused = passed = 0
    for rel, key, word in reports:
        rep = load(os.path.join(latest, rel)) or {}
        for c in (rep.get("candidates") or {}).values():
            ev = c.get(key) or {}
            gain = ev.get("mean_improvement_pct")
            if gain is None or gain >= 0:
                continue
            if ev.get(word):
                passed += 1
            else:
                refused += 1
    return refused, passed


def wall(out, i):
    try:
        with open(os.path.join(out, "run-%d.wall" % i)) as f:
            return float(f.read())
    except (OSError, ValueError):
        return None


if sys.argv[1] == "one":
    cls, where, ran, steps = outcome(os.path.join(sys.argv[2], "latest"))
    print("%s, %s, phases run %d of %d" % (cls, where, ran, steps))
    sys.exit(0)

out, n = sys.argv[2], int(sys.argv[3])
tally, walls, good, slower = {}, [], 0, [0, 0]
print()
print("Gate margins per run: value (margin to the threshold; positive = passed with room)")
for i in range(1, n + 1):
    latest = os.path.join(out, "run-%d" % i, "latest")
    cls, where, ran, steps = outcome(latest)
    key = "%s, %s" % (cls, where)
    tally[key] = tally.get(key, 0) + 1
    good += cls == "beneficial" and where == "all phases run"
    w = wall(out, i)
    if w is not None:
        walls.append(w)
    print("run %d  %s s  %s, phases run %d of %d" % (i, "%.1f" % w if w is not None else "?", key, ran, steps))
    print("    S0 spread %s | Stage A %s" % (spread(latest, "s0/stability.json"),
                                             evaluation(latest, "stage-a/selection.json", "screening_eligibility")))
    print("    O0 spread %s | O1 trial %s" % (spread(latest, "stage-o/O0-stability.json"),
                                             evaluation(latest, "stage-o/O1-trial.json", "option_trial_evaluation", "O1")))
    print("    final %s" % evaluation(latest, "final/promotion.json", "promotion", "Sbest"))
    refused, passed = regressions(latest)
    slower[0] += refused
    slower[1] += passed
    if refused or passed:
        print("    slower candidates: %d refused, %d passed" % (refused, passed))
print()
print("Outcomes:")
for k, v in sorted(tally.items(), key=lambda kv: -kv[1]):
    print("  %2d x %s" % (v, k))
if walls:
    print("Median wall time: %.1f s (min %.1f, max %.1f)" % (statistics.median(walls), min(walls), max(walls)))
print("Slower candidates (mean improvement < 0) over all runs: %d refused, %d passed%s"
      % (slower[0], slower[1], "" if slower[1] == 0 else "  <- a regression let through"))
print("%d of %d beneficial (all phases run)" % (good, n))
PY
)

for i in $(seq "$N"); do
	dir=$OUT/run-$i
	start=$(date +%s.%N)
	if [ -n "$SPEC" ]; then
		timeout "$RUN_TIMEOUT" "$TUNECTL" tune "$SPEC" --session-dir "$dir" > "$OUT/run-$i.log" 2>&1
	else
		timeout "$RUN_TIMEOUT" "$TUNECTL" demo --artifact-root "$dir" --profile "$PROFILE" \
		    --no-html --quiet > "$OUT/run-$i.log" 2>&1
	fi
	rc=$?
	end=$(date +%s.%N)
	python3 -c 'import sys; print("%.1f" % (float(sys.argv[2]) - float(sys.argv[1])))' \
	    "$start" "$end" > "$dir.wall"
	echo "# run $i: $(python3 -c "$REPORT" one "$dir"); exit $rc, $(cat "$dir.wall") s," \
	    "load $(cut -d' ' -f1 /proc/loadavg)"
done
# A real regression under the same load: the spec's fastest variant as
# the baseline, so every candidate is slower.  The copy sits beside the
# spec (its build inputs and {spec_dir} paths are relative to it).
regression_line=
if [ -n "$REGRESSION" ]; then
	rdir=$OUT/regression
	mkdir -p "$rdir" || exit 1
	rspec=$(mktemp "$(dirname "$SPEC")/.regression-$REGRESSION.XXXXXX") || exit 1
	python3 - "$SPEC" "$rspec" "$REGRESSION" <<'PY' || exit 1
import re, sys
text = open(sys.argv[1], encoding="utf-8").read()
new, n = re.subn(r"^(baseline:\n(?:[ \t]+.*\n)*?[ \t]+variant:[ \t]*)\S+", r"\g<1>" + sys.argv[3], text, 1, re.M)
if n != 1:
    sys.exit("%s: no baseline.variant line to replace" % sys.argv[1])
open(sys.argv[2], "w", encoding="utf-8").write(new)
PY
	cp "$rspec" "$rdir/spec.yaml"
	start=$(date +%s.%N)
	timeout "$RUN_TIMEOUT" "$TUNECTL" tune "$rspec" --session-dir "$rdir/run" \
	    > "$rdir/run.log" 2>&1
	rrc=$?
	end=$(date +%s.%N)
	rm -f "$rspec"
	rspec=
	one=$(python3 -c "$REPORT" one "$rdir/run")
	case $rrc:$one in
	0:beneficial*) verdict="a regression was ADMITTED" ;;
	0:no_gain* | 0:not_run*) verdict="refused, as it must be" ;;
	*) verdict="NO VERDICT: the session did not finish (exit $rrc, see $rdir/run.log)" ;;
	esac
	regression_line="regression session (baseline $REGRESSION, every candidate slower): $one; $verdict ($(python3 -c 'import sys; print("%.1f" % (float(sys.argv[2]) - float(sys.argv[1])))' "$start" "$end") s, load $(cut -d' ' -f1 /proc/loadavg))"
	echo "# $regression_line"
fi
stop_load

python3 -c "$REPORT" all "$OUT" "$N"
[ -z "$regression_line" ] || echo "$regression_line"
