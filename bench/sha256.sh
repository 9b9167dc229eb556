#!/usr/bin/env bash
# sha256.sh - "tunectl sha256" on one file against its floor, sha256sum of
# the same bytes (and openssl dgst for reference), page cache warm, the
# three interleaved R times; prints medians, MiB/s and the ratio
# tunectl/sha256sum in time (1.00x: as fast as the floor).  Asserts
# nothing, but a digest mismatch exits 1.  SIZE_MB=1024 and R=5 by
# default; the file lives in $TMPDIR (default /tmp) and is deleted after.
set -eu
cd "$(dirname "$0")/.."
BUILD=${BUILD:-build}
TC=$PWD/$BUILD/tunectl
SIZE_MB=${SIZE_MB:-1024}
R=${R:-5}
D=$(mktemp -d "${TMPDIR:-/tmp}/tunectl-bench.XXXXXX")
trap 'rm -rf "$D"' EXIT
F=$D/data.bin

head -c $((SIZE_MB * 1048576)) /dev/urandom >"$F"
cat "$F" >/dev/null	# warm the page cache
a=$("$TC" sha256 "$F" | cut -d' ' -f1)
b=$(sha256sum "$F" | cut -d' ' -f1)
[ "$a" = "$b" ] || { echo "digest mismatch: $a vs $b" >&2; exit 1; }

declare -A T
timed() {	# timed NAME CMD...: microseconds of one run, recorded
	local name=$1 t0 t1
	shift
	t0=${EPOCHREALTIME/./}; "$@" >/dev/null; t1=${EPOCHREALTIME/./}
	T[$name]="${T[$name]:-} $((t1 - t0))"
}
median() {
	tr ' ' '\n' | grep -v '^$' | sort -n | awk '{ a[NR] = $1 }
	    END { print (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2 }'
}
for _ in $(seq "$R"); do
	timed sha256sum sha256sum "$F"
	timed tunectl "$TC" sha256 "$F"
	command -v openssl >/dev/null && timed openssl openssl dgst -sha256 "$F"
done
s=$(echo "${T[sha256sum]}" | median)
t=$(echo "${T[tunectl]}" | median)
o=$(echo "${T[openssl]:-0}" | median)
awk -v mb="$SIZE_MB" -v s="$s" -v t="$t" -v o="$o" -v r="$R" 'BEGIN {
	printf "file: %d MiB, medians of %d interleaved runs\n", mb, r
	printf "  sha256sum (floor): %8.1f ms  %7.1f MiB/s\n", s / 1e3, mb / (s / 1e6)
	printf "  tunectl sha256:    %8.1f ms  %7.1f MiB/s\n", t / 1e3, mb / (t / 1e6)
	if (o > 0)
		printf "  openssl dgst:      %8.1f ms  %7.1f MiB/s\n", o / 1e3, mb / (o / 1e6)
	printf "ratio: %.2fx the floor (tunectl time / sha256sum time)\n", t / s
}'
