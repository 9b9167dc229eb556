#!/usr/bin/env bash
# controller.sh - median wall time of each controller command over complete
# seven-step sessions, and of verify on a session whose sealed results and
# ledger total about 10 MB.  Prints numbers; asserts nothing.
#
#   BUILD=build bench/controller.sh [REPS]
set -euo pipefail
cd "$(dirname "$0")/.."
TC=${TUNECTL:-$PWD/${BUILD:-build}/tunectl}
REPS=${1:-15}
HOST=$PWD/tests/fixtures/hosts/fake_host.py
W=$(mktemp -d "${TMPDIR:-/tmp}/tunectl-bench.XXXXXX")
trap 'rm -rf "$W"' EXIT

now() { date +%s%N; }
declare -A T
record() { T[$1]="${T[$1]:-} $2"; }
timed() {	# timed NAME cmd...
	local a b
	a=$(now); "$@" >/dev/null; b=$(now)
	record "$1_" $(( (b - a) / 1000 ))
}
run() { local name=$1; shift; local a b; a=$(now); "$TC" "$@" >/dev/null; b=$(now); record "$name" $(( (b - a) / 1000 )); }

for r in $(seq 1 "$REPS"); do
	A=$W/s$r; S=$A/auto-tune-session.json
	run init init --session "$S" --artifact-root "$A" --session-id bench-session --optional-mode none
	for _ in 1 2 3 4 5 6 7; do
		run next next --session "$S"
		run dispatch dispatch --session "$S" --output "$A/task.json"
		/usr/bin/python3 "$HOST" ok --task "$A/task.json" --result "$A/result.json"
		run seal seal --session "$S" --result "$A/result.json"
		rm -f "$A/task.json" "$A/result.json"
	done
	run verify verify --session "$S"
	run resume resume --session "$S"
done

median() { tr ' ' '\n' | grep -v '^$' | sort -n | awk '{a[NR]=$1} END {m=(NR%2)?a[(NR+1)/2]:(a[NR/2]+a[NR/2+1])/2; printf "%.2f", m/1000}'; }
echo "controller commands, median wall time over $REPS seven-step sessions (ms, process start included):"
for c in init next dispatch seal verify resume; do
	printf '  %-9s %s ms\n' "$c" "$(echo "${T[$c]}" | median)"
done

# verify on ~10 MB of sealed results and ledger
A=$W/big; S=$A/auto-tune-session.json
"$TC" init --session "$S" --artifact-root "$A" --session-id bench-session --optional-mode none >/dev/null
for _ in 1 2 3 4 5 6 7; do
	"$TC" dispatch --session "$S" --output "$A/task.json" >/dev/null
	/usr/bin/python3 "$HOST" ok --task "$A/task.json" --result "$A/result.json"
	/usr/bin/python3 - "$A/result.json" "$A/ledger.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
r["decisions"] = [{"trial": i, "value": i * 0.001, "note": "测量 %d" % i, "ok": i % 2 == 0}
                  for i in range(22000)]
json.dump(r, open(sys.argv[1], "w"), ensure_ascii=False)
try:
    l = json.load(open(sys.argv[2]))
    l["experiments"] = {}
    l["padding_rounds"] = [{"round": i, "samples_ms": [i * 0.5] * 20} for i in range(4000)]
    json.dump(l, open(sys.argv[2], "w"))
except FileNotFoundError:
    pass
PY
	"$TC" seal --session "$S" --result "$A/result.json" >/dev/null
done
size=$(du -cb "$A"/phases/*/phase-result.json "$A/ledger.json" | tail -1 | cut -f1)
for _ in 1 2 3 4 5; do run verify_big verify --session "$S"; done
printf 'verify of a session with %.1f MB of sealed results and ledger: median %s ms\n' \
    "$(echo "$size / 1048576" | bc -l)" "$(echo "${T[verify_big]}" | median)"
