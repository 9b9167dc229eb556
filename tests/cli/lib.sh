# lib.sh - shared helpers for CLI scenario tests (source it).
#
# Each test prints TAP lines ("ok N - name" / "not ok N - name") that
# tests/run.sh counts.  Use:
#   tc <args...>            run tunectl (under valgrind when VALGRIND=1);
#                           sets $out (stdout), $err (stderr), $rc
#   check "name" <cmd...>   run a shell assertion and report it
#   expect_rc N "name"      assert the last tc exit code
#   expect_out "text" "name" / expect_err "text" "name"  (substring)
#   skip "reason"           count a test that cannot run here (TAP SKIP)
#   open_gate FIFO "what"   write a line to a FIFO a background command
#                           reads, failing (not hanging) if none does
#   wait_for SECS "what" PID...  wait for background processes, at most
#                           SECS; on timeout kill them and fail naming what
#   finish                  print the plan; exit non-zero on failure
#   script_spec NAME [EMIT] [METRIC]  the small script workload spec of
#                           the tune tests on stdout
#
# Nothing here waits without a bound: a test that would hang fails instead.
# Each test works in its own $T, removed at exit unless KEEP_T is set.
set -u
TUNECTL_BIN=${TUNECTL_BIN:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)/build/tunectl}
TUNECTL_TEST_BIN=${TUNECTL_TEST_BIN:-${TUNECTL_BIN%/*}/tunectl-test}
TUNECTL_SRC=${TUNECTL_SRC:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}
T=$(mktemp -d "${TMPDIR:-/tmp}/tunectl-cli.XXXXXX")
trap '[ -n "${KEEP_T:-}" ] || rm -rf "$T"' EXIT
# The sidecars of reference-policy sessions (docs/security.md) go with $T.
export TUNECTL_STATE_DIR=$T/.state

# sidecar_of SESSION: the path of that session's sidecar
# (<state>/sidecars/<sha256 of the resolved session path>.json).
sidecar_of() {
	python3 -c 'import hashlib, os, sys
p = os.path.realpath(sys.argv[1]).encode("utf-8", "surrogateescape")
print(os.path.join(os.environ["TUNECTL_STATE_DIR"], "sidecars", hashlib.sha256(p).hexdigest() + ".json"))' "$1"
}
# sidecar_manifest SESSION STEP_ID: the artifact manifest the newest seal
# record of that sidecar binds to the step (JSON, pretty), or nothing.
sidecar_manifest() {
	python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))
for r in reversed(d["records"]):
    for m in r.get("manifests", []):
        if m["step_id"] == sys.argv[2]:
            print(json.dumps(m, ensure_ascii=False, indent=2, sort_keys=True)); sys.exit(0)' "$(sidecar_of "$1")" "$2"
}
_n=0
_failed=0
out=""
err=""
rc=0

if [ "${VALGRIND:-0}" = 1 ]; then
	_tc_prefix=(valgrind -q --error-exitcode=99 --leak-check=full
	    --errors-for-leak-kinds=definite,indirect --trace-children=no)
else
	_tc_prefix=()
fi

tc() {
	local o e
	o="$T/.out.$$" e="$T/.err.$$"
	"${_tc_prefix[@]}" "$TUNECTL_BIN" "$@" >"$o" 2>"$e" </dev/null
	rc=$?
	out=$(cat "$o")
	err=$(cat "$e")
	if [ "$rc" = 99 ] && [ "${VALGRIND:-0}" = 1 ]; then
		echo "# valgrind reported errors for: tunectl $*" >&2
		cat "$e" >&2
	fi
	return 0
}

# tc_in FILE args...: like tc, with FILE on stdin
tc_in() {
	local in=$1 o e
	shift
	o="$T/.out.$$" e="$T/.err.$$"
	"${_tc_prefix[@]}" "$TUNECTL_BIN" "$@" >"$o" 2>"$e" <"$in"
	rc=$?
	out=$(cat "$o")
	err=$(cat "$e")
	return 0
}

ok() { _n=$((_n + 1)); echo "ok $_n - $1"; }
skip() { _n=$((_n + 1)); echo "ok $_n # SKIP $1"; }
not_ok() {
	_n=$((_n + 1)); _failed=$((_failed + 1))
	echo "not ok $_n - $1"
	shift
	for line in "$@"; do echo "#   $line"; done
}

check() {
	local name=$1
	shift
	if "$@"; then ok "$name"; else not_ok "$name" "command: $*" "rc=$rc" "stdout: ${out:0:400}" "stderr: ${err:0:400}"; fi
}

expect_rc() {
	if [ "$rc" = "$1" ]; then ok "$2"; else not_ok "$2" "expected exit $1, got $rc" "stdout: ${out:0:400}" "stderr: ${err:0:400}"; fi
}
expect_out() {
	if [[ "$out" == *"$1"* ]]; then ok "$2"; else not_ok "$2" "stdout lacks: $1" "stdout: ${out:0:600}"; fi
}
expect_err() {
	if [[ "$err" == *"$1"* ]]; then ok "$2"; else not_ok "$2" "stderr lacks: $1" "stderr: ${err:0:600}"; fi
}
expect_eq() {	# expect_eq actual expected name
	if [ "$1" == "$2" ]; then ok "$3"; else not_ok "$3" "expected: ${2:0:300}" "actual:   ${1:0:300}"; fi
}

finish() {
	echo "1..$_n"
	[ "$_failed" -eq 0 ]
}

# open_gate FIFO WHAT [SECONDS]: write "go" into FIFO, at most SECONDS
# (default 20).  A plain "echo go > FIFO" blocks forever when the reader
# has already gone (for instance killed by its own timeout).
open_gate() {
	local fifo=$1 what=$2 limit=${3:-20}
	if ! timeout "$limit" sh -c 'echo go > "$1"' _ "$fifo"; then
		not_ok "open the gate of $what" "nobody read $fifo within ${limit}s (has its reader already exited?)"
		return 1
	fi
}

# wait_for SECONDS WHAT PID...: wait for background PIDs, at most SECONDS
# in all; returns the last PID's exit status.  On timeout the remaining
# ones are killed (SIGKILL) and a failure names WHAT.
wait_for() {
	local limit=$1 what=$2 pid deadline rc=0
	shift 2
	deadline=$((SECONDS + limit))
	for pid in "$@"; do
		while kill -0 "$pid" 2>/dev/null; do
			if [ "$SECONDS" -ge "$deadline" ]; then
				kill -9 "$@" 2>/dev/null
				wait "$@" 2>/dev/null
				not_ok "wait for $what" "still running after ${limit}s: pids $*"
				return 124
			fi
			sleep 0.05
		done
	done
	for pid in "$@"; do
		wait "$pid" 2>/dev/null
		rc=$?
	done
	return "$rc"
}


# script_spec NAME [EMIT] [METRIC]: the small workload spec of the tune
# tests (test_tune_session.sh, test_own_reports.sh) on stdout: a script,
# no build, simulated timings.  Variants slow and fast (6 ms against 10),
# option n in {1, 2} dividing the time, baseline slow n=1, so fast n=2 is
# about 70 % faster; odd runs add 0.01 ms.  A run must print "ok"
# (check.expected_output).  EMIT is the shell that reports the run's
# figure $t (default: 'echo "elapsed $t ms" >&2'), METRIC the spec's
# metric value (default: that line read from stderr).  Append other keys
# (profile: ...) after it: top-level order does not matter.
script_spec() {
	local emit=${2:-'echo "elapsed $t ms" >&2'}
	local metric=${3:-"{from: stderr, regex: 'elapsed ([0-9.]+) ms', unit: ms, direction: lower}"}
	cat <<YAML
version: 1
name: $1
run:
  command: >-
    t=\$(awk -v v={variant} -v n={n} -v k="\$TUNECTL_RUN_INDEX"
    'BEGIN {{ printf "%.3f", (v == "fast" ? 6 : 10) / n + 0.01 * (k % 2) }}');
    $emit; echo ok
  timeout: 5
check: {expected_output: ok}
metric: $metric
variants:
  - {name: slow, params: {}}
  - {name: fast, params: {}}
options:
  parameters:
    n: [1, 2]
baseline: {variant: slow, params: {n: 1}}
gate: {runs: 5, warmup_runs: 0, warmup_samples: 0}
YAML
}
