#!/usr/bin/env bash
# test_bench_shellcheck.sh - every script in bench/ passes shellcheck at
# its default severity (issue 35): the measurement scripts are run by hand
# rarely, so a quoting or logic slip would otherwise stay hidden until a
# number is wrong.  Skipped where shellcheck is not installed.
. "$(dirname "$0")/lib.sh"
command -v shellcheck >/dev/null 2>&1 || { skip "no shellcheck"; finish; }
for f in "$TUNECTL_SRC"/bench/*.sh; do
	check "shellcheck: bench/${f##*/}" shellcheck "$f"
done
finish
