#!/bin/sh
# fuzz.sh - build every libFuzzer target tests/fuzz/fuzz_*.c with clang
# (-fsanitize=fuzzer,address,undefined) against the library sources and
# run each for FUZZ_SECONDS (default 30).
#
#   scripts/fuzz.sh [TARGET...]        e.g. scripts/fuzz.sh fuzz_json_reader
#
# Seeds come from tests/fuzz/corpus/<target>/ (read only: new inputs go to
# a scratch directory, so running the fuzzer never changes the tree) and
# tests/fuzz/<target>.dict when present.  Crash inputs are kept as
# build/fuzz/<target>-crash-*; the script exits non-zero on any finding.
set -eu
cd "$(dirname "$0")/.."

FUZZ_SECONDS=${FUZZ_SECONDS:-30}
OUT=${FUZZ_BUILD:-build/fuzz}
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
	echo "fuzz.sh: clang is needed (apt-get install clang)" >&2
	exit 1
fi

FLAGS="-std=c17 -g -O1 -fsanitize=fuzzer,address,undefined
    -fno-sanitize-recover=all -fno-omit-frame-pointer -Iinclude -D_GNU_SOURCE
    -DTUNECTL_VERSION=\"fuzz\""
LIBS="-lcrypto -lyaml -lgmp -lm"
LIB_SRCS=$(ls src/*/*.c | grep -v '^src/cli/')

if [ $# -gt 0 ]; then
	targets=$*
else
	targets=$(cd tests/fuzz && ls fuzz_*.c | sed 's/\.c$//')
fi

mkdir -p "$OUT"
status=0
for t in $targets; do
	echo "== $t: building with $CC_FUZZ"
	# shellcheck disable=SC2086
	$CC_FUZZ $FLAGS -o "$OUT/$t" "tests/fuzz/$t.c" $LIB_SRCS $LIBS
	work=$(mktemp -d "${TMPDIR:-/tmp}/tunectl-fuzz.XXXXXX")
	seeds=tests/fuzz/corpus/$t
	mkdir -p "$seeds"
	set -- -max_total_time="$FUZZ_SECONDS" -artifact_prefix="$OUT/$t-" \
	    -print_final_stats=1
	[ -f "tests/fuzz/$t.dict" ] && set -- "$@" -dict="tests/fuzz/$t.dict"
	echo "== $t: running for ${FUZZ_SECONDS}s"
	if ! "$OUT/$t" "$@" "$work" "$seeds"; then
		echo "== $t: FINDING (see $OUT/$t-*)" >&2
		status=1
	else
		echo "== $t: no findings"
	fi
	rm -rf "$work"
done
exit $status
