# lib.sh - shared helpers for CLI scenario tests (source it).
#
# Each test prints TAP lines ("ok N - name" / "not ok N - name") that
# tests/run.sh counts.  Use:
#   tc <args...>            run tunectl (under valgrind when VALGRIND=1);
#                           sets $out (stdout), $err (stderr), $rc
#   check "name" <cmd...>   run a shell assertion and report it
#   expect_rc N "name"      assert the last tc exit code
#   expect_out "text" "name" / expect_err "text" "name"  (substring)
#   finish                  print the plan; exit non-zero on failure
set -u
TUNECTL_BIN=${TUNECTL_BIN:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)/build/tunectl}
TUNECTL_SRC=${TUNECTL_SRC:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}
T=$(mktemp -d "${TMPDIR:-/tmp}/tunectl-cli.XXXXXX")
trap 'rm -rf "$T"' EXIT
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
