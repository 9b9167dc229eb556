#!/usr/bin/env bash
# sha256.sh - throughput of "tunectl sha256" against "openssl dgst -sha256"
# on one file (page cache warm, best of R runs each).  Prints MB/s and the
# ratio tunectl/openssl; asserts nothing.  SIZE_MB=1024 and R=3 by
# default; the file lives in $TMPDIR (default /tmp) and is deleted after.
set -eu
cd "$(dirname "$0")/.."
BUILD=${BUILD:-build}
TC=$PWD/$BUILD/tunectl
SIZE_MB=${SIZE_MB:-1024}
R=${R:-3}
D=$(mktemp -d "${TMPDIR:-/tmp}/tunectl-bench.XXXXXX")
trap 'rm -rf "$D"' EXIT
F=$D/data.bin

head -c $((SIZE_MB * 1048576)) /dev/urandom >"$F"

now() { date +%s%N; }
best() {	# best <cmd...>: fastest of R runs, in ns
	local b=0 t0 t i
	for i in $(seq "$R"); do
		t0=$(now)
		"$@" >/dev/null
		t=$(( $(now) - t0 ))
		if [ "$b" -eq 0 ] || [ "$t" -lt "$b" ]; then b=$t; fi
	done
	echo "$b"
}

cat "$F" >/dev/null	# warm the page cache
a=$("$TC" sha256 "$F" | cut -d' ' -f1)
b=$(openssl dgst -sha256 -r "$F" | cut -d' ' -f1)
[ "$a" = "$b" ] || { echo "digest mismatch: $a vs $b" >&2; exit 1; }

ossl=$(best openssl dgst -sha256 "$F")
tcs=$(best "$TC" sha256 "$F")
awk -v mb="$SIZE_MB" -v o="$ossl" -v t="$tcs" 'BEGIN {
	printf "file:            %d MiB\n", mb
	printf "openssl dgst:    %.1f MiB/s\n", mb / (o / 1e9)
	printf "tunectl sha256:  %.1f MiB/s\n", mb / (t / 1e9)
	printf "ratio:           %.3f (tunectl throughput / openssl)\n", o / t
}'
