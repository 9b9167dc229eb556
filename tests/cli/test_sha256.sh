#!/usr/bin/env bash
# tunectl sha256: byte-for-byte the output of sha256sum, stdin as "-",
# Python-style errors for unreadable files, exit 1 after the others.
. "$(dirname "$0")/lib.sh"

printf 'abc' >"$T/abc"
: >"$T/empty"
head -c 3145745 /dev/urandom >"$T/big"	# 3 MiB + 17: crosses the read size
printf 'x' >"$T/sp ace"
printf 'y' >"$T/back\\slash"
printf 'z' >"$T/new
line"

cd "$T" || exit 1

tc sha256 abc empty big "sp ace"
expect_rc 0 "sha256 of readable files exits 0"
expect_eq "$out" "$(sha256sum abc empty big "sp ace")" "output equals sha256sum's"

tc sha256 "back\\slash" "new
line"
expect_eq "$out" "$(sha256sum "back\\slash" "new
line")" "names with a backslash or newline are escaped like sha256sum"

tc_in abc sha256 -
expect_rc 0 "stdin as - exits 0"
expect_eq "$out" "$(sha256sum - <abc)" "- hashes stdin like sha256sum"

tc sha256 abc missing big
expect_rc 1 "a missing file exits 1"
expect_eq "$err" "tunectl: sha256: [Errno 2] No such file or directory: 'missing'" \
    "a missing file is reported in Python's OSError form"
expect_eq "$out" "$(sha256sum abc big)" "the other files are still hashed, in order"

tc sha256 .
expect_rc 1 "a directory exits 1"
expect_eq "$err" "tunectl: sha256: [Errno 21] Is a directory: '.'" \
    "a directory is reported as Is a directory"

tc sha256 "it's"
expect_eq "$err" "tunectl: sha256: [Errno 2] No such file or directory: \"it's\"" \
    "the path is quoted like Python's repr"

tc sha256
expect_rc 2 "no file is a usage error"
expect_err "usage: tunectl sha256" "the usage error prints the usage"

tc sha256 --bogus abc
expect_rc 2 "an unknown option is a usage error"

tc sha256 -- -dash 2>/dev/null
expect_rc 1 "-- lets a name start with a dash"
expect_err "No such file or directory: '-dash'" "the dashed name is taken as a file"

finish
