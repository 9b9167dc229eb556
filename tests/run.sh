#!/usr/bin/env bash
# run.sh - run every unit test binary and every CLI scenario test, then
# print the one summary line CI counts: "N passed, N failed".
#
# Unit tests are cmocka binaries whose output is TAP (CMOCKA_MESSAGE_OUTPUT);
# CLI tests are tests/cli/test_*.sh scripts using tests/cli/lib.sh, which
# also print TAP lines.  A binary or script that crashes or exits non-zero
# without reporting a failure counts as one failure of its own.
set -u
cd "$(dirname "$0")/.."
BUILD=${BUILD:-build}
export BUILD
export TUNECTL_BIN="$PWD/$BUILD/tunectl"
export TUNECTL_SRC="$PWD"
export CMOCKA_MESSAGE_OUTPUT=TAP

passed=0
failed=0
skipped=0
failures=()

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
	if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then
		failed=$((failed + 1))
		failures+=("$name: exited $rc without reporting a failed test")
	fi
}

logdir=$(mktemp -d "${TMPDIR:-/tmp}/tunectl-tests.XXXXXX")
trap 'rm -rf "$logdir"' EXIT

filter=${TESTS:-}
for bin in "$BUILD"/tests/test_*; do
	[ -x "$bin" ] || continue
	name=$(basename "$bin")
	[ -n "$filter" ] && [[ "$name" != *$filter* ]] && continue
	log="$logdir/$name.log"
	"$bin" >"$log" 2>&1
	rc=$?
	cat "$log"
	count "$name" "$log" "$rc"
done
for script in tests/cli/test_*.sh; do
	[ -f "$script" ] || continue
	name=$(basename "$script" .sh)
	[ -n "$filter" ] && [[ "$name" != *$filter* ]] && continue
	log="$logdir/$name.log"
	echo "# $name"
	bash "$script" >"$log" 2>&1
	rc=$?
	cat "$log"
	count "$name" "$log" "$rc"
done

if [ ${#failures[@]} -gt 0 ]; then
	echo "# failures:"
	printf '#   %s\n' "${failures[@]}"
fi
echo "$passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]
