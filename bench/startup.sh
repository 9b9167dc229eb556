#!/usr/bin/env bash
# startup.sh - the start-up cost of the read-only controller commands
# (verify, status, resume, next) of a complete seven-step session against
# /bin/true, with an alternating driver (bench/alternate.c, compiled here
# with cc): every round launches /bin/true, then tunectl and, with
# BASELINE=OTHER-TUNECTL, that build too, the two in turn (each first in
# every other round), so that each round's ratio is taken on the same
# machine state.  Each build runs on its own session, made by itself (the
# sidecar is per session path).  Prints the median and 25th percentile of
# the per-round ratios; asserts nothing (issue 33's aim: at most 1.5x).
#
#   BUILD=build [BASELINE=path] bench/startup.sh [ROUNDS]
#
# Sessions live in $TMPDIR, default /dev/shm (tmpfs) where it exists.
set -euo pipefail
cd "$(dirname "$0")/.."
TC=${TUNECTL:-$PWD/${BUILD:-build}/tunectl}
ROUNDS=${1:-500}
BASELINE=${BASELINE:-}
HOST=$PWD/tests/fixtures/hosts/fake_host.py
if [ -z "${TMPDIR:-}" ] && [ -d /dev/shm ] && [ -w /dev/shm ]; then
	TMPDIR=/dev/shm
fi
W=$(mktemp -d "${TMPDIR:-/tmp}/tunectl-startup.XXXXXX")
trap 'rm -rf "$W"' EXIT
export TUNECTL_STATE_DIR=$W/state

${CC:-cc} -O2 -o "$W/alternate" bench/alternate.c

# complete BIN DIR: a complete seven-step session made by BIN in DIR
complete() {
	local bin=$1 dir=$2 s=$2/auto-tune-session.json
	"$bin" init --session "$s" --artifact-root "$dir" \
	    --session-id bench-session --optional-mode none >/dev/null
	for _ in 1 2 3 4 5 6 7; do
		"$bin" dispatch --session "$s" --output "$dir/task.json" >/dev/null
		/usr/bin/python3 "$HOST" ok --task "$dir/task.json" \
		    --result "$dir/result.json"
		"$bin" seal --session "$s" --result "$dir/result.json" >/dev/null
		rm -f "$dir/task.json" "$dir/result.json"
	done
	"$bin" verify --session "$s" | grep -q '"valid": true'
}
complete "$TC" "$W/a"
[ -z "$BASELINE" ] || complete "$BASELINE" "$W/b"

echo "binary: $TC"
[ -z "$BASELINE" ] || echo "baseline: $BASELINE"
echo "machine: $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg), sessions in $(df -P "$W" | awk 'NR == 2 { print $1 }')"
for cmd in verify status resume next; do
	echo "$cmd of a complete session, median ratio to /bin/true of $ROUNDS alternating rounds:"
	if [ -z "$BASELINE" ]; then
		"$W/alternate" "$ROUNDS" -- "$TC" "$cmd" --session "$W/a/auto-tune-session.json"
	else
		"$W/alternate" "$ROUNDS" -- "$TC" "$cmd" --session "$W/a/auto-tune-session.json" \
		    -- "$BASELINE" "$cmd" --session "$W/b/auto-tune-session.json"
	fi
done
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
