#!/bin/sh
# fuzz.sh - build every libFuzzer target tests/fuzz/fuzz_*.c with clang
# (-fsanitize=fuzzer,address,undefined) and run each for FUZZ_SECONDS
# (default 30).
#
#   scripts/fuzz.sh [TARGET...]            e.g. scripts/fuzz.sh fuzz_session
#   scripts/fuzz.sh --replay [TARGET...]   no libFuzzer: build each target
#                                          with $CC (ASan+UBSan when the
#                                          compiler has them) and a plain
#                                          main (tests/fuzz/replay_main.c)
#                                          and feed it its corpus once
#
# The library is compiled once per mode (instrumented objects under
# $FUZZ_BUILD/obj), then each target is linked against it.  Seeds come
# from tests/fuzz/corpus/<target>/ (read only: new inputs go to a scratch
# directory, so running the fuzzer never changes the tree; set
# FUZZ_KEEP_CORPUS=DIR to keep them in DIR/<target>) and
# tests/fuzz/<target>.dict when present.  Crash inputs are kept as
# $FUZZ_BUILD/<target>-crash-* (also leak-*, timeout-*, oom-*); the script
# exits non-zero on any finding.  Each run's executions, coverage and
# findings are appended to $FUZZ_BUILD/summary.tsv and printed at the end
# (docs/hardening.md records the numbers).
#
# Environment: FUZZ_SECONDS (per target), FUZZ_TIMEOUT (seconds one input
# may take, default 10), FUZZ_JOBS (targets fuzzed at once, default 1),
# FUZZ_BUILD (default build/fuzz), CC_FUZZ (clang), CC (replay).
set -eu
cd "$(dirname "$0")/.."

FUZZ_SECONDS=${FUZZ_SECONDS:-30}
FUZZ_TIMEOUT=${FUZZ_TIMEOUT:-10}
FUZZ_JOBS=${FUZZ_JOBS:-1}
OUT=${FUZZ_BUILD:-build/fuzz}
JOBS=$(nproc 2>/dev/null || echo 2)
mode=fuzz
if [ "${1:-}" = --replay ]; then
	mode=replay
	shift
fi

if [ $mode = fuzz ]; then
	CC_FUZZ=${CC_FUZZ:-}
	if [ -z "$CC_FUZZ" ]; then
		for c in clang clang-16 clang-15 clang-14; do
			if command -v "$c" >/dev/null 2>&1; then
				CC_FUZZ=$c
				break
			fi
		done
	fi
	if [ -z "$CC_FUZZ" ]; then
		echo "fuzz.sh: clang is needed (apt-get install clang), or use --replay" >&2
		exit 1
	fi
	COMPILER=$CC_FUZZ
	SAN="-fsanitize=address,undefined -fno-sanitize-recover=all"
	OBJ_FLAGS="-fsanitize=fuzzer-no-link $SAN"
	LINK_FLAGS="-fsanitize=fuzzer $SAN"
	OBJDIR=$OUT/obj
else
	COMPILER=${CC:-cc}
	SAN="-fsanitize=address,undefined -fno-sanitize-recover=all"
	if ! echo 'int main(void){return 0;}' |
	    $COMPILER $SAN -x c - -o "${TMPDIR:-/tmp}/fuzz-san-probe.$$" 2>/dev/null; then
		SAN=""
	fi
	rm -f "${TMPDIR:-/tmp}/fuzz-san-probe.$$"
	OBJ_FLAGS=$SAN
	LINK_FLAGS=$SAN
	OBJDIR=$OUT/replay-obj
fi
CFLAGS_F="-std=c17 -g -O1 -fno-omit-frame-pointer -Iinclude -D_GNU_SOURCE -DTUNECTL_VERSION=\"fuzz\""
LIBS="-lsodium -lcrypto -lyaml -lgmp -lm"

if [ $# -gt 0 ]; then
	targets=$*
else
	targets=$(cd tests/fuzz && ls fuzz_*.c | sed 's/\.c$//')
fi
mkdir -p "$OUT" "$OBJDIR"

# ---- the library, once, in parallel; rebuilt only when a source is newer
# (a nested run of FUZZ_JOBS > 1 uses what its parent built)
export COMPILER CFLAGS_F OBJ_FLAGS OBJDIR
[ -n "${FUZZ_NESTED:-}" ] ||
    echo "== building the library for $mode with $COMPILER ($JOBS jobs)"
[ -n "${FUZZ_NESTED:-}" ] ||
    ls src/*/*.c | grep -v '^src/cli/' | xargs -P "$JOBS" -I{} sh -c '
	src={}
	obj="$OBJDIR/$(echo "$src" | tr / _ | sed "s/\.c\$/.o/")"
	if [ ! -f "$obj" ] || [ "$src" -nt "$obj" ] || [ -n "$(find include src -name "*.h" -newer "$obj" | head -1)" ]; then
		# shellcheck disable=SC2086
		$COMPILER $CFLAGS_F $OBJ_FLAGS -c "$src" -o "$obj" || exit 255
	fi'
# the objects of the sources that exist now (a removed source's stale
# object is never linked)
LIB_OBJS=$(ls src/*/*.c | grep -v '^src/cli/' | tr / _ | sed "s|^|$OBJDIR/|; s/\.c\$/.o/")

status=0
summary=$OUT/summary.tsv
[ -f "$summary" ] || printf 'date\ttarget\tmode\tseconds\texecutions\texec_per_s\tcoverage\tcorpus\tfindings\n' >"$summary"

run_target() {	# run_target TARGET -> 0 no finding, 1 finding
	t=$1
	bin=$OUT/$t
	[ $mode = replay ] && bin=$OUT/replay-$t
	# targets that borrow the unit tests' session fixtures link their
	# helpers (unit_tmpdir, unit_rmtree) and cmocka, which those use
	extra=""
	grep -q '"\.\./unit/' "tests/fuzz/$t.c" &&
	    extra="tests/unit/unit_fixture.c -lcmocka"
	# shellcheck disable=SC2086
	if ! $COMPILER $CFLAGS_F $LINK_FLAGS -o "$bin" "tests/fuzz/$t.c" \
	    $([ $mode = replay ] && echo tests/fuzz/replay_main.c) $LIB_OBJS \
	    $extra $LIBS; then
		echo "== $t: BUILD FAILED (not a finding)" >&2
		return 1
	fi
	seeds=tests/fuzz/corpus/$t
	mkdir -p "$seeds"
	log=$OUT/$t.log
	if [ $mode = replay ]; then
		if "$bin" "$seeds" >"$log" 2>&1; then
			echo "== $t: $(tail -1 "$log")"
			return 0
		fi
		cat "$log" >&2
		echo "== $t: FINDING while replaying the corpus" >&2
		return 1
	fi
	if [ -n "${FUZZ_KEEP_CORPUS:-}" ]; then
		work=$FUZZ_KEEP_CORPUS/$t
		mkdir -p "$work"
	else
		work=$(mktemp -d "${TMPDIR:-/tmp}/tunectl-fuzz.XXXXXX")
	fi
	set -- -max_total_time="$FUZZ_SECONDS" -timeout="$FUZZ_TIMEOUT" \
	    -artifact_prefix="$OUT/$t-" -print_final_stats=1
	[ -f "tests/fuzz/$t.dict" ] && set -- "$@" -dict="tests/fuzz/$t.dict"
	rc=0
	"$bin" "$@" "$work" "$seeds" >"$log" 2>&1 || rc=$?
	execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
	cov=$(grep -o 'cov: [0-9]*' "$log" | tail -1 | sed 's/cov: //')
	corpus=$(ls "$work" | wc -l)
	[ -z "${FUZZ_KEEP_CORPUS:-}" ] && rm -rf "$work"
	findings=$(ls "$OUT/$t"-crash-* "$OUT/$t"-leak-* "$OUT/$t"-timeout-* \
	    "$OUT/$t"-oom-* 2>/dev/null | wc -l)
	printf '%s\t%s\tfuzz\t%s\t%s\t%s\t%s\t%s\t%s\n' "$(date -u +%FT%TZ)" "$t" \
	    "$FUZZ_SECONDS" "${execs:-0}" "$(( ${execs:-0} / FUZZ_SECONDS ))" \
	    "${cov:-0}" "$corpus" "$findings" >>"$summary"
	if [ "$rc" -ne 0 ]; then
		tail -40 "$log" >&2
		echo "== $t: FINDING (see $OUT/$t-* and $log)" >&2
		return 1
	fi
	echo "== $t: ${execs:-0} executions in ${FUZZ_SECONDS}s, coverage ${cov:-0}, no findings"
	return 0
}

if [ "$FUZZ_JOBS" -gt 1 ] && [ $mode = fuzz ]; then
	# fuzz several targets at once; each job reports into its own log
	jobs=$FUZZ_JOBS
	export FUZZ_SECONDS FUZZ_TIMEOUT FUZZ_BUILD=$OUT FUZZ_JOBS=1 CC_FUZZ=$COMPILER \
	    FUZZ_NESTED=1
	if ! printf '%s\n' $targets | xargs -P "$jobs" -I{} scripts/fuzz.sh {}; then
		status=1
	fi
else
	for t in $targets; do
		echo "== $t: building and running ($mode)"
		run_target "$t" || status=1
	done
fi
if [ $mode = fuzz ] && [ -z "${FUZZ_NESTED:-}" ]; then
	echo "== summary ($summary):"
	column -t -s "$(printf '\t')" "$summary" 2>/dev/null || cat "$summary"
fi
exit $status
