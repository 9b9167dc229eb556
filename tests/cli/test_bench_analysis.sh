#!/usr/bin/env bash
# test_bench_analysis.sh - bench/analysis.sh on tiny generated profiles:
# the default table, and the comparison beside a reference analyzer
# (REFERENCE, issue 32's held-out check) exercised with stand-in
# "references" built on tunectl itself, so no reference code is needed:
# one that agrees (outputs equal), one that changes a field (the first
# differing JSON pointer is named, exit 1), one that fails (its exit
# status is reported, exit 1), and the REF_MAX_ROWS cap.
. "$(dirname "$0")/lib.sh"
B=$TUNECTL_SRC/bench/analysis.sh
export TUNECTL=$TUNECTL_BIN SKS=2
cd "$T" || exit 1

# bench SIZES...: run the bench (bounded), stdout in $out, status in $rc.
bench() {
	rc=0
	out=$(timeout 60 "$B" "$@" 2> bench.err) || rc=$?
}

bench 30 60
expect_eq "$rc" 0 "the bench exits 0 without a reference"
check "the default table: the mode, then five columns" \
	grep -qx ' *mode *rows_each *steps *wall_s *peak_rss_mb *rows_per_s' <<< "$out"
expect_eq "$(grep -cE '^ ?(legacy|exact) ' <<< "$out")" 4 \
	"one row per size and mode, both modes by default"
check "the legacy row of 30 rows: 5 steps of 2 SKs' 3 children" \
	grep -qE '^legacy +30 +5 +[0-9.]+ +[0-9.]+ +[0-9]+$' <<< "$out"
check "the exact row counts the SK-off file's rows" \
	grep -qE '^ exact +30 +5 +[0-9.]+ +[0-9.]+ +[0-9]+$' <<< "$out"
expect_eq "$(grep -c 'ref_wall_s\|outputs:' <<< "$out")" 0 \
	"no reference columns or verdicts by default"

# A stand-in that is tunectl: the same argv must give the same documents.
cat > same.sh <<'EOF'
#!/bin/sh
exec "$TUNECTL" analyze fusion "$@"
EOF
# A stand-in whose analysis.json differs in one field.
cat > differ.sh <<'EOF'
#!/bin/sh
"$TUNECTL" analyze fusion "$@" || exit $?
while [ $# -gt 1 ]; do [ "$1" = --json-out ] && out=$2; shift; done
python3 - "$out" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
d["coverage"]["superkernel_count"] += 1
json.dump(d, open(sys.argv[1], "w"))
PY
EOF
# A stand-in that refuses.
printf '#!/bin/sh\necho "usage: refused" >&2\nexit 2\n' > fail.sh
chmod +x same.sh differ.sh fail.sh

REFERENCE=$T/same.sh bench 30 60
expect_eq "$rc" 0 "equal outputs: exit 0"
check "reference columns added" \
	grep -q 'ref_wall_s *ref_rss_mb *x_time *x_rss' <<< "$out"
expect_eq "$(grep -c '^  outputs: equal; markdown: equal$' <<< "$out")" 4 \
	"each size's and mode's documents are equal after canonical JSON, and the Markdown byte for byte"
check "the reference's wall time and RSS are printed beside tunectl's" \
	grep -qE '^legacy +30 +5 +[0-9.]+ +[0-9.]+ +[0-9]+ +[0-9.]+ +[0-9.]+ +[0-9.]+ +[0-9.]+$' <<< "$out"
check "in the exact mode too" \
	grep -qE '^ exact +30 +5 +[0-9.]+ +[0-9.]+ +[0-9]+ +[0-9.]+ +[0-9.]+ +[0-9.]+ +[0-9.]+$' <<< "$out"

REFERENCE=$T/differ.sh bench 30
expect_eq "$rc" 1 "differing outputs: exit 1"
check "the first differing pointer is named, both values shown" \
	grep -q '^  outputs: differ at /coverage/superkernel_count: 2 vs 3; markdown: ' <<< "$out"

REFERENCE=$T/fail.sh bench 30
expect_eq "$rc" 1 "a failing reference: exit 1"
check "its exit status and message are reported" \
	grep -q '^  reference exited 2 (tunectl 0): usage: refused' <<< "$out"

REFERENCE=$T/same.sh REF_MAX_ROWS=40 bench 30 60
expect_eq "$rc" 0 "REF_MAX_ROWS run"
expect_eq "$(grep -c '^  outputs:' <<< "$out")" 2 \
	"sizes above REF_MAX_ROWS run tunectl only (one size, two modes compared)"

# The exact mode's document, through a stand-in that keeps a copy.
cat > keep.sh <<'EOF'
#!/bin/sh
"$TUNECTL" analyze fusion "$@" || exit $?
while [ $# -gt 1 ]; do [ "$1" = --json-out ] && out=$2; shift; done
cp "$out" "$KEEP"
EOF
chmod +x keep.sh
MODE=exact KEEP=$T/exact.json REFERENCE=$T/keep.sh SKS=3 bench 54
expect_eq "$rc" 0 "MODE=exact beside an agreeing stand-in"
expect_eq "$(grep -c '^legacy' <<< "$out")" 0 "MODE=exact runs the exact mode only"
expect_eq "$(grep -c '^  outputs: equal; markdown: equal$' <<< "$out")" 1 \
	"its documents are equal"
check "the exact mode's capture is associated, every SK mapped exactly" \
	python3 - "$T/exact.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
assert d["association_protocol"]["status"] == "associated", d["association_protocol"]
ds = d["per_sk_decisions"]
assert [x["classification"] for x in ds] == ["beneficial", "neutral", "regressed"], ds
assert [x["action"] for x in ds] == ["keep", "block", "block"]
assert all(x["mapping_confidence"] == "exact_projected_trace" for x in ds)
assert all(x["sk_duration"]["count"] == 6 for x in ds)
PY

MODE=legacy bench 30
expect_eq "$(grep -c '^ exact' <<< "$out")" 0 "MODE=legacy runs the legacy mode only"
expect_eq "$(grep -c '^legacy' <<< "$out")" 1 "MODE=legacy: its row"
MODE=fast bench 30
expect_eq "$rc" 2 "an unknown MODE is a usage error"
check "and says so" grep -q 'MODE fast: not legacy, exact or both' bench.err

REFERENCE=$T/missing.py bench 30
expect_eq "$rc" 2 "a REFERENCE that does not exist is a usage error"
check "and says so" grep -q 'REFERENCE .*missing.py: no such file' bench.err
finish
