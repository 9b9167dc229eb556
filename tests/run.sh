#!/usr/bin/env bash
# run.sh - run every unit test binary and every CLI scenario test, then
# print the one summary line CI counts: "N passed, N failed".
#
#   tests/run.sh [-j JOBS] [-t SECONDS] [NAME...]
#
# Unit tests are cmocka binaries whose output is TAP (CMOCKA_MESSAGE_OUTPUT);
# CLI tests are tests/cli/test_*.sh scripts using tests/cli/lib.sh, which
# also print TAP lines.  A binary or script that crashes or exits non-zero
# without reporting a failure counts as one failure of its own.
#
# Tests run JOBS at a time (default: the number of CPUs; JOBS= in the
# environment too), slowest first by the durations the last run recorded
# in $BUILD/test-durations.  Each test runs under a timeout (-t, or
# TEST_TIMEOUT; default 900 s): one that does not finish in time is killed
# with its whole process group and counts as a failure that names it, with
# the last lines it printed, so a hung test fails the run instead of
# stalling it.  NAME arguments (or TESTS=) select tests whose name contains
# any of them.  TEST_CASE=PATTERN runs only the unit-test cases whose name
# matches it (cmocka's wildcards; tests/unit/case_filter.c).
set -u
cd "$(dirname "$0")/.."
BUILD=${BUILD:-build}
export BUILD
export TUNECTL_BIN="$PWD/$BUILD/tunectl"
# the same program built with the test hooks (fault points): crash_lib.sh
export TUNECTL_TEST_BIN="$PWD/$BUILD/tunectl-test"
export TUNECTL_SRC="$PWD"
export CMOCKA_MESSAGE_OUTPUT=TAP

jobs=${JOBS:-$(nproc 2>/dev/null || echo 2)}
limit=${TEST_TIMEOUT:-900}
filters=()
[ -n "${TESTS:-}" ] && filters+=("$TESTS")
while [ $# -gt 0 ]; do
	case $1 in
	-j) jobs=$2; shift 2 ;;
	-j*) jobs=${1#-j}; shift ;;
	-t) limit=$2; shift 2 ;;
	-h|--help) sed -n '2,20p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
	-*) echo "run.sh: unknown option $1" >&2; exit 2 ;;
	*) filters+=("$1"); shift ;;
	esac
done
case $jobs in ''|*[!0-9]*|0) echo "run.sh: -j takes a positive number" >&2; exit 2 ;; esac
case $limit in ''|*[!0-9]*|0) echo "run.sh: -t takes a positive number of seconds" >&2; exit 2 ;; esac

passed=0
failed=0
skipped=0
failures=()

selected() {	# selected NAME: does NAME match the filters (all when none)?
	local f
	[ ${#filters[@]} -eq 0 ] && return 0
	for f in "${filters[@]}"; do
		[[ "$1" == *"$f"* ]] && return 0
	done
	return 1
}

# TAP: a line with a "# SKIP" directive is a skip, whether cmocka prints
# it as "ok" or "not ok".
count() {	# count <name> <logfile> <exit-code>
	local name=$1 log=$2 rc=$3 p f s
	p=$(grep -E '^ok ' "$log" | grep -cvE '# ?SKIP' || true)
	f=$(grep -E '^not ok ' "$log" | grep -cvE '# ?SKIP' || true)
	s=$(grep -E '^(not )?ok ' "$log" | grep -cE '# ?SKIP' || true)
	passed=$((passed + p))
	failed=$((failed + f))
	skipped=$((skipped + s))
	if [ "$f" -gt 0 ]; then
		while IFS= read -r line; do failures+=("$name: $line"); done \
		    < <(grep -E '^not ok ' "$log" | grep -vE '# ?SKIP')
	fi
	if [ "$rc" -eq 124 ] || [ "$rc" -eq 137 ]; then
		failed=$((failed + 1))
		failures+=("$name: timed out after ${limit}s and was killed; its last lines:")
		while IFS= read -r line; do failures+=("    $line"); done < <(tail -n 5 "$log")
	elif [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then
		failed=$((failed + 1))
		failures+=("$name: exited $rc without reporting a failed test")
	fi
}

logdir=$(mktemp -d "${TMPDIR:-/tmp}/tunectl-tests.XXXXXX")
durations=$BUILD/test-durations
trap 'kill -- $(jobs -p) 2>/dev/null; rm -rf "$logdir"' EXIT
trap 'exit 130' INT TERM
# Sidecars of the sessions tests create stay with the run, not in $HOME
# (tests/cli/lib.sh gives each CLI test its own).
export TUNECTL_STATE_DIR=${TUNECTL_STATE_DIR:-$logdir/state}

# The tests, as "name<TAB>command": unit binaries, then CLI scripts.
tests=()
for bin in "$BUILD"/tests/test_*; do
	[ -x "$bin" ] || continue
	name=$(basename "$bin")
	selected "$name" && tests+=("$name	$bin")
done
for script in tests/cli/test_*.sh; do
	[ -f "$script" ] || continue
	name=$(basename "$script" .sh)
	selected "$name" || continue
	# a unit test of the same name (test_skills) keeps its own log
	for t in "${tests[@]}"; do
		[ "${t%%	*}" = "$name" ] && name=$name.sh
	done
	tests+=("$name	bash $script")
done

# Slowest first, so the long tests do not start last and stretch the run.
order() {
	local t name
	for t in "${tests[@]}"; do
		name=${t%%	*}
		d=$( [ -f "$durations" ] && awk -v n="$name" '$1 == n { print $2; exit }' "$durations")
		printf '%s\t%s\n' "${d:-0}" "$t"
	done | sort -t '	' -k1,1nr -s | cut -f2-
}

# Each test runs under timeout(1), which puts it in a process group of its
# own, signals the whole group at the limit and SIGKILLs it 10 s later.
# The .rc file is written last: its presence means the test is done.
start() {	# start <name> <command...>
	local name=$1
	shift
	(
		t0=$(date +%s%N)
		timeout -k 10 "$limit" "$@" >"$logdir/$name.log" 2>&1 </dev/null
		rc=$?
		echo $((($(date +%s%N) - t0) / 1000000)) >"$logdir/$name.ms"
		echo "$rc" >"$logdir/$name.rc"
	) &
	pids[$!]=$name
}

report() {	# report <name>: print one finished test's output and count it
	local name=$1 rc ms
	rc=$(cat "$logdir/$name.rc" 2>/dev/null || echo 1)
	ms=$(cat "$logdir/$name.ms" 2>/dev/null || echo 0)
	echo "# $name ($((ms / 1000)).$(printf '%03d' $((ms % 1000))) s)"
	cat "$logdir/$name.log"
	count "$name" "$logdir/$name.log" "$rc"
	printf '%s %s\n' "$name" "$((ms / 1000))" >>"$logdir/durations"
}

declare -A pids=()
t_start=$(date +%s)
while IFS= read -r t; do
	[ -n "$t" ] || continue
	while [ ${#pids[@]} -ge "$jobs" ]; do
		wait -n 2>/dev/null
		for pid in "${!pids[@]}"; do
			if [ -f "$logdir/${pids[$pid]}.rc" ]; then
				wait "$pid" 2>/dev/null
				report "${pids[$pid]}"
				unset "pids[$pid]"
			fi
		done
	done
	# shellcheck disable=SC2086
	start "${t%%	*}" ${t#*	}
done < <(order)
for pid in "${!pids[@]}"; do
	wait "$pid" 2>/dev/null
	report "${pids[$pid]}"
	unset "pids[$pid]"
done
elapsed=$(($(date +%s) - t_start))

# Remember how long each test took, for the next run's order.
if [ -s "$logdir/durations" ] && [ -d "$BUILD" ]; then
	{
		[ -f "$durations" ] && awk 'NR == FNR { seen[$1] = 1; next } !($1 in seen)' \
		    "$logdir/durations" "$durations"
		cat "$logdir/durations"
	} >"$logdir/durations.new" && mv "$logdir/durations.new" "$durations"
fi

if [ ${#failures[@]} -gt 0 ]; then
	echo "# failures:"
	printf '#   %s\n' "${failures[@]}"
fi
echo "# $skipped skipped; ${#tests[@]} tests in ${elapsed}s with $jobs jobs"
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
