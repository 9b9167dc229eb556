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

# --tree: the digest of an evidence directory, reproducible with coreutils.
tree_ref() {	# tree_ref DIR: the same digest from standard tools
	(cd "$1" && find . -type f -printf '%P\n' | LC_ALL=C sort |
	    xargs -r -d '\n' sha256sum | sha256sum | cut -d' ' -f1)
}
mkdir -p "$T/run/rank0" "$T/run/b" "$T/empty-tree"
printf 'step 1.0\n' >"$T/run/rank0/log.txt"
printf 'x' >"$T/run/b/Z"
printf 'y' >"$T/run/a b"
printf 'z' >"$T/run/B"
tc sha256 --tree run
expect_rc 0 "sha256 --tree of a plain directory exits 0"
expect_eq "$out" "$(tree_ref run)  run" "the tree digest equals the coreutils pipeline's"
tc sha256 --tree empty-tree
expect_eq "$out" "$(tree_ref empty-tree)  empty-tree" "an empty tree digests the empty manifest"
before=$out
printf 'w' >"$T/empty-tree/new"
tc sha256 --tree empty-tree
check "adding a file changes the tree digest" [ "$out" != "$before" ]
mv "$T/empty-tree/new" "$T/empty-tree/renamed"
tc sha256 --tree empty-tree
expect_eq "$out" "$(tree_ref empty-tree)  empty-tree" "a rename is seen by the digest"

ln -s ../abc "$T/run/b/link"
tc sha256 --tree run
expect_rc 1 "a symlink inside the tree exits 1"
expect_eq "$err" "tunectl: sha256: symbolic link in evidence directory run: 'b/link'" \
    "a symlink inside the tree is refused by name"
rm "$T/run/b/link"
mkfifo "$T/run/fifo"
tc sha256 --tree run
expect_rc 1 "a FIFO inside the tree exits 1 without blocking"
expect_eq "$err" "tunectl: sha256: not a regular file in evidence directory run: 'fifo'" \
    "a FIFO inside the tree is refused by name"
rm "$T/run/fifo"
printf 'n' >"$T/run/bad
name"
tc sha256 --tree run
expect_eq "$err" "tunectl: sha256: file name with a newline, carriage return or backslash in evidence directory run: 'bad\\nname'" \
    "a name sha256sum would escape is refused"
rm "$T/run/bad
name"
ln -s run "$T/runlink"
tc sha256 --tree runlink
expect_rc 1 "a symlinked tree root exits 1"
expect_err "evidence directory is a symbolic link: runlink" "a symlinked tree root is refused"
tc sha256 --tree abc
expect_eq "$err" "tunectl: sha256: [Errno 20] Not a directory: 'abc'" "a file is not a tree"

finish
