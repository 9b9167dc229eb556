#!/usr/bin/env bash
# stress.sh - the long form of tunectl's hardening suite ("make stress"):
#
#   1. crash consistency: SIGKILL at every write boundary of the seal of
#      every step of every optional mode, of run-next at four steps, of
#      init, derive-session and pypto state (tests/cli/test_crash_consistency.sh
#      with TUNECTL_STRESS=1);
#   2. concurrency: 12 processes per race, 20 rounds of each race
#      (tests/cli/test_concurrency.sh);
#   3. resource faults and the security checks, with known findings
#      counted (TUNECTL_STRICT_FINDINGS=1 turns them into failures);
#   4. every fuzz corpus replayed (build/tests/test_fuzz_replay);
#   5. when clang is installed, every fuzz target for STRESS_FUZZ_SECONDS
#      (default 60; 0 skips) through scripts/fuzz.sh, FUZZ_JOBS at once.
#
# Prints the numbers docs/hardening.md records (kill points, races,
# findings, executions per target) and exits non-zero on any failure.
#
#   BUILD=build scripts/stress.sh      (make stress builds first)
set -u
cd "$(dirname "$0")/.."
BUILD=${BUILD:-build}
export BUILD TUNECTL_BIN="$PWD/$BUILD/tunectl" TUNECTL_SRC="$PWD"
export TUNECTL_STRESS=1 CMOCKA_MESSAGE_OUTPUT=TAP
STRESS_FUZZ_SECONDS=${STRESS_FUZZ_SECONDS:-60}
logdir=$(mktemp -d "${TMPDIR:-/tmp}/tunectl-stress.XXXXXX")
trap 'rm -rf "$logdir"' EXIT
status=0

run() {	# run NAME CMD...: a TAP producer; prints its summary lines
	local name=$1 start end rc p f s
	shift
	start=$(date +%s)
	"$@" >"$logdir/$name.log" 2>&1
	rc=$?
	end=$(date +%s)
	p=$(grep -c '^ok ' "$logdir/$name.log")
	f=$(grep -c '^not ok ' "$logdir/$name.log")
	s=$(grep -c '^ok [0-9]* # SKIP' "$logdir/$name.log")
	printf '== %-22s %4d ok (%d skipped), %d failed, %ds\n' "$name" "$p" "$s" "$f" $((end - start))
	grep -E '^not ok |^#   ' "$logdir/$name.log" | head -40
	grep -E '^# (crash consistency|concurrency):' "$logdir/$name.log"
	grep -E '^ok [0-9]* # SKIP known finding' "$logdir/$name.log" | sed 's/^ok [0-9]* # SKIP /   /'
	if [ "$rc" -ne 0 ] || [ "$f" -gt 0 ]; then
		status=1
	fi
}

if [ ! -x "$TUNECTL_BIN" ] || [ ! -x "$BUILD/tests/test_fuzz_replay" ]; then
	echo "stress.sh: build first (make stress, or make all unit-tests BUILD=$BUILD)" >&2
	exit 2
fi
run crash_consistency bash tests/cli/test_crash_consistency.sh
run concurrency bash tests/cli/test_concurrency.sh
run resource_faults bash tests/cli/test_resource_faults.sh
run security bash tests/cli/test_security.sh
run fuzz_replay "$BUILD/tests/test_fuzz_replay"

if [ "$STRESS_FUZZ_SECONDS" -gt 0 ]; then
	if command -v clang >/dev/null 2>&1 || command -v clang-14 >/dev/null 2>&1; then
		echo "== fuzzing every target for ${STRESS_FUZZ_SECONDS}s"
		if ! FUZZ_SECONDS=$STRESS_FUZZ_SECONDS FUZZ_BUILD="$BUILD/fuzz" \
		    scripts/fuzz.sh >"$logdir/fuzz.log" 2>&1; then
			status=1
		fi
		grep -E '^== fuzz_.*(executions|FINDING)' "$logdir/fuzz.log"
	else
		echo "== fuzzing skipped: clang is not installed (scripts/deps.sh fuzz)"
	fi
fi
[ "$status" = 0 ] && echo "stress: all passed" || echo "stress: FAILED"
exit $status
