#!/usr/bin/env bash
# controller.sh - what each controller command costs against its floor:
#
#   1. every command of complete seven-step sessions, each launched right
#      after /bin/true is launched the same way (interleaved, so both see
#      the same machine): median wall times and the ratio to /bin/true
#      (the aim: next, verify, resume, status within 1.5x; dispatch and
#      seal within 3 ms on tmpfs);
#   2. verify of a session whose sealed results and ledger total about
#      10 MB, interleaved with sha256sum of those same files and with
#      /bin/true (the aim: under 50 ms per 10 MB).
#
# Times come from bash's $EPOCHREALTIME (no process is started to read
# the clock).  Sessions live in $TMPDIR, default /dev/shm (tmpfs) where it
# exists.  Prints numbers; asserts nothing.
#
#   BUILD=build bench/controller.sh [REPS] [BIG_REPS]
#
# REPS=0 skips part 1 (only the 10 MB verify).
set -euo pipefail
cd "$(dirname "$0")/.."
TC=${TUNECTL:-$PWD/${BUILD:-build}/tunectl}
REPS=${1:-15}
BIG_REPS=${2:-9}
HOST=$PWD/tests/fixtures/hosts/fake_host.py
if [ -z "${TMPDIR:-}" ] && [ -d /dev/shm ] && [ -w /dev/shm ]; then
	TMPDIR=/dev/shm
fi
W=$(mktemp -d "${TMPDIR:-/tmp}/tunectl-bench.XXXXXX")
trap 'rm -rf "$W"' EXIT
# the sidecars of the benchmark's sessions go with them, not into $HOME
export TUNECTL_STATE_DIR=$W/state

declare -A T
record() { T[$1]="${T[$1]:-} $2"; }
# run NAME ARGS...: /bin/true, then tunectl ARGS, each timed in microseconds
run() {
	local name=$1 a b
	shift
	a=${EPOCHREALTIME/./}; /bin/true >/dev/null; b=${EPOCHREALTIME/./}
	record "true_$name" $((b - a))
	a=${EPOCHREALTIME/./}; "$TC" "$@" >/dev/null; b=${EPOCHREALTIME/./}
	record "$name" $((b - a))
}
# floor NAME CMD...: CMD timed as the floor of NAME
floor() {
	local name=$1 a b
	shift
	a=${EPOCHREALTIME/./}; "$@" >/dev/null; b=${EPOCHREALTIME/./}
	record "floor_$name" $((b - a))
}
median() {	# median of the microsecond list on stdin, in ms
	tr ' ' '\n' | grep -v '^$' | sort -n | awk '{ a[NR] = $1 }
	    END { m = (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2
	          printf "%.3f", m / 1000 }'
}

# what is measured: the hardened binary (docs/hardening.md, "The binary")
kind=$(file -b "$TC" | grep -oE 'static-pie linked|dynamically linked|statically linked' || echo "unknown link")
pie=$(readelf -hW "$TC" | awk '/Type:/ { print ($2 == "DYN") ? "PIE" : "position-dependent" }')
relro=$(readelf -lW "$TC" | grep -q GNU_RELRO && readelf -dW "$TC" | grep -qE 'BIND_NOW|Flags: .*NOW' && echo "full RELRO" || echo "no full RELRO")
echo "binary: $TC: $pie, $kind, $relro"
echo "machine: $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg), sessions in $(df -P "$W" | awk 'NR == 2 { print $1 }')"
for r in $(seq 1 "$REPS"); do	# none when REPS is 0
	A=$W/s$r; S=$A/auto-tune-session.json
	run init init --session "$S" --artifact-root "$A" --session-id bench-session --optional-mode none
	for _ in 1 2 3 4 5 6 7; do
		run next next --session "$S"
		run status status --session "$S"
		run dispatch dispatch --session "$S" --output "$A/task.json"
		/usr/bin/python3 "$HOST" ok --task "$A/task.json" --result "$A/result.json"
		run seal seal --session "$S" --result "$A/result.json"
		rm -f "$A/task.json" "$A/result.json"
	done
	run verify verify --session "$S"
	run resume resume --session "$S"
done

if [ "$REPS" -gt 0 ]; then
	echo "controller commands over $REPS seven-step sessions: median wall time (ms, process start included)"
	echo "against /bin/true launched the same way just before each call:"
	printf '  %-9s %9s %11s %7s\n' command tunectl /bin/true ratio
	for c in init next status dispatch seal verify resume; do
		t=$(echo "${T[$c]}" | median)
		f=$(echo "${T[true_$c]}" | median)
		printf '  %-9s %9s %11s %7s\n' "$c" "$t" "$f" "$(awk -v t="$t" -v f="$f" 'BEGIN { printf "%.2fx", t / f }')"
	done
	ratio() { awk -v t="$(echo "${T[$1]}" | median)" -v f="$(echo "${T[true_$1]}" | median)" 'BEGIN { printf "%.2fx", t / f }'; }
	echo "hardened start-up ($pie, $relro): next $(ratio next), status $(ratio status) of /bin/true (aim: at most 1.5x)"
fi

# ---- verify on ~10 MB of sealed results and ledger ----------------------------
A=$W/big; S=$A/auto-tune-session.json
"$TC" init --session "$S" --artifact-root "$A" --session-id bench-session --optional-mode none >/dev/null
for _ in 1 2 3 4 5 6 7; do
	"$TC" dispatch --session "$S" --output "$A/task.json" >/dev/null
	/usr/bin/python3 "$HOST" ok --task "$A/task.json" --result "$A/result.json"
	/usr/bin/python3 - "$A/result.json" "$A/ledger.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
r["decisions"] = [{"trial": i, "value": i * 0.001, "note": "测量 %d" % i, "ok": i % 2 == 0}
                  for i in range(12500)]
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
	rm -f "$A/task.json" "$A/result.json"
done
FILES=("$A"/phases/*/phase-result.json "$A/ledger.json")
size=$(cat "${FILES[@]}" | wc -c)
"$TC" verify --session "$S" | grep -q '"valid": true' || echo "the big session does not verify" >&2
for _ in $(seq 1 "$BIG_REPS"); do
	floor verify_big sha256sum "${FILES[@]}"
	run verify_big verify --session "$S"
done
t=$(echo "${T[verify_big]}" | median)
f=$(echo "${T[floor_verify_big]}" | median)
z=$(echo "${T[true_verify_big]}" | median)
printf 'verify of a session with %.1f MB of sealed results and ledger, median of %d: %s ms;\n' \
    "$(echo "$size / 1048576" | bc -l)" "$BIG_REPS" "$t"
printf '  sha256sum of the same files: %s ms; ratio %s; per 10 MB: %s ms\n' "$f" \
    "$(awk -v t="$t" -v f="$f" 'BEGIN { printf "%.2fx", t / f }')" \
    "$(awk -v t="$t" -v s="$size" 'BEGIN { printf "%.1f", t * 10 * 1048576 / s }')"
printf '  /bin/true: %s ms; ratio %s\n' "$z" \
    "$(awk -v t="$t" -v z="$z" 'BEGIN { printf "%.2fx", t / z }')"
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
