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
#      /bin/true (the aim: under 50 ms per 10 MB);
#   3. seal of a step on a session whose sealed S0 binds SEAL_MB (100) MB
#      of evidence: every seal checks every earlier step's bound evidence
#      (hashing each file once), so it costs about one sha256sum of it.
#
# Times come from bash's $EPOCHREALTIME (no process is started to read
# the clock).  Sessions live in $TMPDIR, default /dev/shm (tmpfs) where it
# exists.  Prints numbers; asserts nothing.
#
# BASELINE=OTHER-TUNECTL adds a column: another build (e.g. a copy of the
# binary before a change) launched right after tunectl on its own copy
# of each session in part 1 and on the same big session in part 2, so
# both builds are measured side by side on the same machine state.
#
#   BUILD=build [SEAL_MB=100] [BASELINE=path] bench/controller.sh [REPS] [BIG_REPS]
#
# REPS=0 skips part 1; SEAL_MB=0 skips part 3.
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

BASELINE=${BASELINE:-}
BASE_ON=0	# whether run() also times $BASELINE (parts 1 and 2)
declare -A T
record() { T[$1]="${T[$1]:-} $2"; }
# run NAME ARGS...: /bin/true, then tunectl ARGS, each timed in
# microseconds; with BASE_ON=1, then $BASELINE ARGS.  "@R@" in ARGS
# stands for the session directory: $RA for tunectl, $RB for the
# baseline (part 1 gives each build its own sessions).
run() {
	local name=$1 a b
	shift
	a=${EPOCHREALTIME/./}; /bin/true >/dev/null; b=${EPOCHREALTIME/./}
	record "true_$name" $((b - a))
	a=${EPOCHREALTIME/./}; "$TC" "${@//@R@/${RA:-}}" >/dev/null; b=${EPOCHREALTIME/./}
	record "$name" $((b - a))
	if [ "$BASE_ON" = 1 ]; then
		a=${EPOCHREALTIME/./}; "$BASELINE" "${@//@R@/${RB:-}}" >/dev/null; b=${EPOCHREALTIME/./}
		record "base_$name" $((b - a))
	fi
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

describe() {	# the build's kind: PIE or not, link, RELRO
	local kind pie relro
	kind=$(file -b "$1" | grep -oE 'static-pie linked|dynamically linked|statically linked' || echo "unknown link")
	pie=$(readelf -hW "$1" | awk '/Type:/ { print ($2 == "DYN") ? "PIE" : "position-dependent" }')
	relro=$(readelf -lW "$1" | grep -q GNU_RELRO && readelf -dW "$1" | grep -qE 'BIND_NOW|Flags: .*NOW' && echo "full RELRO" || echo "no full RELRO")
	echo "$pie, $kind, $relro"
}
echo "binary: $TC: $(describe "$TC")"
[ -z "$BASELINE" ] || echo "baseline: $BASELINE: $(describe "$BASELINE")"
echo "machine: $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg), sessions in $(df -P "$W" | awk 'NR == 2 { print $1 }')"
[ -z "$BASELINE" ] || BASE_ON=1
# host_step R: the fake host answers the task dispatched in session dir R
host_step() {
	/usr/bin/python3 "$HOST" ok --task "$1/task.json" --result "$1/result.json"
}
for r in $(seq 1 "$REPS"); do	# none when REPS is 0
	RA=$W/s$r RB=$W/b$r
	S=@R@/auto-tune-session.json
	run init init --session "$S" --artifact-root @R@ --session-id bench-session --optional-mode none
	for _ in 1 2 3 4 5 6 7; do
		run next next --session "$S"
		run status status --session "$S"
		run dispatch dispatch --session "$S" --output @R@/task.json
		host_step "$RA"
		[ "$BASE_ON" = 0 ] || host_step "$RB"
		run seal seal --session "$S" --result @R@/result.json
		rm -f "$RA/task.json" "$RA/result.json" "$RB/task.json" "$RB/result.json"
	done
	run verify verify --session "$S"
	run resume resume --session "$S"
done
ratio_of() {	# ratio_of A B: median of A over median of B
	awk -v t="$(echo "${T[$1]}" | median)" -v f="$(echo "${T[$2]}" | median)" 'BEGIN { printf "%.2fx", t / f }'
}

if [ "$REPS" -gt 0 ]; then
	echo "controller commands over $REPS seven-step sessions: median wall time (ms, process start included)"
	echo "against /bin/true launched the same way just before each call:"
	if [ -z "$BASELINE" ]; then
		printf '  %-9s %9s %11s %7s\n' command tunectl /bin/true ratio
	else
		printf '  %-9s %9s %11s %7s %9s %7s\n' command tunectl /bin/true ratio baseline ratio
	fi
	for c in init next status dispatch seal verify resume; do
		t=$(echo "${T[$c]}" | median)
		f=$(echo "${T[true_$c]}" | median)
		if [ -z "$BASELINE" ]; then
			printf '  %-9s %9s %11s %7s\n' "$c" "$t" "$f" "$(ratio_of "$c" "true_$c")"
		else
			printf '  %-9s %9s %11s %7s %9s %7s\n' "$c" "$t" "$f" "$(ratio_of "$c" "true_$c")" \
			    "$(echo "${T[base_$c]}" | median)" "$(ratio_of "base_$c" "true_$c")"
		fi
	done
	pie=$(describe "$TC" | cut -d, -f1) relro=$(describe "$TC" | cut -d, -f3)
	echo "hardened start-up ($pie,$relro): next $(ratio_of next true_next), status $(ratio_of status true_status) of /bin/true (aim: at most 1.5x)"
	[ -z "$BASELINE" ] || echo "baseline start-up: next $(ratio_of base_next true_next), status $(ratio_of base_status true_status) of /bin/true"
fi
RA='' RB=''

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
[ "$BASE_ON" = 0 ] || printf '  baseline: %s ms; ratio to sha256sum %s\n' \
    "$(echo "${T[base_verify_big]}" | median)" "$(ratio_of base_verify_big floor_verify_big)"
BASE_ON=0	# part 3's seal changes the session: tunectl only

# ---- seal on a session holding SEAL_MB MB of sealed evidence -------------------
SEAL_MB=${SEAL_MB:-100}
if [ "$SEAL_MB" -gt 0 ]; then
	A=$W/ev; S=$A/auto-tune-session.json
	"$TC" init --session "$S" --artifact-root "$A" --session-id bench-session --optional-mode none >/dev/null
	mkdir -p "$A/s0"
	head -c $((SEAL_MB * 1048576)) /dev/urandom >"$A/s0/samples.bin"
	for what in intake s0; do
		"$TC" dispatch --session "$S" --output "$A/task.json" >/dev/null
		/usr/bin/python3 "$HOST" ok --task "$A/task.json" --result "$A/result.json"
		if [ "$what" = s0 ]; then
			/usr/bin/python3 - "$A/result.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
r["produced_artifacts"] = ["s0/samples.bin"]
json.dump(r, open(sys.argv[1], "w"), ensure_ascii=False)
PY
		fi
		"$TC" seal --session "$S" --result "$A/result.json" >/dev/null
	done
	"$TC" dispatch --session "$S" --output "$A/task.json" >/dev/null
	/usr/bin/python3 "$HOST" ok --task "$A/task.json" --result "$A/result.json"
	cp "$S" "$W/ev-session.json"
	step=$(/usr/bin/python3 -c 'import json, sys; print([s["step_id"] for s in json.load(open(sys.argv[1]))["steps"] if s["state"] == "pending"][0])' "$S")
	for _ in $(seq 1 "$BIG_REPS"); do
		cp "$W/ev-session.json" "$S"
		rm -rf "${A:?}/phases/$step"
		floor seal_big sha256sum "$A/s0/samples.bin"
		run seal_big seal --session "$S" --result "$A/result.json"
	done
	printf 'seal of %s on a session whose sealed S0 binds %d MB of evidence, median of %d: %s ms;\n' \
	    "$step" "$SEAL_MB" "$BIG_REPS" "$(echo "${T[seal_big]}" | median)"
	printf '  sha256sum of that evidence: %s ms; /bin/true: %s ms\n' \
	    "$(echo "${T[floor_seal_big]}" | median)" "$(echo "${T[true_seal_big]}" | median)"
fi
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
