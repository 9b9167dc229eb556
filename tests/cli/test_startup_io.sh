#!/usr/bin/env bash
# test_startup_io.sh - what a controller command asks of the kernel
# (issue 33's start-up promise, docs/hardening.md "The binary"): traced
# with strace (a TAP skip where it is missing), verify, status and next
# of a complete session open each document once with one fstat, no
# fcntl (O_NONBLOCK stays, Linux ignores it for a regular file) and one
# read (a short read ending where fstat put the end is EOF) - the ledger
# too, which the Final's checks parse and its manifest entry binds - and
# resolve the session's own path
# once, stat nothing twice in a row for the ELOOP check of
# a path already walked, seal's mkdir -p of directories that exist
# stats none above them, and the heap is left alone (no madvise) while
# every document is small; a document of 512 KiB or more is read with
# the heap grown once for huge pages (one madvise), and the static
# PIE's start makes no readlink of /proc/self/exe (src/cli/static_origin.c).
# The security checks
# these commands make are tested where they are (test_security,
# test_sidecar, test_worker_adversary); this test pins their cost.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/controller_fixtures.sh"

if [ "${SANITIZE:-0}" = 1 ] || [ "${VALGRIND:-0}" = 1 ]; then
	skip "the sanitizer and valgrind builds are not the shipped binary"
	finish
	exit
fi
if ! command -v strace >/dev/null 2>&1 ||
    ! strace -f -o /dev/null /bin/true >/dev/null 2>&1; then
	skip "strace is not installed or cannot trace here"
	finish
	exit
fi

ctl_init "$T/c" || exit 1
ctl_advance_to_final || exit 1
ctl_seal
expect_rc 0 "a complete seven-step session to trace"

# trace NAME ARGS...: strace tunectl ARGS into $T/NAME.trace
trace() {
	local name=$1
	shift
	strace -o "$T/$name.trace" "$TUNECTL_BIN" "$@" >"$T/$name.out" 2>&1
	rc=$?
}
count() { grep -cE "$1" "$2" || true; }

for cmd in verify status resume next; do
	trace "$cmd" "$cmd" --session "$S"
	expect_eq "$rc" 0 "$cmd of the complete session succeeds under strace"
	tr=$T/$cmd.trace
	opens=$(count '^openat\(.*O_RDONLY.*\) = [0-9]+$' "$tr")
	fstats=$(count 'newfstatat\(([02-9]|[1-9][0-9]+), "", ' "$tr")
	check "$cmd opens documents (it read $opens)" test "$opens" -gt 0
	expect_eq "$fstats" "$opens" "$cmd: one fstat per document opened"
	expect_eq "$(count '^fcntl\(' "$tr")" 0 \
	    "$cmd: no fcntl (O_NONBLOCK is left on the regular files opened)"
	expect_eq "$(count '^read\([0-9]+, ' "$tr")" "$opens" \
	    "$cmd: one read per document opened (no read of 0 bytes at EOF)"
	expect_eq "$(count '^read\([0-9]+, .*\) = 0$' "$tr")" 0 \
	    "$cmd: no read that only hears EOF"
	expect_eq "$(count 'madvise\(' "$tr")" 0 \
	    "$cmd: small documents only, the heap is not marked for huge pages"
	expect_eq "$(count '^readlink\("/proc/self/exe"' "$tr")" 0 \
	    "$cmd: glibc's start does not look up the program's own path"
	# each document's path is lstat'd while resolved under the root,
	# then opened: the followed stat pathlib makes to see a symlink loop
	# is made only when the walk met one
	r0=$R/phases/intake-preparation/phase-result.json
	if [ "$cmd" != next ]; then
		expect_eq "$(count "^openat\(AT_FDCWD, \"$R/ledger.json\"" "$tr")" 1 \
		    "$cmd: the ledger is read once (parsed and its binding checked)"
		expect_eq "$(count "newfstatat\(AT_FDCWD, \"$S\", .*AT_SYMLINK_NOFOLLOW" "$tr")" 1 \
		    "$cmd: the session's path is resolved once"
	fi
	if [ "$cmd" = verify ]; then
		expect_eq "$(count "newfstatat\(AT_FDCWD, \"$r0\", .*, 0\) = 0" "$tr")" 0 \
		    "verify: no followed stat of a sealed result it resolved"
	fi
done

# a sealed result replaced by a symlink loop: the walk meets the loop, so
# the stat is made and names it
r6=$R/phases/final-e2e-report/phase-result.json
mv "$r6" "$r6.kept"
ln -s phase-result.json "$r6"
tc verify --session "$S"
check "a sealed result that is a symlink loop fails verify" test "$rc" != 0
check "the failure names the loop" grep -q 'Symlink loop' <<<"$out$err"
rm "$r6"
mv "$r6.kept" "$r6"

# seal: every directory a write needs exists already, and mkdir says
# so without a stat of each directory above it
ctl_init "$T/w" || exit 1
ctl_result "$T/w/result.json"
strace -o "$T/seal.trace" "$TUNECTL_BIN" seal --session "$S" \
    --result "$T/w/result.json" >/dev/null 2>&1
expect_eq "$?" 0 "seal succeeds under strace"
expect_eq "$(count "newfstatat\(AT_FDCWD, \"$T/w\", .*, 0\) = 0" "$T/seal.trace")" 0 \
    "seal: no stat of the directories above the artifact root"
check "seal: the session was written" grep -q '"state": "sealed"' "$S"

# A document of 512 KiB or more: the heap is grown for huge pages once.
python3 -c 'import json, sys
json.dump({"rows": ["x" * 100] * 6000}, open(sys.argv[1], "w"))' "$T/big.json"
python3 -c 'import json, sys
json.dump({"rows": ["x" * 100] * 10}, open(sys.argv[1], "w"))' "$T/small.json"
trace big json digest "$T/big.json"
expect_eq "$rc" 0 "json digest of a 600 KiB document"
expect_eq "$(count 'madvise\(.*MADV_HUGEPAGE' "$T/big.trace")" 1 \
    "a 600 KiB document: the heap is marked for huge pages, once"
trace small json digest "$T/small.json"
expect_eq "$(count 'madvise\(' "$T/small.trace")" 0 \
    "a 1 KiB document: the heap is left alone"
check "the digest is the reference's" test \
    "$(cat "$T/big.out")" = "$(python3 -c 'import hashlib, json, sys
d = json.load(open(sys.argv[1]))
print(hashlib.sha256(json.dumps(d, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode()).hexdigest())' "$T/big.json")"

finish
