#!/usr/bin/env bash
# test_json_differential.sh - tunectl's JSON reader and writers against
# /usr/bin/python3 on 10,000 seeded random documents (deep nesting, every
# escape, astral and lone-surrogate characters, big and tiny floats, random
# bit-pattern doubles, huge integers, duplicate keys, large unsorted
# objects), a hand-written edge-case list and mutated (mostly invalid)
# variants.  For every document the canonical form (ensure_ascii False and
# True, allow_nan=False), the digest and the indent=2 form must equal
# Python's bytes, or the error must equal str(exception).
#
# tests/tools/gen_json_docs.py writes the documents and Python's answers;
# `tunectl json <mode> --lines` reads one document per line, so each mode
# is one process.  Both the one-pass reformatter and the tree path
# (--tree) are checked.  JSON_DIFF_COUNT / JSON_DIFF_SEED override the
# defaults (under VALGRIND=1 the count drops to 300).
. "$(dirname "$0")/lib.sh"

count=${JSON_DIFF_COUNT:-10000}
[ "${VALGRIND:-0}" = 1 ] && count=${JSON_DIFF_COUNT:-300}
seed=${JSON_DIFF_SEED:-20240611}

/usr/bin/python3 "$TUNECTL_SRC/tests/tools/gen_json_docs.py" "$T" "$count" "$seed"
check "generator wrote $count+ documents" test "$(wc -l <"$T/docs.txt")" -gt "$count"

# first_difference EXPECTED ACTUAL DOCS: explain a mismatch
first_difference() {
	/usr/bin/python3 - "$@" <<'EOF'
import sys
exp, act, docs = (open(p, "rb").read() for p in sys.argv[1:4])
for i, (a, b) in enumerate(zip(exp.split(b"\n"), act.split(b"\n"))):
    if a != b:
        print("#   line %d\n#   expected: %r\n#   actual:   %r" % (i + 1, a[:300], b[:300]))
        break
print("#   (documents in %s)" % sys.argv[3])
EOF
}

compare() {	# compare NAME DOCS ARGS...
	local name=$1 docs=$2 path
	shift 2
	for path in onepass tree; do
		local extra=()
		[ "$path" = tree ] && extra=(--tree)
		"${_tc_prefix[@]}" "$TUNECTL_BIN" json "$@" "${extra[@]}" --lines \
		    "$T/$docs" >"$T/$name.$path" 2>"$T/$name.$path.err"
		rc=$?
		if [ "$rc" -gt 1 ]; then
			not_ok "$name ($path): tunectl exited $rc" "$(head -c 400 "$T/$name.$path.err")"
		elif cmp -s "$T/$name.expected" "$T/$name.$path"; then
			ok "$name ($path) equals Python for every document"
		else
			not_ok "$name ($path) differs from Python" \
			    "$(first_difference "$T/$name.expected" "$T/$name.$path" "$T/$docs")"
		fi
	done
}

compare canonical docs.txt canonical
compare canonical_ascii docs.txt canonical --ascii
compare canonical_ascii_nonan docs.txt canonical --ascii --no-nan
compare digest docs.txt digest
compare digest_ascii docs.txt digest --ascii
compare pretty pretty_docs.txt pretty
compare pretty_ascii pretty_docs.txt pretty --ascii

finish
